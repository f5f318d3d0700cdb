/*
 * parallel.c: a fit's work shared over its threads (see parallel.h).
 *
 * Each thread that shares work keeps its crew of helpers from its first parallel_for() until
 * it exits. A fit calls parallel_for() hundreds of times, and a thread started and joined
 * for each call cost a clone, the page faults of a fresh stack and, at its exit, the
 * madvise() that hands the stack back (a TLB shootdown on every core), while the caller
 * waited for it: a quarter of a drop fit's wall time on a 2-core machine.
 */
#include "fit/parallel.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "tunables.h"

enum { HELPERS = CALIB_FIT_THREADS > 1 ? CALIB_FIT_THREADS - 1 : 1 };

struct parallel_jobs {
	void (*run)(void *ctx, size_t job);
	void *ctx;
	size_t njobs;
	atomic_size_t next;
	int lockstep; /* parallel_for_lockstep()'s: each thread runs its jobs side by side */
};

struct crew;

/* A helper's place in its crew: helper `index` joins a round only when the round wants more
 * than `index` helpers. */
struct crew_seat {
	struct crew *crew;
	int index;
};

/* One thread's helpers, waiting for its next call's jobs. */
struct crew {
	pthread_mutex_t lock;
	pthread_cond_t wake; /* a new round, or quit */
	pthread_cond_t idle; /* the round's last helper is done */
	struct parallel_jobs *jobs;
	unsigned long round; /* one per call that shares; each helper sees each round once */
	int wanted;          /* helpers that join this round: the first `wanted` seats */
	int busy;            /* helpers still in this round */
	int quit;
	int started;
	pthread_t helpers[HELPERS];
	struct crew_seat seats[HELPERS];
};

/* Fits running now (parallel_fit_begin() to parallel_fit_end()), over every thread. */
static atomic_int fits_running;

static pthread_key_t crew_key, lockstep_key;
static pthread_once_t crew_once = PTHREAD_ONCE_INIT;
static int crew_keyed;     /* the key exists (else every call runs alone) */
static int lockstep_keyed; /* likewise: else lockstep jobs run one after another */

/* Set while this thread runs a job: a fit takes at most CALIB_FIT_THREADS threads in all. */
static _Thread_local int in_job;

/*
 * Lockstep. A thread that takes lockstep jobs runs them on its members: itself (member 0) and
 * up to MEMBERS - 1 threads of its own, kept until it exits (as its crew is, for the same
 * reason). One member runs at a time, the one holding the baton; it hands the baton on when
 * its job asks for a step (parallel_step()) or it has no job left, to the next member that can
 * run, or, when every member left waits, carries out their steps and runs on. The members take
 * turns in a fixed order, but nothing depends on it: each job's steps are answered as alone.
 */
enum { MEMBERS = CALIB_LOCKSTEP_JOBS > 1 ? CALIB_LOCKSTEP_JOBS : 1 };
enum member_state { MEMBER_RUNNABLE, MEMBER_WAITING, MEMBER_DONE };

struct lockstep;

struct lockstep_seat {
	struct lockstep *ls;
	int index;
};

struct lockstep {
	pthread_mutex_t lock;
	pthread_cond_t turn[MEMBERS]; /* member m's: the baton is its, its round began, or quit */
	struct parallel_jobs *jobs;
	unsigned long round; /* one per parallel_for_lockstep() this thread takes jobs of */
	int members;         /* in this round: member 0 and the threads it woke */
	int holder;          /* the member running now; -1 once every member is done */
	enum member_state state[MEMBERS];
	struct parallel_step *pending[MEMBERS]; /* a waiting member's step */
	int quit;
	int started;
	pthread_t threads[MEMBERS];
	struct lockstep_seat seats[MEMBERS];
};

/* The lockstep this thread is a member of now, and which member (parallel_step()). */
static _Thread_local struct lockstep *my_lockstep;
static _Thread_local int my_member;

static void lockstep_run(struct lockstep *ls, struct parallel_jobs *pj);
static struct lockstep *lockstep_mine(void);

static void parallel_run(struct parallel_jobs *pj)
{
	struct lockstep *ls = pj->lockstep ? lockstep_mine() : NULL;
	int outer = in_job;
	size_t j;

	if (ls) {
		lockstep_run(ls, pj);
		return;
	}
	in_job = 1;
	while ((j = atomic_fetch_add(&pj->next, 1)) < pj->njobs)
		pj->run(pj->ctx, j);
	in_job = outer;
}

static void *crew_helper(void *arg)
{
	const struct crew_seat *seat = arg;
	struct crew *c = seat->crew;
	unsigned long seen = 0;

	pthread_mutex_lock(&c->lock);
	for (;;) {
		struct parallel_jobs *pj;

		while (!c->quit && c->round == seen)
			pthread_cond_wait(&c->wake, &c->lock);
		if (c->quit)
			break;
		seen = c->round;
		if (seat->index >= c->wanted)
			continue; /* not this round's: the fits have their threads (parallel.h) */
		pj = c->jobs;
		pthread_mutex_unlock(&c->lock);
		parallel_run(pj);
		pthread_mutex_lock(&c->lock);
		if (--c->busy == 0)
			pthread_cond_signal(&c->idle);
	}
	pthread_mutex_unlock(&c->lock);
	return NULL;
}

/* The key's destructor: the owning thread is exiting, between calls. */
static void crew_stop(void *arg)
{
	struct crew *c = arg;
	int k;

	pthread_mutex_lock(&c->lock);
	c->quit = 1;
	pthread_cond_broadcast(&c->wake);
	pthread_mutex_unlock(&c->lock);
	for (k = 0; k < c->started; k++)
		pthread_join(c->helpers[k], NULL);
	pthread_cond_destroy(&c->wake);
	pthread_cond_destroy(&c->idle);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

/* In a child of fork() the forking thread's helpers do not exist: it starts a new crew (the
 * old one's memory is left; a child that forks mid-fit does not come back for it). */
static void crew_forget(void)
{
	if (crew_keyed)
		pthread_setspecific(crew_key, NULL);
	if (lockstep_keyed)
		pthread_setspecific(lockstep_key, NULL);
}

static void lockstep_stop(void *arg);

static void crew_init(void)
{
	crew_keyed = pthread_key_create(&crew_key, crew_stop) == 0;
	lockstep_keyed = pthread_key_create(&lockstep_key, lockstep_stop) == 0;
	pthread_atfork(NULL, NULL, crew_forget);
}

/* The calling thread's crew, started on first use; NULL when none can be had. */
static struct crew *crew_mine(void)
{
	struct crew *c;

	pthread_once(&crew_once, crew_init);
	if (!crew_keyed)
		return NULL;
	c = pthread_getspecific(crew_key);
	if (c)
		return c;
	c = calloc(1, sizeof *c);
	if (!c)
		return NULL;
	pthread_mutex_init(&c->lock, NULL);
	pthread_cond_init(&c->wake, NULL);
	pthread_cond_init(&c->idle, NULL);
	while (c->started < CALIB_FIT_THREADS - 1) {
		c->seats[c->started].crew = c;
		c->seats[c->started].index = c->started;
		if (pthread_create(
		        &c->helpers[c->started], NULL, crew_helper, &c->seats[c->started]) != 0)
			break;
		c->started++;
	}
	if (c->started == 0 || pthread_setspecific(crew_key, c) != 0) {
		crew_stop(c);
		return NULL;
	}
	return c;
}

void parallel_fit_begin(void)
{
	atomic_fetch_add(&fits_running, 1);
}

void parallel_fit_end(void)
{
	atomic_fetch_sub(&fits_running, 1);
}

/* Helpers this call may wake: the threads CALIB_FIT_THREADS leaves beside the fits running
 * (each on its own thread; a caller outside a fit counts as one), at most c's. */
static int helpers_free(const struct crew *c)
{
	int running = atomic_load(&fits_running), free_threads;

	free_threads = CALIB_FIT_THREADS - (running > 0 ? running : 1);
	return free_threads < c->started ? (free_threads > 0 ? free_threads : 0) : c->started;
}

static void dispatch(
    size_t njobs, int share, void (*run)(void *ctx, size_t job), void *ctx, int lockstep)
{
	/* a job that shares again runs alone: every thread of the fit is busy already */
	struct crew *c =
	    share && CALIB_FIT_THREADS > 1 && njobs > 1 && !in_job ? crew_mine() : NULL;
	struct parallel_jobs pj;
	int wanted = c ? helpers_free(c) : 0;

	if (wanted == 0)
		c = NULL; /* nobody to wake: the fits running have every thread */

	pj.run = run;
	pj.ctx = ctx;
	pj.njobs = njobs;
	pj.lockstep = lockstep;
	atomic_init(&pj.next, 0);
	if (c) {
		pthread_mutex_lock(&c->lock);
		c->jobs = &pj;
		c->wanted = wanted;
		c->busy = wanted;
		c->round++;
		pthread_cond_broadcast(&c->wake);
		pthread_mutex_unlock(&c->lock);
	}
	parallel_run(&pj);
	if (c) {
		/* pj lives on this stack: no helper may still hold it */
		pthread_mutex_lock(&c->lock);
		while (c->busy > 0)
			pthread_cond_wait(&c->idle, &c->lock);
		c->jobs = NULL;
		pthread_mutex_unlock(&c->lock);
	}
}

void parallel_for(size_t njobs, int share, void (*run)(void *ctx, size_t job), void *ctx)
{
	dispatch(njobs, share, run, ctx, 0);
}

void parallel_for_lockstep(size_t njobs, int share, void (*run)(void *ctx, size_t job), void *ctx)
{
	size_t j;

	/* from inside a job, or one job alone: one after another here (a job inside another's
	 * still batches its steps as that one's member) */
	if (in_job || njobs < 2 || MEMBERS < 2) {
		int outer = in_job;

		in_job = 1;
		for (j = 0; j < njobs; j++)
			run(ctx, j);
		in_job = outer;
		return;
	}
	dispatch(njobs, share, run, ctx, 1);
}

/* The next member after m, in turn, that can run; -1 if none. Called locked. */
static int next_runnable(const struct lockstep *ls, int m)
{
	int k;

	for (k = 1; k <= ls->members; k++) {
		int c = (m + k) % ls->members;

		if (ls->state[c] == MEMBER_RUNNABLE)
			return c;
	}
	return -1;
}

/* Every waiting member's step carried out, each batch function once over its steps in the
 * members' order; then they can run again. Called locked by the baton's holder, every other
 * member waiting or done, so the lock is let go meanwhile (nobody else moves). */
static void carry_out(struct lockstep *ls)
{
	struct parallel_step *steps[MEMBERS];
	int taken[MEMBERS] = {0}, m, k;

	pthread_mutex_unlock(&ls->lock);
	for (m = 0; m < ls->members; m++) {
		size_t n = 0;

		if (ls->state[m] != MEMBER_WAITING || taken[m])
			continue;
		for (k = m; k < ls->members; k++)
			if (ls->state[k] == MEMBER_WAITING && !taken[k] &&
			    ls->pending[k]->batch == ls->pending[m]->batch) {
				steps[n++] = ls->pending[k];
				taken[k] = 1;
			}
		steps[0]->batch(steps, n);
	}
	pthread_mutex_lock(&ls->lock);
	for (m = 0; m < ls->members; m++)
		if (ls->state[m] == MEMBER_WAITING) {
			ls->state[m] = MEMBER_RUNNABLE;
			ls->pending[m] = NULL;
		}
}

/* Member m (now waiting or done) hands the baton on: to the next member that can run; when
 * every member left waits, their steps are carried out first (m runs on if it was one of
 * them); -1 when every member is done, which member 0 waits for. Called locked. */
static void pass_baton(struct lockstep *ls, int m)
{
	int next = next_runnable(ls, m), k;

	if (next < 0) {
		for (k = 0; k < ls->members && ls->state[k] != MEMBER_WAITING; k++)
			;
		if (k < ls->members) {
			carry_out(ls);
			next = ls->state[m] == MEMBER_RUNNABLE ? m : next_runnable(ls, m);
		}
	}
	ls->holder = next;
	if (next != m)
		pthread_cond_signal(&ls->turn[next >= 0 ? next : 0]);
}

/* Member m's part of the round: jobs while there are any. Entered and left locked, holding
 * the baton on entry, having handed it on at the end. */
static void member_jobs(struct lockstep *ls, int m)
{
	struct parallel_jobs *pj = ls->jobs;
	struct lockstep *outer_ls = my_lockstep;
	int outer = in_job, outer_m = my_member;
	size_t j;

	pthread_mutex_unlock(&ls->lock);
	in_job = 1;
	my_lockstep = ls;
	my_member = m;
	while ((j = atomic_fetch_add(&pj->next, 1)) < pj->njobs)
		pj->run(pj->ctx, j);
	in_job = outer;
	my_lockstep = outer_ls;
	my_member = outer_m;
	pthread_mutex_lock(&ls->lock);
	ls->state[m] = MEMBER_DONE;
	pass_baton(ls, m);
}

void parallel_step(struct parallel_step *step)
{
	struct lockstep *ls = my_lockstep;
	int m = my_member;

	if (!ls) {
		step->batch(&step, 1);
		return;
	}
	pthread_mutex_lock(&ls->lock);
	ls->pending[m] = step;
	ls->state[m] = MEMBER_WAITING;
	pass_baton(ls, m);
	while (ls->holder != m)
		pthread_cond_wait(&ls->turn[m], &ls->lock);
	pthread_mutex_unlock(&ls->lock);
}

static void *lockstep_thread(void *arg)
{
	const struct lockstep_seat *seat = arg;
	struct lockstep *ls = seat->ls;
	int m = seat->index;
	unsigned long seen = 0;

	pthread_mutex_lock(&ls->lock);
	for (;;) {
		while (!ls->quit && (ls->round == seen || m >= ls->members || ls->holder != m))
			pthread_cond_wait(&ls->turn[m], &ls->lock);
		if (ls->quit)
			break;
		seen = ls->round;
		member_jobs(ls, m);
	}
	pthread_mutex_unlock(&ls->lock);
	return NULL;
}

/* The key's destructor: the owning thread is exiting, between calls. */
static void lockstep_stop(void *arg)
{
	struct lockstep *ls = arg;
	int m;

	pthread_mutex_lock(&ls->lock);
	ls->quit = 1;
	for (m = 0; m < MEMBERS; m++)
		pthread_cond_signal(&ls->turn[m]);
	pthread_mutex_unlock(&ls->lock);
	for (m = 0; m < ls->started; m++)
		pthread_join(ls->threads[m], NULL);
	for (m = 0; m < MEMBERS; m++)
		pthread_cond_destroy(&ls->turn[m]);
	pthread_mutex_destroy(&ls->lock);
	free(ls);
}

/* The calling thread's lockstep, its threads started on first use; NULL when none can be
 * had (its jobs then run one after another). */
static struct lockstep *lockstep_mine(void)
{
	struct lockstep *ls;
	int m;

	pthread_once(&crew_once, crew_init);
	if (!lockstep_keyed)
		return NULL;
	ls = pthread_getspecific(lockstep_key);
	if (ls)
		return ls;
	ls = calloc(1, sizeof *ls);
	if (!ls)
		return NULL;
	pthread_mutex_init(&ls->lock, NULL);
	for (m = 0; m < MEMBERS; m++)
		pthread_cond_init(&ls->turn[m], NULL);
	ls->holder = -1;
	while (ls->started < MEMBERS - 1) {
		struct lockstep_seat *seat = &ls->seats[ls->started];

		seat->ls = ls;
		seat->index = ls->started + 1;
		if (pthread_create(&ls->threads[ls->started], NULL, lockstep_thread, seat) != 0)
			break;
		ls->started++;
	}
	if (ls->started == 0 || pthread_setspecific(lockstep_key, ls) != 0) {
		lockstep_stop(ls);
		return NULL;
	}
	return ls;
}

/* One round on ls: member 0 (this thread) and as many of its threads as there are jobs. */
static void lockstep_run(struct lockstep *ls, struct parallel_jobs *pj)
{
	int m, members = 1 + ls->started;

	if ((size_t)members > pj->njobs)
		members = (int)pj->njobs;
	pthread_mutex_lock(&ls->lock);
	ls->jobs = pj;
	ls->members = members;
	for (m = 0; m < members; m++) {
		ls->state[m] = MEMBER_RUNNABLE;
		ls->pending[m] = NULL;
	}
	ls->holder = 0;
	ls->round++;
	member_jobs(ls, 0);
	/* the others: each wakes when the baton reaches it */
	while (ls->holder != -1)
		pthread_cond_wait(&ls->turn[0], &ls->lock);
	ls->jobs = NULL;
	pthread_mutex_unlock(&ls->lock);
}
