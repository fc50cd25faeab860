/* Private helpers shared by the core's C files. Not part of the public API. */
#ifndef AC_INTERNAL_H
#define AC_INTERNAL_H

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
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

/* Forces inlining of a hot function: GCC keeps large bodies out of line
   otherwise, and an out-of-line copy is compiled for the baseline target,
   which cannot vectorize it. The one such macro of the core. */
#if defined(__GNUC__)
#define AC_FORCE_INLINE inline __attribute__((always_inline))
#else
#define AC_FORCE_INLINE inline
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

/* Allocation through an engine's allocator (see ac_allocator), or malloc
   and free when it is NULL or empty. The zeroed form checks count * size. */
static inline void *ac_mem_alloc(const ac_allocator *a, size_t size)
{
    return a && a->alloc ? a->alloc(size ? size : 1, a->user) : malloc(size ? size : 1);
}

static inline void *ac_mem_zeroed(const ac_allocator *a, size_t count, size_t size)
{
    size_t bytes = count * size;
    void *p = count && size > SIZE_MAX / count ? NULL : ac_mem_alloc(a, bytes);
    if (p && bytes > 0)
        memset(p, 0, bytes);
    return p;
}

static inline void ac_mem_release(const ac_allocator *a, void *p)
{
    if (!p)
        return;
    if (a && a->alloc)
        a->release(p, a->user);
    else
        free(p);
}

/* Records a failure in *err (which may be NULL) and returns its status.
   `detail` is a printf format describing what the value must satisfy. Inline
   here so that the library exports nothing beyond animcore.h. */
static inline ac_status ac_fail(ac_error *err, ac_status status, size_t index,
                                ac_arg arg, double value, const char *detail, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;

static inline ac_status ac_fail(ac_error *err, ac_status status, size_t index,
                                ac_arg arg, double value, const char *detail, ...)
{
    if (err) {
        va_list ap;
        err->status = status;
        err->index = index;
        err->arg = arg;
        err->value = value;
        err->reason = AC_REASON_NONE;
        err->limit[0] = err->limit[1] = 0.0;
        va_start(ap, detail);
        vsnprintf(err->detail, sizeof err->detail, detail, ap);
        va_end(ap);
    }
    return status;
}

/* Adds to a failure that ac_fail recorded the setting that caused it. */
static inline ac_status ac_because(ac_error *err, ac_reason reason, double a, double b,
                                   ac_status status)
{
    if (err) {
        err->reason = reason;
        err->limit[0] = a;
        err->limit[1] = b;
    }
    return status;
}

/* AC_OK when the count values at x are finite; otherwise records the first
   non-finite one against `arg` at element `index`. */
static inline ac_status ac_check_finite(ac_arg arg, const double *x, size_t count,
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

/* ------------------------------------------------------------ slerp
   The one slerp of the core: quat_slerp, linear rotation tracks, snapshot
   rotations and root-motion turns all call ac_quat_slerp_any, so they agree
   to the last bit. With a and c = +-b unit and a . c >= 0, D = |a - c| =
   2 sin(w/2) and S = |a + c| = 2 cos(w/2) for the 4-D angle w <= pi/2
   between them, so tan(w/4) = D / (2 + S) (as accurate as atan2(D, S) for
   nearly equal inputs); one more half-angle step gives tan(w/8) <=
   tan(pi/16), where a 13-term Taylor series of atan is exact to rounding,
   and the weights sin((1-t) w) / sin(w), sin(t w) / sin(w) come from a
   12-term Taylor series of sin(x)/x on [0, pi/2], exact at w = 0. No libm
   calls and no branches, so batch loops over it vectorize. */

/* sin(x)/x from z = x*x, |x| <= pi/2: Taylor terms to x^22 (the next is
   below 4e-21). */
static inline double ac_sinc_series(double z)
{
    double r = -1.0 / 25852016738884976640000.0;
    r = r * z + 1.0 / 51090942171709440000.0;
    r = r * z - 1.0 / 121645100408832000.0;
    r = r * z + 1.0 / 355687428096000.0;
    r = r * z - 1.0 / 1307674368000.0;
    r = r * z + 1.0 / 6227020800.0;
    r = r * z - 1.0 / 39916800.0;
    r = r * z + 1.0 / 362880.0;
    r = r * z - 1.0 / 5040.0;
    r = r * z + 1.0 / 120.0;
    r = r * z - 1.0 / 6.0;
    return r * z + 1.0;
}

/* atan(x) for |x| <= 0.2: Taylor terms to x^25 (the next is below 1e-19 x). */
static inline double ac_atan_series(double x)
{
    double z = x * x, r = 1.0 / 25.0;
    r = r * z - 1.0 / 23.0;
    r = r * z + 1.0 / 21.0;
    r = r * z - 1.0 / 19.0;
    r = r * z + 1.0 / 17.0;
    r = r * z - 1.0 / 15.0;
    r = r * z + 1.0 / 13.0;
    r = r * z - 1.0 / 11.0;
    r = r * z + 1.0 / 9.0;
    r = r * z - 1.0 / 7.0;
    r = r * z + 1.0 / 5.0;
    r = r * z - 1.0 / 3.0;
    return x * (r * z + 1.0);
}

/* 1/sqrt(x) for x in [1e-300, 1e300] by Newton's method from the classic
   bit-level estimate (relative error 3.4e-2, then 1.7e-3, 4.5e-6, 3e-11,
   below rounding): a few ulp, and no libm call, whose errno keeps GCC from
   vectorizing sqrt(). */
static inline double ac_rsqrt(double x)
{
    uint64_t bits;
    double y;
    memcpy(&bits, &x, sizeof bits);
    bits = UINT64_C(0x5FE6EB50C7B537A9) - (bits >> 1);
    memcpy(&y, &bits, sizeof y);
    for (int k = 0; k < 4; k++)
        y = y * (1.5 - 0.5 * x * y * y);
    return y;
}

/* sqrt(x) for x in [0, 1e300]; exactly 0 below 1e-300. */
static inline double ac_sqrt_small(double x)
{
    int64_t tiny = x < 1e-300;
    return ac_pick(tiny, 0.0, x * ac_rsqrt(ac_pick(tiny, 1.0, x)));
}

/* The part of a slerp that depends only on its two ends: both normalized,
   the second negated into the first one's hemisphere (a, c), the 4-D angle
   w between them and 1 / sinc(w). A rotation track computes it once per
   segment; ac_quat_slerp_any once per call. Returns 0 unless |x|^2 and |y|^2
   lie in [1e-200, 1e200]. */
typedef struct ac_slerp_arc {
    double a[4], c[4], w, inv;
} ac_slerp_arc;

static AC_FORCE_INLINE int64_t ac_slerp_arc_of(const double *x, const double *y,
                                               ac_slerp_arc *arc)
{
    double na = 0.0, nb = 0.0, d = 0.0, ia, ib, dd = 0.0, ss = 0.0, x1, x2, sign;
    int64_t ok;
    for (int k = 0; k < 4; k++) {
        arc->a[k] = x[k];
        arc->c[k] = y[k];
        na += arc->a[k] * arc->a[k];
        nb += arc->c[k] * arc->c[k];
    }
    ok = (na >= 1e-200) & (na <= 1e200) & (nb >= 1e-200) & (nb <= 1e200);
    ia = ac_rsqrt(ac_pick(ok, na, 1.0));
    ib = ac_rsqrt(ac_pick(ok, nb, 1.0));
    for (int k = 0; k < 4; k++) {
        arc->a[k] *= ia;
        arc->c[k] *= ib;
        d += arc->a[k] * arc->c[k];
    }
    sign = ac_pick(d < 0.0, -1.0, 1.0);
    for (int k = 0; k < 4; k++) {
        arc->c[k] *= sign;
        dd += (arc->a[k] - arc->c[k]) * (arc->a[k] - arc->c[k]);
        ss += (arc->a[k] + arc->c[k]) * (arc->a[k] + arc->c[k]);
    }
    x1 = ac_sqrt_small(dd) / (2.0 + ac_sqrt_small(ss)); /* tan(w/4) */
    x2 = x1 / (1.0 + ac_sqrt_small(1.0 + x1 * x1));    /* tan(w/8) */
    arc->w = 8.0 * ac_atan_series(x2);
    arc->inv = 1.0 / ac_sinc_series(arc->w * arc->w);
    return ok;
}

/* The point at u in [0, 1] along an arc. */
static AC_FORCE_INLINE void ac_slerp_arc_at(const ac_slerp_arc *arc, double u,
                                            double *restrict out)
{
    double r[4], nr = 0.0, w = arc->w;
    double wa = (1.0 - u) * ac_sinc_series((1.0 - u) * w * ((1.0 - u) * w)) * arc->inv;
    double wb = u * ac_sinc_series(u * w * (u * w)) * arc->inv;
    for (int k = 0; k < 4; k++) {
        r[k] = wa * arc->a[k] + wb * arc->c[k];
        nr += r[k] * r[k];
    }
    nr = ac_rsqrt(nr); /* in [1/2, 1] */
    for (int k = 0; k < 4; k++)
        out[k] = r[k] * nr;
}

/* The slerp of quaternions x, y of any length at u, normalizing both first.
   Returns 0 (and garbage in out) unless |x|^2 and |y|^2 lie in [1e-200,
   1e200] and u in [0, 1]: callers rescale extreme lengths exactly (by powers
   of two) and handle other u themselves. */
static AC_FORCE_INLINE int64_t ac_quat_slerp_any(const double *x, const double *y, double u,
                                                 double *restrict out)
{
    ac_slerp_arc arc;
    int64_t ok = ac_slerp_arc_of(x, y, &arc) & (u >= 0.0) & (u <= 1.0);
    ac_slerp_arc_at(&arc, u, out);
    return ok;
}

/* Shortest-arc spherical interpolation of unit quaternions a, b: the slerp
   above for t in [0, 1]. Extrapolation (t outside [0, 1], as snapshot
   playback uses) continues the same great circle at constant angular speed:
   the angle from the atan2 of |a - c| and |a + c|, accurate for nearly equal
   inputs, and the weights from sin. The result is renormalized. */
static inline void ac_quat_slerp(const double a[4], const double b[4], double t,
                                 double out[4])
{
    double c[4], diff = 0.0, sum = 0.0, half, sw, wa, wb, r[4], len;
    double sign = ac_quat_dot4(a, b) < 0.0 ? -1.0 : 1.0;
    if (t >= 0.0 && t <= 1.0) {
        ac_quat_slerp_any(a, b, t, out);
        return;
    }
    for (int k = 0; k < 4; k++) {
        c[k] = sign * b[k];
        diff += (a[k] - c[k]) * (a[k] - c[k]);
        sum += (a[k] + c[k]) * (a[k] + c[k]);
    }
    half = 2.0 * atan2(sqrt(diff), sqrt(sum)); /* angle between a and c in 4-D */
    sw = sin(half);
    wa = sw > 1e-8 ? sin((1.0 - t) * half) / sw : 1.0 - t;
    wb = sw > 1e-8 ? sin(t * half) / sw : t;
    for (int k = 0; k < 4; k++)
        r[k] = wa * a[k] + wb * c[k];
    len = sqrt(ac_quat_dot4(r, r));
    for (int k = 0; k < 4; k++)
        out[k] = len > 0.0 ? r[k] / len : r[k];
}

/* The 3x3 rotation matrix (row-major) of q / |q| for a finite non-zero q,
   without a square root: the entries scale by s = 2 / |q|^2. Returns 0 (and
   leaves m unset) when |q|^2 is 0 or not finite. */
static inline int ac_quat_matrix3(const double q[4], double m[9])
{
    double n = ac_quat_dot4(q, q), s, xs, ys, zs;
    if (!(n > 0.0 && n <= DBL_MAX))
        return 0;
    s = 2.0 / n;
    xs = q[0] * s, ys = q[1] * s, zs = q[2] * s;
    {
        double wx = q[3] * xs, wy = q[3] * ys, wz = q[3] * zs;
        double xx = q[0] * xs, xy = q[0] * ys, xz = q[0] * zs;
        double yy = q[1] * ys, yz = q[1] * zs, zz = q[2] * zs;
        m[0] = 1.0 - (yy + zz), m[1] = xy - wz, m[2] = xz + wy;
        m[3] = xy + wz, m[4] = 1.0 - (xx + zz), m[5] = yz - wx;
        m[6] = xz - wy, m[7] = yz + wx, m[8] = 1.0 - (xx + yy);
    }
    return 1;
}

#endif /* AC_INTERNAL_H */
