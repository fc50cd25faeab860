/* Inverse kinematics: two-bone, aim and chain solvers over batches of
   world-space positions. Quaternion arithmetic, normalization and slerp come
   from ac_internal.h; this file adds only the vector geometry of the solvers. */
#include "ac_internal.h"

static const double identity[4] = {0.0, 0.0, 0.0, 1.0};

static inline void v_sub(const double a[3], const double b[3], double out[3])
{
    out[0] = a[0] - b[0], out[1] = a[1] - b[1], out[2] = a[2] - b[2];
}

static inline double v_dot(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static inline void v_cross(const double a[3], const double b[3], double out[3])
{
    double x = a[1] * b[2] - a[2] * b[1];
    double y = a[2] * b[0] - a[0] * b[2];
    double z = a[0] * b[1] - a[1] * b[0];
    out[0] = x, out[1] = y, out[2] = z;
}

/* |v|: the plain square root of v . v where that cannot overflow or lose
   precision to underflow, else scaled by the largest component (as
   ac_normalize scales). */
static inline double v_norm(const double v[3])
{
    double n2 = v_dot(v, v), m;
    if (n2 > 1e-280 && n2 < 1e280)
        return sqrt(n2);
    m = fmax(fabs(v[0]), fmax(fabs(v[1]), fabs(v[2])));
    if (!(m > 0.0))
        return 0.0;
    return m * sqrt((v[0] / m) * (v[0] / m) + (v[1] / m) * (v[1] / m) + (v[2] / m) * (v[2] / m));
}

/* v / |v| (ac_normalize, with a direct path for well-scaled vectors); 0 for
   the zero vector. */
static inline int v_unit(const double v[3], double out[3])
{
    double n2 = v_dot(v, v);
    if (n2 > 1e-280 && n2 < 1e280) {
        double inv = 1.0 / sqrt(n2);
        out[0] = v[0] * inv, out[1] = v[1] * inv, out[2] = v[2] * inv;
        return 1;
    }
    return ac_normalize(v, 3, out);
}

/* A unit quaternion from q of squared length in [1e-280, 1e280] (the
   from-to arcs below), else through ac_quat_normalize. */
static inline void q_unit(const double q[4], double out[4])
{
    double n2 = ac_quat_dot4(q, q);
    if (n2 > 1e-280 && n2 < 1e280) {
        double inv = 1.0 / sqrt(n2);
        for (int k = 0; k < 4; k++)
            out[k] = q[k] * inv;
        return;
    }
    ac_quat_normalize(q, out);
}

/* The part of v perpendicular to unit u. */
static inline void v_reject(const double v[3], const double u[3], double out[3])
{
    double d = v_dot(v, u);
    out[0] = v[0] - d * u[0], out[1] = v[1] - d * u[1], out[2] = v[2] - d * u[2];
}

/* A unit vector perpendicular to unit u: along the world axis least aligned
   with u, with its u part removed. */
static void any_perpendicular(const double u[3], double out[3])
{
    double axis[3] = {0.0, 0.0, 0.0}, r[3];
    int k = fabs(u[0]) <= fabs(u[1]) ? (fabs(u[0]) <= fabs(u[2]) ? 0 : 2)
                                     : (fabs(u[1]) <= fabs(u[2]) ? 1 : 2);
    axis[k] = 1.0;
    v_reject(axis, u, r);
    v_unit(r, out);
}

/* The unit part of `hint` perpendicular to unit u when that part is more
   than `relative` of |hint|; else any perpendicular. Returns 1 when the hint
   was used. Compares squares, so that only the direction used takes a root. */
static inline int perpendicular_toward(const double u[3], const double hint[3], double relative,
                                double out[3])
{
    double r[3], h2 = v_dot(hint, hint), r2;
    v_reject(hint, u, r);
    r2 = v_dot(r, r);
    if (h2 > 1e-280 && h2 < 1e280 ? r2 > relative * relative * h2
                                  : v_norm(r) > relative * v_norm(hint)) {
        if (v_unit(r, out))
            return 1;
    }
    any_perpendicular(u, out);
    return 0;
}

static void quat_axis_angle(const double axis[3], double angle, double q[4])
{
    double s = sin(0.5 * angle);
    q[0] = axis[0] * s, q[1] = axis[1] * s, q[2] = axis[2] * s, q[3] = cos(0.5 * angle);
}

/* The turn about unit axis a that takes the part of `from` perpendicular to
   a onto the direction of the part of `to` perpendicular to it: a turn about
   a itself, by the angle between the parts around it (a shortest arc
   between them would tilt off a by their rounding error, which for a chain
   all but straight moves its end off the target line by 1e-5 of the
   chain). The identity, and 0, when either part is below 1e-12 of its
   vector: no direction to turn from or to. */
static int turn_about(const double a[3], const double from[3], const double to[3], double q[4])
{
    double f[3], t[3], fu[3], tu[3], x[3];
    memcpy(q, identity, sizeof identity);
    v_reject(from, a, f);
    v_reject(to, a, t);
    if (!(v_norm(f) > 1e-12 * v_norm(from) && v_norm(t) > 1e-12 * v_norm(to)))
        return 0;
    v_unit(f, fu);
    v_unit(t, tu);
    v_cross(fu, tu, x);
    quat_axis_angle(a, atan2(v_dot(x, a), v_dot(fu, tu)), q);
    return 1;
}

/* The shortest-arc rotation taking unit u to unit v. Inputs more than 90
   degrees apart go through the half turn about the arc's axis (or, when u
   and v are opposite, about the part of `hint` perpendicular to u), which
   keeps the result accurate near opposite directions. */
static inline void quat_from_to(const double u[3], const double v[3], const double hint[3],
                         double q[4])
{
    double c[3], d = v_dot(u, v), raw[4];
    v_cross(u, v, c);
    if (d >= 0.0) {
        raw[0] = c[0], raw[1] = c[1], raw[2] = c[2], raw[3] = 1.0 + d;
        q_unit(raw, q);
        return;
    }
    {
        double axis[3], half[4], mu[3], near[4];
        /* the arc's axis, unless u and v are so nearly opposite that its
           direction is rounding noise: then the caller's hint */
        perpendicular_toward(u, v_norm(c) > 1e-8 ? c : hint, 1e-12, axis);
        half[0] = axis[0], half[1] = axis[1], half[2] = axis[2], half[3] = 0.0;
        mu[0] = -u[0], mu[1] = -u[1], mu[2] = -u[2];
        v_cross(mu, v, c);
        raw[0] = c[0], raw[1] = c[1], raw[2] = c[2], raw[3] = 1.0 - d;
        q_unit(raw, near);
        ac_quat_mul(near, half, q);
    }
}

static ac_status check_unit_interval(ac_arg arg, double x, size_t index, ac_error *err)
{
    if (!(x >= 0.0 && x <= 1.0))
        return ac_fail(err, AC_ERR_VALUE, index, arg, x, "must lie in [0, 1]");
    return AC_OK;
}

/* ------------------------------------------------------------ two-bone */

/* The end's distance from the start for a target at distance d: reached
   exactly below da = soften * length, then the exponential soft-IK curve,
   then clamped to what the bones can span. */
static double two_bone_reach(double d, double soften, double l1, double l2)
{
    double length = l1 + l2, da = soften * length, ds = length - da, r = d;
    if (d > da && ds > 0.0)
        r = da + ds * -expm1(-(d - da) / ds);
    return fmin(fmax(r, fabs(l1 - l2)), length);
}

static void two_bone_one(const double *s, const double *m, const double *e, const double *t,
                         const double *p, double weight, double soften, double twist,
                         double qs[4], double qm[4], uint8_t *reached)
{
    double sm[3], me[3], st[3], l1, l2, d, a[3], u1[3], u2[3], bend[3], n[3];
    double r, cos_beta, sin_beta, u2_new[3], h[4], e1[3], v[3], vlen, qa[4], m2[3];
    double ps[3], qt[4], tmp[4], conj[4], mf[3], ef[3], w1[3], w2[3];
    v_sub(m, s, sm);
    v_sub(e, m, me);
    l1 = v_norm(sm), l2 = v_norm(me);
    memcpy(qs, identity, sizeof identity);
    memcpy(qm, identity, sizeof identity);
    if (l1 > 0.0 && l2 > 0.0) {
        /* the axis toward the target (or, with the target at the start, the
           chain's current direction) */
        v_sub(t, s, st);
        d = v_norm(st);
        if (d > 1e-140 && d < 1e140) {
            a[0] = st[0] / d, a[1] = st[1] / d, a[2] = st[2] / d;
        } else if (!v_unit(st, a)) {
            double se[3];
            v_sub(e, s, se);
            if (!v_unit(se, a))
                v_unit(sm, a);
        }
        r = two_bone_reach(d, soften, l1, l2);
        /* hinge at the mid joint: the new bend from the law of cosines,
           r^2 = l1^2 + l2^2 - 2 l1 l2 cos(beta), beta the interior angle */
        for (int k = 0; k < 3; k++)
            u1[k] = sm[k] / l1, u2[k] = me[k] / l2;
        v_sub(p, s, ps);
        if (!perpendicular_toward(u1, u2, 1e-12, bend) &&
            perpendicular_toward(u1, ps, 1e-12, bend)) {
            /* a straight (or folded) chain: bend the end away from the pole,
               so that turning it onto the target line leaves the mid on the
               pole's side without a half-turn roll */
            for (int k = 0; k < 3; k++)
                bend[k] = -bend[k];
        }
        v_cross(u1, bend, n);
        {
            /* 1 + cos(beta) and 1 - cos(beta) as products of differences,
               accurate for straight and folded chains */
            double dl = fabs(l1 - l2), twice = 2.0 * l1 * l2;
            double plus = fmax(0.0, ((l1 + l2) - r) * ((l1 + l2) + r) / twice);
            double minus = fmax(0.0, (r - dl) * (r + dl) / twice);
            cos_beta = plus < minus ? plus - 1.0 : 1.0 - minus;
            cos_beta = fmin(1.0, fmax(-1.0, cos_beta));
            sin_beta = sqrt(fmin(1.0, plus * minus));
        }
        for (int k = 0; k < 3; k++)
            u2_new[k] = -cos_beta * u1[k] + sin_beta * bend[k];
        quat_from_to(u2, u2_new, n, h);
        /* turn the end onto the start-target line */
        for (int k = 0; k < 3; k++)
            e1[k] = m[k] + l2 * u2_new[k];
        v_sub(e1, s, v);
        vlen = v_norm(v);
        if (vlen > 0.0) {
            double vu[3] = {v[0] / vlen, v[1] / vlen, v[2] / vlen};
            quat_from_to(vu, a, n, qa);
        } else {
            memcpy(qa, identity, sizeof identity);
        }
        /* roll about that line: the mid toward the pole, then the twist */
        ac_quat_rotate(qa, sm, m2);
        turn_about(a, m2, ps, qt);
        if (twist != 0.0) {
            double qtw[4];
            quat_axis_angle(a, twist, qtw);
            ac_quat_mul(qtw, qt, qt);
        }
        ac_quat_mul(qt, qa, qs);
        /* the hinge expressed after the start's correction */
        ac_quat_mul(qs, h, tmp);
        ac_quat_conj(qs, conj);
        ac_quat_mul(tmp, conj, qm);
        if (weight < 1.0) {
            ac_quat_slerp(identity, qs, weight, qs);
            ac_quat_slerp(identity, qm, weight, qm);
        }
    }
    /* where the corrected end lands */
    ac_quat_rotate(qs, sm, w1);
    ac_quat_rotate(qs, me, w2);
    ac_quat_rotate(qm, w2, w2);
    for (int k = 0; k < 3; k++) {
        mf[k] = s[k] + w1[k];
        ef[k] = mf[k] + w2[k] - t[k];
    }
    *reached = v_norm(ef) <= 1e-9 * (l1 + l2);
}

/* two_bone_one on the chain expressed relative to the start and, for
   chains far from unit size, divided by their length (the solve is scale
   invariant; the pole and a far target only count by direction), so that
   squares neither overflow nor underflow. Differences of positions that are
   not representable are an overflow. */
static ac_status two_bone_scaled(const double *s, const double *m, const double *e,
                                 const double *t, const double *p, double w, double sf,
                                 double tw, double *qs, double *qm, uint8_t *reached, size_t i,
                                 ac_error *err)
{
    double sm[3], se[3], st[3], sp[3], length, zero[3] = {0.0, 0.0, 0.0};
    v_sub(m, s, sm);
    v_sub(e, s, se);
    v_sub(t, s, st);
    v_sub(p, s, sp);
    if (ac_check_finite(AC_ARG_MID, sm, 3, i, NULL) || ac_check_finite(AC_ARG_END, se, 3, i, NULL))
        return ac_fail(err, AC_ERR_OVERFLOW, i, AC_ARG_MID, m[0],
                       "the chain's bones are too long to represent");
    if (ac_check_finite(AC_ARG_TARGET, st, 3, i, NULL) ||
        ac_check_finite(AC_ARG_POLE, sp, 3, i, NULL))
        return ac_fail(err, AC_ERR_OVERFLOW, i, AC_ARG_TARGET, t[0],
                       "target or pole too far from the start to represent");
    {
        double me[3];
        v_sub(se, sm, me);
        length = v_norm(sm) + v_norm(me);
    }
    if (length > 1e-100 && length < 1e100) {
        two_bone_one(s, m, e, t, p, w, sf, tw, qs, qm, reached);
        return AC_OK;
    }
    if (!(length > 0.0 && ac_finite(length))) {
        two_bone_one(zero, sm, se, st, sp, w, sf, tw, qs, qm, reached);
        return AC_OK;
    }
    {
        double dt = v_norm(st), dp = v_norm(sp);
        for (int k = 0; k < 3; k++) {
            sm[k] /= length, se[k] /= length;
            /* beyond 1e100 lengths a target counts only by its direction */
            st[k] = dt / length > 1e100 ? st[k] / dt * 1e100 : st[k] / length;
            sp[k] = dp > 0.0 ? sp[k] / dp : 0.0;
        }
    }
    two_bone_one(zero, sm, se, st, sp, w, sf, tw, qs, qm, reached);
    return AC_OK;
}

ac_status ac_ik_two_bone(const double *start, const double *mid, const double *end,
                         const double *target, const double *pole, const double *weight,
                         const double *soften, const double *twist, const size_t steps[8],
                         double *rotation_start, double *rotation_mid, uint8_t *reached,
                         size_t n, ac_error *err)
{
    static const size_t all[8] = {1, 1, 1, 1, 1, 1, 1, 1};
    const size_t *st = steps ? steps : all;
    for (size_t i = 0; i < n; i++) {
        const double *s = start + 3 * i * st[0], *m = mid + 3 * i * st[1];
        const double *e = end + 3 * i * st[2], *t = target + 3 * i * st[3];
        const double *p = pole + 3 * i * st[4];
        double w = weight[i * st[5]], sf = soften[i * st[6]], tw = twist[i * st[7]];
        ac_status status;
        if ((status = ac_check_finite(AC_ARG_START, s, 3, i, err)) ||
            (status = ac_check_finite(AC_ARG_MID, m, 3, i, err)) ||
            (status = ac_check_finite(AC_ARG_END, e, 3, i, err)) ||
            (status = ac_check_finite(AC_ARG_TARGET, t, 3, i, err)) ||
            (status = ac_check_finite(AC_ARG_POLE, p, 3, i, err)) ||
            (status = check_unit_interval(AC_ARG_WEIGHT, w, i, err)) ||
            (status = check_unit_interval(AC_ARG_SOFTEN, sf, i, err)) ||
            (status = ac_check_finite(AC_ARG_TWIST, &tw, 1, i, err)))
            return status;
        if ((status = two_bone_scaled(s, m, e, t, p, w, sf, tw, rotation_start + 4 * i,
                                      rotation_mid + 4 * i, reached + i, i, err)))
            return status;
        if (ac_check_finite(AC_ARG_ROTATION, rotation_start + 4 * i, 4, i, NULL) ||
            ac_check_finite(AC_ARG_ROTATION, rotation_mid + 4 * i, 4, i, NULL))
            return ac_fail(err, AC_ERR_OVERFLOW, i, AC_ARG_TARGET, t[0],
                           "positions too large for the solver");
    }
    return AC_OK;
}

/* ----------------------------------------------------------------- aim */

ac_status ac_ik_aim(const double *joint_world, const double *forward, const double *up,
                    const double *target, const double *pole, const double *weight,
                    const size_t steps[6], double *rotation, size_t n, ac_error *err)
{
    static const size_t all[6] = {1, 1, 1, 1, 1, 1};
    const size_t *st = steps ? steps : all;
    for (size_t i = 0; i < n; i++) {
        const double *mw = joint_world + 16 * i * st[0], *f = forward + 3 * i * st[1];
        const double *u = up + 3 * i * st[2], *t = target + 3 * i * st[3];
        const double *p = pole ? pole + 3 * i * st[4] : NULL;
        double w = weight[i * st[5]], *q = rotation + 4 * i;
        double pos[3], fw[3], fu[3], uw[3], d[3], du[3], q1[4];
        ac_status status;
        if ((status = ac_check_finite(AC_ARG_JOINT_WORLD, mw, 16, i, err)) ||
            (status = ac_check_finite(AC_ARG_FORWARD, f, 3, i, err)) ||
            (status = ac_check_finite(AC_ARG_UP, u, 3, i, err)) ||
            (status = ac_check_finite(AC_ARG_TARGET, t, 3, i, err)) ||
            (p && (status = ac_check_finite(AC_ARG_POLE, p, 3, i, err))) ||
            (status = check_unit_interval(AC_ARG_WEIGHT, w, i, err)))
            return status;
        if (v_norm(f) == 0.0)
            return ac_fail(err, AC_ERR_VALUE, i, AC_ARG_FORWARD, 0.0, "must not be zero");
        for (int k = 0; k < 3; k++) {
            pos[k] = mw[4 * k + 3];
            fw[k] = mw[4 * k] * f[0] + mw[4 * k + 1] * f[1] + mw[4 * k + 2] * f[2];
            uw[k] = mw[4 * k] * u[0] + mw[4 * k + 1] * u[1] + mw[4 * k + 2] * u[2];
        }
        if (ac_check_finite(AC_ARG_FORWARD, fw, 3, i, NULL) ||
            ac_check_finite(AC_ARG_UP, uw, 3, i, NULL))
            return ac_fail(err, AC_ERR_OVERFLOW, i, AC_ARG_JOINT_WORLD, mw[0],
                           "linear part too large");
        if (!ac_normalize(fw, 3, fu))
            return ac_fail(err, AC_ERR_VALUE, i, AC_ARG_JOINT_WORLD, 0.0,
                           "its linear part maps forward to zero");
        v_sub(t, pos, d);
        if (!ac_normalize(d, 3, du)) {
            memcpy(q, identity, sizeof identity);
            continue;
        }
        quat_from_to(fu, du, uw, q1);
        if (p) {
            double u1[3], ps[3], qt[4];
            ac_quat_rotate(q1, uw, u1);
            v_sub(p, pos, ps);
            if (turn_about(du, u1, ps, qt))
                ac_quat_mul(qt, q1, q1);
        }
        if (w < 1.0)
            ac_quat_slerp(identity, q1, w, q1);
        if (ac_check_finite(AC_ARG_ROTATION, q1, 4, i, NULL))
            return ac_fail(err, AC_ERR_OVERFLOW, i, AC_ARG_TARGET, t[0],
                           "target too far from the joint to represent");
        memcpy(q, q1, sizeof q1);
    }
    return AC_OK;
}

/* --------------------------------------------------------------- chain */

/* Turns unit d toward unit ref until their angle is at most `limit`. */
static void cone_clamp(double d[3], const double ref[3], double limit)
{
    double perp[3], cl = cos(limit), sl = sin(limit);
    if (v_dot(d, ref) >= cl)
        return;
    perpendicular_toward(ref, d, 1e-12, perp);
    for (int k = 0; k < 3; k++)
        d[k] = cl * ref[k] + sl * perp[k];
}

/* The unit direction from a to b, else `fallback` (unit). */
static void direction(const double a[3], const double b[3], const double fallback[3],
                      double out[3])
{
    double v[3];
    v_sub(b, a, v);
    if (!ac_normalize(v, 3, out))
        memcpy(out, fallback, 3 * sizeof(double));
}

static double end_distance(const double *p, size_t k, const double *t)
{
    double d[3];
    v_sub(p + 3 * (k - 1), t, d);
    return v_norm(d);
}

/* Places joints 1.. from the root along their current directions at their
   exact lengths, keeping the cone limits. */
static void chain_place(double *p, const double *lengths, const double *limits, size_t k,
                        const double *fallback)
{
    double dir[3], prev[3];
    memcpy(prev, fallback, sizeof prev);
    for (size_t i = 0; i + 1 < k; i++) {
        direction(p + 3 * i, p + 3 * (i + 1), prev, dir);
        if (limits && i >= 1)
            cone_clamp(dir, prev, limits[i]);
        for (int c = 0; c < 3; c++)
            p[3 * (i + 1) + c] = p[3 * i + c] + lengths[i] * dir[c];
        memcpy(prev, dir, sizeof prev);
    }
}

static void fabrik_forward(double *p, const double *lengths, const double *limits, size_t k,
                           const double *t, const double *fallback)
{
    double dir[3], next[3];
    memcpy(p + 3 * (k - 1), t, 3 * sizeof(double));
    memcpy(next, fallback, sizeof next);
    for (size_t i = k - 1; i-- > 0;) {
        /* segment i points from p[i] to p[i+1]; its neighbour toward the end
           is segment i + 1 (direction `next`) */
        double back[3];
        direction(p + 3 * (i + 1), p + 3 * i, fallback, back);
        for (int c = 0; c < 3; c++)
            dir[c] = -back[c];
        if (limits && i + 2 < k)
            cone_clamp(dir, next, limits[i + 1]);
        for (int c = 0; c < 3; c++)
            p[3 * i + c] = p[3 * (i + 1) + c] - lengths[i] * dir[c];
        memcpy(next, dir, sizeof next);
    }
}

static void ccd_pass(double *p, const double *limits, size_t k, const double *t,
                     const double *fallback)
{
    for (size_t j = k - 1; j-- > 0;) {
        double to_end[3], to_target[3], q[4], seg[3], hint[3];
        direction(p + 3 * j, p + 3 * (k - 1), fallback, to_end);
        direction(p + 3 * j, t, to_end, to_target);
        any_perpendicular(to_end, hint);
        quat_from_to(to_end, to_target, hint, q);
        if (limits && j >= 1) {
            double prev[3], turned[3];
            direction(p + 3 * (j - 1), p + 3 * j, fallback, prev);
            direction(p + 3 * j, p + 3 * (j + 1), prev, seg);
            ac_quat_rotate(q, seg, turned);
            cone_clamp(turned, prev, limits[j]);
            any_perpendicular(seg, hint);
            quat_from_to(seg, turned, hint, q);
        }
        for (size_t i = j + 1; i < k; i++) {
            double r[3];
            v_sub(p + 3 * i, p + 3 * j, r);
            ac_quat_rotate(q, r, r);
            for (int c = 0; c < 3; c++)
                p[3 * i + c] = p[3 * j + c] + r[c];
        }
    }
}

/* Chain i's inputs (errors: index i * k + joint for positions and limits,
   i for the target). */
static ac_status chain_check(const double *pos, const double *t, const double *lim, size_t k,
                             size_t i, ac_error *err)
{
    ac_status status;
    for (size_t j = 0; j < k; j++)
        if ((status = ac_check_finite(AC_ARG_POSITIONS, pos + 3 * j, 3, i * k + j, err)))
            return status;
    if ((status = ac_check_finite(AC_ARG_TARGET, t, 3, i, err)))
        return status;
    for (size_t j = 0; lim && j < k; j++)
        if (!(lim[j] >= 0.0 && lim[j] <= AC_PI))
            return ac_fail(err, AC_ERR_VALUE, i * k + j, AC_ARG_LIMITS, lim[j],
                           "must lie in [0, pi]");
    return AC_OK;
}

ac_status ac_ik_chain(const double *positions, const double *target, const double *limits,
                      size_t k, ac_ik_method method, int max_iterations, double tolerance,
                      const size_t steps[3], double *out, uint8_t *converged, size_t n,
                      ac_error *err)
{
    static const size_t all[3] = {1, 1, 1};
    const size_t *st = steps ? steps : all;
    double *lengths;
    if (method != AC_IK_FABRIK && method != AC_IK_CCD)
        return ac_fail(err, AC_ERR_VALUE, 0, AC_ARG_METHOD, (double)method,
                       "must be fabrik (0) or ccd (1)");
    if (max_iterations < 0)
        return ac_fail(err, AC_ERR_VALUE, 0, AC_ARG_MAX_ITERATIONS, (double)max_iterations,
                       "must be >= 0");
    if (!(tolerance > 0.0 && ac_finite(tolerance)))
        return ac_fail(err, AC_ERR_VALUE, 0, AC_ARG_TOLERANCE, tolerance,
                       "must be finite and > 0");
    for (size_t i = 0; i < n; i++) {
        ac_status status = chain_check(positions + 3 * k * i * st[0], target + 3 * i * st[1],
                                       limits ? limits + k * i * st[2] : NULL, k, i, err);
        if (status)
            return status;
    }
    if (k == 0) {
        for (size_t i = 0; i < n; i++)
            converged[i] = 0;
        return AC_OK;
    }
    lengths = malloc(k * sizeof *lengths);
    if (!lengths)
        return ac_fail(err, AC_ERR_NOMEM, 0, AC_ARG_SCRATCH, (double)k, "out of memory");
    for (size_t i = 0; i < n; i++) {
        const double *pos = positions + 3 * k * i * st[0], *t = target + 3 * i * st[1];
        const double *lim = limits ? limits + k * i * st[2] : NULL;
        double *p = out + 3 * k * i, total = 0.0, reach[3], fallback[3] = {1.0, 0.0, 0.0};
        int done;
        memcpy(p, pos, 3 * k * sizeof(double));
        for (size_t j = 0; j + 1 < k; j++) {
            double seg[3];
            v_sub(pos + 3 * (j + 1), pos + 3 * j, seg);
            lengths[j] = v_norm(seg);
            total += lengths[j];
        }
        v_sub(t, pos, reach);
        if (!ac_normalize(reach, 3, fallback))
            fallback[0] = 1.0, fallback[1] = fallback[2] = 0.0;
        done = end_distance(p, k, t) <= tolerance;
        if (!done && !lim && v_norm(reach) >= total - tolerance) {
            /* beyond reach, or within tolerance of it: straight toward the
               target (FABRIK nears a target at full reach only as 1 /
               iterations: 1e6 of them left 2e-6) */
            for (size_t j = 0; j + 1 < k; j++)
                for (int c = 0; c < 3; c++)
                    p[3 * (j + 1) + c] = p[3 * j + c] + lengths[j] * fallback[c];
            done = 1;
        }
        for (int it = 0; !done && it < max_iterations; it++) {
            if (method == AC_IK_FABRIK) {
                fabrik_forward(p, lengths, lim, k, t, fallback);
                memcpy(p, pos, 3 * sizeof(double));
            } else {
                ccd_pass(p, lim, k, t, fallback);
            }
            chain_place(p, lengths, lim, k, fallback);
            done = end_distance(p, k, t) <= tolerance;
        }
        converged[i] = end_distance(p, k, t) <= tolerance;
        if (ac_check_finite(AC_ARG_POSITIONS, p, 3 * k, i, NULL) || !ac_finite(total) ||
            !ac_finite(v_norm(reach))) {
            free(lengths);
            return ac_fail(err, AC_ERR_OVERFLOW, i, AC_ARG_TARGET, t[0],
                           "joints or target too far apart to represent");
        }
    }
    free(lengths);
    return AC_OK;
}
