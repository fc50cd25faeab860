/* The one easing library of the core, shared by the easing kernels
   (ac_ease.c) and the keyframe curves (ac_curve.c): every easing formula and
   its rate (f_* and d_*), their parameters (back's overshoot, elastic's
   amplitude and period) and Blender's variants, the second derivatives the
   curves need, and the one cubic-Bezier time solve (one tolerance, BEZ_TOL)
   that serves CubicBezier, weighted Bezier segments, CSS-eased segments and
   remaps. ease(k, u), a segment eased by k and remap_time(k) therefore give
   the same bits. Private to the core: not part of animcore.h. */
#ifndef AC_EASE_FORMULAS_H
#define AC_EASE_FORMULAS_H

#include <stdint.h>

#include "ac_internal.h"

#define AC_LN2 0.69314718055994530942
#define AC_BACK_S 1.70158 /* Penner's overshoot, about 10% */
#define AC_BOUNCE_K 7.5625
#define BEZ_TABLE 32                         /* intervals of the inverse-time table */
#define BEZ_SLOPE (7 + BEZ_TABLE + 1)         /* where the table's slopes start */
#define BEZ_ACCEPT (7 + 2 * (BEZ_TABLE + 1))  /* where bezier_accept's bound is */
#define BEZ_BLOCK (BEZ_ACCEPT + 1)            /* doubles per channel of a Bezier segment */
#define BEZ_TOL 1e-13                         /* |x(s) - u| accepted by the time solve */
#define BEZ_BLOCK_QUERIES 1024                /* queries per block of a Bezier run in lanes */

/* Values (f_*) and rates (d_*). Written without branches where they are
   polynomials so the loops vectorize; the ternaries become blends. */
static inline double f_linear(double u) { return u; }
static inline double d_linear(double u) { return 0.0 * u + 1.0; }
static inline double f_smoothstep(double u) { return u * u * (3.0 - 2.0 * u); }
static inline double d_smoothstep(double u) { return 6.0 * u * (1.0 - u); }
static inline double dd_smoothstep(double u) { return 6.0 - 12.0 * u; }
static inline double f_smootherstep(double u) { return u * u * u * (u * (6.0 * u - 15.0) + 10.0); }
static inline double d_smootherstep(double u)
{
    double v = u * (1.0 - u);
    return 30.0 * v * v;
}
static inline double dd_smootherstep(double u) { return 60.0 * u * (2.0 * u - 1.0) * (u - 1.0); }

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

static inline double f_sine_in(double u) { return u == 1.0 ? 1.0 : 1.0 - cos(u * (AC_PI / 2)); }
static inline double d_sine_in(double u) { return (AC_PI / 2) * sin(u * (AC_PI / 2)); }
static inline double f_sine_out(double u) { return sin(u * (AC_PI / 2)); }
/* sin of the distance to the end where the rate vanishes: exactly 0 there */
static inline double d_sine_out(double u) { return (AC_PI / 2) * sin((1.0 - u) * (AC_PI / 2)); }
static inline double f_sine_in_out(double u) { return 0.5 * (1.0 - cos(AC_PI * u)); } /* +0 at 0 */
static inline double d_sine_in_out(double u) { return (AC_PI / 2) * sin(AC_PI * fmin(u, 1.0 - u)); }

/* Penner returns b at t == 0 for expo_in (the formula gives 2^-10) and b + c
   at t == d for expo_out. */
static inline double f_expo_in(double u) { return u == 0.0 ? 0.0 : exp2(10.0 * (u - 1.0)); }
static inline double d_expo_in(double u) { return 10.0 * AC_LN2 * exp2(10.0 * (u - 1.0)); }
static inline double f_expo_out(double u) { return u == 1.0 ? 1.0 : 1.0 - exp2(-10.0 * u); }
static inline double d_expo_out(double u) { return 10.0 * AC_LN2 * exp2(-10.0 * u); }
static inline double f_expo_in_out(double u)
{
    if (u == 0.0 || u == 1.0)
        return u;
    return u < 0.5 ? 0.5 * exp2(20.0 * u - 10.0) : 1.0 - 0.5 * exp2(10.0 - 20.0 * u);
}
static inline double d_expo_in_out(double u)
{
    return 10.0 * AC_LN2 * exp2(u < 0.5 ? 20.0 * u - 10.0 : 10.0 - 20.0 * u);
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

static inline double f_back_in_s(double u, double BACK_S)
{
    double r = u * u * ((BACK_S + 1.0) * u - BACK_S) + 0.0; /* +0 (not -0) at and near 0 */
    return ac_pick(u == 1.0, 1.0, r);
}
static inline double d_back_in_s(double u, double BACK_S)
{
    return 3.0 * (BACK_S + 1.0) * u * u - 2.0 * BACK_S * u;
}
static inline double f_back_out_s(double u, double BACK_S)
{
    double t = u - 1.0, r = t * t * ((BACK_S + 1.0) * t + BACK_S) + 1.0;
    return ac_pick(u == 0.0, 0.0, r);
}
static inline double d_back_out_s(double u, double BACK_S)
{
    double t = u - 1.0;
    return 3.0 * (BACK_S + 1.0) * t * t + 2.0 * BACK_S * t;
}
static inline double f_back_in_out_s(double u, double BACK_S2)
{
    int64_t lower = u < 0.5;
    double t = ac_pick(lower, 2.0 * u, 2.0 * u - 2.0);
    double sign = ac_pick(lower, -1.0, 1.0), base = ac_pick(lower, 0.0, 1.0);
    double r = 0.5 * (t * t * ((BACK_S2 + 1.0) * t + sign * BACK_S2)) + base;
    return ac_pick((u == 0.0) | (u == 1.0), u, r);
}
static inline double d_back_in_out_s(double u, double BACK_S2)
{
    int64_t lower = u < 0.5;
    double t = ac_pick(lower, 2.0 * u, 2.0 * u - 2.0), sign = ac_pick(lower, -1.0, 1.0);
    return 3.0 * (BACK_S2 + 1.0) * t * t + sign * 2.0 * BACK_S2 * t;
}

static inline double f_back_in(double u) { return f_back_in_s(u, AC_BACK_S); }
static inline double d_back_in(double u) { return d_back_in_s(u, AC_BACK_S); }
static inline double f_back_out(double u) { return f_back_out_s(u, AC_BACK_S); }
static inline double d_back_out(double u) { return d_back_out_s(u, AC_BACK_S); }
static inline double f_back_in_out(double u) { return f_back_in_out_s(u, AC_BACK_S * 1.525); }
static inline double d_back_in_out(double u) { return d_back_in_out_s(u, AC_BACK_S * 1.525); }

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
    double t = u - bounce_shift(u), r = AC_BOUNCE_K * t * t + bounce_lift(u);
    return ac_pick((u == 0.0) | (u == 1.0), u, r);
}
static inline double d_bounce_out(double u) { return 2.0 * AC_BOUNCE_K * (u - bounce_shift(u)); }
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


/* ------------------------------------------------------- eased segments */

/* The "in" member of an easing family: g(u), g'(u), g''(u) (the rates only
   when `rates`: a value alone skips their extra libm calls). The _out and
   _in_out members follow from it by symmetry (see ease_offset). */
static inline void ease_in_base(int family, double overshoot, int blender, double u, int rates,
                         double g[3])
{
    switch (family) {
    case 0: case 1: case 2: case 3: { /* quad, cubic, quart, quint: u^n */
        int n = family + 2;
        double p = 1.0;
        for (int r = 0; r < n - 2; r++)
            p *= u;
        g[0] = p * u * u, g[1] = n * p * u, g[2] = n * (n - 1) * p;
        break;
    }
    case 4: { /* sine */
        double c = cos(u * (AC_PI / 2));
        g[0] = 1.0 - c, g[1] = rates ? (AC_PI / 2) * sin(u * (AC_PI / 2)) : 0.0;
        g[2] = (AC_PI / 2) * (AC_PI / 2) * c;
        break;
    }
    case 5: { /* expo: 2^(10 (u - 1)); Blender rescales it to start at 0 */
        double a = exp2(10.0 * (u - 1.0)), L = 10.0 * AC_LN2;
        double scale = blender ? 1.0 / (1.0 - 0.0009765625) : 1.0;
        g[0] = blender ? (a - 0.0009765625) * scale : (u == 0.0 ? 0.0 : a);
        g[1] = L * a * scale, g[2] = L * L * a * scale;
        break;
    }
    case 6: { /* circ */
        double r = sqrt(fmax(1.0 - u * u, 0.0));
        g[0] = 1.0 - r, g[1] = u / r, g[2] = 1.0 / (r * r * r);
        break;
    }
    case 7: /* back: (s + 1) u^3 - s u^2 */
        g[0] = ((overshoot + 1.0) * u - overshoot) * u * u;
        g[1] = (3.0 * (overshoot + 1.0) * u - 2.0 * overshoot) * u;
        g[2] = 6.0 * (overshoot + 1.0) * u - 2.0 * overshoot;
        break;
    default: { /* bounce: in(u) = 1 - out(1 - u), out Penner's four parabolas */
        double x = 1.0 - u, c, k = 7.5625;
        if (x < 1.0 / 2.75)
            x -= 0.0, c = 0.0;
        else if (x < 2.0 / 2.75)
            x -= 1.5 / 2.75, c = 0.75;
        else if (x < 2.5 / 2.75)
            x -= 2.25 / 2.75, c = 0.9375;
        else
            x -= 2.625 / 2.75, c = 0.984375;
        g[0] = 1.0 - (k * x * x + c), g[1] = 2.0 * k * x, g[2] = -2.0 * k;
        break;
    }
    }
}

/* A f(x) 2^(10 x) sin(w x - psi) and its first two derivatives in x, with
   f(x) = f0 + f1 x: the decaying oscillation of the elastic easings. */
static inline void elastic_term(double A, double f0, double f1, double w, double psi, double x,
                         int rates, double h[3])
{
    double L = 10.0 * AC_LN2, E = exp2(10.0 * x), S = sin(w * x - psi);
    double Co = rates ? cos(w * x - psi) : 0.0;
    double es = E * S, des = E * (L * S + w * Co), ddes = E * ((L * L - w * w) * S + 2.0 * L * w * Co);
    double f = f0 + f1 * x;
    h[0] = A * f * es, h[1] = A * (f1 * es + f * des), h[2] = A * (2.0 * f1 * des + f * ddes);
}

/* Elastic: Penner's equations with amplitude A (value units) and period P
   (time units); Blender's variant blends towards the key over the last
   quarter period when A < |change| and runs the decaying sine backwards.
   o = offset from p0 and its u-derivatives. */
static inline void ease_elastic(int variant, const ac_curve_ease *e, double u, double change,
                         double T, int rates, double o[3])
{
    double A = e->amplitude, P = e->period, s, f0 = 1.0, f1 = 0.0, h[3];
    if (e->flags & AC_CURVE_EASE_RELATIVE)
        A *= fabs(change), P *= T;
    if (P == 0.0)
        P = T * (variant == 2 ? 0.45 : 0.3);
    if (A == 0.0 || A < fabs(change)) {
        s = P / 4.0;
        if ((e->flags & AC_CURVE_EASE_BLENDER) && change != 0.0) {
            /* f = F away from the key, rising linearly to 1 within s of it */
            double F = A != 0.0 ? A / fabs(change) : 0.0;
            f0 = 1.0, f1 = (1.0 - F) * T / s;
            double x = variant == 0 ? u - 1.0 : variant == 1 ? -u : -fabs(2.0 * u - 1.0);
            if (-x * T >= s)
                f0 = F, f1 = 0.0;
        }
        A = change;
    } else {
        s = P / (2.0 * AC_PI) * asin(change / A);
    }
    {
        /* The decaying side (out, second half of in_out) runs its sine forwards
           in Penner's equations, sin(w u - psi), but backwards in Blender's,
           sin(-w u - psi): the two differ when A > |change| (psi != pi/2). */
        double w = 2.0 * AC_PI * T / P, psi = 2.0 * AC_PI * s / P;
        double wd = (e->flags & AC_CURVE_EASE_BLENDER) ? w : -w;
        if (variant == 0) { /* in: -term(u - 1) */
            elastic_term(A, f0, f1, w, psi, u - 1.0, rates, h);
            o[0] = -h[0], o[1] = -h[1], o[2] = -h[2];
        } else if (variant == 1) { /* out: term(-u) + change */
            elastic_term(A, f0, f1, wd, psi, -u, rates, h);
            o[0] = h[0] + change, o[1] = -h[1], o[2] = h[2];
        } else if (u < 0.5) { /* in_out, first half: -term(2u - 1) / 2 */
            elastic_term(A, f0, f1, w, psi, 2.0 * u - 1.0, rates, h);
            o[0] = -0.5 * h[0], o[1] = -h[1], o[2] = -2.0 * h[2];
        } else { /* second half: term(1 - 2u) / 2 + change */
            elastic_term(A, f0, f1, wd, psi, 1.0 - 2.0 * u, rates, h);
            o[0] = 0.5 * h[0] + change, o[1] = -h[1], o[2] = 2.0 * h[2];
        }
        if (u == 0.0) /* the keys themselves, exactly (as Penner and Blender) */
            o[0] = 0.0;
        else if (u == 1.0)
            o[0] = change;
    }
}

/* Penner's elastic (amplitude 1, period 0.3, in_out 0.45) is ease_elastic
   with its default parameters: one formula for the kernels and the curves. */
static inline double elastic_default(int variant, double u, int rate)
{
    ac_curve_ease e = {0};
    double o[3];
    e.kind = AC_EASE_ELASTIC_IN + variant, e.flags = AC_CURVE_EASE_RELATIVE;
    ease_elastic(variant, &e, u, 1.0, 1.0, rate, o);
    return o[rate];
}
static inline double f_elastic_in(double u) { return elastic_default(0, u, 0); }
static inline double d_elastic_in(double u) { return elastic_default(0, u, 1); }
static inline double f_elastic_out(double u) { return elastic_default(1, u, 0); }
static inline double d_elastic_out(double u) { return elastic_default(1, u, 1); }
static inline double f_elastic_in_out(double u) { return elastic_default(2, u, 0); }
static inline double d_elastic_in_out(double u) { return elastic_default(2, u, 1); }

/* The value and rate of a kind other than elastic, from the formulas above
   (back with overshoot os; in_out: os already times 1.525). */
static inline void ease_value_rate(int kind, double os, double u, int rates, double g[2])
{
#define AC_EASE_VR(K, name)                                                     \
    case K: g[0] = f_##name(u), g[1] = rates ? d_##name(u) : 0.0; return
    switch (kind) {
    AC_EASE_VR(AC_EASE_LINEAR, linear);
    AC_EASE_VR(AC_EASE_SMOOTHSTEP, smoothstep);
    AC_EASE_VR(AC_EASE_SMOOTHERSTEP, smootherstep);
    AC_EASE_VR(AC_EASE_QUAD_IN, quad_in);
    AC_EASE_VR(AC_EASE_QUAD_OUT, quad_out);
    AC_EASE_VR(AC_EASE_QUAD_IN_OUT, quad_in_out);
    AC_EASE_VR(AC_EASE_CUBIC_IN, cubic_in);
    AC_EASE_VR(AC_EASE_CUBIC_OUT, cubic_out);
    AC_EASE_VR(AC_EASE_CUBIC_IN_OUT, cubic_in_out);
    AC_EASE_VR(AC_EASE_QUART_IN, quart_in);
    AC_EASE_VR(AC_EASE_QUART_OUT, quart_out);
    AC_EASE_VR(AC_EASE_QUART_IN_OUT, quart_in_out);
    AC_EASE_VR(AC_EASE_QUINT_IN, quint_in);
    AC_EASE_VR(AC_EASE_QUINT_OUT, quint_out);
    AC_EASE_VR(AC_EASE_QUINT_IN_OUT, quint_in_out);
    AC_EASE_VR(AC_EASE_SINE_IN, sine_in);
    AC_EASE_VR(AC_EASE_SINE_OUT, sine_out);
    AC_EASE_VR(AC_EASE_SINE_IN_OUT, sine_in_out);
    AC_EASE_VR(AC_EASE_EXPO_IN, expo_in);
    AC_EASE_VR(AC_EASE_EXPO_OUT, expo_out);
    AC_EASE_VR(AC_EASE_EXPO_IN_OUT, expo_in_out);
    AC_EASE_VR(AC_EASE_CIRC_IN, circ_in);
    AC_EASE_VR(AC_EASE_CIRC_OUT, circ_out);
    AC_EASE_VR(AC_EASE_CIRC_IN_OUT, circ_in_out);
    AC_EASE_VR(AC_EASE_BOUNCE_IN, bounce_in);
    AC_EASE_VR(AC_EASE_BOUNCE_OUT, bounce_out);
    AC_EASE_VR(AC_EASE_BOUNCE_IN_OUT, bounce_in_out);
    case AC_EASE_BACK_IN: g[0] = f_back_in_s(u, os), g[1] = rates ? d_back_in_s(u, os) : 0.0; return;
    case AC_EASE_BACK_OUT: g[0] = f_back_out_s(u, os), g[1] = rates ? d_back_out_s(u, os) : 0.0; return;
    default: g[0] = f_back_in_out_s(u, os), g[1] = rates ? d_back_in_out_s(u, os) : 0.0; return;
    }
#undef AC_EASE_VR
}

/* Offset from p0 of an eased segment with value change `change` over T
   seconds at u in [0, 1], and its first two derivatives in u. The value and
   rate are those of ease_value_rate (so ac_ease_eval, an eased segment and
   a remap give the same bits); the second derivative follows from the "in"
   member by symmetry. */
static inline void ease_offset_at(const ac_curve_ease *e, double u, double change, double T,
                                  int rates, double o[3])
{
    int kind = e->kind, blender = (e->flags & AC_CURVE_EASE_BLENDER) != 0;
    double g[3], vr[2];
    if (kind == AC_EASE_LINEAR) {
        g[0] = u, g[1] = 1.0, g[2] = 0.0;
    } else if (kind == AC_EASE_SMOOTHSTEP) {
        g[0] = f_smoothstep(u), g[1] = d_smoothstep(u), g[2] = dd_smoothstep(u);
    } else if (kind == AC_EASE_SMOOTHERSTEP) {
        g[0] = f_smootherstep(u), g[1] = d_smootherstep(u), g[2] = dd_smootherstep(u);
    } else {
        int family = (kind - AC_EASE_QUAD_IN) / 3, variant = (kind - AC_EASE_QUAD_IN) % 3;
        double os = e->overshoot * (variant == 2 ? 1.525 : 1.0);
        if (family == 8) {
            ease_elastic(variant, e, u, change, T, rates, o);
            return;
        }
        g[0] = g[1] = g[2] = 0.0;
        if (rates || (blender && family == 5)) { /* Blender's expo has formulas of its own */
            if (variant == 0) {
                ease_in_base(family, os, blender, u, rates, g);
            } else if (variant == 1) {
                ease_in_base(family, os, blender, 1.0 - u, rates, g);
                g[0] = 1.0 - g[0], g[2] = -g[2];
            } else if (u < 0.5 || (u == 0.5 && family == 5)) {
                ease_in_base(family, os, blender, 2.0 * u, rates, g);
                g[0] *= 0.5, g[2] *= 2.0;
            } else {
                ease_in_base(family, os, blender, 2.0 - 2.0 * u, rates, g);
                g[0] = 1.0 - 0.5 * g[0], g[2] *= -2.0;
            }
        }
        if (!(blender && family == 5)) {
            ease_value_rate(kind, os, u, rates, vr);
            g[0] = vr[0], g[1] = vr[1];
        }
        if (u == 0.0)
            g[0] = 0.0; /* every easing starts at its key and ends at the next */
        else if (u == 1.0)
            g[0] = 1.0;
    }
    o[0] = g[0] * change, o[1] = g[1] * change, o[2] = g[2] * change;
}

/* ease_offset_at with both rates. */
static inline void ease_offset(const ac_curve_ease *e, double u, double change, double T,
                        double o[3])
{
    ease_offset_at(e, u, change, T, 1, o);
}

/* ------------------------------------------------------- Bezier segments */

/* The s in [0, 1] with x(s) = ((ax s + bx) s + cx) s = u, x non-decreasing
   (handles within the segment), from a start s: Newton steps kept inside a
   shrinking bracket, bisection where Newton would leave it (a flat spot of x). */
static inline double bezier_solve(double cx, double bx, double ax, double u, double s)
{
    double lo = 0.0, hi = 1.0;
    if (!(u > 0.0))
        return 0.0;
    if (!(u < 1.0))
        return 1.0;
    for (int it = 0; it < 100; it++) {
        double f = ((ax * s + bx) * s + cx) * s - u, d, next;
        if (fabs(f) <= 1e-15)
            break;
        if (f > 0.0)
            hi = s;
        else
            lo = s;
        d = (3.0 * ax * s + 2.0 * bx) * s + cx;
        next = s - f / d;
        if (!(next > lo && next < hi))
            next = 0.5 * (lo + hi);
        if (next == s || hi - lo <= 1e-16)
            break;
        s = next;
    }
    return s;
}

/* The least x'(s) = cx + 2 bx s + 3 ax s^2 on [0, 1] (of bezier_accept's m). */
static inline double bezier_least_slope(double cx, double bx, double ax)
{
    double m = fmin(cx, (3.0 * ax + 2.0 * bx) + cx); /* x' at the ends */
    if (ax > 0.0 && -bx > 0.0 && -bx < 3.0 * ax) /* x' has its vertex inside */
        m = fmin(m, cx - bx * bx / (3.0 * ax));
    return m;
}

/* A bound tau such that one Halley step (bezier_halley) from an s in [0, 1]
   with |x(s) - u| < tau lands within BEZ_TOL / 2 of u, so its result needs
   no check (0 where x' vanishes on [0, 1]: every step is checked). With f =
   x(s) - u, d = x'(s), h = x''(s) / 2 and the step D = -f d / (d^2 - f h),
   exactly x(s + D) - u = h^2 f^3 / (d^2 - f h)^2 + ax D^3. On [0, 1], d >= m
   (the least x'), |h| <= H and |ax| = A; tau <= m^2 / (2 H) keeps d^2 - f h
   >= d^2 / 2, so |D| <= 2 tau / m and |x(s + D) - u| <= tau^3 (4 H^2 / m^4 +
   8 A / m^3). The rounding of the step adds about that of computing f
   (1e-15); m is taken 1% smaller for the rounding of s near the ends. */
static inline double bezier_accept(double cx, double bx, double ax)
{
    double m = 0.99 * bezier_least_slope(cx, bx, ax);
    double H = fmax(fabs(bx), fabs(3.0 * ax + bx)), A = fabs(ax), K, tau;
    if (!(m > 0.0) || !ac_finite(m))
        return 0.0;
    K = 4.0 * H * H / (m * m * m * m) + 8.0 * A / (m * m * m);
    tau = cbrt(0.5 * BEZ_TOL / K);
    return H > 0.0 ? fmin(tau, m * m / (2.0 * H)) : tau;
}

/* Bounds on the velocity and acceleration of channel ch of Bezier block b
   (its time and value cubics set), bezier_at's y'/x' iT and (y'' x' - y'
   x'') / x'^3 iT^2 at any s in [0, 1]: |y'| <= |cy| + 2 |by| + 3 |ay|,
   |y''| <= 2 |by| + 6 |ay| and the same for x, and x' >= m', half the least
   x' less the rounding of computing x' (from 0 where x' can vanish, which
   leaves them unbounded). Each bound also covers the quotient before the
   factors iT (when iT < 1). */
static inline void bezier_rate_bounds(const double *b, size_t C, size_t ch, double iT, double bound[3])
{
    double cx = b[ch], bx = b[C + ch], ax = b[2 * C + ch];
    double cy = b[4 * C + ch], by = b[5 * C + ch], ay = b[6 * C + ch];
    double x1 = fabs(cx) + 2.0 * fabs(bx) + 3.0 * fabs(ax), x2 = 2.0 * fabs(bx) + 6.0 * fabs(ax);
    double y1 = fabs(cy) + 2.0 * fabs(by) + 3.0 * fabs(ay), y2 = 2.0 * fabs(by) + 6.0 * fabs(ay);
    double m = 0.5 * bezier_least_slope(cx, bx, ax) - 16.0 * DBL_EPSILON * x1;
    double top = y2 * x1 + y1 * x2, f = fmax(1.0, iT);
    if (!(m >= 1e-100)) { /* m^3 must stay a normal number */
        bound[1] = bound[2] = INFINITY;
        return;
    }
    bound[1] = y1 / m * f;
    bound[2] = fmax(top, top / (m * m * m)) * f * f;
}

/* The inverse-time table of channel ch of Bezier block bz (its time cubic
   set): s at u = r / BEZ_TABLE, and ds/du there in units of the interval,
   limited to 3 times the smaller neighbouring chord of s, which keeps each
   interval's cubic Hermite guess monotone and finite where dx/ds = 0. */
static inline void bezier_table(double *bz, size_t C, size_t ch)
{
    const double cx = bz[ch], bx = bz[C + ch], ax = bz[2 * C + ch];
    double *tab = bz + 7 * C + ch, *slope = bz + BEZ_SLOPE * C + ch;
    for (size_t r = 0; r <= BEZ_TABLE; r++) {
        double u = (double)r / BEZ_TABLE;
        tab[r * C] = bezier_solve(cx, bx, ax, u, u);
    }
    for (size_t r = 0; r <= BEZ_TABLE; r++) {
        double s = tab[r * C], xd = (3.0 * ax * s + 2.0 * bx) * s + cx;
        double left = r > 0 ? s - tab[(r - 1) * C] : DBL_MAX;
        double right = r < BEZ_TABLE ? tab[(r + 1) * C] - s : DBL_MAX;
        double limit = 3.0 * fmin(left, right);
        slope[r * C] = xd > 0.0 ? fmin((1.0 / BEZ_TABLE) / xd, limit) : limit;
    }
    bz[BEZ_ACCEPT * C + ch] = bezier_accept(cx, bx, ax);
}

/* The time solve without its fallback, in steps that the scalar and the
   vectorized paths both take (so both give the same bits). The table
   interval of u and u's place in it, w in [0, 1]; */
static AC_FORCE_INLINE int bezier_interval(double u, double *w)
{
    /* a NaN u (a duration too short for its inverse) takes interval 0 and
       fails the solve's test, whose fallback settles it */
    double v = ac_pick(!(u * BEZ_TABLE >= 0.0), 0.0, u * BEZ_TABLE);
    int i = (int)ac_pick(v > BEZ_TABLE - 1, BEZ_TABLE - 1, v);
    *w = v - (double)i;
    return i;
}

/* the interval's cubic Hermite guess of s, s0 + w (m0 + w (e2 + w e3)) (node
   values s0, s1, slopes m0, m1, h = s1 - s0, e2 = 3 h - 2 m0 - m1, e3 = m0 +
   m1 - 2 h): monotone between the nodes, as the slopes are limited to 3
   chords (bezier_table), so it needs no clamp; */
static AC_FORCE_INLINE double bezier_start(const double *b, size_t C, size_t ch, double u)
{
    const double *tab = b + 7 * C + ch, *slope = b + BEZ_SLOPE * C + ch;
    double w, s0, s1, m0, m1, h;
    int i = bezier_interval(u, &w);
    s0 = tab[(size_t)i * C], s1 = tab[(size_t)(i + 1) * C];
    m0 = slope[(size_t)i * C], m1 = slope[(size_t)(i + 1) * C];
    h = s1 - s0;
    return s0 + w * (m0 + w * ((3.0 * h - 2.0 * m0 - m1) + w * (m0 + m1 - 2.0 * h)));
}

/* then one Halley step, s - f d / (d^2 - f h) with f = x(s) - u, d = x'(s)
   and h = x''(s) / 2 (which gives d as (h + bx) s + cx), kept in [0, 1]:
   cubic convergence, from the guess's error of about 1e-6 to below BEZ_TOL
   almost everywhere. *f0 is f at the guess; */
static AC_FORCE_INLINE double bezier_halley(double cx, double bx, double ax, double u,
                                            double s, double *f0)
{
    double fx = ((ax * s + bx) * s + cx) * s - u;
    double h = (3.0 * ax) * s + bx, d = (h + bx) * s + cx;
    *f0 = fx;
    s = s - fx * d / (d * d - fx * h);
    s = ac_pick(s < 0.0, 0.0, s); /* a NaN step (d = 0) stays NaN: the check catches it */
    return ac_pick(s > 1.0, 1.0, s);
}

/* the step's result is taken when the guess was below bezier_accept's
   bound tau (the step then lands within BEZ_TOL / 2; never where tau = 0),
   or when it is within BEZ_TOL; */
static AC_FORCE_INLINE int bezier_ok(double cx, double bx, double ax, double u, double s,
                                     double f0, double tau)
{
    return fabs(f0) < tau || fabs(((ax * s + bx) * s + cx) * s - u) <= BEZ_TOL;
}

/* The fallback of the solve where the guess missed BEZ_TOL (near a flat spot
   of x): the bracketed solve from the guess (from u if the guess is NaN). */
static inline double bezier_finish(const double *b, size_t C, size_t ch, double u, double s)
{
    return bezier_solve(b[ch], b[C + ch], b[2 * C + ch], u, s >= 0.0 && s <= 1.0 ? s : u);
}

/* s with x(s) = u, |x(s) - u| <= BEZ_TOL: every path computes it this way, so
   scalar and run evaluation give the same bits. */
static inline double bezier_param(const double *b, size_t C, size_t ch, double u)
{
    const double cx = b[ch], bx = b[C + ch], ax = b[2 * C + ch];
    double f0, s = bezier_halley(cx, bx, ax, u, bezier_start(b, C, ch, u), &f0);
    return bezier_ok(cx, bx, ax, u, s, f0, b[BEZ_ACCEPT * C + ch]) ? s
                                                                   : bezier_finish(b, C, ch, u, s);
}

/* Value (0), per-second velocity (1) or acceleration (2) of Bezier channel
   block b at u. Where dx/ds vanishes (a zero-length handle) the velocity is
   the limit y''/x''. */
static inline double bezier_at(const double *b, size_t C, size_t ch, double u, double iT,
                               int deriv)
{
    double cx = b[ch], bx = b[C + ch], ax = b[2 * C + ch];
    double dy = b[3 * C + ch], cy = b[4 * C + ch], by = b[5 * C + ch], ay = b[6 * C + ch];
    double s = bezier_param(b, C, ch, u), xd, yd, xdd, ydd;
    if (deriv == 0)
        return ((ay * s + by) * s + cy) * s + dy;
    xd = (3.0 * ax * s + 2.0 * bx) * s + cx, yd = (3.0 * ay * s + 2.0 * by) * s + cy;
    xdd = 6.0 * ax * s + 2.0 * bx, ydd = 6.0 * ay * s + 2.0 * by;
    if (deriv == 1)
        return (xd == 0.0 && yd == 0.0 ? ydd / xdd : yd / xd) * iT;
    return (ydd * xd - yd * xdd) / (xd * xd * xd) * iT * iT;
}

/* The Bezier block of a CSS-eased channel (time control points x1, x2 in
   [0, 1], value p0 + y dv), its time and value cubics; the caller builds the
   inverse-time table (bezier_table). The unit block (p0 = 0, dv = 1) is the
   CubicBezier easing itself. */
static inline void bezier_css_block(double *bz, size_t C, size_t ch, double x1, double y1,
                                    double x2, double y2, double p0, double dv)
{
    double q1 = p0 + y1 * dv, q2 = p0 + y2 * dv, q3 = p0 + dv;
    bz[ch] = 3.0 * x1, bz[C + ch] = 3.0 * (x2 - 2.0 * x1);
    bz[2 * C + ch] = 1.0 + 3.0 * (x1 - x2);
    bz[3 * C + ch] = p0, bz[4 * C + ch] = 3.0 * (q1 - p0);
    bz[5 * C + ch] = 3.0 * (p0 - 2.0 * q1 + q2);
    bz[6 * C + ch] = q3 - p0 + 3.0 * (q1 - q2);
}

/* -------------------------------------------- Bezier runs (many queries)
   The one time solve above over many queries of one segment: in chunks
   whose loops vectorize, or in AVX-512 lanes where the CPU has them; the
   same bits as bezier_param and bezier_at per query. */

#ifdef AC_SIMD
/* bezier_solve in lanes, for the lanes of `todo` (the others keep s): the
   same steps per lane, each lane leaving the loop where the scalar loop
   would, so the same bits. */
AC_SIMD_FN ac_vd bezier_solve_lanes(ac_vd cx, ac_vd bx, ac_vd ax, ac_vd u, ac_vd s, ac_vm todo)
{
    const ac_vd zero = ac_vd_splat(0.0), one = ac_vd_splat(1.0);
    ac_vd lo = zero, hi = one;
    ac_vm below = todo & ~(ac_vm)(u > 0.0), above = todo & ~below & ~(ac_vm)(u < 1.0);
    ac_vm act = todo & ~below & ~above;
    s = ac_vd_pick(below, zero, ac_vd_pick(above, one, s));
    for (int it = 0; it < 100 && ac_vm_any(act); it++) {
        ac_vd f = ((ax * s + bx) * s + cx) * s - u, d, next;
        ac_vm up;
        act &= ~(ac_vm)(ac_vd_abs(f) <= 1e-15);
        up = (ac_vm)(f > 0.0);
        hi = ac_vd_pick(act & up, s, hi);
        lo = ac_vd_pick(act & ~up, s, lo);
        d = (3.0 * ax * s + 2.0 * bx) * s + cx;
        next = s - f / d;
        next = ac_vd_pick((ac_vm)(next > lo) & (ac_vm)(next < hi), next, 0.5 * (lo + hi));
        act &= ~((ac_vm)(next == s) | (ac_vm)(hi - lo <= 1e-16));
        s = ac_vd_pick(act, next, s);
    }
    return s;
}

/* The padded tables of one channel of a Bezier segment for the lanes:
   per table interval r (up to BEZ_TABLE - 1, repeated beyond), the node s0
   and the coefficients m0, e2, e3 of bezier_start's guess (computed as it
   does). */
typedef struct bez_lanes_table {
    double s0[BEZ_TABLE + AC_LANES], m0[BEZ_TABLE + AC_LANES], e2[BEZ_TABLE + AC_LANES],
        e3[BEZ_TABLE + AC_LANES];
} bez_lanes_table;

/* The value or derivative of channel ch at lanes s, as bezier_at. */
AC_SIMD_FN ac_vd bezier_out_lanes(const double *b, size_t C, size_t ch, ac_vd s, int deriv,
                                  double iT)
{
    const ac_vd cx = ac_vd_splat(b[ch]), bx = ac_vd_splat(b[C + ch]),
                ax = ac_vd_splat(b[2 * C + ch]), dy = ac_vd_splat(b[3 * C + ch]),
                cy = ac_vd_splat(b[4 * C + ch]), by = ac_vd_splat(b[5 * C + ch]),
                ay = ac_vd_splat(b[6 * C + ch]);
    ac_vd xd, yd, xdd, ydd;
    ac_vm flat;
    if (deriv == 0)
        return ((ay * s + by) * s + cy) * s + dy;
    xd = (3.0 * ax * s + 2.0 * bx) * s + cx, yd = (3.0 * ay * s + 2.0 * by) * s + cy;
    xdd = 6.0 * ax * s + 2.0 * bx, ydd = 6.0 * ay * s + 2.0 * by;
    if (deriv == 2)
        return (ydd * xd - yd * xdd) / (xd * xd * xd) * iT * iT;
    flat = (ac_vm)(xd == 0.0) & (ac_vm)(yd == 0.0); /* the one division bezier_at makes */
    return ac_vd_pick(flat, ydd, yd) / ac_vd_pick(flat, xdd, xd) * iT;
}

/* Lanes whose time guess missed BEZ_TOL, kept for the bracketed solve:
   their query indices, u and guesses s. */
typedef struct bez_missed {
    size_t n;
    int32_t at[BEZ_BLOCK_QUERIES + AC_LANES];
    double u[BEZ_BLOCK_QUERIES + AC_LANES], s[BEZ_BLOCK_QUERIES + AC_LANES];
} bez_missed;

/* bezier_run on channel ch of `groups` groups of AC_LANES queries t (from
   index `base` of the block; the last group has `count` of them, 1 to
   AC_LANES): each lane does the IEEE operations of bezier_param and
   bezier_at in their order, so the results are those of the scalar path bit
   for bit. Each step goes over all groups in turn (the solve is a long chain
   of dependent operations: up to BEZ_GROUPS independent ones keep both
   vector units busy, 1.2x faster than one pass per step over 8 groups).
   Sorted queries of a few groups almost always span fewer than AC_LANES
   intervals of the table, so each lane's entries are picked by a permute
   from a window of the table that starts at the first lane's interval; a
   gather where they span more. Every u is finite and in [0, 1] up to
   rounding, so the interval is that of bezier_interval. The steps' results
   are checked only when a guess was not below the segment's bound
   (bezier_ok; in about 1 call in 10 on random handles, near flat spots of
   x); the lanes that fail go to *miss for the bracketed solve. */
#define BEZ_GROUPS 8
#define BEZ_EACH for (int g = 0; g < groups; g++)
AC_SIMD_FN void bezier_groups(const double *b, size_t C, size_t ch, const bez_lanes_table *tb,
                              double t0, double iT, const double *restrict t, int groups,
                              int count, int deriv, double *restrict o, int32_t base,
                              bez_missed *miss)
{
    const ac_vd cx = ac_vd_splat(b[ch]), bx = ac_vd_splat(b[C + ch]),
                ax = ac_vd_splat(b[2 * C + ch]), zero = ac_vd_splat(0.0),
                one = ac_vd_splat(1.0);
    const double tau = b[BEZ_ACCEPT * C + ch];
    ac_vd u[BEZ_GROUPS], w[BEZ_GROUPS], i[BEZ_GROUPS], s[BEZ_GROUPS];
    ac_vk bad[BEZ_GROUPS], any = 0;
    const int last = groups - 1;
    BEZ_EACH { /* bezier_interval */
        const int n = g < last ? AC_LANES : count;
        ac_vd v = n < AC_LANES ? ac_vd_load_first(t + g * AC_LANES, n) : ac_vd_load1(t + g * AC_LANES, 1);
        u[g] = (v - t0) * iT;
        w[g] = ac_vd_max(zero, u[g] * BEZ_TABLE);
        i[g] = ac_vd_min(ac_vd_floor(w[g]), ac_vd_splat(BEZ_TABLE - 1));
        w[g] = w[g] - i[g];
    }
    const double first = ac_vd_first(i[0]);
    int window = 1; /* every lane's interval within AC_LANES of the first's (sorted runs) */
    BEZ_EACH window &= ac_vd_in_window(i[g], first);
    if (window) {
        const size_t lo = (size_t)first;
        const ac_vd s0 = ac_vd_load1(tb->s0 + lo, 1), m0 = ac_vd_load1(tb->m0 + lo, 1),
                    e2 = ac_vd_load1(tb->e2 + lo, 1), e3 = ac_vd_load1(tb->e3 + lo, 1);
        BEZ_EACH { /* bezier_start */
            const __m512i k = ac_vd_window_index(i[g], first);
            s[g] = ac_vd_permute(s0, k) +
                   w[g] * (ac_vd_permute(m0, k) +
                           w[g] * (ac_vd_permute(e2, k) + w[g] * ac_vd_permute(e3, k)));
        }
    } else {
        BEZ_EACH {
            const __m512i k = ac_vd_offsets(i[g], 0.0);
            s[g] = ac_vd_gather(tb->s0, k) +
                   w[g] * (ac_vd_gather(tb->m0, k) +
                           w[g] * (ac_vd_gather(tb->e2, k) + w[g] * ac_vd_gather(tb->e3, k)));
        }
    }
    BEZ_EACH { /* bezier_halley */
        ac_vd x = s[g], fx = ((ax * x + bx) * x + cx) * x - u[g];
        ac_vd h = (3.0 * ax) * x + bx, d = (h + bx) * x + cx;
        bad[g] = ac_vd_at_least(ac_vd_abs(fx), tau, g < last ? AC_LANES : count);
        any |= bad[g];
        x = x - fx * d / (d * d - fx * h);
        s[g] = ac_vd_min(one, ac_vd_max(zero, x));
    }
    if (any) /* bezier_ok where a guess was not within tau (rare: near flat spots) */
        BEZ_EACH {
            ac_vd x = s[g], f = ((ax * x + bx) * x + cx) * x - u[g];
            bad[g] &= ac_vd_over(ac_vd_abs(f), BEZ_TOL, g < last ? AC_LANES : count);
            miss->n += ac_vd_append(miss->at + miss->n, miss->u + miss->n, miss->s + miss->n,
                                    bad[g], base + g * AC_LANES, u[g], s[g]);
        }
    BEZ_EACH {
        ac_vd y = bezier_out_lanes(b, C, ch, s[g], deriv, iT);
        const int n = g < last ? AC_LANES : count;
        if (C == 1 && n == AC_LANES) {
            memcpy(o + g * AC_LANES, &y, sizeof y);
        } else {
            for (int l = 0; l < n; l++)
                o[(size_t)(g * AC_LANES + l) * C + ch] = y[l];
        }
    }
}

/* n queries, in blocks of BEZ_BLOCK_QUERIES: the
   lanes of a block whose guess missed are solved together at its end, so
   the slow solve runs on full lanes and the main loop does not wait for
   it. One channel's queries and values BEZ_AHEAD further on are asked for
   while the lanes compute, so on arrays larger than the caches their memory
   traffic (and that of the segments that follow) overlaps the arithmetic
   (1.1x on 10^6 Bezier queries, 1.06x on a curve of mixed kinds). */
#define BEZ_AHEAD 2048
AC_SIMD_FN void bezier_lanes_of(const double *b, size_t C, size_t ch, double t0, double iT,
                                const double *restrict t, size_t n, int deriv,
                                double *restrict o)
{
    enum { STEP = BEZ_GROUPS * AC_LANES };
    const double *node = b + 7 * C + ch, *slope = b + BEZ_SLOPE * C + ch;
    const ac_vd cx = ac_vd_splat(b[ch]), bx = ac_vd_splat(b[C + ch]),
                ax = ac_vd_splat(b[2 * C + ch]);
    bez_lanes_table tb;
    bez_missed miss;
    _Static_assert(BEZ_TABLE % AC_LANES == 0, "the table fills whole lanes");
    for (size_t q = 0; q < BEZ_TABLE; q += AC_LANES) { /* as bezier_start */
        ac_vd s0, s1, m0, m1, h;
        if (C == 1) { /* one channel: the tables are contiguous */
            s0 = ac_vd_load1(node + q, 1), s1 = ac_vd_load1(node + q + 1, 1);
            m0 = ac_vd_load1(slope + q, 1), m1 = ac_vd_load1(slope + q + 1, 1);
        } else {
            for (int l = 0; l < AC_LANES; l++)
                s0[l] = node[(q + (size_t)l) * C], s1[l] = node[(q + (size_t)l + 1) * C],
                m0[l] = slope[(q + (size_t)l) * C], m1[l] = slope[(q + (size_t)l + 1) * C];
        }
        h = s1 - s0;
        memcpy(tb.s0 + q, &s0, sizeof s0), memcpy(tb.m0 + q, &m0, sizeof m0);
        s0 = 3.0 * h - 2.0 * m0 - m1, s1 = m0 + m1 - 2.0 * h;
        memcpy(tb.e2 + q, &s0, sizeof s0), memcpy(tb.e3 + q, &s1, sizeof s1);
    }
    for (size_t q = BEZ_TABLE; q < BEZ_TABLE + AC_LANES; q++) /* what the windows read past */
        tb.s0[q] = tb.s0[q - 1], tb.m0[q] = tb.m0[q - 1], tb.e2[q] = tb.e2[q - 1],
        tb.e3[q] = tb.e3[q - 1];
    for (size_t r0 = 0; r0 < n; r0 += BEZ_BLOCK_QUERIES) {
        const size_t m = n - r0 < BEZ_BLOCK_QUERIES ? n - r0 : BEZ_BLOCK_QUERIES;
        const double *tr = t + r0;
        double *orow = o + r0 * C;
        size_t r = 0;
        miss.n = 0;
        for (; r + STEP <= m; r += STEP) {
            if (C == 1) /* the lines of queries and values BEZ_AHEAD further on */
                for (size_t q = 0; q < STEP; q += 8) {
                    ac_prefetch_read(tr + r + q, BEZ_AHEAD * sizeof(double));
                    ac_prefetch_write(orow + r + q, BEZ_AHEAD * sizeof(double));
                }
            bezier_groups(b, C, ch, &tb, t0, iT, tr + r, BEZ_GROUPS, AC_LANES, deriv,
                          orow + r * C, (int32_t)r, &miss);
        }
        if (r < m) { /* the rest in one step, its last group maybe partial */
            const int groups = (int)((m - r + AC_LANES - 1) / AC_LANES);
            bezier_groups(b, C, ch, &tb, t0, iT, tr + r, groups,
                          (int)(m - r - (size_t)(groups - 1) * AC_LANES), deriv, orow + r * C,
                          (int32_t)r, &miss);
        }
        for (size_t q = miss.n; q % AC_LANES; q++) /* fill the last lanes: repeats */
            miss.at[q] = miss.at[q - 1], miss.u[q] = miss.u[q - 1], miss.s[q] = miss.s[q - 1];
        for (size_t q = 0; q < miss.n; q += AC_LANES) { /* bezier_finish */
            ac_vd u = ac_vd_load1(miss.u + q, 1), s = ac_vd_load1(miss.s + q, 1), y;
            ac_vm inside = (ac_vm)(s >= 0.0) & (ac_vm)(s <= 1.0);
            s = bezier_solve_lanes(cx, bx, ax, u, ac_vd_pick(inside, s, u), ~(ac_vm){0});
            y = bezier_out_lanes(b, C, ch, s, deriv, iT);
            for (int l = 0; l < AC_LANES; l++)
                orow[(size_t)miss.at[q + (size_t)l] * C + ch] = y[l];
        }
    }
}

/* The common case (values of one channel) compiled apart, with C and deriv
   known: the scatter of several channels and the derivatives' branches
   leave its loop. */
AC_SIMD_KERNEL void bezier_lanes(const double *b, size_t C, size_t ch, double t0, double iT,
                                 const double *restrict t, size_t n, int deriv,
                                 double *restrict o)
{
    if (C == 1 && deriv == 0)
        bezier_lanes_of(b, 1, 0, t0, iT, t, n, 0, o);
    else
        bezier_lanes_of(b, C, ch, t0, iT, t, n, deriv, o);
}
#endif

/* The queries of one Bezier segment, in chunks: bezier_start, then
   bezier_halley, each over the whole chunk (loops that vectorize), the
   fallback where they missed, then the value or derivative as bezier_at. */
AC_VECTORIZED
static void bezier_run(const double *b, size_t C, double t0, double iT,
                       const double *restrict t, size_t m, int deriv, double *restrict o)
{
    enum { CHUNK = 128 };
    double sv[CHUNK], uv[CHUNK], fv[CHUNK];
#ifdef AC_SIMD
    if (m >= AC_LANES && ac_simd_available()) {
        for (size_t ch = 0; ch < C; ch++)
            bezier_lanes(b, C, ch, t0, iT, t, m, deriv, o);
        return;
    }
#endif
    for (size_t ch = 0; ch < C; ch++) {
        const double cx = b[ch], bx = b[C + ch], ax = b[2 * C + ch], tau = b[BEZ_ACCEPT * C + ch];
        const double dy = b[3 * C + ch], cy = b[4 * C + ch], by = b[5 * C + ch],
                     ay = b[6 * C + ch];
        for (size_t r0 = 0; r0 < m; r0 += CHUNK) {
            size_t n = m - r0 < CHUNK ? m - r0 : CHUNK;
            int64_t ok = 1;
            /* one step after the other over the chunk: each loop's iterations
               are independent, so their latencies overlap */
            if (C == 1) /* constant strides: plain loads instead of computed ones */
                for (size_t r = 0; r < n; r++) {
                    double u = (t[r0 + r] - t0) * iT;
                    uv[r] = u, sv[r] = bezier_start(b, 1, 0, u);
                }
            else
                for (size_t r = 0; r < n; r++) {
                    double u = (t[r0 + r] - t0) * iT;
                    uv[r] = u, sv[r] = bezier_start(b, C, ch, u);
                }
            for (size_t r = 0; r < n; r++) {
                sv[r] = bezier_halley(cx, bx, ax, uv[r], sv[r], &fv[r]);
                ok &= bezier_ok(cx, bx, ax, uv[r], sv[r], fv[r], tau);
            }
            for (size_t r = 0; !ok && r < n; r++)
                if (!bezier_ok(cx, bx, ax, uv[r], sv[r], fv[r], tau))
                    sv[r] = bezier_finish(b, C, ch, uv[r], sv[r]);
            if (deriv == 0) {
                for (size_t r = 0; r < n; r++) {
                    double v = sv[r];
                    uv[r] = ((ay * v + by) * v + cy) * v + dy;
                }
            } else {
                for (size_t r = 0; r < n; r++) {
                    double v = sv[r];
                    double xd = (3.0 * ax * v + 2.0 * bx) * v + cx;
                    double yd = (3.0 * ay * v + 2.0 * by) * v + cy;
                    double xdd = 6.0 * ax * v + 2.0 * bx, ydd = 6.0 * ay * v + 2.0 * by;
                    if (deriv == 1)
                        uv[r] = (xd == 0.0 && yd == 0.0 ? ydd / xdd : yd / xd) * iT;
                    else
                        uv[r] = (ydd * xd - yd * xdd) / (xd * xd * xd) * iT * iT;
                }
            }
            if (C == 1)
                memcpy(o + r0, uv, n * sizeof *uv);
            else
                for (size_t r = 0; r < n; r++)
                    o[(r0 + r) * C + ch] = uv[r];
        }
    }
}

#endif
