/* Motion-capture cleanup: Euler angle continuity and quaternion sign
   continuity along a time series. */
#include <math.h>

#include "ac_internal.h"

static const double AC_TWO_PI = 6.28318530717958647692;
/* 2 pi as two doubles, AC_TWO_PI + TWO_PI_LOW (the low part: 2 pi - AC_TWO_PI) */
static const double TWO_PI_LOW = 2.4492935982947064e-16;

/* c moved by whole turns to lie within pi of p; the summed distance. The
   turns are added as k (2 pi) exactly rounded once (fma with the high part,
   then the low part), so the angle keeps its rotation: k times the double
   2 pi alone moved a rotation of 1e10 radians by 5e-7. */
static double nearest_turns(double c[3], const double p[3])
{
    double distance = 0.0;
    for (int j = 0; j < 3; j++) {
        const double k = nearbyint((p[j] - c[j]) / AC_TWO_PI);
        if (k != 0.0)
            c[j] = fma(k, AC_TWO_PI, c[j]) + k * TWO_PI_LOW;
        distance += fabs(c[j] - p[j]);
    }
    return distance;
}

/* An angle beyond 2^20 radians as the angle in [-pi, pi] of the same
   rotation (sin and cos reduce their argument exactly), so that adding pi
   and whole turns keeps it (from 1e16 on they would lose it whole); others
   as they are. */
static double reduced(double a)
{
    return fabs(a) > 0x1p20 ? atan2(sin(a), cos(a)) : a;
}

ac_status ac_cleanup_euler_filter(const double *angles, int proper, double *out,
                                  size_t frames, ac_error *err)
{
    double previous[3];
    ac_status st;
    for (size_t i = 0; i < frames; i++)
        if ((st = ac_check_finite(AC_ARG_ANGLES, angles + 3 * i, 3, i, err)))
            return st;
    for (size_t i = 0; i < frames; i++) {
        const double a[3] = {reduced(angles[3 * i]), reduced(angles[3 * i + 1]),
                             reduced(angles[3 * i + 2])};
        double same[3] = {a[0], a[1], a[2]};
        /* the other triplet of the same rotation: for a Tait-Bryan sequence
           (a + pi, pi - b, c + pi), for a proper one (a + pi, -b, c + pi) */
        double other[3] = {a[0] + AC_PI, (proper ? 0.0 : AC_PI) - a[1], a[2] + AC_PI};
        const double *pick = same;
        if (i > 0 && nearest_turns(other, previous) < nearest_turns(same, previous))
            pick = other;
        else if (i == 0)
            pick = a;
        for (int j = 0; j < 3; j++)
            previous[j] = out[3 * i + j] = pick[j];
    }
    return AC_OK;
}

ac_status ac_cleanup_quat_continuous(const double *q, double *out, size_t frames,
                                     ac_error *err)
{
    double sign = 1.0;
    ac_status st;
    for (size_t i = 0; i < frames; i++)
        if ((st = ac_check_finite(AC_ARG_Q, q + 4 * i, 4, i, err)))
            return st;
    for (size_t i = 0; i < frames; i++) {
        if (i > 0 && ac_quat_dot4(q + 4 * i, q + 4 * (i - 1)) < 0.0)
            sign = -sign;
        for (int j = 0; j < 4; j++) /* (0 - x: a zero component stays +0, not -0) */
            out[4 * i + j] = sign > 0.0 ? q[4 * i + j] : 0.0 - q[4 * i + j];
    }
    return AC_OK;
}
