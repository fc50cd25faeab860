/* Cubic Hermite segments whose key velocities are per second:
   u = elapsed / duration, tangent m = duration * velocity, and the returned
   velocity is d(position)/du / duration. */
#include <stdint.h>

#include "ac_internal.h"

static const size_t all_arrays[6] = {1, 1, 1, 1, 1, 1};

static ac_status check_duration(double duration, size_t i, ac_error *err)
{
    ac_status st = ac_check_finite(AC_ARG_DURATION, &duration, 1, i, err);
    if (!st && !(duration > 0.0))
        st = ac_fail(err, AC_ERR_VALUE, i, AC_ARG_DURATION, duration, "must be > 0");
    return st;
}

/* duration * velocity, reporting an overflow against the velocity argument. */
static ac_status to_tangent(ac_arg arg, double velocity, double duration,
                            double *tangent, size_t i, ac_error *err)
{
    *tangent = duration * velocity;
    if (!ac_finite(*tangent))
        return ac_fail(err, AC_ERR_OVERFLOW, i, arg, velocity,
                       "times duration=%.15g gives a tangent that is not representable",
                       duration);
    return AC_OK;
}

ac_status ac_hermite_init(ac_hermite *segment, double start, double end,
                          double start_velocity, double end_velocity,
                          double duration, ac_error *err)
{
    ac_hermite s;
    ac_status st;
    if ((st = ac_check_finite(AC_ARG_START, &start, 1, 0, err)) ||
        (st = ac_check_finite(AC_ARG_END, &end, 1, 0, err)) ||
        (st = ac_check_finite(AC_ARG_START_VELOCITY, &start_velocity, 1, 0, err)) ||
        (st = ac_check_finite(AC_ARG_END_VELOCITY, &end_velocity, 1, 0, err)) ||
        (st = check_duration(duration, 0, err)) ||
        (st = to_tangent(AC_ARG_START_VELOCITY, start_velocity, duration, &s.start_tangent, 0, err)) ||
        (st = to_tangent(AC_ARG_END_VELOCITY, end_velocity, duration, &s.end_tangent, 0, err)))
        return st;
    s.start = start;
    s.end = end;
    s.duration = duration;
    *segment = s;
    return AC_OK;
}

/* Finds and records the first failing element, checking each element's
   arguments in order (the segment, then elapsed, then the results). Only
   called once the fast loop has seen a failure, so it stays branch-free. */
static ac_status hermite_diagnose(const double *p0, const double *p1, const double *v0,
                                  const double *v1, const double *duration,
                                  const double *elapsed, const size_t s[6], size_t n,
                                  ac_error *err)
{
    for (size_t i = 0; i < n; i++) {
        ac_hermite seg;
        double t = elapsed[i * s[5]], x, dxdu;
        ac_status st = ac_hermite_init(&seg, p0[i * s[0]], p1[i * s[1]], v0[i * s[2]],
                                       v1[i * s[3]], duration[i * s[4]], err);
        if (st) {
            if (err)
                err->index = i;
            return st;
        }
        if ((st = ac_check_finite(AC_ARG_ELAPSED, &t, 1, i, err)))
            return st;
        if (!(t >= 0.0 && t <= seg.duration))
            return ac_fail(err, AC_ERR_VALUE, i, AC_ARG_ELAPSED, t,
                           "must lie in [0, duration=%.15g]", seg.duration);
        ac_hermite_unit(t / seg.duration, seg.start, seg.start_tangent, seg.end,
                        seg.end_tangent, &x, &dxdu);
        if (!ac_finite(x))
            return ac_fail(err, AC_ERR_OVERFLOW, i, AC_ARG_POSITION, x,
                           "is not representable although the inputs are finite");
        if (!ac_finite(dxdu / seg.duration))
            return ac_fail(err, AC_ERR_OVERFLOW, i, AC_ARG_VELOCITY, dxdu / seg.duration,
                           "is not representable although the inputs are finite");
    }
    AC_ASSERT(0 && "fast loop reported a failure the diagnosis did not find");
    return ac_fail(err, AC_ERR_VALUE, 0, AC_ARG_ELAPSED, elapsed[0], "internal check failed");
}

/* Largest |start|, |end| and |tangent| for which no evaluation overflows,
   given the duration: for u in [0, 1] the basis weights of the position are
   at most 1, 4/27, 1, 4/27 in magnitude and those of d(position)/du 3/2, 1,
   3/2, 1 (computed: the same within a few ulps), so keys below DBL_MAX / 8
   give a finite position and dxdu (below 5/8 DBL_MAX), and below
   DBL_MAX / 8 * duration a finite velocity dxdu / duration as well. */
static inline double key_bound(double T)
{
    double b = DBL_MAX / 8.0 * T;
    return b < DBL_MAX / 8.0 ? b : DBL_MAX / 8.0;
}

/* 1 when the element passes: every failure of hermite_loop fails one of
   these comparisons (NaN compares false). */
static inline int64_t hermite_safe(double p0, double p1, double v0, double v1, double T,
                                   double t)
{
    double m0 = T * v0, m1 = T * v1, b = key_bound(T);
    return (T > 0.0) & (t >= 0.0) & (t <= T) & (fabs(p0) <= b) & (fabs(p1) <= b)
           & (fabs(m0) <= b) & (fabs(m1) <= b);
}

/* The evaluation loop, branch-free so that it vectorizes: validity is
   accumulated and only diagnosed afterwards. Returns 1 when every element is
   valid. `bounded` (shared keys that pass hermite_safe): only elapsed can
   fail, since key_bound rules out every overflow. */
static AC_FORCE_INLINE int hermite_loop(const double *p0, const double *p1, const double *v0,
                                        const double *v1, const double *duration,
                                        const double *elapsed, const size_t s[6],
                                        int bounded, double *restrict position,
                                        double *restrict velocity, size_t n)
{
    int64_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        double T = duration[i * s[4]], t = elapsed[i * s[5]];
        double m0 = T * v0[i * s[2]], m1 = T * v1[i * s[3]];
        double x, dxdu, v;
        int64_t ok;
        ac_hermite_unit(t / T, p0[i * s[0]], m0, p1[i * s[1]], m1, &x, &dxdu);
        v = dxdu / T;
        position[i] = x;
        velocity[i] = v;
        /* Any non-finite input makes one of these fail (0 * inf is NaN). */
        ok = bounded ? (t >= 0.0) & (t <= T)
                     : (T > 0.0) & (t >= 0.0) & (t <= T) & ac_finite(m0) & ac_finite(m1)
                           & ac_finite(x) & ac_finite(v);
        bad |= ok ^ 1;
    }
    return !bad;
}

/* Any other mix of shared and per-item inputs (a partial broadcast): each
   shared value spread over a block once, then the contiguous loop block by
   block, whose loads a runtime step would keep from vectorizing. The same
   operations on the same values: the same bits. */
static AC_FORCE_INLINE int hermite_spread(const double *p0, const double *p1, const double *v0,
                                          const double *v1, const double *duration,
                                          const double *elapsed, const size_t s[6],
                                          double *restrict position,
                                          double *restrict velocity, size_t n)
{
    enum { BLOCK = 256 };
    const double *in[6] = {p0, p1, v0, v1, duration, elapsed};
    double spread[6][BLOCK];
    int ok = 1;
    for (int k = 0; k < 6; k++)
        for (size_t i = 0; !s[k] && i < BLOCK; i++)
            spread[k][i] = in[k][0];
    for (size_t i = 0; i < n; i += BLOCK) {
        const double *b[6];
        for (int k = 0; k < 6; k++)
            b[k] = s[k] ? in[k] + i : spread[k];
        ok &= hermite_loop(b[0], b[1], b[2], b[3], b[4], b[5], all_arrays, 0, position + i,
                           velocity + i, n - i < BLOCK ? n - i : BLOCK);
    }
    return ok;
}

AC_VECTORIZED
static int hermite_all(const double *p0, const double *p1, const double *v0,
                       const double *v1, const double *duration, const double *elapsed,
                       const size_t s[6], double *position, double *velocity, size_t n)
{
    static const size_t keys_shared[6] = {0, 0, 0, 0, 0, 1};
    int shared = 1, arrays = 1;
    for (int k = 0; k < 5; k++) {
        shared &= s[k] == 0;
        arrays &= s[k] == 1;
    }
    /* Constant steps for the common layouts give contiguous loops. */
    if (shared && s[5] == 1 && hermite_safe(*p0, *p1, *v0, *v1, *duration, 0.0))
        return hermite_loop(p0, p1, v0, v1, duration, elapsed, keys_shared, 1, position,
                            velocity, n);
    if (shared && s[5] == 1)
        return hermite_loop(p0, p1, v0, v1, duration, elapsed, keys_shared, 0, position,
                            velocity, n);
    if (arrays && s[5] == 1)
        return hermite_loop(p0, p1, v0, v1, duration, elapsed, all_arrays, 0, position,
                            velocity, n);
    return hermite_spread(p0, p1, v0, v1, duration, elapsed, s, position, velocity, n);
}

ac_status ac_hermite_eval(const double *start, const double *end,
                          const double *start_velocity, const double *end_velocity,
                          const double *duration, const double *elapsed,
                          const size_t steps[6], double *position, double *velocity,
                          size_t n, ac_error *err)
{
    const size_t *s = steps ? steps : all_arrays;
    int ok = 1;
    if (n == 0)
        return AC_OK;
    if (velocity) {
        ok = hermite_all(start, end, start_velocity, end_velocity, duration, elapsed, s,
                         position, velocity, n);
    } else {
        /* Velocity not wanted: compute it into a small scratch block. */
        enum { BLOCK = 256 };
        double scratch[BLOCK];
        for (size_t i = 0; i < n; i += BLOCK) {
            size_t m = n - i < BLOCK ? n - i : BLOCK;
            ok &= hermite_all(start + i * s[0], end + i * s[1], start_velocity + i * s[2],
                              end_velocity + i * s[3], duration + i * s[4],
                              elapsed + i * s[5], s, position + i, scratch, m);
        }
    }
    return ok ? AC_OK
              : hermite_diagnose(start, end, start_velocity, end_velocity, duration,
                                 elapsed, s, n, err);
}

/* ac_hermite_check for n > 0 (static: the dispatched clones stay private) */
AC_VECTORIZED
static int hermite_check_all(const double *start, const double *end,
                             const double *start_velocity, const double *end_velocity,
                             const double *duration, const double *elapsed, const size_t s[6],
                             size_t n)
{
    int64_t ok = 1;
    if (!s[0] && !s[1] && !s[2] && !s[3] && !s[4]) {
        /* shared keys: checked once; then only elapsed, in [0, duration] */
        double T = *duration;
        ok = hermite_safe(*start, *end, *start_velocity, *end_velocity, T, 0.0);
        return ok && ac_all_within(elapsed, s[5] ? n : 1, 0.0, T);
    }
    for (size_t i = 0; i < n; i++)
        ok &= hermite_safe(start[i * s[0]], end[i * s[1]], start_velocity[i * s[2]],
                           end_velocity[i * s[3]], duration[i * s[4]], elapsed[i * s[5]]);
    return ok != 0;
}

bool ac_hermite_check(const double *start, const double *end, const double *start_velocity,
                      const double *end_velocity, const double *duration,
                      const double *elapsed, const size_t steps[6], size_t n)
{
    return n == 0 || hermite_check_all(start, end, start_velocity, end_velocity, duration,
                                       elapsed, steps ? steps : all_arrays, n);
}

/* velocity_to_tangent multiplies, tangent_to_velocity divides; both validate
   the same way and report overflow of the result. */
static ac_status convert(ac_arg arg, const char *result, const double *x,
                         const double *duration, const size_t steps[2], double *y,
                         size_t n, int divide, ac_error *err)
{
    const size_t *s = steps ? steps : all_arrays;
    for (size_t i = 0; i < n; i++) {
        double a = x[i * s[0]], T = duration[i * s[1]];
        ac_status st;
        if ((st = ac_check_finite(arg, &a, 1, i, err)) || (st = check_duration(T, i, err)))
            return st;
        y[i] = divide ? a / T : a * T;
        if (!ac_finite(y[i]))
            return ac_fail(err, AC_ERR_OVERFLOW, i, arg, a,
                           "gives a %s that is not representable with duration=%.15g",
                           result, T);
    }
    return AC_OK;
}

ac_status ac_hermite_velocity_to_tangent(const double *velocity, const double *duration,
                                         const size_t steps[2], double *tangent,
                                         size_t n, ac_error *err)
{
    return convert(AC_ARG_VELOCITY, "tangent", velocity, duration, steps, tangent, n, 0, err);
}

ac_status ac_hermite_tangent_to_velocity(const double *tangent, const double *duration,
                                         const size_t steps[2], double *velocity,
                                         size_t n, ac_error *err)
{
    return convert(AC_ARG_TANGENT, "velocity", tangent, duration, steps, velocity, n, 1, err);
}
