/* Motion-capture cleanup: Euler angle continuity and quaternion sign
   continuity along a time series. */
#include <math.h>

#include "ac_internal.h"

static const double AC_TWO_PI = 6.28318530717958647692;

/* c moved by whole turns to lie within pi of p; the summed distance. */
static double nearest_turns(double c[3], const double p[3])
{
    double distance = 0.0;
    for (int j = 0; j < 3; j++) {
        c[j] += AC_TWO_PI * nearbyint((p[j] - c[j]) / AC_TWO_PI);
        distance += fabs(c[j] - p[j]);
    }
    return distance;
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
        const double *a = angles + 3 * i;
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
        for (int j = 0; j < 4; j++)
            out[4 * i + j] = sign * q[4 * i + j];
    }
    return AC_OK;
}
