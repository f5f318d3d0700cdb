/*
 * test_hotcache.c: the per-thread memory cache of exact request bytes (hotcache.h).
 */
#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http/hotcache.h"
#include "http/knobs.h"

START_TEST(miss_put_hit)
{
	unsigned char key[HOT_KEY_BYTES];
	const char *text;
	size_t len = 0;

	hot_key("rest", "{}", 2, key);
	ck_assert_ptr_null(hot_get(key, &len));
	hot_put(key, "{\"a\":1}\n", 8);
	text = hot_get(key, &len);
	ck_assert_ptr_nonnull(text);
	ck_assert_uint_eq(len, 8);
	ck_assert_mem_eq(text, "{\"a\":1}\n", 8);
}
END_TEST

/* The endpoint and every byte of the body are part of the key. */
START_TEST(keys_differ)
{
	unsigned char a[HOT_KEY_BYTES], b[HOT_KEY_BYTES];
	size_t len;

	hot_key("rest", "{}", 2, a);
	hot_key("rest", "{}", 2, b);
	ck_assert_mem_eq(a, b, HOT_KEY_BYTES);
	hot_key("drop", "{}", 2, b);
	ck_assert_int_ne(memcmp(a, b, HOT_KEY_BYTES), 0);
	hot_key("rest", "{ }", 3, b);
	ck_assert_int_ne(memcmp(a, b, HOT_KEY_BYTES), 0);
	/* A body with a NUL: len, not strlen, decides. */
	hot_key("rest", "{}\0x", 4, b);
	ck_assert_int_ne(memcmp(a, b, HOT_KEY_BYTES), 0);
	hot_put(a, "1", 1);
	ck_assert_ptr_null(hot_get(b, &len));
}
END_TEST

/* Two keys in one slot: the newer replaces the older, which then misses. */
START_TEST(collision_replaces)
{
	unsigned char first[HOT_KEY_BYTES], other[HOT_KEY_BYTES];
	char body[32];
	size_t len, slot, i;

	hot_key("rest", "first", 5, first);
	memcpy(&slot, first, sizeof slot);
	/* Find another body whose key lands in the same slot (1 in HOT_SLOTS tries). */
	for (i = 0;; i++) {
		size_t s;

		snprintf(body, sizeof body, "other %zu", i);
		hot_key("rest", body, strlen(body), other);
		memcpy(&s, other, sizeof s);
		if (s % HOT_SLOTS == slot % HOT_SLOTS)
			break;
	}
	hot_put(first, "A", 1);
	hot_put(other, "B", 1);
	ck_assert_ptr_null(hot_get(first, &len));
	ck_assert_str_eq(hot_get(other, &len), "B");
}
END_TEST

START_TEST(large_answers_not_kept)
{
	unsigned char key[HOT_KEY_BYTES];
	char *big = malloc(HOT_MAX_ANSWER + 1);
	size_t len;

	ck_assert_ptr_nonnull(big);
	memset(big, 'x', HOT_MAX_ANSWER + 1);
	hot_key("sweep", "big", 3, key);
	hot_put(key, big, HOT_MAX_ANSWER + 1);
	ck_assert_ptr_null(hot_get(key, &len));
	hot_put(key, big, HOT_MAX_ANSWER);
	ck_assert_ptr_nonnull(hot_get(key, &len));
	ck_assert_uint_eq(len, HOT_MAX_ANSWER);
	free(big);
}
END_TEST

/* Filling every slot with the largest answers stops at the byte budget. */
START_TEST(budget_bounds_memory)
{
	char *answer = malloc(HOT_MAX_ANSWER);
	size_t kept = 0, len, i;

	ck_assert_ptr_nonnull(answer);
	memset(answer, 'y', HOT_MAX_ANSWER);
	for (i = 0; i < 4 * HOT_SLOTS; i++) {
		unsigned char key[HOT_KEY_BYTES];
		char body[32];

		snprintf(body, sizeof body, "%zu", i);
		hot_key("rest", body, strlen(body), key);
		hot_put(key, answer, HOT_MAX_ANSWER);
	}
	for (i = 0; i < 4 * HOT_SLOTS; i++) {
		unsigned char key[HOT_KEY_BYTES];
		char body[32];

		snprintf(body, sizeof body, "%zu", i);
		hot_key("rest", body, strlen(body), key);
		kept += hot_get(key, &len) != NULL;
	}
	ck_assert_uint_gt(kept, 0);
	ck_assert_uint_le(kept * HOT_MAX_ANSWER, HOT_BUDGET);
	free(answer);
}
END_TEST

static void *other_thread(void *p)
{
	const unsigned char *key = p;
	size_t len;

	return (void *)hot_get(key, &len);
}

/* Each thread has its own table. */
START_TEST(per_thread)
{
	unsigned char key[HOT_KEY_BYTES];
	pthread_t thread;
	void *seen = (void *)1;
	size_t len;

	hot_key("eval", "{}", 2, key);
	hot_put(key, "mine", 4);
	ck_assert_int_eq(pthread_create(&thread, NULL, other_thread, key), 0);
	ck_assert_int_eq(pthread_join(thread, &seen), 0);
	ck_assert_ptr_null(seen);
	ck_assert_str_eq(hot_get(key, &len), "mine");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("hotcache");
	TCase *tc = tcase_create("hotcache");
	SRunner *sr;
	int failed;

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, miss_put_hit);
	tcase_add_test(tc, keys_differ);
	tcase_add_test(tc, collision_replaces);
	tcase_add_test(tc, large_answers_not_kept);
	tcase_add_test(tc, budget_bounds_memory);
	tcase_add_test(tc, per_thread);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
