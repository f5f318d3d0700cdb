/*
 * lanes512.c: the lanes 8 to a vector, for processors with AVX-512 (lanes.c chooses
 * them at run time). The same kernel as lanes.c's (lanes_kernel.h), so the same
 * operations per lane: AVX-512 without FMA, and no contraction.
 */
#include "core/lanes.h"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__linux__)
#pragma GCC optimize("fp-contract=off")
/* the vector helpers are static: no other object file sees their calling convention */
#pragma GCC diagnostic ignored "-Wpsabi"

#include <math.h>
#include <stdint.h>
#include <string.h>


#pragma GCC target("avx512f,avx512vl,avx512dq,no-fma")

#define LANES 8
#define KERNEL_NAME core_lanes_drop8
#define KERNEL_ATTR
#include "core/lanes_kernel.h"
#endif
