/* Joint hierarchies: validated parents, an evaluation order with every joint
   after its parent, and forward kinematics (local TRS to world matrices) over
   many poses at once. Matrices are 4x4 row-major and act on column vectors. */
#include <stdlib.h>
#include <string.h>

#include "ac_internal.h"

struct ac_skeleton {
    size_t joints;
    int64_t *parents; /* joints, -1 for a root */
    size_t *order;    /* joints, parents first */
    ac_allocator mem; /* what the skeleton's blocks came from */
};

void ac_skeleton_destroy(ac_skeleton *skeleton)
{
    if (!skeleton)
        return;
    ac_allocator mem = skeleton->mem;
    ac_mem_release(&mem, skeleton->parents);
    ac_mem_release(&mem, skeleton->order);
    ac_mem_release(&mem, skeleton);
}

size_t ac_skeleton_joints(const ac_skeleton *skeleton) { return skeleton->joints; }

void ac_skeleton_order(const ac_skeleton *skeleton, int64_t *order)
{
    for (size_t j = 0; j < skeleton->joints; j++)
        order[j] = (int64_t)skeleton->order[j];
}

ac_status ac_skeleton_create(const int64_t *parents, size_t joints, ac_skeleton **skeleton,
                             const ac_allocator *allocator, ac_error *err)
{
    ac_skeleton *s;
    size_t *depth, *count, max_depth = 0;
    ac_status st = AC_OK;
    for (size_t j = 0; j < joints; j++)
        if (parents[j] < -1 || parents[j] >= (int64_t)joints)
            return ac_fail(err, AC_ERR_VALUE, j, AC_ARG_PARENTS, (double)parents[j],
                           "must be -1 (a root) or a joint index in [0, %zu)", joints);
    s = ac_mem_zeroed(allocator, 1, sizeof *s);
    depth = ac_mem_zeroed(allocator, joints, sizeof *depth); /* 0: unknown, else depth + 1 */
    count = ac_mem_zeroed(allocator, joints + 1, sizeof *count);
    if (s) {
        if (allocator)
            s->mem = *allocator;
        s->parents = ac_mem_zeroed(allocator, joints, sizeof *s->parents);
        s->order = ac_mem_zeroed(allocator, joints, sizeof *s->order);
    }
    if (!s || !depth || !count || !s->parents || !s->order) {
        st = ac_fail(err, AC_ERR_NOMEM, 0, AC_ARG_PARENTS, (double)joints,
                     "cannot allocate the skeleton");
        goto done;
    }
    if (joints) /* (parents may be NULL for none) */
        memcpy(s->parents, parents, joints * sizeof *parents);
    s->joints = joints;
    for (size_t j = 0; j < joints && !st; j++) {
        /* Walk up to a joint of known depth; more than `joints` steps is a cycle. */
        size_t steps = 0, a = j, d;
        while (depth[a] == 0 && parents[a] >= 0 && steps <= joints)
            a = (size_t)parents[a], steps++;
        if (steps > joints) { /* a is on the cycle after more than `joints` steps */
            st = ac_fail(err, AC_ERR_VALUE, a, AC_ARG_PARENTS, (double)parents[a],
                         "makes joint %zu its own ancestor (a cycle of parents has no "
                         "root)", a);
            break;
        }
        d = depth[a] ? depth[a] : 1;
        /* Assign depths back down the walked path. */
        {
            size_t b = j, up = steps;
            while (b != a) {
                depth[b] = d + up;
                b = (size_t)parents[b], up--;
            }
            depth[a] = d;
        }
    }
    if (st)
        goto done;
    for (size_t j = 0; j < joints; j++) {
        count[depth[j]]++;
        max_depth = depth[j] > max_depth ? depth[j] : max_depth;
    }
    /* Counting sort by depth, stable: parents first, file order within a level. */
    {
        size_t start = 0;
        for (size_t d = 0; d <= max_depth && d <= joints; d++) {
            size_t c = count[d];
            count[d] = start;
            start += c;
        }
        for (size_t j = 0; j < joints; j++)
            s->order[count[depth[j]]++] = j;
    }
done:
    ac_mem_release(allocator, depth);
    ac_mem_release(allocator, count);
    if (st)
        ac_skeleton_destroy(s);
    else
        *skeleton = s;
    return st;
}

/* The local 3x4 affine [R S | t] of one joint; 0 for a zero or non-finite
   rotation, or non-finite values in m. */
static int local_affine(const double t[3], const double q[4], const double s[3],
                        double m[12])
{
    double r[9];
    int finite = 1;
    if (!ac_quat_matrix3(q, r)) { /* |q|^2 under- or overflows: scale q first */
        double big = 0.0, u[4];
        for (int k = 0; k < 4; k++)
            big = fabs(q[k]) > big ? fabs(q[k]) : big;
        if (!(big > 0.0 && big <= DBL_MAX))
            return 0;
        for (int k = 0; k < 4; k++)
            u[k] = q[k] / big;
        if (!ac_quat_matrix3(u, r))
            return 0;
    }
    for (int row = 0; row < 3; row++) {
        m[4 * row + 0] = r[3 * row + 0] * s[0];
        m[4 * row + 1] = r[3 * row + 1] * s[1];
        m[4 * row + 2] = r[3 * row + 2] * s[2];
        m[4 * row + 3] = t[row];
    }
    for (int c = 0; c < 12; c++) /* catches non-finite translations and scales */
        finite &= ac_finite(m[c]);
    return finite;
}

/* out (4x4) = p (4x4 affine) * l (3x4 affine, implicit last row 0 0 0 1). */
static AC_FORCE_INLINE void affine_product(const double *restrict p, const double *restrict l,
                                           double *restrict out)
{
    for (int row = 0; row < 3; row++) {
        const double a = p[4 * row], b = p[4 * row + 1], c = p[4 * row + 2];
        out[4 * row + 0] = a * l[0] + b * l[4] + c * l[8];
        out[4 * row + 1] = a * l[1] + b * l[5] + c * l[9];
        out[4 * row + 2] = a * l[2] + b * l[6] + c * l[10];
        out[4 * row + 3] = a * l[3] + b * l[7] + c * l[11] + p[4 * row + 3];
    }
    out[12] = 0.0, out[13] = 0.0, out[14] = 0.0, out[15] = 1.0;
}

static ac_status joint_inputs(const double *t, const double *q, const double *s, size_t i,
                              ac_error *err)
{
    ac_status st;
    if ((st = ac_check_finite(AC_ARG_TRANSLATION, t, 3, i, err)) ||
        (st = ac_check_finite(AC_ARG_ROTATION, q, 4, i, err)) ||
        (st = ac_check_finite(AC_ARG_SCALE, s, 3, i, err)))
        return st;
    return ac_fail(err, AC_ERR_VALUE, i, AC_ARG_ROTATION_NORM, 0.0,
                   "must be > 0: a zero quaternion is no rotation");
}

/* One pose by the common case alone: every rotation with a plain
   ac_quat_matrix3 (|q|^2 neither under- nor overflowing) and finiteness
   checked once, on the world matrices, where any non-finite local value
   ends up (x * inf and 0 * inf are not finite). The locals are formed first,
   in place and joint after joint (no dependencies: they overlap), then
   multiplied down the hierarchy. The arithmetic is the one of local_affine
   and affine_product, so results are bitwise the same. Returns 0 when the
   pose needs world_pose. */
static AC_FORCE_INLINE int world_pose_fast(size_t joints, const int64_t *parents,
                                           const size_t *order, const double *t,
                                           const double *q, const double *s, double *w)
{
    double nonfinite = 0.0;
    int64_t plain = 1;
    for (size_t j = 0; j < joints; j++) {
        double r[9], *m = w + 16 * j;
        plain &= ac_quat_matrix3(q + 4 * j, r);
        for (int row = 0; row < 3; row++) {
            m[4 * row + 0] = r[3 * row + 0] * s[3 * j + 0];
            m[4 * row + 1] = r[3 * row + 1] * s[3 * j + 1];
            m[4 * row + 2] = r[3 * row + 2] * s[3 * j + 2];
            m[4 * row + 3] = t[3 * j + row];
        }
        m[12] = 0.0, m[13] = 0.0, m[14] = 0.0, m[15] = 1.0;
    }
    if (!plain)
        return 0;
    for (size_t k = 0; k < joints; k++) {
        size_t j = order[k];
        double *m = w + 16 * j;
        if (parents[j] >= 0) {
            double l[12];
            memcpy(l, m, sizeof l);
            affine_product(w + 16 * (size_t)parents[j], l, m);
        }
        { /* x - x: 0 for finite x, NaN otherwise; summed as a tree */
            double d[12], e[6];
            for (int c = 0; c < 12; c++)
                d[c] = m[c] - m[c];
            for (int c = 0; c < 6; c++)
                e[c] = d[c] + d[c + 6];
            nonfinite += ((e[0] + e[3]) + (e[1] + e[4])) + (e[2] + e[5]);
        }
    }
    return nonfinite == 0.0;
}

/* One pose with every check: tiny and huge rotations rescaled, the first
   bad joint (by index) or overflow reported. */
static ac_status world_pose(size_t joints, const int64_t *parents, const size_t *order,
                            const double *t, const double *q, const double *s, double *w,
                            size_t i, ac_error *err)
{
    for (size_t k = 0; k < joints; k++) {
        size_t j = order[k];
        double l[12];
        if (!local_affine(t + 3 * j, q + 4 * j, s + 3 * j, l)) {
            /* report the pose's first bad joint by index, not by evaluation order */
            for (size_t b = 0; b < joints; b++)
                if (!local_affine(t + 3 * b, q + 4 * b, s + 3 * b, l))
                    return joint_inputs(t + 3 * b, q + 4 * b, s + 3 * b, i * joints + b, err);
            return joint_inputs(t + 3 * j, q + 4 * j, s + 3 * j, i * joints + j, err);
        }
        if (parents[j] < 0) {
            memcpy(w + 16 * j, l, sizeof l);
            w[16 * j + 12] = 0.0, w[16 * j + 13] = 0.0, w[16 * j + 14] = 0.0;
            w[16 * j + 15] = 1.0;
        } else {
            double *m = w + 16 * j;
            int finite = 1;
            affine_product(w + 16 * (size_t)parents[j], l, m);
            for (int c = 0; c < 12; c++)
                finite &= ac_finite(m[c]);
            if (!finite)
                for (int c = 0; c < 12; c++)
                    if (!ac_finite(m[c]))
                        return ac_fail(err, AC_ERR_OVERFLOW, i * joints + j, AC_ARG_WORLD,
                                       m[c], "is not representable although the inputs are "
                                             "finite");
        }
    }
    return AC_OK;
}

static const size_t all_arrays[2] = {1, 1}; /* steps NULL: n items of each input */

/* r = a b of one pair of 4x4 matrices, each element its four products
   summed in order k = 0..3; 1 when every element is finite. */
static AC_FORCE_INLINE int matrix_product(const double *a, const double *b, double r[16])
{
    int64_t ok = 1;
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            r[4 * i + j] = ((a[4 * i] * b[j] + a[4 * i + 1] * b[4 + j]) +
                            a[4 * i + 2] * b[8 + j]) +
                           a[4 * i + 3] * b[12 + j];
    for (int c = 0; c < 16; c++)
        ok &= fabs(r[c]) <= DBL_MAX;
    return ok != 0;
}

/* The products of n pairs up to the first that is not finite, which is not
   written (out may be a or b: each pair is read before its product is
   written); returns how many were written. */
AC_VECTORIZED
static size_t matrix_products(const double *a, const double *b, const size_t s[2], double *out,
                              size_t n)
{
    for (size_t i = 0; i < n; i++) {
        double r[16];
        if (!matrix_product(a + 16 * i * s[0], b + 16 * i * s[1], r))
            return i;
        memcpy(out + 16 * i, r, sizeof r);
    }
    return n;
}

/* The error of the product a b of a finite a that matrix_product turned
   down: b (argument `arg`) not finite, or the product overflowing. */
static ac_status product_error(const double *a, const double *b, size_t index, ac_arg arg,
                               ac_error *err)
{
    double r[16];
    ac_status st = ac_check_finite(arg, b, 16, index, err);
    if (st)
        return st;
    (void)matrix_product(a, b, r);
    for (int c = 0; c < 16; c++)
        if (!ac_finite(r[c]))
            return ac_fail(err, AC_ERR_OVERFLOW, index, AC_ARG_PRODUCT, r[c],
                           "is not representable although the inputs are finite");
    return AC_OK;
}

/* Pose i: by the common case, else with every check; with bind, each
   joint's world matrix then times its bind matrix, in place. */
static AC_FORCE_INLINE ac_status world_one(const ac_skeleton *skeleton,
                                           const double *translation, const double *rotation,
                                           const double *scale, const double *bind,
                                           const size_t st[4], double *world, size_t i,
                                           ac_error *err)
{
    const size_t joints = skeleton->joints;
    const double *t = translation + 3 * joints * i * st[0];
    const double *q = rotation + 4 * joints * i * st[1];
    const double *s = scale + 3 * joints * i * st[2];
    double *w = world + 16 * joints * i;
    const double *b;
    size_t done;
    ac_status status = AC_OK;
    if (!world_pose_fast(joints, skeleton->parents, skeleton->order, t, q, s, w))
        status = world_pose(joints, skeleton->parents, skeleton->order, t, q, s, w, i, err);
    if (status || !bind)
        return status;
    b = bind + 16 * joints * i * st[3];
    if ((done = matrix_products(w, b, all_arrays, w, joints)) == joints)
        return AC_OK;
    /* the world matrix is finite: the bind matrix is not, or the product overflows */
    return product_error(w + 16 * done, b + 16 * done, i * joints + done, AC_ARG_BIND, err);
}

#ifdef AC_SIMD
/* ---- lanes: AC_LANES poses at a time, one per lane, with world_pose_fast's
   operations in the same order, so the results are bitwise the same: the
   locals of the joints, then their products in evaluation order, the block's
   matrices kept lane-major in a scratch area for the children's products.
   A lane that world_pose_fast would turn down is redone by the scalar path,
   which reports any error as it would have. In cache, 7-8 ns per joint and
   pose instead of 13-15 (24 and 200 joints). */

/* The `width` (3 or 4) values at p of AC_LANES poses `stride` values apart
   (0: one pose for all) as vectors of lanes. */
AC_SIMD_FN void load_lanes(const double *p, size_t stride, int width, ac_vd v[4])
{
    const __mmask8 mask = width == 4 ? 0x0F : 0x07; /* no read past a 3-value item */
    __m512d r[4];
    if (!stride) {
        for (int k = 0; k < width; k++)
            v[k] = ac_vd_splat(p[k]);
        return;
    }
    for (int k = 0; k < 4; k++) {
        __m512d odd = _mm512_maskz_loadu_pd(mask, p + (size_t)(2 * k + 1) * stride);
        r[k] = _mm512_insertf64x4(_mm512_maskz_loadu_pd(mask, p + (size_t)(2 * k) * stride),
                                  _mm512_castpd512_pd256(odd), 1);
    }
    ac_vd_untangle4(r, v);
}

/* The 4x4 matrices of the AC_LANES lanes whose rows are m (12 vectors of
   lanes, or 16 with `rows` 4; else the last row is 0 0 0 1), lane l's at
   p + l * stride: a row a store (whole vectors would straddle two cache
   lines each, NumPy's arrays starting 16 bytes into one). */
AC_SIMD_FN void store_lanes(double *p, size_t stride, const ac_vd *m, int rows)
{
    const __m512d last = _mm512_set_pd(1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0); /* 0 0 0 1 */
    ac_vd row[4];
    for (int r = 0; r < 4; r++) {
        if (r < rows)
            ac_vd_interleave4(m + 4 * r, row); /* row[k]: lanes 2k and 2k + 1 */
        for (int k = 0; k < 4; k++) {
            double *even = p + (size_t)(2 * k) * stride + 4 * r, *odd = even + stride;
            __m512d v = r < rows ? (__m512d)row[k] : last;
            _mm256_storeu_pd(even, _mm512_castpd512_pd256(v));
            _mm256_storeu_pd(odd, _mm512_extractf64x4_pd(v, 1));
        }
    }
}

/* The products of the lanes' world matrices m (12 vectors: the last row is
   0 0 0 1) and their bind matrices b (16), as matrix_product makes each
   one (the last row's zeros multiplied too: the signs of zeros), into x. */
AC_SIMD_FN void product_lanes(const ac_vd m[12], const ac_vd b[16], ac_vd x[16])
{
    const ac_vd zero = ac_vd_splat(0.0), one = ac_vd_splat(1.0);
    for (int r = 0; r < 4; r++) {
        const ac_vd a0 = r < 3 ? m[4 * r] : zero, a1 = r < 3 ? m[4 * r + 1] : zero,
                    a2 = r < 3 ? m[4 * r + 2] : zero, a3 = r < 3 ? m[4 * r + 3] : one;
        for (int c = 0; c < 4; c++)
            x[4 * r + c] = ((a0 * b[c] + a1 * b[4 + c]) + a2 * b[8 + c]) + a3 * b[12 + c];
    }
}

/* world_pose_fast on poses [i, i + AC_LANES), every lane written out, with
   scratch 12 vectors a joint; with bind, each world matrix times its bind
   matrix is written instead (world_one's). Returns the lanes it turns down
   (bit l: pose i + l). */
AC_SIMD_KERNEL unsigned world_lanes(const ac_skeleton *skeleton, const double *translation,
                                    const double *rotation, const double *scale,
                                    const double *bind, const size_t st[4], double *world,
                                    size_t i, void *scratch)
{
    const size_t joints = skeleton->joints;
    const size_t ts = 3 * joints * st[0], qs = 4 * joints * st[1], ss = 3 * joints * st[2];
    const size_t bs = 16 * joints * st[3];
    const double *t = translation + ts * i, *q = rotation + qs * i, *s = scale + ss * i;
    double *out = world + 16 * joints * i;
    ac_vd *w = scratch, nonfinite = ac_vd_splat(0.0);
    ac_vm ok = ~(ac_vm){0};
    /* the locals first, as in world_pose_fast */
    for (size_t j = 0; j < joints; j++) {
        ac_vd tv[4], qv[4], sv[4], n, f, r[9], *m = w + 12 * j;
        load_lanes(t + 3 * j, ts, 3, tv);
        load_lanes(q + 4 * j, qs, 4, qv);
        load_lanes(s + 3 * j, ss, 3, sv);
        { /* ac_quat_matrix3 */
            ac_vd xs, ys, zs, wx, wy, wz, xx, xy, xz, yy, yz, zz;
            n = qv[0] * qv[0] + qv[1] * qv[1] + qv[2] * qv[2] + qv[3] * qv[3];
            ok &= (ac_vm)(n >= 0x1p-960) & (ac_vm)(n <= DBL_MAX);
            f = 2.0 / n;
            xs = qv[0] * f, ys = qv[1] * f, zs = qv[2] * f;
            wx = qv[3] * xs, wy = qv[3] * ys, wz = qv[3] * zs;
            xx = qv[0] * xs, xy = qv[0] * ys, xz = qv[0] * zs;
            yy = qv[1] * ys, yz = qv[1] * zs, zz = qv[2] * zs;
            r[0] = 1.0 - (yy + zz), r[1] = xy - wz, r[2] = xz + wy;
            r[3] = xy + wz, r[4] = 1.0 - (xx + zz), r[5] = yz - wx;
            r[6] = xz - wy, r[7] = yz + wx, r[8] = 1.0 - (xx + yy);
        }
        for (int row = 0; row < 3; row++) {
            m[4 * row + 0] = r[3 * row + 0] * sv[0];
            m[4 * row + 1] = r[3 * row + 1] * sv[1];
            m[4 * row + 2] = r[3 * row + 2] * sv[2];
            m[4 * row + 3] = tv[row];
        }
    }
    for (size_t k = 0; k < joints; k++) {
        const size_t j = skeleton->order[k];
        const int64_t parent = skeleton->parents[j];
        ac_vd *m = w + 12 * j;
        if (parent >= 0) { /* affine_product, in registers */
            const ac_vd *p = w + 12 * (size_t)parent;
            ac_vd l[12], x[12];
            for (int c = 0; c < 12; c++)
                l[c] = m[c];
            for (int row = 0; row < 3; row++) {
                const ac_vd a = p[4 * row], b = p[4 * row + 1], c = p[4 * row + 2];
                x[4 * row + 0] = a * l[0] + b * l[4] + c * l[8];
                x[4 * row + 1] = a * l[1] + b * l[5] + c * l[9];
                x[4 * row + 2] = a * l[2] + b * l[6] + c * l[10];
                x[4 * row + 3] = a * l[3] + b * l[7] + c * l[11] + p[4 * row + 3];
            }
            for (int c = 0; c < 12; c++)
                m[c] = x[c];
        }
        { /* a sum of values, one not finite, is not finite: a cheaper test than
             world_pose_fast's that may only add lanes to redo (a sum that
             overflows) */
            ac_vd e[6], sum;
            for (int c = 0; c < 6; c++)
                e[c] = m[c] + m[c + 6];
            sum = ((e[0] + e[3]) + (e[1] + e[4])) + (e[2] + e[5]);
            nonfinite += sum - sum;
        }
        if (bind) {
            ac_vd b[16], x[16], e[8], sum;
            for (int r = 0; r < 4; r++)
                load_lanes(bind + bs * i + 16 * j + 4 * r, bs, 4, b + 4 * r);
            product_lanes(m, b, x);
            for (int c = 0; c < 8; c++)
                e[c] = x[c] + x[c + 8];
            sum = ((e[0] + e[4]) + (e[1] + e[5])) + ((e[2] + e[6]) + (e[3] + e[7]));
            nonfinite += sum - sum;
            store_lanes(out + 16 * j, 16 * joints, x, 4);
        } else {
            store_lanes(out + 16 * j, 16 * joints, m, 3);
        }
    }
    ok &= (ac_vm)(nonfinite == 0.0);
    return (unsigned)_mm512_test_epi64_mask((__m512i)~ok, (__m512i)~ok);
}
#endif

/* Joints whose lane scratch (12 vectors each, 24 KB) is on the stack; a
   larger skeleton's comes from its allocator, once a call. */
#define STACK_JOINTS 32

/* ac_skeleton_world, or with bind ac_skeleton_skin (static: the dispatched
   clones stay private) */
AC_VECTORIZED
static ac_status world_all(const ac_skeleton *skeleton, const double *translation,
                           const double *rotation, const double *scale, const double *bind,
                           const size_t st[4], double *world, size_t n, ac_error *err)
{
    ac_status status = AC_OK;
    size_t i = 0;
#ifdef AC_SIMD
    const size_t joints = skeleton->joints, vector = AC_LANES * sizeof(double);
    _Alignas(64) double stack[12 * AC_LANES * STACK_JOINTS];
    void *raw = NULL, *scratch = stack;
    if (n < AC_LANES || !joints || !ac_simd_available())
        scratch = NULL; /* the scalar path does all */
    else if (joints > STACK_JOINTS) {
        raw = joints < SIZE_MAX / (12 * vector) - 1
                  ? ac_mem_alloc(&skeleton->mem, (12 * joints + 1) * vector)
                  : NULL;
        scratch = raw ? (char *)raw + (vector - (uintptr_t)raw % vector) % vector : NULL;
    }
    for (; scratch && n - i >= AC_LANES && !status; i += AC_LANES) {
        unsigned redo = world_lanes(skeleton, translation, rotation, scale, bind, st, world, i,
                                    scratch);
        for (size_t l = 0; redo && !status; l++, redo >>= 1)
            if (redo & 1)
                status = world_one(skeleton, translation, rotation, scale, bind, st, world,
                                   i + l, err);
    }
    ac_mem_release(&skeleton->mem, raw);
#endif
    for (; i < n && !status; i++)
        status = world_one(skeleton, translation, rotation, scale, bind, st, world, i, err);
    return status;
}

ac_status ac_skeleton_world(const ac_skeleton *skeleton, const double *translation,
                            const double *rotation, const double *scale,
                            const size_t steps[3], double *world, size_t n, ac_error *err)
{
    const size_t st[4] = {steps ? steps[0] : 1, steps ? steps[1] : 1, steps ? steps[2] : 1, 0};
    return world_all(skeleton, translation, rotation, scale, NULL, st, world, n, err);
}

ac_status ac_skeleton_skin(const ac_skeleton *skeleton, const double *translation,
                           const double *rotation, const double *scale, const double *bind,
                           const size_t steps[4], double *out, size_t n, ac_error *err)
{
    static const size_t all[4] = {1, 1, 1, 1};
    return world_all(skeleton, translation, rotation, scale, bind, steps ? steps : all, out, n,
                     err);
}

/* The largest cosine between two columns of a matrix that decompose takes
   as unsheared: 2^-16 (128 units of float32's epsilon), so that matrices and
   rest poses rounded to float32 (every Blender export: bone scales of
   0.99999994, glTF node matrices; MotionBuilder's scales a dozen units off 1)
   and the world transforms composed from them along a chain decompose (a
   MotionBuilder mocap's fingertip reaches a cosine of 1e-6), while a real
   shear is still refused (a 1% non-uniform scale above a bone turned 45
   degrees gives a cosine of 0.005; 1e-4 is a skew of 0.006 degrees). */
#define AC_SHEAR_TOLERANCE 0x1p-16

/* The inverse of a 4x4 affine matrix; 0 when its 3x3 part is singular. Each
   column of the 3x3 part is first divided by a power of two near its largest
   component (inv(A D) = D^-1 inv(A)), so that the determinant neither
   overflows nor underflows however large or small the scales are (diag(1e308)
   and diag(1e-300) are as regular as the identity): the test is on the
   columns' directions, not their lengths. Powers of two: where nothing
   overflows or underflows these are the unscaled computation's bits. */
static int affine_inverse(const double *m, double out[16])
{
    double a[9], det, inv[9];
    int shift[3];
    for (int c = 0; c < 3; c++) {
        double big = 0.0;
        for (int r = 0; r < 3; r++)
            big = fabs(m[4 * r + c]) > big ? fabs(m[4 * r + c]) : big;
        if (!(big > 0.0))
            return 0; /* a zero column */
        shift[c] = ilogb(big);
        for (int r = 0; r < 3; r++)
            a[3 * r + c] = ldexp(m[4 * r + c], -shift[c]);
    }
    inv[0] = a[4] * a[8] - a[5] * a[7];
    inv[1] = a[2] * a[7] - a[1] * a[8];
    inv[2] = a[1] * a[5] - a[2] * a[4];
    inv[3] = a[5] * a[6] - a[3] * a[8];
    inv[4] = a[0] * a[8] - a[2] * a[6];
    inv[5] = a[2] * a[3] - a[0] * a[5];
    inv[6] = a[3] * a[7] - a[4] * a[6];
    inv[7] = a[1] * a[6] - a[0] * a[7];
    inv[8] = a[0] * a[4] - a[1] * a[3];
    det = a[0] * inv[0] + a[1] * inv[3] + a[2] * inv[6];
    if (!(det != 0.0) || !ac_finite(det))
        return 0;
    for (int r = 0; r < 3; r++) {
        double tr = 0.0;
        for (int c = 0; c < 3; c++) {
            out[4 * r + c] = ldexp(inv[3 * r + c] / det, -shift[r]);
            tr += out[4 * r + c] * m[4 * c + 3];
        }
        out[4 * r + 3] = -tr;
    }
    out[12] = 0.0, out[13] = 0.0, out[14] = 0.0, out[15] = 1.0;
    return 1;
}

ac_status ac_skeleton_local(const ac_skeleton *skeleton, const double *world, double *local,
                            size_t n, ac_error *err)
{
    const size_t joints = skeleton->joints;
    for (size_t i = 0; i < n; i++) {
        const double *w = world + 16 * joints * i;
        double *l = local + 16 * joints * i;
        for (size_t c = 0; c < 16 * joints; c++)
            if (!ac_finite(w[c]))
                return ac_fail(err, AC_ERR_VALUE, i * joints + c / 16, AC_ARG_WORLD, w[c],
                               "must be finite");
        for (size_t j = 0; j < joints; j++) {
            int64_t p = skeleton->parents[j];
            double inv[16];
            if (p < 0) {
                memcpy(l + 16 * j, w + 16 * j, 16 * sizeof *w);
                continue;
            }
            if (!affine_inverse(w + 16 * (size_t)p, inv))
                return ac_fail(err, AC_ERR_VALUE, i * joints + (size_t)p, AC_ARG_WORLD, 0.0,
                               "must be invertible: the parent of joint %zu has a singular "
                               "3x3 part", j);
            affine_product(inv, w + 16 * j, l + 16 * j);
            for (int c = 0; c < 16; c++)
                if (!ac_finite(l[16 * j + c]))
                    return ac_fail(err, AC_ERR_OVERFLOW, i * joints + j, AC_ARG_LOCAL,
                                   l[16 * j + c],
                                   "is not representable although the inputs are finite");
        }
    }
    return AC_OK;
}

ac_status ac_skeleton_multiply(const double *a, const double *b, const size_t steps[2],
                               double *out, size_t n, ac_error *err)
{
    const size_t *s = steps ? steps : all_arrays;
    const size_t i = matrix_products(a, b, s, out, n);
    const double *x, *y;
    ac_status st;
    if (i == n)
        return AC_OK;
    x = a + 16 * i * s[0], y = b + 16 * i * s[1];
    if ((st = ac_check_finite(AC_ARG_A, x, 16, i, err)))
        return st;
    return product_error(x, y, i, AC_ARG_B, err);
}

/* Elements within 2^510: products within 2^1020, sums of four within 2^1022. */
AC_VECTORIZED
static int matrix_pairs_ok(const double *a, const double *b, const size_t s[2], size_t n)
{
    return ac_pairs_within(a, b, 16, s, n, 0x1p510);
}

bool ac_skeleton_multiply_check(const double *a, const double *b, const size_t steps[2],
                                size_t n)
{
    return n == 0 || matrix_pairs_ok(a, b, steps ? steps : all_arrays, n);
}

ac_status ac_skeleton_decompose(const double *matrices, double *translation,
                                double *rotation, double *scale, size_t n, ac_error *err)
{
    for (size_t i = 0; i < n; i++) {
        const double *m = matrices + 16 * i;
        double col[3][3], len[3], r[9], det;
        ac_status st = ac_check_finite(AC_ARG_MATRIX, m, 16, i, err);
        if (st)
            return st;
        for (int c = 0; c < 4; c++)
            if (m[12 + c] != (c == 3 ? 1.0 : 0.0)) /* the first element off, and which */
                return ac_fail(err, AC_ERR_VALUE, i, AC_ARG_MATRIX, m[12 + c],
                               "must be affine: the last row must be 0 0 0 1; this is "
                               "its element [3, %d]", c);
        for (int c = 0; c < 3; c++) {
            for (int r2 = 0; r2 < 3; r2++)
                col[c][r2] = m[4 * r2 + c];
            len[c] = ac_length(col[c], 3); /* (scaled by the largest component: no overflow) */
            if (!(len[c] > 0.0))
                return ac_fail(err, AC_ERR_VALUE, i, AC_ARG_MATRIX, 0.0,
                               "has a zero column %d: a zero scale has no rotation", c);
            for (int r2 = 0; r2 < 3; r2++)
                col[c][r2] /= len[c];
        }
        for (int a = 0; a < 3; a++)
            for (int b = a + 1; b < 3; b++) {
                double dot = col[a][0] * col[b][0] + col[a][1] * col[b][1] +
                             col[a][2] * col[b][2];
                if (fabs(dot) > AC_SHEAR_TOLERANCE)
                    return ac_fail(err, AC_ERR_VALUE, i, AC_ARG_MATRIX, dot,
                                   "is sheared: columns %d and %d are not orthogonal (the "
                                   "value is their cosine)", a, b);
            }
        det = col[0][0] * (col[1][1] * col[2][2] - col[1][2] * col[2][1]) -
              col[1][0] * (col[0][1] * col[2][2] - col[0][2] * col[2][1]) +
              col[2][0] * (col[0][1] * col[1][2] - col[0][2] * col[1][1]);
        if (det < 0.0) { /* a mirror: carried by a negative x scale */
            len[0] = -len[0];
            for (int r2 = 0; r2 < 3; r2++)
                col[0][r2] = -col[0][r2];
        }
        for (int r2 = 0; r2 < 3; r2++)
            for (int c = 0; c < 3; c++)
                r[3 * r2 + c] = col[c][r2];
        st = ac_quat_batch_from_matrix(r, rotation + 4 * i, 1, err);
        if (st) {
            if (err)
                err->index = i;
            return st;
        }
        for (int k = 0; k < 3; k++) {
            translation[3 * i + k] = m[4 * k + 3];
            scale[3 * i + k] = len[k];
        }
    }
    return AC_OK;
}
