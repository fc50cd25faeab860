/* Blending of joint poses: interpolation of two poses, additive deltas made
   against a reference and applied to a base. Rotations go through the core's
   one slerp (ac_internal.h). Each kernel runs on AVX-512F lanes where the CPU
   has them and on a scalar path, block by block, everywhere else (and for
   any block with a bad item, whose error it reports); both do the same
   operations, so a result never depends on the path. */
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
AC_VECTORIZED
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
AC_VECTORIZED
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

/* The three kernels, for the code they share. */
enum { BLEND, MAKE, APPLY };

#ifdef AC_SIMD
/* ---- lanes: AC_LANES items at a time with the scalar path's checks and
   operations, in the same order; rotations through the slerp's lanes as
   ac_quat_batch_slerp takes them (both ends normalized, then
   ac_quat_slerp_any per lane). One pass over the inputs instead of the
   scalar path's check, lerp, slerp and copy passes: on 26,000 items, 23 ns
   per item instead of 32 (blend), 4 instead of 24 (make), 23 instead of 43
   (apply). A group is stored only when every lane passed its checks and
   lies in the lanes' range; from the first group that does not, a block
   takes the scalar path. */

/* block_ok's test of a rotation per lane (its 4 components as lanes). */
AC_SIMD_FN ac_vm unit_ok(const ac_vd r[4])
{
    ac_vd n2 = r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + r[3] * r[3];
    return (ac_vm)(ac_vd_abs(n2 - 1.0) <= UNIT_TOLERANCE);
}

/* block_ok's test of the weights per lane (bounded: in [0, 1]), and
   w = weight * mask. */
AC_SIMD_FN ac_vm weight_ok(const double *weight, const double *mask, const size_t *s, size_t at,
                           int bounded, ac_vd *w)
{
    ac_vd x = ac_vd_load1(weight + at * s[6], s[6]);
    ac_vd m = mask ? ac_vd_load1(mask + at * s[7], s[7]) : ac_vd_splat(1.0);
    ac_vm ok = (ac_vm)(m >= 0.0) & (ac_vm)(m <= 1.0) & (ac_vm)(ac_vd_abs(x) <= DBL_MAX);
    if (bounded)
        ok &= (ac_vm)(x >= 0.0) & (ac_vm)(x <= 1.0);
    *w = x * m;
    return ok;
}

/* Translations and scales are combined value by value, so they stay in
   memory order (x y z x y z ...): the 24 values of AC_LANES items are 3
   vectors, and the lanes of a per-item w become the matching 3 (w0 w0 w0
   w1 ...). */
typedef struct vectors3 {
    const double *p[4]; /* a translation, a scale, b translation, b scale */
    size_t step[4];
    double repeated[4][3 * AC_LANES]; /* a shared item (step 0) AC_LANES times */
} vectors3;

static void vectors3_init(vectors3 *v, const double *const p[6], const size_t *s)
{
    static const int which[4] = {0, 2, 3, 5};
    for (int k = 0; k < 4; k++) {
        v->step[k] = s[which[k]];
        v->p[k] = v->step[k] ? p[which[k]] : v->repeated[k];
        for (int i = 0; !v->step[k] && i < AC_LANES; i++)
            memcpy(v->repeated[k] + 3 * i, p[which[k]], 3 * sizeof(double));
    }
}

/* Operand k's values of the AC_LANES items from item `at`. */
AC_SIMD_FN void load24(const vectors3 *v, int k, size_t at, ac_vd x[3])
{
    const double *p = v->p[k] + 3 * at * v->step[k];
    for (int c = 0; c < 3; c++)
        x[c] = (ac_vd)_mm512_loadu_pd(p + 8 * c);
}

AC_SIMD_FN void store24(double *p, const ac_vd x[3])
{
    for (int c = 0; c < 3; c++)
        _mm512_storeu_pd(p + 8 * c, (__m512d)x[c]);
}

AC_SIMD_FN void spread3(ac_vd w, ac_vd out[3])
{
    out[0] = (ac_vd)_mm512_permutexvar_pd(AC_IDX(0, 0, 0, 1, 1, 1, 2, 2), (__m512d)w);
    out[1] = (ac_vd)_mm512_permutexvar_pd(AC_IDX(2, 3, 3, 3, 4, 4, 4, 5), (__m512d)w);
    out[2] = (ac_vd)_mm512_permutexvar_pd(AC_IDX(5, 5, 6, 6, 6, 7, 7, 7), (__m512d)w);
}

/* ac_blend_poses on `groups` groups of lanes from item i; 0 (nothing
   stored) unless every lane passed. */
AC_SIMD_FN int blend_groups(const vectors3 *v, const double *const p[6], const double *weight,
                            const double *mask, const size_t *s, size_t i, double *translation,
                            double *rotation, double *scale, int groups)
{
    ac_vd t[AC_GROUPS][3], sc[AC_GROUPS][3], a[AC_GROUPS][4], qa[AC_GROUPS][4];
    ac_vd qb[AC_GROUPS][4], r[AC_GROUPS][4], w[AC_GROUPS];
    ac_vm ok[AC_GROUPS], ends[2][AC_GROUPS], in_range[AC_GROUPS], all = ~(ac_vm){0};
    AC_EACH {
        size_t at = i + (size_t)g * AC_LANES;
        ac_vd x[4][3], w3[3];
        ok[g] = weight_ok(weight, mask, s, at, 1, &w[g]);
        spread3(w[g], w3);
        for (int k = 0; k < 4; k++)
            load24(v, k, at, x[k]), ok[g] &= ac_vd_finite(x[k], 3);
        for (int c = 0; c < 3; c++) {
            ac_vm zero = (ac_vm)(w3[c] == 0.0); /* a, bit for bit */
            t[g][c] = ac_vd_pick(zero, x[0][c], (1.0 - w3[c]) * x[0][c] + w3[c] * x[2][c]);
            sc[g][c] = ac_vd_pick(zero, x[1][c], (1.0 - w3[c]) * x[1][c] + w3[c] * x[3][c]);
        }
        ac_vd_load4(p[1] + 4 * at * s[1], s[1], a[g]);
        ac_vd_load4(p[4] + 4 * at * s[4], s[4], qb[g]);
        ok[g] &= unit_ok(a[g]) & unit_ok(qb[g]);
        memcpy(qa[g], a[g], sizeof qa[g]);
    }
    ac_vd_quat_normalize(qa, ends[0], groups);
    ac_vd_quat_normalize(qb, ends[1], groups);
    ac_vd_quat_slerp_any(qa, qb, w, r, in_range, groups);
    AC_EACH all &= ok[g] & ends[0][g] & ends[1][g] & in_range[g];
    if (ac_vm_any(~all))
        return 0;
    AC_EACH {
        size_t at = i + (size_t)g * AC_LANES;
        ac_vm zero = (ac_vm)(w[g] == 0.0);
        for (int k = 0; k < 4; k++)
            r[g][k] = ac_vd_pick(zero, a[g][k], r[g][k]);
        store24(translation + 3 * at, t[g]);
        ac_vd_store4(rotation + 4 * at, r[g]);
        store24(scale + 3 * at, sc[g]);
    }
    return 1;
}

/* ac_blend_make_additive on the AC_LANES items from item i; 0 (nothing
   stored) unless every lane passed. */
AC_SIMD_FN int make_group(const vectors3 *v, const double *const p[6], const size_t *s,
                          ac_blend_scale_mode mode, size_t i, double *translation,
                          double *rotation, double *scale)
{
    ac_vd x[4][3], a[4], b[4], t[3], sc[3], r[4];
    ac_vm ok = ~(ac_vm){0};
    for (int k = 0; k < 4; k++)
        load24(v, k, i, x[k]), ok &= ac_vd_finite(x[k], 3);
    ac_vd_load4(p[1] + 4 * i * s[1], s[1], a);
    ac_vd_load4(p[4] + 4 * i * s[4], s[4], b);
    ok &= unit_ok(a) & unit_ok(b);
    for (int c = 0; c < 3; c++) {
        t[c] = x[0][c] - x[2][c];
        if (mode != AC_BLEND_SCALE_ADD) {
            ok &= (ac_vm)(x[3][c] != 0.0);
            sc[c] = x[1][c] / x[3][c];
        } else {
            sc[c] = x[1][c] - x[3][c];
        }
    }
    ok &= ac_vd_finite(t, 3) & ac_vd_finite(sc, 3);
    if (ac_vm_any(~ok))
        return 0;
    for (int k = 0; k < 3; k++)
        b[k] = -b[k]; /* the conjugate */
    ac_vd_quat_mul(b, a, r);
    store24(translation + 3 * i, t);
    ac_vd_store4(rotation + 4 * i, r);
    store24(scale + 3 * i, sc);
    return 1;
}

/* ac_blend_apply_additive (not AC_BLEND_COMBINE) on `groups` groups of lanes
   from item i; 0 (nothing stored) unless every lane passed. The lanes take
   weights in [0, 1] and, with a multiplicative scale, no power to raise:
   a weight of 0 or 1 or a scale delta of 1. */
AC_SIMD_FN int apply_groups(const vectors3 *v, const double *const p[6], const double *weight,
                            const double *mask, const size_t *s, ac_blend_scale_mode mode,
                            size_t i, double *translation, double *rotation, double *scale,
                            int groups)
{
    ac_vd x[AC_GROUPS][4][3], a[AC_GROUPS][4], b[AC_GROUPS][4], identity[AC_GROUPS][4];
    ac_vd arc[AC_GROUPS][4], w[AC_GROUPS], w3[AC_GROUPS][3];
    ac_vd t[AC_GROUPS][3], sc[AC_GROUPS][3], r[AC_GROUPS][4];
    ac_vm ok[AC_GROUPS], ends[AC_GROUPS], in_range[AC_GROUPS], all = ~(ac_vm){0};
    AC_EACH {
        size_t at = i + (size_t)g * AC_LANES;
        ok[g] = weight_ok(weight, mask, s, at, 0, &w[g]) & (ac_vm)(w[g] >= 0.0) &
                (ac_vm)(w[g] <= 1.0);
        spread3(w[g], w3[g]);
        for (int k = 0; k < 4; k++)
            load24(v, k, at, x[g][k]), ok[g] &= ac_vd_finite(x[g][k], 3);
        for (int c = 0; mode != AC_BLEND_SCALE_ADD && c < 3; c++)
            ok[g] &= (ac_vm)(w3[g][c] == 0.0) | (ac_vm)(w3[g][c] == 1.0) |
                     (ac_vm)(x[g][3][c] == 1.0);
        ac_vd_load4(p[1] + 4 * at * s[1], s[1], a[g]);
        ac_vd_load4(p[4] + 4 * at * s[4], s[4], b[g]);
        ok[g] &= unit_ok(a[g]) & unit_ok(b[g]);
        /* slerp(identity, delta, w); the identity is its own normalization */
        for (int k = 0; k < 4; k++)
            identity[g][k] = ac_vd_splat(k == 3 ? 1.0 : 0.0);
        memcpy(r[g], b[g], sizeof r[g]);
    }
    ac_vd_quat_normalize(r, ends, groups);
    ac_vd_quat_slerp_any(identity, r, w, arc, in_range, groups);
    AC_EACH {
        ac_vm zero = (ac_vm)(w[g] == 0.0), full = (ac_vm)(w[g] == 1.0);
        for (int k = 0; k < 4; k++)
            arc[g][k] = ac_vd_pick(full, b[g][k], arc[g][k]);
        ac_vd_quat_mul(a[g], arc[g], r[g]);
        for (int k = 0; k < 4; k++)
            r[g][k] = ac_vd_pick(zero, a[g][k], r[g][k]); /* the base, bit for bit */
        for (int c = 0; c < 3; c++) {
            ac_vm z = (ac_vm)(w3[g][c] == 0.0);
            t[g][c] = ac_vd_pick(z, x[g][0][c], x[g][0][c] + w3[g][c] * x[g][2][c]);
            sc[g][c] = ac_vd_pick(z, x[g][1][c],
                                  mode == AC_BLEND_SCALE_ADD ? x[g][1][c] + w3[g][c] * x[g][3][c]
                                                             : x[g][1][c] * x[g][3][c]);
        }
        all &= ok[g] & ends[g] & in_range[g] & ac_vd_finite(t[g], 3) & ac_vd_finite(sc[g], 3);
    }
    if (ac_vm_any(~all))
        return 0;
    AC_EACH {
        size_t at = i + (size_t)g * AC_LANES;
        store24(translation + 3 * at, t[g]);
        ac_vd_store4(rotation + 4 * at, r[g]);
        store24(scale + 3 * at, sc[g]);
    }
    return 1;
}

/* Kernel `kind` on `groups` groups of lanes from item i (make_group takes
   one group at a time: 0 for more); 0 (nothing stored) unless every lane
   passed. */
AC_SIMD_FN int kind_groups(int kind, const vectors3 *v, const double *const p[6],
                           const double *weight, const double *mask, const size_t *s,
                           ac_blend_scale_mode mode, size_t i, double *translation,
                           double *rotation, double *scale, int groups)
{
    if (kind == BLEND)
        return blend_groups(v, p, weight, mask, s, i, translation, rotation, scale, groups);
    if (kind == APPLY)
        return apply_groups(v, p, weight, mask, s, mode, i, translation, rotation, scale,
                            groups);
    return groups == 1 && make_group(v, p, s, mode, i, translation, rotation, scale);
}

/* The items from `start` on that the lanes do (whole groups, while every
   lane passes) of kernel `kind`: 0 without AVX-512F. */
AC_SIMD_KERNEL size_t lanes(int kind, const double *const p[6], const double *weight,
                            const double *mask, const size_t *s, ac_blend_scale_mode mode,
                            double *translation, double *rotation, double *scale, size_t start,
                            size_t n)
{
    vectors3 v;
    size_t i = start;
    if (!ac_simd_available() || n - start < AC_LANES ||
        (kind == APPLY && mode == AC_BLEND_COMBINE))
        return 0;
    vectors3_init(&v, p, s);
    for (;;) {
        if (n - i >= AC_GROUPS * AC_LANES &&
            kind_groups(kind, &v, p, weight, mask, s, mode, i, translation, rotation, scale,
                        AC_GROUPS))
            i += AC_GROUPS * AC_LANES;
        else if (n - i >= AC_LANES &&
                 kind_groups(kind, &v, p, weight, mask, s, mode, i, translation, rotation,
                             scale, 1))
            i += AC_LANES;
        else
            return i - start;
    }
}
#endif

/* Items [start, start + m) of ac_blend_poses, m <= BLOCK: checked, then
   lerped and slerped a block at a time. */
static ac_status blend_block(const double *const p[6], const double *weight, const double *mask,
                             const size_t steps[8], double *translation, double *rotation,
                             double *scale, size_t start, size_t m, ac_error *err)
{
    double w[BLOCK];
    size_t slerp_steps[3] = {steps[1], steps[4], 1};
    if (!block_ok(p, weight, mask, steps, start, m, 1, w))
        for (size_t k = 0; k < m; k++) {
            const double *q[6];
            ac_status st = pose_pair(p, steps, start + k, err, q);
            if (st || (st = item_weight(weight, mask, steps, start + k, 1, err, w + k)))
                return st;
        }
    lerp3(p[0], p[3], steps[0], steps[3], w, start, m, translation);
    lerp3(p[2], p[5], steps[2], steps[5], w, start, m, scale);
    if (ac_quat_batch_slerp(p[1] + 4 * start * steps[1], p[4] + 4 * start * steps[4], w,
                            slerp_steps, rotation + 4 * start, m, err))
        return err ? err->status : AC_ERR_VALUE; /* not reached: checked above */
    for (size_t k = 0; k < m; k++)
        if (w[k] == 0.0) { /* a, bit for bit */
            const double *q[6];
            pose_at(p, steps, start + k, q);
            copy_pose(q, translation, rotation, scale, start + k);
        }
    return AC_OK;
}

/* Items [start, start + m) of ac_blend_make_additive. */
static ac_status make_block(const double *const p[6], const size_t steps[6],
                            ac_blend_scale_mode mode, double *translation, double *rotation,
                            double *scale, size_t start, size_t m, ac_error *err)
{
    for (size_t i = start; i < start + m; i++) {
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

/* Items [start, start + m) of ac_blend_apply_additive, m <= BLOCK. */
static ac_status apply_block(const double *const p[6], const double *weight, const double *mask,
                             const size_t steps[8], ac_blend_scale_mode mode,
                             double *translation, double *rotation, double *scale, size_t start,
                             size_t m, ac_error *err)
{
    static const double identity[4] = {0.0, 0.0, 0.0, 1.0};
    double w[BLOCK], u[BLOCK], arc[4 * BLOCK];
    size_t slerp_steps[3] = {0, steps[4], 1};
    int ok = block_ok(p, weight, mask, steps, start, m, 0, w);
    for (size_t k = 0; ok && k < m; k++)
        ok = scale_power_check(p[5] + 3 * (start + k) * steps[5], w[k], mode, 0, NULL) == AC_OK;
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
        ac_quat_batch_slerp(identity, p[4] + 4 * start * steps[4], u, slerp_steps, arc, m, err))
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
    return AC_OK;
}

/* Kernel `kind` over items [0, n): the lanes as far as they go, then a
   scalar block (which reports the first error, if any), and so on. */
static ac_status run(int kind, const double *const p[6], const double *weight,
                     const double *mask, const size_t *steps, ac_blend_scale_mode mode,
                     double *translation, double *rotation, double *scale, size_t n,
                     ac_error *err)
{
    static const size_t all_arrays[8] = {1, 1, 1, 1, 1, 1, 1, 1}; /* steps NULL */
    if (!steps)
        steps = all_arrays;
    for (size_t start = 0; start < n;) {
        size_t m;
        ac_status st;
#ifdef AC_SIMD
        start += lanes(kind, p, weight, mask, steps, mode, translation, rotation, scale, start, n);
        if (start == n)
            break;
#endif
        m = n - start < BLOCK ? n - start : BLOCK;
        st = kind == BLEND ? blend_block(p, weight, mask, steps, translation, rotation, scale,
                                         start, m, err)
             : kind == MAKE ? make_block(p, steps, mode, translation, rotation, scale, start, m,
                                         err)
                            : apply_block(p, weight, mask, steps, mode, translation, rotation,
                                          scale, start, m, err);
        if (st)
            return st;
        start += m;
    }
    return AC_OK;
}

ac_status ac_blend_poses(const double *a_translation, const double *a_rotation,
                         const double *a_scale, const double *b_translation,
                         const double *b_rotation, const double *b_scale, const double *weight,
                         const double *mask, const size_t steps[8], double *translation,
                         double *rotation, double *scale, size_t n, ac_error *err)
{
    const double *const p[6] = {a_translation, a_rotation, a_scale,
                                b_translation, b_rotation, b_scale};
    return run(BLEND, p, weight, mask, steps, AC_BLEND_SCALE_MULTIPLY, translation, rotation,
               scale, n, err);
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
    return run(MAKE, p, NULL, NULL, steps, mode, translation, rotation, scale, n, err);
}

ac_status ac_blend_apply_additive(const double *a_translation, const double *a_rotation,
                                  const double *a_scale, const double *b_translation,
                                  const double *b_rotation, const double *b_scale,
                                  const double *weight, const double *mask,
                                  const size_t steps[8], ac_blend_scale_mode mode,
                                  double *translation, double *rotation, double *scale, size_t n,
                                  ac_error *err)
{
    const double *const p[6] = {a_translation, a_rotation, a_scale,
                                b_translation, b_rotation, b_scale};
    return run(APPLY, p, weight, mask, steps, mode, translation, rotation, scale, n, err);
}
