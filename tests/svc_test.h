/*
 * svc_test.h: helpers shared by the service layer's Check tests.
 */
#ifndef CONTACTD_TESTS_SVC_TEST_H
#define CONTACTD_TESTS_SVC_TEST_H

#include <jansson.h>

#include "service/service.h"
#include "service/sweep.h"

/* Limits of service/knobs.h with one worker thread, or `threads`. */
struct svc_limits tsvc_limits(int threads);

/* The canonical request of body (asserts it is accepted). Caller owns it. */
json_t *tsvc_canonical(enum svc_endpoint ep, const char *body);

/* The canonical text (jtext_line) of body's canonical request. Caller frees. */
char *tsvc_canonical_text(enum svc_endpoint ep, const char *body);

/* Assert bodies one and two of ep are one question (the same canonical text), or two
 * when same is 0. */
void tsvc_assert_same_question(enum svc_endpoint ep, const char *one, const char *two, int same);

/* The answer to body under lim (NULL: tsvc_limits(1)); asserts success. Caller owns it. */
json_t *tsvc_answer(enum svc_endpoint ep, const char *body, const struct svc_limits *lim);

/* Assert body is rejected (by svc_canonical, under lim or the defaults) with code at path. */
void tsvc_expect_error(enum svc_endpoint ep, const char *body, size_t len,
    const struct svc_limits *lim, enum err_code code, const char *path);

/* Assert body is rejected with code at path; its message, which the caller frees. */
char *tsvc_error_message(
    enum svc_endpoint ep, const char *body, enum err_code code, const char *path);

/* The number obj[key]; asserts it is one. */
double tsvc_real(const json_t *obj, const char *key);

/*
 * Assert value matches a number the lesson printed with `decimals` decimals:
 * |value - printed| <= half a unit of the last printed digit (the printed
 * digits are the tolerance).
 */
void tsvc_assert_printed(double value, double printed, int decimals, const char *what);

/*
 * The text a streamed sweep of body prints in format under lim: the whole answer's
 * bytes (JSON: the head without its closing brace, the rows, "]}\n"; CSV: the header
 * and lines), from a sink that asks for each row's JSON too when with_json; a CSV
 * sink's JSON rows must then be whole's rows (asserted). Caller frees.
 */
char *tsvc_sweep_streamed(const char *body, enum sweep_format format, int with_json,
    const struct svc_limits *lim, const char *whole);

/* The JSON text of a row of n cells, each printed as the answers print it ("[c0,c1,...]").
 * Caller frees. */
char *tsvc_row_text(const json_t *const *cells, size_t n);

/* The text of a row of a two-pointer sweep whose single answer is single: the point's
 * values v0 and v1, then single's member of each further column (asserted present).
 * Caller frees. */
char *tsvc_single_row(
    const json_t *columns, const json_t *v0, const json_t *v1, const json_t *single);

/* A grid swept over two pointers, and what its rows are checked against. */
struct tsvc_grid {
	enum svc_endpoint ep;         /* the endpoint of the single questions */
	const json_t *base;           /* the base, with every member the pointers name */
	const char *ptrs[2];          /* the varied pointers */
	const char *body;             /* the sweep's request (for messages) */
	const char *whole;            /* the whole answer's text */
	const json_t *answer;         /* whole, parsed */
	const struct svc_limits *lim; /* the limits the single questions are asked under */
};

/*
 * The text a row must hold, from its point (v0, v1) and its single answer: single, or
 * NULL when the single request (single_body) was refused, refusal saying why; a builder
 * asserts a refusal is one its test allows. Returns the text; caller frees.
 */
struct tsvc_row_builder {
	char *(*build)(void *ctx, const json_t *columns, const json_t *v0, const json_t *v1,
	    const json_t *single, const struct err *refusal, const char *single_body);
	void *ctx;
};

/*
 * Assert row `row` of grid's answer, the point (v0, v1), is the row builder makes from
 * the single answer to grid's base with ptrs[0] set to v0 and ptrs[1] to v1: its own
 * bytes, cut from the whole answer's text, not reprinted.
 */
void tsvc_assert_row(const struct tsvc_grid *grid, size_t row, const json_t *v0, const json_t *v1,
    const struct tsvc_row_builder *builder);

#endif
