/*
 * contact.c: the `contact` command-line tool. Runs one request through the
 * same handlers as the daemon and prints the same answer, so everything the
 * service computes can be computed offline.
 *
 *   contact ENDPOINT [FILE|-] [--csv | --pretty] [--plot OUT.svg [--field NAME]]
 *           (ENDPOINT: a row of the endpoint table; --plot: sweep and drop)
 *   contact plot [ANSWER|-] [--plot OUT.svg] [--field NAME]   (a saved answer)
 *   contact sweep [FILE|-] --shard K/N [--csv]   (part K of N of a sweep)
 *   contact merge PART... [--csv | --pretty]     (the parts joined: the whole answer)
 *   contact hold [FILE|-] [--shape S --size ... --kp N ...]   (the grasp's flags: holdflag.h)
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
#include <time.h>
#include <unistd.h>

#include "base/jtext.h"
#include "core/mjver.h"
#include "model/mjcf.h"
#include "cli/figure.h"
#include "cli/holdflag.h"
#include "service/eval.h"
#include "service/service.h"
#include "service/shard.h"
#include "service/sweep.h"
#include "base/knobs.h"
#include "core/knobs.h"
#include "service/knobs.h"
#include "cli/knobs.h"

enum exit_status { EXIT_ANSWERED = 0, EXIT_USAGE = 1, EXIT_REJECTED = 2, EXIT_INTERNAL = 3 };

/* The exit status of an error, the CLI's own mapping: the request's fault, or ours (a
 * store unavailable, a bug, a code not known here). */
static int exit_of(enum err_code code)
{
	return code == ERR_UNAVAILABLE || code == ERR_INTERNAL || (unsigned)code > ERR_INTERNAL
	    ? EXIT_INTERNAL
	    : EXIT_REJECTED;
}

/* With no FILE the request is {}: every default, the lesson's experiment. */
static const char default_request[] = "{}";

static void usage(FILE *f)
{
	int e;

	fprintf(f,
	    "Usage: contact ENDPOINT [FILE|-] [--csv | --pretty] [--plot OUT.svg [--field NAME]]\n"
	    "       contact sweep [FILE|-] --shard K/N [--csv | --pretty]\n"
	    "       contact merge PART... [--csv | --pretty]\n"
	    "       contact hold [FILE|-] [--shape S] [--size ...] [--actuator position --kp N\n"
	    "                    --squeeze M] [--damping N] ... (the grasp's flags, below)\n"
	    "       contact plot [ANSWER|-] [--plot OUT.svg] [--field NAME]\n"
	    "       contact model FILE.xml [--mujoco RELEASE] [--pretty]\n"
	    "       contact --help | --version\n"
	    "Answer one contactd request offline, exactly as POST /v1/ENDPOINT does.\n"
	    "\n"
	    "ENDPOINT is one of:\n");
	for (e = 0; e < SVC_ENDPOINT_COUNT; e++)
		fprintf(f, "  %-10s %s\n", svc_endpoints[e]->name, svc_endpoints[e]->summary);
	fprintf(f,
	    "\n"
	    "The request is the JSON in FILE, or on standard input for \"-\". Without FILE\n"
	    "it is standard input when that is not a terminal (a pipe or a file), and {}\n"
	    "when that is a terminal or holds nothing: MuJoCo's defaults and the lesson's\n"
	    "experiment, a 10 cm, 1 kg cube dropped 10 cm for drop.\n"
	    "\n"
	    "  --csv      print a sweep answer as CSV instead of JSON\n"
	    "  --pretty   print the answer as indented JSON, for people (the same values)\n"
	    "  --plot OUT.svg  also draw the answer as SVG: a sweep's field over the varied\n"
	    "             value (a line) or the grid (a heat map); a drop's trajectory, the\n"
	    "             height (m) of the lowest point against time (s)\n"
	    "  --field NAME  the sweep answer's column to draw (default: the first of reals)\n"
	    "  --shard K/N  compute part K of N of a sweep (1 <= K <= N): the points whose\n"
	    "             index i (in the whole sweep's order) has i %% N == K-1, with a\n"
	    "             \"part\" member (JSON) or a first line \"#part ...\" (CSV) saying which\n"
	    "             part it is, for contact merge\n"
	    "  --mujoco RELEASE  for contact model FILE.xml: the MuJoCo release whose\n"
	    "             compiler and collision rules apply (the request's \"mujoco\";\n"
	    "             default the newest verified, %s)\n"
	    "  --help     print this help and exit\n"
	    "  --version  print the package and contact-core versions and exit\n"
	    "\n"
	    "contact hold also takes the grasp as flags, each setting one field of the\n"
	    "request (FILE's, standard input's or {}) as the same JSON would:\n",
	    core_mjver_name(core_mjver_default()));
	holdflag_usage(f);
	fprintf(f,
	    "\n"
	    "Units are SI. In requests: body.size, height, margin, gap and solimp's width\n"
	    "in m; duration, timestep and solref's timeconst in s; body.mass in kg; gravity\n"
	    "in m/s^2; solref's direct form [-stiffness, -damping] in 1/s^2 and 1/s (per\n"
	    "unit of the contact's effective mass); dampratio, friction and solimp's d0,\n"
	    "dwidth, midpoint and power are pure numbers. In answers:\n");
	for (e = 0; e < SVC_ENDPOINT_COUNT; e++)
		if (svc_endpoints[e]->units)
			fprintf(f, "  %-10s %s\n", svc_endpoints[e]->name, svc_endpoints[e]->units);
	fprintf(f,
	    "\n"
	    "contact merge joins the parts of one sharded sweep (JSON, the API's NDJSON, or\n"
	    "CSV files; any order; \"-\" for standard input) into exactly the answer one\n"
	    "process gives without --shard: JSON (--pretty indented) from JSON parts, CSV\n"
	    "from CSV parts or with --csv. It refuses parts of different sweeps or counts,\n"
	    "a part given twice and a missing one, saying which.\n"
	    "\n"
	    "contact plot draws a saved answer (a sweep's, or a drop's with \"trajectory\": true)\n"
	    "to OUT.svg, or to standard output without --plot.\n"
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
	char *text = body ? jtext_line(body) : NULL;

	if (text)
		fputs(text, stderr);
	else
		fprintf(stderr, "contact: %s: %s\n", err_name(e->code), e->message);
	free(text);
	json_decref(body);
	return exit_of(e->code);
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

/* What --plot and --field asked for. */
struct plot_request {
	const char *out;   /* SVG file, NULL: no plot ("-": standard output) */
	const char *field; /* sweep column, NULL: the default */
};

/*
 * The answer text of a drop request with its trajectory: the body with "trajectory":
 * true (body was answered a moment ago, so it is a valid drop request). Caller frees.
 */
static char *drop_with_trajectory(const char *body, size_t len, struct err *err)
{
	struct svc_limits limits;
	json_error_t jerr;
	json_t *request = json_loadb(body, len, 0, &jerr);
	char *text = NULL, *answer = NULL;

	svc_limits_default(&limits);
	if (!request || json_object_set_new(request, "trajectory", json_true()) != 0 ||
	    !(text = jtext_line(request)))
		err_set(err, ERR_INTERNAL, "", "cannot ask for the trajectory");
	else if (svc_ask(SVC_DROP, text, strlen(text), &limits, NULL, &answer, NULL, err) != 0)
		answer = NULL;
	free(text);
	json_decref(request);
	return answer;
}

/* Draw a drop's trajectory (of its request in body) or a sweep's answer text to p->out. */
static int draw(enum svc_endpoint ep, const struct plot_request *p, const char *body, size_t len,
    const char *answer_text)
{
	FILE *f = strcmp(p->out, "-") == 0 ? stdout : fopen(p->out, "w");
	char *drop_text = NULL;
	struct err err;
	json_error_t jerr;
	json_t *answer = NULL;
	int rc = -1;

	err_clear(&err);
	if (!f) {
		fprintf(stderr, "contact: cannot write %s: %s\n", p->out, strerror(errno));
		return EXIT_USAGE;
	}
	if (ep == SVC_DROP)
		answer_text = drop_text = drop_with_trajectory(body, len, &err);
	if (answer_text) {
		answer = json_loads(answer_text, 0, &jerr);
		rc = answer
		    ? figure_answer(f, answer, p->field, &err)
		    : err_set(&err, ERR_BAD_JSON, "", "the answer is not JSON: %s", jerr.text);
	}
	json_decref(answer);
	free(drop_text);
	if ((f == stdout ? fflush(f) : fclose(f)) != 0 && rc == 0) {
		fprintf(stderr, "contact: cannot write %s: %s\n", p->out, strerror(errno));
		return EXIT_USAGE;
	}
	return rc == 0 ? EXIT_ANSWERED : report(&err);
}

/* Standard output of a streamed sweep: rows leave as they are computed, flushed with
 * the first row and then at least every STREAM_FLUSH_SECONDS, not row by row. */
struct stream_out {
	enum format format;
	size_t rows;
	double last_flush;
};

static double monotonic_seconds(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int stream_failed(struct err *err)
{
	return err_set(err, ERR_INTERNAL, "", "cannot write the answer: %s", strerror(errno));
}

/* The answer's text up to its rows: the head without its closing brace, then "rows". */
static int stream_head(void *ctx, const json_t *head, const char *csv_header, struct err *err)
{
	struct stream_out *s = ctx;
	char *text;
	int rc = 0;

	if (s->format == FORMAT_CSV)
		return fputs(csv_header, stdout) == EOF ? stream_failed(err) : 0;
	/* keys are sorted and "rows" sorts last: the head's text is the answer's start */
	text = jtext_dump(head, 0);
	if (!text)
		return err_set(err, ERR_INTERNAL, "", "out of memory");
	text[strlen(text) - 1] = '\0';
	if (fputs(text, stdout) == EOF || fputs(",\"rows\":[", stdout) == EOF)
		rc = stream_failed(err);
	free(text);
	return rc;
}

static int stream_row(void *ctx, const char *text, size_t len, const char *json, struct err *err)
{
	struct stream_out *s = ctx;
	double now;

	(void)json;
	if (s->format == FORMAT_JSON && s->rows > 0 && fputc(',', stdout) == EOF)
		return stream_failed(err);
	if (fwrite(text, 1, len, stdout) != len)
		return stream_failed(err);
	now = monotonic_seconds();
	if (s->rows++ == 0 || now - s->last_flush >= STREAM_FLUSH_SECONDS) {
		s->last_flush = now;
		if (fflush(stdout) != 0)
			return stream_failed(err);
	}
	return 0;
}

/* A sweep printed as its rows are computed (JSON or CSV): the same bytes as run(). */
static int run_streamed(const char *text, size_t len, enum format format)
{
	struct svc_limits limits;
	struct stream_out out = {format, 0, 0};
	struct sweep_sink sink = {
	    format == FORMAT_CSV ? SWEEP_CSV : SWEEP_JSON, 0, stream_head, stream_row, &out};
	struct err err;
	static char buffer[STREAM_BUFFER_BYTES];

	/* into a file or pipe, a few large writes (stdio's default: one per 4 KiB, each a
	 * system call costing as much as a dozen rows' text); a terminal keeps its lines */
	if (!isatty(STDOUT_FILENO))
		setvbuf(stdout, buffer, _IOFBF, sizeof buffer);
	err_clear(&err);
	svc_limits_default(&limits);
	if (svc_sweep_stream(text, len, &limits, &sink, &err) != 0) {
		fflush(stdout);
		return report(&err);
	}
	if ((format == FORMAT_JSON && fputs("]}\n", stdout) == EOF) || fflush(stdout) != 0) {
		fprintf(stderr, "contact: cannot write the answer: %s\n", strerror(errno));
		return EXIT_USAGE;
	}
	return EXIT_ANSWERED;
}

/* Answer the request in text and print it in format (and draw it if asked); returns the
 * exit status. */
static int run(enum svc_endpoint ep, const char *text, size_t len, enum format format,
    const struct plot_request *plot);

/* `contact model FILE.xml`: the file and the files it includes, read from disk relative
 * to its directory as MuJoCo reads them, as the model endpoint's JSON request. */
static int run_model_file(
    const char *path, const char *mujoco, enum format format, const struct plot_request *plot)
{
	char dir[4096];
	const char *slash = strrchr(path, '/');
	struct mjcf_doc doc;
	struct err err;
	json_t *req, *files;
	char *text;
	size_t i;
	int status;

	snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
	if (slash && slash == path)
		snprintf(dir, sizeof dir, "/");
	err_clear(&err);
	if (mjcf_load(slash ? slash + 1 : path, mjcf_disk_reader, dir, &doc, &err) != 0) {
		fprintf(stderr, "contact: %s\n", err.message);
		return err_status(err.code) == 500 ? EXIT_INTERNAL : EXIT_REJECTED;
	}
	files = json_object();
	for (i = 0; files && i < doc.count; i++)
		json_object_set_new(
		    files, doc.files[i].name, json_stringn(doc.files[i].text, doc.files[i].len));
	req = json_pack("{s:s, s:o}", "main", doc.files[0].name, "files", files);
	if (req && mujoco)
		json_object_set_new(req, "mujoco", json_string(mujoco));
	mjcf_free(&doc);
	text = req ? json_dumps(req, JSON_COMPACT) : NULL;
	json_decref(req);
	if (!text)
		return EXIT_INTERNAL;
	status = run(SVC_MODEL, text, strlen(text), format, plot);
	free(text);
	return status;
}

static int run(enum svc_endpoint ep, const char *text, size_t len, enum format format,
    const struct plot_request *plot)
{
	struct svc_limits limits;
	struct err err;
	char *out = NULL, *answer_text = NULL;
	int status = EXIT_ANSWERED;

	/* a sweep's rows are printed as they are computed, unless the whole answer is
	 * needed first (indented, or drawn) */
	if (ep == SVC_SWEEP && format != FORMAT_PRETTY && !plot->out)
		return run_streamed(text, len, format);
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
	if (status == EXIT_ANSWERED && plot->out)
		status = draw(ep, plot, text, len, format == FORMAT_JSON ? out : answer_text);
out:
	free(out);
	free(answer_text);
	return status;
}

/* `contact hold` with grasp flags: the request text with their fields set, answered. */
static int run_grasp(const struct holdflag_set *grasp, const char *text, size_t len,
    enum format format, const struct plot_request *plot)
{
	char why[256], *request = holdflag_apply(grasp, text, len, why, sizeof why);
	int status;

	if (!request) {
		fprintf(stderr, "contact: %s\n", why);
		return EXIT_USAGE;
	}
	status = run(SVC_HOLD, request, strlen(request), format, plot);
	free(request);
	return status;
}

/* What --shard asked for: part index of count (index 0: no --shard). */
struct shard_option {
	int given;
	long index, count;
};

/* Parse "K/N" (decimal digits only); the service checks their range. */
static int parse_shard(const char *text, struct shard_option *out)
{
	char *end;

	if (text[0] < '0' || text[0] > '9')
		return -1;
	out->index = strtol(text, &end, 10);
	if (*end != '/' || end[1] < '0' || end[1] > '9')
		return -1;
	out->count = strtol(end + 1, &end, 10);
	out->given = 1;
	return *end == '\0' ? 0 : -1;
}

/*
 * The request text with "shard": {"index": K, "count": N} set (replacing any), as a
 * new string the caller frees; NULL when text is not a JSON object, which then goes
 * to the service as it is (its error is the answer).
 */
static char *with_shard(const char *text, size_t len, const struct shard_option *shard)
{
	json_error_t jerr;
	json_t *request = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	char *out = NULL;

	if (json_is_object(request) &&
	    json_object_set_new(request, "shard",
	        json_pack("{s:I, s:I}", "index", (json_int_t)shard->index, "count",
	            (json_int_t)shard->count)) == 0)
		out = jtext_line(request);
	json_decref(request);
	return out;
}

/* Read all of f into a new buffer (*text, NUL-terminated, caller frees): parts have no
 * size limit of their own. */
static int read_all(FILE *f, char **text, size_t *len)
{
	size_t cap = BODY_CHUNK_BYTES, n = 0;
	char *buf = malloc(cap), *grown;

	while (buf) {
		n += fread(buf + n, 1, cap - n - 1, f);
		if (n < cap - 1)
			break;
		grown = realloc(buf, cap * 2);
		if (!grown) {
			free(buf);
			buf = NULL;
			break;
		}
		buf = grown;
		cap *= 2;
	}
	if (!buf || ferror(f)) {
		free(buf);
		return -1;
	}
	buf[n] = '\0';
	*text = buf;
	*len = n;
	return 0;
}

/* `contact merge PART...`: the parts joined and printed in format (csv_asked or
 * pretty_asked: the flag given; otherwise the parts' own format). */
static int run_merge(int nfiles, char **files, int csv_asked, int pretty_asked)
{
	struct shard_input *inputs = calloc((size_t)nfiles, sizeof *inputs);
	char **texts = calloc((size_t)nfiles, sizeof *texts), *out = NULL, *csv = NULL;
	json_t *answer = NULL;
	struct err err;
	int i, stdin_used = 0, status = EXIT_USAGE;

	err_clear(&err);
	if (!inputs || !texts)
		goto out;
	for (i = 0; i < nfiles; i++) {
		int is_stdin = strcmp(files[i], "-") == 0;
		FILE *f = is_stdin ? stdin : fopen(files[i], "rb");
		size_t len = 0;

		if (is_stdin && stdin_used++) {
			fprintf(stderr, "contact merge: standard input (\"-\") given twice\n");
			goto out;
		}
		if (!f || read_all(f, &texts[i], &len) != 0) {
			fprintf(stderr, "contact merge: cannot read %s: %s\n",
			    is_stdin ? "stdin" : files[i], strerror(errno));
			if (f && !is_stdin)
				fclose(f);
			goto out;
		}
		if (!is_stdin)
			fclose(f);
		inputs[i] = (struct shard_input){is_stdin ? "stdin" : files[i], texts[i], len};
	}
	if (shard_merge(inputs, (size_t)nfiles, &answer, &csv, &err) != 0) {
		fprintf(stderr, "contact merge: %s\n", err.message);
		status = exit_of(err.code);
		goto out;
	}
	if (csv && pretty_asked) {
		fprintf(stderr,
		    "contact merge: CSV parts merge to CSV, not --pretty JSON; merge "
		    "the JSON parts for JSON\n");
		goto out;
	}
	if (answer) {
		char *text = jtext_line(answer);
		int rc = !text     ? err_set(&err, ERR_INTERNAL, "", "out of memory")
		    : csv_asked    ? svc_sweep_csv(answer, &out, &err)
		    : pretty_asked ? pretty_text(text, &out, &err)
		                   : ((out = text), (text = NULL), 0);
		free(text);
		if (rc != 0) {
			status = report(&err);
			goto out;
		}
	} else {
		out = csv;
		csv = NULL;
	}
	if (fputs(out, stdout) == EOF || fflush(stdout) != 0) {
		fprintf(stderr, "contact merge: cannot write the answer: %s\n", strerror(errno));
		goto out;
	}
	status = EXIT_ANSWERED;
out:
	for (i = 0; texts && i < nfiles; i++)
		free(texts[i]);
	free(texts);
	free(inputs);
	free(out);
	free(csv);
	json_decref(answer);
	return status;
}

int main(int argc, char **argv)
{
	static const struct option own[] = {
	    {"csv", no_argument, NULL, 'c'},
	    {"pretty", no_argument, NULL, 'p'},
	    {"plot", required_argument, NULL, 'o'},
	    {"field", required_argument, NULL, 'f'},
	    {"shard", required_argument, NULL, 's'},
	    {"mujoco", required_argument, NULL, 'm'},
	    {"help", no_argument, NULL, 'h'},
	    {"version", no_argument, NULL, 'V'},
	};
	/* the command's own options, hold's grasp flags, the terminator */
	struct option options[sizeof own / sizeof own[0] + HOLDFLAG_COUNT + 1] = {
	    {NULL, 0, NULL, 0}};
	struct holdflag_set grasp = {{NULL}, 0};
	enum svc_endpoint ep;
	struct err err;
	const char *path = NULL, *mujoco = NULL;
	char *text = NULL;
	size_t len;
	FILE *f = NULL;
	enum format format = FORMAT_JSON;
	struct plot_request plot = {NULL, NULL};
	struct shard_option shard = {0, 0, 0};
	char *sharded = NULL;
	int csv = 0, pretty = 0, opt, status, plot_answer;

	memcpy(options, own, sizeof own);
	memcpy(options + sizeof own / sizeof own[0], holdflag_options, sizeof holdflag_options);
	/* a batch's failed call carries the HTTP status it would have alone, as the daemon's */
	/* a row of the endpoint table without its functions is a build defect: refuse to start */
	if (svc_endpoints_check(&err) != 0) {
		fprintf(stderr, "contact: %s\n", err.message);
		return EXIT_INTERNAL;
	}
	while ((opt = getopt_long(argc, argv, "hV", options, NULL)) != -1) {
		switch (opt) {
		case 'c':
			csv = 1;
			break;
		case 'p':
			pretty = 1;
			break;
		case 'o':
			plot.out = optarg;
			break;
		case 'f':
			plot.field = optarg;
			break;
		case 's':
			if (parse_shard(optarg, &shard) != 0) {
				fprintf(stderr,
				    "contact: --shard takes K/N (part K of N), not \"%s\"\n",
				    optarg);
				return EXIT_USAGE;
			}
			break;
		case 'm':
			mujoco = optarg;
			break;
		case 'h':
			usage(stdout);
			return EXIT_ANSWERED;
		case 'V':
			printf("contact %s (contact core %s)\n", PACKAGE_VERSION, CORE_VERSION);
			return EXIT_ANSWERED;
		default:
			if (holdflag_take(&grasp, opt, optarg) == 0)
				break;
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind < argc && strcmp(argv[optind], "merge") == 0) {
		if (argc - optind < 2 || plot.out || plot.field || shard.given) {
			fprintf(stderr, "contact: merge takes PART... and --csv or --pretty\n");
			return EXIT_USAGE;
		}
		if (csv && pretty) {
			fprintf(
			    stderr, "contact: --csv and --pretty are two formats; choose one\n");
			return EXIT_USAGE;
		}
		return run_merge(argc - optind - 1, argv + optind + 1, csv, pretty);
	}
	if (optind >= argc || argc - optind > 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	err_clear(&err);
	/* `contact plot`: a saved answer instead of a request */
	plot_answer = strcmp(argv[optind], "plot") == 0;
	if (plot_answer) {
		ep = SVC_SWEEP;
		if (!plot.out)
			plot.out = "-";
	} else if (svc_endpoint_parse(argv[optind], &ep, &err) != 0) {
		fprintf(stderr, "contact: unknown endpoint \"%s\"\n", argv[optind]);
		usage(stderr);
		return EXIT_USAGE;
	}
	if ((csv || pretty) && plot_answer) {
		fprintf(stderr, "contact: contact plot prints SVG, not --csv or --pretty\n");
		return EXIT_USAGE;
	}
	if (csv && !svc_endpoints[ep]->csv) {
		fprintf(stderr, "contact: --csv is not for %s answers\n", svc_endpoints[ep]->name);
		return EXIT_USAGE;
	}
	if ((plot.out && ep != SVC_SWEEP && ep != SVC_DROP) || (plot.field && ep != SVC_SWEEP)) {
		fprintf(
		    stderr, "contact: --plot draws sweep and drop answers, --field sweeps only\n");
		return EXIT_USAGE;
	}
	if (csv && pretty) {
		fprintf(stderr, "contact: --csv and --pretty are two formats; choose one\n");
		return EXIT_USAGE;
	}
	if (mujoco && ep != SVC_MODEL) {
		fprintf(stderr,
		    "contact: --mujoco is for contact model FILE.xml (a JSON request "
		    "names its release itself)\n");
		return EXIT_USAGE;
	}
	if (grasp.given && ep != SVC_HOLD) {
		fprintf(stderr,
		    "contact: --shape, --size, --damping, ... set a hold request's "
		    "fields: contact hold only\n");
		return EXIT_USAGE;
	}
	if (shard.given && ep != SVC_SWEEP) {
		fprintf(stderr, "contact: --shard splits sweeps only\n");
		return EXIT_USAGE;
	}
	format = csv ? FORMAT_CSV : pretty ? FORMAT_PRETTY : FORMAT_JSON;
	/* no FILE: a request piped in is the request, never silently ignored (and `contact
	 * plot` reads its answer from standard input) */
	path = argc - optind == 2                  ? argv[optind + 1]
	    : plot_answer || !isatty(STDIN_FILENO) ? "-"
	                                           : NULL;
	if (!path && shard.given) {
		sharded = with_shard(default_request, strlen(default_request), &shard);
		status = sharded ? run(ep, sharded, strlen(sharded), format, &plot) : EXIT_INTERNAL;
		free(sharded);
		return status;
	}
	if (!path && grasp.given)
		return run_grasp(&grasp, default_request, strlen(default_request), format, &plot);
	if (!path)
		return run(ep, default_request, strlen(default_request), format, &plot);
	if (ep == SVC_MODEL && strcmp(path, "-") != 0 && strlen(path) > 4 &&
	    strcmp(path + strlen(path) - 4, ".xml") == 0)
		return run_model_file(path, mujoco, format, &plot);
	if (mujoco) {
		fprintf(stderr,
		    "contact: --mujoco is for contact model FILE.xml (a JSON request "
		    "names its release itself)\n");
		return EXIT_USAGE;
	}
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
	if (plot_answer) {
		/* read_body leaves room to NUL-terminate only below the limit */
		char *answer = realloc(text, len + 1);
		if (!answer) {
			free(text);
			return EXIT_INTERNAL;
		}
		answer[len] = '\0';
		status = draw(ep, &plot, NULL, 0, answer);
		free(answer);
		return status;
	}
	if (argc - optind == 1 && is_blank(text, len)) { /* nothing piped */
		free(text);
		text = strdup(default_request);
		len = strlen(default_request);
		if (!text)
			return EXIT_INTERNAL;
	}
	if (shard.given && (sharded = with_shard(text, len, &shard))) {
		free(text);
		text = sharded;
		len = strlen(text);
	}
	status = grasp.given ? run_grasp(&grasp, text, len, format, &plot)
	                     : run(ep, text, len, format, &plot);
	free(text);
	return status;
}
