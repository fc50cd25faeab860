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
#define AC_PI 3.14159265358979323846

static inline int ac_finite(double x) { return fabs(x) <= DBL_MAX; }

/* Marks a function whose loops should be vectorized with AVX2 where the CPU
   has it: the x86-64 baseline (SSE2) lacks the 64-bit compares that the
   branch-free validity checks need. GCC and Clang build both versions and
   pick one at load time; results are bitwise identical (no FMA contraction). */
#if defined(__x86_64__) && defined(__linux__) && defined(__has_attribute) && \
    !defined(AC_NO_DISPATCH)
#if __has_attribute(target_clones)
#define AC_VECTORIZED __attribute__((target_clones("avx2", "default")))
/* The same with an AVX-512F version too, for a loop whose long chains of
   dependent operations (series, Newton steps) take as long on twice the
   lanes: sampling a linear rotation track ran 2x faster with it. */
#define AC_VECTORIZED_WIDE __attribute__((target_clones("avx512f", "avx2", "default")))
#endif
#endif
#ifndef AC_VECTORIZED
#define AC_VECTORIZED
#define AC_VECTORIZED_WIDE
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

/* True when every x[0..n) lies no further than `below` under lo and `above`
   over hi (NaN fails): the proof of success of a kernel whose only failure
   is an argument out of range. It compares distances, lo - x <= below and
   x - hi <= above, rather than x against lo - below, which could overflow;
   a difference has the sign of the comparison, so with no reach it is
   exactly lo <= x <= hi. Branch-free, so that it vectorizes in an
   AC_VECTORIZED caller. A pass that only reads is bound by how many cache
   lines are on their way at once, so it walks eight parts of x side by
   side: eight streams of loads instead of one (80 MB read 1.6-1.9x faster,
   and no slower in cache). */
static inline int ac_all_within_reach(const double *x, size_t n, double lo, double hi,
                                      double below, double above)
{
    enum { PARTS = 8 };
    const size_t part = n / PARTS;
    int64_t ok = 1;
    for (size_t i = 0; i < part; i++)
        for (size_t k = 0; k < PARTS; k++)
            ok &= (lo - x[k * part + i] <= below) & (x[k * part + i] - hi <= above);
    for (size_t i = PARTS * part; i < n; i++)
        ok &= (lo - x[i] <= below) & (x[i] - hi <= above);
    return ok != 0;
}

/* True when every x[0..n) lies in [lo, hi] (NaN fails). */
static inline int ac_all_within(const double *x, size_t n, double lo, double hi)
{
    return ac_all_within_reach(x, n, lo, hi, 0.0, 0.0);
}

/* True when test(items, i) holds for every i in [0, count), walked as
   ac_all_within_reach walks values: eight parts side by side. `test` is a
   constant at every call site, so it is inlined and the loop vectorizes. */
typedef int64_t (*ac_item_test)(const void *items, size_t i);
static AC_FORCE_INLINE int ac_all_items(const void *items, size_t count, ac_item_test test)
{
    enum { PARTS = 8 };
    const size_t part = count / PARTS;
    int64_t ok = 1;
    for (size_t i = 0; i < part; i++)
        for (size_t k = 0; k < PARTS; k++)
            ok &= test(items, k * part + i);
    for (size_t i = PARTS * part; i < count; i++)
        ok &= test(items, i);
    return ok != 0;
}

/* True when every value of n items of `width` values (step 1), or of the
   one item they share (step 0), lies in [-bound, bound] (NaN fails). */
static inline int ac_items_within(const double *x, size_t width, size_t step, size_t n,
                                  double bound)
{
    return ac_all_within(x, width * (step ? n : 1), -bound, bound);
}

/* True when every value of x[0..n) and of y[0..n) lies in [-bound, bound]
   (NaN fails), the two read side by side: two streams of loads, which
   measured faster than eight parts of each (64 MB: 1.9 ms against 2.3),
   4 KB of each at a time with the next 4 KB asked for (64 MB: 4.3 ms against
   7.5 without, on a host where memory is slower). The prefetches stay out
   of the loop that tests, so that it vectorizes (with them inside it did
   not: 5.2 ms against 3.6 on a host without AVX-512). */
static inline int ac_pair_within(const double *x, const double *y, size_t n, double bound)
{
    enum { RUN = 512 };
    int64_t ok = 1;
    size_t i = 0;
    for (; i + RUN <= n; i += RUN) {
        for (size_t k = i; k < i + RUN; k += 8) {
            __builtin_prefetch(x + k + RUN);
            __builtin_prefetch(y + k + RUN);
        }
        for (size_t k = i; k < i + RUN; k++)
            ok &= (fabs(x[k]) <= bound) & (fabs(y[k]) <= bound);
    }
    for (; i < n; i++)
        ok &= (fabs(x[i]) <= bound) & (fabs(y[i]) <= bound);
    return ok != 0;
}

/* True when every value of two inputs of `width` values per item, each
   holding n items (step 1) or one item they share (step 0), lies in
   [-bound, bound] (NaN fails): the proof of a product's check. */
static inline int ac_pairs_within(const double *a, const double *b, size_t width,
                                  const size_t s[2], size_t n, double bound)
{
    if (s[0] && s[1])
        return ac_pair_within(a, b, width * n, bound);
    return ac_items_within(a, width, s[0], n, bound) && ac_items_within(b, width, s[1], n, bound);
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
   and the parity are exact for any t (the parity read from fmod's own
   result, before any sum that rounds), and when hi - lo or t - lo overflow
   the same is done on halves (exact at such magnitudes). */
static inline double ac_cycle_fold(double t, double lo, double hi, int oscillate,
                                   double *cycles, double *sign)
{
    double h = ac_finite(hi - lo) && ac_finite(t - lo) ? 1.0 : 0.5;
    double P = hi * h - lo * h, x = t * h - lo * h, r = fmod(x, P), q, local;
    int odd, next;
    if (r < 0.0)
        r += P;
    next = r >= P; /* -tiny + P rounded up: the start of the next cycle */
    if (next)
        r = 0.0;
    *cycles = nearbyint((x - r) / P);
    /* the parity of floor(x / P): q = x mod 2P in (-2P, 2P), exact (when 2P
       overflows, |x| <= DBL_MAX < 2P: x itself) */
    q = ac_finite(2.0 * P) ? fmod(x, 2.0 * P) : x;
    odd = (q >= 0.0 ? q >= P : q >= -P) != next;
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
    double m = 0.0, sum = 0.0, len, s;
    int64_t ok;
    for (size_t k = 0; k < n; k++)
        m = ac_pick(fabs(x[k]) > m, fabs(x[k]), m);
    /* selects rather than an early return for 0, so that loops of it vectorize */
    ok = m > 0.0;
    s = ac_pick(ok, m, 1.0);
    for (size_t k = 0; k < n; k++)
        sum += (x[k] / s) * (x[k] / s);
    len = sqrt(sum); /* in [1, sqrt(n)] */
    for (size_t k = 0; k < n; k++)
        out[k] = ac_pick(ok, (x[k] / s) / len, 0.0);
    return (int)ok;
}

/* |x| for n components, scaled first by the largest component (as
   ac_normalize) so that no finite input overflows or underflows on the way;
   the largest |component| itself when it is 0, inf or nan. The one scaled
   length of the core. */
static inline double ac_length(const double *x, size_t n)
{
    double m = 0.0, sum = 0.0;
    for (size_t k = 0; k < n; k++)
        m = fabs(x[k]) > m ? fabs(x[k]) : m;
    if (!(m > 0.0) || !ac_finite(m))
        return m;
    for (size_t k = 0; k < n; k++)
        sum += (x[k] / m) * (x[k] / m);
    return m * sqrt(sum);
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

/* atan2(y, x) within a few ulp of the libm's, with its signs: the angle of
   (|x|, |y|) folded to [0, pi/4] (its tangent min / max; 0 at the origin),
   halved twice by tan(w/2) = t / (1 + sqrt(1 + t^2)) into ac_atan_series's
   range, then unfolded (pi/2 - w above the diagonal, pi - w for x < 0 or
   x = -0) and given y's sign. On a diagonal w is pi/4 itself, so that the
   angles of the axes, the diagonals, the origin and the infinities are the
   libm's exactly. Selects, not branches, so that batch loops vectorize
   (with the same bits in every lane width). */
static inline double ac_atan2_series(double y, double x)
{
    const double pi = AC_PI, ax = fabs(x), ay = fabs(y);
    const int64_t steep = ay > ax;
    const double lo = ac_pick(steep, ax, ay), hi = ac_pick(steep, ay, ax);
    double t = lo / ac_pick(hi > 0.0, hi, 1.0), w;
    uint64_t left; /* x's sign bit (signbit() keeps GCC's loops from vectorizing) */
    memcpy(&left, &x, sizeof left);
    for (int k = 0; k < 2; k++)
        t = t / (1.0 + sqrt(1.0 + t * t));
    w = ac_pick((lo == hi) & (hi > 0.0), 0.25 * pi, 4.0 * ac_atan_series(t));
    w = ac_pick(steep, 0.5 * pi - w, w);
    w = ac_pick((int64_t)(left >> 63), pi - w, w);
    return copysign(w, y);
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

/* The parts of ac_slerp_arc_of, for a track that keeps each key's part
   once: x scaled to unit length as the slerp scales it (when `ok`, that is
   when both ends' |x|^2 are in range)... */
static AC_FORCE_INLINE void ac_slerp_arc_unit(const double *x, int64_t ok, double *a)
{
    double na = 0.0, ia;
    for (int k = 0; k < 4; k++)
        na += x[k] * x[k];
    ia = ac_rsqrt(ac_pick(ok, na, 1.0));
    for (int k = 0; k < 4; k++)
        a[k] = x[k] * ia;
}

/* ... the sign that brings unit c into unit a's hemisphere ... */
static AC_FORCE_INLINE double ac_slerp_arc_sign(const double *a, const double *c)
{
    double d = 0.0;
    for (int k = 0; k < 4; k++)
        d += a[k] * c[k];
    return ac_pick(d < 0.0, -1.0, 1.0);
}

/* ... and the angle w and 1 / sinc(w) of arc->a and arc->c (in one
   hemisphere). */
static AC_FORCE_INLINE void ac_slerp_arc_angle(ac_slerp_arc *arc)
{
    double dd = 0.0, ss = 0.0, x1, x2;
    for (int k = 0; k < 4; k++) {
        dd += (arc->a[k] - arc->c[k]) * (arc->a[k] - arc->c[k]);
        ss += (arc->a[k] + arc->c[k]) * (arc->a[k] + arc->c[k]);
    }
    x1 = ac_sqrt_small(dd) / (2.0 + ac_sqrt_small(ss)); /* tan(w/4) */
    x2 = x1 / (1.0 + ac_sqrt_small(1.0 + x1 * x1));    /* tan(w/8) */
    arc->w = 8.0 * ac_atan_series(x2);
    arc->inv = 1.0 / ac_sinc_series(arc->w * arc->w);
}

static AC_FORCE_INLINE int64_t ac_slerp_arc_of(const double *x, const double *y,
                                               ac_slerp_arc *arc)
{
    double na = 0.0, nb = 0.0, sign;
    int64_t ok;
    for (int k = 0; k < 4; k++) {
        na += x[k] * x[k];
        nb += y[k] * y[k];
    }
    ok = (na >= 1e-200) & (na <= 1e200) & (nb >= 1e-200) & (nb <= 1e200);
    ac_slerp_arc_unit(x, ok, arc->a);
    ac_slerp_arc_unit(y, ok, arc->c);
    sign = ac_slerp_arc_sign(arc->a, arc->c);
    for (int k = 0; k < 4; k++)
        arc->c[k] *= sign;
    ac_slerp_arc_angle(arc);
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
   without a square root: the entries scale by s = 2 / |q|^2. Returns 0 (m
   then holds garbage) when |q|^2 is not finite or below 2^-960, where the
   squares of its components lose bits as subnormals and s can overflow
   (callers rescale such a q first). Branch-free, so that loops of it
   vectorize. */
static inline int ac_quat_matrix3(const double q[4], double m[9])
{
    const double n = ac_quat_dot4(q, q), s = 2.0 / n;
    const double xs = q[0] * s, ys = q[1] * s, zs = q[2] * s;
    const double wx = q[3] * xs, wy = q[3] * ys, wz = q[3] * zs;
    const double xx = q[0] * xs, xy = q[0] * ys, xz = q[0] * zs;
    const double yy = q[1] * ys, yz = q[1] * zs, zz = q[2] * zs;
    m[0] = 1.0 - (yy + zz), m[1] = xy - wz, m[2] = xz + wy;
    m[3] = xy + wz, m[4] = 1.0 - (xx + zz), m[5] = yz - wx;
    m[6] = xz - wy, m[7] = yz + wx, m[8] = 1.0 - (xx + yy);
    return (n >= 0x1p-960) & (n <= DBL_MAX);
}


/* ------------------------------------------------------------ SIMD
   The one place of explicit vector code: 8 lanes of float64 for the kernels
   where `python -m animcore bench rotations` shows it pays (quaternion
   products, rotations and slerp over interleaved (x, y, z, w) items). On
   x86-64 with GCC or Clang it is compiled for AVX-512F only (AC_SIMD_FN) and
   a kernel takes it when ac_simd_available() says the CPU has it, so the
   build's baseline stays plain x86-64; elsewhere AC_SIMD is undefined and
   only the scalar code exists. Each lane does the IEEE operations of the
   scalar helper it mirrors, in the same order, so a result never depends on
   the path: the scalar code stays the definition. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(AC_NO_DISPATCH)
#define AC_SIMD 1
#include <immintrin.h>

#define AC_LANES 8
#define AC_SIMD_KERNEL __attribute__((target("avx512f"))) static /* a loop over lanes */
#define AC_SIMD_FN AC_SIMD_KERNEL AC_FORCE_INLINE               /* a helper it inlines */

typedef double ac_vd __attribute__((vector_size(64)));
typedef int64_t ac_vm __attribute__((vector_size(64))); /* lane masks: -1 or 0 */
typedef uint64_t ac_vu __attribute__((vector_size(64)));

static inline int ac_simd_available(void) { return __builtin_cpu_supports("avx512f"); }

AC_SIMD_FN ac_vd ac_vd_splat(double x) { return (ac_vd)_mm512_set1_pd(x); }

/* cond ? a : b per lane */
AC_SIMD_FN ac_vd ac_vd_pick(ac_vm cond, ac_vd a, ac_vd b)
{
    return (ac_vd)((cond & (ac_vm)a) | (~cond & (ac_vm)b));
}

AC_SIMD_FN ac_vd ac_vd_abs(ac_vd x) { return (ac_vd)((ac_vu)x & (ac_vu)_mm512_set1_epi64(INT64_MAX)); }

AC_SIMD_FN ac_vd ac_vd_sqrt(ac_vd x) { return (ac_vd)_mm512_sqrt_pd((__m512d)x); }

/* n values p[i * step] (step 0: one value repeated) as lanes. */
AC_SIMD_FN ac_vd ac_vd_load1(const double *p, size_t step)
{
    return step ? (ac_vd)_mm512_loadu_pd(p) : ac_vd_splat(p[0]);
}

AC_SIMD_FN int ac_vm_any(ac_vm m) { return _mm512_test_epi64_mask((__m512i)m, (__m512i)m) != 0; }

/* a / b correctly rounded, from y = 1 / b correctly rounded, without a
   division: two corrections by the residual a - b q, exact in an FMA
   (Markstein's theorem: the second starts within an ulp, so it rounds to
   a / b). Holds for a = 0, or |a| >= 2^-900 with b, y and a / b normal, where
   no residual underflows; callers check those bounds. */
AC_SIMD_FN ac_vd ac_vd_div_by(ac_vd a, ac_vd b, ac_vd y)
{
    __m512d q0 = _mm512_mul_pd((__m512d)a, (__m512d)y), q = q0;
    for (int k = 0; k < 2; k++)
        q = _mm512_fmadd_pd(_mm512_fnmadd_pd((__m512d)b, q, (__m512d)a), (__m512d)y, q);
    return ac_vd_pick((ac_vm)(a == 0.0), (ac_vd)q0, (ac_vd)q); /* the sign of a zero */
}

#define AC_IDX(a, b, c, d, e, f, g, h) _mm512_set_epi64(h, g, f, e, d, c, b, a)

/* The 4 values of item 2k in the low half of r[k] and of item 2k + 1 in
   its high half, as 4 vectors of lanes. */
AC_SIMD_FN void ac_vd_untangle4(const __m512d r[4], ac_vd v[4])
{
    __m512d t[4];
    for (int k = 0; k < 4; k += 2) { /* x y of 4 items | z w of 4 items */
        t[k] = _mm512_permutex2var_pd(r[k], AC_IDX(0, 4, 8, 12, 1, 5, 9, 13), r[k + 1]);
        t[k + 1] = _mm512_permutex2var_pd(r[k], AC_IDX(2, 6, 10, 14, 3, 7, 11, 15), r[k + 1]);
    }
    v[0] = (ac_vd)_mm512_permutex2var_pd(t[0], AC_IDX(0, 1, 2, 3, 8, 9, 10, 11), t[2]);
    v[1] = (ac_vd)_mm512_permutex2var_pd(t[0], AC_IDX(4, 5, 6, 7, 12, 13, 14, 15), t[2]);
    v[2] = (ac_vd)_mm512_permutex2var_pd(t[1], AC_IDX(0, 1, 2, 3, 8, 9, 10, 11), t[3]);
    v[3] = (ac_vd)_mm512_permutex2var_pd(t[1], AC_IDX(4, 5, 6, 7, 12, 13, 14, 15), t[3]);
}

/* Item i of each of AC_LANES items (4 values each, `step` items apart: 0
   repeats one item) as 4 vectors of lanes, and back. */
AC_SIMD_FN void ac_vd_load4(const double *p, size_t step, ac_vd v[4])
{
    __m512d r[4];
    if (!step) {
        for (int k = 0; k < 4; k++)
            v[k] = ac_vd_splat(p[k]);
        return;
    }
    for (int k = 0; k < 4; k++)
        r[k] = _mm512_loadu_pd(p + 8 * k);
    ac_vd_untangle4(r, v);
}

/* 4 vectors of lanes as AC_LANES items of 4 values, in memory order: the
   8 values of out[k] go to p + 8 k. */
AC_SIMD_FN void ac_vd_interleave4(const ac_vd v[4], ac_vd out[4])
{
    __m512d t[4];
    t[0] = _mm512_permutex2var_pd((__m512d)v[0], AC_IDX(0, 1, 2, 3, 8, 9, 10, 11), (__m512d)v[1]);
    t[2] = _mm512_permutex2var_pd((__m512d)v[0], AC_IDX(4, 5, 6, 7, 12, 13, 14, 15), (__m512d)v[1]);
    t[1] = _mm512_permutex2var_pd((__m512d)v[2], AC_IDX(0, 1, 2, 3, 8, 9, 10, 11), (__m512d)v[3]);
    t[3] = _mm512_permutex2var_pd((__m512d)v[2], AC_IDX(4, 5, 6, 7, 12, 13, 14, 15), (__m512d)v[3]);
    for (int k = 0; k < 4; k += 2) {
        out[k] = (ac_vd)_mm512_permutex2var_pd(t[k], AC_IDX(0, 4, 8, 12, 1, 5, 9, 13), t[k + 1]);
        out[k + 1] = (ac_vd)_mm512_permutex2var_pd(t[k], AC_IDX(2, 6, 10, 14, 3, 7, 11, 15), t[k + 1]);
    }
}

AC_SIMD_FN void ac_vd_store4(double *p, const ac_vd v[4])
{
    ac_vd o[4];
    ac_vd_interleave4(v, o);
    for (int k = 0; k < 4; k++)
        _mm512_storeu_pd(p + 8 * k, (__m512d)o[k]);
}

/* Lane l of the `width` (3 or 4) vectors v as the row p + l * stride, for
   rows that are not packed (a node's values in an array of poses): each
   row written by one (masked) store, with no round trip through memory. */
AC_SIMD_FN void ac_vd_store_rows(double *p, size_t stride, const ac_vd *v, int width)
{
    const ac_vd rows[4] = {v[0], v[1], v[2], width == 4 ? v[3] : ac_vd_splat(0.0)};
    const __mmask8 mask = width == 4 ? 0x0F : 0x07;
    ac_vd o[4];
    ac_vd_interleave4(rows, o); /* o[k]: lanes 2k and 2k + 1, 4 values each */
    for (int k = 0; k < 4; k++) {
        _mm512_mask_storeu_pd(p + (size_t)(2 * k) * stride, mask, (__m512d)o[k]);
        _mm512_mask_storeu_pd(p + (size_t)(2 * k + 1) * stride, mask,
                              _mm512_castpd256_pd512(_mm512_extractf64x4_pd((__m512d)o[k], 1)));
    }
}

/* Writing a long contiguous run of results past the caches (non-temporal
   stores): a run of a megabyte or more is not read again soon, and ordinary
   stores would first read every line they fill. Such stores need whole
   aligned cache lines, and NumPy's arrays start 16 or 48 bytes into one, so
   each line written joins the last `shift` values of one vector with the
   first 8 - shift of the next; the partial lines at both ends are written
   with masked ordinary stores, which leave the neighbours' values alone.
   Usage: ac_stream_begin, one ac_stream_put per 8 values in order, then
   ac_stream_end (the tail, and the fence that orders these stores before
   the caller's next ones). */
#define AC_STREAM_BYTES (1 << 20)
typedef struct ac_stream {
    double *line;   /* the aligned line the next put completes */
    __m512d last;   /* the previous put's values */
    __m512i join;   /* lanes of (last, next) that make the line */
    unsigned shift; /* values of the run's first line before it (0..7) */
    int started;
} ac_stream;

AC_SIMD_FN void ac_stream_begin(ac_stream *s, double *p)
{
    s->shift = (unsigned)(((uintptr_t)p % 64) / sizeof(double));
    s->line = p - s->shift;
    s->join = _mm512_add_epi64(_mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0),
                               _mm512_set1_epi64(8 - (long long)s->shift));
    s->last = _mm512_setzero_pd();
    s->started = 0;
}

AC_SIMD_FN void ac_stream_put(ac_stream *s, ac_vd v)
{
    __m512d line = _mm512_permutex2var_pd(s->last, s->join, (__m512d)v);
    if (!s->started) /* the run's first line: only from p on */
        _mm512_mask_storeu_pd(s->line, (__mmask8)(0xFFu << s->shift), line);
    else
        _mm512_stream_pd(s->line, line);
    s->started = 1;
    s->line += 8;
    s->last = (__m512d)v;
}

AC_SIMD_FN void ac_stream_end(ac_stream *s)
{
    if (s->shift && s->started) /* the last `shift` values start the next line */
        _mm512_mask_storeu_pd(s->line, (__mmask8)((1u << s->shift) - 1u),
                              _mm512_permutex2var_pd(s->last, s->join, s->last));
    _mm_sfence();
}

/* Asks for the cache lines `ahead` bytes past p (and the 3 after), for
   loops whose loads the hardware prefetcher does not keep up with. */
AC_SIMD_FN void ac_prefetch4(const double *p, size_t ahead)
{
    const char *c = (const char *)p + ahead;
    for (int k = 0; k < 4; k++)
        _mm_prefetch(c + 64 * k, _MM_HINT_T0);
}

/* The same for items of 3 values (vectors). */
AC_SIMD_FN void ac_vd_load3(const double *p, size_t step, ac_vd v[3])
{
    __m512d r0, r1, r2;
    if (!step) {
        for (int k = 0; k < 3; k++)
            v[k] = ac_vd_splat(p[k]);
        return;
    }
    r0 = _mm512_loadu_pd(p), r1 = _mm512_loadu_pd(p + 8), r2 = _mm512_loadu_pd(p + 16);
    v[0] = (ac_vd)_mm512_permutex2var_pd(
        _mm512_permutex2var_pd(r0, AC_IDX(0, 3, 6, 9, 12, 15, 0, 0), r1),
        AC_IDX(0, 1, 2, 3, 4, 5, 10, 13), r2);
    v[1] = (ac_vd)_mm512_permutex2var_pd(
        _mm512_permutex2var_pd(r0, AC_IDX(1, 4, 7, 10, 13, 0, 0, 0), r1),
        AC_IDX(0, 1, 2, 3, 4, 8, 11, 14), r2);
    v[2] = (ac_vd)_mm512_permutex2var_pd(
        _mm512_permutex2var_pd(r0, AC_IDX(2, 5, 8, 11, 14, 0, 0, 0), r1),
        AC_IDX(0, 1, 2, 3, 4, 9, 12, 15), r2);
}

AC_SIMD_FN void ac_vd_store3(double *p, const ac_vd v[3])
{
    __m512d x = (__m512d)v[0], y = (__m512d)v[1], z = (__m512d)v[2];
    _mm512_storeu_pd(p, _mm512_permutex2var_pd(
                            _mm512_permutex2var_pd(x, AC_IDX(0, 8, 0, 1, 9, 0, 2, 10), y),
                            AC_IDX(0, 1, 8, 3, 4, 9, 6, 7), z));
    _mm512_storeu_pd(p + 8, _mm512_permutex2var_pd(
                                _mm512_permutex2var_pd(x, AC_IDX(0, 3, 11, 0, 4, 12, 0, 5), y),
                                AC_IDX(10, 1, 2, 11, 4, 5, 12, 7), z));
    _mm512_storeu_pd(p + 16, _mm512_permutex2var_pd(
                                 _mm512_permutex2var_pd(x, AC_IDX(13, 0, 6, 14, 0, 7, 15, 0), y),
                                 AC_IDX(0, 13, 2, 3, 14, 5, 6, 15), z));
}

/* ac_quat_mul per lane. */
AC_SIMD_FN void ac_vd_quat_mul(const ac_vd a[4], const ac_vd b[4], ac_vd out[4])
{
    out[0] = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
    out[1] = a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0];
    out[2] = a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3];
    out[3] = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
}

/* The helpers below work on up to AC_GROUPS independent groups of lanes at
   once, each statement over every group in turn: slerp's series and Newton
   steps are long chains of dependent operations, and interleaving groups
   keeps the vector units busy (4 groups ran 1.8x faster than 1). `groups`
   is a constant at every call, so the loops over it unroll. */
#define AC_GROUPS 4
#define AC_EACH for (int g = 0; g < groups; g++)

/* ac_quat_normalize per lane, in place; the lanes where it is not known to
   be exact (see ac_vd_div_by) or the quaternion is zero or not finite are
   false in ok, and their values are garbage. */
AC_SIMD_FN void ac_vd_quat_normalize(ac_vd q[][4], ac_vm ok[], int groups)
{
    const double lo = 0x1p-500, hi = 0x1p200;
    ac_vd m[AC_GROUPS], f[AC_GROUPS][4], sum[AC_GROUPS], inv[AC_GROUPS];
    AC_EACH m[g] = ac_vd_splat(0.0);
    for (int k = 0; k < 4; k++) {
        AC_EACH f[g][k] = ac_vd_abs(q[g][k]);
        AC_EACH m[g] = ac_vd_pick((ac_vm)(f[g][k] > m[g]), f[g][k], m[g]);
    }
    AC_EACH ok[g] = (ac_vm)(m[g] >= lo) & (ac_vm)(m[g] <= hi);
    for (int k = 0; k < 4; k++) {
        AC_EACH ok[g] &= (ac_vm)(f[g][k] >= lo) | (ac_vm)(q[g][k] == 0.0);
    }
    AC_EACH m[g] = ac_vd_pick(ok[g], m[g], ac_vd_splat(1.0));
    AC_EACH inv[g] = 1.0 / m[g];
    for (int k = 0; k < 4; k++) {
        AC_EACH q[g][k] = ac_vd_div_by(q[g][k], m[g], inv[g]);
    }
    AC_EACH sum[g] = q[g][0] * q[g][0];
    for (int k = 1; k < 4; k++) {
        AC_EACH sum[g] = sum[g] + q[g][k] * q[g][k];
    }
    AC_EACH m[g] = ac_vd_sqrt(sum[g]); /* the length, in [1, 2] */
    AC_EACH inv[g] = 1.0 / m[g];
    for (int k = 0; k < 4; k++) {
        AC_EACH q[g][k] = ac_vd_div_by(q[g][k], m[g], inv[g]);
    }
}

/* ac_rsqrt, ac_sqrt_small, ac_sinc_series and ac_atan_series per lane. */
AC_SIMD_FN void ac_vd_rsqrt(const ac_vd x[], ac_vd y[], int groups)
{
    ac_vd h[AC_GROUPS], e[AC_GROUPS];
    AC_EACH y[g] = (ac_vd)((ac_vu)_mm512_set1_epi64(0x5FE6EB50C7B537A9) - ((ac_vu)x[g] >> 1));
    AC_EACH h[g] = 0.5 * x[g];
    for (int k = 0; k < 4; k++) { /* y (1.5 - 0.5 x y y) */
        AC_EACH e[g] = h[g] * y[g];
        AC_EACH e[g] = e[g] * y[g];
        AC_EACH e[g] = 1.5 - e[g];
        AC_EACH y[g] = y[g] * e[g];
    }
}

AC_SIMD_FN void ac_vd_sqrt_small(const ac_vd x[], ac_vd out[], int groups)
{
    ac_vm tiny[AC_GROUPS];
    ac_vd safe[AC_GROUPS], r[AC_GROUPS];
    AC_EACH tiny[g] = (ac_vm)(x[g] < 1e-300);
    AC_EACH safe[g] = ac_vd_pick(tiny[g], ac_vd_splat(1.0), x[g]);
    ac_vd_rsqrt(safe, r, groups);
    AC_EACH out[g] = ac_vd_pick(tiny[g], ac_vd_splat(0.0), x[g] * r[g]);
}

AC_SIMD_FN void ac_vd_sinc_series(const ac_vd z[], ac_vd r[], int groups)
{
    static const double c[12] = {
        -1.0 / 25852016738884976640000.0, 1.0 / 51090942171709440000.0,
        -1.0 / 121645100408832000.0,      1.0 / 355687428096000.0,
        -1.0 / 1307674368000.0,           1.0 / 6227020800.0,
        -1.0 / 39916800.0,                1.0 / 362880.0,
        -1.0 / 5040.0,                    1.0 / 120.0,
        -1.0 / 6.0,                       1.0};
    AC_EACH r[g] = ac_vd_splat(c[0]);
    for (int k = 1; k < 12; k++) {
        AC_EACH r[g] = r[g] * z[g] + c[k];
    }
}

AC_SIMD_FN void ac_vd_atan_series(const ac_vd x[], ac_vd out[], int groups)
{
    static const double c[13] = {1.0 / 25.0, -1.0 / 23.0, 1.0 / 21.0, -1.0 / 19.0, 1.0 / 17.0,
                                 -1.0 / 15.0, 1.0 / 13.0, -1.0 / 11.0, 1.0 / 9.0, -1.0 / 7.0,
                                 1.0 / 5.0, -1.0 / 3.0, 1.0};
    ac_vd z[AC_GROUPS], r[AC_GROUPS];
    AC_EACH z[g] = x[g] * x[g];
    AC_EACH r[g] = ac_vd_splat(c[0]);
    for (int k = 1; k < 13; k++) {
        AC_EACH r[g] = r[g] * z[g] + c[k];
    }
    AC_EACH out[g] = x[g] * r[g];
}

/* ac_slerp_arc_sign and ac_slerp_arc_angle per lane (a is read only): c (unit, as a) brought
   into a's hemisphere in place, then the 4-D angle w between them and
   1 / sinc(w). */
AC_SIMD_FN void ac_vd_slerp_arc_angle(ac_vd a[][4], ac_vd c[][4], ac_vd w[], ac_vd inv[],
                                      int groups)
{
    ac_vd d[AC_GROUPS], dd[AC_GROUPS], ss[AC_GROUPS], x1[AC_GROUPS], t1[AC_GROUPS],
        t2[AC_GROUPS];
    AC_EACH d[g] = ac_vd_splat(0.0);
    for (int k = 0; k < 4; k++) {
        AC_EACH d[g] = d[g] + a[g][k] * c[g][k];
    }
    AC_EACH d[g] = ac_vd_pick((ac_vm)(d[g] < 0.0), ac_vd_splat(-1.0), ac_vd_splat(1.0));
    for (int k = 0; k < 4; k++) {
        AC_EACH c[g][k] = c[g][k] * d[g]; /* the sign */
    }
    AC_EACH dd[g] = (a[g][0] - c[g][0]) * (a[g][0] - c[g][0]);
    AC_EACH ss[g] = (a[g][0] + c[g][0]) * (a[g][0] + c[g][0]);
    for (int k = 1; k < 4; k++) {
        AC_EACH dd[g] = dd[g] + (a[g][k] - c[g][k]) * (a[g][k] - c[g][k]);
        AC_EACH ss[g] = ss[g] + (a[g][k] + c[g][k]) * (a[g][k] + c[g][k]);
    }
    ac_vd_sqrt_small(dd, t1, groups);
    ac_vd_sqrt_small(ss, t2, groups);
    AC_EACH x1[g] = t1[g] / (2.0 + t2[g]); /* tan(w/4) */
    AC_EACH t1[g] = 1.0 + x1[g] * x1[g];
    ac_vd_sqrt_small(t1, t2, groups);
    AC_EACH x1[g] = x1[g] / (1.0 + t2[g]); /* tan(w/8) */
    ac_vd_atan_series(x1, t1, groups);
    AC_EACH w[g] = 8.0 * t1[g];
    AC_EACH t1[g] = w[g] * w[g];
    ac_vd_sinc_series(t1, t2, groups);
    AC_EACH inv[g] = 1.0 / t2[g];
}

/* ac_quat_slerp_any per lane (a and c are overwritten); ok is its return
   value. */
AC_SIMD_FN void ac_vd_quat_slerp_any(ac_vd a[][4], ac_vd c[][4], const ac_vd u[],
                                     ac_vd out[][4], ac_vm ok[], int groups)
{
    ac_vd na[AC_GROUPS], nb[AC_GROUPS];
    ac_vd ia[AC_GROUPS], ib[AC_GROUPS], w[AC_GROUPS], inv[AC_GROUPS];
    ac_vd wa[AC_GROUPS], wb[AC_GROUPS], r[AC_GROUPS][4], t1[AC_GROUPS], t2[AC_GROUPS];
    AC_EACH na[g] = a[g][0] * a[g][0];
    AC_EACH nb[g] = c[g][0] * c[g][0];
    for (int k = 1; k < 4; k++) {
        AC_EACH na[g] = na[g] + a[g][k] * a[g][k];
        AC_EACH nb[g] = nb[g] + c[g][k] * c[g][k];
    }
    AC_EACH ok[g] = (ac_vm)(na[g] >= 1e-200) & (ac_vm)(na[g] <= 1e200) &
                    (ac_vm)(nb[g] >= 1e-200) & (ac_vm)(nb[g] <= 1e200) &
                    (ac_vm)(u[g] >= 0.0) & (ac_vm)(u[g] <= 1.0);
    AC_EACH t1[g] = ac_vd_pick(ok[g], na[g], ac_vd_splat(1.0));
    AC_EACH t2[g] = ac_vd_pick(ok[g], nb[g], ac_vd_splat(1.0));
    ac_vd_rsqrt(t1, ia, groups);
    ac_vd_rsqrt(t2, ib, groups);
    for (int k = 0; k < 4; k++) {
        AC_EACH a[g][k] = a[g][k] * ia[g];
        AC_EACH c[g][k] = c[g][k] * ib[g];
    }
    ac_vd_slerp_arc_angle(a, c, w, inv, groups);
    AC_EACH t1[g] = (1.0 - u[g]) * w[g] * ((1.0 - u[g]) * w[g]);
    ac_vd_sinc_series(t1, t2, groups);
    AC_EACH wa[g] = (1.0 - u[g]) * t2[g] * inv[g];
    AC_EACH t1[g] = u[g] * w[g] * (u[g] * w[g]);
    ac_vd_sinc_series(t1, t2, groups);
    AC_EACH wb[g] = u[g] * t2[g] * inv[g];
    for (int k = 0; k < 4; k++) {
        AC_EACH r[g][k] = wa[g] * a[g][k] + wb[g] * c[g][k];
    }
    AC_EACH t1[g] = r[g][0] * r[g][0];
    for (int k = 1; k < 4; k++) {
        AC_EACH t1[g] = t1[g] + r[g][k] * r[g][k];
    }
    ac_vd_rsqrt(t1, t2, groups); /* in [1/2, 1] */
    for (int k = 0; k < 4; k++) {
        AC_EACH out[g][k] = r[g][k] * t2[g];
    }
}

/* ac_quat_rotate per lane (q unit). */
AC_SIMD_FN void ac_vd_quat_rotate(const ac_vd q[4], const ac_vd v[3], ac_vd out[3])
{
    ac_vd tx = 2.0 * (q[1] * v[2] - q[2] * v[1]);
    ac_vd ty = 2.0 * (q[2] * v[0] - q[0] * v[2]);
    ac_vd tz = 2.0 * (q[0] * v[1] - q[1] * v[0]);
    out[0] = v[0] + q[3] * tx + (q[1] * tz - q[2] * ty);
    out[1] = v[1] + q[3] * ty + (q[2] * tx - q[0] * tz);
    out[2] = v[2] + q[3] * tz + (q[0] * ty - q[1] * tx);
}

/* Lanes whose values are all finite. */
AC_SIMD_FN ac_vm ac_vd_finite(const ac_vd *x, int count)
{
    ac_vm ok = (ac_vm)(ac_vd_abs(x[0]) <= DBL_MAX);
    for (int k = 1; k < count; k++)
        ok &= (ac_vm)(ac_vd_abs(x[k]) <= DBL_MAX);
    return ok;
}

/* Lanes that look up a small table (the Bezier time solve). Min and max in
   the order of a select: ac_vd_max(a, b) is a > b ? a : b (b when either is
   NaN), so max(s0, s) is pick(s < s0, s0, s) bit for bit (signed zeros
   included); ac_vd_min(a, b) is a < b ? a : b. */
AC_SIMD_FN ac_vd ac_vd_max(ac_vd a, ac_vd b) { return (ac_vd)_mm512_max_pd((__m512d)a, (__m512d)b); }
AC_SIMD_FN ac_vd ac_vd_min(ac_vd a, ac_vd b) { return (ac_vd)_mm512_min_pd((__m512d)a, (__m512d)b); }

AC_SIMD_FN ac_vd ac_vd_floor(ac_vd x)
{
    return (ac_vd)_mm512_roundscale_pd((__m512d)x, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
}

/* Whole-number lanes i (0 <= i < 2^51) as the int64 lane values i - lo */
AC_SIMD_FN __m512i ac_vd_offsets(ac_vd i, double lo)
{
    const double big = 4503599627370496.0; /* 2^52: i - lo + 2^52 holds i - lo in its low bits */
    return _mm512_sub_epi64(_mm512_castpd_si512((__m512d)(i - lo + big)),
                            _mm512_castpd_si512(_mm512_set1_pd(big)));
}

/* For whole-number lanes i, in any order: 1 when all lie in [lo, lo + AC_LANES) */
AC_SIMD_FN int ac_vd_in_window(ac_vd i, double lo)
{
    return (_mm512_cmp_pd_mask((__m512d)i, _mm512_set1_pd(lo), _CMP_GE_OQ) &
            _mm512_cmp_pd_mask((__m512d)i, _mm512_set1_pd(lo + (AC_LANES - 1)), _CMP_LE_OQ)) == 0xFF;
}

/* The permute index of whole-number lanes i in [lo, lo + AC_LANES): the
   bits of i + (2^52 - lo), whose low 3 bits are i - lo (all a permute
   reads) */
AC_SIMD_FN __m512i ac_vd_window_index(ac_vd i, double lo)
{
    return _mm512_castpd_si512((__m512d)(i + (4503599627370496.0 - lo)));
}

/* window[k] per lane, for window = the AC_LANES values p[lo ..] and the
   index of ac_vd_window_index: one permute (the window loaded once serves
   several groups of lanes) */
AC_SIMD_FN ac_vd ac_vd_permute(ac_vd window, __m512i k)
{
    return (ac_vd)_mm512_permutexvar_pd(k, (__m512d)window);
}

/* p[k] per lane, any offsets k */
AC_SIMD_FN ac_vd ac_vd_gather(const double *p, __m512i k) { return (ac_vd)_mm512_i64gather_pd(k, p, 8); }

/* Compares as lane masks, and cond ? a : b per lane from one: a single
   blend where ac_vd_pick takes three logic operations. */
typedef __mmask8 ac_vk;
AC_SIMD_FN ac_vk ac_vd_lt(ac_vd a, ac_vd b) { return _mm512_cmp_pd_mask((__m512d)a, (__m512d)b, _CMP_LT_OQ); }
AC_SIMD_FN ac_vk ac_vd_eq(ac_vd a, ac_vd b) { return _mm512_cmp_pd_mask((__m512d)a, (__m512d)b, _CMP_EQ_OQ); }
AC_SIMD_FN ac_vd ac_vd_blend(ac_vk cond, ac_vd a, ac_vd b)
{
    return (ac_vd)_mm512_mask_blend_pd(cond, (__m512d)b, (__m512d)a);
}

/* lane 0 */
AC_SIMD_FN double ac_vd_first(ac_vd x) { return x[0]; }

/* p[0 .. count) in the first lanes (0 <= count <= AC_LANES), zeros in the
   others: nothing past them is read */
AC_SIMD_FN ac_vd ac_vd_load_first(const double *p, int count)
{
    return (ac_vd)_mm512_maskz_loadu_pd((__mmask8)((1u << count) - 1u), p);
}

/* the first count lanes of x to p[0 .. count) */
AC_SIMD_FN void ac_vd_store_first(double *p, int count, ac_vd x)
{
    _mm512_mask_storeu_pd(p, (__mmask8)((1u << count) - 1u), (__m512d)x);
}

/* The lanes l < count where x > limit (ac_vd_over) or x >= limit
   (ac_vd_at_least), or x is NaN. */
AC_SIMD_FN ac_vk ac_vd_over(ac_vd x, double limit, int count)
{
    return _mm512_mask_cmp_pd_mask((__mmask8)((1u << count) - 1u), (__m512d)x,
                                   _mm512_set1_pd(limit), _CMP_NLE_UQ);
}

AC_SIMD_FN ac_vk ac_vd_at_least(ac_vd x, double limit, int count)
{
    return _mm512_mask_cmp_pd_mask((__mmask8)((1u << count) - 1u), (__m512d)x,
                                   _mm512_set1_pd(limit), _CMP_NLT_UQ);
}

/* The lanes l of mask k, in order: base + l to at[], and their lanes of u
   and s to pu[] and ps[] (each with room for AC_LANES); returns how many. */
AC_SIMD_FN size_t ac_vd_append(int32_t *at, double *pu, double *ps, ac_vk k, int32_t base,
                               ac_vd u, ac_vd s)
{
    if (!k)
        return 0;
    _mm512_mask_compressstoreu_epi32(at, (__mmask16)k,
                                     _mm512_add_epi32(_mm512_set1_epi32(base),
                                                      _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8,
                                                                       7, 6, 5, 4, 3, 2, 1, 0)));
    _mm512_mask_compressstoreu_pd(pu, k, (__m512d)u);
    _mm512_mask_compressstoreu_pd(ps, k, (__m512d)s);
    return (size_t)__builtin_popcount(k);
}
/* Asks for the cache line `ahead` bytes past p, to read or to write: the
   address is computed as an integer (a prefetch never faults, and no
   pointer past the end of an array is formed). */
AC_SIMD_FN void ac_prefetch_read(const void *p, size_t ahead)
{
    _mm_prefetch((const char *)((uintptr_t)p + ahead), _MM_HINT_T0);
}

AC_SIMD_FN void ac_prefetch_write(const void *p, size_t ahead)
{
    _mm_prefetch((const char *)((uintptr_t)p + ahead), _MM_HINT_ET0);
}

/* AVX2, for CPUs without AVX-512F: 4 lanes of float64 for the lightest
   kernels, whose compiled loops (AC_VECTORIZED) spend more time in shuffles
   than in memory. A kernel takes it when ac_simd4_available() and not
   ac_simd_available(). */
#define AC_SIMD4_KERNEL __attribute__((target("avx2"))) static
#define AC_SIMD4_FN AC_SIMD4_KERNEL AC_FORCE_INLINE

static inline int ac_simd4_available(void) { return __builtin_cpu_supports("avx2"); }

/* ac_quat_mul of one item held in one vector (x, y, z, w), in its order of
   operations: component k is ((a3 b[k] + a0 p0[k]) + a1 p1[k]) + a2 p2[k],
   with p0, p1, p2 b's components permuted and negated where the formula
   subtracts (x - y is x + (-y), and -(a b) is a (-b), both exactly). */
AC_SIMD4_FN __m256d ac_v4_quat_mul(const double *a, __m256d b)
{
    const __m256d s0 = _mm256_set_pd(-0.0, 0.0, -0.0, 0.0), /* lanes 3, 2, 1, 0 */
                  s1 = _mm256_set_pd(-0.0, -0.0, 0.0, 0.0),
                  s2 = _mm256_set_pd(-0.0, 0.0, 0.0, -0.0);
    const __m256d p0 = _mm256_xor_pd(_mm256_permute4x64_pd(b, 0x1B), s0), /* b3 b2 b1 b0 */
                  p1 = _mm256_xor_pd(_mm256_permute4x64_pd(b, 0x4E), s1), /* b2 b3 b0 b1 */
                  p2 = _mm256_xor_pd(_mm256_permute_pd(b, 0x5), s2);      /* b1 b0 b3 b2 */
    __m256d r = _mm256_mul_pd(_mm256_broadcast_sd(a + 3), b);
    r = _mm256_add_pd(r, _mm256_mul_pd(_mm256_broadcast_sd(a), p0));
    r = _mm256_add_pd(r, _mm256_mul_pd(_mm256_broadcast_sd(a + 1), p1));
    return _mm256_add_pd(r, _mm256_mul_pd(_mm256_broadcast_sd(a + 2), p2));
}

/* All ones in the lanes of finite x. */
AC_SIMD4_FN __m256d ac_v4_finite(__m256d x)
{
    const __m256d abs = _mm256_andnot_pd(_mm256_set1_pd(-0.0), x);
    return _mm256_cmp_pd(abs, _mm256_set1_pd(DBL_MAX), _CMP_LE_OQ);
}
#endif /* AC_SIMD */

#endif /* AC_INTERNAL_H */
