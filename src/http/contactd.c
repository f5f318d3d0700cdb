/*
 * contactd.c: the daemon's main: command line, start-up, signals and shutdown.
 *
 * Exit status: 0 after a clean shutdown, 1 when the store or the listener cannot
 * be set up, 2 for a bad command line.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "http/calib_stream.h"
#include "http/engine.h"
#include "http/http.h"
#include "http/log.h"
#include "http/token_cmd.h"
#include "service/calask.h"
#include "service/endpoint.h"
#include "store/store.h"
#include "base/knobs.h"
#include "core/knobs.h"
#include "service/knobs.h"
#include "calib/knobs.h"
#include "http/knobs.h"

/* Long options without a short form. */
enum {
	OPT_SWEEP_THREADS = 256,
	OPT_TIMEOUT,
	OPT_MAX_CONNECTIONS,
	OPT_MAX_BODY,
	OPT_MAX_SWEEP_POINTS,
	OPT_MAX_EVAL_CALLS,
	OPT_DRAIN_TIMEOUT,
	OPT_CORE_VERSION,
	OPT_LOG,
	OPT_MAX_PER_IP,
	OPT_COMPUTE_THREADS,
	OPT_FIT_WORKERS,
	OPT_MAX_QUEUED,
	OPT_CACHE_MAX_MB,
	OPT_CORS_ORIGIN,
	OPT_HEAD_TIMEOUT,
	OPT_MIN_BODY_RATE,
	OPT_STORE,
	OPT_MAX_CPU_SECONDS,
	OPT_REQUEST_TIMEOUT,
	OPT_BODY_MEMORY_MB,
};

static const struct option options[] = {
    {"port", required_argument, NULL, 'p'},
    {"bind", required_argument, NULL, 'b'},
    {"db", required_argument, NULL, 'd'},
    {"threads", required_argument, NULL, 't'},
    {"sweep-threads", required_argument, NULL, OPT_SWEEP_THREADS},
    {"timeout", required_argument, NULL, OPT_TIMEOUT},
    {"max-connections", required_argument, NULL, OPT_MAX_CONNECTIONS},
    {"max-body", required_argument, NULL, OPT_MAX_BODY},
    {"max-sweep-points", required_argument, NULL, OPT_MAX_SWEEP_POINTS},
    {"max-eval-calls", required_argument, NULL, OPT_MAX_EVAL_CALLS},
    {"drain-timeout", required_argument, NULL, OPT_DRAIN_TIMEOUT},
    {"core-version", required_argument, NULL, OPT_CORE_VERSION},
    {"log", required_argument, NULL, OPT_LOG},
    {"max-connections-per-ip", required_argument, NULL, OPT_MAX_PER_IP},
    {"compute-threads", required_argument, NULL, OPT_COMPUTE_THREADS},
    {"fit-workers", required_argument, NULL, OPT_FIT_WORKERS},
    {"max-queued", required_argument, NULL, OPT_MAX_QUEUED},
    {"cache-max-mb", required_argument, NULL, OPT_CACHE_MAX_MB},
    {"cors-origin", required_argument, NULL, OPT_CORS_ORIGIN},
    {"head-timeout", required_argument, NULL, OPT_HEAD_TIMEOUT},
    {"min-body-rate", required_argument, NULL, OPT_MIN_BODY_RATE},
    {"store", required_argument, NULL, OPT_STORE},
    {"max-cpu-seconds", required_argument, NULL, OPT_MAX_CPU_SECONDS},
    {"request-timeout", required_argument, NULL, OPT_REQUEST_TIMEOUT},
    {"body-memory-mb", required_argument, NULL, OPT_BODY_MEMORY_MB},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'V'},
    {NULL, 0, NULL, 0},
};

static void usage(FILE *out)
{
	fprintf(out,
	    "Usage: contactd [OPTION]...\n"
	    "       contactd [--db PATH] [--store URL] token create|rotate|revoke|list [ARG]...\n"
	    "       contactd [--db PATH] backup FILE\n"
	    "Answer questions about MuJoCo's soft contacts over HTTP (see contactd(8)).\n"
	    "\n"
	    "  -p, --port N             TCP port (default %d; 0 picks a free one)\n"
	    "  -b, --bind ADDR          numeric IPv4/IPv6 address to listen on (default %s)\n"
	    "  -d, --db PATH            SQLite database, created if missing (default ./%s)\n"
	    "      --store URL          calibration store: sqlite:PATH (default: the --db\n"
	    "                           database) or postgresql://... (libpq URI), shared by\n"
	    "                           every node; the answer cache stays in --db\n"
	    "  -t, --threads N          HTTP threads (default: one per online core)\n"
	    "      --sweep-threads N    threads computing one sweep (default: one per core)\n"
	    "      --timeout SEC        close a connection idle SEC seconds (default %d s)\n"
	    "      --head-timeout SEC   a request head must be in within SEC s of the\n"
	    "                           connection's start or previous answer, however it\n"
	    "                           trickles; 408 and close beyond (default %d s; 0: off)\n"
	    "      --min-body-rate B    a body must average B bytes/s once it had\n"
	    "                           --head-timeout s; 408 and close below (default %d)\n"
	    "      --request-timeout SEC  a request's head and body must be in within SEC s,\n"
	    "                           counted as --head-timeout is; 408 and close beyond\n"
	    "                           (default %d s; 0: off)\n"
	    "      --max-connections N  open connections at once (default %d)\n"
	    "      --max-connections-per-ip N  open connections from one address\n"
	    "                           (default %d; 0: no limit, e.g. behind a proxy);\n"
	    "                           one more is answered 503 with Retry-After\n"
	    "      --compute-threads N  threads computing questions (default: one per core)\n"
	    "      --max-queued N       questions waiting for them; 503 beyond (default %d)\n"
	    "      --fit-workers N      calibration fits computed at once, below the\n"
	    "                           questions' priority (default %d; 0: this node fits\n"
	    "                           nothing, its uploads' fits wait for one that does)\n"
	    "      --cache-max-mb N     answer cache bound, oldest evicted first (default %d;\n"
	    "                           0: no bound); calibration data is never evicted\n"
	    "      --max-body BYTES     largest body in bytes; 413 beyond (default %d; an eval\n"
	    "                           or grade batch may take 512 per --max-eval-calls call)\n"
	    "      --body-memory-mb N   body bytes all requests hold at once, in MiB; 503 with\n"
	    "                           Retry-After beyond (default %d; 0: no bound)\n"
	    "      --max-sweep-points N largest sweep; 413 beyond (default %d)\n"
	    "      --max-eval-calls N   largest eval batch; 413 beyond (default %d)\n"
	    "      --max-cpu-seconds N  CPU seconds one question may take: refused 422 when\n"
	    "                           estimated over it, stopped 503 when it runs over\n"
	    "                           (default %d; 0: no limit)\n"
	    "      --drain-timeout SEC  on SIGTERM, wait SEC s for requests (default %d s)\n"
	    "      --cors-origin ORIGIN let pages from ORIGIN (scheme://host[:port]) call the\n"
	    "                           API; repeatable; * opens the open routes to any page\n"
	    "      --log FILE           append the log to FILE (default: standard error);\n"
	    "                           SIGHUP reopens it, SIGUSR1 logs the server's state\n"
	    "      --core-version STR   for testing only: pretend to be another core version\n"
	    "  -h, --help               show this help and exit\n"
	    "  -V, --version            show the version and exit\n"
	    "\n"
	    "Requests and answers are in SI units (m, s, kg; K in 1/s^2, B in 1/s), as\n"
	    "`contact --help` and contact(1) list them.\n",
	    DAEMON_DEFAULT_PORT, DAEMON_DEFAULT_BIND, DAEMON_DEFAULT_DB, DAEMON_CONNECTION_TIMEOUT,
	    DAEMON_HEAD_TIMEOUT, DAEMON_MIN_BODY_RATE, DAEMON_REQUEST_TIMEOUT,
	    DAEMON_CONNECTION_LIMIT, DAEMON_PER_IP_CONNECTION_LIMIT, DAEMON_COMPUTE_QUEUE,
	    CALIB_FIT_WORKERS, DAEMON_CACHE_MAX_MB, LIMIT_MAX_BODY_BYTES, DAEMON_BODY_MEMORY_MB,
	    LIMIT_MAX_SWEEP_POINTS, LIMIT_MAX_EVAL_CALLS, (int)DAEMON_MAX_CPU_SECONDS,
	    DAEMON_DRAIN_TIMEOUT);
}

/* Parse a whole decimal number in [min, max] into *out; -1 when it is not one. */
static int parse_number(const char *arg, long min, long max, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

/* The long name of option opt. */
static const char *option_name(int opt)
{
	const struct option *o = options;

	while (o->name && o->val != opt)
		o++;
	return o->name;
}

/* Apply one numeric option to c; -1 with a message when its argument is bad. */
static int set_number(struct http_config *c, int opt, const char *arg)
{
	long v;
	int ok;

	switch (opt) {
	case 'p':
		ok = parse_number(arg, 0, 65535, &v) == 0;
		c->port = (unsigned)v;
		break;
	case 't':
		ok = parse_number(arg, 1, DAEMON_MAX_THREADS, &v) == 0;
		c->threads = (int)v;
		break;
	case OPT_SWEEP_THREADS:
		ok = parse_number(arg, 1, DAEMON_MAX_THREADS, &v) == 0;
		c->sweep_threads = (int)v;
		break;
	case OPT_TIMEOUT:
		ok = parse_number(arg, 1, DAEMON_MAX_TIMEOUT, &v) == 0;
		c->timeout_s = (unsigned)v;
		break;
	case OPT_HEAD_TIMEOUT:
		ok = parse_number(arg, 0, DAEMON_MAX_TIMEOUT, &v) == 0;
		c->head_timeout_s = (unsigned)v;
		break;
	case OPT_MIN_BODY_RATE:
		ok = parse_number(arg, 0, INT_MAX, &v) == 0;
		c->min_body_rate = (unsigned)v;
		break;
	case OPT_MAX_CONNECTIONS:
		ok = parse_number(arg, 1, DAEMON_MAX_CONNECTIONS, &v) == 0;
		c->max_connections = (unsigned)v;
		break;
	case OPT_MAX_PER_IP:
		ok = parse_number(arg, 0, 1000000, &v) == 0;
		c->max_per_ip = (unsigned)v;
		break;
	case OPT_COMPUTE_THREADS:
		ok = parse_number(arg, 1, 1024, &v) == 0;
		c->compute_threads = (int)v;
		break;
	case OPT_FIT_WORKERS:
		ok = parse_number(arg, 0, CALIB_FIT_WORKERS_MAX, &v) == 0;
		c->fit_workers = (int)v;
		break;
	case OPT_MAX_QUEUED:
		ok = parse_number(arg, 0, 1000000, &v) == 0;
		c->max_queued = v;
		break;
	case OPT_CACHE_MAX_MB:
		ok = parse_number(arg, 0, 1L << 30, &v) == 0;
		c->cache_max_bytes = (long long)v * 1024 * 1024;
		break;
	case OPT_MAX_BODY:
		ok = parse_number(arg, 1, INT_MAX, &v) == 0;
		c->max_body = (size_t)v;
		break;
	case OPT_MAX_SWEEP_POINTS:
		ok = parse_number(arg, 1, LIMIT_MAX_SWEEP_POINTS, &v) == 0;
		c->max_sweep_points = v;
		break;
	case OPT_MAX_EVAL_CALLS:
		ok = parse_number(arg, 1, LIMIT_MAX_EVAL_CALLS, &v) == 0;
		c->max_eval_calls = v;
		break;
	case OPT_REQUEST_TIMEOUT:
		ok = parse_number(arg, 0, DAEMON_MAX_TIMEOUT, &v) == 0;
		c->request_s = (unsigned)v;
		break;
	case OPT_BODY_MEMORY_MB:
		ok = parse_number(arg, 0, 1L << 30, &v) == 0;
		c->body_memory = (size_t)v * 1024 * 1024;
		break;
	case OPT_MAX_CPU_SECONDS:
		ok = parse_number(arg, 0, DAEMON_MAX_TIMEOUT, &v) == 0;
		c->max_cpu_seconds = (double)v;
		break;
	default: /* OPT_DRAIN_TIMEOUT */
		ok = parse_number(arg, 0, DAEMON_MAX_TIMEOUT, &v) == 0;
		c->drain_s = (unsigned)v;
		break;
	}
	if (!ok)
		fprintf(stderr, "contactd: --%s: '%s' is not a number in range\n", option_name(opt),
		    arg);
	return ok ? 0 : -1;
}

/* Point standard error (the log) at path, appending; -1 with errno when it cannot be opened. */
static int open_log(const char *path)
{
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0640);

	if (fd < 0)
		return -1;
	/* A log file that already existed keeps its mode otherwise: it holds client addresses
	 * and paths, owner-only like the database. */
	if (fchmod(fd, 0600) < 0) {
		close(fd);
		return -1;
	}
	/* dup2() swaps the descriptor atomically: a thread writing a line meanwhile writes it
	 * whole to the old file or to the new one. */
	if (fd != STDERR_FILENO) {
		if (dup2(fd, STDERR_FILENO) < 0) {
			close(fd);
			return -1;
		}
		close(fd);
	}
	return 0;
}

/*
 * The calibration store --store names (NULL: st, the --db database) into *engine and *cs,
 * and the calibration routes started over it. A PostgreSQL server not running yet is
 * waited for, serving meanwhile (questions answered, calibration 503); one that refuses
 * contactd is a start-up error. fit_workers: --fit-workers. On failure nothing stays open.
 */
static int calib_start(struct store *st, const char *store_url, int fit_workers,
    struct engine *engine, struct calstore *cs, struct err *e)
{
	int reached = engine_open(store_url, st, 1, engine, cs, e);

	if (reached < 0)
		return -1;
	if (engine_node(engine)) /* the owner its fits carry in the store */
		http_log("calibration store: PostgreSQL, node %s", engine_node(engine));
	if (reached == 1)
		http_log("calibration %s; calibration requests are answered 503 with Retry-After "
		         "until it is reached, tried again at the next request and every %d s",
		    e->message, CALIB_FIT_ADOPT_S);
	if (fit_workers == 0)
		http_log(
		    "--fit-workers 0: this node fits no calibration; uploads' fits stay pending "
		    "until %s",
		    engine_node(engine) ? "a node with fit workers claims them"
		                        : "contactd is started with fit workers");
	err_clear(e);
	if (calstream_start(&(struct calstream_store){.cs = cs,
	                        .engine = engine_name(engine),
	                        .reachable = engine_reachable,
	                        .ctx = engine,
	                        .deferred = reached == 1},
	        fit_workers, e) < 0) {
		engine_close(engine);
		return -1;
	}
	return 0;
}

/* Serve until SIGTERM or SIGINT; the exit status. */
static int serve(const struct http_config *config, const char *db_path, const char *store_url,
    const char *log_path)
{
	struct store *st = NULL;
	struct http_server *srv = NULL;
	struct engine engine = {0};
	struct calstore cs;
	sigset_t signals;
	struct err e;
	int sig, status = 1;

	/* Block the signals handled here before any thread starts, so every thread inherits
	 * the mask and only sigwait() below receives them (none of them kills the daemon). */
	sigemptyset(&signals);
	sigaddset(&signals, SIGTERM);
	sigaddset(&signals, SIGINT);
	sigaddset(&signals, SIGHUP);
	sigaddset(&signals, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &signals, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (log_path && open_log(log_path) < 0) {
		fprintf(stderr, "contactd: --log %s: %s\n", log_path, strerror(errno));
		return 1;
	}

	if (store_open(db_path, &st, &e) < 0 ||
	    calib_start(st, store_url, config->fit_workers, &engine, &cs, &e) < 0) {
		fprintf(stderr, "contactd: %s\n", e.message);
		goto out;
	}
	if (http_start(config, st, &srv, &e) < 0) {
		fprintf(stderr, "contactd: %s\n", e.message);
		calstream_stop();
		calstream_close();
		engine_close(&engine);
		goto out;
	}
	/* "listening on ADDR:PORT," stays first: scripts read the port from it */
	http_log("contactd %s (core %s) listening on %s%s%s:%u, %d threads, database %s, "
	         "dashboard http://%s%s%s:%u/",
	    PACKAGE_VERSION, config->core_version, strchr(config->bind, ':') ? "[" : "",
	    config->bind, strchr(config->bind, ':') ? "]" : "", http_port(srv), config->threads,
	    db_path, strchr(config->bind, ':') ? "[" : "", config->bind,
	    strchr(config->bind, ':') ? "]" : "", http_port(srv));
	for (;;) {
		if (sigwait(&signals, &sig) != 0)
			sig = SIGTERM;
		if (sig == SIGHUP) {
			/* After log rotation: write to a new file of the same name. */
			if (!log_path)
				http_log("%s: the log is standard error, nothing to reopen",
				    strsignal(sig));
			else if (open_log(log_path) < 0)
				http_log("%s: cannot reopen %s: %s; logging on to the old file",
				    strsignal(sig), log_path, strerror(errno));
			else
				http_log("%s: log reopened", strsignal(sig));
		} else if (sig == SIGUSR1) {
			http_log_stats(srv);
		} else {
			break;
		}
	}
	http_log("%s: stopping", strsignal(sig));
	http_stop(srv);
	calstream_close();
	engine_close(&engine);
	status = 0;
out:
	store_close(st);
	if (status == 0)
		http_log("stopped");
	return status;
}

/* `contactd backup FILE`: an online, consistent copy of the database (store_backup()). */
static int backup(int argc, char **argv, const char *db_path)
{
	struct store *st = NULL;
	struct err e;
	int rc = 1;

	if (argc != 2) {
		fprintf(stderr, "usage: contactd [--db PATH] backup FILE\n");
		return 2;
	}
	if (store_open(db_path, &st, &e) == 0 && store_backup(st, argv[1], &e) == 0)
		rc = 0;
	else
		fprintf(stderr, "contactd: backup: %s\n", e.message);
	store_close(st);
	return rc;
}

/* Add one --cors-origin to c (into origins, CORS_MAX_ORIGINS long); -1 with a message. */
static int add_cors_origin(struct http_config *c, const char **origins, const char *arg)
{
	struct err e;

	if (cors_origin_check(arg, &e) != 0) {
		fprintf(stderr, "contactd: --cors-origin: %s\n", e.message);
		return -1;
	}
	if (c->cors.count >= CORS_MAX_ORIGINS) {
		fprintf(stderr, "contactd: --cors-origin: at most %d origins\n", CORS_MAX_ORIGINS);
		return -1;
	}
	origins[c->cors.count++] = arg;
	c->cors.origins = origins;
	return 0;
}

int main(int argc, char **argv)
{
	static const char *cors_origins[CORS_MAX_ORIGINS];
	struct http_config config;
	const char *db_path = DAEMON_DEFAULT_DB, *log_path = NULL, *store_url = NULL;
	int opt;

	/* Files the daemon creates (the database, its -wal and -shm, the log) hold token hashes
	 * and measurements: owner-only, whatever the caller's umask. */
	umask(umask(0077) | 0077);
	/* a row of the endpoint table without its functions is a build defect: refuse to start */
	{
		struct err err;

		if (svc_endpoints_check(&err) != 0) {
			fprintf(stderr, "contactd: %s\n", err.message);
			return 1;
		}
	}
	/* the calibration layer reads setups and asks its hold verdicts through the service */
	questions_bind(&calask_questions);
	http_config_default(&config);
	/* '+': stop at the first operand, so that `contactd token create --robot r` keeps
	 * its own options. */
	while ((opt = getopt_long(argc, argv, "+p:b:d:t:hV", options, NULL)) != -1) {
		switch (opt) {
		case 'b':
			config.bind = optarg;
			break;
		case 'd':
			db_path = optarg;
			break;
		case OPT_LOG:
			log_path = optarg;
			break;
		case OPT_STORE:
			if (engine_url_check(optarg) != 0) {
				fprintf(stderr,
				    "contactd: --store: '%s' is neither sqlite:PATH nor "
				    "postgresql://...\n",
				    optarg);
				return 2;
			}
			store_url = optarg;
			break;
		case OPT_CORE_VERSION:
			config.core_version = optarg;
			break;
		case OPT_CORS_ORIGIN:
			if (add_cors_origin(&config, cors_origins, optarg) < 0)
				return 2;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("contactd %s (core %s)\n", PACKAGE_VERSION, CORE_VERSION);
			return 0;
		case '?':
			usage(stderr);
			return 2;
		default:
			if (set_number(&config, opt, optarg) < 0)
				return 2;
		}
	}
	if (optind < argc) {
		if (strcmp(argv[optind], "backup") == 0)
			return backup(argc - optind, argv + optind, db_path);
		if (strcmp(argv[optind], "token") == 0)
			return token_cmd_run(argc - optind, argv + optind, db_path, store_url);
		fprintf(stderr, "contactd: unknown command '%s'\n", argv[optind]);
		usage(stderr);
		return 2;
	}
	return serve(&config, db_path, store_url, log_path);
}
