/* Easing functions on the normalized time u in [0, 1]:
   an easing remaps time, not the path. Penner's equations with b = 0, c = 1,
   d = 1; every kind has an analytic rate ds/du. One switch per call picks a
   per-kind loop, so the loops themselves have no dispatch and the polynomial
   kinds vectorize. */
#include <stdint.h>
#include <string.h>

#include "ac_internal.h"

#define PI 3.14159265358979323846
#define LN2 0.69314718055994530942
#define BACK_S 1.70158
#define BACK_S2 (1.70158 * 1.525)
#define BOUNCE_K 7.5625

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

/* Values (f_*) and rates (d_*). Written without branches where they are
   polynomials so the loops vectorize; the ternaries become blends. */
static inline double f_linear(double u) { return u; }
static inline double d_linear(double u) { return 0.0 * u + 1.0; }
static inline double f_smoothstep(double u) { return u * u * (3.0 - 2.0 * u); }
static inline double d_smoothstep(double u) { return 6.0 * u * (1.0 - u); }
static inline double f_smootherstep(double u) { return u * u * u * (u * (6.0 * u - 15.0) + 10.0); }
static inline double d_smootherstep(double u)
{
    double v = u * (1.0 - u);
    return 30.0 * v * v;
}

static inline double f_quad_in(double u) { return u * u; }
static inline double d_quad_in(double u) { return 2.0 * u; }
static inline double f_quad_out(double u) { return u * (2.0 - u); }
static inline double d_quad_out(double u) { return 2.0 * (1.0 - u); }
static inline double f_quad_in_out(double u)
{
    double v = 1.0 - u, lo = 2.0 * u * u, hi = 1.0 - 2.0 * v * v;
    return ac_pick(u < 0.5, lo, hi);
}
static inline double d_quad_in_out(double u)
{
    double v = ac_pick(u < 0.5, u, 1.0 - u);
    return 4.0 * v;
}

static inline double f_cubic_in(double u) { return u * u * u; }
static inline double d_cubic_in(double u) { return 3.0 * u * u; }
static inline double f_cubic_out(double u)
{
    double v = u - 1.0;
    return v * v * v + 1.0;
}
static inline double d_cubic_out(double u)
{
    double v = 1.0 - u;
    return 3.0 * v * v;
}
static inline double f_cubic_in_out(double u)
{
    double v = 1.0 - u, lo = 4.0 * u * u * u, hi = 1.0 - 4.0 * v * v * v;
    return ac_pick(u < 0.5, lo, hi);
}
static inline double d_cubic_in_out(double u)
{
    double v = ac_pick(u < 0.5, u, 1.0 - u);
    return 12.0 * v * v;
}

static inline double f_quart_in(double u) { return u * u * u * u; }
static inline double d_quart_in(double u) { return 4.0 * u * u * u; }
static inline double f_quart_out(double u)
{
    double v = 1.0 - u;
    return 1.0 - v * v * v * v;
}
static inline double d_quart_out(double u)
{
    double v = 1.0 - u;
    return 4.0 * v * v * v;
}
static inline double f_quart_in_out(double u)
{
    double v = 1.0 - u, lo = 8.0 * u * u * u * u, hi = 1.0 - 8.0 * v * v * v * v;
    return ac_pick(u < 0.5, lo, hi);
}
static inline double d_quart_in_out(double u)
{
    double v = ac_pick(u < 0.5, u, 1.0 - u);
    return 32.0 * v * v * v;
}

static inline double f_quint_in(double u) { return u * u * u * u * u; }
static inline double d_quint_in(double u) { return 5.0 * u * u * u * u; }
static inline double f_quint_out(double u)
{
    double v = u - 1.0;
    return v * v * v * v * v + 1.0;
}
static inline double d_quint_out(double u)
{
    double v = 1.0 - u;
    return 5.0 * v * v * v * v;
}
static inline double f_quint_in_out(double u)
{
    double v = 1.0 - u, lo = 16.0 * u * u * u * u * u, hi = 1.0 - 16.0 * v * v * v * v * v;
    return ac_pick(u < 0.5, lo, hi);
}
static inline double d_quint_in_out(double u)
{
    double v = ac_pick(u < 0.5, u, 1.0 - u);
    return 80.0 * v * v * v * v;
}

static inline double f_sine_in(double u) { return u == 1.0 ? 1.0 : 1.0 - cos(u * (PI / 2)); }
static inline double d_sine_in(double u) { return (PI / 2) * sin(u * (PI / 2)); }
static inline double f_sine_out(double u) { return sin(u * (PI / 2)); }
/* sin of the distance to the end where the rate vanishes: exactly 0 there */
static inline double d_sine_out(double u) { return (PI / 2) * sin((1.0 - u) * (PI / 2)); }
static inline double f_sine_in_out(double u) { return -0.5 * (cos(PI * u) - 1.0); }
static inline double d_sine_in_out(double u) { return (PI / 2) * sin(PI * fmin(u, 1.0 - u)); }

/* Penner returns b at t == 0 for expo_in (the formula gives 2^-10) and b + c
   at t == d for expo_out. */
static inline double f_expo_in(double u) { return u == 0.0 ? 0.0 : exp2(10.0 * (u - 1.0)); }
static inline double d_expo_in(double u) { return 10.0 * LN2 * exp2(10.0 * (u - 1.0)); }
static inline double f_expo_out(double u) { return u == 1.0 ? 1.0 : 1.0 - exp2(-10.0 * u); }
static inline double d_expo_out(double u) { return 10.0 * LN2 * exp2(-10.0 * u); }
static inline double f_expo_in_out(double u)
{
    if (u == 0.0 || u == 1.0)
        return u;
    return u < 0.5 ? 0.5 * exp2(20.0 * u - 10.0) : 1.0 - 0.5 * exp2(10.0 - 20.0 * u);
}
static inline double d_expo_in_out(double u)
{
    return 10.0 * LN2 * exp2(u < 0.5 ? 20.0 * u - 10.0 : 10.0 - 20.0 * u);
}

/* The rates have a vertical tangent (+inf) where the square root vanishes.
   1 - x^2 is formed as (1 - x)(1 + x), and 1 - (1 - u)^2 as u (2 - u), so
   that u near the vertical end (1e-310 for circ_out) keeps its digits. */
static inline double one_minus_sq(double x) { return (1.0 - x) * (1.0 + x); }
static inline double f_circ_in(double u) { return 1.0 - sqrt(one_minus_sq(u)); }
static inline double d_circ_in(double u) { return u / sqrt(one_minus_sq(u)); }
static inline double f_circ_out(double u) { return sqrt(u * (2.0 - u)); }
static inline double d_circ_out(double u) { return (1.0 - u) / sqrt(u * (2.0 - u)); }
static inline double f_circ_in_out(double u)
{
    double t = u < 0.5 ? 2.0 * u : 2.0 - 2.0 * u, r = 0.5 * (1.0 - sqrt(one_minus_sq(t)));
    return u < 0.5 ? r : 1.0 - r;
}
static inline double d_circ_in_out(double u)
{
    double t = u < 0.5 ? 2.0 * u : 2.0 - 2.0 * u;
    return t / sqrt(one_minus_sq(t));
}

static inline double f_back_in(double u)
{
    double r = u * u * ((BACK_S + 1.0) * u - BACK_S);
    return ac_pick(u == 1.0, 1.0, r);
}
static inline double d_back_in(double u)
{
    return 3.0 * (BACK_S + 1.0) * u * u - 2.0 * BACK_S * u;
}
static inline double f_back_out(double u)
{
    double t = u - 1.0, r = t * t * ((BACK_S + 1.0) * t + BACK_S) + 1.0;
    return ac_pick(u == 0.0, 0.0, r);
}
static inline double d_back_out(double u)
{
    double t = u - 1.0;
    return 3.0 * (BACK_S + 1.0) * t * t + 2.0 * BACK_S * t;
}
static inline double f_back_in_out(double u)
{
    int64_t lower = u < 0.5;
    double t = ac_pick(lower, 2.0 * u, 2.0 * u - 2.0);
    double sign = ac_pick(lower, -1.0, 1.0), base = ac_pick(lower, 0.0, 1.0);
    double r = 0.5 * (t * t * ((BACK_S2 + 1.0) * t + sign * BACK_S2)) + base;
    return ac_pick((u == 0.0) | (u == 1.0), u, r);
}
static inline double d_back_in_out(double u)
{
    int64_t lower = u < 0.5;
    double t = ac_pick(lower, 2.0 * u, 2.0 * u - 2.0), sign = ac_pick(lower, -1.0, 1.0);
    return 3.0 * (BACK_S2 + 1.0) * t * t + sign * 2.0 * BACK_S2 * t;
}

/* Penner's elastic with amplitude a = c = 1 and period p = 0.3 (in_out:
   0.45), so the phase shift is p / 4; exactly 0 at u = 0 and 1 at u = 1. */
#define EL_P 0.3
#define EL_W (2.0 * PI / EL_P)
#define EL_P2 0.45
#define EL_W2 (2.0 * PI / EL_P2)
static inline double f_elastic_in(double u)
{
    double t = u - 1.0;
    if (u == 0.0 || u == 1.0)
        return u;
    return -exp2(10.0 * t) * sin((t - EL_P / 4) * EL_W);
}
static inline double d_elastic_in(double u)
{
    double t = u - 1.0, a = (t - EL_P / 4) * EL_W;
    return -exp2(10.0 * t) * (10.0 * LN2 * sin(a) + EL_W * cos(a));
}
static inline double f_elastic_out(double u)
{
    if (u == 0.0 || u == 1.0)
        return u;
    return exp2(-10.0 * u) * sin((u - EL_P / 4) * EL_W) + 1.0;
}
static inline double d_elastic_out(double u)
{
    double a = (u - EL_P / 4) * EL_W;
    return exp2(-10.0 * u) * (EL_W * cos(a) - 10.0 * LN2 * sin(a));
}
static inline double f_elastic_in_out(double u)
{
    double t = 2.0 * u - 1.0, a = (t - EL_P2 / 4) * EL_W2;
    if (u == 0.0 || u == 1.0)
        return u;
    return u < 0.5 ? -0.5 * exp2(10.0 * t) * sin(a) : 0.5 * exp2(-10.0 * t) * sin(a) + 1.0;
}
static inline double d_elastic_in_out(double u)
{
    double t = 2.0 * u - 1.0, a = (t - EL_P2 / 4) * EL_W2;
    return u < 0.5 ? -exp2(10.0 * t) * (10.0 * LN2 * sin(a) + EL_W2 * cos(a))
                   : exp2(-10.0 * t) * (EL_W2 * cos(a) - 10.0 * LN2 * sin(a));
}

/* Penner's bounce_out: four parabolas of curvature 7.5625 meeting at
   1/2.75, 2/2.75, 2.5/2.75. The others derive from it. */
static inline double bounce_shift(double u)
{
    return ac_pick(u < 1.0 / 2.75, 0.0,
                ac_pick(u < 2.0 / 2.75, 1.5 / 2.75, ac_pick(u < 2.5 / 2.75, 2.25 / 2.75, 2.625 / 2.75)));
}
static inline double bounce_lift(double u)
{
    return ac_pick(u < 1.0 / 2.75, 0.0,
                ac_pick(u < 2.0 / 2.75, 0.75, ac_pick(u < 2.5 / 2.75, 0.9375, 0.984375)));
}
static inline double f_bounce_out(double u)
{
    double t = u - bounce_shift(u), r = BOUNCE_K * t * t + bounce_lift(u);
    return ac_pick((u == 0.0) | (u == 1.0), u, r);
}
static inline double d_bounce_out(double u) { return 2.0 * BOUNCE_K * (u - bounce_shift(u)); }
static inline double f_bounce_in(double u) { return 1.0 - f_bounce_out(1.0 - u); }
static inline double d_bounce_in(double u) { return d_bounce_out(1.0 - u); }
static inline double f_bounce_in_out(double u)
{
    /* in(2u) / 2 below one half, out(2u - 1) / 2 + 1/2 above: both are the
       bounce_out parabola at w, reflected below one half */
    double w = ac_pick(u < 0.5, 1.0 - 2.0 * u, 2.0 * u - 1.0), r = 0.5 * f_bounce_out(w);
    return ac_pick(u < 0.5, 0.5 - r, 0.5 + r);
}
static inline double d_bounce_in_out(double u)
{
    return d_bounce_out(ac_pick(u < 0.5, 1.0 - 2.0 * u, 2.0 * u - 1.0));
}

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
static inline double inv_sine(double s) { return acos(1.0 - s) * (2.0 / PI); }
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
    case AC_EASE_SINE_OUT: return asin(s) * (2.0 / PI);
    case AC_EASE_SINE_IN_OUT: return acos(1.0 - 2.0 * s) / PI;
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
static inline double poly_d1(poly3 q, double t)
{
    return ((3.0 * q.a * t + 2.0 * q.b) * t + q.c) * q.scale;
}

#define BEZIER_TOL 1e-12

/* The curve parameter t with |x(t) - u| <= 1e-12: Newton from t = u, then
   bisection (x is nondecreasing because x1, x2 lie in [0, 1]). */
static inline double bezier_solve(poly3 px, double u)
{
    double t = u, lo = 0.0, hi = 1.0;
    for (int it = 0; it < 8; it++) {
        double e = poly_at(px, t) - u, d;
        if (fabs(e) <= BEZIER_TOL)
            return t;
        d = poly_d1(px, t);
        if (!(fabs(d) > 1e-9))
            break;
        t -= e / d;
        if (!(t >= 0.0 && t <= 1.0))
            break;
    }
    t = u;
    for (int it = 0; it < 200 && hi - lo > 1e-18; it++) {
        double e = poly_at(px, t) - u;
        if (fabs(e) <= BEZIER_TOL)
            break;
        if (e < 0.0)
            lo = t;
        else
            hi = t;
        t = 0.5 * (lo + hi);
    }
    return t;
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

/* The fast path, branch-free so that it vectorizes: the curve parameter t
   starts from a table of t at BEZIER_GRID + 1 evenly spaced x (solved
   carefully once per call), interpolated linearly, which is within about
   1e-5 for smooth curves; BEZIER_NEWTON Newton steps then reach the
   tolerance. An element whose residual is still above the tolerance, whose x
   speed vanishes (for the rate), or whose u is invalid gets NaN and is redone
   by the careful path, and so do the rates at u = 0 and u = 1 (one-sided
   limits); s is finite for every valid element, so NaN marks exactly those.
   Returns 1 when none did. */
#ifndef BEZIER_GRID
#define BEZIER_GRID 128
#endif
#ifndef BEZIER_NEWTON
#define BEZIER_NEWTON 2
#endif
static inline int bezier_fast(const ac_ease_bezier *b, poly3 px, poly3 py, const double *table,
                              const double *restrict u, double *restrict s,
                              double *restrict dsdu, size_t n, int want_rate)
{
    int64_t redo = 0;
    for (size_t i = 0; i < n; i++) {
        double x = u[i], g = x * BEZIER_GRID, f, t, e, dx, y, r;
        int k = (int)ac_pick((g >= 0.0) & (g < BEZIER_GRID), g, 0.0);
        int64_t ok;
        f = g - k;
        t = table[k] + f * (table[k + 1] - table[k]);
        for (int it = 0; it < BEZIER_NEWTON; it++) {
            e = poly_at(px, t) - x;
            dx = poly_d1(px, t);
            t -= e / ac_pick(dx != 0.0, dx, 1.0);
            t = ac_pick(t < 0.0, 0.0, ac_pick(t > 1.0, 1.0, t));
        }
        e = poly_at(px, t) - x;
        dx = poly_d1(px, t);
        y = ac_pick(x == 0.0, 0.0, ac_pick(x == 1.0, 1.0, poly_at(py, t)));
        ok = (x >= 0.0) & (x <= 1.0) & (fabs(e) <= BEZIER_TOL);
        if (want_rate) { /* a compile-time constant in each caller below */
            double bx = bern_d1(b->x1, b->x2, t);
            r = bern_d1(b->y1, b->y2, t) / ac_pick(bx != 0.0, bx, 1.0);
            ok &= (bx != 0.0) & (x > 0.0) & (x < 1.0);
            dsdu[i] = r;
        }
        redo |= ok ^ 1;
        s[i] = ac_pick(ok, y, NAN);
    }
    return !redo;
}

AC_VECTORIZED
static int bezier_fast_value(const ac_ease_bezier *b, poly3 px, poly3 py,
                             const double *table, const double *u, double *s, size_t n)
{
    return bezier_fast(b, px, py, table, u, s, NULL, n, 0);
}

AC_VECTORIZED
static int bezier_fast_rate(const ac_ease_bezier *b, poly3 px, poly3 py,
                            const double *table, const double *u, double *s, double *dsdu,
                            size_t n)
{
    return bezier_fast(b, px, py, table, u, s, dsdu, n, 1);
}

ac_status ac_ease_bezier_eval(const ac_ease_bezier *curve, const double *u, double *s,
                              double *dsdu, size_t n, ac_error *err)
{
    enum { BLOCK = 256 };
    poly3 px = bezier_poly(curve->x1, curve->x2), py = bezier_poly(curve->y1, curve->y2);
    double table[BEZIER_GRID + 1];
    int fast = n >= 8 * BEZIER_GRID; /* below that, building the table costs more */
    if (fast)
        for (int k = 0; k <= BEZIER_GRID; k++)
            table[k] = bezier_solve(px, (double)k / BEZIER_GRID);
    for (size_t start = 0; start < n; start += BLOCK) {
        size_t m = n - start < BLOCK ? n - start : BLOCK;
        double *rate = dsdu ? dsdu + start : NULL;
        if (fast && (rate ? bezier_fast_rate(curve, px, py, table, u + start, s + start, rate, m)
                          : bezier_fast_value(curve, px, py, table, u + start, s + start, m)))
            continue;
        if (!fast)
            for (size_t j = 0; j < m; j++)
                s[start + j] = NAN;
        for (size_t j = 0; j < m; j++) {
            size_t i = start + j;
            double x = u[i], t;
            if (s[i] == s[i])
                continue;
            if (!(x >= 0.0 && x <= 1.0))
                return unit_fail(AC_ARG_U, x, i, err);
            t = bezier_solve(px, x);
            s[i] = x == 0.0 ? 0.0 : x == 1.0 ? 1.0 : poly_at(py, t);
            if (rate)
                rate[j] = bezier_rate(curve, x == 0.0 ? 0.0 : x == 1.0 ? 1.0 : t);
        }
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
