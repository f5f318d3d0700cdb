/*
 * contact.c: the `contact` command-line tool. Runs one request through the
 * same handlers as the daemon and prints the same answer, so everything the
 * service computes can be computed offline.
 *
 *   contact ENDPOINT [FILE|-] [--csv | --pretty]   (ENDPOINT: a row of the endpoint table)
 *
 * Exit status: 0 answered, 1 usage or I/O error, 2 request rejected (a 4xx of
 * the daemon; the JSON error body goes to stderr), 3 internal error.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/jtext.h"
#include "service/service.h"
#include "tunables.h"

enum exit_status { EXIT_ANSWERED = 0, EXIT_USAGE = 1, EXIT_REJECTED = 2, EXIT_INTERNAL = 3 };

/* With no FILE the request is {}: every default, the lesson's experiment. */
static const char default_request[] = "{}";

static void usage(FILE *f)
{
	int e;

	fprintf(f,
	    "Usage: contact ENDPOINT [FILE|-] [--csv | --pretty]\n"
	    "       contact --help | --version\n"
	    "Answer one contactd request offline, exactly as POST /v1/ENDPOINT does.\n"
	    "\n"
	    "ENDPOINT is one of:\n");
	for (e = 0; e < SVC_ENDPOINT_COUNT; e++)
		fprintf(f, "  %-10s %s\n", svc_endpoints[e].name, svc_endpoints[e].summary);
	fprintf(f,
	    "\n"
	    "The request is the JSON in FILE, or on standard input for \"-\". Without FILE\n"
	    "it is standard input when that is not a terminal (a pipe or a file), and {}\n"
	    "when that is a terminal or holds nothing: MuJoCo's defaults and the lesson's\n"
	    "experiment, a 10 cm, 1 kg cube dropped 10 cm for drop.\n"
	    "\n"
	    "  --csv      print a sweep answer as CSV instead of JSON\n"
	    "  --pretty   print the answer as indented JSON, for people (the same values)\n"
	    "  --help     print this help and exit\n"
	    "  --version  print the package and contact-core versions and exit\n"
	    "\n"
	    "Units are SI. In requests: body.size, height, margin, gap and solimp's width\n"
	    "in m; duration, timestep and solref's timeconst in s; body.mass in kg; gravity\n"
	    "in m/s^2; solref's direct form [-stiffness, -damping] in 1/s^2 and 1/s (per\n"
	    "unit of the contact's effective mass); dampratio, friction and solimp's d0,\n"
	    "dwidth, midpoint and power are pure numbers. In answers:\n");
	for (e = 0; e < SVC_ENDPOINT_COUNT; e++)
		if (svc_endpoints[e].units)
			fprintf(f, "  %-10s %s\n", svc_endpoints[e].name, svc_endpoints[e].units);
	fprintf(f,
	    "\n"
	    "Exit status: 0 answered, 1 usage or I/O error, 2 request rejected (its JSON\n"
	    "error on standard error), 3 internal error. See contact(1).\n");
}

/*
 * Read at most LIMIT_MAX_BODY_BYTES + 1 bytes of f into a new buffer (*text,
 * caller frees): one byte more than allowed is enough for the service to say
 * the body is too large without reading all of it.
 */
static int read_body(FILE *f, char **text, size_t *len)
{
	size_t cap = BODY_CHUNK_BYTES, n = 0;
	char *buf = malloc(cap), *grown;

	if (!buf)
		return -1;
	for (;;) {
		n += fread(buf + n, 1, cap - n, f);
		if (n < cap || n > (size_t)LIMIT_MAX_BODY_BYTES)
			break; /* end of file, error, or enough to know it is too large */
		grown = realloc(buf, cap * 2);
		if (!grown) {
			free(buf);
			return -1;
		}
		buf = grown;
		cap *= 2;
	}
	if (ferror(f)) {
		free(buf);
		return -1;
	}
	*text = buf;
	*len = n;
	return 0;
}

/* Is text (len bytes) nothing but JSON whitespace? */
static int is_blank(const char *text, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (!strchr(" \t\r\n", text[i]) || text[i] == '\0')
			return 0;
	return 1;
}

/* Print the JSON error body on stderr; the exit status of its class. */
static int report(const struct err *e)
{
	json_t *body = err_to_json(e);
	char *text = body ? svc_dump(body) : NULL;

	if (text)
		fputs(text, stderr);
	else
		fprintf(stderr, "contact: %s: %s\n", err_name(e->code), e->message);
	free(text);
	json_decref(body);
	return err_http_status(e->code) >= 500 ? EXIT_INTERNAL : EXIT_REJECTED;
}

enum format { FORMAT_JSON, FORMAT_CSV, FORMAT_PRETTY };

/* The answer's text (svc_ask()'s) indented for people, newline-terminated. */
static int pretty_text(const char *text, char **out, struct err *err)
{
	json_error_t jerr;
	json_t *answer = json_loads(text, 0, &jerr);
	char *pretty = answer ? jtext_dump(answer, JTEXT_PRETTY) : NULL;
	size_t len;

	json_decref(answer);
	if (!pretty)
		return err_set(err, ERR_INTERNAL, "", "cannot indent the answer");
	len = strlen(pretty);
	*out = realloc(pretty, len + 2);
	if (!*out) {
		free(pretty);
		return err_set(err, ERR_INTERNAL, "", "out of memory");
	}
	memcpy(*out + len, "\n", 2);
	return 0;
}

/* Answer the request in text and print it in format; returns the exit status. */
static int run(enum svc_endpoint ep, const char *text, size_t len, enum format format)
{
	struct svc_limits limits;
	struct err err;
	char *out = NULL, *answer_text = NULL;
	int status = EXIT_ANSWERED;

	err_clear(&err);
	svc_limits_default(&limits);
	/* no cache offline: every answer is computed */
	if (svc_ask(ep, text, len, &limits, NULL, &answer_text, NULL, &err) != 0) {
		status = report(&err);
		goto out;
	}
	if (format != FORMAT_JSON) {
		if ((format == FORMAT_CSV ? svc_text_csv(answer_text, &out, &err)
		                          : pretty_text(answer_text, &out, &err)) != 0) {
			status = report(&err);
			goto out;
		}
	} else {
		out = answer_text;
		answer_text = NULL;
	}
	if (fputs(out, stdout) == EOF || fflush(stdout) != 0) {
		fprintf(stderr, "contact: cannot write the answer: %s\n", strerror(errno));
		status = EXIT_USAGE;
	}
out:
	free(out);
	free(answer_text);
	return status;
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
	    {"csv", no_argument, NULL, 'c'},
	    {"pretty", no_argument, NULL, 'p'},
	    {"help", no_argument, NULL, 'h'},
	    {"version", no_argument, NULL, 'V'},
	    {NULL, 0, NULL, 0},
	};
	enum svc_endpoint ep;
	struct err err;
	const char *path = NULL;
	char *text = NULL;
	size_t len;
	FILE *f = NULL;
	enum format format = FORMAT_JSON;
	int csv = 0, pretty = 0, opt, status;

	while ((opt = getopt_long(argc, argv, "hV", options, NULL)) != -1) {
		switch (opt) {
		case 'c':
			csv = 1;
			break;
		case 'p':
			pretty = 1;
			break;
		case 'h':
			usage(stdout);
			return EXIT_ANSWERED;
		case 'V':
			printf("contact %s (contact core %s)\n", PACKAGE_VERSION, CORE_VERSION);
			return EXIT_ANSWERED;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind >= argc || argc - optind > 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	err_clear(&err);
	if (svc_endpoint_parse(argv[optind], &ep, &err) != 0) {
		fprintf(stderr, "contact: unknown endpoint \"%s\"\n", argv[optind]);
		usage(stderr);
		return EXIT_USAGE;
	}
	if (csv && !svc_endpoints[ep].csv) {
		fprintf(stderr, "contact: --csv is not for %s answers\n", svc_endpoints[ep].name);
		return EXIT_USAGE;
	}
	if (csv && pretty) {
		fprintf(stderr, "contact: --csv and --pretty are two formats; choose one\n");
		return EXIT_USAGE;
	}
	format = csv ? FORMAT_CSV : pretty ? FORMAT_PRETTY : FORMAT_JSON;
	/* no FILE: a request piped in is the request, never silently ignored */
	path = argc - optind == 2 ? argv[optind + 1] : isatty(STDIN_FILENO) ? NULL : "-";
	if (!path)
		return run(ep, default_request, strlen(default_request), format);
	f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
	if (!f || read_body(f, &text, &len) != 0) {
		fprintf(stderr, "contact: cannot read %s: %s\n", strcmp(path, "-") ? path : "stdin",
		    strerror(errno));
		if (f && f != stdin)
			fclose(f);
		return EXIT_USAGE;
	}
	if (f != stdin)
		fclose(f);
	if (argc - optind == 1 && is_blank(text, len))
		status =
		    run(ep, default_request, strlen(default_request), format); /* nothing piped */
	else
		status = run(ep, text, len, format);
	free(text);
	return status;
}
