/* Easing functions on the normalized time u in [0, 1]:
   an easing remaps time, not the path. Penner's equations with b = 0, c = 1,
   d = 1; every kind has an analytic rate ds/du. One switch per call picks a
   per-kind loop, so the loops themselves have no dispatch and the polynomial
   kinds vectorize. */
#include <stdint.h>
#include <string.h>

#include "ac_internal.h"


/* ------------------------------------------------------------ the kinds */

static const char *const kind_names[AC_EASE_COUNT] = {
    "linear",       "smoothstep",     "smootherstep",      "quad_in",
    "quad_out",     "quad_in_out",    "cubic_in",          "cubic_out",
    "cubic_in_out", "quart_in",       "quart_out",         "quart_in_out",
    "quint_in",     "quint_out",      "quint_in_out",      "sine_in",
    "sine_out",     "sine_in_out",    "expo_in",           "expo_out",
    "expo_in_out",  "circ_in",        "circ_out",          "circ_in_out",
    "back_in",      "back_out",       "back_in_out",       "elastic_in",
    "elastic_out",  "elastic_in_out", "bounce_in",         "bounce_out",
    "bounce_in_out",
};

const char *ac_ease_name(ac_ease_kind kind)
{
    return (unsigned)kind < AC_EASE_COUNT ? kind_names[kind] : NULL;
}

bool ac_ease_monotone(ac_ease_kind kind)
{
    return (unsigned)kind < AC_EASE_BACK_IN;
}

#include "ac_ease_formulas.h"

/* --------------------------------------------------------------- loops */

/* One loop per kind and direction; validity of u is accumulated without
   branches and diagnosed afterwards. */
#define EASE_LOOP(expr)                                                         \
    for (size_t i = 0; i < n; i++) {                                            \
        double x = u[i];                                                        \
        out[i] = expr;                                                          \
        bad |= ((x >= 0.0) & (x <= 1.0)) ^ 1;                                   \
    }                                                                           \
    break

#define EASE_CASES(KIND, name)                                                  \
    case 2 * (KIND): EASE_LOOP(f_##name(x));                                     \
    case 2 * (KIND) + 1: EASE_LOOP(d_##name(x))

#define EASE_FAMILY(KIND, name)                                                 \
    EASE_CASES(KIND##_IN, name##_in);                                           \
    EASE_CASES(KIND##_OUT, name##_out);                                         \
    EASE_CASES(KIND##_IN_OUT, name##_in_out)

AC_VECTORIZED
static int ease_loop(int kind, int rate, const double *restrict u, double *restrict out,
                     size_t n)
{
    int64_t bad = 0;
    switch (2 * kind + rate) {
        EASE_CASES(AC_EASE_LINEAR, linear);
        EASE_CASES(AC_EASE_SMOOTHSTEP, smoothstep);
        EASE_CASES(AC_EASE_SMOOTHERSTEP, smootherstep);
        EASE_FAMILY(AC_EASE_QUAD, quad);
        EASE_FAMILY(AC_EASE_CUBIC, cubic);
        EASE_FAMILY(AC_EASE_QUART, quart);
        EASE_FAMILY(AC_EASE_QUINT, quint);
        EASE_FAMILY(AC_EASE_SINE, sine);
        EASE_FAMILY(AC_EASE_EXPO, expo);
        EASE_FAMILY(AC_EASE_CIRC, circ);
        EASE_FAMILY(AC_EASE_BACK, back);
        EASE_FAMILY(AC_EASE_ELASTIC, elastic);
        EASE_FAMILY(AC_EASE_BOUNCE, bounce);
    default: break;
    }
    return !bad;
}

static ac_status check_kind(ac_ease_kind kind, ac_error *err)
{
    if ((unsigned)kind >= AC_EASE_COUNT)
        return ac_fail(err, AC_ERR_VALUE, 0, AC_ARG_KIND, (double)kind,
                       "must be an ac_ease_kind below %d", (int)AC_EASE_COUNT);
    return AC_OK;
}

/* The error for one value x of `arg` at index i that is not in [0, 1]. */
static ac_status unit_fail(ac_arg arg, double x, size_t i, ac_error *err)
{
    if (!ac_finite(x))
        return ac_fail(err, AC_ERR_VALUE, i, arg, x, "must be finite");
    return ac_fail(err, AC_ERR_VALUE, i, arg, x, "must lie in [0, 1]");
}

/* The first element of x outside [0, 1]; called only after a loop saw one. */
static ac_status diagnose_unit(ac_arg arg, const double *x, size_t n, ac_error *err)
{
    for (size_t i = 0; i < n; i++)
        if (!(x[i] >= 0.0 && x[i] <= 1.0))
            return unit_fail(arg, x[i], i, err);
    AC_ASSERT(0 && "loop reported a failure the diagnosis did not find");
    return ac_fail(err, AC_ERR_VALUE, 0, arg, x[0], "internal check failed");
}

static ac_status ease_run(ac_ease_kind kind, int rate, const double *u, double *out, size_t n,
                          ac_error *err)
{
    ac_status st = check_kind(kind, err);
    if (st)
        return st;
    return ease_loop((int)kind, rate, u, out, n) ? AC_OK : diagnose_unit(AC_ARG_U, u, n, err);
}

ac_status ac_ease_eval(ac_ease_kind kind, const double *u, double *s, size_t n,
                       ac_error *err)
{
    return ease_run(kind, 0, u, s, n, err);
}

ac_status ac_ease_rate(ac_ease_kind kind, const double *u, double *dsdu, size_t n,
                       ac_error *err)
{
    return ease_run(kind, 1, u, dsdu, n, err);
}

/* ------------------------------------------------------------ inverses */

/* Safeguarded Newton on [0, 1] for a nondecreasing f with f(0) = 0 and
   f(1) = 1: Newton steps that leave the bracket become bisections, and the
   bracket shrinks every iteration, so it converges for any s in [0, 1]. */
static double solve_monotone(double (*f)(double), double (*df)(double), double s, double u)
{
    double lo = 0.0, hi = 1.0;
    for (int it = 0; it < 100; it++) {
        double e = f(u) - s, d, next;
        if (e == 0.0)
            return u;
        if (e < 0.0)
            lo = u;
        else
            hi = u;
        d = df(u);
        next = d > 0.0 ? u - e / d : -1.0;
        if (!(next > lo && next < hi))
            next = 0.5 * (lo + hi);
        if (fabs(next - u) <= 1e-15 || hi - lo <= 1e-15)
            return next;
        u = next;
    }
    return u;
}

/* Lower half of a symmetric in_out kind from the inverse of its _in, which
   reaches s at u: in_out(u) = in(2u) / 2, and in_out(1 - u) = 1 - in_out(u). */
#define SYMMETRIC(inv_in, s) ((s) < 0.5 ? 0.5 * inv_in(2.0 * (s)) : 1.0 - 0.5 * inv_in(2.0 - 2.0 * (s)))

static inline double inv_quad(double s) { return sqrt(s); }
static inline double inv_cubic(double s) { return cbrt(s); }
static inline double inv_quart(double s) { return sqrt(sqrt(s)); }
static inline double inv_quint(double s) { return s == 0.0 ? 0.0 : pow(s, 0.2); }
static inline double inv_sine(double s) { return acos(1.0 - s) * (2.0 / AC_PI); }
static inline double inv_circ(double s) { return sqrt(s * (2.0 - s)); }
/* expo_in is 0 at u = 0 and jumps to 2^-10: values inside the jump are
   reached at u = 0. */
static inline double inv_expo(double s)
{
    double u = 1.0 + log2(s) / 10.0;
    return u > 0.0 ? u : 0.0;
}
static inline double clamp01(double x) { return x < 0.0 ? 0.0 : x > 1.0 ? 1.0 : x; }

static double inverse_one(ac_ease_kind kind, double s)
{
    switch (kind) {
    case AC_EASE_LINEAR: return s;
    case AC_EASE_SMOOTHSTEP: return 0.5 - sin(asin(1.0 - 2.0 * s) / 3.0);
    case AC_EASE_SMOOTHERSTEP: return solve_monotone(f_smootherstep, d_smootherstep, s, s);
    case AC_EASE_QUAD_IN: return inv_quad(s);
    case AC_EASE_QUAD_OUT: return 1.0 - inv_quad(1.0 - s);
    case AC_EASE_QUAD_IN_OUT: return SYMMETRIC(inv_quad, s);
    case AC_EASE_CUBIC_IN: return inv_cubic(s);
    case AC_EASE_CUBIC_OUT: return 1.0 - inv_cubic(1.0 - s);
    case AC_EASE_CUBIC_IN_OUT: return SYMMETRIC(inv_cubic, s);
    case AC_EASE_QUART_IN: return inv_quart(s);
    case AC_EASE_QUART_OUT: return 1.0 - inv_quart(1.0 - s);
    case AC_EASE_QUART_IN_OUT: return SYMMETRIC(inv_quart, s);
    case AC_EASE_QUINT_IN: return inv_quint(s);
    case AC_EASE_QUINT_OUT: return 1.0 - inv_quint(1.0 - s);
    case AC_EASE_QUINT_IN_OUT: return SYMMETRIC(inv_quint, s);
    case AC_EASE_SINE_IN: return inv_sine(s);
    case AC_EASE_SINE_OUT: return asin(s) * (2.0 / AC_PI);
    case AC_EASE_SINE_IN_OUT: return acos(1.0 - 2.0 * s) / AC_PI;
    case AC_EASE_EXPO_IN: return s == 0.0 ? 0.0 : inv_expo(s);
    case AC_EASE_EXPO_OUT: return s == 1.0 ? 1.0 : 1.0 - inv_expo(1.0 - s);
    case AC_EASE_EXPO_IN_OUT:
        return s == 0.0 ? 0.0 : s == 1.0 ? 1.0 : SYMMETRIC(inv_expo, s);
    case AC_EASE_CIRC_IN: return inv_circ(s);
    case AC_EASE_CIRC_OUT: return 1.0 - inv_circ(1.0 - s);
    case AC_EASE_CIRC_IN_OUT: return SYMMETRIC(inv_circ, s);
    default: return s; /* not reached: non-monotone kinds are refused */
    }
}

ac_status ac_ease_inverse(ac_ease_kind kind, const double *s, double *u, size_t n,
                          ac_error *err)
{
    ac_status st = check_kind(kind, err);
    if (st)
        return st;
    if (!ac_ease_monotone(kind))
        return ac_fail(err, AC_ERR_VALUE, 0, AC_ARG_KIND, (double)kind,
                       "%s is not monotone, so it has no inverse", kind_names[kind]);
    for (size_t i = 0; i < n; i++) {
        double x = s[i];
        if (!(x >= 0.0 && x <= 1.0))
            return unit_fail(AC_ARG_S, x, i, err);
        u[i] = clamp01(inverse_one(kind, x)); /* closed forms may round past an end */
    }
    return AC_OK;
}

/* ------------------------------------------------------- cubic-bezier */

ac_status ac_ease_bezier_init(ac_ease_bezier *curve, double x1, double y1, double x2,
                              double y2, ac_error *err)
{
    const ac_arg names[4] = {AC_ARG_X1, AC_ARG_Y1, AC_ARG_X2, AC_ARG_Y2};
    double v[4] = {x1, y1, x2, y2};
    for (int k = 0; k < 4; k++)
        if (!ac_finite(v[k]))
            return ac_fail(err, AC_ERR_VALUE, 0, names[k], v[k], "must be finite");
    for (int k = 0; k < 4; k += 2)
        if (!(v[k] >= 0.0 && v[k] <= 1.0))
            return ac_fail(err, AC_ERR_VALUE, 0, names[k], v[k],
                           "must lie in [0, 1] so that time runs forward");
    curve->x1 = x1, curve->y1 = y1, curve->x2 = x2, curve->y2 = y2;
    return AC_OK;
}

/* Power-basis coefficients of one coordinate: B(t) = scale ((a t + b) t + c) t.
   The control values are divided by scale = max(1, |p1|, |p2|) first, so that
   the coefficients stay finite for any finite control point (y2 = 1e308);
   scale is 1, and the results bitwise those of the plain form, for |p| <= 1. */
typedef struct poly3 {
    double a, b, c, scale;
} poly3;

static inline poly3 bezier_poly(double p1, double p2)
{
    poly3 q;
    q.scale = fmax(1.0, fmax(fabs(p1), fabs(p2)));
    p1 /= q.scale, p2 /= q.scale;
    q.c = 3.0 * p1;
    q.b = 3.0 * (p2 - p1) - q.c;
    q.a = 1.0 / q.scale - q.c - q.b;
    return q;
}
static inline double poly_at(poly3 q, double t)
{
    return ((q.a * t + q.b) * t + q.c) * t * q.scale;
}

/* Derivatives of one coordinate in Bernstein form, B(t) = 3 s^2 t p1 +
   3 s t^2 p2 + t^3 with s = 1 - t: exact at the ends (3 p1 at t = 0, 3 (1 - p2)
   at t = 1), where the power basis leaves a rounding residue that decides the
   sign and size of dy/dx when both speeds vanish. Scaled by max(1, |p1|, |p2|)
   like bezier_poly, so that huge control values do not overflow midway. */
static inline double bern_scale(double p1, double p2) { return fmax(1.0, fmax(fabs(p1), fabs(p2))); }
static inline double bern_d1(double p1, double p2, double t)
{
    double m = bern_scale(p1, p2), s = 1.0 - t;
    p1 /= m, p2 /= m;
    return 3.0 * (s * s * p1 + 2.0 * s * t * (p2 - p1) + t * t * (1.0 / m - p2)) * m;
}
static inline double bern_d2(double p1, double p2, double t)
{
    double m = bern_scale(p1, p2);
    p1 /= m, p2 /= m;
    return 6.0 * ((1.0 - t) * (p2 - 2.0 * p1) + t * (1.0 / m - 2.0 * p2 + p1)) * m;
}
static inline double bern_d3(double p1, double p2)
{
    double m = bern_scale(p1, p2);
    return 6.0 * (1.0 / m - 3.0 * (p2 / m) + 3.0 * (p1 / m)) * m;
}

/* dy/dx at t; where dx/dt vanishes, the limit of the ratio of the first
   non-vanishing derivatives (l'Hopital), or +-inf when y still moves. At the
   ends this is the one-sided limit of the rate. */
static double bezier_rate(const ac_ease_bezier *b, double t)
{
    double dx = bern_d1(b->x1, b->x2, t), dy = bern_d1(b->y1, b->y2, t);
    if (dx != 0.0)
        return dy / dx;
    if (dy != 0.0)
        return dy > 0.0 ? HUGE_VAL : -HUGE_VAL;
    dx = bern_d2(b->x1, b->x2, t), dy = bern_d2(b->y1, b->y2, t);
    if (dx != 0.0) /* both speeds ~ (t - end) * second derivative */
        return dy / dx;
    if (dy != 0.0)
        return dy > 0.0 ? HUGE_VAL : -HUGE_VAL;
    return bern_d3(b->y1, b->y2) / bern_d3(b->x1, b->x2); /* x's is 6 when the others vanish */
}

/* Values through the one Bezier time solve of the core (bezier_param in
   ac_ease_formulas.h, which CSS-eased curve segments and remaps use too):
   the unit block's time and value cubics and inverse-time table, built once
   per call. A value cubic whose coefficients overflow (|y| near DBL_MAX)
   is read in the scaled form of bezier_poly instead, at the same t. The
   rate is the careful one of bezier_rate at that t. */
ac_status ac_ease_bezier_eval(const ac_ease_bezier *curve, const double *u, double *s,
                              double *dsdu, size_t n, ac_error *err)
{
    double unit[BEZ_BLOCK];
    poly3 py = bezier_poly(curve->y1, curve->y2);
    int plain;
    bezier_css_block(unit, 1, 0, curve->x1, curve->y1, curve->x2, curve->y2, 0.0, 1.0);
    plain = ac_finite(unit[4]) && ac_finite(unit[5]) && ac_finite(unit[6]);
    bezier_table(unit, 1, 0);
    for (size_t i = 0; i < n; i++) {
        double x = u[i];
        if (!(x >= 0.0 && x <= 1.0))
            return unit_fail(AC_ARG_U, x, i, err);
    }
    if (plain && !dsdu && s != u) { /* values alone: the run a curve's Bezier segment takes */
        bezier_run(unit, 1, 0.0, 1.0, u, n, 0, s);
        for (size_t i = 0; i < n; i++)
            s[i] = u[i] == 0.0 ? 0.0 : u[i] == 1.0 ? 1.0 : s[i];
        return AC_OK;
    }
    for (size_t i = 0; i < n; i++) {
        double x = u[i], t = bezier_param(unit, 1, 0, x);
        double y = plain ? ((unit[6] * t + unit[5]) * t + unit[4]) * t + unit[3] : poly_at(py, t);
        s[i] = x == 0.0 ? 0.0 : x == 1.0 ? 1.0 : y;
        if (dsdu)
            dsdu[i] = bezier_rate(curve, x == 0.0 ? 0.0 : x == 1.0 ? 1.0 : t);
    }
    return AC_OK;
}

AC_VECTORIZED
static int all_units(const double *u, size_t n)
{
    return ac_all_within(u, n, 0.0, 1.0);
}

bool ac_ease_check(const double *u, size_t n)
{
    return n == 0 || all_units(u, n);
}

/* --------------------------------------------------------------- steps */

ac_status ac_ease_steps_eval(long count, ac_ease_jump position, const double *u, double *s,
                             size_t n, ac_error *err)
{
    double steps = (double)count, jumps;
    int lead;
    switch (position) {
    case AC_EASE_JUMP_START: jumps = steps, lead = 1; break;
    case AC_EASE_JUMP_END: jumps = steps, lead = 0; break;
    case AC_EASE_JUMP_NONE: jumps = steps - 1.0, lead = 0; break;
    case AC_EASE_JUMP_BOTH: jumps = steps + 1.0, lead = 1; break;
    default:
        return ac_fail(err, AC_ERR_VALUE, 0, AC_ARG_POSITION, (double)position,
                       "must be an ac_ease_jump");
    }
    if (count < 1 || jumps < 1.0)
        return ac_fail(err, AC_ERR_VALUE, 0, AC_ARG_COUNT, steps, "must be >= %d%s",
                       position == AC_EASE_JUMP_NONE ? 2 : 1,
                       position == AC_EASE_JUMP_NONE ? " for jump-none" : "");
    /* CSS Easing Level 1, 2.3: current step = floor(u * steps) (+ 1 for a
       jump at the start), capped at the number of jumps when u <= 1. */
    for (size_t i = 0; i < n; i++) {
        double x = u[i], step;
        if (!(x >= 0.0 && x <= 1.0))
            return unit_fail(AC_ARG_U, x, i, err);
        step = floor(x * steps) + lead;
        s[i] = (step > jumps ? jumps : step) / jumps;
    }
    return AC_OK;
}
