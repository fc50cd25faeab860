/* Private helpers shared by the core's C files. Not part of the public API. */
#ifndef AC_INTERNAL_H
#define AC_INTERNAL_H

#include <float.h>
#include <math.h>
#include <stddef.h>

#include "animcore.h"

/* Internal invariants only; bad input is reported through ac_error. */
#ifdef AC_DEBUG
#include <assert.h>
#define AC_ASSERT(cond) assert(cond)
#else
#define AC_ASSERT(cond) ((void)0)
#endif

/* True for finite x. Written as a comparison so that loops using it vectorize;
   NaN compares false. */
static inline int ac_finite(double x) { return fabs(x) <= DBL_MAX; }

/* Marks a function whose loops should be vectorized with AVX2 where the CPU
   has it: the x86-64 baseline (SSE2) lacks the 64-bit compares that the
   branch-free validity checks need. GCC and Clang build both versions and
   pick one at load time; results are bitwise identical (no FMA contraction). */
#if defined(__x86_64__) && defined(__linux__) && defined(__has_attribute) && \
    !defined(AC_NO_DISPATCH)
#if __has_attribute(target_clones)
#define AC_VECTORIZED __attribute__((target_clones("avx2", "default")))
#endif
#endif
#ifndef AC_VECTORIZED
#define AC_VECTORIZED
#endif

/* Records a failure in *err (which may be NULL) and returns its status.
   `detail` is a printf format describing what the value must satisfy. */
ac_status ac_fail(ac_error *err, ac_status status, size_t index, const char *arg,
                  double value, const char *detail, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;

/* Cubic Hermite on the unit interval: position and d(position)/du for end
   values p0, p1 and tangents m0, m1 (per unit u). Shared by every domain that
   evaluates Hermite segments so all of them agree to the last bit. */
static inline void ac_hermite_unit(double u, double p0, double m0, double p1, double m1,
                                   double *x, double *dxdu)
{
    double u2 = u * u, u3 = u2 * u;
    *x = (2.0 * u3 - 3.0 * u2 + 1.0) * p0 + (u3 - 2.0 * u2 + u) * m0
         + (-2.0 * u3 + 3.0 * u2) * p1 + (u3 - u2) * m1;
    *dxdu = (6.0 * u2 - 6.0 * u) * p0 + (3.0 * u2 - 4.0 * u + 1.0) * m0
            + (-6.0 * u2 + 6.0 * u) * p1 + (3.0 * u2 - 2.0 * u) * m1;
}

#endif /* AC_INTERNAL_H */
