/*
 * number_text.h: a Check test's view of one number in an answer's text, as printed
 * (for tests that compare numbers byte for byte). Included by the tests that use it;
 * each includes <check.h>, <stdio.h> and <string.h> first.
 */
#ifndef TESTS_NUMBER_TEXT_H
#define TESTS_NUMBER_TEXT_H

/* The text of the number after `"key":` in text, from the first `within` on, into out. */
static void number_text(
    const char *text, const char *within, const char *key, char *out, size_t size)
{
	char pattern[64];
	const char *at = strstr(text, within);
	size_t n;

	ck_assert_msg(at != NULL, "no %s in %.300s", within, text);
	snprintf(pattern, sizeof pattern, "\"%s\":", key);
	at = strstr(at, pattern);
	ck_assert_msg(at != NULL, "no %s in %.300s", pattern, text);
	at += strlen(pattern);
	n = strcspn(at, ",}");
	ck_assert(n > 0 && n < size);
	memcpy(out, at, n);
	out[n] = '\0';
}

#endif
