/*
 * jtext.h: contactd's one text form of JSON: keys sorted, and every real printed
 * as the shortest text that reads back as the same double ("%.15g", "%.16g" or
 * "%.17g", the first that round-trips), so answers stay exact and read well
 * (0.05, not 0.050000000000000003). Compact for machines (answers, cache keys),
 * indented for people (`contact --pretty`). Otherwise byte-for-byte what jansson's
 * json_dumps(JSON_COMPACT | JSON_SORT_KEYS) writes: the same escapes, reals always
 * with a '.' or an exponent, exponents without '+' or leading zeros.
 */
#ifndef CONTACTD_BASE_JTEXT_H
#define CONTACTD_BASE_JTEXT_H

#include <stddef.h>
#include <jansson.h>

/* Room for any real's text, with its NUL. */
#define JTEXT_REAL_MAX 32

/* Indent objects and arrays by two spaces per level, ": " between key and value. */
#define JTEXT_PRETTY 1

/* The shortest "%.Ng" text of x (N = 15, 16 or 17) that strtod() reads back as x,
 * as printf writes it ("1e-05", "2"): for CSV cells and messages. Returns buf. */
char *jtext_shortest(double x, char buf[JTEXT_REAL_MAX]);

/* jtext_shortest() into a temporary that lives to the end of the enclosing block: for
 * messages, printf("not %s", JTEXT_NUM(x)). */
#define JTEXT_NUM(x) jtext_shortest((x), (char[JTEXT_REAL_MAX]){0})

/* The same as a JSON real: "2.0", "1e-5". Returns buf. */
char *jtext_real(double x, char buf[JTEXT_REAL_MAX]);

/* Write v to f as its canonical text when it is a number or a boolean (a real as
 * jtext_real() spells it) and return 1; else write nothing and return 0. */
int jtext_put_scalar(FILE *f, const json_t *v);

/* The text of v (any JSON value) with flags (0 or JTEXT_PRETTY), NUL-terminated,
 * without a final newline. Caller frees with free(); NULL when out of memory. */
char *jtext_dump(const json_t *v, int flags);

/* The compact text of v (jtext_dump(v, 0)) with a final newline: the canonical line an
 * answer, a cache key or a stored record is. Caller frees with free(); NULL when out of
 * memory. */
char *jtext_line(const json_t *v);

#endif
