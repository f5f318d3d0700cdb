/*
 * endpoint.c: the table of question endpoints, made from SVC_ENDPOINTS (endpoint.h);
 * each row is in its endpoint's own file.
 */
#include "service/endpoint.h"

#include <string.h>

const struct svc_endpoint_def *const svc_endpoints[SVC_ENDPOINT_COUNT] = {
#define SVC_ENDPOINT_POINTER(id, name) [SVC_##id] = &svc_ep_##name,
    SVC_ENDPOINTS(SVC_ENDPOINT_POINTER)
#undef SVC_ENDPOINT_POINTER
};

int svc_endpoint_parse(const char *name, enum svc_endpoint *ep, struct err *err)
{
	int i;

	for (i = 0; i < SVC_ENDPOINT_COUNT; i++) {
		if (strcmp(name, svc_endpoints[i]->name) == 0) {
			*ep = (enum svc_endpoint)i;
			return 0;
		}
	}
	return err_set(err, ERR_NOT_FOUND, "", "unknown endpoint \"%s\"", name);
}

const char *svc_endpoint_name(enum svc_endpoint ep)
{
	return (int)ep >= 0 && (int)ep < SVC_ENDPOINT_COUNT ? svc_endpoints[ep]->name : "unknown";
}

const struct svc_field *svc_endpoint_field(const struct svc_endpoint_def *row, const char *name)
{
	const struct svc_field *f;

	for (f = row->fields; f && f->name; f++)
		if (strcmp(f->name, name) == 0)
			return f;
	return NULL;
}

/* Whether a kind has everything sweep and find call. */
static int kind_complete(const struct ans_kind *k)
{
	const struct ans_alias *a, *b;

	if (!k->request_size || !k->result_size || !k->point || !k->canonical || !k->steps ||
	    !k->compute || !k->fields || !k->aliases)
		return 0;
	for (a = k->aliases; a->name; a++)
		for (b = a + 1; b->name; b++)
			if (strcmp(a->name, b->name) == 0)
				return 0;
	return 1;
}

int svc_endpoints_check(struct err *err)
{
	int i;

	for (i = 0; i < SVC_ENDPOINT_COUNT; i++) {
		const struct svc_endpoint_def *row = svc_endpoints[i];

		if (!row->name || !row->summary)
			return err_set(err, ERR_INTERNAL, "", "endpoint row %d has no name", i);
		if (!row->kind && (!row->parse || !row->canonical || !row->answer || !row->release))
			return err_set(err, ERR_INTERNAL, "",
			    "endpoint %s has neither its functions nor a kind", row->name);
		if (row->kind && !kind_complete(row->kind))
			return err_set(
			    err, ERR_INTERNAL, "", "endpoint %s has an incomplete kind", row->name);
		if (row->kind && !row->fields)
			return err_set(
			    err, ERR_INTERNAL, "", "endpoint %s has no fields", row->name);
		if (row->kind &&
		    (!row->headline || !svc_endpoint_field(row, row->headline) ||
		        !svc_endpoint_field(row, row->headline)->unit))
			return err_set(err, ERR_INTERNAL, "",
			    "endpoint %s has no headline among its numbers", row->name);
	}
	return 0;
}
