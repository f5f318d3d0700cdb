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
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#endif

#include "fit/knobs.h"

enum { HELPERS = CALIB_FIT_THREADS > 1 ? CALIB_FIT_THREADS - 1 : 1 };

struct parallel_jobs {
	void (*run)(void *ctx, size_t job);
	void *ctx;
	size_t njobs;
	atomic_size_t next;
	int lockstep;      /* parallel_for_lockstep()'s: each thread runs its jobs side by side */
	size_t per_thread; /* lockstep: members a thread starts, its share of the jobs */
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
 * Lockstep. A thread that takes lockstep jobs runs them on its members: up to MEMBERS fibers
 * (ucontext), their stacks kept until it exits (as its crew is, for the same reason). The
 * thread runs each member that can run in turn, until its job asks for a step
 * (parallel_step()) or it has no job left; once every member waits or is done, it carries
 * out their steps and runs them on. A switch between fibers is a few hundred nanoseconds
 * (threads taking turns cost 7 us a turn here, a tenth of a press fit); everything stays on
 * the one thread, so a fit takes no more CPU than before. The members take turns in a fixed
 * order, but nothing depends on it: each job's steps are answered as alone.
 */
enum { MEMBERS = CALIB_LOCKSTEP_JOBS > 1 ? CALIB_LOCKSTEP_JOBS : 1 };
/* a member's stack, as a thread's: a job's own frames are small (its steps are carried out
 * on the thread's stack), but one may step a large batch alone on its own */
enum { MEMBER_STACK = 8 << 20 };
enum member_state { MEMBER_RUNNABLE, MEMBER_WAITING, MEMBER_DONE };

struct member {
	ucontext_t context;
	char *stack; /* MEMBER_STACK bytes, the lowest page a guard */
	enum member_state state;
	struct parallel_step *pending; /* a waiting member's step */
};

struct lockstep {
	ucontext_t home; /* the thread's own context: it schedules and carries out steps */
	struct parallel_jobs *jobs;
	int members; /* in this round */
	int current; /* the member running now */
	int made;    /* members with a stack */
	struct member member[MEMBERS];
	const void *home_bottom; /* the thread's stack, for AddressSanitizer's switches */
	size_t home_size;
};

/* The lockstep this thread runs a round of now (parallel_step()). */
static _Thread_local struct lockstep *my_lockstep;

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
	/* a thread that took every job at once would leave the helpers none */
	pj.per_thread = (njobs + (size_t)wanted) / (1 + (size_t)wanted);
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

/* Every waiting member's step carried out, each batch function once over its steps in the
 * members' order; then they can run again. On the thread's own stack. */
static void carry_out(struct lockstep *ls)
{
	struct parallel_step *steps[MEMBERS];
	int taken[MEMBERS] = {0}, m, k;

	for (m = 0; m < ls->members; m++) {
		size_t n = 0;

		if (ls->member[m].state != MEMBER_WAITING || taken[m])
			continue;
		for (k = m; k < ls->members; k++)
			if (ls->member[k].state == MEMBER_WAITING && !taken[k] &&
			    ls->member[k].pending->batch == ls->member[m].pending->batch) {
				steps[n++] = ls->member[k].pending;
				taken[k] = 1;
			}
		steps[0]->batch(steps, n);
	}
	for (m = 0; m < ls->members; m++)
		if (ls->member[m].state == MEMBER_WAITING) {
			ls->member[m].state = MEMBER_RUNNABLE;
			ls->member[m].pending = NULL;
		}
}

/* The switches between the thread's stack and a member's, told to AddressSanitizer where
 * it runs (else it takes a member's frames for overflows of the thread's stack). */
#if defined(__SANITIZE_ADDRESS__)
#define FIBER_START(save, bottom, size) __sanitizer_start_switch_fiber(save, bottom, size)
#define FIBER_FINISH(save, bottom, size) __sanitizer_finish_switch_fiber(save, bottom, size)
#else
#define FIBER_START(save, bottom, size) ((void)(save), (void)(bottom), (void)(size))
#define FIBER_FINISH(save, bottom, size) ((void)(save), (void)(bottom), (void)(size))
#endif

static size_t page_size(void)
{
	long page = sysconf(_SC_PAGESIZE);

	return page > 0 ? (size_t)page : 4096;
}

/* From the thread's stack to member m's, until it waits or is done (not inlined, as
 * member_start()). */
static __attribute__((noinline)) void enter_member(struct lockstep *ls, int m)
{
	struct member *mb = &ls->member[m];
	void *save = NULL;

	ls->current = m;
	FIBER_START(&save, mb->stack + page_size(), MEMBER_STACK - page_size());
	swapcontext(&ls->home, &mb->context);
	FIBER_FINISH(save, NULL, NULL);
}

/* From the running member's stack back to the thread's (for good once it is done; not
 * inlined, as member_start()). */
static __attribute__((noinline)) void leave_member(struct lockstep *ls, int done)
{
	struct member *mb = &ls->member[ls->current];
	void *save = NULL;

	FIBER_START(done ? NULL : &save, ls->home_bottom, ls->home_size);
	swapcontext(&mb->context, &ls->home);
	FIBER_FINISH(save, &ls->home_bottom, &ls->home_size);
}

/* A member's life in a round: jobs while there are any. */
static void member_main(void)
{
	struct lockstep *ls = my_lockstep;
	struct parallel_jobs *pj = ls->jobs;
	size_t j;

	FIBER_FINISH(NULL, &ls->home_bottom, &ls->home_size);
	while ((j = atomic_fetch_add(&pj->next, 1)) < pj->njobs)
		pj->run(pj->ctx, j);
	ls->member[ls->current].state = MEMBER_DONE;
	leave_member(ls, 1);
}

void parallel_step(struct parallel_step *step)
{
	struct lockstep *ls = my_lockstep;
	struct member *mb;

	if (!ls) {
		step->batch(&step, 1);
		return;
	}
	mb = &ls->member[ls->current];
	mb->pending = step;
	mb->state = MEMBER_WAITING;
	leave_member(ls, 0);
}

/* The key's destructor: the owning thread is exiting, between calls. */
static void lockstep_stop(void *arg)
{
	struct lockstep *ls = arg;
	int m;

	for (m = 0; m < ls->made; m++)
		munmap(ls->member[m].stack, MEMBER_STACK);
	free(ls);
}

/* The calling thread's lockstep, its members' stacks made on first use; NULL when none can be
 * had (its jobs then run one after another). */
static struct lockstep *lockstep_mine(void)
{
	struct lockstep *ls;

	pthread_once(&crew_once, crew_init);
	if (!lockstep_keyed)
		return NULL;
	ls = pthread_getspecific(lockstep_key);
	if (ls)
		return ls;
	ls = calloc(1, sizeof *ls);
	if (!ls)
		return NULL;
	while (ls->made < MEMBERS) {
		char *stack = mmap(NULL, MEMBER_STACK, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);

		if (stack == MAP_FAILED)
			break;
		/* an overflow faults, as a thread's does */
		mprotect(stack, page_size(), PROT_NONE);
		ls->member[ls->made++].stack = stack;
	}
	if (ls->made < 2 || pthread_setspecific(lockstep_key, ls) != 0) {
		lockstep_stop(ls);
		return NULL;
	}
	return ls;
}

/* A member's context at the start of its round. Not inlined: getcontext() returns twice,
 * and the caller's locals would be its to keep safe. */
static __attribute__((noinline)) void member_start(struct member *mb)
{
	getcontext(&mb->context);
	mb->context.uc_stack.ss_sp = mb->stack + page_size();
	mb->context.uc_stack.ss_size = MEMBER_STACK - page_size();
	mb->context.uc_link = NULL;
	makecontext(&mb->context, member_main, 0);
	mb->state = MEMBER_RUNNABLE;
	mb->pending = NULL;
}

/* One round on ls: as many members as there are jobs, run in turn until all are done. */
static void lockstep_run(struct lockstep *ls, struct parallel_jobs *pj)
{
	struct lockstep *outer_ls = my_lockstep;
	int outer = in_job, m, waiting;

	ls->jobs = pj;
	ls->members = (size_t)ls->made < pj->per_thread ? ls->made : (int)pj->per_thread;
	for (m = 0; m < ls->members; m++)
		member_start(&ls->member[m]);
	in_job = 1;
	my_lockstep = ls;
	do {
		for (m = 0; m < ls->members; m++)
			if (ls->member[m].state == MEMBER_RUNNABLE)
				enter_member(ls, m);
		for (m = 0, waiting = 0; m < ls->members; m++)
			waiting |= ls->member[m].state == MEMBER_WAITING;
		if (waiting)
			carry_out(ls);
	} while (waiting);
	my_lockstep = outer_ls;
	in_job = outer;
	ls->jobs = NULL;
}
