/* Blending of joint poses: interpolation of two poses, additive deltas made
   against a reference and applied to a base. Rotations go through the core's
   one slerp (ac_internal.h). */
#include <math.h>
#include <string.h>

#include "ac_internal.h"

/* |q|^2 may differ from 1 by this much: float32 data normalized in float32
   (Blender, glTF files) stays well inside it. */
#define UNIT_TOLERANCE 1e-6

static ac_status check_rotation(ac_arg arg, const double *q, size_t i, ac_error *err)
{
    double n2 = 0.0;
    ac_status st = ac_check_finite(arg, q, 4, i, err);
    if (st)
        return st;
    for (int k = 0; k < 4; k++)
        n2 += q[k] * q[k];
    if (!(fabs(n2 - 1.0) <= UNIT_TOLERANCE)) {
        return ac_fail(err, AC_ERR_VALUE, i, arg, sqrt(n2),
                       "its length |q|, which must be 1: a unit quaternion, |q|^2 within "
                       "1e-6 of 1");
    }
    return AC_OK;
}

/* The two poses of item i. */
static void pose_at(const double *const p[6], const size_t *s, size_t i, const double *q[6])
{
    for (int k = 0; k < 6; k++)
        q[k] = p[k] + (k % 3 == 1 ? 4 : 3) * i * s[k];
}

/* The two poses of item i, checked. */
static ac_status pose_pair(const double *const p[6], const size_t *s, size_t i, ac_error *err,
                           const double *q[6])
{
    static const ac_arg args[6] = {AC_ARG_A_TRANSLATION, AC_ARG_A_ROTATION, AC_ARG_A_SCALE,
                                   AC_ARG_B_TRANSLATION, AC_ARG_B_ROTATION, AC_ARG_B_SCALE};
    pose_at(p, s, i, q);
    for (int k = 0; k < 6; k++) {
        ac_status st = k % 3 == 1 ? check_rotation(args[k], q[k], i, err)
                                  : ac_check_finite(args[k], q[k], 3, i, err);
        if (st)
            return st;
    }
    return AC_OK;
}

/* w = weight * mask of item i; weight in [lo, hi] (lo > hi: any finite),
   mask in [0, 1]. */
static ac_status item_weight(const double *weight, const double *mask, const size_t *s, size_t i,
                             int bounded, ac_error *err, double *w)
{
    double x = weight[i * s[6]], m = mask ? mask[i * s[7]] : 1.0;
    if (!ac_finite(x) || (bounded && !(x >= 0.0 && x <= 1.0)))
        return ac_fail(err, AC_ERR_VALUE, i, AC_ARG_WEIGHT, x,
                       bounded ? "must lie in [0, 1]" : "must be finite");
    if (!(m >= 0.0 && m <= 1.0))
        return ac_fail(err, AC_ERR_VALUE, i, AC_ARG_MASK, m, "must lie in [0, 1]");
    *w = x * m;
    return AC_OK;
}

static void copy_pose(const double *const q[6], double *t, double *r, double *s, size_t i)
{
    memcpy(t + 3 * i, q[0], 3 * sizeof *t);
    memcpy(r + 4 * i, q[1], 4 * sizeof *r);
    memcpy(s + 3 * i, q[2], 3 * sizeof *s);
}

/* Items are taken in blocks: checked and their weights gathered first, so
   that the rotations of a block go through the core's batch slerp
   (ac_quat_batch_slerp, vectorized) in one call. */
enum { BLOCK = 256 };

/* 1 when every input of items [start, start + m) is valid (weights then in
   w): a branch-free pass that vectorizes; the careful per-item pass finds
   the error otherwise. bounded: the weight must lie in [0, 1]. */
static int block_ok(const double *const p[6], const double *weight, const double *mask,
                    const size_t *s, size_t start, size_t m, int bounded, double *w)
{
    int64_t ok = 1;
    for (int k = 0; k < 6; k++) {
        size_t width = k % 3 == 1 ? 4 : 3;
        const double *x = p[k] + width * start * s[k];
        size_t count = s[k] ? m : 1;
        if (width == 4)
            for (size_t i = 0; i < count; i++) {
                double n2 = x[4 * i] * x[4 * i] + x[4 * i + 1] * x[4 * i + 1] +
                            x[4 * i + 2] * x[4 * i + 2] + x[4 * i + 3] * x[4 * i + 3];
                ok &= fabs(n2 - 1.0) <= UNIT_TOLERANCE; /* false for nan and inf */
            }
        else
            for (size_t i = 0; i < 3 * count; i++)
                ok &= ac_finite(x[i]);
    }
    for (size_t i = 0; i < m; i++) {
        double x = weight[(start + i) * s[6]], mk = mask ? mask[(start + i) * s[7]] : 1.0;
        ok &= (mk >= 0.0) & (mk <= 1.0) & ac_finite(x) & ((bounded == 0) | ((x >= 0.0) & (x <= 1.0)));
        w[i] = x * mk;
    }
    return (int)ok;
}

/* out = (1 - w) a + w b for the 3-vectors of items [start, start + m); a
   flat loop over contiguous values when neither input is shared. */
static void lerp3(const double *a, const double *b, size_t sa, size_t sb, const double *w,
                  size_t start, size_t m, double *out)
{
    out += 3 * start;
    if (sa && sb) {
        double w3[3 * BLOCK];
        a += 3 * start, b += 3 * start;
        for (size_t k = 0; k < m; k++)
            w3[3 * k] = w3[3 * k + 1] = w3[3 * k + 2] = w[k];
        for (size_t j = 0; j < 3 * m; j++)
            out[j] = (1.0 - w3[j]) * a[j] + w3[j] * b[j];
        return;
    }
    for (size_t k = 0; k < m; k++) {
        const double *x = a + 3 * (start + k) * sa, *y = b + 3 * (start + k) * sb;
        for (int c = 0; c < 3; c++)
            out[3 * k + c] = (1.0 - w[k]) * x[c] + w[k] * y[c];
    }
}

ac_status ac_blend_poses(const double *a_translation, const double *a_rotation,
                         const double *a_scale, const double *b_translation,
                         const double *b_rotation, const double *b_scale, const double *weight,
                         const double *mask, const size_t steps[8], double *translation,
                         double *rotation, double *scale, size_t n, ac_error *err)
{
    const double *const p[6] = {a_translation, a_rotation, a_scale,
                                b_translation, b_rotation, b_scale};
    double w[BLOCK];
    for (size_t start = 0; start < n; start += BLOCK) {
        size_t m = n - start < BLOCK ? n - start : BLOCK;
        size_t slerp_steps[3] = {steps[1], steps[4], 1};
        if (!block_ok(p, weight, mask, steps, start, m, 1, w))
            for (size_t k = 0; k < m; k++) {
                const double *q[6];
                ac_status st = pose_pair(p, steps, start + k, err, q);
                if (st || (st = item_weight(weight, mask, steps, start + k, 1, err, w + k)))
                    return st;
            }
        lerp3(a_translation, b_translation, steps[0], steps[3], w, start, m, translation);
        lerp3(a_scale, b_scale, steps[2], steps[5], w, start, m, scale);
        if (ac_quat_batch_slerp(a_rotation + 4 * start * steps[1],
                                b_rotation + 4 * start * steps[4], w, slerp_steps,
                                rotation + 4 * start, m, err))
            return err ? err->status : AC_ERR_VALUE; /* not reached: checked above */
        for (size_t k = 0; k < m; k++)
            if (w[k] == 0.0) { /* a, bit for bit */
                const double *q[6];
                pose_at(p, steps, start + k, q);
                copy_pose(q, translation, rotation, scale, start + k);
            }
    }
    return AC_OK;
}

ac_status ac_blend_make_additive(const double *a_translation, const double *a_rotation,
                                 const double *a_scale, const double *b_translation,
                                 const double *b_rotation, const double *b_scale,
                                 const size_t steps[6], ac_blend_scale_mode mode,
                                 double *translation, double *rotation, double *scale, size_t n,
                                 ac_error *err)
{
    const double *const p[6] = {a_translation, a_rotation, a_scale,
                                b_translation, b_rotation, b_scale};
    for (size_t i = 0; i < n; i++) {
        const double *q[6];
        double inv[4];
        ac_status st = pose_pair(p, steps, i, err, q);
        if (st)
            return st;
        if (mode != AC_BLEND_SCALE_ADD)
            for (int k = 0; k < 3; k++)
                if (q[5][k] == 0.0)
                    return ac_fail(err, AC_ERR_VALUE, i, AC_ARG_B_SCALE, 0.0,
                                   "must not be zero (the delta divides by it)");
        for (int k = 0; k < 3; k++) {
            translation[3 * i + k] = q[0][k] - q[3][k];
            scale[3 * i + k] =
                mode != AC_BLEND_SCALE_ADD ? q[2][k] / q[5][k] : q[2][k] - q[5][k];
            if (!ac_finite(translation[3 * i + k]) || !ac_finite(scale[3 * i + k]))
                return ac_fail(err, AC_ERR_OVERFLOW, i,
                               ac_finite(translation[3 * i + k]) ? AC_ARG_A_SCALE
                                                                 : AC_ARG_A_TRANSLATION,
                               ac_finite(translation[3 * i + k]) ? q[2][k] : q[0][k],
                               "gives a delta beyond the float64 range");
        }
        ac_quat_conj(q[4], inv);
        ac_quat_mul(inv, q[1], rotation + 4 * i);
    }
    return AC_OK;
}

/* The checks of item i that its weight adds: a scale delta that delta^w
   cannot raise (multiplicative scale, w neither 0 nor 1). */
static ac_status scale_power_check(const double *ds, double w, ac_blend_scale_mode mode,
                                   size_t i, ac_error *err)
{
    if (mode == AC_BLEND_SCALE_ADD || w == 0.0 || w == 1.0)
        return AC_OK;
    for (int k = 0; k < 3; k++)
        if (!(ds[k] > 0.0))
            return ac_fail(err, AC_ERR_VALUE, i, AC_ARG_B_SCALE, ds[k],
                           "must be positive for a weight of %.17g (scale * delta^weight)", w);
    return AC_OK;
}

/* q^w for unit q: the rotation about q's axis by w times its angle 2 acos(q_w),
   taken in [0, 2 pi] (no hemisphere flip, as Blender's pow_qt_fl_normalized);
   the angle from atan2, accurate near 0 and pi. */
static void quat_power(const double q[4], double w, double out[4])
{
    double s = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2]);
    double half = w * atan2(s, q[3]), k = s > 0.0 ? sin(half) / s : 0.0;
    for (int c = 0; c < 3; c++)
        out[c] = q[c] * k;
    out[3] = cos(half);
}

ac_status ac_blend_apply_additive(const double *a_translation, const double *a_rotation,
                                  const double *a_scale, const double *b_translation,
                                  const double *b_rotation, const double *b_scale,
                                  const double *weight, const double *mask,
                                  const size_t steps[8], ac_blend_scale_mode mode,
                                  double *translation, double *rotation, double *scale, size_t n,
                                  ac_error *err)
{
    static const double identity[4] = {0.0, 0.0, 0.0, 1.0};
    const double *const p[6] = {a_translation, a_rotation, a_scale,
                                b_translation, b_rotation, b_scale};
    double w[BLOCK], u[BLOCK], arc[4 * BLOCK];
    for (size_t start = 0; start < n; start += BLOCK) {
        size_t m = n - start < BLOCK ? n - start : BLOCK;
        size_t slerp_steps[3] = {0, steps[4], 1};
        int ok = block_ok(p, weight, mask, steps, start, m, 0, w);
        for (size_t k = 0; ok && k < m; k++)
            ok = scale_power_check(b_scale + 3 * (start + k) * steps[5], w[k], mode, 0, NULL) ==
                 AC_OK;
        if (!ok)
            for (size_t k = 0; k < m; k++) {
                const double *q[6];
                ac_status st = pose_pair(p, steps, start + k, err, q);
                if (st || (st = item_weight(weight, mask, steps, start + k, 0, err, w + k)) ||
                    (st = scale_power_check(q[5], w[k], mode, start + k, err)))
                    return st;
            }
        /* slerp(identity, delta, w) of the block through the batch slerp
           (w in [0, 1]; other weights and the Combine power below) */
        for (size_t k = 0; k < m; k++)
            u[k] = w[k] < 0.0 ? 0.0 : w[k] > 1.0 ? 1.0 : w[k];
        if (mode != AC_BLEND_COMBINE &&
            ac_quat_batch_slerp(identity, b_rotation + 4 * start * steps[4], u, slerp_steps, arc,
                                m, err))
            return err ? err->status : AC_ERR_VALUE; /* not reached: checked above */
        for (size_t k = 0; k < m; k++) {
            size_t i = start + k;
            const double *q[6];
            double t[3], sc[3], d[4];
            pose_at(p, steps, i, q);
            if (w[k] == 0.0) { /* the base, bit for bit */
                copy_pose(q, translation, rotation, scale, i);
                continue;
            }
            for (int c = 0; c < 3; c++) {
                t[c] = q[0][c] + w[k] * q[3][c];
                sc[c] = mode == AC_BLEND_SCALE_ADD ? q[2][c] + w[k] * q[5][c]
                        : w[k] == 1.0 || q[5][c] == 1.0 ? q[2][c] * q[5][c]
                                                        : q[2][c] * pow(q[5][c], w[k]);
                if (!ac_finite(t[c]) || !ac_finite(sc[c]))
                    return ac_fail(err, AC_ERR_OVERFLOW, i, AC_ARG_WEIGHT, w[k],
                                   "gives a pose beyond the float64 range");
            }
            if (w[k] == 1.0)
                memcpy(d, q[4], sizeof d);
            else if (mode == AC_BLEND_COMBINE)
                quat_power(q[4], w[k], d);
            else if (w[k] < 0.0 || w[k] > 1.0)
                ac_quat_slerp(identity, q[4], w[k], d); /* continues the great circle */
            else
                memcpy(d, arc + 4 * k, sizeof d);
            memcpy(translation + 3 * i, t, sizeof t);
            memcpy(scale + 3 * i, sc, sizeof sc);
            ac_quat_mul(q[1], d, rotation + 4 * i);
        }
    }
    return AC_OK;
}
