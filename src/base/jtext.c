/*
 * jtext.c: the shortest round-tripping reals, and a JSON writer around them (jansson
 * cannot be told how to print one real, only with how many digits to print all).
 */
#include "base/jtext.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 10^k, k = 0..22: exactly representable doubles */
static const double exact_tens[23] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

static const int64_t int_tens[19] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000,
    1000000000, 10000000000, 100000000000, 1000000000000, 10000000000000, 100000000000000,
    1000000000000000, 10000000000000000, 100000000000000000, 1000000000000000000};

/*
 * a * 10^s (a > 0 finite, 0 <= s <= 22) rounded to an integer, half to even, as
 * printf rounds: exactly, from the product's two parts hi + lo (fma gives lo, the
 * product's rounding error, exactly; 10^s is exact). Returns -1 when the product is
 * too large for this path (>= 2^62).
 */
static int64_t scaled_round(double a, int s, double *product_hi, double *product_lo)
{
	double p = exact_tens[s], hi = a * p, lo = fma(a, p, -hi), base, frac;
	int64_t d;

	*product_hi = hi;
	*product_lo = lo;
	if (!(hi < 4611686018427387904.0))
		return -1;
	base = floor(hi);
	d = (int64_t)base;
	if (hi >= 4503599627370496.0) {
		/* hi is an integer with ulp >= 1: the fraction is lo's own (|lo| <= 16 here) */
		double whole = floor(lo);
		d += (int64_t)whole;
		frac = lo - whole; /* exact: lo is small */
		lo = 0;
	} else {
		/* frac and 0.5 are multiples of ulp(hi), |lo| <= ulp(hi)/2: lo only breaks a tie */
		frac = hi - base;
	}
	if (frac > 0.5 || (frac == 0.5 && (lo > 0 || (lo == 0 && (d & 1)))))
		d++;
	return d;
}

/*
 * The fast path of jtext_shortest: "%.*g" with `digits` significant digits of x
 * (nonzero, finite), written from the correctly rounded digit string, when
 * x * 10^(digits-1-exponent) is in exact reach (scaled_round); and whether that text
 * reads back as x (*exact), decided exactly for the texts strtod reads with one
 * correctly rounded operation (Clinger's fast path). No text when it does not and
 * digits < 17 (the caller tries more). Returns 0 when out of reach.
 */
static int fast_g(double x, int digits, char *buf, int *exact)
{
	double a = fabs(x);
	int e = (int)floor(log10(a)), s, tries, n, i, pos;
	int64_t d = -1, top = int_tens[digits], stripped;
	char text[24];
	char *out = buf;

	/* log10 may miss the exponent by one near a power of ten: the exact product
	 * hi + lo must lie in [10^(digits-1), 10^digits) */
	for (tries = 0; tries < 3; tries++) {
		double hi, lo, low = (double)int_tens[digits - 1], high = (double)top;
		s = digits - 1 - e;
		if (s < 0 || s > 22)
			return 0;
		d = scaled_round(a, s, &hi, &lo);
		if (d < 0)
			return 0;
		if (hi > high || (hi == high && lo >= 0))
			e++;
		else if (hi < low || (hi == low && lo < 0))
			e--;
		else
			break;
	}
	if (tries == 3)
		return 0;
	if (d == top) {
		/* the digits round up to 10^digits: printf's text is 1 and zeros, one
		 * exponent up */
		d = int_tens[digits - 1];
		e++;
		s--;
	}
	/* does the text read back as x? */
	stripped = d;
	n = s;
	while (stripped % 10 == 0) {
		stripped /= 10;
		n--;
	}
	if (stripped < 9007199254740992 && n >= -22 && n <= 22)
		*exact = (n >= 0 ? (double)stripped / exact_tens[n]
		                 : (double)stripped * exact_tens[-n]) == a;
	else
		*exact = -1; /* unknown: the caller asks strtod */
	if (*exact == 0 && digits < 17)
		return 1; /* the caller tries more digits: no text needed */

	/* the digits, then printf's %g layout: trailing zeros dropped */
	for (i = digits - 1; i >= 0; i--) {
		text[i] = (char)('0' + d % 10);
		d /= 10;
	}
	n = digits;
	while (n > 1 && text[n - 1] == '0')
		n--;
	if (x < 0)
		*out++ = '-';
	if (e < -4 || e >= digits) {
		*out++ = text[0];
		if (n > 1) {
			*out++ = '.';
			memcpy(out, text + 1, (size_t)(n - 1));
			out += n - 1;
		}
		/* printf's exponent: a sign and at least two digits */
		*out++ = 'e';
		*out++ = e < 0 ? '-' : '+';
		if (e < 0)
			e = -e;
		if (e >= 100)
			*out++ = (char)('0' + e / 100);
		*out++ = (char)('0' + e / 10 % 10);
		*out++ = (char)('0' + e % 10);
		*out = '\0';
		return 1;
	}
	if (e < 0) {
		*out++ = '0';
		*out++ = '.';
		for (i = -1; i > e; i--)
			*out++ = '0';
		memcpy(out, text, (size_t)n);
		out += n;
	} else {
		for (pos = 0; pos <= e; pos++)
			*out++ = text[pos];
		if (n > e + 1) {
			*out++ = '.';
			memcpy(out, text + e + 1, (size_t)(n - e - 1));
			out += n - e - 1;
		}
	}
	*out = '\0';
	return 1;
}

char *jtext_shortest(double x, char buf[JTEXT_REAL_MAX])
{
	int digits, exact;

	/* most answers' reals: exact digits without printf and strtod (the hot path of
	 * every sweep row); the same text as the loop below, which handles the rest */
	if (isfinite(x) && x != 0) {
		for (digits = 15; digits <= 17; digits++) {
			if (!fast_g(x, digits, buf, &exact))
				break;
			if (digits == 17 || exact == 1 || (exact < 0 && strtod(buf, NULL) == x))
				return buf;
		}
	} else if (x == 0) {
		return strcpy(buf, signbit(x) ? "-0" : "0");
	}

	/* 17 significant digits always round-trip a double; fewer often do */
	for (digits = 15; digits < 17; digits++) {
		snprintf(buf, JTEXT_REAL_MAX, "%.*g", digits, x);
		if (strtod(buf, NULL) == x)
			return buf;
	}
	snprintf(buf, JTEXT_REAL_MAX, "%.17g", x);
	return buf;
}

char *jtext_real(double x, char buf[JTEXT_REAL_MAX])
{
	char *e, *digits, *end;

	jtext_shortest(x, buf);
	/* a '.' or an exponent, so that the text reads back as a real, not an integer */
	if (!strchr(buf, '.') && !strchr(buf, 'e')) {
		strcat(buf, ".0");
		return buf;
	}
	/* "e+05" -> "e5", "e-05" -> "e-5", as jansson writes exponents */
	e = strchr(buf, 'e');
	if (e) {
		digits = e + 1;
		if (*digits == '-')
			digits++;
		else if (*digits == '+')
			memmove(digits, digits + 1, strlen(digits));
		for (end = digits; *end == '0' && end[1]; end++)
			;
		memmove(digits, end, strlen(end) + 1);
	}
	return buf;
}

/* Write the string s (len bytes, valid UTF-8) quoted and escaped as jansson does. */
static void put_string(FILE *f, const char *s, size_t len)
{
	size_t i;

	fputc('"', f);
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		switch (c) {
		case '"':
			fputs("\\\"", f);
			break;
		case '\\':
			fputs("\\\\", f);
			break;
		case '\b':
			fputs("\\b", f);
			break;
		case '\f':
			fputs("\\f", f);
			break;
		case '\n':
			fputs("\\n", f);
			break;
		case '\r':
			fputs("\\r", f);
			break;
		case '\t':
			fputs("\\t", f);
			break;
		default:
			if (c < 0x20)
				fprintf(f, "\\u%04X", c);
			else
				fputc(c, f);
		}
	}
	fputc('"', f);
}

static int compare_keys(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* A line break and the indentation of depth, when pretty. */
static void newline(FILE *f, int flags, int depth)
{
	if (flags & JTEXT_PRETTY)
		fprintf(f, "\n%*s", 2 * depth, "");
}

static int put_value(FILE *f, const json_t *v, int flags, int depth);

static int put_object(FILE *f, const json_t *v, int flags, int depth)
{
	size_t n = json_object_size(v), i = 0;
	const char **keys;
	const char *key;
	json_t *member;
	int rc = 0;

	if (n == 0) {
		fputs("{}", f);
		return 0;
	}
	keys = malloc(n * sizeof *keys);
	if (!keys)
		return -1;
	json_object_foreach ((json_t *)v, key, member)
		keys[i++] = key;
	qsort(keys, n, sizeof *keys, compare_keys);
	fputc('{', f);
	for (i = 0; i < n && rc == 0; i++) {
		if (i > 0)
			fputc(',', f);
		newline(f, flags, depth + 1);
		put_string(f, keys[i], strlen(keys[i]));
		fputs(flags & JTEXT_PRETTY ? ": " : ":", f);
		rc = put_value(f, json_object_get(v, keys[i]), flags, depth + 1);
	}
	newline(f, flags, depth);
	fputc('}', f);
	free(keys);
	return rc;
}

static int put_array(FILE *f, const json_t *v, int flags, int depth)
{
	size_t n = json_array_size(v), i;
	int rc = 0;

	if (n == 0) {
		fputs("[]", f);
		return 0;
	}
	fputc('[', f);
	for (i = 0; i < n && rc == 0; i++) {
		if (i > 0)
			fputc(',', f);
		newline(f, flags, depth + 1);
		rc = put_value(f, json_array_get(v, i), flags, depth + 1);
	}
	newline(f, flags, depth);
	fputc(']', f);
	return rc;
}

static int put_value(FILE *f, const json_t *v, int flags, int depth)
{
	char real[JTEXT_REAL_MAX];

	switch (json_typeof(v)) {
	case JSON_OBJECT:
		return put_object(f, v, flags, depth);
	case JSON_ARRAY:
		return put_array(f, v, flags, depth);
	case JSON_STRING:
		put_string(f, json_string_value(v), json_string_length(v));
		return 0;
	case JSON_INTEGER:
		fprintf(f, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		return 0;
	case JSON_REAL:
		fputs(jtext_real(json_real_value(v), real), f);
		return 0;
	case JSON_TRUE:
		fputs("true", f);
		return 0;
	case JSON_FALSE:
		fputs("false", f);
		return 0;
	default:
		fputs("null", f);
		return 0;
	}
}

char *jtext_dump(const json_t *v, int flags)
{
	char *text = NULL;
	size_t size = 0;
	FILE *f;
	int rc;

	if (!v)
		return NULL;
	f = open_memstream(&text, &size);
	if (!f)
		return NULL;
	rc = put_value(f, v, flags, 0);
	/* fclose flushes: only now is text complete, or the stream's error known */
	if (fclose(f) != 0 || rc != 0) {
		free(text);
		return NULL;
	}
	return text;
}
