/*
 * testlib.h: helpers several test programs share, header-only (static inline), so a test
 * lists no extra source and a helper it does not call costs nothing.
 *
 * SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number generators", 2014):
 * a fixed sequence from a seed, the same on every platform, so a randomised test's failure
 * reproduces. Each test keeps its own state (a uint64_t it seeds) and passes it by pointer.
 */
#ifndef CONTACTD_TESTS_TESTLIB_H
#define CONTACTD_TESTS_TESTLIB_H

#include <stdint.h>

/* The next 64 random bits of the sequence *state; advances *state. */
static inline uint64_t tl_splitmix64(uint64_t *state)
{
	uint64_t z = (*state += UINT64_C(0x9E3779B97F4A7C15));

	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

/* Uniform in [0, 1), with 53 random bits: every value a multiple of 2^-53. */
static inline double tl_uniform(uint64_t *state)
{
	return (double)(tl_splitmix64(state) >> 11) / 9007199254740992.0;
}

/* Uniform in [lo, hi). */
static inline double tl_between(uint64_t *state, double lo, double hi)
{
	return lo + (hi - lo) * tl_uniform(state);
}

#endif
