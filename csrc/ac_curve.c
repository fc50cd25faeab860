/* Keyframe curves (articles 000 and 004): multi-key, multi-channel tracks with
   step, linear and cubic Hermite interpolation, tangent policies,
   extrapolation and jumps. The constructor validates once, turns per-second
   key velocities into tangents with each segment's own duration (m = T v) and
   stores every segment as a cubic polynomial in u; a query finds its segment
   and u once and reuses them for every channel. Sorted query arrays are swept
   segment by segment in vectorized runs. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ac_internal.h"

struct ac_curve {
    size_t k, c;
    ac_curve_interpolation interp;
    ac_curve_extrapolation before, after;
    double *times;        /* k */
    double *values;       /* k x c */
    double *in_velocity;  /* k x c, per second, arriving at each key */
    double *out_velocity; /* k x c, per second, leaving each key */
    double *inv_duration; /* k - 1: 1 / duration (0 for the zero-length segment of a jump) */
    /* k - 1 blocks of 4c: the segment as a polynomial in u = (t - times[j]) /
       duration, x(u) = ((a u + b) u + c) u + d, stored d, c, b, a. Cubic:
       d = p0, c = m0, b = 3(p1 - p0) - 2 m0 - m1, a = 2(p0 - p1) + m0 + m1
       (tangents m = duration * velocity); linear: c = p1 - p0; step: d. */
    double *coef;
    double *delta;        /* c: values[k-1] - values[0], the cycle_offset shift */
    int safe[3];          /* no value / velocity / acceleration inside the keys can overflow */
};

size_t ac_curve_keys(const ac_curve *curve) { return curve->k; }
size_t ac_curve_channels(const ac_curve *curve) { return curve->c; }

void ac_curve_destroy(ac_curve *curve)
{
    if (!curve)
        return;
    free(curve->times);
    free(curve->values);
    free(curve->in_velocity);
    free(curve->out_velocity);
    free(curve->inv_duration);
    free(curve->coef);
    free(curve->delta);
    free(curve);
}

void ac_curve_key_velocities(const ac_curve *curve, double *in_velocities,
                             double *out_velocities)
{
    size_t bytes = curve->k * curve->c * sizeof(double);
    if (in_velocities && bytes)
        memcpy(in_velocities, curve->in_velocity, bytes);
    if (out_velocities && bytes)
        memcpy(out_velocities, curve->out_velocity, bytes);
}

/* ------------------------------------------------------------- building */

static double *alloc(size_t n)
{
    return malloc((n ? n : 1) * sizeof(double));
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

/* Velocities of keys a..b (a piece of strictly increasing times, b > a) of
   channel ch, following the policy. Segment slopes d[j] = dv / dt. */
static void piece_velocities(const ac_curve *cv, ac_curve_tangents policy, size_t a,
                             size_t b, size_t ch, double *vin, double *vout)
{
    const double *t = cv->times;
    const size_t C = cv->c;
#define V(i) (cv->values[(i) * C + ch])
#define SLOPE(j) ((V((j) + 1) - V(j)) / (t[(j) + 1] - t[j]))
    if (cv->interp != AC_CURVE_CUBIC) {
        for (size_t i = a; i <= b; i++) {
            double left = 0.0, right = 0.0;
            if (cv->interp == AC_CURVE_LINEAR) {
                left = SLOPE(i > a ? i - 1 : a);
                right = SLOPE(i < b ? i : b - 1);
            }
            vin[i * C + ch] = left;
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
            default: left = d; break; /* catmull_rom (both), clamped */
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

static ac_status check_times(const double *t, size_t k, int jumps, ac_error *err)
{
    for (size_t i = 0; i < k; i++) {
        if (!ac_finite(t[i]))
            return ac_fail(err, AC_ERR_VALUE, i, "times", t[i], "must be finite");
        if (i == 0 || t[i] > t[i - 1])
            continue;
        if (t[i] < t[i - 1])
            return ac_fail(err, AC_ERR_VALUE, i, "times", t[i],
                           "must be >= the previous time %.15g", t[i - 1]);
        if (!jumps)
            return ac_fail(err, AC_ERR_VALUE, i, "times", t[i],
                           "equals the previous time (a jump needs jumps=True)");
        if (i >= 2 && t[i - 2] == t[i])
            return ac_fail(err, AC_ERR_VALUE, i, "times", t[i],
                           "is the third equal time (a jump is a pair)");
        if (i == 1 || i == k - 1)
            return ac_fail(err, AC_ERR_VALUE, i, "times", t[i],
                           "makes a jump at an end key (needs a segment on each side)");
    }
    return AC_OK;
}

static ac_status check_all_finite(const char *arg, const double *x, size_t n,
                                  ac_error *err)
{
    for (size_t i = 0; i < n; i++)
        if (!ac_finite(x[i]))
            return ac_fail(err, AC_ERR_VALUE, i, arg, x[i], "must be finite");
    return AC_OK;
}

ac_status ac_curve_create(ac_curve **result, const ac_curve_spec *spec, ac_error *err)
{
    ac_curve *cv;
    ac_status st;
    size_t k = spec->keys, C = spec->channels, kc;
    int explicit_v = spec->tangents == AC_TANGENTS_EXPLICIT;
    *result = NULL;
    if (k < 1)
        return ac_fail(err, AC_ERR_VALUE, 0, "times", (double)k, "must hold at least one key");
    if ((unsigned)spec->interpolation > AC_CURVE_CUBIC)
        return ac_fail(err, AC_ERR_VALUE, 0, "interpolation", (double)spec->interpolation,
                       "must be step, linear or cubic");
    if ((unsigned)spec->tangents > AC_TANGENTS_EXPLICIT)
        return ac_fail(err, AC_ERR_VALUE, 0, "tangents", (double)spec->tangents,
                       "is not a known tangent policy");
    if ((unsigned)spec->before > AC_EXTRAP_ERROR || (unsigned)spec->after > AC_EXTRAP_ERROR)
        return ac_fail(err, AC_ERR_VALUE, 0, "extrapolation",
                       (double)((unsigned)spec->before > AC_EXTRAP_ERROR ? spec->before
                                                                         : spec->after),
                       "is not a known extrapolation mode");
    if (C != 0 && k > SIZE_MAX / 4 / C / sizeof(double))
        return ac_fail(err, AC_ERR_NOMEM, 0, "values", (double)k, "too many keys");
    kc = k * C;
    if ((st = check_times(spec->times, k, spec->jumps, err)) ||
        (st = check_all_finite("values", spec->values, kc, err)))
        return st;
    if (explicit_v && spec->interpolation == AC_CURVE_CUBIC) {
        if (!spec->in_velocities || !spec->out_velocities)
            return ac_fail(err, AC_ERR_VALUE, 0,
                           spec->in_velocities ? "out_velocities" : "in_velocities", 0.0,
                           "must be given for explicit tangents (the array is NULL)");
        if ((st = check_all_finite("in_velocities", spec->in_velocities, kc, err)) ||
            (st = check_all_finite("out_velocities", spec->out_velocities, kc, err)))
            return st;
    }

    cv = calloc(1, sizeof *cv);
    if (!cv)
        return ac_fail(err, AC_ERR_NOMEM, 0, "times", (double)k, "out of memory");
    cv->k = k, cv->c = C;
    cv->interp = spec->interpolation;
    cv->before = spec->before, cv->after = spec->after;
    cv->times = alloc(k);
    cv->values = alloc(kc);
    cv->in_velocity = alloc(kc);
    cv->out_velocity = alloc(kc);
    cv->inv_duration = alloc(k - 1);
    cv->coef = alloc((k - 1) * 4 * C);
    cv->delta = alloc(C);
    if (!cv->times || !cv->values || !cv->in_velocity || !cv->out_velocity ||
        !cv->inv_duration || !cv->coef || !cv->delta) {
        ac_curve_destroy(cv);
        return ac_fail(err, AC_ERR_NOMEM, 0, "times", (double)k, "out of memory");
    }
    memcpy(cv->times, spec->times, k * sizeof(double));
    if (kc)
        memcpy(cv->values, spec->values, kc * sizeof(double));
    for (size_t ch = 0; ch < C; ch++)
        cv->delta[ch] = cv->values[(k - 1) * C + ch] - cv->values[ch];

    /* Key velocities, piece by piece (jumps split the keys into pieces). */
    if (k == 1 || (explicit_v && cv->interp == AC_CURVE_CUBIC)) {
        for (size_t i = 0; i < kc; i++) {
            cv->in_velocity[i] = k == 1 ? 0.0 : spec->in_velocities[i];
            cv->out_velocity[i] = k == 1 ? 0.0 : spec->out_velocities[i];
        }
    } else {
        size_t a = 0;
        for (size_t i = 1; i <= k; i++) {
            if (i < k && cv->times[i] > cv->times[i - 1])
                continue;
            for (size_t ch = 0; ch < C; ch++)
                piece_velocities(cv, spec->tangents, a, i - 1, ch, cv->in_velocity,
                                 cv->out_velocity);
            a = i;
        }
        for (size_t i = 0; i < kc; i++)
            if (!ac_finite(cv->in_velocity[i]) || !ac_finite(cv->out_velocity[i])) {
                double v = ac_finite(cv->in_velocity[i]) ? cv->out_velocity[i]
                                                          : cv->in_velocity[i];
                ac_curve_destroy(cv);
                return ac_fail(err, AC_ERR_OVERFLOW, i, "velocity", v,
                               "the values and times give a key velocity that is not "
                               "representable");
            }
    }

    /* Segments: tangents = duration * velocity, then polynomial coefficients. */
    cv->safe[0] = cv->safe[1] = cv->safe[2] = 1;
    for (size_t j = 0; j + 1 < k; j++) {
        double T = cv->times[j + 1] - cv->times[j], iT = T > 0.0 ? 1.0 / T : 0.0;
        if (!ac_finite(T)) /* keys more than DBL_MAX apart: see wide_run */
            iT = 1.0 / (0.5 * cv->times[j + 1] - 0.5 * cv->times[j]);
        double *s = cv->coef + j * 4 * C;
        cv->inv_duration[j] = iT;
        for (size_t ch = 0; ch < C; ch++) {
            double p0 = cv->values[j * C + ch], p1 = cv->values[(j + 1) * C + ch];
            double m0 = 0.0, m1 = 0.0, a = 0.0, b = 0.0, c = 0.0, d = p0, bound[3];
            if (T > 0.0 && cv->interp == AC_CURVE_LINEAR) {
                c = p1 - p0;
            } else if (T > 0.0 && cv->interp == AC_CURVE_CUBIC) {
                double v0 = cv->out_velocity[j * C + ch], v1 = cv->in_velocity[(j + 1) * C + ch];
                if (ac_finite(T)) {
                    m0 = T * v0, m1 = T * v1;
                } else { /* half the duration, twice: finite whenever the tangent is */
                    double half = 0.5 * cv->times[j + 1] - 0.5 * cv->times[j];
                    m0 = (v0 * half) * 2.0, m1 = (v1 * half) * 2.0;
                }
                if (!ac_finite(m0) || !ac_finite(m1)) {
                    int first = !ac_finite(m0);
                    size_t key = first ? j : j + 1;
                    double v = first ? cv->out_velocity[j * C + ch]
                                     : cv->in_velocity[(j + 1) * C + ch];
                    ac_curve_destroy(cv);
                    return ac_fail(err, AC_ERR_OVERFLOW, key * C + ch,
                                   explicit_v ? (first ? "out_velocities" : "in_velocities")
                                              : "velocity",
                                   v,
                                   "times duration=%.15g gives a tangent that is not "
                                   "representable",
                                   T);
                }
                c = m0;
                b = 3.0 * (p1 - p0) - 2.0 * m0 - m1;
                a = 2.0 * (p0 - p1) + m0 + m1;
            }
            if (!ac_finite(a) || !ac_finite(b) || !ac_finite(c)) {
                ac_curve_destroy(cv);
                return ac_fail(err, AC_ERR_OVERFLOW, (j + 1) * C + ch, "values", p1,
                               "makes segment %zu's polynomial not representable", j);
            }
            s[ch] = d, s[C + ch] = c, s[2 * C + ch] = b, s[3 * C + ch] = a;
            /* Bounds on |x|, |x'| and |x''| for u in [0, 1], with a margin for
               rounding: within them no result can overflow. */
            bound[0] = fabs(a) + fabs(b) + fabs(c) + fabs(d);
            bound[1] = (3.0 * fabs(a) + 2.0 * fabs(b) + fabs(c)) * iT;
            bound[2] = (6.0 * fabs(a) + 2.0 * fabs(b)) * iT * iT;
            for (int r = 0; r < 3; r++)
                cv->safe[r] &= bound[r] <= DBL_MAX / 4.0;
        }
    }
    *result = cv;
    return AC_OK;
}

/* ------------------------------------------------------------- evaluation */

/* Last i in [0, k-2] with times[i] <= t, for times[0] <= t: a branch-free
   binary search (the comparison becomes a conditional move). */
static inline size_t bsearch_segment(const double *times, size_t k, double t)
{
    const double *base = times;
    size_t len = k - 1;
    while (len > 1) {
        size_t half = len / 2;
        base = base[half] <= t ? base + half : base;
        len -= half;
    }
    return (size_t)(base - times);
}

/* A segment whose keys lie more than DBL_MAX apart (-1e308 to 1e308): t - t0
   and the duration overflow, so u is computed on halves (inv_duration holds
   1 / (duration / 2)). Rare, so this scalar path keeps the others unchanged. */
static inline int is_wide(const ac_curve *cv, size_t j)
{
    return !ac_finite(cv->times[j + 1] - cv->times[j]);
}

static void wide_run(const ac_curve *cv, size_t j, const double *t, size_t m, int deriv,
                     double *o)
{
    const size_t C = cv->c;
    const double *d = cv->coef + j * 4 * C, *c = d + C, *b = c + C, *a = b + C;
    const double t0 = cv->times[j], iT2 = cv->inv_duration[j], iT = 0.5 * iT2;
    for (size_t r = 0; r < m; r++) {
        double u = (0.5 * t[r] - 0.5 * t0) * iT2;
        for (size_t ch = 0; ch < C; ch++) {
            double x = deriv == 0 ? (((a[ch] * u) + b[ch]) * u + c[ch]) * u + d[ch]
                     : deriv == 1 ? ((3.0 * a[ch] * u + 2.0 * b[ch]) * u + c[ch]) * iT
                                  : ((6.0 * a[ch] * u + 2.0 * b[ch]) * iT) * iT;
            o[r * C + ch] = x;
        }
    }
}

/* The polynomial of one segment and its derivatives. The scalar path (emit)
   and the run path (eval_run) use these same expressions, so every query
   gives the same bits whichever path it takes. */
#define AC_CURVE_X(a, b, c, d, u) (((a) * (u) + (b)) * (u) + (c)) * (u) + (d)
#define AC_CURVE_DX(a, b, c, u, iT) (((3.0 * (a)) * (u) + 2.0 * (b)) * (u) + (c)) * (iT)
#define AC_CURVE_DDX(a, b, u, iT) (((6.0 * (a)) * (u) + 2.0 * (b)) * (iT)) * (iT)

/* Writes the value or derivative of segment j at time t into o[0..c).
   `sign` flips the first derivative (mirrored cycles), `cycles` adds that
   many cycle_offset shifts to values. */
static void emit(const ac_curve *cv, size_t j, double t, int deriv, double sign,
                 double cycles, double *restrict o)
{
    const size_t C = cv->c;
    const double *d = cv->coef + j * 4 * C, *c = d + C, *b = c + C, *a = b + C;
    const double t0 = cv->times[j], iT = cv->inv_duration[j];
    const double u = is_wide(cv, j) ? (0.5 * t - 0.5 * t0) * iT : (t - t0) * iT;
    if (is_wide(cv, j)) {
        wide_run(cv, j, &t, 1, deriv, o);
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
        if (deriv == 0) {
            o[ch] = AC_CURVE_X(a[ch], b[ch], c[ch], d[ch], u);
            if (cycles != 0.0 && cv->delta[ch] != 0.0) /* inf cycles x 0: no shift */
                o[ch] += cycles * cv->delta[ch];
        } else if (deriv == 1) {
            o[ch] = AC_CURVE_DX(a[ch], b[ch], c[ch], u, iT);
            if (sign < 0.0)
                o[ch] = -o[ch];
        } else {
            o[ch] = AC_CURVE_DDX(a[ch], b[ch], u, iT);
        }
    }
}

/* m sorted queries t[0..m) all inside segment j: the segment's constants are
   loaded once and the loop vectorizes. */
AC_VECTORIZED
static void eval_run(const ac_curve *cv, size_t j, const double *restrict t, size_t m,
                     int deriv, double *restrict o)
{
    const size_t C = cv->c;
    const double *d = cv->coef + j * 4 * C, *c = d + C, *b = c + C, *a = b + C;
    const double t0 = cv->times[j], iT = cv->inv_duration[j];
    if (is_wide(cv, j)) {
        wide_run(cv, j, t, m, deriv, o);
        return;
    }
    if (C == 1) {
        const double a0 = a[0], b0 = b[0], c0 = c[0], d0 = d[0];
        if (deriv == 0) {
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
    for (size_t r = 0; r < m; r++) {
        double u = (t[r] - t0) * iT;
        double *restrict out = o + r * C;
        if (deriv == 0)
            for (size_t ch = 0; ch < C; ch++)
                out[ch] = AC_CURVE_X(a[ch], b[ch], c[ch], d[ch], u);
        else if (deriv == 1)
            for (size_t ch = 0; ch < C; ch++)
                out[ch] = AC_CURVE_DX(a[ch], b[ch], c[ch], u, iT);
        else
            for (size_t ch = 0; ch < C; ch++)
                out[ch] = AC_CURVE_DDX(a[ch], b[ch], u, iT);
    }
}

static const char *const result_names[3] = {"value", "velocity", "acceleration"};

static ac_status check_out(const double *o, size_t C, size_t i, int deriv, ac_error *err)
{
    for (size_t ch = 0; ch < C; ch++)
        if (!ac_finite(o[ch]))
            return ac_fail(err, AC_ERR_OVERFLOW, i, result_names[deriv], o[ch],
                           "is not representable although the inputs are finite");
    return AC_OK;
}

/* A query that is not strictly inside [first key, last key): the last key
   itself, extrapolation, a one-key curve, or bad input. */
static ac_status outside(const ac_curve *cv, double t, size_t i, int deriv, size_t *hint,
                         double *o, ac_error *err)
{
    const size_t k = cv->k, C = cv->c;
    const double lo = cv->times[0], hi = cv->times[k - 1];
    int after = t > lo;
    ac_curve_extrapolation mode = after ? cv->after : cv->before;
    size_t key = after ? k - 1 : 0;
    if (!ac_finite(t))
        return ac_fail(err, AC_ERR_VALUE, i, "t", t, "must be finite");
    if (t == hi || t == lo) { /* a one-key curve, or the last key */
        if (k > 1 && deriv != 0)
            emit(cv, k - 2, hi, deriv, 1.0, 0.0, o);
        else
            for (size_t ch = 0; ch < C; ch++)
                o[ch] = deriv == 0 ? cv->values[key * C + ch] : 0.0;
        return check_out(o, C, i, deriv, err);
    }
    if (mode == AC_EXTRAP_ERROR)
        return ac_fail(err, AC_ERR_VALUE, i, "t", t, "must lie in [%.15g, %.15g] (%s='error')",
                       lo, hi, after ? "after" : "before");
    if (k == 1 || mode == AC_EXTRAP_CLAMP) {
        for (size_t ch = 0; ch < C; ch++)
            o[ch] = deriv == 0 ? cv->values[key * C + ch] : 0.0;
        return AC_OK;
    }
    if (mode == AC_EXTRAP_LINEAR) {
        /* along the outer tangent: the velocity leaving the last key, or
           arriving at the first (the same as the inner one unless broken) */
        const double *v = after ? cv->out_velocity : cv->in_velocity;
        for (size_t ch = 0; ch < C; ch++) {
            double vel = v[key * C + ch];
            o[ch] = deriv == 0 ? cv->values[key * C + ch] + vel * (t - cv->times[key])
                               : deriv == 1 ? vel : 0.0;
        }
        return check_out(o, C, i, deriv, err);
    }
    {
        /* Cycles: t = lo + cycles * P + r with r in [0, P), exactly (ac_cycle_fold). */
        double cycles, sign;
        double tm = ac_cycle_fold(t, lo, hi, mode == AC_EXTRAP_OSCILLATE, &cycles, &sign);
        *hint = ac_segment_find(cv->times, k, tm, *hint);
        emit(cv, *hint, tm, deriv, sign, mode == AC_EXTRAP_CYCLE_OFFSET ? cycles : 0.0, o);
    }
    return check_out(o, C, i, deriv, err);
}

/* The first non-finite result among queries [0, n). */
static ac_status check_results(const ac_curve *cv, const double *out, size_t n, int deriv,
                               ac_error *err)
{
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
                sorted = 0, j = bsearch_segment(cv->times, k, t);
            prev = t;
            emit(cv, j, t, deriv, 1.0, 0.0, out + i * C);
        } else if ((st = outside(cv, t, i, deriv, &j, out + i * C, err))) {
            *cursor = j;
            return st;
        }
    }
    *cursor = j;
    return AC_OK;
}

/* First index in [i, n) of sorted tq whose value is >= end (tq[i] < end):
   galloping, then bisection, so a sweep costs O(log run) per segment. */
static size_t run_end(const double *tq, size_t i, size_t n, double end)
{
    size_t lo = i, step = 1, hi;
    while (lo + step < n && tq[lo + step] < end)
        lo += step, step *= 2;
    hi = lo + step < n ? lo + step : n;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (tq[mid] < end)
            lo = mid;
        else
            hi = mid;
    }
    return hi;
}

/* 1 when tq is non-decreasing (a NaN anywhere makes it 0 unless n == 1). */
AC_VECTORIZED
static int is_sorted(const double *tq, size_t n)
{
    int64_t ok = 1;
    for (size_t i = 1; i < n; i++)
        ok &= tq[i] >= tq[i - 1];
    return (int)ok;
}

/* Evaluates n queries from the cursor's segment on. err is not NULL: the
   overflow scan after a failure stops at the failing query, as the outputs
   after it are unspecified. */
static ac_status run(const ac_curve *cv, size_t *cursor, const double *tq, size_t n,
                     int deriv, double *restrict out, ac_error *err)
{
    const size_t k = cv->k, C = cv->c;
    const double lo = cv->times[0], hi = cv->times[k - 1];
    size_t j = *cursor < k - 1 ? *cursor : 0, i0, i1, i;
    ac_status st = AC_OK;
    if (n == 0)
        return AC_OK;
    if (k == 1 || !is_sorted(tq, n) || !ac_finite(tq[0]) || !ac_finite(tq[n - 1])) {
        *cursor = j;
        st = run_each(cv, cursor, tq, 0, n, deriv, out, err);
        goto done;
    }
    /* Sorted and finite: queries before the keys, inside them, at or after
       the last key form three consecutive runs. */
    i0 = tq[0] >= lo ? 0 : run_end(tq, 0, n, lo);
    i1 = i0 < n && tq[i0] < hi ? run_end(tq, i0, n, hi) : i0;
    for (i = 0; i < i0; i++)
        if ((st = outside(cv, tq[i], i, deriv, &j, out + i * C, err)))
            goto done;
    for (i = i0; i < i1;) {
        size_t r;
        j = ac_segment_find(cv->times, k, tq[i], j);
        r = run_end(tq, i, i1, cv->times[j + 1]);
        eval_run(cv, j, tq + i, r - i, deriv, out + i * C);
        i = r;
    }
    for (i = i1; i < n; i++)
        if ((st = outside(cv, tq[i], i, deriv, &j, out + i * C, err)))
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
        return ac_fail(err, AC_ERR_VALUE, 0, "derivative", derivative, "must be 0, 1 or 2");
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
    ac_error local; /* run needs the index of a failure even when err is NULL */
    ac_status st = check_derivative(derivative, err);
    return st ? st : run(curve, &cursor->segment, t, n, derivative, out, err ? err : &local);
}
