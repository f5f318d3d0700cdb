/*
 * test_admit.c: the compute pool's fairness (src/http/admit.h), without a daemon: the order
 * it runs jobs in and what it refuses, with jobs that record themselves and one that holds
 * its thread until the test lets it go. Nothing is timed: the test waits for counts.
 *   - the clients with waiting jobs are served in turn, one job each: a client's jobs
 *     queued behind another's backlog run after one of that backlog, not after all of it;
 *   - a client never has more than its running share on the threads, even with one idle,
 *     and past its waiting share it is refused (ADMIT_SHARE) while others are admitted;
 *   - work of no client (NULL) is held to no share.
 */
#include <check.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "http/admit.h"

/* What ran, in order: each job's name. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static char ran[64][8];
static int nran, gate_open;

struct named {
	struct admit_job job;
	char name[8];
	int gate; /* holds its thread until open_gate() */
};

static void run(void *arg, int cancelled)
{
	struct named *n = arg;

	pthread_mutex_lock(&lock);
	while (n->gate && !gate_open && !cancelled)
		pthread_cond_wait(&changed, &lock);
	snprintf(ran[nran++], sizeof ran[0], "%s", n->name);
	pthread_cond_broadcast(&changed);
	pthread_mutex_unlock(&lock);
}

static void reset(void)
{
	pthread_mutex_lock(&lock);
	nran = 0;
	gate_open = 0;
	pthread_mutex_unlock(&lock);
}

static void open_gate(void)
{
	pthread_mutex_lock(&lock);
	gate_open = 1;
	pthread_cond_broadcast(&changed);
	pthread_mutex_unlock(&lock);
}

static void wait_ran(int count)
{
	pthread_mutex_lock(&lock);
	while (nran < count)
		pthread_cond_wait(&changed, &lock);
	pthread_mutex_unlock(&lock);
}

static void wait_running(struct admit *a, long count)
{
	while (admit_running(a) != count)
		usleep(1000);
}

/* Reserve and submit job n of client (asserting it is admitted). */
static void submit(struct admit *a, const char *client, struct named *n, const char *name, int gate)
{
	n->job.run = run;
	n->job.arg = n;
	n->gate = gate;
	snprintf(n->name, sizeof n->name, "%s", name);
	ck_assert_int_eq(admit_reserve(a, client, &n->job), ADMIT_OK);
	admit_submit(a, &n->job);
}

/* Where name ran (its index in ran), -1 if it did not. */
static int position(const char *name)
{
	int i;

	for (i = 0; i < nran; i++)
		if (strcmp(ran[i], name) == 0)
			return i;
	return -1;
}

/* One thread held by a's gate job: a's backlog a1..a3, then b1 and c1, then a4. b1 and c1
 * run after a1 and before a2: one of a's backlog each, not all of it. */
START_TEST(clients_served_in_turn)
{
	static const char *const order[] = {"gate", "a1", "b1", "c1", "a2", "a3", "a4"};
	struct named jobs[7];
	struct admit *a;
	struct err err;
	size_t i;

	reset();
	ck_assert_int_eq(admit_new(1, 100, 1, 10, &a, &err), 0);
	submit(a, "a", &jobs[0], "gate", 1);
	wait_running(a, 1);
	submit(a, "a", &jobs[1], "a1", 0);
	submit(a, "a", &jobs[2], "a2", 0);
	submit(a, "a", &jobs[3], "a3", 0);
	submit(a, "b", &jobs[4], "b1", 0);
	submit(a, "c", &jobs[5], "c1", 0);
	submit(a, "a", &jobs[6], "a4", 0);
	ck_assert_int_eq(admit_queued(a), 6);
	open_gate();
	wait_ran(7);
	for (i = 0; i < sizeof order / sizeof order[0]; i++)
		ck_assert_msg(
		    strcmp(ran[i], order[i]) == 0, "job %zu: %s, want %s", i, ran[i], order[i]);
	admit_stop(a);
}
END_TEST

/* Two threads, a running share of one: while a's gate job holds a thread, a's next waits
 * though the other thread is idle, and b's runs on it. a's waiting share (two) full, a is
 * refused and b admitted; work of no client is admitted past any share. */
START_TEST(shares_bound_each_client)
{
	struct named jobs[8], refused = {.name = "refused"};
	struct admit *a;
	struct err err;
	int i;

	reset();
	ck_assert_int_eq(admit_new(2, 100, 1, 2, &a, &err), 0);
	submit(a, "a", &jobs[0], "gate", 1);
	wait_running(a, 1);
	submit(a, "a", &jobs[1], "a1", 0);
	submit(a, "b", &jobs[2], "b1", 0);
	wait_ran(1);
	ck_assert_str_eq(ran[0], "b1");
	ck_assert_int_eq(admit_queued(a), 1); /* a1, behind a's running gate */
	submit(a, "a", &jobs[3], "a2", 0);
	refused.job.run = run;
	refused.job.arg = &refused;
	ck_assert_int_eq(admit_reserve(a, "a", &refused.job), ADMIT_SHARE);
	ck_assert_int_eq(admit_share_rejected(a), 1);
	ck_assert_int_eq(admit_rejected(a), 0);
	submit(a, "b", &jobs[4], "b2", 0);
	for (i = 5; i < 8; i++)
		submit(a, NULL, &jobs[i], i == 5 ? "n1" : i == 6 ? "n2" : "n3", 0);
	open_gate();
	wait_ran(8);
	ck_assert_int_gt(position("a1"), position("gate"));
	ck_assert_int_eq(position("refused"), -1);
	admit_stop(a);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("admit");
	TCase *tc = tcase_create("admit");
	SRunner *sr;
	int failed;

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, clients_served_in_turn);
	tcase_add_test(tc, shares_bound_each_client);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
