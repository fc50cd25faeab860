/* Keyframe curves: multi-key, multi-channel tracks
   whose segments each have their own interpolation: step, linear, cubic
   Hermite, weighted 2-D Bezier in (time, value), or an easing of the value
   (v0 + ease(u) (v1 - v0)). The constructor validates once and keeps the keys
   (and key velocities where a segment needs them), nothing per segment but
   Bezier blocks: a step, linear or cubic segment is the cubic polynomial in u
   made from its keys where it is evaluated (segment_poly: tangents m = T v
   with the segment's own duration), with the expressions the constructor
   checks it with; a query finds its segment and u once and reuses them for
   every channel. Sorted
   query arrays are swept segment by segment in vectorized runs; the Bezier
   and eased ones run in AVX-512 lanes where the CPU has them, each lane
   doing the scalar path's IEEE operations, so every path gives the same
   bits.

   The keys are located on the one key track of the core (ac_track.h: the
   search, the cursor, the sides, the extrapolation and the cycle fold),
   which rotation curves and loop tracks share; this file evaluates the
   scalar channels at the segment and local time it gives. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ac_internal.h"
#include "ac_track.h"
#include "ac_ease_formulas.h"

#define REMAP_BLOCK 512                       /* queries per block of a remapped evaluation */

/* A curve is one block (ac_curve_create): this struct, then its key arrays
   (times to slopes, then kind); bez, lands and the easings have their own. */
struct ac_curve {
    size_t k, c;
    ac_curve_interpolation interp; /* the interpolation used for key velocities */
    ac_curve_extrapolation before, after;
    const double *times;  /* k */
    const double *values; /* k x c (both the spec's own with borrow_keys) */
    /* k x c, per second, arriving at and leaving each key; NULL for a curve
       of step or linear segments alone, whose key velocities follow from the
       values (piece_velocities). out_velocity is in_velocity where the two
       are equal by construction (one velocity per key given, or a tangent
       policy with one velocity per key, on cubic or Bezier segments). */
    double *in_velocity;
    double *out_velocity;
    /* k - 1: inv_duration of each segment, kept by the curves that keep key
       velocities (cubic, Bezier, eased: the most work per query), so that a
       query does not divide; NULL for step and linear ones (seg_inv) */
    double *inv;
    /* Nothing per segment is stored but Bezier blocks: a segment's
       polynomial in u = (t - times[j]) / duration is made from its keys
       where it is evaluated (segment_poly), its duration's inverse too
       (inv_duration). */
    double *ends;         /* 2c: the velocity arriving at the first key, leaving the last */
    double *delta;        /* c: values[k-1] - values[0], the cycle_offset shift */
    unsigned char *kind;  /* k - 1 segment kinds (ac_curve_interpolation) */
    /* k - 1 flags, NULL unless a segment was given as AC_CURVE_EASE_HOLD: that
       step segment reaches its end key at its end (its left side there) */
    unsigned char *lands;
    /* Bezier segments (NULL when there are none): k - 1 blocks of BEZ_BLOCK c,
       time x(s) = ((ax s + bx) s + cx) s in units of the duration and value
       y(s) = ((ay s + by) s + cy) s + dy, stored cx, bx, ax, dy, cy, by, ay,
       then the inverse-time table that starts the solve: s at u = r / BEZ_TABLE
       (r = 0..BEZ_TABLE), then ds/du there in units of a table interval, then
       bezier_accept's bound. */
    double *bez;
    /* easings (NULL when no segment is eased): one per segment, or a table
       that ease_index (k - 1 entries, else NULL) points each segment into
       (its own copy, own_index, or the spec's with borrow_ease_index) */
    ac_curve_ease *ease;
    const size_t *ease_index;
    size_t *own_index;
    double *slopes;       /* 2c: before_slopes, after_slopes (AC_EXTRAP_SLOPED) */
    int safe[3];          /* no value / velocity / acceleration inside the keys can overflow */
    /* how far before the first key (first - t) and after the last (t - last)
       each derivative order is sure to be representable (set_reach) */
    double reach[2][3];
    ac_allocator mem;     /* what every block above came from */
};

size_t ac_curve_keys(const ac_curve *curve) { return curve->k; }
size_t ac_curve_channels(const ac_curve *curve) { return curve->c; }
const double *ac_curve_times(const ac_curve *curve) { return curve->times; }
const double *ac_curve_values(const ac_curve *curve) { return curve->values; }
const double *ac_curve_in_velocities(const ac_curve *curve) { return curve->in_velocity; }
const double *ac_curve_out_velocities(const ac_curve *curve) { return curve->out_velocity; }

void ac_curve_destroy(ac_curve *curve)
{
    ac_allocator mem;
    if (!curve)
        return;
    mem = curve->mem;
    ac_mem_release(&mem, curve->bez); /* the key arrays share the curve's block */
    ac_mem_release(&mem, curve->ease);
    ac_mem_release(&mem, curve->lands);
    ac_mem_release(&mem, curve->own_index);
    ac_mem_release(&mem, curve);
}

/* ------------------------------------------------------------- building */

static double *alloc(const ac_allocator *mem, size_t n)
{
    return ac_mem_zeroed(mem, n ? n : 1, sizeof(double));
}

static double sign_of(double x) { return (x > 0.0) - (x < 0.0); }

/* scipy's PchipInterpolator end rule: the one-sided three-point estimate,
   kept shape-preserving. */
static double pchip_end(double h0, double h1, double m0, double m1)
{
    double d = ((2.0 * h0 + h1) * m0 - h0 * m1) / (h0 + h1);
    if (sign_of(d) != sign_of(m0))
        return 0.0;
    if (sign_of(m0) != sign_of(m1) && fabs(d) > 3.0 * fabs(m0))
        return 3.0 * m0;
    return d;
}

/* The slope dv / dt of segment j, channel ch: a linear segment's velocity. */
static AC_FORCE_INLINE double slope_of(double t0, double t1, double p0, double p1)
{
    return (p1 - p0) / (t1 - t0);
}
static AC_FORCE_INLINE double segment_slope(const ac_curve *cv, size_t j, size_t ch)
{
    const size_t C = cv->c;
    return slope_of(cv->times[j], cv->times[j + 1], cv->values[j * C + ch],
                    cv->values[(j + 1) * C + ch]);
}

/* Velocities of keys a..b (a piece of strictly increasing times, b > a) of
   channel ch, following the policy. Segment slopes d[j] = dv / dt. */
static void piece_velocities(const ac_curve *cv, ac_curve_tangents policy, size_t a,
                             size_t b, size_t ch, double *vin, double *vout, double *scratch)
{
    const double *t = cv->times;
    const size_t C = cv->c;
#define V(i) (cv->values[(i) * C + ch])
#define SLOPE(j) segment_slope(cv, j, ch)
    if (a == b) { /* a lone key between jumps or at a jumping end */
        vin[a * C + ch] = vout[a * C + ch] = 0.0;
        return;
    }
    if (cv->interp == AC_CURVE_CUBIC && policy == AC_TANGENTS_NATURAL && b - a >= 2) {
        /* C2 with zero second derivative at both ends: the tridiagonal system
           h[i] v[i-1] + 2 (h[i-1] + h[i]) v[i] + h[i-1] v[i+1] = 3 (h[i] d[i-1]
           + h[i-1] d[i]), ends 2 v0 + v1 = 3 d0 and v[n-1] + 2 v[n] = 3 d[n-1],
           solved by forward elimination (diagonally dominant: no pivoting). */
        double *cp = scratch, *rp = scratch + (b - a + 1);
        cp[0] = 0.5, rp[0] = 1.5 * SLOPE(a);
        for (size_t i = a + 1; i <= b; i++) {
            size_t r = i - a;
            double lo, di, up, rhs, m;
            if (i < b) {
                double h0 = t[i] - t[i - 1], h1 = t[i + 1] - t[i];
                lo = h1, di = 2.0 * (h0 + h1), up = h0;
                rhs = 3.0 * (h1 * SLOPE(i - 1) + h0 * SLOPE(i));
            } else {
                lo = 1.0, di = 2.0, up = 0.0, rhs = 3.0 * SLOPE(b - 1);
            }
            m = di - lo * cp[r - 1];
            cp[r] = up / m;
            rp[r] = (rhs - lo * rp[r - 1]) / m;
        }
        vin[b * C + ch] = vout[b * C + ch] = rp[b - a];
        for (size_t i = b; i-- > a;) {
            double v = rp[i - a] - cp[i - a] * vin[(i + 1) * C + ch];
            vin[i * C + ch] = vout[i * C + ch] = v;
        }
        return;
    }
    if (cv->interp != AC_CURVE_CUBIC) { /* the slopes of linear segments, 0 for steps */
        for (size_t i = a; i <= b; i++) {
            double left = 0.0, right = 0.0;
            if (cv->interp == AC_CURVE_LINEAR) {
                left = SLOPE(i > a ? i - 1 : a);
                right = SLOPE(i < b ? i : b - 1);
            }
            if (vin)
                vin[i * C + ch] = left;
            if (vout)
                vout[i * C + ch] = right;
        }
        return;
    }
    for (size_t i = a; i <= b; i++) {
        double left, right;
        if (i == a || i == b) {
            size_t j = i == a ? a : b - 1; /* the end segment */
            double d = SLOPE(j);
            switch (policy) {
            case AC_TANGENTS_PCHIP:
                if (b - a == 1)
                    left = d;
                else if (i == a)
                    left = pchip_end(t[a + 1] - t[a], t[a + 2] - t[a + 1], d, SLOPE(a + 1));
                else
                    left = pchip_end(t[b] - t[b - 1], t[b - 1] - t[b - 2], d, SLOPE(b - 2));
                break;
            case AC_TANGENTS_FLAT: left = 0.0; break;
            default: left = d; break; /* catmull_rom (both), clamped, natural (2 keys) */
            }
            right = left;
        } else {
            double h0 = t[i] - t[i - 1], h1 = t[i + 1] - t[i];
            double d0 = SLOPE(i - 1), d1 = SLOPE(i);
            double catmull_rom = (V(i + 1) - V(i - 1)) / (t[i + 1] - t[i - 1]);
            /* slopes without a common sign: a local extremum, or a hold next to
               the key, where pchip and clamped stop */
            int extremum = sign_of(d0) * sign_of(d1) <= 0.0;
            switch (policy) {
            case AC_TANGENTS_CATMULL_ROM: left = right = catmull_rom; break;
            case AC_TANGENTS_CATMULL_ROM_UNIFORM: {
                double m = (V(i + 1) - V(i - 1)) / 2.0; /* tangent per unit u */
                left = m / h0;
                right = m / h1;
                break;
            }
            case AC_TANGENTS_PCHIP:
                if (extremum) {
                    left = right = 0.0;
                } else {
                    double w1 = 2.0 * h1 + h0, w2 = h1 + 2.0 * h0;
                    left = right = 1.0 / ((w1 / d0 + w2 / d1) / (w1 + w2));
                }
                break;
            case AC_TANGENTS_CLAMPED:
                if (extremum) {
                    left = right = 0.0;
                } else {
                    double limit = 3.0 * fmin(fabs(d0), fabs(d1));
                    left = right = fabs(catmull_rom) > limit ? sign_of(catmull_rom) * limit
                                                             : catmull_rom;
                }
                break;
            default: left = right = 0.0; break; /* flat */
            }
        }
        vin[i * C + ch] = left;
        vout[i * C + ch] = right;
    }
#undef SLOPE
#undef V
}

/* Key velocities of every piece (jumps split the keys into pieces) by the
   policy, into vin and vout (the same array where they are equal). */
static void key_velocities(const ac_curve *cv, ac_curve_tangents policy, double *vin,
                           double *vout, double *scratch)
{
    size_t a = 0;
    for (size_t i = 1; i <= cv->k; i++) {
        if (i < cv->k && cv->times[i] > cv->times[i - 1])
            continue;
        for (size_t ch = 0; ch < cv->c; ch++)
            piece_velocities(cv, policy, a, i - 1, ch, vin, vout, scratch);
        a = i;
    }
}

void ac_curve_key_velocities(const ac_curve *curve, double *in_velocities,
                             double *out_velocities)
{
    size_t bytes = curve->k * curve->c * sizeof(double);
    if (!curve->in_velocity) { /* step and linear segments alone: from the values */
        key_velocities(curve, AC_TANGENTS_FLAT, in_velocities, out_velocities, NULL);
        return;
    }
    if (in_velocities && bytes)
        memcpy(in_velocities, curve->in_velocity, bytes);
    if (out_velocities && bytes)
        memcpy(out_velocities, curve->out_velocity, bytes);
}

/* 1 / duration of segment j (0 for the zero-length segment of a jump; for
   keys more than DBL_MAX apart 1 / (duration / 2), see odd_at). */
static AC_FORCE_INLINE double inv_between(double t0, double t1)
{
    const double T = t1 - t0;
    const int64_t wide = !ac_finite(T), positive = T > 0.0;
    const double r = 1.0 / ac_pick(wide, 0.5 * t1 - 0.5 * t0, ac_pick(positive, T, 1.0));
    return ac_pick(wide | positive, r, 0.0); /* (selects, so that loops vectorize) */
}

static AC_FORCE_INLINE double inv_duration(const double *times, size_t j)
{
    return inv_between(times[j], times[j + 1]);
}

/* inv_duration of segment j, as the curve keeps it or made here. */
static AC_FORCE_INLINE double seg_inv(const ac_curve *cv, size_t j)
{
    return cv->inv ? cv->inv[j] : inv_duration(cv->times, j);
}

/* inv_duration of every segment, in a loop that vectorizes. */
AC_VECTORIZED
static void inv_durations(const double *restrict times, size_t k, double *restrict inv)
{
    for (size_t j = 0; j + 1 < k; j++)
        inv[j] = inv_duration(times, j);
}

/* Hermite tangents m = duration * velocity of a segment from t0 to t1 (for
   keys more than DBL_MAX apart, on half the duration twice: finite
   whenever the tangent is). */
static AC_FORCE_INLINE void hermite_tangents(double t0, double t1, double v0, double v1,
                                             double *m0, double *m1)
{
    const double T = t1 - t0, half = 0.5 * t1 - 0.5 * t0;
    const int64_t wide = !ac_finite(T);
    *m0 = ac_pick(wide, (v0 * half) * 2.0, T * v0);
    *m1 = ac_pick(wide, (v1 * half) * 2.0, T * v1);
}

/* The polynomial of channel ch of segment j in u = (t - times[j]) /
   duration, x(u) = ((a u + b) u + c) u + d, as p[0..3] = d, c, b, a, made
   from the keys: a cubic segment's from its values and tangents (d = p0,
   c = m0, b = 3(p1 - p0) - 2 m0 - m1, a = 2(p0 - p1) + m0 + m1); linear and
   eased segments c = p1 - p0, d = p0; steps d = p0; Bezier segments (whose
   values come from bez) d = p0. */
static AC_FORCE_INLINE void poly_of(int kind, double t0, double t1, double p0, double p1,
                                    double v0, double v1, double *p, double *m0, double *m1)
{
    const int64_t cubic = kind == AC_CURVE_CUBIC,
                  line = kind == AC_CURVE_LINEAR || kind >= AC_CURVE_EASE;
    hermite_tangents(t0, t1, v0, v1, m0, m1);
    p[0] = p0; /* (selects, so that loops vectorize) */
    p[1] = ac_pick(cubic, *m0, ac_pick(line, p1 - p0, 0.0));
    p[2] = ac_pick(cubic, 3.0 * (p1 - p0) - 2.0 * *m0 - *m1, 0.0);
    p[3] = ac_pick(cubic, 2.0 * (p0 - p1) + *m0 + *m1, 0.0);
}

/* poly_of for channel ch of segment j (a curve without key velocities has
   no cubic segment). */
static AC_FORCE_INLINE void segment_poly(const ac_curve *cv, size_t j, size_t ch, double *p)
{
    const size_t C = cv->c;
    const int keyed = cv->in_velocity != NULL;
    double m0, m1;
    poly_of(cv->kind[j], cv->times[j], cv->times[j + 1], cv->values[j * C + ch],
            cv->values[(j + 1) * C + ch], keyed ? cv->out_velocity[j * C + ch] : 0.0,
            keyed ? cv->in_velocity[(j + 1) * C + ch] : 0.0, p, &m0, &m1);
}

/* Bounds on |x|, |x'| and |x''| for u in [0, 1] of a segment's polynomial
   p (d, c, b, a) and 1 / duration iT, with a margin for rounding: within
   them no result can overflow. */
static AC_FORCE_INLINE void poly_bounds(const double *p, double iT, double bound[3])
{
    const double a = fabs(p[3]), b = fabs(p[2]), c = fabs(p[1]), d = fabs(p[0]);
    bound[0] = a + b + c + d;
    bound[1] = (3.0 * a + 2.0 * b + c) * iT;
    bound[2] = (6.0 * a + 2.0 * b) * iT * iT;
}

/* 1 when every t[0..n) is finite. */
AC_VECTORIZED
static int all_finite(const double *t, size_t n)
{
    int64_t ok = 1;
    for (size_t i = 0; i < n; i++)
        ok &= ac_finite(t[i]);
    return (int)ok;
}

static ac_status check_times(const double *t, size_t k, int jumps, ac_error *err)
{
    if (ac_track_increasing(t, k))
        return AC_OK;
    for (size_t i = 0; i < k; i++) {
        if (!ac_finite(t[i]))
            return ac_fail(err, AC_ERR_VALUE, i, AC_ARG_TIMES, t[i], "must be finite");
        if (i == 0 || t[i] > t[i - 1])
            continue;
        if (t[i] < t[i - 1])
            return ac_fail(err, AC_ERR_VALUE, i, AC_ARG_TIMES, t[i],
                           "must be >= the previous time %.15g", t[i - 1]);
        if (!jumps)
            return ac_because(err, AC_REASON_NO_JUMPS, 0.0, 0.0,
                              ac_fail(err, AC_ERR_VALUE, i, AC_ARG_TIMES, t[i],
                                      "equals the previous time (a jump needs spec.jumps)"));
        if (i >= 2 && t[i - 2] == t[i])
            return ac_fail(err, AC_ERR_VALUE, i, AC_ARG_TIMES, t[i],
                           "is the third equal time (a jump is a pair)");
    }
    return AC_OK;
}

/* The largest |x[i]| (0 for n == 0), a NaN when one is a NaN, in one
   vectorized pass: the magnitudes' bit patterns order as the numbers do
   (NaNs above infinity). */
AC_VECTORIZED
static double largest_magnitude(const double *x, size_t n)
{
    uint64_t top = 0;
    double r;
    for (size_t i = 0; i < n; i++) {
        uint64_t bits;
        memcpy(&bits, x + i, sizeof bits);
        bits &= ~(UINT64_C(1) << 63);
        top = bits > top ? bits : top;
    }
    memcpy(&r, &top, sizeof r);
    return r;
}

/* 1 when plain_segments surely passes a linear curve (without jumps or key
   velocities) whose values are at most `largest` in magnitude, without
   looking at its segments: with T >= shortest >= 2^-1000 (so 1/T is
   finite) and largest <= 2^-6 DBL_MAX min(shortest, 1), a segment's
   |p1 - p0| <= 2 largest, its slope and bound[1] (|p1 - p0| / T) are at most
   about DBL_MAX / 32, bound[0] (|p1 - p0| + |p0|) about 3 DBL_MAX / 64, and
   bound[2] is 0: every check holds, and safe[] keeps its value (`shortest`:
   the shortest key interval). */
static int linear_surely_plain(const ac_curve *cv, double largest, double shortest)
{
    return cv->interp == AC_CURVE_LINEAR && !cv->in_velocity && cv->k >= 2 &&
           shortest >= 0x1p-1000 && largest <= 0x1p-6 * DBL_MAX * fmin(shortest, 1.0);
}

static ac_status check_all_finite(ac_arg arg, const double *x, size_t n,
                                  ac_error *err)
{
    if (all_finite(x, n))
        return AC_OK;
    for (size_t i = 0; i < n; i++)
        if (!ac_finite(x[i]))
            return ac_fail(err, AC_ERR_VALUE, i, arg, x[i], "must be finite");
    return AC_OK;
}

/* Internal segment kind: an eased segment whose easing is a CSS cubic-bezier,
   evaluated as a Bezier segment with the easing's control points. */
#define KIND_CSS (AC_CURVE_EASE + 1)

static int is_cubic_kind(int kind) { return kind == AC_CURVE_CUBIC || kind == AC_CURVE_BEZIER; }

/* The easing of segment j: the j-th, or the table entry its index names. */
static const ac_curve_ease *spec_ease(const ac_curve_spec *spec, size_t j)
{
    return &spec->segment_ease[spec->segment_ease_index ? spec->segment_ease_index[j] : j];
}
static inline const ac_curve_ease *segment_ease(const ac_curve *cv, size_t j)
{
    return &cv->ease[cv->ease_index ? cv->ease_index[j] : j];
}

/* The checks of an easing of segment j (the index of a failure). */
static ac_status check_ease(const ac_curve_ease *e, size_t j, ac_error *err)
{
    if (e->kind == AC_CURVE_EASE_CUBIC_BEZIER) {
        const double p[4] = {e->x1, e->y1, e->x2, e->y2};
        const ac_arg names[4] = {AC_ARG_X1, AC_ARG_Y1, AC_ARG_X2, AC_ARG_Y2};
        for (int r = 0; r < 4; r++)
            if (!ac_finite(p[r]) || ((r == 0 || r == 2) && (p[r] < 0.0 || p[r] > 1.0)))
                return ac_fail(err, AC_ERR_VALUE, j, names[r], p[r],
                               r % 2 ? "must be finite" : "must lie in [0, 1]");
        return AC_OK;
    }
    if (e->kind < AC_EASE_LINEAR || e->kind > AC_EASE_BOUNCE_IN_OUT)
        return ac_fail(err, AC_ERR_VALUE, j, AC_ARG_EASE, (double)e->kind,
                       "is not a known easing kind");
    if (!ac_finite(e->overshoot))
        return ac_fail(err, AC_ERR_VALUE, j, AC_ARG_OVERSHOOT, e->overshoot, "must be finite");
    if (!ac_finite(e->amplitude) || e->amplitude < 0.0)
        return ac_fail(err, AC_ERR_VALUE, j, AC_ARG_AMPLITUDE, e->amplitude,
                       "must be finite and >= 0");
    if (!ac_finite(e->period) || e->period < 0.0)
        return ac_fail(err, AC_ERR_VALUE, j, AC_ARG_PERIOD, e->period,
                       "must be finite and >= 0 (0: the default)");
    return AC_OK;
}

/* What the constructor asks of each easing of a short table (a curve's
   distinct easings, spec.segment_ease_index pointing each segment into it),
   found once per easing instead of once per segment, as bit sets (bit r:
   easing r) and arrays the segment loops read without branching (a shift of
   a bit set vectorizes where a load from a byte table does not): valid
   (check_ease), a CSS cubic-bezier, a hold, bounded values (the kinds of
   [0, 1] into [0, 1] the segment bounds take), and for easings whose shape
   does not depend on the change (all but elastic) the rates at u = 0 and 1
   per unit change (ease_offset's, which scale by the change). */
enum { FACTS = 64 };
typedef struct ease_facts {
    size_t count;
    uint64_t valid, css, hold, bounded, rated;
    double rate0[FACTS], rate1[FACTS];
} ease_facts;

/* Bit r of a bit set of ease_facts, 0 or 1. */
static AC_FORCE_INLINE int64_t fact(uint64_t bits, size_t r)
{
    return (int64_t)((bits >> r) & 1u);
}

/* The facts of spec's easing table, 1; 0 (none found) without a short table. */
static int find_facts(const ac_curve_spec *spec, ease_facts *f)
{
    if (!spec->segment_ease || !spec->segment_ease_index || spec->ease_count > FACTS)
        return 0;
    memset(f, 0, sizeof *f);
    f->count = spec->ease_count;
    for (size_t r = 0; r < spec->ease_count; r++) {
        const ac_curve_ease *e = &spec->segment_ease[r];
        const uint64_t valid = check_ease(e, 0, NULL) == AC_OK,
                       css = e->kind == AC_CURVE_EASE_CUBIC_BEZIER,
                       rated = valid && !css && !(e->kind >= AC_EASE_ELASTIC_IN &&
                                                  e->kind <= AC_EASE_ELASTIC_IN_OUT);
        f->valid |= valid << r, f->css |= css << r, f->rated |= rated << r;
        f->hold |= (uint64_t)((e->flags & AC_CURVE_EASE_HOLD) != 0) << r;
        f->bounded |= (uint64_t)(e->kind >= AC_EASE_LINEAR && e->kind <= AC_EASE_CUBIC_IN_OUT) << r;
        if (rated) {
            double o[3];
            ease_offset(e, 0.0, 1.0, 1.0, o);
            f->rate0[r] = o[1];
            ease_offset(e, 1.0, 1.0, 1.0, o);
            f->rate1[r] = o[1];
        }
    }
    return 1;
}

/* The table entry of segment j (0 for an index out of range: read, not used). */
static AC_FORCE_INLINE size_t fact_of(const size_t *index, const ease_facts *f, size_t j)
{
    return index[j] < f->count ? index[j] : 0;
}

/* 1 when every segment's interpolation is known and every eased segment's
   easing is in the table and valid: the checks of check_keyed in one
   branch-free pass over the segments (check_keyed names the first failure);
   in the same pass, kinds_present's answers: *cubic, *eased. */
AC_VECTORIZED
static int keyed_valid(const ac_curve_spec *spec, const ease_facts *f, int *cubic, int *eased)
{
    const size_t k = spec->keys;
    const int *kinds = spec->segment_interpolation;
    const size_t *index = spec->segment_ease_index;
    int64_t ok = 1, any_cubic = 0, any_ease = 0;
    for (size_t j = 0; j + 1 < k; j++) {
        ok &= ((unsigned)kinds[j] <= AC_CURVE_EASE) &
              ((kinds[j] != AC_CURVE_EASE) | ((index[j] < f->count) & fact(f->valid, fact_of(index, f, j))));
        any_cubic |= is_cubic_kind(kinds[j]);
        any_ease |= kinds[j] == AC_CURVE_EASE;
    }
    *cubic = (int)any_cubic, *eased = (int)any_ease;
    return (int)ok;
}

/* The segment kinds of a curve with per-segment interpolations, an easing
   table without holds, no weights and no span beyond DBL_MAX, as the loop of
   ac_curve_create finds them (a jump's segment a step, a Bezier segment
   with handles of 1/3 cubic, a CSS easing KIND_CSS), in one branch-free
   pass; 1 when a segment is a CSS one. */
AC_VECTORIZED
static int plain_kinds(ac_curve *cv, const int *restrict given, const size_t *restrict index,
                       const ease_facts *restrict f)
{
    const double *restrict times = cv->times;
    unsigned char *restrict kinds = cv->kind;
    const size_t k = cv->k;
    int64_t css = 0;
    for (size_t j = 0; j + 1 < k; j++) {
        const int64_t g = given[j], open = times[j + 1] > times[j];
        const int64_t is_css = open & (g == AC_CURVE_EASE) & fact(f->css, fact_of(index, f, j));
        int64_t kind = open ? g : AC_CURVE_STEP;
        kind = kind == AC_CURVE_BEZIER ? AC_CURVE_CUBIC : kind;
        kinds[j] = (unsigned char)(is_css ? KIND_CSS : kind);
        css |= is_css;
    }
    return (int)css;
}

/* 1 when no segment is eased by an easing whose values leave [0, 1] (the
   segment bounds of those are infinite); *eased: 1 when a segment is eased. */
AC_VECTORIZED
static int eased_bounded(const ac_curve *cv, const size_t *index, const ease_facts *f,
                         int *eased)
{
    const uint64_t table = f->count >= FACTS ? ~(uint64_t)0 : ((uint64_t)1 << f->count) - 1;
    int64_t any = 0, bounded = 1;
    if ((f->bounded & table) == table) { /* every easing bounded: the kinds alone */
        for (size_t j = 0; j + 1 < cv->k; j++)
            any |= cv->kind[j] == AC_CURVE_EASE;
        *eased = (int)any;
        return 1;
    }
    for (size_t j = 0; j + 1 < cv->k; j++) {
        const int64_t e = cv->kind[j] == AC_CURVE_EASE;
        any |= e, bounded &= (e == 0) | fact(f->bounded, fact_of(index, f, j));
    }
    *eased = (int)any;
    return (int)bounded;
}

/* 1 when one of n segment kinds is cubic or Bezier; *eased: 1 when one is
   eased. */
AC_VECTORIZED
static int kinds_present(const int *kinds, size_t n, int *eased)
{
    int64_t cubic = 0, ease = 0;
    for (size_t j = 0; j < n; j++) {
        cubic |= is_cubic_kind(kinds[j]);
        ease |= kinds[j] == AC_CURVE_EASE;
    }
    *eased = (int)ease;
    return (int)cubic;
}

/* The checks of the optional per-segment and per-key arrays (`facts`, the
   easing table's, or NULL); with per-segment kinds, present[0], present[1]:
   1 when one is cubic or Bezier, one eased (kinds_present's answers). */
static ac_status check_keyed(const ac_curve_spec *spec, const ease_facts *facts,
                             int present[2], ac_error *err)
{
    size_t k = spec->keys, C = spec->channels;
    ac_status st;
    int quick = facts && spec->segment_interpolation &&
                keyed_valid(spec, facts, &present[0], &present[1]);
    if (spec->segment_interpolation && !quick) {
        for (size_t j = 0; j + 1 < k; j++)
            if ((unsigned)spec->segment_interpolation[j] > AC_CURVE_EASE)
                return ac_fail(err, AC_ERR_VALUE, j, AC_ARG_INTERPOLATION,
                               (double)spec->segment_interpolation[j],
                               "is not a known interpolation");
        present[0] = kinds_present(spec->segment_interpolation, k - 1, &present[1]);
    }
    int eased = !quick && (spec->segment_interpolation || spec->interpolation == AC_CURVE_EASE);
    for (size_t j = 0; eased && j + 1 < k; j++) {
        int kind = spec->segment_interpolation ? spec->segment_interpolation[j]
                                               : (int)spec->interpolation;
        if (kind != AC_CURVE_EASE)
            continue;
        if (!spec->segment_ease)
            return ac_fail(err, AC_ERR_VALUE, j, AC_ARG_EASE, 0.0,
                           "must be given for an eased segment (the array is NULL)");
        if (spec->segment_ease_index && spec->segment_ease_index[j] >= spec->ease_count)
            return ac_fail(err, AC_ERR_VALUE, j, AC_ARG_EASE,
                           (double)spec->segment_ease_index[j],
                           "is not an index into the %zu easings", spec->ease_count);
        if ((st = check_ease(spec_ease(spec, j), j, err)))
            return st;
    }
    for (int side = 0; side < 2; side++) {
        const double *w = side ? spec->out_weights : spec->in_weights;
        ac_arg name = side ? AC_ARG_OUT_WEIGHTS : AC_ARG_IN_WEIGHTS;
        for (size_t i = 0; w && i < k * C; i++)
            if (!ac_finite(w[i]) || w[i] < 0.0)
                return ac_fail(err, AC_ERR_VALUE, i, name, w[i], "must be finite and >= 0");
    }
    for (int side = 0; side < 2; side++) {
        ac_curve_extrapolation mode = side ? spec->after : spec->before;
        const double *sl = side ? spec->after_slopes : spec->before_slopes;
        ac_arg name = side ? AC_ARG_AFTER_SLOPES : AC_ARG_BEFORE_SLOPES;
        if (mode != AC_EXTRAP_SLOPED)
            continue;
        if (!sl)
            return ac_fail(err, AC_ERR_VALUE, 0, name, 0.0,
                           "must be given for sloped extrapolation (the array is NULL)");
        if ((st = ac_check_finite(name, sl, C, 0, err)))
            return st;
    }
    return AC_OK;
}

/* Overwrites the velocities on the sides of segment j that a non-cubic
   kind sets itself: a linear segment's slope, 0 for a step, the easing's
   end rates. End keys' outer sides follow their inner side. */
static void segment_velocities(ac_curve *cv, size_t j, int kind, double T,
                               const ease_facts *facts, size_t r)
{
    const size_t C = cv->c, k = cv->k;
    for (size_t ch = 0; ch < C; ch++) {
        double p0 = cv->values[j * C + ch], p1 = cv->values[(j + 1) * C + ch];
        double v0 = 0.0, v1 = 0.0;
        if (T > 0.0 && kind == AC_CURVE_LINEAR) {
            v0 = v1 = segment_slope(cv, j, ch);
        } else if (T > 0.0 && kind == AC_CURVE_EASE && facts && fact(facts->rated, r)) {
            /* ease_offset's rate g'(u) (p1 - p0), g' found once per easing */
            v0 = (facts->rate0[r] * (p1 - p0)) / T;
            v1 = (facts->rate1[r] * (p1 - p0)) / T;
        } else if (T > 0.0 && kind == KIND_CSS) {
            /* the rates per unit u over T; divided by T where 1 / T overflows
               (a duration below 1 / DBL_MAX), as odd_at does */
            const double *bz = cv->bez + j * BEZ_BLOCK * C, iT = 1.0 / T;
            const int over = !ac_finite(iT);
            const double rate = over ? 1.0 : iT, per = over ? T : 1.0;
            v0 = bezier_at(bz, C, ch, 0.0, rate, 1) / per;
            v1 = bezier_at(bz, C, ch, 1.0, rate, 1) / per;
        } else if (T > 0.0 && kind == AC_CURVE_EASE) {
            double o[3];
            ease_offset(segment_ease(cv, j), 0.0, p1 - p0, T, o);
            v0 = o[1] / T;
            ease_offset(segment_ease(cv, j), 1.0, p1 - p0, T, o);
            v1 = o[1] / T;
        }
        cv->out_velocity[j * C + ch] = v0;
        cv->in_velocity[(j + 1) * C + ch] = v1;
        if (j == 0)
            cv->in_velocity[ch] = v0;
        if (j + 2 == k)
            cv->out_velocity[(k - 1) * C + ch] = v1;
    }
}

/* segment_velocities for every step, linear and eased segment of a curve
   with per-segment kinds, none a CSS easing, whose easings all have their
   rates in `facts`: the same expressions, selected rather than branched to,
   so the loop runs without mispredictions (the kinds come in any order) and
   vectorizes over segments (one channel: the count known to the compiler).
   A linear segment's slope (p1 - p0) / T (slope_of) and an eased one's
   rates (rate (p1 - p0)) / T share their two divisions. */
static AC_FORCE_INLINE void plain_velocity(const double *restrict times,
                                           const double *restrict values,
                                           const unsigned char *restrict kinds, double rate0,
                                           double rate1, const double *given_in,
                                           const double *given_out, double *vin, double *vout,
                                           size_t j, size_t C)
{
    const int kind = kinds[j];
    const double T = times[j + 1] - times[j];
    const int64_t set = !is_cubic_kind(kind) & (T > 0.0), line = kind == AC_CURVE_LINEAR,
                  eased = kind == AC_CURVE_EASE;
    for (size_t ch = 0; ch < C; ch++) {
        const double p0 = values[j * C + ch], p1 = values[(j + 1) * C + ch], dv = p1 - p0;
        const double v0 = ac_pick(line | eased, ac_pick(line, dv, rate0 * dv) / T, 0.0);
        const double v1 = ac_pick(line | eased, ac_pick(line, dv, rate1 * dv) / T, 0.0);
        vout[j * C + ch] = ac_pick(set, v0, given_out[j * C + ch]);
        vin[(j + 1) * C + ch] = ac_pick(set, v1, given_in[(j + 1) * C + ch]);
    }
}

/* The passes of plain_velocities over the curve's velocities: from those
   in vin and vout (given_in, given_out: vin, vout) or from given ones,
   copied where a cubic side keeps them (each caller's pointers restrict). */
static AC_FORCE_INLINE void velocity_blocks(const ac_curve *cv, const ease_facts *restrict f,
                                            const size_t *restrict index,
                                            const double *given_in, const double *given_out,
                                            double *vin, double *vout)
{
    const size_t C = cv->c, k = cv->k;
    const double *restrict times = cv->times, *restrict values = cv->values;
    const unsigned char *restrict kinds = cv->kind;
    /* blocks of segments: their easings' rates gathered first (a load per
       segment: gathers do not vectorize), then the velocities */
    enum { BLOCK = 256 };
    double rate0[BLOCK], rate1[BLOCK];
    for (size_t j0 = 0; j0 + 1 < k; j0 += BLOCK) {
        const size_t m = k - 1 - j0 < BLOCK ? k - 1 - j0 : BLOCK;
        for (size_t i = 0; i < m; i++) {
            const size_t r = fact_of(index, f, j0 + i);
            rate0[i] = f->rate0[r], rate1[i] = f->rate1[r];
        }
        if (C == 1)
            for (size_t i = 0; i < m; i++)
                plain_velocity(times, values, kinds, rate0[i], rate1[i], given_in, given_out,
                               vin, vout, j0 + i, 1);
        else
            for (size_t i = 0; i < m; i++)
                plain_velocity(times, values, kinds, rate0[i], rate1[i], given_in, given_out,
                               vin, vout, j0 + i, C);
    }
}

/* The velocity passes of the two sources, two functions so that each loop's
   aliasing is known to the compiler (both vectorize). */
AC_VECTORIZED
static void velocities_in_place(const ac_curve *cv, const ease_facts *restrict f,
                                const size_t *restrict index, double *restrict vin,
                                double *restrict vout)
{
    velocity_blocks(cv, f, index, vin, vout, vin, vout);
}

AC_VECTORIZED
static void velocities_given(const ac_curve *cv, const ease_facts *restrict f,
                             const size_t *restrict index, const double *restrict given_in,
                             const double *restrict given_out, double *restrict vin,
                             double *restrict vout)
{
    const size_t C = cv->c, k = cv->k;
    for (size_t ch = 0; ch < C; ch++) /* the sides no segment sets */
        vin[ch] = given_in[ch], vout[(k - 1) * C + ch] = given_out[(k - 1) * C + ch];
    velocity_blocks(cv, f, index, given_in, given_out, vin, vout);
}

/* `given_in`, `given_out`: the explicit velocities, not yet in the curve's
   (copied in the same pass), or NULL (the curve's hold those of the tangent
   policy). */
static void plain_velocities(ac_curve *cv, const ease_facts *f, const size_t *index,
                             const double *given_in, const double *given_out)
{
    const size_t C = cv->c, k = cv->k;
    const double *times = cv->times;
    const unsigned char *kinds = cv->kind;
    double *vin = cv->in_velocity, *vout = cv->out_velocity;
    if (given_in)
        velocities_given(cv, f, index, given_in, given_out, vin, vout);
    else
        velocities_in_place(cv, f, index, vin, vout);
    /* end keys' outer sides follow their inner side */
    for (size_t ch = 0; k > 1 && ch < C; ch++) {
        if (!is_cubic_kind(kinds[0]) && times[1] > times[0])
            vin[ch] = vout[ch];
        if (!is_cubic_kind(kinds[k - 2]) && times[k - 1] > times[k - 2])
            vout[(k - 1) * C + ch] = vin[(k - 1) * C + ch];
    }
}

/* The reach of each end (0 before, 1 after) and derivative order: the
   largest distance d beyond the end key at which extrapolation is certain to
   give representable results, negative when even d = 0 is not. In every
   mode an order is only vouched for where safe[] says its values inside the
   keys (bounded by bound[] <= DBL_MAX / 4, up to rounding) cannot overflow,
   and d itself must be finite (DBL_MAX is the widest reach):
   - error: only the key itself (d = 0), where the inside is evaluated;
   - clamp, and cycles of a curve without span: key values and zeros;
   - linear, sloped: the value key + v d, with |key| <= DBL_MAX / 4 and
     |v| d <= DBL_MAX / 2 (with a 1% margin for the rounding of the product),
     stays below DBL_MAX; the velocity is v, which must be finite;
   - cycles: values from inside the keys, plus for cycle_offset's values a
     shift of `cycles` times delta, where |cycles| <= d / span + 4 (the fold
     counts d + span from the first key; the division and nearbyint round by
     less than one), kept below DBL_MAX / 2. */
static void set_reach(ac_curve *cv)
{
    const size_t k = cv->k, C = cv->c;
    const double span = cv->times[k - 1] - cv->times[0];
    double shift = 0.0;
    for (size_t ch = 0; ch < C; ch++)
        shift = fmax(shift, fabs(cv->delta[ch]));
    for (int end = 0; end < 2; end++) {
        ac_curve_extrapolation mode = end ? cv->after : cv->before;
        const double *key = cv->values + (end ? (k - 1) * C : 0);
        const double *v = mode == AC_EXTRAP_SLOPED ? cv->slopes + (end ? C : 0)
                                                   : cv->ends + (end ? C : 0);
        double *r = cv->reach[end], big = 0.0, fast = 0.0;
        for (size_t ch = 0; ch < C; ch++) {
            big = fmax(big, fabs(key[ch]));
            fast = ac_finite(v[ch]) ? fmax(fast, fabs(v[ch])) : INFINITY;
        }
        r[0] = r[1] = r[2] = DBL_MAX;
        if (mode == AC_EXTRAP_ERROR) {
            r[0] = r[1] = r[2] = 0.0;
        } else if (mode == AC_EXTRAP_LINEAR || mode == AC_EXTRAP_SLOPED) {
            r[0] = big <= DBL_MAX / 4.0 && ac_finite(fast)
                       ? fmin(0.99 * (DBL_MAX / 2.0) / fast, DBL_MAX)
                       : -1.0;
            r[1] = ac_finite(fast) ? DBL_MAX : -1.0;
        } else if (mode == AC_EXTRAP_CYCLE_OFFSET && k > 1 && span > 0.0 && shift > 0.0) {
            double cycles = DBL_MAX / 2.0 / shift - 4.0; /* the most cycles allowed */
            r[0] = cycles < 1.0 ? -1.0 : fmin(0.99 * span * cycles, DBL_MAX);
        }
        for (int d = 0; d < 3; d++)
            r[d] = cv->safe[d] ? r[d] : -1.0;
    }
}

/* The checks and bounds of plain_segments for channel ch of segment j:
   ok (slope, tangents and polynomial representable) and the three safe
   flags and'ed into acc[0..3]. */
static AC_FORCE_INLINE void plain_segment(const double *times, const double *values,
                                          const double *vin, const double *vout,
                                          const unsigned char *kinds, int one_kind, size_t j,
                                          size_t ch, size_t C, int keyed, int64_t slopes,
                                          int64_t acc[4])
{
    const int kind = one_kind >= 0 ? one_kind : kinds[j];
    const double t0 = times[j], t1 = times[j + 1], T = t1 - t0, iT = inv_duration(times, j);
    const double p0 = values[j * C + ch], p1 = values[(j + 1) * C + ch];
    const int64_t finite_iT = ac_finite(iT), cubic = kind == AC_CURVE_CUBIC,
                  sloped = slopes & (T > 0.0);
    double p[4], bound[3], m0, m1;
    poly_of(kind, t0, t1, p0, p1, keyed ? vout[j * C + ch] : 0.0,
            keyed ? vin[(j + 1) * C + ch] : 0.0, p, &m0, &m1);
    poly_bounds(p, iT, bound);
    acc[0] &= ac_finite(p[1]) & ac_finite(p[2]) & ac_finite(p[3]) &
              ((cubic == 0) | (ac_finite(m0) & ac_finite(m1))) &
              ((sloped == 0) | ac_finite(slope_of(t0, t1, p0, p1)));
    acc[1] &= (bound[0] <= DBL_MAX / 4.0) & finite_iT;
    acc[2] &= (bound[1] <= DBL_MAX / 4.0) & finite_iT;
    acc[3] &= (bound[2] <= DBL_MAX / 4.0) & finite_iT;
}

/* The checks and bounds of the segment loop of ac_curve_create for a curve
   whose segments are steps, linear or cubic (none Bezier or eased), in one
   branch-free pass that vectorizes (over segments for one channel): 1 when
   every slope of a linear curve (its key velocities), every tangent and
   every polynomial is representable, safe[] then and'ed with the segments'
   bounds; 0 when one is not, and the loop finds the first. */
AC_VECTORIZED
static int plain_segments(const ac_curve *cv, int safe[3])
{
    const size_t k = cv->k, C = cv->c;
    const double *times = cv->times, *values = cv->values, *vin = cv->in_velocity,
                 *vout = cv->out_velocity;
    const unsigned char *kinds = cv->kind;
    const int64_t slopes = !vin && cv->interp == AC_CURVE_LINEAR;
    int64_t acc[4] = {1, 1, 1, 1}, all_linear = 1;
    for (size_t j = 0; j + 1 < k; j++)
        all_linear &= kinds[j] == AC_CURVE_LINEAR;
    /* the common channel counts with the count known to the compiler */
    /* channel by channel: a loop over segments that vectorizes (reading
       every C-th value), with its loop-invariant flags known to the compiler
       (and the kind, where every segment is linear: the most common curve,
       whose loop then leaves out the other kinds' arithmetic) */
#define PLAIN_LOOP(C_, keyed_, kind_)                                                     \
    for (size_t ch = 0; ch < (C_); ch++)                                                  \
        for (size_t j = 0; j + 1 < k; j++)                                                \
            plain_segment(times, values, vin, vout, kinds, (kind_), j, ch, (C_), (keyed_),  \
                          slopes, acc)
    if (C == 1 && vin)
        PLAIN_LOOP(1, 1, -1);
    else if (C == 1 && all_linear)
        PLAIN_LOOP(1, 0, AC_CURVE_LINEAR);
    else if (C == 1)
        PLAIN_LOOP(1, 0, -1);
    else if (vin)
        PLAIN_LOOP(C, 1, -1);
    else if (all_linear)
        PLAIN_LOOP(C, 0, AC_CURVE_LINEAR);
    else
        PLAIN_LOOP(C, 0, -1);
#undef PLAIN_LOOP
    safe[0] &= (int)acc[1], safe[1] &= (int)acc[2], safe[2] &= (int)acc[3];
    return (int)acc[0];
}

ac_status ac_curve_create(ac_curve **result, const ac_curve_spec *spec, ac_error *err)
{
    ac_curve *cv;
    ac_status st;
    size_t k = spec->keys, C = spec->channels, kc;
    int explicit_v = spec->tangents == AC_TANGENTS_EXPLICIT, any_cubic = 0, any_bez = 0,
        any_ease = 0, mixed = spec->segment_interpolation != NULL, keyed_v, shared_v, kinds_found;
    double *scratch = NULL;
    ease_facts table;
    const ease_facts *facts = find_facts(spec, &table) ? &table : NULL;
    int any_hold = 0, all_rated = 1, plain_v;
    double largest; /* the largest |value| */
    double shortest = 0.0; /* one kind for all segments: the shortest key interval */
    int present[2] = {0, 0}; /* per-segment kinds: cubic ones, eased ones (check_keyed) */
    *result = NULL;
    if (k < 1)
        return ac_fail(err, AC_ERR_VALUE, 0, AC_ARG_TIMES, (double)k, "must hold at least one key");
    if ((unsigned)spec->interpolation > AC_CURVE_EASE)
        return ac_fail(err, AC_ERR_VALUE, 0, AC_ARG_INTERPOLATION, (double)spec->interpolation,
                       "must be step, linear, cubic, bezier or ease");
    if ((unsigned)spec->tangents > AC_TANGENTS_NATURAL)
        return ac_fail(err, AC_ERR_VALUE, 0, AC_ARG_TANGENTS, (double)spec->tangents,
                       "is not a known tangent policy");
    if ((unsigned)spec->before > AC_EXTRAP_SLOPED || (unsigned)spec->after > AC_EXTRAP_SLOPED)
        return ac_fail(err, AC_ERR_VALUE, 0, AC_ARG_EXTRAPOLATION,
                       (double)((unsigned)spec->before > AC_EXTRAP_SLOPED ? spec->before
                                                                          : spec->after),
                       "is not a known extrapolation mode");
    if (k > SIZE_MAX / 64 || (C != 0 && k > SIZE_MAX / 8 / C / sizeof(double)))
        return ac_fail(err, AC_ERR_NOMEM, 0, AC_ARG_VALUES, (double)k, "too many keys");
    kc = k * C;
    if ((st = check_times(spec->times, k, spec->jumps, err)))
        return st;
    largest = largest_magnitude(spec->values, kc);
    if ((!(largest <= DBL_MAX) && (st = check_all_finite(AC_ARG_VALUES, spec->values, kc, err))) ||
        (st = check_keyed(spec, facts, present, err)))
        return st;
    if (mixed) {
        any_cubic = present[0], any_ease = present[1];
    } else {
        any_cubic = k > 1 && is_cubic_kind((int)spec->interpolation);
        any_ease = k > 1 && spec->interpolation == AC_CURVE_EASE;
    }
    if (explicit_v && any_cubic) {
        if (!spec->in_velocities || !spec->out_velocities)
            return ac_fail(err, AC_ERR_VALUE, 0,
                           spec->in_velocities ? AC_ARG_OUT_VELOCITIES : AC_ARG_IN_VELOCITIES, 0.0,
                           "must be given for explicit tangents (the array is NULL)");
        if ((st = check_all_finite(AC_ARG_IN_VELOCITIES, spec->in_velocities, kc, err)) ||
            (spec->out_velocities != spec->in_velocities &&
             (st = check_all_finite(AC_ARG_OUT_VELOCITIES, spec->out_velocities, kc, err))))
            return st;
    }
    /* Key velocities are stored unless every segment is a step or linear
       (then they follow from the values); once where both sides are equal
       by construction. */
    keyed_v = mixed || spec->interpolation > AC_CURVE_LINEAR;
    shared_v = keyed_v && !mixed &&
               (spec->interpolation == AC_CURVE_CUBIC || spec->interpolation == AC_CURVE_BEZIER) &&
               (explicit_v ? k == 1 || spec->in_velocities == spec->out_velocities
                           : spec->tangents != AC_TANGENTS_CATMULL_ROM_UNIFORM);

    /* One block holds the curve and its key arrays side by side: times,
       values, key velocities, the outer velocities, delta and slopes, then
       the segment kinds. (Bezier blocks and easings, where there are any,
       have blocks of their own.) */
    {
        size_t velocities = keyed_v ? (shared_v ? kc : 2 * kc) + (k - 1) : 0;
        size_t doubles = (spec->borrow_keys ? 0 : k + kc) + velocities + 5 * C;
        double *d;
        cv = ac_mem_alloc(spec->allocator, sizeof *cv + doubles * sizeof(double) + k);
        if (!cv)
            return ac_fail(err, AC_ERR_NOMEM, 0, AC_ARG_TIMES, (double)k, "out of memory");
        memset(cv, 0, sizeof *cv);
        d = (double *)(cv + 1);
        if (spec->borrow_keys) {
            cv->times = spec->times, cv->values = spec->values;
        } else {
            memcpy(d, spec->times, k * sizeof(double));
            cv->times = d, d += k;
            if (kc)
                memcpy(d, spec->values, kc * sizeof(double));
            cv->values = d, d += kc;
        }
        if (keyed_v) {
            cv->in_velocity = d, d += kc;
            cv->out_velocity = shared_v ? cv->in_velocity : d;
            d += shared_v ? 0 : kc;
            inv_durations(cv->times, k, d);
            cv->inv = d, d += k - 1;
        }
        cv->ends = d, d += 2 * C;
        cv->delta = d, d += C;
        cv->slopes = d, d += 2 * C;
        memset(cv->ends, 0, 5 * C * sizeof(double));
        cv->kind = (unsigned char *)d;
    }
    if (spec->allocator)
        cv->mem = *spec->allocator;
    cv->k = k, cv->c = C;
    /* velocities of a curve with any cubic or Bezier segment follow the policy
       as for a cubic curve; the other kinds then set their own sides */
    cv->interp = mixed || spec->interpolation >= AC_CURVE_BEZIER
                     ? (any_cubic ? AC_CURVE_CUBIC : AC_CURVE_LINEAR)
                     : spec->interpolation;
    cv->before = spec->before, cv->after = spec->after;
    /* the natural spline's 2k scratch values */
    if (cv->interp == AC_CURVE_CUBIC && spec->tangents == AC_TANGENTS_NATURAL &&
        !(explicit_v && any_cubic) && k > 1)
        scratch = ac_mem_alloc(&cv->mem, 2 * k * sizeof(double));
    if (any_ease) { /* the table and the index as given, or one easing per segment */
        size_t count = spec->segment_ease_index ? spec->ease_count : k - 1;
        if ((cv->ease = ac_mem_alloc(&cv->mem, count * sizeof *cv->ease)) != NULL)
            memcpy(cv->ease, spec->segment_ease, count * sizeof *cv->ease);
        if (spec->segment_ease_index && spec->borrow_ease_index)
            cv->ease_index = spec->segment_ease_index;
        else if (spec->segment_ease_index &&
                 (cv->own_index = ac_mem_alloc(&cv->mem, k * sizeof *cv->own_index)) != NULL) {
            memcpy(cv->own_index, spec->segment_ease_index, (k - 1) * sizeof *cv->own_index);
            cv->ease_index = cv->own_index;
        }
    }
    if ((cv->interp == AC_CURVE_CUBIC && spec->tangents == AC_TANGENTS_NATURAL &&
         !(explicit_v && any_cubic) && k > 1 && !scratch) ||
        (any_ease && (!cv->ease || (spec->segment_ease_index && !cv->ease_index)))) {
        ac_mem_release(&cv->mem, scratch);
        ac_curve_destroy(cv);
        return ac_fail(err, AC_ERR_NOMEM, 0, AC_ARG_TIMES, (double)k, "out of memory");
    }
    /* the cycle_offset shift: from the right side of the first key time to
       the left side of the last (jumps at the end keys excluded) */
    size_t first_right = (k > 1 && cv->times[1] == cv->times[0]) ? 1 : 0;
    size_t last_left = (k > 1 && cv->times[k - 2] == cv->times[k - 1]) ? k - 2 : k - 1;
    for (size_t ch = 0; ch < C; ch++) {
        cv->delta[ch] = cv->values[last_left * C + ch] - cv->values[first_right * C + ch];
        cv->slopes[ch] = spec->before == AC_EXTRAP_SLOPED ? spec->before_slopes[ch] : 0.0;
        cv->slopes[C + ch] = spec->after == AC_EXTRAP_SLOPED ? spec->after_slopes[ch] : 0.0;
    }
    /* Segment kinds: as given, but a jump's zero-length segment is a step,
       a Bezier one with handles of 1/3 cubic, a CSS easing a Bezier one,
       an AC_CURVE_EASE_HOLD easing a step that lands */
    if (!mixed && spec->interpolation <= AC_CURVE_CUBIC && k > 1)
        shortest = ac_track_shortest(cv->times, k); /* (the times are valid) */
    kinds_found = !mixed && spec->interpolation <= AC_CURVE_CUBIC && (k == 1 || shortest > 0.0);
    if (kinds_found && k > 1) /* every segment as given */
        memset(cv->kind, (int)spec->interpolation, k - 1);
    for (size_t r = 0; facts && r < facts->count; r++)
        any_hold |= (int)fact(facts->hold, r), all_rated &= (int)fact(facts->rated, r);
    if (!kinds_found && mixed && facts && !any_hold && !spec->in_weights && !spec->out_weights &&
        ac_finite(cv->times[k - 1] - cv->times[0])) {
        any_bez = plain_kinds(cv, spec->segment_interpolation, spec->segment_ease_index, facts);
        kinds_found = 1;
    }
    for (size_t j = 0; j + 1 < k && !kinds_found; j++) {
        int kind = mixed ? spec->segment_interpolation[j] : (int)spec->interpolation;
        if (!(cv->times[j + 1] > cv->times[j]))
            kind = AC_CURVE_STEP; /* the zero-length segment of a jump */
        if (kind == AC_CURVE_BEZIER) { /* weights of 1/3 on both sides: Hermite */
            int hermite = 1;
            for (size_t ch = 0; ch < C; ch++) {
                double wo = spec->out_weights ? spec->out_weights[j * C + ch] : 1.0 / 3.0;
                double wi = spec->in_weights ? spec->in_weights[(j + 1) * C + ch] : 1.0 / 3.0;
                hermite &= wo == 1.0 / 3.0 && wi == 1.0 / 3.0;
            }
            if (hermite)
                kind = AC_CURVE_CUBIC;
        }
        if (kind == AC_CURVE_EASE && spec_ease(spec, j)->kind == AC_CURVE_EASE_CUBIC_BEZIER)
            kind = KIND_CSS;
        if (kind == AC_CURVE_EASE && (spec_ease(spec, j)->flags & AC_CURVE_EASE_HOLD)) {
            kind = AC_CURVE_STEP; /* a step that reaches its end key at its end */
            if (!cv->lands && !(cv->lands = ac_mem_zeroed(&cv->mem, k, 1))) {
                ac_mem_release(&cv->mem, scratch);
                ac_curve_destroy(cv);
                return ac_fail(err, AC_ERR_NOMEM, 0, AC_ARG_TIMES, (double)k, "out of memory");
            }
            cv->lands[j] = 1;
        }
        if (kind > AC_CURVE_CUBIC && !ac_finite(cv->times[j + 1] - cv->times[j])) {
            ac_mem_release(&cv->mem, scratch);
            ac_curve_destroy(cv);
            return ac_fail(err, AC_ERR_VALUE, j + 1, AC_ARG_TIMES, spec->times[j + 1],
                           "is more than DBL_MAX after the previous key: segment %zu "
                           "needs step, linear or cubic interpolation", j);
        }
        cv->kind[j] = (unsigned char)kind;
        any_bez |= kind == AC_CURVE_BEZIER || kind == KIND_CSS;
    }
    if (any_bez && !(cv->bez = alloc(&cv->mem, (k - 1) * BEZ_BLOCK * C))) {
        ac_mem_release(&cv->mem, scratch);
        ac_curve_destroy(cv);
        return ac_fail(err, AC_ERR_NOMEM, 0, AC_ARG_TIMES, (double)k, "out of memory");
    }
    for (size_t j = 0; any_bez && j + 1 < k; j++) {
        const ac_curve_ease *e;
        if (cv->kind[j] != KIND_CSS)
            continue;
        e = spec_ease(spec, j); /* given: the segment is eased */
        for (size_t ch = 0; ch < C; ch++) {
            double p0 = cv->values[j * C + ch], dv = cv->values[(j + 1) * C + ch] - p0;
            double *bz = cv->bez + j * BEZ_BLOCK * C, a, b, c;
            bezier_css_block(bz, C, ch, e->x1, e->y1, e->x2, e->y2, p0, dv);
            /* the value cubic ((a s + b) s + c) s + d and its rate (3 a s + 2 b) s
               + c: their terms and their partial sums at s = 1 finite (from s = 0 to
               1 the partial sums a s + b, 3 a s + 2 b run between finite ends; the key
               velocities are the rates at the ends) */
            a = bz[6 * C + ch], b = bz[5 * C + ch], c = bz[4 * C + ch];
            if (!(ac_finite(3.0 * a) && ac_finite(2.0 * b) && ac_finite(3.0 * a + 2.0 * b + c) &&
                  ac_finite(a + b + c))) {
                const double value = cv->values[(j + 1) * C + ch]; /* (read before cv goes) */
                ac_mem_release(&cv->mem, scratch);
                ac_curve_destroy(cv);
                return ac_fail(err, AC_ERR_OVERFLOW, (j + 1) * C + ch, AC_ARG_VALUES, value,
                               "makes segment %zu's polynomial not representable", j);
            }
            bezier_table(bz, C, ch); /* needed by the key velocities */
        }
    }

    /* Key velocities, piece by piece (jumps split the keys into pieces). */
    plain_v = mixed && facts && !any_bez && all_rated && k > 1;
    if (!keyed_v) {
        /* step and linear segments: only the slopes, checked with the
           segments below; the outer sides of the end keys: a lone end key (a jump there) and
           steps have 0, else the end segment's slope */
        for (size_t ch = 0; ch < C; ch++) {
            int linear = cv->interp == AC_CURVE_LINEAR && k > 1;
            cv->ends[ch] = linear && cv->times[1] > cv->times[0] ? segment_slope(cv, 0, ch) : 0.0;
            cv->ends[C + ch] = linear && cv->times[k - 1] > cv->times[k - 2]
                                   ? segment_slope(cv, k - 2, ch)
                                   : 0.0;
        }
    } else {
        if (k == 1) {
            for (size_t i = 0; i < kc; i++)
                cv->in_velocity[i] = cv->out_velocity[i] = 0.0;
        } else if (explicit_v && any_cubic && plain_v) {
            /* copied by plain_velocities, in its pass */
        } else if (explicit_v && any_cubic) {
            memcpy(cv->in_velocity, spec->in_velocities, kc * sizeof(double));
            if (cv->out_velocity != cv->in_velocity)
                memcpy(cv->out_velocity, spec->out_velocities, kc * sizeof(double));
        } else {
            key_velocities(cv, spec->tangents, cv->in_velocity, cv->out_velocity, scratch);
        }
        ac_mem_release(&cv->mem, scratch);
        scratch = NULL;
        if (!(explicit_v && any_cubic))
            for (size_t i = 0; i < kc; i++)
                if (!ac_finite(cv->in_velocity[i]) || !ac_finite(cv->out_velocity[i])) {
                    double v = ac_finite(cv->in_velocity[i]) ? cv->out_velocity[i]
                                                              : cv->in_velocity[i];
                    ac_curve_destroy(cv);
                    return ac_fail(err, AC_ERR_OVERFLOW, i, AC_ARG_VELOCITY, v,
                                   "the values and times give a key velocity that is not "
                                   "representable");
                }
        if (plain_v)
            plain_velocities(cv, facts, spec->segment_ease_index,
                             explicit_v && any_cubic ? spec->in_velocities : NULL,
                             explicit_v && any_cubic ? spec->out_velocities : NULL);
        else if (cv->interp != spec->interpolation || mixed) /* may be infinite: circ_in's end */
            for (size_t j = 0; j + 1 < k; j++)
                if (!is_cubic_kind(cv->kind[j]) && cv->times[j + 1] > cv->times[j])
                    segment_velocities(cv, j, cv->kind[j], cv->times[j + 1] - cv->times[j],
                                       facts, facts ? fact_of(spec->segment_ease_index, facts, j) : 0);
        for (size_t ch = 0; ch < C; ch++) {
            cv->ends[ch] = cv->in_velocity[ch];
            cv->ends[C + ch] = cv->out_velocity[(k - 1) * C + ch];
        }
    }

    /* Segments: the tangents (duration * velocity) and polynomial of each,
       checked, and bounds on its values and rates. */
    /* values: every segment whose value has a bound below (all but easings
       that leave [0, 1] and CSS curves); rates: every step, linear, cubic
       and Bezier segment with bounds below (not eased segments) */
    cv->safe[0] = cv->safe[1] = cv->safe[2] = 1;
    if (!any_bez && (!any_ease || facts) &&
        ((!mixed && linear_surely_plain(cv, largest, shortest)) || plain_segments(cv, cv->safe))) {
        /* eased segments: values bounded by a bounded easing's, rates not */
        int eased = 0;
        if (any_ease) {
            cv->safe[0] &= eased_bounded(cv, spec->segment_ease_index, facts, &eased);
            cv->safe[1] &= !eased, cv->safe[2] &= !eased;
        }
        set_reach(cv);
        *result = cv;
        return AC_OK;
    }
    /* one that fails, or Bezier and eased segments: one at a time */
    cv->safe[0] = cv->safe[1] = cv->safe[2] = 1;
    /* a linear curve's slopes are its key velocities: the first segment
       whose slope overflows is the first key whose velocity does (on its
       out side) */
    for (size_t j = 0; !keyed_v && cv->interp == AC_CURVE_LINEAR && j + 1 < k; j++)
        for (size_t ch = 0; ch < C && cv->times[j + 1] > cv->times[j]; ch++) {
            double v = segment_slope(cv, j, ch);
            if (!ac_finite(v)) {
                ac_curve_destroy(cv);
                return ac_fail(err, AC_ERR_OVERFLOW, j * C + ch, AC_ARG_VELOCITY, v,
                               "the values and times give a key velocity that is not "
                               "representable");
            }
        }
    for (size_t j = 0; j + 1 < k; j++) {
        double T = cv->times[j + 1] - cv->times[j], iT = inv_duration(cv->times, j);
        int kind = cv->kind[j];
        for (size_t ch = 0; ch < C; ch++) {
            double p0 = cv->values[j * C + ch], p1 = cv->values[(j + 1) * C + ch];
            double m0 = 0.0, m1 = 0.0, a = 0.0, b = 0.0, c = 0.0, d = p0, bound[3], poly[4];
            if (kind == AC_CURVE_CUBIC || kind == AC_CURVE_BEZIER) {
                double wo = 1.0 / 3.0, wi = 1.0 / 3.0;
                double v0 = cv->out_velocity[j * C + ch], v1 = cv->in_velocity[(j + 1) * C + ch];
                if (kind == AC_CURVE_BEZIER) {
                    /* Blender's rule: a handle longer than the segment is
                       scaled back along itself to the segment's length */
                    wo = spec->out_weights ? spec->out_weights[j * C + ch] : wo;
                    wi = spec->in_weights ? spec->in_weights[(j + 1) * C + ch] : wi;
                    if (!spec->long_handles) {
                        wo = fmin(wo, 1.0), wi = fmin(wi, 1.0);
                    } else {
                        /* dx/ds / 3 = wo (1-s)^2 + 2 (1 - wi - wo) s (1-s) + wi s^2 >= 0 */
                        double mid = 1.0 - wi - wo;
                        if (mid < 0.0 && mid * mid > wo * wi) {
                            ac_curve_destroy(cv);
                            return ac_fail(err, AC_ERR_VALUE, j * C + ch, AC_ARG_OUT_WEIGHTS, wo,
                                           "with in_weights[%zu]=%.15g makes segment %zu's "
                                           "time go backwards (regressive handles)",
                                           j + 1, wi, j);
                        }
                    }
                }
                hermite_tangents(cv->times[j], cv->times[j + 1], v0, v1, &m0, &m1);
                if (!ac_finite(m0) || !ac_finite(m1) || !ac_finite(m0 * wo) ||
                    !ac_finite(m1 * wi)) {
                    int first = !ac_finite(m0) || !ac_finite(m0 * wo);
                    size_t key = first ? j : j + 1;
                    double v = first ? cv->out_velocity[j * C + ch]
                                     : cv->in_velocity[(j + 1) * C + ch];
                    ac_curve_destroy(cv);
                    return ac_fail(err, AC_ERR_OVERFLOW, key * C + ch,
                                   explicit_v ? (first ? AC_ARG_OUT_VELOCITIES : AC_ARG_IN_VELOCITIES)
                                              : AC_ARG_VELOCITY,
                                   v,
                                   "times duration=%.15g gives a tangent that is not "
                                   "representable",
                                   T);
                }
                if (kind == AC_CURVE_BEZIER) {
                    /* control points (0, p0), (wo, p0 + wo m0), (1 - wi, p1 - wi m1), (1, p1) */
                    double x1 = wo, x2 = 1.0 - wi, y0 = p0, y1 = p0 + wo * m0,
                           y2 = p1 - wi * m1, y3 = p1;
                    double *bz = cv->bez + j * BEZ_BLOCK * C;
                    bz[ch] = 3.0 * x1, bz[C + ch] = 3.0 * (x2 - 2.0 * x1);
                    bz[2 * C + ch] = 1.0 + 3.0 * (x1 - x2);
                    bz[3 * C + ch] = y0, bz[4 * C + ch] = 3.0 * (y1 - y0);
                    /* differences first: finite for keys near DBL_MAX (2 y1 is not) */
                    bz[5 * C + ch] = 3.0 * ((y0 - y1) + (y2 - y1));
                    bz[6 * C + ch] = y3 - y0 + 3.0 * (y1 - y2);
                    a = bz[6 * C + ch], b = bz[5 * C + ch], c = bz[4 * C + ch];
                }
            }
            if (kind != AC_CURVE_BEZIER) { /* the polynomial evaluation makes */
                segment_poly(cv, j, ch, poly);
                d = poly[0], c = poly[1], b = poly[2], a = poly[3];
            }
            if (!ac_finite(a) || !ac_finite(b) || !ac_finite(c)) {
                ac_curve_destroy(cv);
                return ac_fail(err, AC_ERR_OVERFLOW, (j + 1) * C + ch, AC_ARG_VALUES, p1,
                               "makes segment %zu's polynomial not representable", j);
            }
            /* Bounds on |x|, |x'| and |x''| for u in [0, 1], with a margin for
               rounding: within them no result can overflow. A Bezier value is
               its value cubic at an s in [0, 1] (a, b, c: ay, by, cy here); an
               easing of [0, 1] into [0, 1] gives d + g c with |g| <= 1. */
            poly[0] = d, poly[1] = c, poly[2] = b, poly[3] = a;
            poly_bounds(poly, iT, bound);
            if (kind == KIND_CSS || (kind == AC_CURVE_EASE && !(segment_ease(cv, j)->kind >= AC_EASE_LINEAR &&
                                                                 segment_ease(cv, j)->kind <= AC_EASE_CUBIC_IN_OUT)))
                bound[0] = INFINITY;
            if (kind == AC_CURVE_BEZIER)
                bezier_rate_bounds(cv->bez + j * BEZ_BLOCK * C, C, ch, iT, bound);
            else if (kind > AC_CURVE_CUBIC) /* eased: the rates of an easing are not bounded */
                bound[1] = bound[2] = INFINITY;
            for (int r = 0; r < 3; r++) /* 1 / duration overflows: u is not finite */
                cv->safe[r] &= bound[r] <= DBL_MAX / 4.0 && ac_finite(iT);
        }
    }
    set_reach(cv);
    for (size_t j = 0; j + 1 < k && cv->bez; j++) { /* the inverse-time tables */
        double *bz = cv->bez + j * BEZ_BLOCK * C;
        if (cv->kind[j] != AC_CURVE_BEZIER && cv->kind[j] != KIND_CSS)
            continue;
        for (size_t ch = 0; ch < C; ch++)
            bezier_table(bz, C, ch);
    }
    *result = cv;
    return AC_OK;
}

/* ------------------------------------------------------------- evaluation */

/* A segment whose keys lie more than DBL_MAX apart (-1e308 to 1e308). */
static inline int is_wide(const ac_curve *cv, size_t j)
{
    return !ac_finite(cv->times[j + 1] - cv->times[j]);
}

/* 1 when segment j, of inverse duration iT (seg_inv), is wide or shorter
   than 1 / DBL_MAX (iT not finite: a jump's is 0, a wide one's 1 / (T / 2)):
   odd_at evaluates it. */
static AC_FORCE_INLINE int is_odd(const ac_curve *cv, size_t j, double iT)
{
    return is_wide(cv, j) || !ac_finite(iT);
}

/* u of time t in segment j where the inverse duration is not finite: the
   offset over the duration (the offsets of times this close are exact;
   (t0 - t0) * inf would be NaN). */
static AC_FORCE_INLINE double short_u(const ac_curve *cv, size_t j, double t)
{
    return (t - cv->times[j]) / (cv->times[j + 1] - cv->times[j]);
}

/* The polynomial of one segment and its derivatives. The scalar path (emit)
   and the run path (eval_run) use these same expressions, so every query
   gives the same bits whichever path it takes. */
#define AC_CURVE_X(a, b, c, d, u) (((a) * (u) + (b)) * (u) + (c)) * (u) + (d)
#define AC_CURVE_DX(a, b, c, u, iT) (((3.0 * (a)) * (u) + 2.0 * (b)) * (u) + (c)) * (iT)
#define AC_CURVE_DDX(a, b, u, iT) (((6.0 * (a)) * (u) + 2.0 * (b)) * (iT)) * (iT)

/* Channel ch of segment j (of kind `kind`) at time t, at u in the segment,
   into x: the value, or a derivative with the factor iT per unit of u (the
   inverse duration: per second). A macro, so that emit's loop keeps the
   code it had (the same as a function, even inlined, ran slower). */
#define AC_CURVE_CHANNEL(cv, j, kind, ch, t, u, iT, deriv, x)                          \
    do {                                                                               \
        const size_t C_ = (cv)->c;                                                     \
        double p_[4];                                                                  \
        if ((kind) != AC_CURVE_BEZIER && (kind) != KIND_CSS)                           \
            segment_poly(cv, j, ch, p_);                                               \
        if ((kind) == AC_CURVE_BEZIER || (kind) == KIND_CSS) {                         \
            (x) = bezier_at((cv)->bez + (j) * BEZ_BLOCK * C_, C_, ch, u, iT, deriv);   \
        } else if ((kind) == AC_CURVE_EASE) {                                          \
            double e_[3];                                                              \
            ease_offset_at(segment_ease(cv, j), u, p_[1],                              \
                           (cv)->times[(j) + 1] - (cv)->times[j], (deriv) > 0, e_);    \
            (x) = (deriv) == 0   ? p_[0] + e_[0]                                       \
                  : (deriv) == 1 ? e_[1] * (iT)                                        \
                                 : e_[2] * (iT) * (iT);                                \
        } else if ((deriv) == 0) { /* AC_CURVE_EASE_HOLD: the end key at the end */    \
            (x) = (kind) == AC_CURVE_STEP && (cv)->lands && (cv)->lands[j] &&          \
                          (t) >= (cv)->times[(j) + 1]                                  \
                      ? (cv)->values[((j) + 1) * C_ + (ch)]                            \
                      : AC_CURVE_X(p_[3], p_[2], p_[1], p_[0], u);                     \
        } else if ((deriv) == 1) {                                                     \
            (x) = AC_CURVE_DX(p_[3], p_[2], p_[1], u, iT);                             \
        } else {                                                                       \
            (x) = AC_CURVE_DDX(p_[3], p_[2], u, iT);                                   \
        }                                                                              \
    } while (0)

/* The value or derivative of an odd segment j (is_odd) at time t into
   o[0..c). Rare, so this scalar path keeps the others unchanged. Keys more
   than DBL_MAX apart (step, linear or cubic): t - t0 and the duration
   overflow, so u is computed on halves (inv_duration holds 1 / (duration /
   2)). Keys less than 1 / DBL_MAX apart: the inverse duration overflows, so
   u is short_u and the rates per unit u are divided by the duration, once
   per order (a zero rate stays 0, one too large for a double overflows). */
static void odd_at(const ac_curve *cv, size_t j, double t, int deriv, double *o)
{
    const double t0 = cv->times[j], T = cv->times[j + 1] - t0, iT2 = seg_inv(cv, j);
    const int kind = cv->kind[j], wide = !ac_finite(T);
    const double u = wide ? (0.5 * t - 0.5 * t0) * iT2 : short_u(cv, j, t);
    const double r = wide ? 0.5 * iT2 : 1.0; /* rates per second, or per unit u */
    for (size_t ch = 0; ch < cv->c; ch++) {
        double x;
        AC_CURVE_CHANNEL(cv, j, kind, ch, t, u, r, deriv, x);
        o[ch] = wide || deriv == 0 ? x : deriv == 1 ? x / T : x / T / T;
    }
}

/* Writes the value or derivative of segment j at time t into o[0..c).
   `sign` flips the first derivative (mirrored cycles), `cycles` adds that
   many cycle_offset shifts to values. */
static void emit(const ac_curve *cv, size_t j, double t, int deriv, double sign,
                 double cycles, double *restrict o)
{
    const size_t C = cv->c;
    const double t0 = cv->times[j], iT = seg_inv(cv, j);
    const double u = (t - t0) * iT;
    int kind = cv->kind[j];
    if (is_odd(cv, j, iT)) {
        odd_at(cv, j, t, deriv, o);
        if (deriv == 1 && sign < 0.0)
            for (size_t ch = 0; ch < C; ch++)
                o[ch] = -o[ch];
        if (deriv == 0 && cycles != 0.0)
            for (size_t ch = 0; ch < C; ch++)
                if (cv->delta[ch] != 0.0)
                    o[ch] += cycles * cv->delta[ch];
        return;
    }
    for (size_t ch = 0; ch < C; ch++) {
        AC_CURVE_CHANNEL(cv, j, kind, ch, t, u, iT, deriv, o[ch]);
        if (deriv == 0 && cycles != 0.0 && cv->delta[ch] != 0.0) /* inf cycles x 0: no shift */
            o[ch] += cycles * cv->delta[ch];
        else if (deriv == 1 && sign < 0.0)
            o[ch] = -o[ch];
    }
}

/* A remapping easing on the unit square: g(u), g'(u), g''(u) (the rates
   only when `rates`). A CSS cubic-bezier is read from its unit block
   (bezier_css_block, built once per block of queries): the solve and
   formulas of CubicBezier and of a CSS-eased segment. */
static void ease_unit(const ac_curve_ease *e, const double *unit_block, double u, int rates,
                      double g[3])
{
    if (e->kind == AC_CURVE_EASE_CUBIC_BEZIER) { /* the ends exactly, as CubicBezier */
        g[0] = u == 0.0 ? 0.0 : u == 1.0 ? 1.0 : bezier_at(unit_block, 1, 0, u, 1.0, 0);
        if (rates)
            g[1] = bezier_at(unit_block, 1, 0, u, 1.0, 1),
            g[2] = bezier_at(unit_block, 1, 0, u, 1.0, 2);
        return;
    }
    {
        ac_curve_ease r = *e;
        r.flags |= AC_CURVE_EASE_RELATIVE;
        ease_offset_at(&r, u, 1.0, 1.0, rates, g);
    }
}

/* g = ease(u) and its derivatives for m values of u in [0, 1] (g1, g2 NULL
   when not needed). The common kinds have loops of their own that
   vectorize; the others go point by point. */
AC_VECTORIZED
static void ease_block(const ac_curve_ease *e, const double *restrict u, size_t m,
                       double *restrict g0, double *restrict g1, double *restrict g2)
{
    switch (e->kind) {
    case AC_EASE_LINEAR:
        for (size_t i = 0; i < m; i++)
            g0[i] = u[i];
        if (g1)
            for (size_t i = 0; i < m; i++)
                g1[i] = 1.0, g2[i] = 0.0;
        return;
    case AC_EASE_SMOOTHSTEP: /* (the formulas of ac_ease_formulas.h, inlined) */
        for (size_t i = 0; i < m; i++)
            g0[i] = f_smoothstep(u[i]);
        if (g1)
            for (size_t i = 0; i < m; i++)
                g1[i] = d_smoothstep(u[i]), g2[i] = dd_smoothstep(u[i]);
        return;
    case AC_EASE_SMOOTHERSTEP:
        for (size_t i = 0; i < m; i++)
            g0[i] = f_smootherstep(u[i]);
        if (g1)
            for (size_t i = 0; i < m; i++)
                g1[i] = d_smootherstep(u[i]), g2[i] = dd_smootherstep(u[i]);
        return;
    case AC_EASE_QUAD_IN: case AC_EASE_QUAD_OUT: case AC_EASE_QUAD_IN_OUT:
    case AC_EASE_CUBIC_IN: case AC_EASE_CUBIC_OUT: case AC_EASE_CUBIC_IN_OUT:
        if (!g1) { /* the values of the power families, one loop each */
#define POW2(x) ((x) * (x))
#define POW3(x) ((x) * (x) * (x))
#define EASE_LOOP(expr)                                                         \
    for (size_t i = 0; i < m; i++) {                                            \
        double x = u[i], y = 1.0 - x, a = 2.0 * x, b = 2.0 - 2.0 * x, r = (expr); \
        (void)y, (void)a, (void)b;                                              \
        g0[i] = ac_pick(x == 0.0, 0.0, ac_pick(x == 1.0, 1.0, r));              \
    }
            switch (e->kind) {
            case AC_EASE_QUAD_IN: EASE_LOOP(POW2(x)); break;
            case AC_EASE_QUAD_OUT: EASE_LOOP(x * (2.0 - x)); break;
            case AC_EASE_QUAD_IN_OUT:
                EASE_LOOP(ac_pick(x < 0.5, 0.5 * POW2(a), 1.0 - 0.5 * POW2(b)));
                break;
            case AC_EASE_CUBIC_IN: EASE_LOOP(POW3(x)); break;
            case AC_EASE_CUBIC_OUT: EASE_LOOP(1.0 - POW3(y)); break;
            default: EASE_LOOP(ac_pick(x < 0.5, 0.5 * POW3(a), 1.0 - 0.5 * POW3(b))); break;
            }
#undef EASE_LOOP
#undef POW3
#undef POW2
            return;
        }
        /* fall through */
    default: {
        double unit[BEZ_BLOCK];
        if (e->kind == AC_CURVE_EASE_CUBIC_BEZIER) {
            bezier_css_block(unit, 1, 0, e->x1, e->y1, e->x2, e->y2, 0.0, 1.0);
            bezier_table(unit, 1, 0);
        }
        for (size_t i = 0; i < m; i++) {
            double g[3];
            ease_unit(e, unit, u[i], g1 != NULL, g);
            g0[i] = g[0];
            if (g1)
                g1[i] = g[1], g2[i] = g[2];
        }
    }
    }
}

#ifdef AC_SIMD
/* 1 when ease_lanes has the values of this easing kind */
static int has_ease_lanes(int kind)
{
    return kind >= AC_EASE_LINEAR && kind <= AC_EASE_CUBIC_IN_OUT;
}

/* ease_block's values of the kinds of has_ease_lanes, in lanes: the same
   expressions, so the same bits. */
AC_SIMD_FN ac_vd ease_lanes(int kind, ac_vd x)
{
    const ac_vd zero = ac_vd_splat(0.0), one = ac_vd_splat(1.0), half = ac_vd_splat(0.5);
    ac_vd y = 1.0 - x, a = 2.0 * x, b = 2.0 - 2.0 * x, r;
    switch (kind) {
    case AC_EASE_LINEAR: return x;
    case AC_EASE_SMOOTHSTEP: return x * x * (3.0 - 2.0 * x);
    case AC_EASE_SMOOTHERSTEP: return x * x * x * (x * (6.0 * x - 15.0) + 10.0);
    case AC_EASE_QUAD_IN: r = x * x; break;
    case AC_EASE_QUAD_OUT: r = x * (2.0 - x); break;
    case AC_EASE_QUAD_IN_OUT: r = ac_vd_blend(ac_vd_lt(x, half), 0.5 * (a * a), 1.0 - 0.5 * (b * b)); break;
    case AC_EASE_CUBIC_IN: r = x * x * x; break;
    case AC_EASE_CUBIC_OUT: r = 1.0 - y * y * y; break;
    default: r = ac_vd_blend(ac_vd_lt(x, half), 0.5 * (a * a * a), 1.0 - 0.5 * (b * b * b));
    }
    return ac_vd_blend(ac_vd_eq(x, zero), zero, ac_vd_blend(ac_vd_eq(x, one), one, r));
}

/* ease_run's values of one channel for n queries: u, the easing and the
   value in one pass. */
AC_SIMD_FN void ease_run_kind(int kind, double t0, double iT, double d0, double c0,
                              const double *restrict t, size_t n, double *restrict o)
{
    size_t r = 0;
    for (; r + AC_LANES <= n; r += AC_LANES) {
        ac_vd y = d0 + ease_lanes(kind, (ac_vd_load1(t + r, 1) - t0) * iT) * c0;
        memcpy(o + r, &y, sizeof y);
    }
    if (r < n) { /* the last lanes, in part */
        ac_vd y = d0 + ease_lanes(kind, (ac_vd_load_first(t + r, (int)(n - r)) - t0) * iT) * c0;
        ac_vd_store_first(o + r, (int)(n - r), y);
    }
}

/* One loop per kind (the kind known in it, so no switch per group of lanes
   and no unused terms). */
AC_SIMD_KERNEL void ease_run_lanes(int kind, double t0, double iT, double d0, double c0,
                                   const double *restrict t, size_t n, double *restrict o)
{
    switch (kind) {
#define EASE_CASE(k) case k: ease_run_kind(k, t0, iT, d0, c0, t, n, o); return;
    EASE_CASE(AC_EASE_LINEAR) EASE_CASE(AC_EASE_SMOOTHSTEP) EASE_CASE(AC_EASE_SMOOTHERSTEP)
    EASE_CASE(AC_EASE_QUAD_IN) EASE_CASE(AC_EASE_QUAD_OUT) EASE_CASE(AC_EASE_QUAD_IN_OUT)
    EASE_CASE(AC_EASE_CUBIC_IN) EASE_CASE(AC_EASE_CUBIC_OUT)
#undef EASE_CASE
    default: ease_run_kind(AC_EASE_CUBIC_IN_OUT, t0, iT, d0, c0, t, n, o);
    }
}
#endif

/* The queries of one eased segment (not elastic, whose shape depends on
   the change), in chunks: the easing once per query for all channels. */
AC_VECTORIZED
static void ease_run(const ac_curve *cv, size_t j, const double *restrict t, size_t m,
                     int deriv, double *restrict o)
{
    enum { CHUNK = 128 };
    const size_t C = cv->c;
    /* the polynomial d + g c of the eased value (segment_poly): d = p0,
       c = p1 - p0 */
    const double *d = cv->values + j * C, *p1 = d + C;
    const double t0 = cv->times[j], iT = seg_inv(cv, j);
    double u[CHUNK], g0[CHUNK], g1[CHUNK], g2[CHUNK];
#ifdef AC_SIMD
    if (deriv == 0 && C == 1 && m >= AC_LANES && has_ease_lanes(segment_ease(cv, j)->kind) &&
        ac_simd_available()) {
        ease_run_lanes(segment_ease(cv, j)->kind, t0, iT, d[0], p1[0] - d[0], t, m, o);
        return;
    }
#endif
    for (size_t r0 = 0; r0 < m; r0 += CHUNK) {
        size_t n = m - r0 < CHUNK ? m - r0 : CHUNK;
        double *restrict x = o + r0 * C;
        for (size_t r = 0; r < n; r++)
            u[r] = (t[r0 + r] - t0) * iT;
        ease_block(segment_ease(cv, j), u, n, g0, deriv ? g1 : NULL, deriv ? g2 : NULL);
        if (C == 1) { /* one loop per order, which vectorizes */
            const double d0 = d[0], c0 = p1[0] - d[0];
            if (deriv == 0)
                for (size_t r = 0; r < n; r++)
                    x[r] = d0 + g0[r] * c0;
            else if (deriv == 1)
                for (size_t r = 0; r < n; r++)
                    x[r] = (g1[r] * c0) * iT;
            else
                for (size_t r = 0; r < n; r++)
                    x[r] = (g2[r] * c0) * iT * iT;
            continue;
        }
        for (size_t r = 0; r < n; r++)
            for (size_t ch = 0; ch < C; ch++) {
                const double c = p1[ch] - d[ch];
                x[r * C + ch] = deriv == 0 ? d[ch] + g0[r] * c
                                : deriv == 1 ? (g1[r] * c) * iT : (g2[r] * c) * iT * iT;
            }
    }
}

/* m sorted queries t[0..m) all inside segment j: the segment's constants are
   loaded once and the loop vectorizes. */
AC_VECTORIZED
static void eval_run(const ac_curve *cv, size_t j, const double *restrict t, size_t m,
                     int deriv, double *restrict o)
{
    enum { BLOCK = 64 }; /* channels whose polynomials are made at a time */
    const size_t C = cv->c;
    const double t0 = cv->times[j], iT = seg_inv(cv, j);
    if (is_odd(cv, j, iT)) {
        for (size_t r = 0; r < m; r++)
            odd_at(cv, j, t[r], deriv, o + r * C);
        return;
    }
    if (cv->kind[j] == AC_CURVE_BEZIER || cv->kind[j] == KIND_CSS) {
        bezier_run(cv->bez + j * BEZ_BLOCK * C, C, t0, iT, t, m, deriv, o);
        return;
    }
    if (cv->kind[j] == AC_CURVE_EASE && segment_ease(cv, j)->kind < AC_EASE_ELASTIC_IN) {
        ease_run(cv, j, t, m, deriv, o);
        return;
    }
    if (cv->kind[j] > AC_CURVE_CUBIC) {
        for (size_t r = 0; r < m; r++)
            emit(cv, j, t[r], deriv, 1.0, 0.0, o + r * C);
        return;
    }
    if (C == 1) {
        double p[4];
        segment_poly(cv, j, 0, p);
        const double a0 = p[3], b0 = p[2], c0 = p[1], d0 = p[0];
        if (deriv == 0 && cv->kind[j] == AC_CURVE_STEP) {
            /* AC_CURVE_X with a = b = c = 0 at u >= 0 is 0 + d */
            const double v = 0.0 + d0;
            for (size_t r = 0; r < m; r++)
                o[r] = v;
        } else if (deriv == 0 && cv->kind[j] == AC_CURVE_LINEAR) {
            /* and with a = b = 0, (0 + c) u + d */
            const double c1 = 0.0 + c0;
            for (size_t r = 0; r < m; r++)
                o[r] = c1 * ((t[r] - t0) * iT) + d0;
        } else if (deriv == 0) {
            for (size_t r = 0; r < m; r++) {
                double u = (t[r] - t0) * iT;
                o[r] = AC_CURVE_X(a0, b0, c0, d0, u);
            }
        } else if (deriv == 1) {
            for (size_t r = 0; r < m; r++) {
                double u = (t[r] - t0) * iT;
                o[r] = AC_CURVE_DX(a0, b0, c0, u, iT);
            }
        } else {
            for (size_t r = 0; r < m; r++) {
                double u = (t[r] - t0) * iT;
                o[r] = AC_CURVE_DDX(a0, b0, u, iT);
            }
        }
        return;
    }
    for (size_t ch0 = 0; ch0 < C; ch0 += BLOCK) {
        const size_t nc = C - ch0 < BLOCK ? C - ch0 : BLOCK;
        double a[BLOCK], b[BLOCK], c[BLOCK], d[BLOCK];
        for (size_t ch = 0; ch < nc; ch++) {
            double p[4];
            segment_poly(cv, j, ch0 + ch, p);
            d[ch] = p[0], c[ch] = p[1], b[ch] = p[2], a[ch] = p[3];
        }
        for (size_t r = 0; r < m; r++) {
            double u = (t[r] - t0) * iT;
            double *restrict out = o + r * C + ch0;
            if (deriv == 0)
                for (size_t ch = 0; ch < nc; ch++)
                    out[ch] = AC_CURVE_X(a[ch], b[ch], c[ch], d[ch], u);
            else if (deriv == 1)
                for (size_t ch = 0; ch < nc; ch++)
                    out[ch] = AC_CURVE_DX(a[ch], b[ch], c[ch], u, iT);
            else
                for (size_t ch = 0; ch < nc; ch++)
                    out[ch] = AC_CURVE_DDX(a[ch], b[ch], u, iT);
        }
    }
}

/* ac_curve_eval_located: eval_run's expressions for C > 1 (u from the
   segment's inv_duration, the segment's polynomial per channel), each query
   in its own segment. A 3-channel curve goes a block at a time: the block's
   keys read first, so that the arithmetic (poly_of's, branch-free) runs in a
   loop that vectorizes. */
AC_VECTORIZED
static void located_any(const ac_curve *cv, const double *restrict t,
                        const size_t *restrict seg, size_t m, double *restrict out,
                        size_t stride)
{
    enum { BLOCK = 32 };
    const double *times = cv->times;
    const int keyed = cv->in_velocity != NULL;
    size_t r = 0;
    if (cv->c == 3)
        for (; r + BLOCK <= m; r += BLOCK) {
            double t0[BLOCK], t1[BLOCK], u[BLOCK], x[3][BLOCK];
            double p0[3][BLOCK], p1[3][BLOCK], v0[3][BLOCK], v1[3][BLOCK];
            static const double still[3][BLOCK]; /* zeros: a curve that keeps no velocities */
            const double(*w0)[BLOCK] = keyed ? (const double(*)[BLOCK])v0 : still;
            const double(*w1)[BLOCK] = keyed ? (const double(*)[BLOCK])v1 : still;
            int kind[BLOCK];
            /* the reads, each kind in a loop of its own (fewer live pointers);
               u then in lanes: its division is the block's costliest step */
            for (size_t l = 0; l < BLOCK; l++) {
                const size_t j = seg[r + l];
                t0[l] = times[j], t1[l] = times[j + 1], kind[l] = cv->kind[j];
            }
            for (size_t l = 0; l < BLOCK; l++) {
                const double *p = cv->values + 3 * seg[r + l];
                for (int ch = 0; ch < 3; ch++)
                    p0[ch][l] = p[ch], p1[ch][l] = p[3 + ch];
            }
            if (keyed)
                for (size_t l = 0; l < BLOCK; l++) {
                    const size_t j = seg[r + l];
                    for (int ch = 0; ch < 3; ch++) {
                        v0[ch][l] = cv->out_velocity[3 * j + ch];
                        v1[ch][l] = cv->in_velocity[3 * j + 3 + ch];
                    }
                }
            if (cv->inv)
                for (size_t l = 0; l < BLOCK; l++)
                    u[l] = (t[r + l] - t0[l]) * cv->inv[seg[r + l]];
            else
                for (size_t l = 0; l < BLOCK; l++)
                    u[l] = (t[r + l] - t0[l]) * inv_between(t0[l], t1[l]);
            for (int ch = 0; ch < 3; ch++)
                for (size_t l = 0; l < BLOCK; l++) {
                    double p[4], m0, m1;
                    poly_of(kind[l], t0[l], t1[l], p0[ch][l], p1[ch][l], w0[ch][l], w1[ch][l],
                            p, &m0, &m1);
                    x[ch][l] = AC_CURVE_X(p[3], p[2], p[1], p[0], u[l]);
                }
            for (size_t l = 0; l < BLOCK; l++)
                for (int ch = 0; ch < 3; ch++)
                    out[(r + l) * stride + ch] = x[ch][l];
        }
    for (; r < m; r++) {
        const size_t j = seg[r];
        const double u = (t[r] - times[j]) * seg_inv(cv, j);
        for (size_t ch = 0; ch < cv->c; ch++) {
            double p[4];
            segment_poly(cv, j, ch, p);
            out[r * stride + ch] = AC_CURVE_X(p[3], p[2], p[1], p[0], u);
        }
    }
}

#ifdef AC_SIMD
/* What one group of lanes reads of its segments, lane l of segment
   seg[l]: key times t0, t1, values p0, p1 and velocities v0 (leaving the
   first key), v1 (arriving at the second) of one channel. */
typedef struct located_keys {
    ac_vd t0, t1, iT, cubic, line;
    ac_vd p0[3], p1[3], v0[3], v1[3];
} located_keys;

/* located_keys of a 3-channel curve for lanes whose segments lie in
   [j0, j0 + AC_LANES) with j0 + AC_LANES + 1 <= k: each array loaded once
   as a window from j0 on (no gathers) and permuted into the lanes. */
AC_SIMD_FN void keys_window(const ac_curve *cv, size_t j0, __m512i d, located_keys *w)
{
    ac_vd rows[3];
    const __m512i kinds = _mm512_permutexvar_epi64(
        d, _mm512_cvtepu8_epi64(_mm_loadl_epi64((const __m128i *)(cv->kind + j0))));
    w->t0 = ac_vd_permute((ac_vd)_mm512_loadu_pd(cv->times + j0), d);
    w->t1 = ac_vd_permute((ac_vd)_mm512_loadu_pd(cv->times + j0 + 1), d);
    w->iT = cv->inv ? ac_vd_permute((ac_vd)_mm512_loadu_pd(cv->inv + j0), d) : ac_vd_splat(0.0);
    w->cubic = (ac_vd)_mm512_maskz_mov_epi64(
        _mm512_cmpeq_epi64_mask(kinds, _mm512_set1_epi64(AC_CURVE_CUBIC)), _mm512_set1_epi64(-1));
    w->line = (ac_vd)_mm512_maskz_mov_epi64(
        _mm512_cmpeq_epi64_mask(kinds, _mm512_set1_epi64(AC_CURVE_LINEAR)), _mm512_set1_epi64(-1));
    ac_vd_load3(cv->values + 3 * j0, 1, rows);
    for (int ch = 0; ch < 3; ch++)
        w->p0[ch] = ac_vd_permute(rows[ch], d);
    ac_vd_load3(cv->values + 3 * (j0 + 1), 1, rows);
    for (int ch = 0; ch < 3; ch++)
        w->p1[ch] = ac_vd_permute(rows[ch], d);
    for (int ch = 0; ch < 3; ch++)
        w->v0[ch] = w->v1[ch] = ac_vd_splat(0.0);
    if (cv->in_velocity) {
        ac_vd_load3(cv->out_velocity + 3 * j0, 1, rows);
        for (int ch = 0; ch < 3; ch++)
            w->v0[ch] = ac_vd_permute(rows[ch], d);
        ac_vd_load3(cv->in_velocity + 3 * (j0 + 1), 1, rows);
        for (int ch = 0; ch < 3; ch++)
            w->v1[ch] = ac_vd_permute(rows[ch], d);
    }
}

/* The same for any segments, one lane at a time. */
AC_SIMD_FN void keys_lanes(const ac_curve *cv, const size_t *seg, located_keys *w)
{
    double x[16][AC_LANES];
    int64_t m[2][AC_LANES];
    for (int l = 0; l < AC_LANES; l++) {
        const size_t j = seg[l];
        x[0][l] = cv->times[j], x[1][l] = cv->times[j + 1];
        x[2][l] = cv->inv ? cv->inv[j] : 0.0;
        m[0][l] = -(int64_t)(cv->kind[j] == AC_CURVE_CUBIC);
        m[1][l] = -(int64_t)(cv->kind[j] == AC_CURVE_LINEAR);
        for (int ch = 0; ch < 3; ch++) {
            x[3 + ch][l] = cv->values[3 * j + ch];
            x[6 + ch][l] = cv->values[3 * (j + 1) + ch];
            x[9 + ch][l] = cv->in_velocity ? cv->out_velocity[3 * j + ch] : 0.0;
            x[12 + ch][l] = cv->in_velocity ? cv->in_velocity[3 * (j + 1) + ch] : 0.0;
        }
    }
    w->t0 = (ac_vd)_mm512_loadu_pd(x[0]), w->t1 = (ac_vd)_mm512_loadu_pd(x[1]);
    w->iT = (ac_vd)_mm512_loadu_pd(x[2]);
    w->cubic = (ac_vd)_mm512_loadu_pd((const double *)m[0]);
    w->line = (ac_vd)_mm512_loadu_pd((const double *)m[1]);
    for (int ch = 0; ch < 3; ch++) {
        w->p0[ch] = (ac_vd)_mm512_loadu_pd(x[3 + ch]);
        w->p1[ch] = (ac_vd)_mm512_loadu_pd(x[6 + ch]);
        w->v0[ch] = (ac_vd)_mm512_loadu_pd(x[9 + ch]);
        w->v1[ch] = (ac_vd)_mm512_loadu_pd(x[12 + ch]);
    }
}

/* located_any in lanes for the first m queries of a 3-channel curve, m a
   multiple of AC_LANES, segments of step, linear and cubic kinds whose
   keys lie less than DBL_MAX apart: each lane does seg_inv's, poly_of's
   and AC_CURVE_X's operations in their order. */
AC_SIMD_KERNEL void located_lanes(const ac_curve *cv, const double *t, const size_t *seg,
                                  size_t m, double *out, size_t stride)
{
    for (size_t i = 0; i < m; i += AC_LANES) {
        const size_t j0 = seg[i];
        located_keys w;
        ac_vd T, iT, u, x[3];
        if (seg[i + AC_LANES - 1] - j0 < AC_LANES && j0 + AC_LANES + 1 <= cv->k)
            keys_window(cv, j0, _mm512_sub_epi64(_mm512_loadu_si512((const void *)(seg + i)),
                                                 _mm512_set1_epi64((long long)j0)), &w);
        else
            keys_lanes(cv, seg + i, &w);
        T = w.t1 - w.t0;
        /* seg_inv: the stored inverse, or inv_duration of a segment not wide */
        iT = cv->inv ? w.iT
                     : ac_vd_pick((ac_vm)(T > 0.0), 1.0 / ac_vd_pick((ac_vm)(T > 0.0), T,
                                                                     ac_vd_splat(1.0)),
                                  ac_vd_splat(0.0));
        u = ((ac_vd)_mm512_loadu_pd(t + i) - w.t0) * iT;
        for (int ch = 0; ch < 3; ch++) {
            const ac_vd p0 = w.p0[ch], p1 = w.p1[ch];
            const ac_vd m0 = T * w.v0[ch], m1 = T * w.v1[ch]; /* hermite_tangents */
            const ac_vm cubic = (ac_vm)w.cubic, line = (ac_vm)w.line;
            const ac_vd d = p0;
            const ac_vd c = ac_vd_pick(cubic, m0, ac_vd_pick(line, p1 - p0, ac_vd_splat(0.0)));
            const ac_vd b = ac_vd_pick(cubic, 3.0 * (p1 - p0) - 2.0 * m0 - m1, ac_vd_splat(0.0));
            const ac_vd a = ac_vd_pick(cubic, 2.0 * (p0 - p1) + m0 + m1, ac_vd_splat(0.0));
            x[ch] = ((a * u + b) * u + c) * u + d;
        }
        if (stride == 3)
            ac_vd_store3(out + 3 * i, x);
        else
            ac_vd_store_rows(out + i * stride, stride, x, 3);
    }
}
#endif

static const ac_arg result_names[3] = {AC_ARG_VALUE, AC_ARG_VELOCITY, AC_ARG_ACCELERATION};

static ac_status check_out(const double *o, size_t C, size_t i, int deriv, ac_error *err)
{
    for (size_t ch = 0; ch < C; ch++)
        if (!ac_finite(o[ch]))
            return ac_fail(err, AC_ERR_OVERFLOW, i, result_names[deriv], o[ch],
                           "is not representable although the inputs are finite");
    return AC_OK;
}

ac_status ac_curve_eval_located(const ac_curve *curve, const double *t, const size_t *segments,
                                size_t n, double *out, size_t stride, ac_error *err)
{
    size_t lanes = 0, bad = 0;
    if (!ac_track_located(curve->times, curve->k, t, segments, n, &bad))
        return ac_fail(err, AC_ERR_VALUE, bad, AC_ARG_SEGMENTS, (double)segments[bad],
                       "must be the segment of t[%zu] = %.17g (first <= t < last)", bad,
                       t[bad]);
    /* eval_run's other paths (Bezier and eased segments, which have their
       blocks; odd segments: wide ones, none when the keys span less than
       DBL_MAX, and short ones, whose infinite 1 / T leaves safe[0] unset;
       one channel), and results that could overflow: emit, one time at a time */
    if (curve->c < 2 || !curve->safe[0] || curve->bez || curve->ease ||
        !ac_finite(curve->times[curve->k - 1] - curve->times[0])) {
        for (size_t i = 0; i < n; i++) {
            ac_status st;
            emit(curve, segments[i], t[i], 0, 1.0, 0.0, out + i * stride);
            if (!curve->safe[0] && (st = check_out(out + i * stride, curve->c, i, 0, err)))
                return st;
        }
        return AC_OK;
    }
#ifdef AC_SIMD
    if (curve->c == 3 && ac_simd_available()) {
        lanes = n - n % AC_LANES;
        located_lanes(curve, t, segments, lanes, out, stride);
    }
#endif
    located_any(curve, t + lanes, segments + lanes, n - lanes, out + lanes * stride, stride);
    return AC_OK;
}

/* The value at a key from inside the keys: the first key's right side or
   the last key's left side (where the outside does not exist). */
static void at_end(const ac_curve *cv, int last, int deriv, double *o)
{
    const size_t k = cv->k, C = cv->c;
    if (k == 1) {
        for (size_t ch = 0; ch < C; ch++)
            o[ch] = deriv == 0 ? cv->values[ch] : 0.0;
        return;
    }
    if (last)
        emit(cv, ac_track_find_left(cv->times, k, cv->times[k - 1], k - 2), cv->times[k - 1], deriv,
             1.0, 0.0, o);
    else
        emit(cv, ac_segment_find(cv->times, k, cv->times[0], 0), cv->times[0], deriv, 1.0,
             0.0, o);
}

/* The curve's key times and extrapolation as the shared track sees them. */
static ac_track track_of(const ac_curve *cv)
{
    ac_track tr = {cv->k, cv->times, cv->before, cv->after};
    return tr;
}

/* A query outside the keys on its side: before the first key (t < first, or
   t == first on the left side) or after the last (t >= last on the right
   side, t > last on the left), a one-key curve, or bad input. The track
   locates it; this evaluates the scalar channels there. */
static ac_status outside(const ac_curve *cv, double t, size_t i, int deriv, int side,
                         size_t *hint, double *o, ac_error *err)
{
    const size_t C = cv->c;
    const ac_track tr = track_of(cv);
    ac_track_point p;
    ac_status st = ac_track_locate(&tr, t, side, i, hint, &p, err);
    if (st)
        return st;
    switch (p.where) {
    case AC_TRACK_END:
        at_end(cv, p.after, deriv, o);
        break;
    case AC_TRACK_LINE: {
        /* along the outer side of the end key: the velocity arriving at the
           first key, leaving the last, or the given slope */
        const double *v = p.mode == AC_EXTRAP_SLOPED ? cv->slopes + (p.after ? C : 0)
                                                     : cv->ends + (p.after ? C : 0);
        for (size_t ch = 0; ch < C; ch++) {
            double vel = v[ch];
            o[ch] = deriv == 0 ? cv->values[p.key * C + ch] + vel * (t - cv->times[p.key])
                               : deriv == 1 ? vel : 0.0;
        }
        break;
    }
    case AC_TRACK_HOLD:
        for (size_t ch = 0; ch < C; ch++)
            o[ch] = deriv == 0 ? cv->values[p.key * C + ch] : 0.0;
        return AC_OK;
    default:
        emit(cv, p.segment, p.time, deriv, p.mirrored ? -1.0 : 1.0,
             p.mode == AC_EXTRAP_CYCLE_OFFSET ? p.cycles : 0.0, o);
    }
    return check_out(o, C, i, deriv, err);
}

static ac_status check_results(const ac_curve *cv, const double *out, size_t n, int deriv,
                               ac_error *err)
{
    if (all_finite(out, n * cv->c)) /* the common case, in one vectorized pass */
        return AC_OK;
    for (size_t i = 0; i < n; i++)
        if (check_out(out + i * cv->c, cv->c, i, deriv, err))
            return AC_ERR_OVERFLOW;
    return AC_OK;
}

/* Queries [i, n) one at a time: inside the keys by the cursor while they do
   not go backwards, else by binary search; outside by extrapolation. */
static ac_status run_each(const ac_curve *cv, size_t *cursor, const double *tq, size_t i,
                          size_t n, int deriv, double *out, ac_error *err)
{
    const size_t k = cv->k, C = cv->c;
    const double lo = cv->times[0], hi = cv->times[k - 1];
    size_t j = *cursor;
    double prev = lo;
    int sorted = 1;
    ac_status st;
    for (; i < n; i++) {
        double t = tq[i];
        if (t >= lo && t < hi) {
            if (sorted && t >= prev)
                j = ac_segment_find(cv->times, k, t, j);
            else
                sorted = 0, j = ac_track_bsearch(cv->times, k, t);
            prev = t;
            emit(cv, j, t, deriv, 1.0, 0.0, out + i * C);
        } else if ((st = outside(cv, t, i, deriv, AC_SIDE_RIGHT, &j, out + i * C, err))) {
            *cursor = j;
            return st;
        }
    }
    *cursor = j;
    return AC_OK;
}

/* Left-side queries [0, n), one at a time: inside (first key, last key] by
   the segment ending at or after t. */
static ac_status run_left(const ac_curve *cv, size_t *cursor, const double *tq, size_t n,
                          int deriv, double *out, ac_error *err)
{
    const size_t k = cv->k, C = cv->c;
    const double lo = cv->times[0], hi = cv->times[k - 1];
    size_t j = *cursor < k - 1 ? *cursor : 0;
    ac_status st;
    for (size_t i = 0; i < n; i++) {
        double t = tq[i];
        if (k > 1 && t > lo && t <= hi) {
            j = ac_track_find_left(cv->times, k, t, j);
            emit(cv, j, t, deriv, 1.0, 0.0, out + i * C);
        } else if ((st = outside(cv, t, i, deriv, AC_SIDE_LEFT, &j, out + i * C, err))) {
            *cursor = j;
            return st;
        }
    }
    *cursor = j;
    return AC_OK;
}

/* 1 when tq is non-decreasing (a NaN anywhere makes it 0 unless n == 1). */
AC_VECTORIZED
static int is_sorted(const double *tq, size_t n)
{
    return ac_track_sorted(tq, n);
}

/* Evaluates n queries from the cursor's segment on (`sorted`: tq is known
   to be non-decreasing). err is not NULL: the overflow scan after a failure
   stops at the failing query, as the outputs after it are unspecified. */
static ac_status run(const ac_curve *cv, size_t *cursor, const double *tq, size_t n,
                     int sorted, int deriv, int side, double *restrict out, ac_error *err)
{
    const size_t k = cv->k, C = cv->c;
    size_t j = *cursor < k - 1 ? *cursor : 0, i0, i1, i;
    ac_status st = AC_OK;
    if (n == 0)
        return AC_OK;
    if (side == AC_SIDE_LEFT) {
        *cursor = j;
        st = run_left(cv, cursor, tq, n, deriv, out, err);
        goto done;
    }
    if (k == 1 || !(sorted || is_sorted(tq, n)) || !ac_finite(tq[0]) ||
        !ac_finite(tq[n - 1])) {
        *cursor = j;
        st = run_each(cv, cursor, tq, 0, n, deriv, out, err);
        goto done;
    }
    /* Sorted and finite: queries before the keys, inside them, at or after
       the last key form three consecutive runs. */
    {
        const ac_track tr = track_of(cv);
        ac_track_runs(&tr, tq, n, &i0, &i1);
    }
    for (i = 0; i < i0; i++)
        if ((st = outside(cv, tq[i], i, deriv, AC_SIDE_RIGHT, &j, out + i * C, err)))
            goto done;
    for (i = i0; i < i1;) {
        size_t r;
        j = ac_segment_find(cv->times, k, tq[i], j);
        r = ac_track_run_end(tq, i, i1, cv->times[j + 1]);
        eval_run(cv, j, tq + i, r - i, deriv, out + i * C);
        i = r;
    }
    for (i = i1; i < n; i++)
        if ((st = outside(cv, tq[i], i, deriv, AC_SIDE_RIGHT, &j, out + i * C, err)))
            goto done;
    *cursor = j;
done:
    /* Results inside the keys are checked only when they could overflow. */
    if (!cv->safe[deriv]) {
        /* an overflow before the failing query (if any) is the first failure */
        if (check_results(cv, out, st ? err->index : n, deriv, err))
            return AC_ERR_OVERFLOW;
    }
    return st;
}

static ac_status check_derivative(int derivative, ac_error *err)
{
    if (derivative < 0 || derivative > 2)
        return ac_fail(err, AC_ERR_VALUE, 0, AC_ARG_DERIVATIVE, derivative, "must be 0, 1 or 2");
    return AC_OK;
}

ac_status ac_curve_eval(const ac_curve *curve, const double *t, size_t n, int derivative,
                        double *out, ac_error *err)
{
    ac_curve_cursor cursor = {0};
    return ac_curve_eval_sorted(curve, &cursor, t, n, derivative, out, err);
}

ac_status ac_curve_eval_sorted(const ac_curve *curve, ac_curve_cursor *cursor,
                               const double *t, size_t n, int derivative, double *out,
                               ac_error *err)
{
    return ac_curve_eval_side(curve, cursor, t, n, derivative, AC_SIDE_RIGHT, out, err);
}

ac_status ac_curve_eval_side(const ac_curve *curve, ac_curve_cursor *cursor,
                             const double *t, size_t n, int derivative, int side,
                             double *out, ac_error *err)
{
    ac_error local; /* run needs the index of a failure even when err is NULL */
    ac_status st = check_derivative(derivative, err);
    if (!st && side != AC_SIDE_RIGHT && side != AC_SIDE_LEFT)
        st = ac_fail(err, AC_ERR_VALUE, 0, AC_ARG_SIDE, side, "must be right (0) or left (1)");
    return st ? st
              : run(curve, &cursor->segment, t, n, 0, derivative, side, out,
                    err ? err : &local);
}

/* 1 when every t lies within reach rb before lo and ra after hi (both >= 0;
   NaN fails). */
AC_VECTORIZED
static int within_reach(const double *t, size_t n, double lo, double hi, double rb, double ra)
{
    return ac_all_within_reach(t, n, lo, hi, rb, ra);
}

bool ac_curve_eval_check(const ac_curve *curve, const double *t, size_t n, int derivative,
                         int side)
{
    double rb, ra;
    if (derivative < 0 || derivative > 2 || (side != AC_SIDE_RIGHT && side != AC_SIDE_LEFT))
        return false;
    /* the sides differ only at d = 0 (the end key or a seam), within every reach */
    rb = curve->reach[0][derivative], ra = curve->reach[1][derivative];
    return n == 0 || (rb >= 0.0 && ra >= 0.0 &&
                      within_reach(t, n, curve->times[0], curve->times[curve->k - 1], rb, ra));
}

/* ------------------------------------------------------- time remaps */

/* One query of a per-segment ease: u in its segment (folded into the keys
   by the one exact cycle fold, ac_cycle_fold, in cycling extrapolation),
   the segment's start (the eased time is base + g dur, inside the keys),
   the direction of local time (-1 in a mirrored cycle, which flips the
   rate; 0 when the time is not eased, base then the time itself), the
   segment's duration and the cycles to shift the value by (cycle_offset).
   A time k periods away thus eases and evaluates exactly as its local time. */
static void seg_point(const ac_curve *cv, double x, size_t *hint, double *u, double *base,
                      double *sgn, double *dur, double *shift)
{
    const size_t k = cv->k;
    const double lo = cv->times[0], hi = cv->times[k - 1];
    double local = x, sign = 1.0, cycles = 0.0;
    int eased = x >= lo && x <= hi;
    if (!eased) {
        ac_curve_extrapolation mode = x < lo ? cv->before : cv->after;
        if ((mode == AC_EXTRAP_CYCLE || mode == AC_EXTRAP_CYCLE_OFFSET ||
             mode == AC_EXTRAP_OSCILLATE) && hi - lo > 0.0) {
            local = ac_cycle_fold(x, lo, hi, mode == AC_EXTRAP_OSCILLATE, &cycles, &sign);
            if (mode != AC_EXTRAP_CYCLE_OFFSET)
                cycles = 0.0;
            eased = 1;
        }
    }
    if (eased) {
        size_t j = *hint = ac_segment_find(cv->times, k, local, *hint);
        const double t0 = cv->times[j], iT = seg_inv(cv, j);
        double y = ac_finite(iT) ? (local - t0) * iT : short_u(cv, j, local);
        *u = y < 0.0 ? 0.0 : y > 1.0 ? 1.0 : y;
        *base = cv->times[j];
        *sgn = sign, *dur = cv->times[j + 1] - cv->times[j], *shift = cycles;
    } else {
        *u = 0.0, *base = x, *sgn = 0.0, *dur = 0.0, *shift = 0.0;
    }
}

#ifdef AC_SIMD
/* One whole-clip remap of remap_block without rates, in lanes, one pass:
   tau = lo + ease(u) P where x0 lies in [lo, hi], else x0 (x0 may be tau);
   *all_inside as there, and 1 when the eased values do not decrease. The
   expressions of remap_block, so the same bits. */
AC_SIMD_KERNEL int remap_lanes(int kind, double lo, double hi, double iP, double P,
                               const double *x0, size_t m, double *tau, int64_t *all_inside)
{
    const ac_vd vlo = ac_vd_splat(lo), vhi = ac_vd_splat(hi), zero = ac_vd_splat(0.0),
                one = ac_vd_splat(1.0);
    ac_vk outside = 0, down = 0;
    ac_vd prev = ac_vd_splat(0.0);
    for (size_t i = 0; i < m; i += AC_LANES) {
        const int count = m - i < AC_LANES ? (int)(m - i) : AC_LANES;
        const ac_vk live = (ac_vk)((1u << count) - 1u);
        ac_vd x = ac_vd_load_first(x0 + i, count), u = (x - lo) * iP, g, before;
        ac_vk in = (ac_vk)(_mm512_cmp_pd_mask((__m512d)x, (__m512d)vlo, _CMP_GE_OQ) &
                           _mm512_cmp_pd_mask((__m512d)x, (__m512d)vhi, _CMP_LE_OQ));
        outside |= live & ~in;
        u = ac_vd_blend(ac_vd_lt(u, zero), zero, u);
        u = ac_vd_blend(ac_vd_lt(one, u), one, u);
        g = ease_lanes(kind, u);
        /* g[l - 1] beside g[l] (the block's first value beside itself) */
        before = (ac_vd)_mm512_alignr_epi64((__m512i)g, (__m512i)(i ? prev : ac_vd_splat(g[0])), 7);
        down |= live & ~(ac_vk)_mm512_cmp_pd_mask((__m512d)g, (__m512d)before, _CMP_GE_OQ);
        prev = g;
        ac_vd_store_first(tau + i, count, ac_vd_blend(in, lo + g * P, x));
    }
    *all_inside = outside == 0;
    return down == 0;
}
#endif

/* Curve times tau[0..m) for clip times t through the remaps, and the rates
   r1 = dtau/dt, r2 = d2tau/dt2 when r1 is not NULL. u, g0, g1, g2 are
   scratch of m values. Selects are integer blends so the loops vectorize.
   0, before any result, when some t is not finite: the first remap's test
   that every time lies inside the keys proves it in the common case.
   *sorted: 1 when tau is proven non-decreasing. */
AC_VECTORIZED
static int remap_block(const ac_curve *cv, const double *restrict t, size_t m,
                        const ac_curve_ease *remaps, size_t nremap,
                        const ac_curve_ease *seg, size_t *hint, double *restrict tau,
                        double *restrict r1, double *restrict r2, double *restrict u,
                        double *restrict base, double *restrict g0, double *restrict g1,
                        double *restrict g2, double *restrict shift, int *shifted,
                        int *sorted)
{
    const size_t k = cv->k;
    const double lo = cv->times[0], hi = cv->times[k - 1], P = hi - lo;
    const double iP = P > 0.0 ? 1.0 / P : 0.0;
    double *gd = r1 ? g1 : NULL, *gdd = r1 ? g2 : NULL;
    *sorted = 0, *shifted = 0;
    if ((nremap == 0 || !(P > 0.0)) && !all_finite(t, m))
        return 0;
    if (r1)
        for (size_t i = 0; i < m; i++)
            r1[i] = 1.0, r2[i] = 0.0;
    if (nremap == 0 || !(P > 0.0))
        memcpy(tau, t, m * sizeof *tau);
    if (!(P > 0.0))
        return 1;
    for (size_t q = 0; q < nremap; q++) {
        const double *x0 = q == 0 ? t : tau; /* the times this remap reads */
        int64_t all_inside = 1;
#ifdef AC_SIMD
        if (!r1 && has_ease_lanes(remaps[q].kind) && m >= AC_LANES && ac_simd_available()) {
            int up = remap_lanes(remaps[q].kind, lo, hi, iP, P, x0, m, tau, &all_inside);
            if (q == 0 && !all_inside && !all_finite(t, m))
                return 0;
            *sorted = all_inside && up && q + 1 == nremap && !seg;
            continue;
        }
#endif
        for (size_t i = 0; i < m; i++) {
            double x = (x0[i] - lo) * iP;
            all_inside &= (x0[i] >= lo) & (x0[i] <= hi);
            x = ac_pick(x < 0.0, 0.0, x);
            u[i] = ac_pick(x > 1.0, 1.0, x);
        }
        if (q == 0 && !all_inside && !all_finite(t, m))
            return 0;
        ease_block(&remaps[q], u, m, g0, gd, gdd);
        if (r1)
            for (size_t i = 0; i < m; i++) {
                int64_t inside = (x0[i] >= lo) & (x0[i] <= hi);
                r2[i] = ac_pick(inside, g2[i] * iP * r1[i] * r1[i] + g1[i] * r2[i], r2[i]);
                r1[i] = ac_pick(inside, g1[i] * r1[i], r1[i]);
            }
        if (all_inside) { /* the common case: no select */
            /* sorted eases give sorted times (rounding is monotone), which
               spares run its own pass over them */
            int64_t up = 1;
            tau[0] = lo + g0[0] * P;
            for (size_t i = 1; i < m; i++) {
                tau[i] = lo + g0[i] * P;
                up &= g0[i] >= g0[i - 1];
            }
            *sorted = (int)up && q + 1 == nremap && !seg;
        } else
            for (size_t i = 0; i < m; i++) {
                int64_t inside = (x0[i] >= lo) & (x0[i] <= hi);
                tau[i] = ac_pick(inside, lo + g0[i] * P, x0[i]);
            }
    }
    if (seg) {
        /* per query: u in its segment, the segment's start as a clip time
           (base), the cycle's direction (sgn, 0: not eased) and duration */
        double sgn[REMAP_BLOCK], dur[REMAP_BLOCK];
        int any_shift = 0;
        size_t i = 0, i0 = 0, i1 = 0;
        if (is_sorted(tau, m)) { /* runs of one segment: loops that vectorize */
            i0 = tau[0] >= lo ? 0 : ac_track_run_end(tau, 0, m, lo);
            i1 = i0 < m && tau[i0] < hi ? ac_track_run_end(tau, i0, m, hi) : i0;
        }
        for (; i < i0; i++)
            seg_point(cv, tau[i], hint, &u[i], &base[i], &sgn[i], &dur[i], &shift[i]);
        while (i < i1) {
            size_t j = *hint = ac_segment_find(cv->times, k, tau[i], *hint);
            size_t r = ac_track_run_end(tau, i, i1, cv->times[j + 1]);
            const double t0 = cv->times[j], iT = seg_inv(cv, j), T = cv->times[j + 1] - t0;
            if (!ac_finite(iT)) /* a duration below 1 / DBL_MAX: seg_point divides by it */
                for (; i < r; i++)
                    seg_point(cv, tau[i], hint, &u[i], &base[i], &sgn[i], &dur[i], &shift[i]);
            for (; i < r; i++) {
                double y = (tau[i] - t0) * iT;
                u[i] = ac_pick(y > 1.0, 1.0, y);
                base[i] = t0, sgn[i] = 1.0, dur[i] = T, shift[i] = 0.0;
            }
        }
        for (; i < m; i++)
            seg_point(cv, tau[i], hint, &u[i], &base[i], &sgn[i], &dur[i], &shift[i]);
        ease_block(seg, u, m, g0, gd, gdd);
        /* not eased (sgn 0, dur 0, base the time itself): time unchanged */
        for (size_t i = 0; i < m; i++) {
            tau[i] = base[i] + fabs(sgn[i]) * g0[i] * dur[i];
            any_shift |= shift[i] != 0.0;
        }
        *shifted = any_shift;
        if (r1)
            for (size_t i = 0; i < m; i++) {
                /* the eased time is local: a mirrored cycle flips its rate */
                int64_t eased = sgn[i] != 0.0;
                double m1 = ac_pick(eased, sgn[i] * g1[i], 1.0);
                double m2 = ac_pick(eased, g2[i] / ac_pick(eased, dur[i], 1.0), 0.0);
                r2[i] = m2 * r1[i] * r1[i] + m1 * r2[i];
                r1[i] = m1 * r1[i];
            }
    }
    return 1;
}

#ifdef AC_SIMD
/* seg_ease_block's common case in lanes, one pass: n clip times t of
   segment [t0, t1) eased into it and evaluated on its cubic d (d, c, b, a),
   values to o; 0 when a time or an eased time is outside the segment on
   this side. The expressions of seg_ease_block, so the same bits. */
AC_SIMD_KERNEL int seg_ease_lanes(int kind, double t0, double t1, double iT, const double *d,
                                  int side, const double *restrict t, size_t n,
                                  double *restrict o)
{
    const double T = t1 - t0, a0 = d[3], b0 = d[2], c0 = d[1], d0 = d[0];
    const ac_vd lo = ac_vd_splat(t0), hi = ac_vd_splat(t1), one = ac_vd_splat(1.0);
    ac_vk bad = 0;
    for (size_t r = 0; r < n; r += AC_LANES) {
        const int count = n - r < AC_LANES ? (int)(n - r) : AC_LANES;
        const ac_vk live = (ac_vk)((1u << count) - 1u);
        ac_vd tq = ac_vd_load_first(t + r, count), y = (tq - t0) * iT, x, v;
        bad |= live & ~(ac_vk)(_mm512_cmp_pd_mask((__m512d)tq, (__m512d)lo, _CMP_GE_OQ) &
                               _mm512_cmp_pd_mask((__m512d)tq, (__m512d)hi, _CMP_LT_OQ));
        x = t0 + ease_lanes(kind, ac_vd_blend(ac_vd_lt(one, y), one, y)) * T;
        v = (x - t0) * iT;
        bad |= live & ~(ac_vk)(side == AC_SIDE_RIGHT
                                   ? _mm512_cmp_pd_mask((__m512d)x, (__m512d)lo, _CMP_GE_OQ) &
                                         _mm512_cmp_pd_mask((__m512d)x, (__m512d)hi, _CMP_LT_OQ)
                                   : _mm512_cmp_pd_mask((__m512d)x, (__m512d)lo, _CMP_GT_OQ) &
                                         _mm512_cmp_pd_mask((__m512d)x, (__m512d)hi, _CMP_LE_OQ));
        ac_vd_store_first(o + r, count, ((a0 * v + b0) * v + c0) * v + d0);
    }
    return bad == 0;
}
#endif

/* A per-segment ease alone on clip times inside the keys, in runs of one
   segment (sorted times): the times of segment j are eased into segment j,
   so each run is evaluated there directly (eval_run), without searching the
   eased times again; r1, r2 and the raw results o (and the velocities
   `first` for derivative 2) are those that remap_block and run give (tau is
   scratch). 0 when
   a time is not in its run's segment (unsorted, outside the keys, at the
   last key), an eased time leaves it on this side (an overshooting easing,
   one rounded onto the next key) or its duration has no finite inverse:
   the block then takes the general path. */
AC_VECTORIZED
static int seg_ease_block(const ac_curve *cv, const double *restrict t, size_t m,
                          const ac_curve_ease *seg, int deriv, int side, size_t *hint,
                          double *restrict tau, double *restrict r1, double *restrict r2,
                          double *restrict u, double *restrict g0, double *restrict g1,
                          double *restrict g2, double *restrict o, double *restrict first)
{
    const size_t k = cv->k, C = cv->c;
    for (size_t i = 0, r; i < m; i = r) {
        size_t j = *hint = ac_segment_find(cv->times, k, t[i], *hint);
        const double t0 = cv->times[j], t1 = cv->times[j + 1], iT = seg_inv(cv, j);
        const double T = t1 - t0;
        const size_t n = (r = t[i] < t1 ? ac_track_run_end(t, i, m, t1) : i) - i;
        int64_t inside = n > 0;
        if (!ac_finite(iT)) /* (a duration below 1 / DBL_MAX: see seg_point) */
            return 0;
#ifdef AC_SIMD
        if (deriv == 0 && C == 1 && cv->kind[j] <= AC_CURVE_CUBIC && !is_wide(cv, j) &&
            has_ease_lanes(seg->kind) && n >= AC_LANES && ac_simd_available()) {
            double d[4];
            segment_poly(cv, j, 0, d);
            if (!seg_ease_lanes(seg->kind, t0, t1, iT, d, side, t + i, n, o + i))
                return 0;
            continue;
        }
#endif
        for (size_t q = i; q < r; q++) {
            double y = (t[q] - t0) * iT;
            inside &= (t[q] >= t0) & (t[q] < t1);
            u[q] = ac_pick(y > 1.0, 1.0, y);
        }
        if (!inside)
            return 0;
        ease_block(seg, u + i, n, g0 + i, deriv ? g1 + i : NULL, deriv ? g2 + i : NULL);
        if (deriv == 0 && C == 1 && cv->kind[j] <= AC_CURVE_CUBIC && !is_wide(cv, j)) {
            /* the common case: eval_run's value loop on each eased time as it
               is made, without storing and reloading the times */
            double d[4];
            segment_poly(cv, j, 0, d);
            const double a0 = d[3], b0 = d[2], c0 = d[1], d0 = d[0];
            for (size_t q = i; q < r; q++) {
                double x = t0 + g0[q] * T, v = (x - t0) * iT;
                inside &= side == AC_SIDE_RIGHT ? (x >= t0) & (x < t1) : (x > t0) & (x <= t1);
                o[q] = AC_CURVE_X(a0, b0, c0, d0, v);
            }
            if (!inside)
                return 0;
            continue;
        }
        for (size_t q = i; q < r; q++) {
            double x = t0 + g0[q] * T;
            tau[q] = x;
            inside &= side == AC_SIDE_RIGHT ? (x >= t0) & (x < t1) : (x > t0) & (x <= t1);
        }
        if (!inside)
            return 0;
        if (deriv)
            for (size_t q = i; q < r; q++) { /* remap_block's chain rule from 1 and 0 */
                double m1 = g1[q], m2 = g2[q] / T;
                r2[q] = m2 * 1.0 * 1.0 + m1 * 0.0;
                r1[q] = m1 * 1.0;
            }
        eval_run(cv, j, tau + i, n, deriv, o + i * C);
        if (deriv == 2)
            eval_run(cv, j, tau + i, n, 1, first + i * C);
    }
    return 1;
}

/* The first i in [i, n) where t[i] is not finite, n if none. */
static size_t first_nonfinite(const double *t, size_t i, size_t n)
{
    if (all_finite(t + i, n - i))
        return n;
    while (ac_finite(t[i]))
        i++;
    return i;
}

/* The failure of the first time in [i, n) that is not finite if there is one
   (it comes before `st`, a failure among earlier queries), else st. */
static ac_status bad_time(const double *t, size_t i, size_t n, ac_error *err, ac_status st)
{
    i = first_nonfinite(t, i, n);
    return i < n ? ac_fail(err, AC_ERR_VALUE, i, AC_ARG_T, t[i], "must be finite") : st;
}

/* A remapped time that run refused as outside the keys under "error"
   extrapolation, where the caller's time t[err->index] is another one (an
   easing that leaves [0, 1] in an end segment): the failure names the
   caller's time, and the remapped one in its words. */
static void remapped_outside(const double *t, ac_error *err)
{
    const double x = err->value;
    if ((err->reason == AC_REASON_BEFORE_ERROR || err->reason == AC_REASON_AFTER_ERROR) &&
        x != t[err->index])
        ac_fail(err, AC_ERR_VALUE, err->index, AC_ARG_T, t[err->index],
                "its remapped time %.15g lies %s the keys, where extrapolation is an error", x,
                err->reason == AC_REASON_BEFORE_ERROR ? "before" : "after");
}

ac_status ac_curve_eval_remapped(const ac_curve *curve, ac_curve_cursor *cursor,
                                 const double *t, size_t n, int derivative, int side,
                                 const ac_curve_ease *remaps, size_t nremap,
                                 const ac_curve_ease *segment_ease, double *out,
                                 ac_error *err)
{
    enum { BLOCK = REMAP_BLOCK, SCRATCH = 1024 };
    const size_t C = curve->c, k = curve->k;
    /* derivative 2 also needs the velocities at the eased times: SCRATCH
       values on the stack, so a block holds SCRATCH / C queries (one query
       at a time beyond SCRATCH channels, its row from the allocator) */
    double tau[BLOCK], r1[BLOCK], r2[BLOCK], u[BLOCK], base[BLOCK], g0[BLOCK], g1[BLOCK],
        g2[BLOCK], shift[BLOCK], scratch[SCRATCH], *first = scratch;
    size_t hint = 0, block = BLOCK;
    ac_error local;
    ac_status st = check_derivative(derivative, err);
    if (!err)
        err = &local;
    if (st)
        return st;
    if (side != AC_SIDE_RIGHT && side != AC_SIDE_LEFT)
        return ac_fail(err, AC_ERR_VALUE, 0, AC_ARG_SIDE, side, "must be right (0) or left (1)");
    if (derivative == 2 && C > SCRATCH / BLOCK)
        block = C <= SCRATCH ? SCRATCH / C : 1;
    if (derivative == 2 && C > SCRATCH && n > 0) { /* bad input before out of memory */
        if ((st = bad_time(t, 0, n, err, AC_OK)))
            return st;
        if (!(first = ac_mem_alloc(&curve->mem, C * sizeof *first)))
            return ac_fail(err, AC_ERR_NOMEM, 0, AC_ARG_T, (double)n, "out of memory");
    }
    /* A time that is not finite is the first failure wherever it lies: each
       block's times are proven finite before it is evaluated (by the tests of
       seg_ease_block and remap_block, which reject them), and a failure in a
       block gives way to one among the times after it. */
    for (size_t i0 = 0; i0 < n; i0 += block) {
        size_t m = n - i0 < block ? n - i0 : block;
        const double *tb = t + i0;
        double *o = out + i0 * C;
        int shifted = 0;
        int fused = nremap == 0 && segment_ease && k > 1 &&
                    seg_ease_block(curve, tb, m, segment_ease, derivative, side, &hint, tau,
                                   r1, r2, u, g0, g1, g2, o, first);
        if (fused) {
            /* eval_run does not check: the overflow checks run would make */
            if ((!curve->safe[derivative] && (st = check_results(curve, o, m, derivative, err))) ||
                (derivative == 2 && !curve->safe[1] &&
                 (st = check_results(curve, first, m, 1, err)))) {
                err->index += i0;
                st = bad_time(t, i0 + m, n, err, st);
                break;
            }
            cursor->segment = hint;
        } else {
            int sorted;
            if (!remap_block(curve, tb, m, remaps, nremap, segment_ease, &hint, tau,
                             derivative ? r1 : NULL, r2, u, base, g0, g1, g2, shift, &shifted,
                             &sorted)) {
                st = bad_time(t, i0, n, err, AC_OK);
                break;
            }
            if ((st = run(curve, &cursor->segment, tau, m, sorted, derivative, side, o, err)) ||
                (derivative == 2 &&
                 (st = run(curve, &cursor->segment, tau, m, sorted, 1, side, first, err)))) {
                err->index += i0;
                remapped_outside(t, err);
                st = bad_time(t, i0 + m, n, err, st);
                break;
            }
            if (shifted && derivative == 0) /* cycle_offset: the cycles' shift, as emit adds */
                for (size_t i = 0; i < m; i++)
                    for (size_t ch = 0; ch < C; ch++)
                        if (shift[i] != 0.0 && curve->delta[ch] != 0.0)
                            o[i * C + ch] += shift[i] * curve->delta[ch];
        }
        if (derivative == 1)
            for (size_t i = 0; i < m; i++)
                for (size_t ch = 0; ch < C; ch++)
                    o[i * C + ch] *= r1[i];
        else if (derivative == 2)
            for (size_t i = 0; i < m; i++)
                for (size_t ch = 0; ch < C; ch++)
                    o[i * C + ch] = o[i * C + ch] * r1[i] * r1[i] + first[i * C + ch] * r2[i];
        /* (values are checked by run, but the cycles' shift is added after it) */
        if ((derivative || shifted) && (st = check_results(curve, o, m, derivative, err))) {
            err->index += i0;
            st = bad_time(t, i0 + m, n, err, st);
            break;
        }
    }
    if (first != scratch)
        ac_mem_release(&curve->mem, first);
    return st;
}
