/*
 * jtext.c: the shortest round-tripping reals, and a JSON writer around them (jansson
 * cannot be told how to print one real, only with how many digits to print all).
 */
#include "base/jtext.h"

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef __SIZEOF_INT128__
/*
 * The digits without printf and strtod (the hot path of every sweep row): x = m * 2^E
 * is scaled by 10^s, taken from a table of 128-bit truncated powers of ten, into
 * y = x * 10^s with P digits before the point (P = 15, 16, 17). The product's error
 * is below a quarter of 2^-64 of y's unit, so y's integer part and the top 64 bits of
 * its fraction decide printf's rounding (half to even on the exact value) and whether
 * the digits read back as x (strtod's half-to-even rounding: the digits lie within
 * half the gap to x's neighbours), except within a few 2^-64 of a tie or of the gap's
 * edge: those few fall back to printf and strtod, the definition itself.
 */
typedef unsigned __int128 u128;

#define TENS_MIN (-300) /* s = P - 1 - e for every finite x, with room for the */
#define TENS_MAX 350    /* exponent guess being off by one */

/* 10^s ~ mant * 2^exp2, mant's top bit set, truncated (exact for 0 <= s <= 55) */
static struct {
	u128 mant;
	int exp2;
} tens[TENS_MAX - TENS_MIN + 1];
static pthread_once_t tens_once = PTHREAD_ONCE_INIT;

/* The top 128 bits of the number in limbs x[0..n) (least significant first, nonzero),
 * zeros appended below when it is shorter; *bits: its length in bits. */
static u128 top128(const uint64_t *x, int n, int *bits)
{
	int hi = n - 1, lz;
	uint64_t below;
	u128 top;

	while (x[hi] == 0)
		hi--;
	lz = __builtin_clzll(x[hi]);
	*bits = 64 * hi + 64 - lz;
	top = (u128)x[hi] << 64 | (hi >= 1 ? x[hi - 1] : 0);
	below = hi >= 2 ? x[hi - 2] : 0;
	return lz ? top << lz | below >> (64 - lz) : top;
}

/* The table, from exact integers: 10^s for s >= 0; for s = -k, 2^-k / 5^k from
 * floor(2^1024 / 5^k) (dividing by 5 k times: floors of floors are exact floors). */
static void tens_init(void)
{
	uint64_t big[20] = {1}, quotient[17] = {0};
	int n = 1, s, k, i, bits;

	for (s = 0; s <= TENS_MAX; s++) {
		u128 carry = 0;
		for (i = 0; s > 0 && i < n; i++) {
			u128 product = (u128)big[i] * 10 + carry;
			big[i] = (uint64_t)product;
			carry = product >> 64;
		}
		if (carry)
			big[n++] = (uint64_t)carry;
		tens[s - TENS_MIN].mant = top128(big, n, &bits);
		tens[s - TENS_MIN].exp2 = bits - 128;
	}
	quotient[16] = 1;
	for (k = 1; k <= -TENS_MIN; k++) {
		uint64_t rem = 0;
		for (i = 16; i >= 0; i--) {
			u128 cur = (u128)rem << 64 | quotient[i];
			quotient[i] = (uint64_t)(cur / 5);
			rem = (uint64_t)(cur % 5);
		}
		tens[-k - TENS_MIN].mant = top128(quotient, 17, &bits);
		tens[-k - TENS_MIN].exp2 = bits - 128 - 1024 - k;
	}
}

/* The 64 bits of the 192-bit p (least significant limb first) from bit n up. */
static uint64_t bits_at(const uint64_t p[3], int n)
{
	int limb = n / 64, off = n % 64;
	uint64_t low = p[limb], high = limb + 1 < 3 ? p[limb + 1] : 0;

	return off ? low >> off | high << (64 - off) : low;
}

static const uint64_t powers_of_ten[19] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000,
    100000000, 1000000000, 10000000000, 100000000000, 1000000000000, 10000000000000,
    100000000000000, 1000000000000000, 10000000000000000, 100000000000000000, 1000000000000000000};

static const char two_digits[] =
    "00010203040506070809101112131415161718192021222324252627282930313233"
    "34353637383940414243444546474849505152535455565758596061626364656667"
    "6869707172737475767778798081828384858687888990919293949596979899";

enum { DIGITS_UNDECIDED = -1, DIGITS_NO = 0, DIGITS_YES = 1 };

/*
 * The P significant digits of a = m * 2^E (> 0) as printf rounds them, in *digits,
 * and the decimal exponent of the first in *e (*e: a guess on entry, within one);
 * returns whether they read back as a (DIGITS_YES, DIGITS_NO: P < 17 only asked), or
 * DIGITS_UNDECIDED too near a tie or the gap's edge to tell.
 */
static int digits_of(uint64_t m, int E, int lower_closer, int P, uint64_t *digits, int *e)
{
	int tries, s, sh;
	uint64_t p[3], integer, frac, n;
	const uint64_t half = (uint64_t)1 << 63;
	u128 low, high, mid, dist, gap;
	int up;

	for (tries = 0; tries < 3; tries++) {
		s = P - 1 - *e;
		if (s < TENS_MIN || s > TENS_MAX)
			return DIGITS_UNDECIDED;
		low = (u128)m * (uint64_t)tens[s - TENS_MIN].mant;
		high = (u128)m * (uint64_t)(tens[s - TENS_MIN].mant >> 64);
		mid = (low >> 64) + (uint64_t)high;
		p[0] = (uint64_t)low;
		p[1] = (uint64_t)mid;
		p[2] = (uint64_t)((high >> 64) + (mid >> 64));
		/* y = p * 2^-sh; its integer part has at most 60 bits here */
		sh = -(E + tens[s - TENS_MIN].exp2);
		if (sh < 64 || sh > 190) /* (it is 67 to 138 here: a guard for the shifts) */
			return DIGITS_UNDECIDED;
		integer = bits_at(p, sh);
		if (sh + 64 < 192 && bits_at(p, sh + 64) != 0)
			return DIGITS_UNDECIDED;
		if (integer >= powers_of_ten[P])
			++*e; /* the guess was one low */
		else if (integer < powers_of_ten[P - 1])
			--*e; /* one high */
		else
			break;
	}
	if (tries == 3)
		return DIGITS_UNDECIDED;
	frac = bits_at(p, sh - 64);
	/* the true fraction is within [frac, frac + 1.25) (the table is truncated) */
	if (frac < half - 4)
		up = 0;
	else if (frac > half)
		up = 1;
	else
		return DIGITS_UNDECIDED;
	n = integer + (uint64_t)up;
	if (n == powers_of_ten[P]) {
		/* rounds up to 10^P: printf's text is 1 and zeros, one exponent up */
		n = powers_of_ten[P - 1];
		++*e;
	}
	*digits = n;
	if (P == 17)
		return DIGITS_YES; /* 17 digits always read back */
	/* half the gap to the neighbour on the digits' side, in 2^-64 of y's unit */
	gap = tens[s - TENS_MIN].mant >> (sh - 63);
	if (!up && lower_closer)
		gap >>= 1;
	dist = up ? ((u128)1 << 64) - frac : frac;
	if (dist + 4 < gap)
		return DIGITS_YES;
	if (dist > gap + 4)
		return DIGITS_NO;
	return DIGITS_UNDECIDED;
}

/*
 * x (finite, nonzero) as printf's "%.Pg" writes it for the first P of 15, 16, 17 that
 * strtod reads back (json: as jtext_real spells it instead: no '+' nor leading zeros in
 * the exponent, ".0" after an integer) at out; returns 0 when undecided (printf's turn).
 */
static int fast_shortest(double x, int json, char *out)
{
	uint64_t bits, m, digits = 0;
	uint32_t low8, high;
	int biased, E, e, guess, P, i, n, verdict = DIGITS_NO;
	char text[17];

	pthread_once(&tens_once, tens_init);
	memcpy(&bits, &x, sizeof bits);
	biased = (int)(bits >> 52 & 0x7ff);
	m = bits & (((uint64_t)1 << 52) - 1);
	if (biased) {
		m |= (uint64_t)1 << 52;
		E = biased - 1075;
	} else {
		E = -1074;
	}
	/* floor(log10(2) * floor(log2 x)): the decimal exponent or one below it */
	guess = (E + 63 - __builtin_clzll(m)) * 78913;
	guess = guess >= 0 ? guess >> 18 : -((-guess + (1 << 18) - 1) >> 18);
	for (P = 15; P <= 17 && verdict == DIGITS_NO; P++) {
		e = guess;
		verdict = digits_of(m, E, biased > 1 && m == (uint64_t)1 << 52, P, &digits, &e);
		if (verdict == DIGITS_UNDECIDED)
			return 0;
	}
	P--;
	/* two digits a division, the last eight and the first seven to nine in two
	 * independent chains of 32-bit divisions */
	low8 = (uint32_t)(digits % 100000000);
	high = (uint32_t)(digits / 100000000);
	for (i = P; i > P - 8; i -= 2) {
		memcpy(text + i - 2, two_digits + 2 * (low8 % 100), 2);
		low8 /= 100;
	}
	for (; i > 1; i -= 2) {
		memcpy(text + i - 2, two_digits + 2 * (high % 100), 2);
		high /= 100;
	}
	if (i == 1)
		text[0] = (char)('0' + high);
	/* printf's %g: trailing zeros dropped, an exponent outside [-4, P) */
	for (n = P; n > 1 && text[n - 1] == '0'; n--)
		;
	if (x < 0)
		*out++ = '-';
	if (e < -4 || e >= P) {
		*out++ = text[0];
		if (n > 1) {
			*out++ = '.';
			memcpy(out, text + 1, (size_t)(n - 1));
			out += n - 1;
		}
		*out++ = 'e';
		if (e < 0) {
			*out++ = '-';
			e = -e;
		} else if (!json) {
			*out++ = '+';
		}
		/* printf: at least two exponent digits; JSON (jansson): no leading zeros */
		if (e >= 100)
			*out++ = (char)('0' + e / 100);
		if (e >= 10 || !json)
			*out++ = (char)('0' + e / 10 % 10);
		*out++ = (char)('0' + e % 10);
	} else if (e < 0) {
		*out++ = '0';
		*out++ = '.';
		for (i = -1; i > e; i--)
			*out++ = '0';
		memcpy(out, text, (size_t)n);
		out += n;
	} else {
		memcpy(out, text, (size_t)e + 1);
		out += e + 1;
		if (n > e + 1) {
			*out++ = '.';
			memcpy(out, text + e + 1, (size_t)(n - e - 1));
			out += n - e - 1;
		} else if (json) {
			*out++ = '.';
			*out++ = '0';
		}
	}
	*out = '\0';
	return 1;
}
#else
static int fast_shortest(double x, int json, char *out)
{
	(void)x, (void)json, (void)out;
	return 0;
}
#endif

/* The definition: the first of "%.15g", "%.16g", "%.17g" that strtod reads back. */
static char *printf_shortest(double x, char buf[JTEXT_REAL_MAX])
{
	int digits;

	/* 17 significant digits always round-trip a double; fewer often do */
	for (digits = 15; digits < 17; digits++) {
		snprintf(buf, JTEXT_REAL_MAX, "%.*g", digits, x);
		if (strtod(buf, NULL) == x)
			return buf;
	}
	snprintf(buf, JTEXT_REAL_MAX, "%.17g", x);
	return buf;
}

char *jtext_shortest(double x, char buf[JTEXT_REAL_MAX])
{
	if (x == 0)
		return strcpy(buf, signbit(x) ? "-0" : "0");
	if (isfinite(x) && fast_shortest(x, 0, buf))
		return buf;
	return printf_shortest(x, buf);
}

char *jtext_real(double x, char buf[JTEXT_REAL_MAX])
{
	char *e, *digits, *end;

	if (x != 0 && isfinite(x) && fast_shortest(x, 1, buf))
		return buf;
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

int jtext_put_scalar(FILE *f, const json_t *v)
{
	char real[JTEXT_REAL_MAX];

	switch (json_typeof(v)) {
	case JSON_INTEGER:
		fprintf(f, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		return 1;
	case JSON_REAL:
		fputs(jtext_real(json_real_value(v), real), f);
		return 1;
	case JSON_TRUE:
		fputs("true", f);
		return 1;
	case JSON_FALSE:
		fputs("false", f);
		return 1;
	default:
		return 0;
	}
}

static int put_value(FILE *f, const json_t *v, int flags, int depth)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT:
		return put_object(f, v, flags, depth);
	case JSON_ARRAY:
		return put_array(f, v, flags, depth);
	case JSON_STRING:
		put_string(f, json_string_value(v), json_string_length(v));
		return 0;
	default:
		if (!jtext_put_scalar(f, v))
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

char *jtext_line(const json_t *v)
{
	char *text = jtext_dump(v, 0);
	size_t len;
	char *line;

	if (!text)
		return NULL;
	len = strlen(text);
	line = realloc(text, len + 2);
	if (!line) {
		free(text);
		return NULL;
	}
	line[len] = '\n';
	line[len + 1] = '\0';
	return line;
}
