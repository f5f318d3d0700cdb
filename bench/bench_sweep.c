/*
 * bench_sweep.c: a 5,000-point drop sweep against MuJoCo's mj_step loop, in one run.
 *
 * The sweep is the stability map's: the lesson's cube (10 cm, 1 kg, dropped 10 cm,
 * 2 s at 2 ms = 1000 steps, MuJoCo 2.2.2's rules) over timeconst 0.004..0.1 (100
 * values) x dampratio 0.05..2 (50 values). Per drop it times:
 *   - MuJoCo: the mj_step loop of one drop (model compiled once, in process, after
 *     mj_resetData; the height read after each step), as bench_drop does;
 *   - the core alone: core_lanes_drop over the 5,000 prepared points, on one thread
 *     and on two (each thread a lanes call on a shared counter);
 *   - the whole process: `contact sweep REQUEST` from spawn to exit, its JSON to
 *     /dev/null (parse, validate, compute, print), divided by 5,000. MuJoCo's loop
 *     and the process are timed in pairs, one after the other (MuJoCo's figure moves
 *     by half between runs on a shared machine): the ratio of each pair, their median
 *     and the worst pair. The verdict is the median pair's CPU ratio (CPU: what other
 *     work on the machine inflates least);
 *   - over HTTP: a contactd on a loopback port, POST /v1/sweep with
 *     Accept: application/x-ndjson, the time to the first row line and to the last
 *     (a fresh sweep each time, so the answer cache never answers).
 * The core's figures are the best of several runs against MuJoCo's best. The core's
 * answers are checked against core_sim_drop, bit for bit.
 *
 * Usage: bench_sweep CONTACT CONTACTD [runs]   (make bench-sweep; runs: 11)
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_stats.h"
#include "core/lanes.h"
#include "core/scene.h"
#include "core/sim.h"
#include "mjscene.h"
#include "core/knobs.h"
#include "service/knobs.h"

extern char **environ;

#define TIMECONSTS 100
#define DAMPRATIOS 50
#define POINTS (TIMECONSTS * DAMPRATIOS)
#define MUJOCO_DROPS 8 /* per run: each is ~1000 mj_step */
#define TARGET_PROCESS 500
#define TARGET_CORE 1000
#define MAX_RUNS 101

static double clock_seconds(clockid_t id)
{
	struct timespec t;

	clock_gettime(id, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double now_seconds(void)
{
	return clock_seconds(CLOCK_MONOTONIC);
}

/* This thread's CPU seconds: what a shared machine's other work cannot inflate. */
static double cpu_seconds(void)
{
	return clock_seconds(CLOCK_THREAD_CPUTIME_ID);
}

static int same_bits(double a, double b)
{
	return memcmp(&a, &b, sizeof a) == 0;
}

static double timeconst_of(int i)
{
	return 0.004 + (double)i * (0.1 - 0.004) / (TIMECONSTS - 1);
}

static double dampratio_of(int j)
{
	return 0.05 + (double)j * (2 - 0.05) / (DAMPRATIOS - 1);
}

static void lesson_cube(struct core_scene *s)
{
	memset(s, 0, sizeof *s);
	s->shape = CORE_SCENE_BOX;
	s->size[0] = s->size[1] = s->size[2] = DEFAULT_SHAPE_SIZE;
	s->mass = DEFAULT_MASS;
	core_pair_geom_default(&s->geom);
	s->floor = s->geom;
	s->option.timestep = DEFAULT_TIMESTEP;
	s->option.mujoco = CORE_MJVER_2_2_2;
	s->option.refsafe = 1;
	s->option.gravity = DEFAULT_GRAVITY;
	s->option.impratio = DEFAULT_IMPRATIO;
	s->option.integrator = CORE_SCENE_EULER;
	s->height = DEFAULT_HEIGHT;
	s->duration = DEFAULT_DURATION;
}

/* seconds per drop of MuJoCo's loop, the best run: wall clock, and CPU in *cpu */
static double time_mujoco(struct mjscene *ms, long n, int runs, double *cpu)
{
	double best = INFINITY;
	int r, i;
	long k;
	volatile double sink = 0;

	*cpu = INFINITY;
	for (r = 0; r < runs; r++) {
		double elapsed = 0, used = 0;
		for (i = 0; i < MUJOCO_DROPS; i++) {
			double start, start_cpu;
			mjscene_reset(ms);
			start = now_seconds();
			start_cpu = cpu_seconds();
			for (k = 0; k < n; k++) {
				mj_step(ms->model, ms->data);
				sink += ms->data->qpos[2];
			}
			elapsed += now_seconds() - start;
			used += cpu_seconds() - start_cpu;
		}
		if (elapsed / MUJOCO_DROPS < best)
			best = elapsed / MUJOCO_DROPS;
		if (used / MUJOCO_DROPS < *cpu)
			*cpu = used / MUJOCO_DROPS;
	}
	return best;
}

static double smallest(const double *v, int n)
{
	double m = INFINITY;
	int i;

	for (i = 0; i < n; i++)
		if (v[i] < m)
			m = v[i];
	return m;
}

/* The sweep's points, prepared. */
struct points {
	struct core_scene_model models[POINTS];
	double heights[POINTS], durations[POINTS];
	struct core_sim_drop out[POINTS];
	atomic_long next;
};

static long shared_next(void *ctx, struct core_scene_model *m, double *height, double *duration)
{
	struct points *p = ctx;
	long i = atomic_fetch_add(&p->next, 1);

	if (i >= POINTS)
		return -1;
	*m = p->models[i];
	*height = p->heights[i];
	*duration = p->durations[i];
	return i;
}

static void shared_done(void *ctx, long i, const struct core_sim_drop *out)
{
	struct points *p = ctx;

	p->out[i] = *out;
}

static void *lanes_thread(void *arg)
{
	struct core_lanes_feed feed = {.next = shared_next, .done = shared_done, .ctx = arg};

	core_lanes_drop(&feed);
	return NULL;
}

/* seconds per drop of the core's lanes on `threads` threads, the best run: wall clock,
 * and the CPU of all threads in *cpu */
static double time_core(struct points *p, int threads, int runs, double *cpu)
{
	double best = INFINITY;
	int r, t;

	*cpu = INFINITY;
	for (r = 0; r < runs; r++) {
		pthread_t ids[2];
		double start = now_seconds(), start_cpu = clock_seconds(CLOCK_PROCESS_CPUTIME_ID),
		       elapsed, used;
		atomic_store(&p->next, 0);
		for (t = 1; t < threads; t++)
			pthread_create(&ids[t], NULL, lanes_thread, p);
		lanes_thread(p);
		for (t = 1; t < threads; t++)
			pthread_join(ids[t], NULL);
		elapsed = (now_seconds() - start) / POINTS;
		used = (clock_seconds(CLOCK_PROCESS_CPUTIME_ID) - start_cpu) / POINTS;
		if (elapsed < best)
			best = elapsed;
		if (used < *cpu)
			*cpu = used;
	}
	return best;
}

/* The sweep request's JSON text (height: the base's, so each HTTP run is fresh). */
static char *sweep_request(double height)
{
	size_t cap = 16384, len;
	char *text = malloc(cap);
	int i;

	if (!text)
		return NULL;
	len = (size_t)snprintf(text, cap,
	    "{\"query\":\"drop\",\"base\":{\"height\":%.17g,\"option\":{\"mujoco\":\"2.2.2\"}},"
	    "\"vary\":[{\"path\":\"timeconst\",\"values\":[",
	    height);
	for (i = 0; i < TIMECONSTS; i++)
		len += (size_t)snprintf(
		    text + len, cap - len, "%s%.17g", i ? "," : "", timeconst_of(i));
	len += (size_t)snprintf(text + len, cap - len, "]},{\"path\":\"dampratio\",\"values\":[");
	for (i = 0; i < DAMPRATIOS; i++)
		len += (size_t)snprintf(
		    text + len, cap - len, "%s%.17g", i ? "," : "", dampratio_of(i));
	snprintf(text + len, cap - len, "]}]}");
	return text;
}

/* seconds of one `contact sweep FILE > /dev/null`, spawn to exit (its CPU, all threads,
 * in *cpu); < 0 on failure. posix_spawn, not fork: a forked copy of this process (MuJoCo,
 * the prepared points) would charge the child for tearing its copy down at exec, which
 * is this bench's cost, not the sweep's (about 2 us a drop here). */
static double run_process(const char *contact, const char *file, double *cpu)
{
	char *args[] = {(char *)contact, "sweep", (char *)file, NULL};
	posix_spawn_file_actions_t actions;
	double start = now_seconds();
	struct rusage usage;
	int status, failed;
	pid_t pid;

	if (posix_spawn_file_actions_init(&actions) != 0)
		return -1;
	failed = posix_spawn_file_actions_addopen(
	             &actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0) != 0 ||
	    posix_spawn(&pid, contact, &actions, NULL, args, environ) != 0;
	posix_spawn_file_actions_destroy(&actions);
	if (failed)
		return -1;
	if (wait4(pid, &status, 0, &usage) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return -1;
	*cpu = (double)usage.ru_utime.tv_sec + 1e-6 * (double)usage.ru_utime.tv_usec +
	    (double)usage.ru_stime.tv_sec + 1e-6 * (double)usage.ru_stime.tv_usec;
	return now_seconds() - start;
}

/* Connect to 127.0.0.1:port; -1 on failure. */
static int connect_local(int port)
{
	struct sockaddr_in addr;
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0)
		return -1;
	memset(&addr, 0, sizeof addr);
	addr.sin_family = AF_INET;
	addr.sin_port = htons((uint16_t)port);
	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * POST the sweep with Accept: application/x-ndjson; *first: seconds to the first row
 * line (the second line of the body), *last: to the end of the response. The body is
 * chunked: a row line is complete once the head line's newline and one more arrived.
 */
static int http_sweep(int port, const char *body, double *first, double *last)
{
	char head[512], buf[65536];
	size_t newlines = 0;
	int fd = connect_local(port), header_done = 0;
	double start;
	ssize_t n;

	if (fd < 0)
		return -1;
	snprintf(head, sizeof head,
	    "POST /v1/sweep HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
	    "Accept: application/x-ndjson\r\nConnection: close\r\nContent-Length: %zu\r\n\r\n",
	    strlen(body));
	*first = -1;
	start = now_seconds();
	if (write(fd, head, strlen(head)) < 0 || write(fd, body, strlen(body)) < 0) {
		close(fd);
		return -1;
	}
	while ((n = read(fd, buf, sizeof buf)) > 0) {
		ssize_t i = 0;
		if (!header_done) {
			/* the body starts after the blank line; count its newlines only */
			char *end = memmem(buf, (size_t)n, "\r\n\r\n", 4);
			if (!end)
				continue;
			header_done = 1;
			i = end + 4 - buf;
		}
		for (; i < n; i++)
			if (buf[i] == '\n' && buf[i - 1] != '\r' && ++newlines == 2 && *first < 0)
				*first = now_seconds() - start;
	}
	*last = now_seconds() - start;
	close(fd);
	return *first < 0 ? -1 : 0;
}

static pid_t start_daemon(const char *contactd, int port, const char *db)
{
	char port_text[16];
	pid_t pid = fork();

	snprintf(port_text, sizeof port_text, "%d", port);
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);
		if (null >= 0) {
			dup2(null, STDOUT_FILENO);
			dup2(null, STDERR_FILENO);
		}
		execl(contactd, contactd, "--port", port_text, "--bind", "127.0.0.1", "--db", db,
		    (char *)NULL);
		_exit(127);
	}
	return pid;
}

int main(int argc, char **argv)
{
	struct core_scene s;
	struct mjscene ms;
	struct points *p = NULL;
	char err[600], file[] = "/tmp/bench_sweep_XXXXXX", db[64];
	char *request = NULL;
	double t_mujoco, t_core1, t_core2, ttfr = INFINITY, t_http = INFINITY;
	double c_mujoco, c_core1, c_core2;
	/* per pair: MuJoCo's and the process's seconds per drop, and their ratios */
	double mj_wall[MAX_RUNS], mj_cpu[MAX_RUNS], proc_wall[MAX_RUNS], proc_cpu[MAX_RUNS],
	    ratio_wall[MAX_RUNS], ratio_cpu[MAX_RUNS];
	double worst_wall, worst_cpu, best_proc_wall, best_proc_cpu, best_mj_wall, best_mj_cpu;
	int runs = argc > 3 ? atoi(argv[3]) : 11, fd, i, j, port, rc = 1, same = 1;
	long n;
	pid_t daemon_pid = -1;

	if (argc < 3) {
		fprintf(stderr, "usage: bench_sweep CONTACT CONTACTD [runs]\n");
		return 1;
	}
	if (runs < 1 || runs > MAX_RUNS)
		runs = 11;
	lesson_cube(&s);
	n = core_sim_step_count(s.duration, s.option.timestep);
	if (mjscene_open(&ms, &s, err, sizeof err) != 0) {
		fprintf(stderr, "bench_sweep: %s\n", err);
		return 1;
	}
	p = calloc(1, sizeof *p);
	request = sweep_request(s.height);
	fd = mkstemp(file);
	if (!p || !request || fd < 0 || write(fd, request, strlen(request)) < 0) {
		fprintf(stderr, "bench_sweep: cannot set up: %s\n", strerror(errno));
		goto out;
	}
	close(fd);
	for (i = 0; i < TIMECONSTS; i++)
		for (j = 0; j < DAMPRATIOS; j++) {
			int k = i * DAMPRATIOS + j;
			s.geom.solref[0] = timeconst_of(i);
			s.geom.solref[1] = dampratio_of(j);
			core_scene_prepare(&s, &p->models[k]);
			p->heights[k] = s.height;
			p->durations[k] = s.duration;
		}

	t_mujoco = time_mujoco(&ms, n, runs, &c_mujoco);
	t_core1 = time_core(p, 1, runs, &c_core1);
	t_core2 = time_core(p, 2, runs, &c_core2);
	for (i = 0; i < POINTS; i++) {
		struct core_sim_drop one;
		core_sim_drop(&p->models[i], p->heights[i], p->durations[i], &one);
		same &= same_bits(one.peak_penetration, p->out[i].peak_penetration) &&
		    same_bits(one.rebound, p->out[i].rebound) &&
		    same_bits(one.max_height, p->out[i].max_height) &&
		    same_bits(one.jitter, p->out[i].jitter) &&
		    same_bits(one.final_penetration, p->out[i].final_penetration) &&
		    one.energy_gain == p->out[i].energy_gain && one.steps == p->out[i].steps;
	}
	/* MuJoCo and the process in pairs, back to back */
	for (i = 0; i < runs; i++) {
		double used, t;
		mj_wall[i] = time_mujoco(&ms, n, 1, &mj_cpu[i]);
		t = run_process(argv[1], file, &used);
		if (t < 0) {
			fprintf(stderr, "bench_sweep: %s sweep %s failed\n", argv[1], file);
			goto out;
		}
		proc_wall[i] = t / POINTS;
		proc_cpu[i] = used / POINTS;
		ratio_wall[i] = mj_wall[i] / proc_wall[i];
		ratio_cpu[i] = mj_cpu[i] / proc_cpu[i];
	}

	port = 20000 + (int)(getpid() % 20000);
	snprintf(db, sizeof db, "%s.db", file);
	daemon_pid = start_daemon(argv[2], port, db);
	for (i = 0; i < 100; i++) {
		int probe = connect_local(port);
		if (probe >= 0) {
			close(probe);
			break;
		}
		usleep(50000);
	}
	for (i = 0; i < runs; i++) {
		double first, last;
		/* a new base height: a new question, computed, never cached */
		free(request);
		request = sweep_request(s.height + 1e-6 * (i + 1));
		if (!request || http_sweep(port, request, &first, &last) != 0) {
			fprintf(stderr, "bench_sweep: the streamed sweep over HTTP failed\n");
			goto out;
		}
		if (first < ttfr)
			ttfr = first;
		if (last < t_http)
			t_http = last;
	}

	best_mj_wall = smallest(mj_wall, runs);
	best_mj_cpu = smallest(mj_cpu, runs);
	best_proc_wall = smallest(proc_wall, runs);
	best_proc_cpu = smallest(proc_cpu, runs);
	worst_wall = smallest(ratio_wall, runs);
	worst_cpu = smallest(ratio_cpu, runs);
	printf("bench_sweep: %d-point drop sweep of the lesson's cube (timeconst x dampratio), "
	       "%ld steps each, MuJoCo 2.2.2 rules; %d runs\n",
	    POINTS, n, runs);
	printf("  per drop, us (x MuJoCo)       wall clock              CPU (all threads)\n");
	printf("  MuJoCo mj_step loop, best  %7.1f                 %7.1f\n", t_mujoco * 1e6,
	    c_mujoco * 1e6);
	printf("  core, lanes, 1 thread   %10.3f (%6.0f x)  %10.3f (%6.0f x)   best runs\n",
	    t_core1 * 1e6, t_mujoco / t_core1, c_core1 * 1e6, c_mujoco / c_core1);
	printf("  core, lanes, 2 threads  %10.3f (%6.0f x)  %10.3f (%6.0f x)   target %d x: %s\n",
	    t_core2 * 1e6, t_mujoco / t_core2, c_core2 * 1e6, c_mujoco / c_core2, TARGET_CORE,
	    t_mujoco / t_core2 >= TARGET_CORE ? "met" : "NOT MET");
	printf("  %d pairs, MuJoCo's loop then `contact sweep` (the whole process, %d drops):\n",
	    runs, POINTS);
	printf("  MuJoCo, median          %10.1f             %10.1f   (best %.1f, %.1f)\n",
	    bench_median(mj_wall, runs) * 1e6, bench_median(mj_cpu, runs) * 1e6, best_mj_wall * 1e6,
	    best_mj_cpu * 1e6);
	printf("  process, median         %10.3f             %10.3f   (best %.3f, %.3f)  "
	       "[%.1f ms in all]\n",
	    bench_median(proc_wall, runs) * 1e6, bench_median(proc_cpu, runs) * 1e6,
	    best_proc_wall * 1e6, best_proc_cpu * 1e6,
	    bench_median(proc_wall, runs) * POINTS * 1e3);
	printf("  x MuJoCo, median pair   %10.0f x           %10.0f x\n",
	    bench_median(ratio_wall, runs), bench_median(ratio_cpu, runs));
	printf("  x MuJoCo, worst pair    %10.0f x           %10.0f x\n", worst_wall, worst_cpu);
	printf("  x MuJoCo, best / best   %10.0f x           %10.0f x\n",
	    best_mj_wall / best_proc_wall, best_mj_cpu / best_proc_cpu);
	printf("  process target %d x on the median pair's CPU ratio: %s (worst pair: %s)\n",
	    TARGET_PROCESS, bench_median(ratio_cpu, runs) >= TARGET_PROCESS ? "met" : "NOT MET",
	    worst_cpu >= TARGET_PROCESS ? "met" : "not met");
	printf("  HTTP NDJSON stream         first row after %.1f ms, last after %.1f ms\n",
	    ttfr * 1e3, t_http * 1e3);
	printf("  core answers %s core_sim_drop's, bit for bit\n", same ? "equal" : "DIFFER from");
	rc = same ? 0 : 1;
out:
	if (daemon_pid > 0) {
		kill(daemon_pid, SIGTERM);
		waitpid(daemon_pid, NULL, 0);
		unlink(db);
	}
	unlink(file);
	free(request);
	free(p);
	mjscene_close(&ms);
	return rc;
}
