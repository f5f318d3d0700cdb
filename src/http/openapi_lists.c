/*
 * openapi_lists.c: a build-time program printing the lists of the OpenAPI document that
 * the endpoint table decides (service/endpoint.h), for src/http/openapi.awk to splice
 * into the document, so that the document cannot restate the table wrongly:
 *
 *   sweepable<TAB>rest<TAB>drop...   the rows with a kind, in the table's order: the
 *                                    query that sweep and find accept
 *   fields.NAME<TAB>field...         a row's answer fields in their order (rows with fields)
 *   aliases.NAME<TAB>alias pointer... a sweepable row's aliases, each its name, a space and
 *                                    its JSON Pointer (for "@aliases untold@")
 *   headline.NAME<TAB>field          a sweepable row's headline, the one value of its list
 *                                    (its answer's x-headline, "@headline.NAME or@")
 *
 * One list a line, its name then its values, separated by tabs. Exit status: 0, or 1 when
 * the table fails svc_endpoints_check() or a value would need escaping in JSON (the awk
 * script copies values verbatim between quotes) or output fails.
 */
#include <stdio.h>
#include <string.h>

#include "service/endpoint.h"

/* Whether s can stand between JSON quotes and in a tab-separated line as it is. */
static int plain(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == '"' || *s == '\\' || *s == 0x7f)
			return 0;
	return 1;
}

/* Print one value of a list; 0, or -1 (with a message) when it is not plain. */
static int put_value(const char *list, const char *v)
{
	if (!plain(v)) {
		fprintf(stderr, "openapi-lists: a value of %s needs escaping: %s\n", list, v);
		return -1;
	}
	printf("\t%s", v);
	return 0;
}

int main(void)
{
	struct err err;
	int e, i;

	if (svc_endpoints_check(&err) != 0) {
		fprintf(stderr, "openapi-lists: %s\n", err.message);
		return 1;
	}
	fputs("sweepable", stdout);
	for (e = 0; e < SVC_ENDPOINT_COUNT; e++)
		if (svc_endpoints[e]->kind && put_value("sweepable", svc_endpoints[e]->name) != 0)
			return 1;
	putchar('\n');
	for (e = 0; e < SVC_ENDPOINT_COUNT; e++) {
		const struct svc_endpoint_def *row = svc_endpoints[e];

		if (!row->fields)
			continue;
		if (!plain(row->name)) {
			fprintf(
			    stderr, "openapi-lists: endpoint name needs escaping: %s\n", row->name);
			return 1;
		}
		printf("fields.%s", row->name);
		for (i = 0; row->fields[i].name; i++)
			if (put_value(row->name, row->fields[i].name) != 0)
				return 1;
		putchar('\n');
	}
	for (e = 0; e < SVC_ENDPOINT_COUNT; e++) {
		const struct svc_endpoint_def *row = svc_endpoints[e];
		const struct ans_alias *a;
		char pair[256];

		if (!row->kind)
			continue;
		printf("aliases.%s", row->name);
		for (a = row->kind->aliases; a->name; a++) {
			if ((size_t)snprintf(pair, sizeof pair, "%s %s", a->name, a->pointer) >=
			        sizeof pair ||
			    strchr(a->name, ' ') || put_value(row->name, pair) != 0) {
				fprintf(stderr, "openapi-lists: alias %s of %s cannot be listed\n",
				    a->name, row->name);
				return 1;
			}
		}
		putchar('\n');
	}
	for (e = 0; e < SVC_ENDPOINT_COUNT; e++) {
		const struct svc_endpoint_def *row = svc_endpoints[e];

		if (!row->kind)
			continue;
		printf("headline.%s", row->name);
		if (put_value(row->name, row->headline) != 0)
			return 1;
		putchar('\n');
	}
	if (fflush(stdout) != 0 || ferror(stdout)) {
		perror("openapi-lists");
		return 1;
	}
	return 0;
}
