/* Quaternion batch kernels and rotation tracks with glTF semantics, built on
   the scalar helpers of ac_internal.h; rotation tracks locate their queries
   on the shared key track (ac_track.h). Quaternions are (x, y, z, w). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ac_internal.h"
#include "ac_track.h"

static const size_t all_arrays[3] = {1, 1, 1};

/* ------------------------------------------------------------ checks */

/* q / |q| by the one normalization (ac_normalize); 0 for a zero quaternion. */
static int unit4(const double q[4], double out[4]) { return ac_quat_normalize(q, out); }

/* A finite, non-zero quaternion `arg` made unit, or the error. */
static ac_status unit_arg(ac_arg arg, ac_arg length_arg, const double q[4],
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

static ac_status check_result(ac_arg arg, const double *x, int count, size_t i,
                              ac_error *err)
{
    for (int k = 0; k < count; k++)
        if (!ac_finite(x[k]))
            return ac_fail(err, AC_ERR_OVERFLOW, i, arg, x[k],
                           "is not representable although the inputs are finite");
    return AC_OK;
}

/* ------------------------------------------------------- batch kernels */

#ifdef AC_SIMD
/* Products of the first n items, n a multiple of AC_LANES; 1 when all are
   finite. Every value of a and b enters every component of its product, so
   a finite product also means finite factors. */
AC_SIMD_KERNEL int multiply_lanes(const double *a, const double *b, const size_t s[2],
                                  double *out, size_t n)
{
    ac_vm ok = ~(ac_vm){0};
    if (n * 4 * sizeof(double) >= AC_STREAM_BYTES && s[0] == 1 && s[1] == 1) {
        /* a long run: the loads asked for 8 KB ahead, the stores streamed */
        ac_stream stream;
        ac_stream_begin(&stream, out);
        for (size_t i = 0; i < n; i += AC_LANES) {
            ac_vd x[4], y[4], r[4], o[4];
            ac_prefetch4(a + 4 * i, 8192);
            ac_prefetch4(b + 4 * i, 8192);
            ac_vd_load4(a + 4 * i, 1, x);
            ac_vd_load4(b + 4 * i, 1, y);
            ac_vd_quat_mul(x, y, r);
            ok &= ac_vd_finite(r, 4);
            ac_vd_interleave4(r, o);
            for (int k = 0; k < 4; k++)
                ac_stream_put(&stream, o[k]);
        }
        ac_stream_end(&stream);
        return !ac_vm_any(~ok);
    }
    for (size_t i = 0; i < n; i += AC_LANES) {
        ac_vd x[4], y[4], r[4];
        ac_vd_load4(a + 4 * i * s[0], s[0], x);
        ac_vd_load4(b + 4 * i * s[1], s[1], y);
        ac_vd_quat_mul(x, y, r);
        ac_vd_store4(out + 4 * i, r);
        ok &= ac_vd_finite(r, 4);
    }
    return !ac_vm_any(~ok);
}
#endif

/* The lanes' share of n items: all but the last n % AC_LANES when the CPU
   has them and each of the `count` inputs is an array (step 1) or one item
   (step 0), else 0 (the scalar loops do everything). */
static size_t lane_items(size_t n, const size_t *s, int count)
{
    for (int k = 0; k < count; k++)
        if (s[k] > 1)
            return 0;
#ifdef AC_SIMD
    if (n >= AC_LANES && ac_simd_available())
        return n - n % AC_LANES;
#endif
    (void)n;
    return 0;
}

#ifdef AC_SIMD
/* Products of n items (steps 0 or 1) with AVX2, one item per vector; 1 when
   all are finite, which also means finite factors (see multiply_lanes). */
AC_SIMD4_KERNEL int multiply_avx2(const double *a, const double *b, const size_t s[2],
                                  double *out, size_t n)
{
    __m256d ok = _mm256_castsi256_pd(_mm256_set1_epi64x(-1));
    for (size_t i = 0; i < n; i++) {
        const __m256d r = ac_v4_quat_mul(a + 4 * i * s[0], _mm256_loadu_pd(b + 4 * i * s[1]));
        _mm256_storeu_pd(out + 4 * i, r);
        ok = _mm256_and_pd(ok, ac_v4_finite(r));
    }
    return _mm256_movemask_pd(ok) == 0xF;
}
#endif

ac_status ac_quat_batch_multiply(const double *a, const double *b, const size_t steps[2],
                                 double *out, size_t n, ac_error *err)
{
    const size_t *s = steps ? steps : all_arrays;
    size_t i = lane_items(n, s, 2);
#ifdef AC_SIMD
    if (i && !multiply_lanes(a, b, s, out, i))
        i = 0; /* a bad value: the scalar loop finds the first */
    if (!i && s[0] <= 1 && s[1] <= 1 && !ac_simd_available() && ac_simd4_available() &&
        multiply_avx2(a, b, s, out, n))
        return AC_OK; /* else a bad value: the scalar loop finds it */
#endif
    for (; i < n; i++) {
        const double *x = a + 4 * i * s[0], *y = b + 4 * i * s[1];
        ac_status st;
        if ((st = ac_check_finite(AC_ARG_A, x, 4, i, err)) || (st = ac_check_finite(AC_ARG_B, y, 4, i, err)))
            return st;
        ac_quat_mul(x, y, out + 4 * i);
        if ((st = check_result(AC_ARG_PRODUCT, out + 4 * i, 4, i, err)))
            return st;
    }
    return AC_OK;
}

/* ---- checks: one read-only pass that proves a kernel will succeed. Item i
   of an input of `width` values is at x + width * i * step, step 1 (n items)
   or 0 (one item shared by all). */

/* A finite non-zero quaternion (what normalizing accepts) or axis: a sum of
   magnitudes in (0, DBL_MAX] proves both (NaN fails the comparison). */
static AC_FORCE_INLINE int64_t unit_at(const void *q, size_t i)
{
    const double *p = (const double *)q + 4 * i;
    double sum = fabs(p[0]) + fabs(p[1]) + fabs(p[2]) + fabs(p[3]);
    return (sum > 0.0) & (sum <= DBL_MAX);
}

static AC_FORCE_INLINE int64_t axis_at(const void *axes, size_t i)
{
    const double *p = (const double *)axes + 3 * i;
    double sum = fabs(p[0]) + fabs(p[1]) + fabs(p[2]);
    return (sum > 0.0) & (sum <= DBL_MAX);
}

/* Every quaternion finite and not zero; a shared one alone. */
static AC_FORCE_INLINE int units_ok(const double *q, size_t step, size_t n)
{
    return ac_all_items(q, step ? n : 1, unit_at);
}

/* Components within 2^510 make every product of two at most 2^1020 and a
   component, a sum of four of them, at most 2^1022. */
AC_VECTORIZED
static int multiply_ok(const double *a, const double *b, const size_t s[2], size_t n)
{
    return ac_pairs_within(a, b, 4, s, n, 0x1p510);
}

bool ac_quat_batch_multiply_check(const double *a, const double *b, const size_t steps[2],
                                  size_t n)
{
    return n == 0 || multiply_ok(a, b, steps ? steps : all_arrays, n);
}

AC_VECTORIZED
static int unit_quats_ok(const double *q, size_t n) { return units_ok(q, 1, n); }

bool ac_quat_batch_unit_check(const double *q, size_t n) { return n == 0 || unit_quats_ok(q, n); }

/* A finite non-zero axis and a finite angle. */
AC_VECTORIZED
static int axis_angle_ok(const double *axis, const double *angle, const size_t s[2], size_t n)
{
    return ac_all_items(axis, s[0] ? n : 1, axis_at) &&
           ac_items_within(angle, 1, s[1], n, DBL_MAX);
}

bool ac_quat_batch_from_axis_angle_check(const double *axis, const double *angle,
                                         const size_t steps[2], size_t n)
{
    return n == 0 || axis_angle_ok(axis, angle, steps ? steps : all_arrays, n);
}

/* A unit-able q and a vector within 2^510, whose rotation stays finite. */
AC_VECTORIZED
static int rotate_ok(const double *q, const double *v, const size_t s[2], size_t n)
{
    return units_ok(q, s[0], n) && ac_items_within(v, 3, s[1], n, 0x1p510);
}

bool ac_quat_batch_rotate_check(const double *q, const double *v, const size_t steps[2],
                                size_t n)
{
    return n == 0 || rotate_ok(q, v, steps ? steps : all_arrays, n);
}

AC_VECTORIZED
static int lerp_ok(const double *q0, const double *q1, const double *t, const size_t s[3],
                   size_t n)
{
    return units_ok(q0, s[0], n) && units_ok(q1, s[1], n) &&
           ac_all_within(t, s[2] ? n : 1, 0.0, 1.0);
}

bool ac_quat_batch_lerp_check(const double *q0, const double *q1, const double *t,
                              const size_t steps[3], size_t n)
{
    return n == 0 || lerp_ok(q0, q1, t, steps ? steps : all_arrays, n);
}

AC_VECTORIZED
static int finite_ok(const double *x, size_t count)
{
    return ac_all_within(x, count, -DBL_MAX, DBL_MAX);
}

static int rotvecs_ok(const double *rotvec, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!(ac_length(rotvec + 3 * i, 3) <= DBL_MAX)) /* the angle |r| */
            return 0;
    return 1;
}

bool ac_quat_batch_from_rotvec_check(const double *rotvec, size_t n)
{
    return finite_ok(rotvec, 3 * n) && rotvecs_ok(rotvec, n);
}

ac_status ac_quat_batch_conjugate(const double *q, double *out, size_t n, ac_error *err)
{
    for (size_t i = 0; i < n; i++) {
        ac_status st = ac_check_finite(AC_ARG_Q, q + 4 * i, 4, i, err);
        if (st)
            return st;
        ac_quat_conj(q + 4 * i, out + 4 * i);
    }
    return AC_OK;
}

/* ---- the unit-quaternion kernels off the lanes: unit_arg's normalization
   of n contiguous quaternions and, by `kind`, the unit quaternion itself
   (4 values per item), its form as the slerp takes it (4), its rotation
   matrix (9) or the vector of v it rotates (3). A block at a time: its
   items read into one array per component first, so that the arithmetic,
   branch-free, runs in a loop that vectorizes. 1 when every quaternion (and
   vector) was finite, every quaternion non-zero and every result finite. */
enum { UNIT_NORMALIZE, UNIT_MATRIX, UNIT_ROTATE, UNIT_SLERP_FORM };

static AC_FORCE_INLINE int unit_items(int kind, const double *q, const double *v, double *out,
                                      size_t n)
{
    enum { BLOCK = 64 };
    const int width = kind == UNIT_MATRIX ? 9 : kind == UNIT_ROTATE ? 3 : 4;
    int64_t ok = 1;
    for (size_t i0 = 0; i0 < n; i0 += BLOCK) {
        const size_t nb = n - i0 < BLOCK ? n - i0 : BLOCK;
        double x[4][BLOCK], y[3][BLOCK], r[9][BLOCK];
        for (size_t l = 0; l < nb; l++) {
            for (int k = 0; k < 4; k++)
                x[k][l] = q[4 * (i0 + l) + k];
            for (int k = 0; kind == UNIT_ROTATE && k < 3; k++)
                y[k][l] = v[3 * (i0 + l) + k];
        }
        for (size_t l = 0; l < nb; l++) {
            double a[4], u[4], b[3], c[9];
            for (int k = 0; k < 4; k++)
                a[k] = x[k][l], ok &= ac_finite(a[k]);
            ok &= unit4(a, u);
            if (kind == UNIT_NORMALIZE)
                for (int k = 0; k < 4; k++)
                    c[k] = u[k];
            else if (kind == UNIT_SLERP_FORM)
                ac_slerp_arc_unit(u, 1, c);
            else if (kind == UNIT_MATRIX)
                ac_quat_matrix3(u, c);
            else {
                for (int k = 0; k < 3; k++)
                    b[k] = y[k][l], ok &= ac_finite(b[k]);
                ac_quat_rotate(u, b, c);
            }
            for (int k = 0; k < width; k++)
                r[k][l] = c[k], ok &= ac_finite(c[k]);
        }
        for (size_t l = 0; l < nb; l++)
            for (int k = 0; k < width; k++)
                out[width * (i0 + l) + (size_t)k] = r[k][l];
    }
    return ok != 0;
}

AC_VECTORIZED
static int normalize_items(const double *q, double *out, size_t n)
{
    return unit_items(UNIT_NORMALIZE, q, NULL, out, n);
}

/* Each quaternion made unit and then as the slerp takes a unit key
   (ac_slerp_arc_unit, after the unit4 that ac_slerp_arc_of does). */
AC_VECTORIZED
static int slerp_form_items(const double *q, double *out, size_t n)
{
    return unit_items(UNIT_SLERP_FORM, q, NULL, out, n);
}

AC_VECTORIZED
static int matrix_items(const double *q, double *out, size_t n)
{
    return unit_items(UNIT_MATRIX, q, NULL, out, n);
}

AC_VECTORIZED
static int rotate_items(const double *q, const double *v, double *out, size_t n)
{
    return unit_items(UNIT_ROTATE, q, v, out, n);
}

#ifdef AC_SIMD
/* unit4 of the first n items, n a multiple of AC_LANES; 1 when every lane
   was in ac_vd_quat_normalize's range. */
AC_SIMD_KERNEL int normalize_lanes(const double *q, double *out, size_t n)
{
    ac_vm ok = ~(ac_vm){0};
    for (size_t i = 0; i < n;) {
        const int groups = n - i >= AC_GROUPS * AC_LANES ? AC_GROUPS : 1;
        ac_vd u[AC_GROUPS][4];
        ac_vm unit[AC_GROUPS];
        for (int g = 0; g < groups; g++)
            ac_vd_load4(q + 4 * (i + (size_t)g * AC_LANES), 1, u[g]);
        if (groups == AC_GROUPS)
            ac_vd_quat_normalize(u, unit, AC_GROUPS);
        else
            ac_vd_quat_normalize(u, unit, 1);
        for (int g = 0; g < groups; g++) {
            ok &= unit[g];
            ac_vd_store4(out + 4 * (i + (size_t)g * AC_LANES), u[g]);
        }
        i += (size_t)groups * AC_LANES;
    }
    return !ac_vm_any(~ok);
}
#endif

ac_status ac_quat_batch_normalize(const double *q, double *out, size_t n, ac_error *err)
{
    size_t start = lane_items(n, all_arrays, 1);
#ifdef AC_SIMD
    if (start && !normalize_lanes(q, out, start))
        start = 0; /* an error or an extreme length: the scalar loop decides */
#endif
    if (!start && normalize_items(q, out, n))
        return AC_OK; /* else an error: the scalar loop finds the first */
    for (size_t i = start; i < n; i++) {
        ac_status st = unit_arg(AC_ARG_Q, AC_ARG_Q_NORM, q + 4 * i, out + 4 * i, i, err);
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
        if ((st = ac_check_finite(AC_ARG_AXIS, a, 3, i, err)) ||
            (st = ac_check_finite(AC_ARG_ANGLE, &theta, 1, i, err)))
            return st;
        if (!ac_normalize(a, 3, u))
            return ac_fail(err, AC_ERR_VALUE, i, AC_ARG_AXIS_NORM, 0.0,
                           "must be > 0: a zero axis has no direction");
        sh = sin(0.5 * theta);
        for (int k = 0; k < 3; k++)
            out[4 * i + k] = sh * u[k];
        out[4 * i + 3] = cos(0.5 * theta);
    }
    return AC_OK;
}

#ifdef AC_SIMD
/* Rotations of the first n items, n a multiple of AC_LANES; 1 when every
   quaternion normalized exactly as unit4 does (see ac_vd_quat_normalize) and
   every vector and result is finite. */
AC_SIMD_KERNEL int rotate_lanes(const double *q, const double *v, const size_t s[2],
                                double *out, size_t n)
{
    ac_vm ok = ~(ac_vm){0};
    for (size_t i = 0; i < n;) {
        const int groups = n - i >= AC_GROUPS * AC_LANES ? AC_GROUPS : 1;
        ac_vd u[AC_GROUPS][4], x[AC_GROUPS][3], r[3];
        ac_vm unit[AC_GROUPS];
        for (int g = 0; g < groups; g++) {
            size_t at = i + (size_t)g * AC_LANES;
            ac_vd_load4(q + 4 * at * s[0], s[0], u[g]);
            ac_vd_load3(v + 3 * at * s[1], s[1], x[g]);
        }
        if (groups == AC_GROUPS)
            ac_vd_quat_normalize(u, unit, AC_GROUPS);
        else
            ac_vd_quat_normalize(u, unit, 1);
        for (int g = 0; g < groups; g++) {
            ac_vd_quat_rotate(u[g], x[g], r);
            ac_vd_store3(out + 3 * (i + (size_t)g * AC_LANES), r);
            ok &= unit[g] & ac_vd_finite(x[g], 3) & ac_vd_finite(r, 3);
        }
        i += (size_t)groups * AC_LANES;
    }
    return !ac_vm_any(~ok);
}
#endif

ac_status ac_quat_batch_rotate(const double *q, const double *v, const size_t steps[2],
                               double *out, size_t n, ac_error *err)
{
    const size_t *s = steps ? steps : all_arrays;
    size_t i = lane_items(n, s, 2);
#ifdef AC_SIMD
    if (i && !rotate_lanes(q, v, s, out, i))
        i = 0; /* an error or an extreme length: the scalar loop decides */
#endif
    if (!i && s[0] == 1 && s[1] == 1 && rotate_items(q, v, out, n))
        return AC_OK; /* else an error: the scalar loop finds the first */
    for (; i < n; i++) {
        double u[4];
        const double *x = v + 3 * i * s[1];
        ac_status st;
        if ((st = unit_arg(AC_ARG_Q, AC_ARG_Q_NORM, q + 4 * i * s[0], u, i, err)) ||
            (st = ac_check_finite(AC_ARG_V, x, 3, i, err)))
            return st;
        ac_quat_rotate(u, x, out + 3 * i);
        if ((st = check_result(AC_ARG_ROTATED_VECTOR, out + 3 * i, 3, i, err)))
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
    if ((st = unit_arg(AC_ARG_Q0, AC_ARG_Q0_NORM, q0 + 4 * i * s[0], a, i, err)) ||
        (st = unit_arg(AC_ARG_Q1, AC_ARG_Q1_NORM, q1 + 4 * i * s[1], b, i, err)))
        return st;
    *u = t[i * s[2]];
    if (!ac_finite(*u))
        return ac_fail(err, AC_ERR_VALUE, i, AC_ARG_T, *u, "must be finite");
    if (!(*u >= 0.0 && *u <= 1.0))
        return ac_fail(err, AC_ERR_VALUE, i, AC_ARG_T, *u, "must lie in [0, 1]");
    return AC_OK;
}

/* ---- slerp: ac_quat_slerp_any (ac_internal.h) per element, branch-free so
   blocks vectorize. Elements with t outside [0, 1] or a squared length
   outside [1e-200, 1e200] (zero, non-finite, or extreme) make the block redo
   on the careful path, which calls the same slerp per element: a result
   never depends on which path its block took. */

/* Returns 1 when every element was in range (see ac_quat_slerp_any). */
static AC_FORCE_INLINE int slerp_block(const double *q0, const double *q1, const double *t,
                                       const size_t s[3], double *restrict out, size_t n)
{
    int64_t bad = 0;
    for (size_t i = 0; i < n; i++)
        bad |= ac_quat_slerp_any(q0 + 4 * i * s[0], q1 + 4 * i * s[1], t[i * s[2]], out + 4 * i) ^ 1;
    return !bad;
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

#ifdef AC_SIMD
/* Both ends normalized and slerped in lanes for the first n items, n a
   multiple of AC_LANES; 1 when every lane was in the range where it equals
   the scalar path (ac_vd_quat_normalize's and ac_quat_slerp_any's). */
AC_SIMD_KERNEL int slerp_lanes(const double *q0, const double *q1, const double *t,
                               const size_t s[3], double *out, size_t n)
{
    ac_vm ok = ~(ac_vm){0};
    for (size_t i = 0; i < n;) {
        /* AC_GROUPS groups of lanes at a time, then one */
        const int groups = n - i >= AC_GROUPS * AC_LANES ? AC_GROUPS : 1;
        ac_vd a[AC_GROUPS][4], b[AC_GROUPS][4], r[AC_GROUPS][4], u[AC_GROUPS];
        ac_vm ends[2][AC_GROUPS], in_range[AC_GROUPS];
        for (int g = 0; g < groups; g++) {
            size_t at = i + (size_t)g * AC_LANES;
            ac_vd_load4(q0 + 4 * at * s[0], s[0], a[g]);
            ac_vd_load4(q1 + 4 * at * s[1], s[1], b[g]);
            u[g] = ac_vd_load1(t + at * s[2], s[2]);
        }
        if (groups == AC_GROUPS) {
            ac_vd_quat_normalize(a, ends[0], AC_GROUPS);
            ac_vd_quat_normalize(b, ends[1], AC_GROUPS);
            ac_vd_quat_slerp_any(a, b, u, r, in_range, AC_GROUPS);
        } else {
            ac_vd_quat_normalize(a, ends[0], 1);
            ac_vd_quat_normalize(b, ends[1], 1);
            ac_vd_quat_slerp_any(a, b, u, r, in_range, 1);
        }
        for (int g = 0; g < groups; g++) {
            ok &= ends[0][g] & ends[1][g] & in_range[g];
            ac_vd_store4(out + 4 * (i + (size_t)g * AC_LANES), r[g]);
        }
        i += (size_t)groups * AC_LANES;
    }
    return !ac_vm_any(~ok);
}
#endif

/* Items [start, start + m) of a slerp, m <= 256, off the lanes. */
static ac_status slerp_items(const double *q0, const double *q1, const double *t,
                             const size_t s[3], double *out, size_t start, size_t m,
                             ac_error *err)
{
    double a[4 * 256], b[4 * 256];
    int ok = 1;
    /* Both ends normalized as quat_normalize and the snapshot buffers do
       (unit4), so every slerp of the package starts from the same unit
       quaternions; then the vectorized slerp of the block. */
    if (s[0] == 1 && s[1] == 1)
        ok = normalize_items(q0 + 4 * start, a, m) & normalize_items(q1 + 4 * start, b, m);
    else
        for (size_t i = 0; i < m; i++) {
            const double *x = q0 + 4 * (start + i) * s[0], *y = q1 + 4 * (start + i) * s[1];
            for (int k = 0; k < 4; k++)
                ok &= ac_finite(x[k]) & ac_finite(y[k]);
            if (ok && (i == 0 || s[0]))
                ok &= unit4(x, a + 4 * i * s[0]);
            if (ok && (i == 0 || s[1]))
                ok &= unit4(y, b + 4 * i * s[1]);
        }
    if (ok && slerp_fast(a, b, t + start * s[2], s, out + 4 * start, m))
        return AC_OK;
    /* the careful path: validates and reports the first error by index */
    for (size_t i = start; i < start + m; i++) {
        double x[4], y[4], u;
        ac_status st = lerp_inputs(q0, q1, t, s, i, x, y, &u, err);
        if (st)
            return st;
        ac_quat_slerp_any(x, y, u, out + 4 * i);
    }
    return AC_OK;
}

ac_status ac_quat_batch_slerp(const double *q0, const double *q1, const double *t,
                              const size_t steps[3], double *out, size_t n, ac_error *err)
{
    enum { BLOCK = 256 };
    const size_t *s = steps ? steps : all_arrays;
    for (size_t start = 0; start < n; start += BLOCK) {
        size_t m = n - start < BLOCK ? n - start : BLOCK, lanes = lane_items(m, s, 3);
        ac_status st;
#ifdef AC_SIMD
        if (lanes && !slerp_lanes(q0 + 4 * start * s[0], q1 + 4 * start * s[1],
                                  t + start * s[2], s, out + 4 * start, lanes))
            lanes = 0; /* the block again off the lanes */
#endif
        if (lanes < m && (st = slerp_items(q0, q1, t, s, out, start + lanes, m - lanes, err)))
            return st;
    }
    return AC_OK;
}

#ifdef AC_SIMD
/* nlerp of the first n items in lanes, n a multiple of AC_LANES; 1 when
   every lane was in range (ac_vd_quat_normalize's, t in [0, 1]). */
AC_SIMD_KERNEL int nlerp_lanes(const double *q0, const double *q1, const double *t,
                               const size_t s[3], double *out, size_t n)
{
    ac_vm ok = ~(ac_vm){0};
    for (size_t i = 0; i < n; i += AC_LANES) {
        ac_vd a[1][4], b[1][4], r[1][4], u = ac_vd_load1(t + i * s[2], s[2]), d, sign;
        ac_vm unit[3][1];
        ac_vd_load4(q0 + 4 * i * s[0], s[0], a[0]);
        ac_vd_load4(q1 + 4 * i * s[1], s[1], b[0]);
        ac_vd_quat_normalize(a, unit[0], 1);
        ac_vd_quat_normalize(b, unit[1], 1);
        d = a[0][0] * b[0][0] + a[0][1] * b[0][1] + a[0][2] * b[0][2] + a[0][3] * b[0][3];
        sign = ac_vd_pick((ac_vm)(d < 0.0), ac_vd_splat(-1.0), ac_vd_splat(1.0));
        for (int k = 0; k < 4; k++)
            r[0][k] = (1.0 - u) * a[0][k] + u * sign * b[0][k];
        ac_vd_quat_normalize(r, unit[2], 1);
        ok &= unit[0][0] & unit[1][0] & unit[2][0] & (ac_vm)(u >= 0.0) & (ac_vm)(u <= 1.0);
        ac_vd_store4(out + 4 * i, r[0]);
    }
    return !ac_vm_any(~ok);
}
#endif

ac_status ac_quat_batch_nlerp(const double *q0, const double *q1, const double *t,
                              const size_t steps[3], double *out, size_t n, ac_error *err)
{
    const size_t *s = steps ? steps : all_arrays;
    size_t i = lane_items(n, s, 3);
#ifdef AC_SIMD
    if (i && !nlerp_lanes(q0, q1, t, s, out, i))
        i = 0; /* an error or an extreme length: the scalar loop decides */
#endif
    for (; i < n; i++) {
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

/* A rotation curve is one block: this struct, then its arrays. */
struct ac_quat_curve {
    size_t k;
    ac_curve_interpolation interp;
    ac_curve_extrapolation before, after;
    const double *times; /* k (the caller's, borrowed, or the curve's copy) */
    const double *given; /* 4k: the keys as given (borrowed or copied) */
    /* 4k: unit and sign-continuous for step (and one key), the keys as given
       for cubic; NULL for linear, whose unit keys are made where they are
       needed (key_quat: the given key unit, negated where `flips` says) */
    const double *quats;
    unsigned char *flips; /* linear: k, 1 where the unit key lies negated */
    double *m0;    /* cubic: 4(k-1), out-tangent of key i times the interval */
    double *m1;    /* cubic: 4(k-1), in-tangent of key i+1 times the interval */
    /* linear: each key as the slerp takes it (ac_slerp_arc_unit of the unit
       key), 4k, and each segment's angle w and 1 / sinc(w), 2(k-1): with
       the keys, the slerp's key-only part (segment_arc) */
    double *keys;
    double *angles;
    int flip_odd;  /* cycle: the last key and the first lie in opposite hemispheres, so
                      odd cycles are negated to stay sign-continuous at each seam */
    int rates_finite; /* linear: every segment's omega is finite (keys not too close for
                         their rotation), so angular velocities inside cannot fail */
    ac_allocator mem; /* where the block came from */
};

size_t ac_quat_curve_keys(const ac_quat_curve *curve) { return curve->k; }
const double *ac_quat_curve_times(const ac_quat_curve *curve) { return curve->times; }
const double *ac_quat_curve_quats(const ac_quat_curve *curve) { return curve->given; }

/* Unit key i as the curve stores it: made unit as unit_arg makes it, and
   negated where sign continuity puts it in the other hemisphere. */
static AC_FORCE_INLINE void key_quat(const ac_quat_curve *c, size_t i, double q[4])
{
    if (c->quats) {
        memcpy(q, c->quats + 4 * i, 4 * sizeof(double));
        return;
    }
    unit4(c->given + 4 * i, q);
    for (int j = 0; j < 4; j++) /* (negation is exact) */
        q[j] = c->flips[i] ? -q[j] : q[j];
}

void ac_quat_curve_destroy(ac_quat_curve *curve)
{
    ac_allocator mem;
    if (!curve)
        return;
    mem = curve->mem;
    ac_mem_release(&mem, curve);
}

/* The slerp arc of a linear segment from its keys a, c (as the slerp takes
   them) and the angle w, inv stored at create: what ac_slerp_arc_of gives
   for its two unit keys, c brought into a's hemisphere. */
static AC_FORCE_INLINE void arc_of_keys(const double a[4], const double c[4], double w,
                                        double inv, ac_slerp_arc *arc)
{
    const double sign = ac_slerp_arc_sign(a, c);
    for (int k = 0; k < 4; k++)
        arc->a[k] = a[k], arc->c[k] = c[k] * sign;
    arc->w = w, arc->inv = inv;
}

/* arc_of_keys of linear segment j. */
static AC_FORCE_INLINE void segment_arc(const double *keys, const double *angles, size_t j,
                                        ac_slerp_arc *arc)
{
    arc_of_keys(keys + 4 * j, keys + 4 * j + 4, angles[2 * j], angles[2 * j + 1], arc);
}

/* The constant angular velocity of a linear segment of duration dt:
   q(u) = (c a*)^u a, so omega = 2 log(c a*) / dt, where the vector part of
   c a* is axis sin(w) and arc->inv = w / sin(w). (r 2 inv) / dt: a zero
   component stays 0 when keys too close make the others infinite. */
static AC_FORCE_INLINE void arc_omega(const ac_slerp_arc *s, double dt, double omega[3])
{
    const double scale = 2.0 * s->inv;
    /* the vector part of c a*, a* = (-a.xyz, a.w) */
    omega[0] = (s->a[3] * s->c[0] - s->c[3] * s->a[0] - (s->c[1] * s->a[2] - s->c[2] * s->a[1])) * scale / dt;
    omega[1] = (s->a[3] * s->c[1] - s->c[3] * s->a[1] - (s->c[2] * s->a[0] - s->c[0] * s->a[2])) * scale / dt;
    omega[2] = (s->a[3] * s->c[2] - s->c[3] * s->a[2] - (s->c[0] * s->a[1] - s->c[1] * s->a[0])) * scale / dt;
}

#ifdef AC_SIMD
/* segments_from's angles of segments [0, n), n a multiple of AC_LANES, in
   lanes (not their velocities): each lane does the scalar loop's operations
   in its order. */
AC_SIMD_KERNEL void segments_lanes(size_t n, const double *restrict keys,
                                   double *restrict angles)
{
    for (size_t i = 0; i < n;) {
        const int groups = n - i >= AC_GROUPS * AC_LANES ? AC_GROUPS : 1;
        ac_vd a[AC_GROUPS][4], c[AC_GROUPS][4], w[AC_GROUPS], inv[AC_GROUPS];
        AC_EACH ac_vd_load4(keys + 4 * (i + (size_t)g * AC_LANES), 1, a[g]);
        AC_EACH ac_vd_load4(keys + 4 * (i + (size_t)g * AC_LANES) + 4, 1, c[g]);
        ac_vd_slerp_arc_angle(a, c, w, inv, groups);
        for (int g = 0; g < groups; g++)
            for (int l = 0; l < AC_LANES; l++) {
                const size_t j = i + (size_t)g * AC_LANES + (size_t)l;
                angles[2 * j] = w[g][l], angles[2 * j + 1] = inv[g][l];
            }
        i += (size_t)groups * AC_LANES;
    }
}
#endif

/* linear_segments from segment i on: one branch-free loop, so that it
   vectorizes. */
AC_VECTORIZED
static int64_t segments_from(size_t i, const double *restrict times, size_t k,
                             const double *restrict keys, double *restrict angles)
{
    int64_t finite = 1;
    for (; i + 1 < k; i++) {
        ac_slerp_arc s;
        double omega[3];
        const double sign = ac_slerp_arc_sign(keys + 4 * i, keys + 4 * i + 4);
        for (int j = 0; j < 4; j++)
            s.a[j] = keys[4 * i + j], s.c[j] = keys[4 * i + 4 + j] * sign;
        ac_slerp_arc_angle(&s);
        angles[2 * i] = s.w, angles[2 * i + 1] = s.inv;
        arc_omega(&s, times[i + 1] - times[i], omega);
        finite &= ac_finite(omega[0]) & ac_finite(omega[1]) & ac_finite(omega[2]);
    }
    return finite;
}

/* Each linear segment's angle (the key-only part of every sample, as
   quat_slerp computes it for the two keys), from the keys as the slerp
   takes them; 1 when every segment's angular velocity is finite. In vector
   lanes where the CPU has them, unless an interval is tiny: the lanes leave
   out the velocities, finite elsewhere (the keys are unit and the angle at
   most pi/2, so |omega| <= 4 * 2 (pi/2) / dt, about 13 / dt, finite for
   dt >= 1e-300). */
static int linear_segments(const double *restrict times, size_t k,
                           const double *restrict keys, double *restrict angles)
{
    size_t start = k > 1 ? lane_items(k - 1, all_arrays, 1) : 0;
#ifdef AC_SIMD
    if (start && ac_track_shortest(times, k) >= 1e-300)
        segments_lanes(start, keys, angles);
    else
        start = 0;
#endif
    return (int)segments_from(start, times, k, keys, angles);
}

/* Each valid key made unit (ac_quat_normalize), as unit_arg makes it.
   Branch-free, so that it vectorizes. */
AC_VECTORIZED
static void unit_keys(const double *restrict quats, size_t k, double *restrict out)
{
    for (size_t i = 0; i < k; i++)
        unit4(quats + 4 * i, out + 4 * i);
}

/* 1 when every key is finite and non-zero (what unit_arg requires; it
   names the first that is not). Branch-free, so that it vectorizes. */
AC_VECTORIZED
static int keys_valid(const double *restrict quats, size_t k)
{
    int64_t ok = 1;
    for (size_t i = 0; i < k; i++) {
        const double *q = quats + 4 * i;
        ok &= ac_finite(q[0]) & ac_finite(q[1]) & ac_finite(q[2]) & ac_finite(q[3]);
        ok &= (q[0] != 0.0) | (q[1] != 0.0) | (q[2] != 0.0) | (q[3] != 0.0);
    }
    return (int)ok;
}

#ifdef AC_SIMD
/* slerp_keys of the first n items, n a multiple of AC_LANES, in lanes; 0
   when a lane was out of ac_vd_quat_normalize's range (the scalar loop then
   does them all). */
AC_SIMD_KERNEL int slerp_keys_lanes(const double *restrict quats, size_t n,
                                    double *restrict u, double *restrict keys)
{
    ac_vm ok = ~(ac_vm){0};
    for (size_t i = 0; i < n;) {
        const int groups = n - i >= AC_GROUPS * AC_LANES ? AC_GROUPS : 1;
        ac_vd q[AC_GROUPS][4], x[AC_GROUPS][4], na[AC_GROUPS], ia[AC_GROUPS];
        ac_vm unit[AC_GROUPS];
        AC_EACH ac_vd_load4(quats + 4 * (i + (size_t)g * AC_LANES), 1, q[g]);
        ac_vd_quat_normalize(q, unit, groups);
        AC_EACH ok &= unit[g];
        memcpy(x, q, sizeof x);
        ac_vd_quat_normalize(x, unit, groups);
        AC_EACH ok &= unit[g];
        AC_EACH na[g] = ac_vd_splat(0.0); /* ac_slerp_arc_unit(x, 1) */
        for (int k = 0; k < 4; k++) {
            AC_EACH na[g] = na[g] + x[g][k] * x[g][k];
        }
        ac_vd_rsqrt(na, ia, groups);
        for (int k = 0; k < 4; k++) {
            AC_EACH x[g][k] = x[g][k] * ia[g];
        }
        AC_EACH ac_vd_store4(u + 4 * (i + (size_t)g * AC_LANES), q[g]);
        AC_EACH ac_vd_store4(keys + 4 * (i + (size_t)g * AC_LANES), x[g]);
        i += (size_t)groups * AC_LANES;
    }
    return !ac_vm_any(~ok);
}
#endif

/* n valid keys (ac_quat_curve_validate's) made unit (as unit_arg does,
   into u) and each as the slerp takes it (ac_slerp_arc_of's scaling of the
   unit key normalized as quat_slerp normalizes it; in range: a unit key's
   |x|^2 is about 1), into keys. In vector lanes where the CPU has them,
   else in the block loops of quat_normalize (valid keys: no error). */
static void slerp_keys(const double *restrict quats, size_t n, double *restrict u,
                       double *restrict keys)
{
    size_t start = lane_items(n, all_arrays, 1);
#ifdef AC_SIMD
    if (start && !slerp_keys_lanes(quats, start, u, keys))
        start = 0; /* an extreme length: the loops below do them all */
#endif
    normalize_items(quats + 4 * start, u + 4 * start, n - start);
    slerp_form_items(u + 4 * start, keys + 4 * start, n - start);
}

/* The dot products of each unit key with the one before: dots[i] of u[i]
   and u[i + 1] (u: n + 1 keys). Branch-free, so that it vectorizes. */
AC_VECTORIZED
static void key_dots(const double *restrict u, size_t n, double *restrict dots)
{
    for (size_t i = 0; i < n; i++)
        dots[i] = ac_quat_dot4(u + 4 * i, u + 4 * i + 4);
}

/* keys[i] times signs[i], 1 or -1: negated exactly where -1. Branch-free,
   so that it vectorizes. */
AC_VECTORIZED
static void sign_keys(double *restrict keys, const double *restrict signs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (int j = 0; j < 4; j++)
            keys[4 * i + j] *= signs[i];
}

/* A linear curve's keys as the slerp takes them and the keys that sign
   continuity negates (flips): each unit key joins the hemisphere of the one
   before, its dot with the unit key before (as that one lies) negative;
   negating a key negates its slerp form exactly. In blocks, the unit keys
   of a block on the stack. */
static void linear_keys(const double *given, size_t k, double *keys, unsigned char *flips)
{
    enum { BLOCK = 256 };
    double u[4 * (BLOCK + 1)]; /* u[0..4): the block before's last unit key */
    double dots[BLOCK], signs[BLOCK];
    int flip = 0; /* flip: whether the key before lies negated */
    memset(u, 0, 4 * sizeof(double)); /* (the first block's: read by key_dots, not used) */
    for (size_t b = 0; b < k; b += BLOCK) {
        const size_t n = k - b < BLOCK ? k - b : BLOCK;
        slerp_keys(given + 4 * b, n, u + 4, keys + 4 * b);
        key_dots(u, n, dots);
        for (size_t i = 0; i < n; i++) {
            /* the key lies negated where its dot with the key before (as that
               one lies: the dot negated when that one is) is negative; the
               first key as it is */
            const int below = dots[i] < 0.0, above = dots[i] > 0.0;
            flip = (b + i > 0) & ((flip & above) | ((flip ^ 1) & below));
            flips[b + i] = (unsigned char)flip;
            signs[i] = 1.0 - 2.0 * flip;
        }
        sign_keys(keys + 4 * b, signs, n);
        memcpy(u, u + 4 * n, 4 * sizeof(double));
    }
}

/* The error of the first key that is not finite or is zero (unit_arg's). */
static ac_status check_keys(const double *quats, size_t k, ac_error *err)
{
    ac_status st = AC_OK;
    for (size_t i = 0, ok = keys_valid(quats, k); i < k && !ok && !st; i++) {
        double q[4];
        st = unit_arg(AC_ARG_QUATERNIONS, AC_ARG_QUATERNIONS_NORM, quats + 4 * i, q, i, err);
    }
    return st;
}

/* A cubic key's per-second tangent times the key interval dt, as the
   Hermite basis on the segment parameter takes it (glTF Appendix C); a zero
   tangent stays zero for any dt. */
static double scaled_tangent(double dt, double tangent)
{
    return tangent == 0.0 ? 0.0 : dt * tangent;
}

ac_status ac_quat_curve_validate(const double *times, const double *quats,
                                 const double *in_tangents, const double *out_tangents,
                                 size_t k, ac_curve_interpolation interp,
                                 ac_curve_extrapolation before, ac_curve_extrapolation after,
                                 ac_error *err)
{
    ac_status st;
    if (k < 1)
        return ac_fail(err, AC_ERR_VALUE, 0, AC_ARG_TIMES, 0.0, "needs at least one key");
    if ((unsigned)interp > AC_CURVE_CUBIC)
        return ac_fail(err, AC_ERR_VALUE, 0, AC_ARG_INTERPOLATION, (double)interp,
                       "must be AC_CURVE_STEP, AC_CURVE_LINEAR or AC_CURVE_CUBIC");
    for (int end = 0; end < 2; end++) {
        ac_curve_extrapolation mode = end ? after : before;
        if (mode != AC_EXTRAP_CLAMP && mode != AC_EXTRAP_LINEAR && mode != AC_EXTRAP_CYCLE &&
            mode != AC_EXTRAP_OSCILLATE && mode != AC_EXTRAP_ERROR)
            return ac_fail(err, AC_ERR_VALUE, 0, end ? AC_ARG_AFTER : AC_ARG_BEFORE, (double)mode,
                           "must be AC_EXTRAP_CLAMP, _LINEAR, _CYCLE, _OSCILLATE or _ERROR "
                           "(the modes that apply to rotations)");
    }
    if (interp == AC_CURVE_CUBIC && (!in_tangents || !out_tangents))
        return ac_fail(err, AC_ERR_VALUE, 0, in_tangents ? AC_ARG_OUT_TANGENTS : AC_ARG_IN_TANGENTS, 0.0,
                       "are required for cubic interpolation");
    for (size_t i = 0, sorted = ac_track_increasing(times, k); i < k && !sorted; i++) {
        if ((st = ac_check_finite(AC_ARG_TIMES, times + i, 1, i, err)))
            return st;
        if (i > 0 && !(times[i] > times[i - 1]))
            return ac_fail(err, AC_ERR_VALUE, i, AC_ARG_TIMES, times[i],
                           "must be > times[%zu]=%.15g: key times strictly increase", i - 1,
                           times[i - 1]);
    }
    if ((st = check_keys(quats, k, err)))
        return st;
    if (k > SIZE_MAX / 128)
        return ac_fail(err, AC_ERR_NOMEM, 0, AC_ARG_TIMES, (double)k, "too many keys");
    if (interp != AC_CURVE_CUBIC)
        return AC_OK;
    for (size_t i = 0; i < k; i++)
        if ((st = ac_check_finite(AC_ARG_IN_TANGENTS, in_tangents + 4 * i, 4, i, err)) ||
            (st = ac_check_finite(AC_ARG_OUT_TANGENTS, out_tangents + 4 * i, 4, i, err)))
            return st;
    for (size_t i = 0; i + 1 < k; i++) {
        double dt = times[i + 1] - times[i], m0[4], m1[4];
        for (int j = 0; j < 4; j++) {
            m0[j] = scaled_tangent(dt, out_tangents[4 * i + j]);
            m1[j] = scaled_tangent(dt, in_tangents[4 * (i + 1) + j]);
        }
        if ((st = check_result(AC_ARG_OUT_TANGENTS, m0, 4, i, err)) ||
            (st = check_result(AC_ARG_IN_TANGENTS, m1, 4, i + 1, err)))
            return st;
    }
    return AC_OK;
}

/* ac_quat_curve_create, reading times and quats in place when `borrow`. */
static ac_status make(const double *times, const double *quats, const double *in_tangents,
                      const double *out_tangents, size_t k, ac_curve_interpolation interp,
                      ac_curve_extrapolation before, ac_curve_extrapolation after, int borrow,
                      ac_quat_curve **result, const ac_allocator *allocator, ac_error *err)
{
    ac_quat_curve *c;
    size_t doubles;
    double *d, *unit = NULL;
    int linear = interp == AC_CURVE_LINEAR && k > 1;
    ac_status st = ac_quat_curve_validate(times, quats, in_tangents, out_tangents, k, interp,
                                          before, after, err);
    if (st)
        return st;
    /* One block: times and the keys as given (unless borrowed); step: the
       unit keys; cubic: m0, m1; linear: the slerp keys, angles and flips. */
    doubles = (borrow ? 0 : 5 * k) + (interp == AC_CURVE_STEP || k == 1 ? 4 * k : 0) +
              (k > 1 && interp == AC_CURVE_CUBIC ? 8 * (k - 1) : 0) +
              (linear ? 4 * k + 2 * (k - 1) : 0);
    c = ac_mem_alloc(allocator, sizeof *c + doubles * sizeof(double) + (linear ? k : 0));
    if (!c)
        return ac_fail(err, AC_ERR_NOMEM, 0, AC_ARG_TIMES, (double)k, "out of memory");
    memset(c, 0, sizeof *c);
    c->k = k, c->interp = interp, c->before = before, c->after = after;
    if (allocator)
        c->mem = *allocator;
    d = (double *)(c + 1);
    if (borrow) {
        c->times = times, c->given = quats;
    } else {
        memcpy(d, times, k * sizeof(double));
        c->times = d, d += k;
        memcpy(d, quats, 4 * k * sizeof(double));
        c->given = d, d += 4 * k;
    }
    if (interp == AC_CURVE_STEP || k == 1)
        c->quats = unit = d, d += 4 * k;
    if (interp == AC_CURVE_CUBIC) {
        /* glTF Appendix C splines the stored values and normalizes only the
           result, so keys that are not exactly unit (float32) stay as given. */
        if (k > 1) {
            c->quats = c->given;
            c->m0 = d, d += 4 * (k - 1);
            c->m1 = d, d += 4 * (k - 1);
        }
        /* glTF Appendix C: tangents are per second; the Hermite basis on the
           segment parameter takes them times the key interval. */
        for (size_t i = 0; i + 1 < k; i++) {
            double dt = times[i + 1] - times[i];
            for (int j = 0; j < 4; j++) {
                c->m0[4 * i + j] = scaled_tangent(dt, out_tangents[4 * i + j]);
                c->m1[4 * i + j] = scaled_tangent(dt, in_tangents[4 * (i + 1) + j]);
            }
        }
    }
    if (unit) {
        /* the keys made unit, then sign continuity: each unit key joins the
           hemisphere of the one before (the same rotation), so the result
           never jumps from q to -q along the curve, at a key included (cubic
           keys are splined as given: glTF) */
        unit_keys(quats, k, unit);
        for (size_t i = 1; i < k && interp != AC_CURVE_CUBIC; i++)
            if (ac_quat_dot4(unit + 4 * (i - 1), unit + 4 * i) < 0.0)
                for (int j = 0; j < 4; j++)
                    unit[4 * i + j] = -unit[4 * i + j];
        if (k == 1 && interp == AC_CURVE_CUBIC)
            memcpy(unit, quats, 4 * sizeof(double));
    }
    c->rates_finite = 1;
    if (linear) { /* each key normalized once */
        c->keys = d, d += 4 * k;
        c->angles = d, d += 2 * (k - 1);
        c->flips = (unsigned char *)d;
        linear_keys(c->given, k, c->keys, c->flips);
        c->rates_finite = linear_segments(c->times, k, c->keys, c->angles);
    }
    if (k > 1) {
        double last[4], first[4];
        key_quat(c, k - 1, last);
        key_quat(c, 0, first);
        unit4(last, last);
        unit4(first, first);
        c->flip_odd = ac_quat_dot4(last, first) < 0.0;
    }
    *result = c;
    return AC_OK;
}

ac_status ac_quat_curve_create(const double *times, const double *quats,
                               const double *in_tangents, const double *out_tangents,
                               size_t k, ac_curve_interpolation interp,
                               ac_curve_extrapolation before, ac_curve_extrapolation after,
                               ac_quat_curve **result,
                               const ac_allocator *allocator, ac_error *err)
{
    return make(times, quats, in_tangents, out_tangents, k, interp, before, after, 0, result,
                allocator, err);
}

ac_status ac_quat_curve_borrow(const double *times, const double *quats,
                               const double *in_tangents, const double *out_tangents,
                               size_t k, ac_curve_interpolation interp,
                               ac_curve_extrapolation before, ac_curve_extrapolation after,
                               ac_quat_curve **result,
                               const ac_allocator *allocator, ac_error *err)
{
    return make(times, quats, in_tangents, out_tangents, k, interp, before, after, 1, result,
                allocator, err);
}

/* omega = 2 (dq/dt) q*, the vector part (q unit, so the scalar part is 0). */
static void angular_velocity(const double q[4], const double dq[4], double omega[3])
{
    double conj[4], r[4];
    ac_quat_conj(q, conj);
    ac_quat_mul(dq, conj, r);
    omega[0] = 2.0 * r[0], omega[1] = 2.0 * r[1], omega[2] = 2.0 * r[2];
}

/* One sample at a time in [first, last] on a side: q, and dq/dt (0 for
   step, whose left side at a key is the key before). */
static ac_status sample(const ac_quat_curve *c, double t, size_t seg, int side, size_t i,
                        double q[4], double omega[3], ac_error *err)
{
    const double *a = c->quats ? c->quats + 4 * seg : NULL, *b = a ? a + 4 : NULL;
    double t0 = c->times[seg], t1 = c->times[seg + 1], dt = t1 - t0, u;
    /* keys more than DBL_MAX apart: the same ratio on halves */
    u = ac_finite(dt) ? (t - t0) / dt : (0.5 * t - 0.5 * t0) / (0.5 * t1 - 0.5 * t0);
    u = u < 0.0 ? 0.0 : u > 1.0 ? 1.0 : u;
    omega[0] = omega[1] = omega[2] = 0.0;
    switch (c->interp) {
    case AC_CURVE_STEP:
        memcpy(q, side == AC_SIDE_RIGHT && t >= c->times[seg + 1] ? b : a, 4 * sizeof(double));
        return AC_OK;
    case AC_CURVE_LINEAR: {
        ac_slerp_arc arc;
        segment_arc(c->keys, c->angles, seg, &arc);
        if (u >= 1.0) /* the last key itself, not its negation */
            key_quat(c, seg + 1, q);
        else /* what quat_slerp gives for the two keys */
            ac_slerp_arc_at(&arc, u, q);
        arc_omega(&arc, dt, omega);
        return AC_OK;
    }
    default: { /* cubic */
        const double *m0 = c->m0 + 4 * seg, *m1 = c->m1 + 4 * seg;
        double p[4], dp[4], m = 0.0, keys = 0.0, len = 0.0, dq[4], proj;
        for (int k = 0; k < 4; k++) {
            ac_hermite_unit(u, a[k], m0[k], b[k], m1[k], &p[k], &dp[k]);
            dp[k] /= dt;
            m = fabs(p[k]) > m ? fabs(p[k]) : m;
            keys = fmax(keys, fmax(fabs(a[k]), fabs(b[k])));
        }
        if (!ac_finite(m))
            return ac_fail(err, AC_ERR_OVERFLOW, i, AC_ARG_T, t,
                           "is where the cubic spline's value is not representable");
        /* relative to the keys, so that keys of any magnitude are fine */
        if (!(m > 1e-150 * keys) || !ac_quat_normalize(p, q))
            return ac_fail(err, AC_ERR_VALUE, i, AC_ARG_T, t,
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

/* "linear" extrapolation: the end key q turned on at its angular velocity
   w for dt seconds, exp(w dt / 2) q (w is in the frame q rotates into, so
   the turn applies on the left). */
static ac_status turn_on(double q[4], const double w[3], double dt, size_t i, ac_error *err)
{
    double v[3], r[4];
    for (int k = 0; k < 3; k++)
        v[k] = w[k] * dt;
    /* the angle itself not representable; from_rotvec fails only for a
       non-finite vector, so never after that check */
    if (check_result(AC_ARG_ROTATION, v, 3, i, err) || ac_quat_batch_from_rotvec(v, r, 1, NULL))
        return AC_ERR_OVERFLOW;
    ac_quat_mul(r, q, q);
    ac_quat_normalize(q, q);
    return AC_OK;
}

/* The curve's key times and extrapolation as the shared track sees them. */
static ac_track track_of(const ac_quat_curve *c)
{
    ac_track tr = {c->k, c->times, c->before, c->after};
    return tr;
}

/* Query i, one at a time: located by the shared track (cursor in *hint),
   then sampled. */
static ac_status eval_one(const ac_quat_curve *c, const double *t, size_t i, int side,
                          size_t *hint, double *q, double *omega, ac_error *err)
{
    const ac_track tr = track_of(c);
    ac_track_point p;
    double rq[4] = {0.0, 0.0, 0.0, 1.0}, w[3] = {0.0, 0.0, 0.0}, sign = 1.0, flip = 1.0;
    ac_status st = ac_track_locate(&tr, t[i], side, i, hint, &p, err);
    if (st)
        return st;
    if (c->k == 1) {
        ac_quat_normalize(c->quats, rq);
    } else {
        size_t k = c->k, seg = p.segment;
        double local = p.time;
        int at = p.side, hold = p.where == AC_TRACK_HOLD;
        if (p.where != AC_TRACK_INSIDE) { /* an end key: its inner segment */
            seg = p.after ? k - 2 : 0, local = c->times[p.key];
            /* held and "linear": the key itself (with the rate of its inner
               segment); "error" at the key: the side inside */
            at = p.after && p.where == AC_TRACK_END ? AC_SIDE_LEFT : AC_SIDE_RIGHT;
        }
        if ((st = sample(c, local, seg, at, i, rq, w, err)))
            return st;
        if (p.where == AC_TRACK_LINE && (st = turn_on(rq, w, t[i] - c->times[p.key], i, err)))
            return st;
        sign = p.mirrored ? -1.0 : 1.0;
        /* the cycles negated to stay sign-continuous at the seams */
        flip = c->flip_odd && p.mode == AC_EXTRAP_CYCLE && p.odd ? -1.0 : 1.0;
        for (int r = 0; r < 3; r++)
            w[r] = hold ? 0.0 : sign * w[r];
        for (int r = 0; r < 4; r++) /* -q is the same rotation: omega is unchanged */
            rq[r] *= flip;
    }
    if (omega && (st = check_result(AC_ARG_ANGULAR_VELOCITY, w, 3, i, err)))
        return st; /* keys too close for the rotation between them */
    if (q)
        memcpy(q + 4 * i, rq, sizeof rq);
    if (omega)
        memcpy(omega + 3 * i, w, sizeof w);
    return AC_OK;
}

/* m sorted queries inside linear segment j (finite duration): the slerp's
   key-only part comes from create, so each query costs the weights and one
   normalization, in a loop that vectorizes. The same bits as sample(). */
AC_VECTORIZED_WIDE
static void linear_run(const ac_quat_curve *c, size_t j, const double *restrict t, size_t m,
                       double *restrict q)
{
    const double t0 = c->times[j], dt = c->times[j + 1] - t0;
    double b[4];
    ac_slerp_arc arc;
    key_quat(c, j + 1, b);
    segment_arc(c->keys, c->angles, j, &arc);
    for (size_t r = 0; r < m; r++) {
        double u = (t[r] - t0) / dt, x[4];
        u = ac_pick(u < 0.0, 0.0, u);
        u = ac_pick(u > 1.0, 1.0, u);
        ac_slerp_arc_at(&arc, u, x);
        for (int k = 0; k < 4; k++) /* at u = 1 the key itself, not its negation */
            q[4 * r + k] = ac_pick(u >= 1.0, b[k], x[k]);
    }
}

/* ac_quat_curve_eval_located: linear_run's slerp for queries each in its
   own segment (sample()'s u and the arc at it), a block at a time: the
   block's segments read first, so that the arithmetic, branch-free, runs in
   a loop that vectorizes; then, where u reached 1, the end key itself, as
   linear_run picks it. */
AC_VECTORIZED_WIDE
static void located_linear(const ac_quat_curve *c, const double *restrict t,
                           const size_t *restrict seg, size_t m, double *restrict q,
                           size_t stride)
{
    enum { BLOCK = 32 };
    for (size_t r0 = 0; r0 < m; r0 += BLOCK) {
        const size_t nb = m - r0 < BLOCK ? m - r0 : BLOCK;
        double t0[BLOCK], t1[BLOCK], tr[BLOCK], w[BLOCK], inv[BLOCK], u[BLOCK];
        double a[4][BLOCK], b[4][BLOCK], x[4][BLOCK];
        for (size_t l = 0; l < nb; l++) {
            const size_t j = seg[r0 + l];
            t0[l] = c->times[j], t1[l] = c->times[j + 1], tr[l] = t[r0 + l];
            w[l] = c->angles[2 * j], inv[l] = c->angles[2 * j + 1];
            for (int k = 0; k < 4; k++)
                a[k][l] = c->keys[4 * j + k], b[k][l] = c->keys[4 * j + 4 + k];
        }
        for (size_t l = 0; l < nb; l++) {
            ac_slerp_arc arc;
            double v = (tr[l] - t0[l]) / (t1[l] - t0[l]), start[4], end[4], o[4];
            v = ac_pick(v < 0.0, 0.0, v);
            u[l] = ac_pick(v > 1.0, 1.0, v);
            for (int k = 0; k < 4; k++)
                start[k] = a[k][l], end[k] = b[k][l];
            arc_of_keys(start, end, w[l], inv[l], &arc); /* segment_arc's */
            ac_slerp_arc_at(&arc, u[l], o);
            for (int k = 0; k < 4; k++)
                x[k][l] = o[k];
        }
        for (size_t l = 0; l < nb; l++) {
            double *o = q + (r0 + l) * stride;
            for (int k = 0; k < 4; k++)
                o[k] = x[k][l];
            if (u[l] >= 1.0) /* the end key itself */
                key_quat(c, seg[r0 + l] + 1, o);
        }
    }
}

#ifdef AC_SIMD
/* located_linear in lanes for the first m queries, m a multiple of
   AC_LANES: each lane reads its segment's arc (segment_arc: from a window
   of segments loaded once and permuted, or one lane at a time) and does
   ac_slerp_arc_at's operations in their order. */
AC_SIMD_KERNEL void located_lanes(const ac_quat_curve *c, const double *t, const size_t *seg,
                                  size_t m, double *q, size_t stride)
{
    for (size_t i = 0; i < m; i += AC_LANES) {
        const size_t j0 = seg[i];
        ac_vd t0, t1, u, a[4], b[4], d, sign, w, inv, x[1], y[1], sa[1], sb[1], r[4];
        __mmask8 ends;
        if (seg[i + AC_LANES - 1] - j0 < AC_LANES && j0 + AC_LANES + 1 <= c->k) {
            const __m512i k = _mm512_sub_epi64(_mm512_loadu_si512((const void *)(seg + i)),
                                               _mm512_set1_epi64((long long)j0));
            const __m512d w0 = _mm512_loadu_pd(c->angles + 2 * j0),
                          w1 = _mm512_loadu_pd(c->angles + 2 * j0 + AC_LANES);
            t0 = ac_vd_permute((ac_vd)_mm512_loadu_pd(c->times + j0), k);
            t1 = ac_vd_permute((ac_vd)_mm512_loadu_pd(c->times + j0 + 1), k);
            ac_vd_load4(c->keys + 4 * j0, 1, a);
            ac_vd_load4(c->keys + 4 * (j0 + 1), 1, b);
            for (int e = 0; e < 4; e++)
                a[e] = ac_vd_permute(a[e], k), b[e] = ac_vd_permute(b[e], k);
            w = ac_vd_permute(
                (ac_vd)_mm512_permutex2var_pd(w0, AC_IDX(0, 2, 4, 6, 8, 10, 12, 14), w1), k);
            inv = ac_vd_permute(
                (ac_vd)_mm512_permutex2var_pd(w0, AC_IDX(1, 3, 5, 7, 9, 11, 13, 15), w1), k);
        } else {
            double z[12][AC_LANES];
            for (int l = 0; l < AC_LANES; l++) {
                const size_t j = seg[i + (size_t)l];
                z[0][l] = c->times[j], z[1][l] = c->times[j + 1];
                z[2][l] = c->angles[2 * j], z[3][l] = c->angles[2 * j + 1];
                for (int e = 0; e < 4; e++)
                    z[4 + e][l] = c->keys[4 * j + e], z[8 + e][l] = c->keys[4 * j + 4 + e];
            }
            t0 = (ac_vd)_mm512_loadu_pd(z[0]), t1 = (ac_vd)_mm512_loadu_pd(z[1]);
            w = (ac_vd)_mm512_loadu_pd(z[2]), inv = (ac_vd)_mm512_loadu_pd(z[3]);
            for (int e = 0; e < 4; e++) {
                a[e] = (ac_vd)_mm512_loadu_pd(z[4 + e]);
                b[e] = (ac_vd)_mm512_loadu_pd(z[8 + e]);
            }
        }
        u = ((ac_vd)_mm512_loadu_pd(t + i) - t0) / (t1 - t0);
        ends = _mm512_cmp_pd_mask((__m512d)u, _mm512_set1_pd(1.0), _CMP_GE_OQ);
        u = ac_vd_pick((ac_vm)(u < 0.0), ac_vd_splat(0.0), u);
        u = ac_vd_pick((ac_vm)(u > 1.0), ac_vd_splat(1.0), u);
        d = ac_vd_splat(0.0); /* segment_arc's sign */
        for (int e = 0; e < 4; e++)
            d = d + a[e] * b[e];
        sign = ac_vd_pick((ac_vm)(d < 0.0), ac_vd_splat(-1.0), ac_vd_splat(1.0));
        for (int e = 0; e < 4; e++)
            b[e] = b[e] * sign;
        x[0] = (1.0 - u) * w * ((1.0 - u) * w);
        y[0] = u * w * (u * w);
        ac_vd_sinc_series(x, sa, 1);
        ac_vd_sinc_series(y, sb, 1);
        x[0] = (1.0 - u) * sa[0] * inv; /* the weights */
        y[0] = u * sb[0] * inv;
        for (int e = 0; e < 4; e++)
            r[e] = x[0] * a[e] + y[0] * b[e];
        d = ac_vd_splat(0.0);
        for (int e = 0; e < 4; e++)
            d = d + r[e] * r[e];
        x[0] = d;
        ac_vd_rsqrt(x, y, 1);
        for (int e = 0; e < 4; e++)
            r[e] = r[e] * y[0];
        if (stride == 4)
            ac_vd_store4(q + 4 * i, r);
        else
            ac_vd_store_rows(q + i * stride, stride, r, 4);
        for (size_t l = 0; ends && l < AC_LANES; l++) /* u = 1: the end key itself */
            if (ends >> l & 1)
                key_quat(c, seg[i + l] + 1, q + (i + l) * stride);
    }
}
#endif

ac_status ac_quat_curve_eval_located(const ac_quat_curve *c, const double *t,
                                     const size_t *segments, size_t n, double *q, size_t stride,
                                     ac_error *err)
{
    size_t lanes = 0, bad = 0;
    if (!ac_track_located(c->times, c->k, t, segments, n, &bad))
        return ac_fail(err, AC_ERR_VALUE, bad, AC_ARG_SEGMENTS, (double)segments[bad],
                       "must be the segment of t[%zu] = %.17g (first <= t < last)", bad,
                       t[bad]);
    /* step and cubic, and segments wider than DBL_MAX (none when the keys
       span less): sample(), as eval_one takes a time inside the keys */
    if (c->interp != AC_CURVE_LINEAR || !ac_finite(c->times[c->k - 1] - c->times[0])) {
        for (size_t i = 0; i < n; i++) {
            double omega[3];
            ac_status st = sample(c, t[i], segments[i], AC_SIDE_RIGHT, i, q + i * stride, omega,
                                  err);
            if (st)
                return st;
        }
        return AC_OK;
    }
#ifdef AC_SIMD
    if (ac_simd_available()) {
        lanes = n - n % AC_LANES;
        located_lanes(c, t, segments, lanes, q, stride);
    }
#endif
    located_linear(c, t + lanes, segments + lanes, n - lanes, q + lanes * stride, stride);
    return AC_OK;
}

ac_status ac_quat_curve_eval(const ac_quat_curve *c, ac_curve_cursor *cursor, const double *t,
                             size_t n, int side, double *q, double *omega, ac_error *err)
{
    const ac_track tr = track_of(c);
    size_t hint = cursor && cursor->segment < c->k ? cursor->segment : 0, i = 0, i0 = 0, i1 = 0;
    ac_status st;
    if (side != AC_SIDE_RIGHT && side != AC_SIDE_LEFT)
        return ac_fail(err, AC_ERR_VALUE, 0, AC_ARG_SIDE, side, "must be right (0) or left (1)");
    /* Sorted linear queries on the right side: the ones inside the keys in
       runs of one segment. */
    if (c->interp == AC_CURVE_LINEAR && side == AC_SIDE_RIGHT && c->k > 1 && n > 0 &&
        ac_finite(t[0]) && ac_finite(t[n - 1]) && ac_track_sorted(t, n))
        ac_track_runs(&tr, t, n, &i0, &i1);
    for (; i < i0; i++)
        if ((st = eval_one(c, t, i, side, &hint, q, omega, err)))
            return st;
    while (i < i1) {
        size_t j = hint = ac_segment_find(c->times, c->k, t[i], hint);
        size_t r = ac_track_run_end(t, i, i1, c->times[j + 1]);
        if (!ac_finite(c->times[j + 1] - c->times[j])) { /* see sample() */
            for (; i < r; i++)
                if ((st = eval_one(c, t, i, side, &hint, q, omega, err)))
                    return st;
            continue;
        }
        if (omega) {
            ac_slerp_arc arc;
            double w[3];
            segment_arc(c->keys, c->angles, j, &arc);
            arc_omega(&arc, c->times[j + 1] - c->times[j], w);
            if ((st = check_result(AC_ARG_ANGULAR_VELOCITY, w, 3, i, err)))
                return st;
            for (size_t x = i; x < r; x++)
                memcpy(omega + 3 * x, w, sizeof w);
        }
        if (q)
            linear_run(c, j, t + i, r - i, q + 4 * i);
        i = r;
    }
    for (i = i1 > i ? i1 : i; i < n; i++)
        if ((st = eval_one(c, t, i, side, &hint, q, omega, err)))
            return st;
    if (cursor)
        cursor->segment = hint;
    return AC_OK;
}

/* How far beyond an end key a query cannot fail: any finite distance where
   the end key is held or the keys repeat (the distance itself finite, so
   at most DBL_MAX: an infinite t fails), none where outside is an error
   or the end key turns on (a turn so long that it overflows). */
static double reach(ac_curve_extrapolation mode)
{
    return mode == AC_EXTRAP_ERROR || mode == AC_EXTRAP_LINEAR ? 0.0 : DBL_MAX;
}

AC_VECTORIZED
static int times_within(const double *t, size_t n, double lo, double hi, double below,
                        double above)
{
    return ac_all_within_reach(t, n, lo, hi, below, above);
}

bool ac_quat_curve_eval_check(const ac_quat_curve *c, const double *t, size_t n, int side,
                              bool omega)
{
    /* a cubic spline can pass through the zero quaternion between keys; an
       infinite rate fails where it is output, and where the end key turns
       on at it (even at the key itself, on its outer side) */
    int turns = c->before == AC_EXTRAP_LINEAR || c->after == AC_EXTRAP_LINEAR;
    if ((side != AC_SIDE_RIGHT && side != AC_SIDE_LEFT) || c->interp == AC_CURVE_CUBIC ||
        ((omega || turns) && !c->rates_finite))
        return false;
    return n == 0 || times_within(t, n, c->times[0], c->times[c->k - 1], reach(c->before),
                                  reach(c->after));
}

/* ------------------------------------------------------- conversions
   Matrices are 3x3 row-major and act on column vectors (v' = M v). Euler
   angles follow scipy.spatial.transform.Rotation: axes[] names the three axes
   (0 x, 1 y, 2 z) in the order of the sequence, about the fixed frame when
   `extrinsic` (scipy's lower case "xyz") or the rotating frame otherwise
   (upper case "XYZ"). */

static int euler_axes_ok(const int axes[3])
{
    for (int k = 0; k < 3; k++)
        if (axes[k] < 0 || axes[k] > 2)
            return 0;
    return axes[0] != axes[1] && axes[1] != axes[2];
}

ac_status ac_quat_batch_to_matrix(const double *q, double *out, size_t n, ac_error *err)
{
    if (matrix_items(q, out, n))
        return AC_OK; /* else an error: the loop below finds the first */
    for (size_t i = 0; i < n; i++) {
        double u[4];
        ac_status st = unit_arg(AC_ARG_Q, AC_ARG_Q_NORM, q + 4 * i, u, i, err);
        if (st)
            return st;
        ac_quat_matrix3(u, out + 9 * i);
    }
    return AC_OK;
}

/* The quaternion of a rotation matrix by the largest of its diagonal and
   trace (Shepperd's method, as scipy): accurate for every rotation angle. */
static void quat_of_matrix(const double *m, double out[4])
{
    double trace = m[0] + m[4] + m[8], q[4];
    int choice = 3;
    double best = trace;
    for (int k = 0; k < 3; k++)
        if (m[4 * k] > best)
            best = m[4 * k], choice = k;
    if (choice == 3) {
        q[0] = m[7] - m[5], q[1] = m[2] - m[6], q[2] = m[3] - m[1], q[3] = 1.0 + trace;
    } else {
        int i = choice, j = (i + 1) % 3, k = (j + 1) % 3;
        q[i] = 1.0 - trace + 2.0 * m[4 * i];
        q[j] = m[3 * j + i] + m[3 * i + j];
        q[k] = m[3 * k + i] + m[3 * i + k];
        q[3] = m[3 * k + j] - m[3 * j + k];
    }
    unit4(q, out);
}

static AC_FORCE_INLINE double det3(const double *a)
{
    return a[0] * (a[4] * a[8] - a[5] * a[7]) - a[1] * (a[3] * a[8] - a[5] * a[6]) +
           a[2] * (a[3] * a[7] - a[4] * a[6]);
}

/* How far a rotation matrix's columns may be from unit length (their
   squared lengths from 1): float32 data and chains of products leave them a
   little off, a scale does not (Shepperd's method reads the matrix as a
   rotation: 1 + trace). Compared on squared lengths: |l^2 - 1| = |l - 1| (l + 1),
   about twice |l - 1|. */
#define ROTATION_LENGTH_TOLERANCE 5e-4
#define ROTATION_COLUMN_TOLERANCE (2.0 * ROTATION_LENGTH_TOLERANCE)

/* How far column c of a's squared length is from 1 (+inf beyond the double
   range). */
static AC_FORCE_INLINE double column_off(const double *a, int c)
{
    return fabs(a[c] * a[c] + a[3 + c] * a[3 + c] + a[6 + c] * a[6 + c] - 1.0);
}

/* The column of a farthest from unit length, and how far (column_off). */
static int worst_column(const double *a, double *off)
{
    int worst = 0;
    *off = -1.0;
    for (int c = 0; c < 3; c++) {
        double off_c = column_off(a, c);
        if (off_c > *off)
            worst = c, *off = off_c;
    }
    return worst;
}

/* The length of column c of a (ac_length: no overflow; for the error). */
static double column_length(const double *a, int c)
{
    const double column[3] = {a[c], a[3 + c], a[6 + c]};
    return ac_length(column, 3);
}

/* A finite matrix of positive determinant (the kernel's expression, so the
   kernel's sign) whose columns have unit length within the tolerance. */
static AC_FORCE_INLINE int64_t rotation_matrix_at(const void *m, size_t i)
{
    const double *a = (const double *)m + 9 * i;
    int64_t ok = det3(a) > 0.0;
    for (int k = 0; k < 9; k++)
        ok &= fabs(a[k]) <= DBL_MAX;
    for (int c = 0; c < 3; c++)
        ok &= column_off(a, c) <= ROTATION_COLUMN_TOLERANCE;
    return ok;
}

AC_VECTORIZED
static int from_matrix_ok(const double *m, size_t n)
{
    return ac_all_items(m, n, rotation_matrix_at);
}

bool ac_quat_batch_from_matrix_check(const double *matrix, size_t n)
{
    return n == 0 || from_matrix_ok(matrix, n);
}

bool ac_quat_batch_to_euler_check(const double *q, const int axes[3], size_t n)
{
    return euler_axes_ok(axes) && ac_quat_batch_unit_check(q, n);
}

bool ac_quat_batch_from_euler_check(const double *angles, const int axes[3], size_t n)
{
    return euler_axes_ok(axes) && finite_ok(angles, 3 * n);
}

ac_status ac_quat_batch_from_matrix(const double *m, double *out, size_t n, ac_error *err)
{
    for (size_t i = 0; i < n; i++) {
        const double *a = m + 9 * i;
        double det;
        ac_status st = ac_check_finite(AC_ARG_MATRIX, a, 9, i, err);
        if (st)
            return st;
        {
            double off;
            int c = worst_column(a, &off);
            if (!(off <= ROTATION_COLUMN_TOLERANCE))
                return ac_fail(err, AC_ERR_VALUE, i, AC_ARG_MATRIX, column_length(a, c),
                               "column %d's length, which must be 1 within %g for a "
                               "rotation; decompose takes scales", c,
                               ROTATION_LENGTH_TOLERANCE);
        }
        det = det3(a);
        if (!(det > 0.0))
            return ac_fail(err, AC_ERR_VALUE, i, AC_ARG_MATRIX_DET, det,
                           "must be > 0: a reflection or a singular matrix is no rotation");
        quat_of_matrix(a, out + 4 * i);
    }
    return AC_OK;
}

ac_status ac_quat_batch_from_euler(const double *angles, const int axes[3], int extrinsic,
                                   double *out, size_t n, ac_error *err)
{
    if (!euler_axes_ok(axes))
        return ac_fail(err, AC_ERR_VALUE, 0, AC_ARG_AXES, 0.0,
                       "must be three axes 0..2, consecutive ones different");
    for (size_t i = 0; i < n; i++) {
        const double *a = angles + 3 * i;
        double q[4] = {0.0, 0.0, 0.0, 1.0};
        ac_status st = ac_check_finite(AC_ARG_ANGLES, a, 3, i, err);
        if (st)
            return st;
        for (int k = 0; k < 3; k++) {
            double e[4] = {0.0, 0.0, 0.0, cos(0.5 * a[k])};
            e[axes[k]] = sin(0.5 * a[k]);
            if (k == 0)
                memcpy(q, e, sizeof q);
            else if (extrinsic) /* about the fixed axes: later rotations on the left */
                ac_quat_mul(e, q, q);
            else
                ac_quat_mul(q, e, q);
        }
        memcpy(out + 4 * i, q, sizeof q);
    }
    return AC_OK;
}

/* x (an angle in (-3 pi, 3 pi)) wrapped to [-pi, pi] as scipy does: one turn
   added or removed when outside, so pi stays pi. Selects, not branches: the
   batch loop below runs it on every angle. */
static AC_FORCE_INLINE double wrap_pi(double x)
{
    const double pi = AC_PI, up = x + 2.0 * pi, down = x - 2.0 * pi;
    double r = x > pi ? down : x;
    return x < -pi ? up : r;
}

/* The parts of an Euler sequence that every item shares, worked out once
   per batch: the axes i, j, k of the method below, whether the sequence is
   symmetric (first axis = third), the sign of the permutation, and which of
   the output angles is the first and the third turn. */
typedef struct euler_plan {
    int i, j, k, symmetric, extrinsic, first, third;
    double sign;
} euler_plan;

static euler_plan euler_plan_of(const int axes[3], int extrinsic)
{
    euler_plan p;
    p.extrinsic = extrinsic;
    p.i = extrinsic ? axes[0] : axes[2];
    p.j = axes[1];
    p.k = extrinsic ? axes[2] : axes[0];
    p.symmetric = p.i == p.k;
    p.first = extrinsic ? 0 : 2;
    p.third = extrinsic ? 2 : 0;
    if (p.symmetric)
        p.k = 3 - p.i - p.j;
    p.sign = (double)((p.i - p.j) * (p.j - p.k) * (p.k - p.i) / 2);
    return p;
}

/* Items converted per block: their unit quaternions (ac_quat_batch_normalize,
   in lanes where the CPU has them), their components and angles fit on the
   stack. */
#define EULER_BLOCK 256

/* Bernardes and Ehrmann (2022), "Quaternion to Euler angles conversion: a
   direct, general and computationally efficient method", as scipy applies it,
   in two steps. First three angles of each unit quaternion: the half sum and
   half difference of the outer turns and the middle angle, as atan2 of four
   numbers a, b, c, d (each within [-2, 2], so their squares neither
   overflow nor, where it matters, lose precision: hypot is not needed).
   The components go to columns first, so that the arithmetic is one loop of
   selects that vectorizes. */
AC_VECTORIZED_WIDE
static void euler_halves(const double *restrict u, const euler_plan *p, size_t n,
                         double *restrict half_sum, double *restrict half_diff,
                         double *restrict middle)
{
    double qi[EULER_BLOCK], qj[EULER_BLOCK], qk[EULER_BLOCK], qw[EULER_BLOCK];
    const double sign = p->sign;
    const int64_t symmetric = p->symmetric;
    for (size_t m = 0; m < n; m++) {
        qi[m] = u[4 * m + p->i], qj[m] = u[4 * m + p->j];
        qk[m] = u[4 * m + p->k], qw[m] = u[4 * m + 3];
    }
    for (size_t m = 0; m < n; m++) {
        const double a = ac_pick(symmetric, qw[m], qw[m] - qj[m]);
        const double b = ac_pick(symmetric, qi[m], qi[m] + qk[m] * sign);
        const double c = ac_pick(symmetric, qj[m], qj[m] + qw[m]);
        const double d = ac_pick(symmetric, qk[m] * sign, qk[m] * sign - qi[m]);
        half_sum[m] = ac_atan2_series(b, a);
        half_diff[m] = ac_atan2_series(d, c);
        middle[m] = 2.0 * ac_atan2_series(sqrt(c * c + d * d), sqrt(a * a + b * b));
    }
}

/* Then the angles in the sequence's order, wrapped to [-pi, pi]: at the
   gimbal lock (middle angle within 1e-7 of 0 or pi) the third angle is 0 and
   the first takes the whole turn. Every case is a select, so that the loop
   over a block runs without branches. */
static AC_FORCE_INLINE void euler_combine(const euler_plan *p, double half_sum,
                                          double half_diff, double middle, double out[3])
{
    const double pi = AC_PI, eps = 1e-7;
    int near0 = fabs(middle) <= eps, case0 = !(near0 || fabs(middle - pi) <= eps);
    double lock = near0 ? 2.0 * half_sum : 2.0 * half_diff * (p->extrinsic ? -1.0 : 1.0);
    double outer = case0 ? half_sum - half_diff : p->extrinsic ? lock : 0.0;
    double a3 = case0 ? half_sum + half_diff : p->extrinsic ? 0.0 : lock;
    if (!p->symmetric) {
        a3 *= p->sign;
        middle -= 0.5 * pi;
    }
    out[p->first] = wrap_pi(outer);
    out[1] = wrap_pi(middle);
    out[p->third] = wrap_pi(a3);
}

ac_status ac_quat_batch_to_euler(const double *q, const int axes[3], int extrinsic,
                                 double *angles, size_t n, ac_error *err)
{
    euler_plan plan;
    if (!euler_axes_ok(axes))
        return ac_fail(err, AC_ERR_VALUE, 0, AC_ARG_AXES, 0.0,
                       "must be three axes 0..2, consecutive ones different");
    plan = euler_plan_of(axes, extrinsic);
    for (size_t start = 0; start < n; start += EULER_BLOCK) {
        size_t count = n - start < EULER_BLOCK ? n - start : EULER_BLOCK;
        double u[4 * EULER_BLOCK], sum[EULER_BLOCK], diff[EULER_BLOCK], middle[EULER_BLOCK];
        ac_status st = ac_quat_batch_normalize(q + 4 * start, u, count, err);
        if (st) {
            if (err) /* the core takes err == NULL */
                err->index += start;
            return st;
        }
        euler_halves(u, &plan, count, sum, diff, middle);
        for (size_t i = 0; i < count; i++)
            euler_combine(&plan, sum[i], diff[i], middle[i], angles + 3 * (start + i));
    }
    return AC_OK;
}

ac_status ac_quat_batch_to_rotvec(const double *q, double *out, size_t n, ac_error *err)
{
    for (size_t i = 0; i < n; i++) {
        double u[4], angle, angle2, scale;
        ac_status st = unit_arg(AC_ARG_Q, AC_ARG_Q_NORM, q + 4 * i, u, i, err);
        if (st)
            return st;
        if (u[3] < 0.0) /* the shorter of the two turns: angle in [0, pi] */
            for (int k = 0; k < 4; k++)
                u[k] = -u[k];
        angle = 2.0 * atan2(sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]), u[3]);
        angle2 = angle * angle;
        scale = angle <= 1e-3 ? 2.0 + angle2 / 12.0 + 7.0 * angle2 * angle2 / 2880.0
                              : angle / sin(0.5 * angle);
        for (int k = 0; k < 3; k++)
            out[3 * i + k] = scale * u[k];
    }
    return AC_OK;
}

ac_status ac_quat_batch_from_rotvec(const double *v, double *out, size_t n, ac_error *err)
{
    for (size_t i = 0; i < n; i++) {
        const double *r = v + 3 * i;
        double angle, angle2, scale;
        ac_status st = ac_check_finite(AC_ARG_ROTVEC, r, 3, i, err);
        if (st)
            return st;
        angle = ac_length(r, 3);
        if (!(angle <= DBL_MAX))
            return ac_fail(err, AC_ERR_OVERFLOW, i, AC_ARG_ROTVEC, angle,
                           "is the angle |rotvec|, beyond the double range although the "
                           "components are finite");
        angle2 = angle * angle;
        scale = angle <= 1e-3 ? 0.5 - angle2 / 48.0 + angle2 * angle2 / 3840.0
                              : sin(0.5 * angle) / angle;
        for (int k = 0; k < 3; k++)
            out[4 * i + k] = scale * r[k];
        out[4 * i + 3] = cos(0.5 * angle);
    }
    return AC_OK;
}
