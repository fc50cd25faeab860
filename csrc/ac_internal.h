/* Private helpers shared by the core's C files. Not part of the public API. */
#ifndef AC_INTERNAL_H
#define AC_INTERNAL_H

#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

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

/* cond ? a : b as a bitwise blend. GCC does not if-convert floating-point
   selects under its default -ftrapping-math, which keeps piecewise loops from
   vectorizing; integer blends it does vectorize. */
static inline double ac_pick(int64_t cond, double a, double b)
{
    uint64_t ia, ib, mask = (uint64_t)0 - (uint64_t)(cond != 0), r;
    double out;
    memcpy(&ia, &a, sizeof ia);
    memcpy(&ib, &b, sizeof ib);
    r = (ia & mask) | (ib & ~mask);
    memcpy(&out, &r, sizeof out);
    return out;
}

/* Records a failure in *err (which may be NULL) and returns its status.
   `detail` is a printf format describing what the value must satisfy. */
ac_status ac_fail(ac_error *err, ac_status status, size_t index, const char *arg,
                  double value, const char *detail, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;

/* AC_OK when the count values at x are finite; otherwise records the first
   non-finite one against `arg` at element `index`. */
static inline ac_status ac_check_finite(const char *arg, const double *x, size_t count,
                                        size_t index, ac_error *err)
{
    for (size_t k = 0; k < count; k++)
        if (!ac_finite(x[k]))
            return ac_fail(err, AC_ERR_VALUE, index, arg, x[k], "must be finite");
    return AC_OK;
}

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

/* ------------------------------------------------------- cycle fold
   The one fold of cycling extrapolation, shared by every key track. */

/* Folds a finite t into the keys' span [lo, hi] (lo < hi, both finite) for
   "cycle", "cycle_offset" and "oscillate": t = lo + cycles * P + r with
   P = hi - lo and r in [0, P). Returns the local time lo + r, or hi - r in
   the odd (mirrored) cycles of oscillate, where *sign is -1 (else 1); *cycles
   is the cycle count (+-inf beyond the double range). fmod is exact, so r
   and the parity are exact for any t, and when hi - lo or t - lo overflow
   the same is done on halves (exact at such magnitudes). */
static inline double ac_cycle_fold(double t, double lo, double hi, int oscillate,
                                   double *cycles, double *sign)
{
    double h = ac_finite(hi - lo) && ac_finite(t - lo) ? 1.0 : 0.5;
    double P = hi * h - lo * h, x = t * h - lo * h, r = fmod(x, P), q, local;
    int odd;
    if (r < 0.0)
        r += P;
    if (r >= P) /* -tiny + P rounded up: the start of the next cycle */
        r = 0.0;
    *cycles = nearbyint((x - r) / P);
    if (ac_finite(2.0 * P)) {
        q = fmod(x, 2.0 * P);
        if (q < 0.0)
            q += 2.0 * P;
        odd = q >= P && q < 2.0 * P;
    } else { /* |x| <= DBL_MAX < 2P: x lies in [-2P, 2P) */
        odd = x >= 0.0 ? x >= P : x >= -P;
    }
    *sign = oscillate && odd ? -1.0 : 1.0;
    local = oscillate && odd ? (hi * h - r) / h : (lo * h + r) / h;
    return local > hi ? hi : local < lo ? lo : local;
}

/* ------------------------------------------------------- key search
   Shared by every domain that evaluates key tracks. */

/* The segment holding t in k >= 2 nondecreasing key times: the last i in
   [0, k-2] with times[i] <= t (so t before the first key gives 0, t at or after
   the last key gives k-2, and at equal times the right-hand segment wins).
   `hint` is a guess, e.g. the previous answer of a sorted sweep: a few steps
   forward from it are tried before a binary search, so sorted queries cost
   O(n + k) in total and unsorted ones O(log k) each. */
static inline size_t ac_segment_find(const double *times, size_t k, double t, size_t hint)
{
    size_t lo = 0, hi = k - 1; /* answer in [lo, hi) */
    if (hint < k - 1 && times[hint] <= t) {
        for (int step = 0; step < 8; step++, hint++)
            if (hint + 1 >= k - 1 || times[hint + 1] > t)
                return hint;
        lo = hint;
    } else if (hint < k - 1) {
        hi = hint + 1;
    }
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (times[mid] <= t)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* ------------------------------------------------ quaternion arithmetic
   Scalar building blocks shared by every domain that rotates (curves, root
   motion, snapshots). Quaternions are (x, y, z, w); inputs are assumed valid
   (callers validate), outputs may alias inputs. */

static inline double ac_quat_dot4(const double a[4], const double b[4])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
}

/* Hamilton product a * b (apply b first, then a). */
static inline void ac_quat_mul(const double a[4], const double b[4], double out[4])
{
    double x = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
    double y = a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0];
    double z = a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3];
    double w = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
    out[0] = x, out[1] = y, out[2] = z, out[3] = w;
}

static inline void ac_quat_conj(const double q[4], double out[4])
{
    out[0] = -q[0], out[1] = -q[1], out[2] = -q[2], out[3] = q[3];
}

/* x / |x| for n finite components, scaled first by the largest component so
   that no finite input overflows (1e200) or underflows (1e-170) on the way.
   Returns 0 and writes zeros for the zero vector. The one normalization of
   the core: every domain normalizes with it. */
static inline int ac_normalize(const double *x, size_t n, double *out)
{
    double m = 0.0, sum = 0.0, len;
    for (size_t k = 0; k < n; k++)
        m = fabs(x[k]) > m ? fabs(x[k]) : m;
    if (!(m > 0.0)) {
        for (size_t k = 0; k < n; k++)
            out[k] = 0.0;
        return 0;
    }
    for (size_t k = 0; k < n; k++)
        sum += (x[k] / m) * (x[k] / m);
    len = sqrt(sum); /* in [1, sqrt(n)] */
    for (size_t k = 0; k < n; k++)
        out[k] = (x[k] / m) / len;
    return 1;
}

/* Scales q to unit length (ac_normalize); 0 for the zero quaternion. */
static inline int ac_quat_normalize(const double q[4], double out[4])
{
    return ac_normalize(q, 4, out);
}

/* Rotates vector v by unit quaternion q: v + 2 w (u x v) + 2 u x (u x v). */
static inline void ac_quat_rotate(const double q[4], const double v[3], double out[3])
{
    double tx = 2.0 * (q[1] * v[2] - q[2] * v[1]);
    double ty = 2.0 * (q[2] * v[0] - q[0] * v[2]);
    double tz = 2.0 * (q[0] * v[1] - q[1] * v[0]);
    double x = v[0] + q[3] * tx + (q[1] * tz - q[2] * ty);
    double y = v[1] + q[3] * ty + (q[2] * tx - q[0] * tz);
    double z = v[2] + q[3] * tz + (q[0] * ty - q[1] * tx);
    out[0] = x, out[1] = y, out[2] = z;
}

/* sin(x) / x, accurate near 0. */
static inline double ac_sinc(double x)
{
    double x2 = x * x;
    return x2 < 1e-8 ? 1.0 - x2 / 6.0 : sin(x) / x;
}

/* Shortest-arc spherical interpolation of unit quaternions, t in [0, 1].
   The angle comes from atan2(|a - b|, |a + b|), which stays accurate for
   nearly equal inputs, and b is negated when a . b < 0 (q and -q are the
   same rotation). The result is renormalized. */
static inline void ac_quat_slerp(const double a[4], const double b[4], double t,
                                 double out[4])
{
    double c[4], diff = 0.0, sum = 0.0, half, wa, wb, r[4];
    double sign = ac_quat_dot4(a, b) < 0.0 ? -1.0 : 1.0;
    for (int k = 0; k < 4; k++) {
        c[k] = sign * b[k];
        diff += (a[k] - c[k]) * (a[k] - c[k]);
        sum += (a[k] + c[k]) * (a[k] + c[k]);
    }
    half = 2.0 * atan2(sqrt(diff), sqrt(sum)); /* angle between a and c in 4-D */
    /* sin((1-t) half) / sin(half) written with sinc so half -> 0 is exact lerp */
    wa = (1.0 - t) * ac_sinc((1.0 - t) * half) / ac_sinc(half);
    wb = t * ac_sinc(t * half) / ac_sinc(half);
    for (int k = 0; k < 4; k++)
        r[k] = wa * a[k] + wb * c[k];
    ac_quat_normalize(r, out);
}

#endif /* AC_INTERNAL_H */
