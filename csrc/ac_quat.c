/* Quaternion batch kernels and rotation tracks with glTF semantics, built on
   the scalar helpers of ac_internal.h. Quaternions are (x, y, z, w). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ac_internal.h"

static const size_t all_arrays[3] = {1, 1, 1};

/* ------------------------------------------------------------ checks */

/* q / |q| by the one normalization (ac_normalize); 0 for a zero quaternion. */
static int unit4(const double q[4], double out[4]) { return ac_quat_normalize(q, out); }

/* A finite, non-zero quaternion `arg` made unit, or the error. */
static ac_status unit_arg(const char *arg, const char *length_arg, const double q[4],
                          double out[4], size_t i, ac_error *err)
{
    ac_status st = ac_check_finite(arg, q, 4, i, err);
    if (st)
        return st;
    if (!unit4(q, out))
        return ac_fail(err, AC_ERR_VALUE, i, length_arg, 0.0,
                       "must be > 0: a zero quaternion is no rotation");
    return AC_OK;
}

static ac_status check_result(const char *arg, const double *x, int count, size_t i,
                              ac_error *err)
{
    for (int k = 0; k < count; k++)
        if (!ac_finite(x[k]))
            return ac_fail(err, AC_ERR_OVERFLOW, i, arg, x[k],
                           "is not representable although the inputs are finite");
    return AC_OK;
}

/* ------------------------------------------------------- batch kernels */

ac_status ac_quat_batch_multiply(const double *a, const double *b, const size_t steps[2],
                                 double *out, size_t n, ac_error *err)
{
    const size_t *s = steps ? steps : all_arrays;
    for (size_t i = 0; i < n; i++) {
        const double *x = a + 4 * i * s[0], *y = b + 4 * i * s[1];
        ac_status st;
        if ((st = ac_check_finite("a", x, 4, i, err)) || (st = ac_check_finite("b", y, 4, i, err)))
            return st;
        ac_quat_mul(x, y, out + 4 * i);
        if ((st = check_result("product", out + 4 * i, 4, i, err)))
            return st;
    }
    return AC_OK;
}

ac_status ac_quat_batch_conjugate(const double *q, double *out, size_t n, ac_error *err)
{
    for (size_t i = 0; i < n; i++) {
        ac_status st = ac_check_finite("q", q + 4 * i, 4, i, err);
        if (st)
            return st;
        ac_quat_conj(q + 4 * i, out + 4 * i);
    }
    return AC_OK;
}

ac_status ac_quat_batch_normalize(const double *q, double *out, size_t n, ac_error *err)
{
    for (size_t i = 0; i < n; i++) {
        ac_status st = unit_arg("q", "|q|", q + 4 * i, out + 4 * i, i, err);
        if (st)
            return st;
    }
    return AC_OK;
}

ac_status ac_quat_batch_from_axis_angle(const double *axis, const double *angle,
                                        const size_t steps[2], double *out, size_t n,
                                        ac_error *err)
{
    const size_t *s = steps ? steps : all_arrays;
    for (size_t i = 0; i < n; i++) {
        const double *a = axis + 3 * i * s[0];
        double theta = angle[i * s[1]], u[3], sh;
        ac_status st;
        if ((st = ac_check_finite("axis", a, 3, i, err)) ||
            (st = ac_check_finite("angle", &theta, 1, i, err)))
            return st;
        if (!ac_normalize(a, 3, u))
            return ac_fail(err, AC_ERR_VALUE, i, "|axis|", 0.0,
                           "must be > 0: a zero axis has no direction");
        sh = sin(0.5 * theta);
        for (int k = 0; k < 3; k++)
            out[4 * i + k] = sh * u[k];
        out[4 * i + 3] = cos(0.5 * theta);
    }
    return AC_OK;
}

ac_status ac_quat_batch_rotate(const double *q, const double *v, const size_t steps[2],
                               double *out, size_t n, ac_error *err)
{
    const size_t *s = steps ? steps : all_arrays;
    for (size_t i = 0; i < n; i++) {
        double u[4];
        const double *x = v + 3 * i * s[1];
        ac_status st;
        if ((st = unit_arg("q", "|q|", q + 4 * i * s[0], u, i, err)) ||
            (st = ac_check_finite("v", x, 3, i, err)))
            return st;
        ac_quat_rotate(u, x, out + 3 * i);
        if ((st = check_result("rotated vector", out + 3 * i, 3, i, err)))
            return st;
    }
    return AC_OK;
}

/* Shared by slerp and nlerp: validates and normalizes both ends and t. */
static ac_status lerp_inputs(const double *q0, const double *q1, const double *t,
                             const size_t *s, size_t i, double a[4], double b[4], double *u,
                             ac_error *err)
{
    ac_status st;
    if ((st = unit_arg("q0", "|q0|", q0 + 4 * i * s[0], a, i, err)) ||
        (st = unit_arg("q1", "|q1|", q1 + 4 * i * s[1], b, i, err)))
        return st;
    *u = t[i * s[2]];
    if (!ac_finite(*u))
        return ac_fail(err, AC_ERR_VALUE, i, "t", *u, "must be finite");
    if (!(*u >= 0.0 && *u <= 1.0))
        return ac_fail(err, AC_ERR_VALUE, i, "t", *u, "must lie in [0, 1]");
    return AC_OK;
}

/* ---- slerp, fast path
   The same shortest-arc slerp as ac_quat_slerp (to 2e-15), written so that
   it vectorizes: no libm calls and no branches. With a and c = +-b
   unit and a . c >= 0, D = |a - c| = 2 sin(w/2) and S = |a + c| = 2 cos(w/2)
   for the 4-D angle w <= pi/2 between them, so tan(w/4) = D / (2 + S) (as
   accurate as atan2(D, S) for nearly equal inputs), one more half-angle step
   gives tan(w/8) <= tan(pi/16), where a 13-term Taylor series of atan is
   exact to rounding, and the weights sin((1-t) w) / sin(w), sin(t w) / sin(w)
   come from a 12-term Taylor series of sin(x)/x on [0, pi/2], exact at w = 0.
   Elements with t outside [0, 1] or a squared length outside [1e-200, 1e200]
   (zero, non-finite, or extreme) make the block redo on the careful path,
   which calls the same slerp_one per element: a result never depends on
   which path its block took. */

/* sin(x)/x from x*x, |x| <= pi/2: Taylor terms to x^22 (the next is below
   4e-21). Written out so that the loops using it vectorize. */
static inline double sinc_series(double z)
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
static inline double atan_series(double x)
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
static inline double rsqrt_newton(double x)
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
static inline double sqrt_newton(double x)
{
    int64_t tiny = x < 1e-300;
    return ac_pick(tiny, 0.0, x * rsqrt_newton(ac_pick(tiny, 1.0, x)));
}

/* Forced inline: GCC keeps this large body out of line otherwise, and an
   out-of-line copy is compiled for the baseline target, which cannot
   vectorize it. */
#if defined(__GNUC__)
#define AC_FORCE_INLINE inline __attribute__((always_inline))
#else
#define AC_FORCE_INLINE inline
#endif

/* The slerp of one pair of quaternions x, y (any length) at u, the only
   slerp formula of the batch kernel and of linear rotation tracks. Returns 0
   (and garbage in out) unless |x|^2 and |y|^2 lie in [1e-200, 1e200] and u in
   [0, 1]. */
static AC_FORCE_INLINE int64_t slerp_one(const double *x, const double *y, double u,
                                         double *restrict out)
{
    double a[4], c[4], r[4], na = 0.0, nb = 0.0, d = 0.0, ia, ib;
    double dd = 0.0, ss = 0.0, x1, x2, w, wa, wb, inv, nr = 0.0, sign;
    int64_t ok;
    for (int k = 0; k < 4; k++) {
        a[k] = x[k];
        c[k] = y[k];
        na += a[k] * a[k];
        nb += c[k] * c[k];
    }
    ok = (na >= 1e-200) & (na <= 1e200) & (nb >= 1e-200) & (nb <= 1e200) & (u >= 0.0)
         & (u <= 1.0);
    ia = rsqrt_newton(ac_pick(ok, na, 1.0));
    ib = rsqrt_newton(ac_pick(ok, nb, 1.0));
    for (int k = 0; k < 4; k++) {
        a[k] *= ia;
        c[k] *= ib;
        d += a[k] * c[k];
    }
    sign = ac_pick(d < 0.0, -1.0, 1.0);
    for (int k = 0; k < 4; k++) {
        c[k] *= sign;
        dd += (a[k] - c[k]) * (a[k] - c[k]);
        ss += (a[k] + c[k]) * (a[k] + c[k]);
    }
    x1 = sqrt_newton(dd) / (2.0 + sqrt_newton(ss)); /* tan(w/4) */
    x2 = x1 / (1.0 + sqrt_newton(1.0 + x1 * x1)); /* tan(w/8) */
    w = 8.0 * atan_series(x2);
    inv = 1.0 / sinc_series(w * w);
    wa = (1.0 - u) * sinc_series((1.0 - u) * w * ((1.0 - u) * w)) * inv;
    wb = u * sinc_series(u * w * (u * w)) * inv;
    for (int k = 0; k < 4; k++) {
        r[k] = wa * a[k] + wb * c[k];
        nr += r[k] * r[k];
    }
    nr = rsqrt_newton(nr); /* in [1/2, 1] */
    for (int k = 0; k < 4; k++)
        out[k] = r[k] * nr;
    return ok;
}

/* Returns 1 when every element was in range (see slerp_one). */
static AC_FORCE_INLINE int slerp_block(const double *q0, const double *q1, const double *t,
                                       const size_t s[3], double *restrict out, size_t n)
{
    int64_t bad = 0;
    for (size_t i = 0; i < n; i++)
        bad |= slerp_one(q0 + 4 * i * s[0], q1 + 4 * i * s[1], t[i * s[2]], out + 4 * i) ^ 1;
    return !bad;
}

/* x times the power of two that brings its largest component into [1/2, 1);
   exact, so slerp_one gives the same result as for x itself. x finite, non-zero. */
static void rescale(const double *x, double out[4])
{
    double m = 0.0;
    int e;
    for (int k = 0; k < 4; k++)
        m = fabs(x[k]) > m ? fabs(x[k]) : m;
    frexp(m, &e);
    for (int k = 0; k < 4; k++)
        out[k] = ldexp(x[k], -e);
}

/* Constant steps for the common layout give contiguous loops. */
AC_VECTORIZED
static int slerp_contiguous(const double *q0, const double *q1, const double *t, double *out,
                            size_t n)
{
    return slerp_block(q0, q1, t, all_arrays, out, n);
}

AC_VECTORIZED
static int slerp_strided(const double *q0, const double *q1, const double *t, const size_t s[3],
                         double *out, size_t n)
{
    return slerp_block(q0, q1, t, s, out, n);
}

static int slerp_fast(const double *q0, const double *q1, const double *t, const size_t s[3],
                      double *out, size_t n)
{
    if (s[0] == 1 && s[1] == 1 && s[2] == 1)
        return slerp_contiguous(q0, q1, t, out, n);
    return slerp_strided(q0, q1, t, s, out, n);
}

ac_status ac_quat_batch_slerp(const double *q0, const double *q1, const double *t,
                              const size_t steps[3], double *out, size_t n, ac_error *err)
{
    enum { BLOCK = 512 };
    const size_t *s = steps ? steps : all_arrays;
    for (size_t start = 0; start < n; start += BLOCK) {
        size_t m = n - start < BLOCK ? n - start : BLOCK;
        if (slerp_fast(q0 + 4 * start * s[0], q1 + 4 * start * s[1], t + start * s[2], s,
                       out + 4 * start, m))
            continue;
        /* the careful path: validates, reports the first error by index, and
           rescales extreme (finite) lengths into the range of slerp_one */
        for (size_t i = start; i < start + m; i++) {
            const double *x = q0 + 4 * i * s[0], *y = q1 + 4 * i * s[1];
            double a[4], b[4], u;
            ac_status st = lerp_inputs(q0, q1, t, s, i, a, b, &u, err);
            if (st)
                return st;
            if (!slerp_one(x, y, u, out + 4 * i)) {
                rescale(x, a);
                rescale(y, b);
                slerp_one(a, b, u, out + 4 * i);
            }
        }
    }
    return AC_OK;
}

ac_status ac_quat_batch_nlerp(const double *q0, const double *q1, const double *t,
                              const size_t steps[3], double *out, size_t n, ac_error *err)
{
    const size_t *s = steps ? steps : all_arrays;
    for (size_t i = 0; i < n; i++) {
        double a[4], b[4], u, r[4], sign;
        ac_status st = lerp_inputs(q0, q1, t, s, i, a, b, &u, err);
        if (st)
            return st;
        sign = ac_quat_dot4(a, b) < 0.0 ? -1.0 : 1.0;
        for (int k = 0; k < 4; k++)
            r[k] = (1.0 - u) * a[k] + u * sign * b[k];
        ac_quat_normalize(r, out + 4 * i); /* |r| >= 1/sqrt(2) since a . (sign b) >= 0 */
    }
    return AC_OK;
}

/* ------------------------------------------------------ rotation tracks */

struct ac_quat_curve {
    size_t k;
    ac_quat_interp interp;
    ac_quat_extrap before, after;
    double *times; /* k */
    double *quats; /* 4k: unit, except for cubic, which keeps the keys as given */
    double *m0;    /* cubic: 4(k-1), out-tangent of key i times the interval */
    double *m1;    /* cubic: 4(k-1), in-tangent of key i+1 times the interval */
    double *omega; /* linear: 3(k-1), the constant angular velocity of segment i */
    int flip_odd;  /* cycle: the last key and the first lie in opposite hemispheres, so
                      odd cycles are negated to stay sign-continuous at each seam */
};

void ac_quat_curve_destroy(ac_quat_curve *curve)
{
    if (!curve)
        return;
    free(curve->times);
    free(curve->quats);
    free(curve->m0);
    free(curve->m1);
    free(curve->omega);
    free(curve);
}

/* The angular velocity of the shortest-arc slerp from unit a to unit b over
   dt seconds: q(u) = (c a*)^u a with c = +-b, so omega is constant,
   2 log(c a*) / dt = axis * angle / dt. */
static void segment_omega(const double a[4], const double b[4], double dt, double omega[3])
{
    double c[4], conj[4], r[4], half, vlen, sign = ac_quat_dot4(a, b) < 0.0 ? -1.0 : 1.0;
    for (int k = 0; k < 4; k++)
        c[k] = sign * b[k];
    ac_quat_conj(a, conj);
    ac_quat_mul(c, conj, r);
    vlen = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
    half = atan2(vlen, r[3]); /* r[3] = a . c >= 0, so half <= pi/2 */
    for (int k = 0; k < 3; k++)
        omega[k] = r[k] * (2.0 / ac_sinc(half)) / sqrt(ac_quat_dot4(r, r)) / dt;
}

ac_status ac_quat_curve_create(const double *times, const double *quats,
                               const double *in_tangents, const double *out_tangents,
                               size_t k, ac_quat_interp interp, ac_quat_extrap before,
                               ac_quat_extrap after, ac_quat_curve **result, ac_error *err)
{
    ac_quat_curve *c;
    ac_status st = AC_OK;
    if (k < 1)
        return ac_fail(err, AC_ERR_VALUE, 0, "times", 0.0, "needs at least one key");
    if ((unsigned)interp > AC_QUAT_CUBIC)
        return ac_fail(err, AC_ERR_VALUE, 0, "interpolation", (double)interp,
                       "must be an ac_quat_interp");
    if ((unsigned)before > AC_QUAT_ERROR || (unsigned)after > AC_QUAT_ERROR)
        return ac_fail(err, AC_ERR_VALUE, 0, (unsigned)before > AC_QUAT_ERROR ? "before" : "after",
                       (double)((unsigned)before > AC_QUAT_ERROR ? before : after),
                       "must be an ac_quat_extrap");
    if (interp == AC_QUAT_CUBIC && (!in_tangents || !out_tangents))
        return ac_fail(err, AC_ERR_VALUE, 0, in_tangents ? "out_tangents" : "in_tangents", 0.0,
                       "are required for cubic interpolation");
    for (size_t i = 0; i < k; i++) {
        if ((st = ac_check_finite("times", times + i, 1, i, err)))
            return st;
        if (i > 0 && !(times[i] > times[i - 1]))
            return ac_fail(err, AC_ERR_VALUE, i, "times", times[i],
                           "must be > times[%zu]=%.15g: key times strictly increase", i - 1,
                           times[i - 1]);
    }
    c = calloc(1, sizeof *c);
    if (!c)
        return ac_fail(err, AC_ERR_NOMEM, 0, "times", (double)k, "out of memory");
    c->k = k, c->interp = interp, c->before = before, c->after = after;
    c->times = malloc(k * sizeof(double));
    c->quats = malloc(4 * k * sizeof(double));
    if (interp == AC_QUAT_CUBIC && k > 1) {
        c->m0 = malloc(4 * (k - 1) * sizeof(double));
        c->m1 = malloc(4 * (k - 1) * sizeof(double));
    }
    if (interp == AC_QUAT_LINEAR && k > 1)
        c->omega = malloc(3 * (k - 1) * sizeof(double));
    if (!c->times || !c->quats || (interp == AC_QUAT_CUBIC && k > 1 && (!c->m0 || !c->m1)) ||
        (interp == AC_QUAT_LINEAR && k > 1 && !c->omega)) {
        ac_quat_curve_destroy(c);
        return ac_fail(err, AC_ERR_NOMEM, 0, "times", (double)k, "out of memory");
    }
    memcpy(c->times, times, k * sizeof(double));
    for (size_t i = 0; i < k && !st; i++)
        st = unit_arg("quaternions", "|quaternions|", quats + 4 * i, c->quats + 4 * i, i, err);
    if (interp == AC_QUAT_CUBIC) {
        /* glTF Appendix C splines the stored values and normalizes only the
           result, so keys that are not exactly unit (float32) stay as given. */
        memcpy(c->quats, quats, 4 * k * sizeof(double));
        for (size_t i = 0; i < k && !st; i++)
            if (!(st = ac_check_finite("in_tangents", in_tangents + 4 * i, 4, i, err)))
                st = ac_check_finite("out_tangents", out_tangents + 4 * i, 4, i, err);
        /* glTF Appendix C: tangents are per second; the Hermite basis on the
           segment parameter takes them times the key interval. */
        for (size_t i = 0; i + 1 < k && !st; i++) {
            double dt = times[i + 1] - times[i];
            for (int j = 0; j < 4; j++) { /* a zero tangent stays zero for any dt */
                double out = out_tangents[4 * i + j], in = in_tangents[4 * (i + 1) + j];
                c->m0[4 * i + j] = out == 0.0 ? 0.0 : dt * out;
                c->m1[4 * i + j] = in == 0.0 ? 0.0 : dt * in;
            }
            if (!(st = check_result("out_tangents", c->m0 + 4 * i, 4, i, err)))
                if ((st = check_result("in_tangents", c->m1 + 4 * i, 4, i + 1, err)) && err)
                    err->index = i + 1;
        }
    }
    /* Sign continuity: each unit key joins the hemisphere of the one before
       (the same rotation), so the result never jumps from q to -q along the
       curve, at a key included. Cubic keys are splined as given (glTF). */
    if (interp != AC_QUAT_CUBIC)
        for (size_t i = 1; i < k && !st; i++)
            if (ac_quat_dot4(c->quats + 4 * (i - 1), c->quats + 4 * i) < 0.0)
                for (int j = 0; j < 4; j++)
                    c->quats[4 * i + j] = -c->quats[4 * i + j];
    if (!st && k > 1) {
        double last[4], first[4];
        unit4(c->quats + 4 * (k - 1), last);
        unit4(c->quats, first);
        c->flip_odd = ac_quat_dot4(last, first) < 0.0;
    }
    if (interp == AC_QUAT_LINEAR)
        for (size_t i = 0; i + 1 < k && !st; i++)
            segment_omega(c->quats + 4 * i, c->quats + 4 * (i + 1), times[i + 1] - times[i],
                          c->omega + 3 * i);
    if (st) {
        ac_quat_curve_destroy(c);
        return st;
    }
    *result = c;
    return AC_OK;
}

/* Maps t into [first, last] by the extrapolation modes; *sign becomes -1 in
   mirrored cycles (time runs backwards there), *hold 1 where clamped, *flip
   -1 in the cycles whose rotations are negated (see flip_odd). */
static ac_status wrap_time(const ac_quat_curve *c, double t, size_t i, double *local,
                           double *sign, int *hold, double *flip, ac_error *err)
{
    double first = c->times[0], last = c->times[c->k - 1];
    ac_quat_extrap mode = t < first ? c->before : c->after;
    *sign = 1.0, *hold = 0, *local = t, *flip = 1.0;
    if (!ac_finite(t))
        return ac_fail(err, AC_ERR_VALUE, i, "t", t, "must be finite");
    if (t >= first && t <= last)
        return AC_OK;
    switch (mode) {
    case AC_QUAT_CLAMP:
        *local = t < first ? first : last, *hold = 1;
        return AC_OK;
    case AC_QUAT_ERROR:
        return ac_fail(err, AC_ERR_VALUE, i, "t", t,
                       "must lie in [%.15g, %.15g]: the curve's %s is 'error'", first, last,
                       t < first ? "before" : "after");
    case AC_QUAT_CYCLE:
    case AC_QUAT_OSCILLATE: {
        double cycles, parity;
        *local = ac_cycle_fold(t, first, last, mode == AC_QUAT_OSCILLATE, &cycles, sign);
        if (mode == AC_QUAT_CYCLE && c->flip_odd) { /* the fold's parity of the cycle */
            ac_cycle_fold(t, first, last, 1, &cycles, &parity);
            *flip = parity;
        }
        return AC_OK;
    }
    }
    return AC_OK;
}

/* omega = 2 (dq/dt) q*, the vector part (q unit, so the scalar part is 0). */
static void angular_velocity(const double q[4], const double dq[4], double omega[3])
{
    double conj[4], r[4];
    ac_quat_conj(q, conj);
    ac_quat_mul(dq, conj, r);
    omega[0] = 2.0 * r[0], omega[1] = 2.0 * r[1], omega[2] = 2.0 * r[2];
}

/* One sample at a time in [first, last]: q, and dq/dt (0 for step). */
static ac_status sample(const ac_quat_curve *c, double t, size_t seg, size_t i, double q[4],
                        double omega[3], ac_error *err)
{
    const double *a = c->quats + 4 * seg, *b = a + 4;
    double t0 = c->times[seg], t1 = c->times[seg + 1], dt = t1 - t0, u;
    /* keys more than DBL_MAX apart: the same ratio on halves */
    u = ac_finite(dt) ? (t - t0) / dt : (0.5 * t - 0.5 * t0) / (0.5 * t1 - 0.5 * t0);
    u = u < 0.0 ? 0.0 : u > 1.0 ? 1.0 : u;
    omega[0] = omega[1] = omega[2] = 0.0;
    switch (c->interp) {
    case AC_QUAT_STEP:
        memcpy(q, t >= c->times[seg + 1] ? b : a, 4 * sizeof(double));
        return AC_OK;
    case AC_QUAT_LINEAR:
        if (u >= 1.0) /* the last key itself, not its negation */
            memcpy(q, b, 4 * sizeof(double));
        else
            slerp_one(a, b, u, q); /* what quat_slerp gives for the two keys */
        memcpy(omega, c->omega + 3 * seg, 3 * sizeof(double));
        return AC_OK;
    case AC_QUAT_CUBIC: {
        const double *m0 = c->m0 + 4 * seg, *m1 = c->m1 + 4 * seg;
        double p[4], dp[4], m = 0.0, keys = 0.0, len = 0.0, dq[4], proj;
        for (int k = 0; k < 4; k++) {
            ac_hermite_unit(u, a[k], m0[k], b[k], m1[k], &p[k], &dp[k]);
            dp[k] /= dt;
            m = fabs(p[k]) > m ? fabs(p[k]) : m;
            keys = fmax(keys, fmax(fabs(a[k]), fabs(b[k])));
        }
        if (!ac_finite(m))
            return ac_fail(err, AC_ERR_OVERFLOW, i, "t", t,
                           "is where the cubic spline's value is not representable");
        /* relative to the keys, so that keys of any magnitude are fine */
        if (!(m > 1e-150 * keys) || !ac_quat_normalize(p, q))
            return ac_fail(err, AC_ERR_VALUE, i, "t", t,
                           "is where the cubic spline passes through the zero quaternion "
                           "(|p|=%.3g); its tangents do not describe a rotation", m);
        /* d/dt (p / |p|) = (p' - q (q . p')) / |p|, with |p| = m |p / m| */
        for (int k = 0; k < 4; k++)
            len += (p[k] / m) * (p[k] / m);
        len = sqrt(len); /* |p| / m, in [1, 2] */
        proj = ac_quat_dot4(q, dp);
        for (int k = 0; k < 4; k++)
            dq[k] = ((dp[k] - q[k] * proj) / m) / len;
        angular_velocity(q, dq, omega);
        return AC_OK;
    }
    }
    return AC_OK;
}

ac_status ac_quat_curve_eval(const ac_quat_curve *c, const double *t, size_t n,
                             size_t *cursor, double *q, double *omega, ac_error *err)
{
    size_t hint = cursor ? *cursor : 0;
    for (size_t i = 0; i < n; i++) {
        double local, sign, flip, rq[4] = {0.0, 0.0, 0.0, 1.0}, w[3];
        int hold;
        ac_status st = wrap_time(c, t[i], i, &local, &sign, &hold, &flip, err);
        if (st)
            return st;
        if (c->k == 1) {
            ac_quat_normalize(c->quats, rq);
            w[0] = w[1] = w[2] = 0.0;
        } else {
            hint = ac_segment_find(c->times, c->k, local, hint);
            if ((st = sample(c, local, hint, i, rq, w, err)))
                return st;
            for (int k = 0; k < 3; k++)
                w[k] = hold ? 0.0 : sign * w[k];
            for (int k = 0; k < 4; k++) /* -q is the same rotation: omega is unchanged */
                rq[k] *= flip;
        }
        if (omega && (st = check_result("angular_velocity", w, 3, i, err)))
            return st; /* keys too close for the rotation between them */
        if (q)
            memcpy(q + 4 * i, rq, sizeof rq);
        if (omega)
            memcpy(omega + 3 * i, w, sizeof w);
    }
    if (cursor)
        *cursor = hint;
    return AC_OK;
}
