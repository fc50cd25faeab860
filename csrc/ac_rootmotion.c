/* Root motion of looping clips.

   Time t splits into a cycle k = floor(t/T) and a phase u = t/T - k in [0, 1).
   A track without rotations moves by Delta(t0, t1) = (k1 - k0) D + p(u1) - p(u0)
   with D = p(1) - p(0): a cycle difference (one multiplication) plus a local
   difference, never the difference of two large accumulated positions.

   With rotations the root pose is a rigid transform P(u) = (R(u), p(u)),
   x_world = R x + p. Everything is stored in the frame of the first key,
   Q(u) = P(0)^-1 P(u), so one cycle is C = Q(1) and the motion from t0 to t1 in
   the root frame at t0 is Q(u0)^-1 C^(k1-k0) Q(u1). C^k is a closed form for
   yaw (a rotation by k theta and the geometric sum of the translation) and a
   power by repeated squaring for quaternions. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ac_internal.h"
#include "ac_track.h"

#define TWO_PI 6.283185307179586476925287
#define QUAT_MIN_LENGTH 1e-150

struct ac_looptrack {
    size_t k;        /* keys */
    size_t channels; /* position channels as given */
    size_t dim;      /* stored position components: channels, or 3 when turning */
    ac_curve_interpolation interpolation; /* AC_CURVE_LINEAR or AC_CURVE_CUBIC */
    ac_root_rotation rotation;
    /* the local track: the key phases on the shared key track, cycling with
       the clip's stride ("cycle_offset"; for turning tracks the rigid cycle) */
    ac_track track;
    int plane_i, plane_j; /* yaw turns axis plane_i toward plane_j */
    double duration, max_cycles;
    size_t bins;     /* phase lookup: table[b] is the segment holding b / bins */
    double bins_d;   /* bins as a double */
    int one_step;    /* no bin holds two keys: the segment is table[b] or the next */
    uint32_t *table; /* bins + 1 entries */
    double *phase;     /* k key phases times / T, phase[k-1] = 1 */
    double *inv_width; /* k-1: 1 / (phase[j+1] - phase[j]) */
    double *slope;     /* (k-1) * dim: linear change per unit phase */
    double *pos;       /* k * dim: world positions (no rotation) or Q-frame */
    double *m0, *m1;   /* (k-1) * dim Hermite tangents per unit segment parameter */
    double *stride;    /* dim: D = p(1) - p(0), world (no rotation) */
    double *yaw;       /* k: yaw[i] - yaw[0] */
    double *quat;      /* 4k: conj(r0) r[i] */
    /* the first key's pose P(0) and one cycle C = Q(1) */
    double origin_pos[3], origin_yaw, origin_quat[4];
    double cycle_pos[3], cycle_yaw, cycle_quat[4];
    double cycle_yaw_reduced; /* cycle_yaw reduced to [-pi, pi] */
    int delta_bounded; /* no rotation, and no delta within max_cycles can overflow */
    ac_allocator mem; /* what the table and the block came from */
};

/* ------------------------------------------------------------ rigid helpers */

/* Yaw rotation of a 3-vector: plane_i turns toward plane_j by angle (c, s). */
static inline void yaw_rotate(const ac_looptrack *tr, double c, double s, const double v[3],
                              double out[3])
{
    int i = tr->plane_i, j = tr->plane_j;
    double a = v[i], b = v[j];
    if (out != v)
        memcpy(out, v, 3 * sizeof *out);
    out[i] = c * a - s * b;
    out[j] = s * a + c * b;
}

/* A rigid transform (q, t) with a unit quaternion: x -> rotate(q, x) + t. */
typedef struct rigid {
    double q[4], t[3];
} rigid;

static void rigid_mul(const rigid *a, const rigid *b, rigid *out)
{
    rigid r;
    ac_quat_mul(a->q, b->q, r.q);
    ac_quat_rotate(a->q, b->t, r.t);
    for (int c = 0; c < 3; c++)
        r.t[c] += a->t[c];
    ac_quat_normalize(r.q, r.q);
    *out = r;
}

static void rigid_inverse(const rigid *a, rigid *out)
{
    rigid r;
    ac_quat_conj(a->q, r.q);
    ac_quat_rotate(r.q, a->t, r.t);
    for (int c = 0; c < 3; c++)
        r.t[c] = -r.t[c];
    *out = r;
}

/* a^k by repeated squaring: O(log |k|) products, any sign of k. */
static void rigid_pow(const rigid *a, double k, rigid *out)
{
    rigid base = *a, result = {{0, 0, 0, 1}, {0, 0, 0}};
    uint64_t n = (uint64_t)fabs(k);
    if (k < 0)
        rigid_inverse(a, &base);
    while (n) {
        if (n & 1)
            rigid_mul(&result, &base, &result);
        n >>= 1;
        if (n)
            rigid_mul(&base, &base, &base);
    }
    *out = result;
}

/* --------------------------------------------------------- local evaluation */

/* The segment holding phase u in [0, 1] on the shared key track (right
   side): the phase table gives the cursor hint, from which the track's
   forward search takes usually zero or one step. */
static inline size_t find_segment(const ac_looptrack *tr, double u)
{
    size_t b = (size_t)(u * tr->bins_d);
    return ac_track_find(tr->track.times, tr->track.k, u, AC_SIDE_RIGHT, tr->table[b]);
}

/* The same for u in [0, 1): when no bin holds two keys, branch-free. */
static inline size_t loop_segment(const ac_looptrack *tr, double u)
{
    size_t j = tr->table[(size_t)(u * tr->bins_d)];
    if (tr->one_step)
        return j + (tr->phase[j + 1] <= u);
    return ac_track_find(tr->track.times, tr->track.k, u, AC_SIDE_RIGHT, j);
}

/* Position components at phase u (dim values). */
static inline void local_position(const ac_looptrack *tr, double u, size_t j, double *out)
{
    size_t d = tr->dim;
    const double *a = tr->pos + j * d;
    if (tr->interpolation == AC_CURVE_LINEAR) {
        const double *sl = tr->slope + j * d;
        for (size_t c = 0; c < d; c++)
            out[c] = a[c] + (u - tr->phase[j]) * sl[c];
    } else {
        const double *b = a + d;
        double w = (u - tr->phase[j]) * tr->inv_width[j];
        for (size_t c = 0; c < d; c++) {
            double dxdw;
            ac_hermite_unit(w, a[c], tr->m0[j * d + c], b[c], tr->m1[j * d + c], &out[c],
                            &dxdw);
        }
    }
}

static inline double local_yaw(const ac_looptrack *tr, double u, size_t j)
{
    double w = (u - tr->phase[j]) * tr->inv_width[j];
    return tr->yaw[j] + w * (tr->yaw[j + 1] - tr->yaw[j]);
}

static inline void local_quat(const ac_looptrack *tr, double u, size_t j, double out[4])
{
    double w = (u - tr->phase[j]) * tr->inv_width[j];
    out[0] = out[1] = out[2] = 0.0, out[3] = 1.0; /* slerp leaves a zero result as is */
    ac_quat_slerp(tr->quat + 4 * j, tr->quat + 4 * (j + 1), w, out);
}

/* Q(u) as a rigid transform (quaternion tracks). */
static void local_rigid(const ac_looptrack *tr, double u, rigid *out)
{
    size_t j = find_segment(tr, u);
    local_position(tr, u, j, out->t);
    local_quat(tr, u, j, out->q);
}

/* Yaw rotation angle wrapped to (-pi, pi]. remainder() reduces by the double
   nearest 2 pi, whose error grows with the number of turns: beyond a few
   thousand radians the angle is reduced through sin and cos, which the C
   library reduces exactly (1e308 rad is a definite rotation). */
static double wrap_angle(double a)
{
    double r = fabs(a) <= 4096.0 ? remainder(a, TWO_PI) : atan2(sin(a), cos(a));
    return r <= -TWO_PI / 2 ? r + TWO_PI : r;
}

/* Translation of C^k for a yaw track: in the turning plane the geometric sum
   sum_{m<k} e^{i m theta} t = e^{i (k-1) theta/2} sin(k theta/2) / sin(theta/2) t,
   written with sinc so that theta -> 0 gives k t; along the up axis k t. */
static void yaw_cycle_translation(const ac_looptrack *tr, double k, double out[3])
{
    double th = tr->cycle_yaw_reduced;
    double mag = k * ac_sinc(0.5 * k * th) / ac_sinc(0.5 * th);
    double ang = 0.5 * (k - 1.0) * th;
    double v[3];
    for (int c = 0; c < 3; c++)
        v[c] = k * tr->cycle_pos[c]; /* the up component; the plane is overwritten */
    v[tr->plane_i] = mag * tr->cycle_pos[tr->plane_i];
    v[tr->plane_j] = mag * tr->cycle_pos[tr->plane_j];
    yaw_rotate(tr, cos(ang), sin(ang), v, out);
}

/* Motion over dk whole cycles plus the local phases u0 -> u1, for a turning
   track: Q(u0)^-1 C^dk Q(u1). Writes channels translation components and the
   rotation (1 angle or 4 components). */
static void rigid_delta(const ac_looptrack *tr, double dk, double u0, double u1,
                        double *translation, double *rotation)
{
    double t[3];
    if (tr->rotation == AC_ROOT_YAW) {
        size_t j0 = find_segment(tr, u0), j1 = find_segment(tr, u1);
        double q0[3], q1[3], ta[3], b[3];
        double a0 = local_yaw(tr, u0, j0), a1 = local_yaw(tr, u1, j1);
        double theta = dk * tr->cycle_yaw_reduced; /* the same turn, without overflow */
        local_position(tr, u0, j0, q0);
        local_position(tr, u1, j1, q1);
        yaw_cycle_translation(tr, dk, ta);
        yaw_rotate(tr, cos(theta), sin(theta), q1, b);
        for (int c = 0; c < 3; c++)
            b[c] = b[c] + ta[c] - q0[c];
        yaw_rotate(tr, cos(a0), -sin(a0), b, t);
        rotation[0] = wrap_angle(wrap_angle(a1 - a0) + theta);
    } else {
        rigid a, b, c, inv;
        rigid cyc;
        memcpy(cyc.q, tr->cycle_quat, sizeof cyc.q);
        memcpy(cyc.t, tr->cycle_pos, sizeof cyc.t);
        local_rigid(tr, u0, &a);
        local_rigid(tr, u1, &b);
        rigid_pow(&cyc, dk, &c);
        rigid_mul(&c, &b, &c);
        rigid_inverse(&a, &inv);
        rigid_mul(&inv, &c, &c);
        if (c.q[3] < 0)
            for (int m = 0; m < 4; m++)
                c.q[m] = -c.q[m];
        memcpy(rotation, c.q, sizeof c.q);
        memcpy(t, c.t, sizeof t);
    }
    for (size_t c = 0; c < tr->channels; c++)
        translation[c] = t[c];
}

/* Translation-only motion: dk D + p(u1) - p(u0). */
static inline void translation_delta(const ac_looptrack *tr, double dk, double u0,
                                     double u1, double *out)
{
    enum { SMALL = 8 };
    size_t d = tr->dim;
    size_t j0 = loop_segment(tr, u0), j1 = loop_segment(tr, u1);
    if (tr->interpolation == AC_CURVE_LINEAR) {
        double e0 = u0 - tr->phase[j0], e1 = u1 - tr->phase[j1];
        const double *a0 = tr->pos + j0 * d, *a1 = tr->pos + j1 * d;
        const double *s0 = tr->slope + j0 * d, *s1 = tr->slope + j1 * d;
        for (size_t c = 0; c < d; c++)
            out[c] = dk * tr->stride[c] + ((a1[c] + e1 * s1[c]) - (a0[c] + e0 * s0[c]));
    } else {
        for (size_t c0 = 0; c0 < d; c0 += SMALL) {
            double p0[SMALL], p1[SMALL];
            size_t m = d - c0 < SMALL ? d - c0 : SMALL;
            for (size_t c = 0; c < m; c++) {
                double w0 = (u0 - tr->phase[j0]) * tr->inv_width[j0], dx;
                double w1 = (u1 - tr->phase[j1]) * tr->inv_width[j1];
                size_t i0 = j0 * d + c0 + c, i1 = j1 * d + c0 + c;
                ac_hermite_unit(w0, tr->pos[i0], tr->m0[i0], tr->pos[i0 + d], tr->m1[i0],
                                &p0[c], &dx);
                ac_hermite_unit(w1, tr->pos[i1], tr->m0[i1], tr->pos[i1 + d], tr->m1[i1],
                                &p1[c], &dx);
            }
            for (size_t c = 0; c < m; c++)
                out[c0 + c] = dk * tr->stride[c0 + c] + (p1[c] - p0[c]);
        }
    }
}

/* ------------------------------------------------------------------- split */


/* floor(x) for |x| <= 2^51, with no libm call (which GCC keeps scalar):
   adding and subtracting 2^52 rounds x to an integer n in the default
   round-to-nearest mode, and n > x means it rounded up. */
static inline double floor_small(double x)
{
    double big = copysign(4503599627370496.0, x);
    double n = (x + big) - big;
    return n - ac_pick(n > x, 1.0, 0.0);
}

/* k = floor(t/T), u = t/T - k in [0, 1); returns 0 (and k = u = 0) when t is
   not finite or |t/T| > max_cycles (at most 2^50). Branch-free, so loops over
   it vectorize. */
static inline int64_t split_one(double t, double T, double max_cycles, double *k, double *u)
{
    double x = t / T, f, r, wrap;
    int64_t ok = fabs(x) <= max_cycles;
    x = ac_pick(ok, x, 0.0);
    f = floor_small(x);
    r = x - f;
    /* t/T = -tiny: 1 - tiny rounds to 1, which is the next cycle's phase 0 */
    wrap = ac_pick(r >= 1.0, 1.0, 0.0);
    *k = f + wrap;
    *u = r - wrap;
    return ok;
}

static ac_status time_error(const ac_looptrack *tr, ac_arg arg, double t, size_t i,
                            ac_error *err)
{
    if (!ac_finite(t))
        return ac_fail(err, AC_ERR_VALUE, i, arg, t, "must be finite");
    return ac_because(err, AC_REASON_MAX_CYCLES, tr->max_cycles, tr->duration,
                      ac_fail(err, AC_ERR_VALUE, i, arg, t,
                              "must satisfy |%s/duration| <= max_cycles=%.15g with duration=%.15g",
                              ac_arg_name(arg), tr->max_cycles, tr->duration));
}

AC_VECTORIZED
static int split_loop(double T, double max_cycles, const double *t, double *cycle,
                      double *phase, size_t n)
{
    int64_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        double k, u;
        bad |= split_one(t[i], T, max_cycles, &k, &u) ^ 1;
        cycle[i] = k;
        phase[i] = u;
    }
    return !bad;
}

ac_status ac_rootmotion_split(const ac_looptrack *tr, const double *t, double *cycle,
                              double *phase, size_t n, ac_error *err)
{
    if (split_loop(tr->duration, tr->max_cycles, t, cycle, phase, n))
        return AC_OK;
    for (size_t i = 0; i < n; i++) {
        double k, u;
        if (!split_one(t[i], tr->duration, tr->max_cycles, &k, &u))
            return time_error(tr, AC_ARG_T, t[i], i, err);
    }
    return AC_OK;
}

/* ------------------------------------------------------------------ sample */

ac_status ac_rootmotion_sample(const ac_looptrack *tr, const double *phase,
                               double *position, double *rotation, size_t n, ac_error *err)
{
    size_t ch = tr->channels;
    for (size_t i = 0; i < n; i++) {
        double u = phase[i], q[3];
        size_t j;
        if (!ac_finite(u))
            return ac_fail(err, AC_ERR_VALUE, i, AC_ARG_PHASE, u, "must be finite");
        if (!(u >= 0.0 && u <= 1.0))
            return ac_fail(err, AC_ERR_VALUE, i, AC_ARG_PHASE, u, "must lie in [0, 1]");
        j = find_segment(tr, u);
        if (tr->rotation == AC_ROOT_NO_ROTATION) {
            local_position(tr, u, j, position + i * ch);
            continue;
        }
        local_position(tr, u, j, q);
        /* P(u) = P(0) Q(u) */
        if (tr->rotation == AC_ROOT_YAW) {
            double a = local_yaw(tr, u, j), w[3];
            yaw_rotate(tr, cos(tr->origin_yaw), sin(tr->origin_yaw), q, w);
            for (size_t c = 0; c < ch; c++)
                position[i * ch + c] = w[c] + tr->origin_pos[c];
            if (rotation)
                rotation[i] = tr->origin_yaw + a;
        } else {
            double r[4], w[3];
            local_quat(tr, u, j, r);
            ac_quat_rotate(tr->origin_quat, q, w);
            for (size_t c = 0; c < 3; c++)
                position[i * 3 + c] = w[c] + tr->origin_pos[c];
            if (rotation) {
                ac_quat_mul(tr->origin_quat, r, rotation + 4 * i);
                ac_quat_normalize(rotation + 4 * i, rotation + 4 * i);
            }
        }
    }
    return AC_OK;
}

/* ------------------------------------------------------------------- delta */

static size_t rotation_size(const ac_looptrack *tr)
{
    return tr->rotation == AC_ROOT_YAW ? 1 : tr->rotation == AC_ROOT_QUAT ? 4 : 0;
}

enum { BLOCK = 512 };


/* The lookups below are table loads at data-dependent indices: AVX2 would
   emulate them as element-wise gathers, which measures about 20% slower than
   plain scalar loads, so the loop is kept scalar by an empty asm statement
   that makes an index opaque to the vectorizer (GCC and Clang). */
#if defined(__GNUC__)
#define KEEP_SCALAR(x) __asm__("" : "+r"(x))
#else
#define KEEP_SCALAR(x) ((void)0)
#endif

/* The common case spelled out: one channel, linear keys, one-step lookup.
   Always inlined so that the AVX2 clones of its callers compile it for AVX2. */
static AC_FORCE_INLINE int fast_track(const ac_looptrack *tr)
{
    return tr->rotation == AC_ROOT_NO_ROTATION && tr->dim == 1 &&
           tr->interpolation == AC_CURVE_LINEAR && tr->one_step;
}

static AC_FORCE_INLINE void fast_block(const ac_looptrack *tr, const double *dk,
                                        const double *u0, const double *u1,
                                        double *restrict translation, size_t m)
{
    const double *ph = tr->phase, *p = tr->pos, *sl = tr->slope;
    const uint32_t *table = tr->table;
    double D = tr->stride[0], bins = tr->bins_d;
    for (size_t i = 0; i < m; i++) {
        int j0 = (int)table[(int)(u0[i] * bins)], j1 = (int)table[(int)(u1[i] * bins)];
        j0 += ph[j0 + 1] <= u0[i];
        j1 += ph[j1 + 1] <= u1[i];
        KEEP_SCALAR(j0);
        KEEP_SCALAR(j1);
        translation[i] = dk[i] * D + ((p[j1] + (u1[i] - ph[j1]) * sl[j1]) -
                                      (p[j0] + (u0[i] - ph[j0]) * sl[j0]));
    }
}

/* Motions of a block of m intervals given as whole cycles dk and phases
   u0 -> u1 (all valid): the tracks that fast_block does not cover. */
static void general_block(const ac_looptrack *tr, const double *dk, const double *u0,
                          const double *u1, double *translation, double *rotation, size_t m)
{
    size_t d = tr->dim;
    if (tr->rotation != AC_ROOT_NO_ROTATION) {
        size_t rs = rotation_size(tr);
        double scratch[4];
        for (size_t i = 0; i < m; i++)
            rigid_delta(tr, dk[i], u0[i], u1[i], translation + i * tr->channels,
                        rotation ? rotation + i * rs : scratch);
    } else {
        for (size_t i = 0; i < m; i++)
            translation_delta(tr, dk[i], u0[i], u1[i], translation + i * d);
    }
}

/* The same for every track: the common case inline, so that it is compiled
   into the AVX2 clones of the callers. */
static AC_FORCE_INLINE void motion_block(const ac_looptrack *tr, const double *dk,
                                          const double *u0, const double *u1,
                                          double *translation, double *rotation, size_t m)
{
    if (fast_track(tr))
        fast_block(tr, dk, u0, u1, translation, m);
    else
        general_block(tr, dk, u0, u1, translation, rotation, m);
}

/* Splits a block of times (step s: 0 or 1) into cycles and phases; returns 1
   when one of them is invalid (those become cycle 0, phase 0). */
static inline int split_block(const double *restrict t, size_t s, double T, double mc,
                              double *restrict k, double *restrict u, size_t m)
{
    int64_t bad = 0;
    for (size_t i = 0; i < m; i++)
        bad |= split_one(t[i * s], T, mc, &k[i], &u[i]) ^ 1;
    return bad != 0;
}

/* The delta loop, in blocks: a branch-free pass that splits the times
   (vectorized; invalid times become 0 and are diagnosed afterwards), then the
   table lookups and the local differences. */
AC_VECTORIZED
static int delta_loop(const ac_looptrack *tr, const double *t0, const double *t1, size_t s0,
                      size_t s1, double *translation, double *rotation, size_t n)
{
    double T = tr->duration, mc = tr->max_cycles;
    double k0[BLOCK], u0[BLOCK], k1[BLOCK], u1[BLOCK];
    size_t ts = tr->channels, rs = rotation_size(tr);
    int bad = 0;
    for (size_t base = 0; base < n; base += BLOCK) {
        size_t m = n - base < BLOCK ? n - base : BLOCK;
        const double *a = t0 + base * s0, *b = t1 + base * s1;
        /* constant steps give contiguous, vectorizable loops */
        bad |= s0 ? split_block(a, 1, T, mc, k0, u0, m) : split_block(a, 0, T, mc, k0, u0, m);
        bad |= s1 ? split_block(b, 1, T, mc, k1, u1, m) : split_block(b, 0, T, mc, k1, u1, m);
        for (size_t i = 0; i < m; i++)
            k1[i] -= k0[i]; /* whole cycles between the two times */
        motion_block(tr, k1, u0, u1, translation + base * ts,
                     rotation ? rotation + base * rs : NULL, m);
    }
    return !bad;
}

/* AC_OK when every motion of n results is finite; otherwise the first
   that is not, as an overflow (a track moving 1e308 per cycle, 2.5 cycles). */
static ac_status check_motion(const ac_looptrack *tr, const double *translation,
                              const double *rotation, size_t n, ac_error *err)
{
    size_t ts = tr->channels, rs = rotation_size(tr);
    int bad = 0;
    for (size_t i = 0; i < n * ts; i++)
        bad |= !ac_finite(translation[i]);
    for (size_t i = 0; rotation && i < n * rs; i++)
        bad |= !ac_finite(rotation[i]);
    for (size_t i = 0; bad && i < n; i++)
        for (size_t c = 0; c < ts + (rotation ? rs : 0); c++) {
            double x = c < ts ? translation[i * ts + c] : rotation[i * rs + c - ts];
            if (!ac_finite(x))
                return ac_fail(err, AC_ERR_OVERFLOW, i, c < ts ? AC_ARG_TRANSLATION : AC_ARG_ROTATION,
                               x, "is not representable although the inputs are finite");
        }
    return AC_OK;
}

ac_status ac_rootmotion_delta(const ac_looptrack *tr, const double *t0, const double *t1,
                              const size_t steps[2], double *translation, double *rotation,
                              size_t n, ac_error *err)
{
    size_t s0 = steps ? steps[0] : 1, s1 = steps ? steps[1] : 1;
    double T = tr->duration, mc = tr->max_cycles;
    if (delta_loop(tr, t0, t1, s0, s1, translation, rotation, n))
        return check_motion(tr, translation, rotation, n, err);
    for (size_t i = 0; i < n; i++) {
        double k, u;
        if (!split_one(t0[i * s0], T, mc, &k, &u))
            return time_error(tr, AC_ARG_T0, t0[i * s0], i, err);
        if (!split_one(t1[i * s1], T, mc, &k, &u))
            return time_error(tr, AC_ARG_T1, t1[i * s1], i, err);
    }
    AC_ASSERT(0 && "delta loop reported a failure the diagnosis did not find");
    return ac_fail(err, AC_ERR_VALUE, 0, AC_ARG_T0, t0[0], "internal check failed");
}

AC_VECTORIZED
static int phases_within(const double *phase, size_t n)
{
    return ac_all_within(phase, n, 0.0, 1.0);
}

bool ac_rootmotion_sample_check(const ac_looptrack *track, const double *phase, size_t n)
{
    (void)track; /* every track samples every phase in [0, 1] */
    return n == 0 || phases_within(phase, n);
}

/* The largest b with fl(b / T) <= max_cycles: x / T rounds monotonically in
   x, so every |t| up to b splits as split_one accepts it, and a range check
   that only reads replaces a division per time. Starts from mc T rounded
   and steps down while that rounding was up (a step or two; 0, which
   always splits, if it were ever more). */
static double split_bound(double T, double mc)
{
    double b = mc * T <= DBL_MAX ? mc * T : DBL_MAX;
    for (int step = 0; step < 64 && !(b / T <= mc); step++)
        b = nextafter(b, 0.0);
    return b / T <= mc ? b : 0.0;
}

/* 1 when every t0 and t1 (steps 0 or 1) splits as split_one accepts it. */
AC_VECTORIZED
static int delta_times_within(const ac_looptrack *tr, const double *t0, const double *t1,
                              size_t s0, size_t s1, size_t n)
{
    double b = split_bound(tr->duration, tr->max_cycles);
    return ac_items_within(t0, 1, s0, n, b) && ac_items_within(t1, 1, s1, n, b);
}

bool ac_rootmotion_delta_check(const ac_looptrack *track, const double *t0, const double *t1,
                               const size_t steps[2], size_t n)
{
    return n == 0 ||
           (track->delta_bounded &&
            delta_times_within(track, t0, t1, steps ? steps[0] : 1, steps ? steps[1] : 1, n));
}

/* ----------------------------------------------------------------- cursors */

static inline int cycle_ok(int64_t cycle)
{
    return cycle >= -(1LL << 53) && cycle <= (1LL << 53);
}

/* One cursor step: from (cycle, phase) by dt seconds or to time t. Returns an
   ac_status code without filling err (0 when valid); *dk, *nk, *u1 are set
   to usable values either way. */
static inline int advance_one(const ac_looptrack *tr, int64_t cycle, double u0,
                              double value, int absolute, double *dk, double *u1,
                              int64_t *nk)
{
    double T = tr->duration, mc = tr->max_cycles, k1;
    int ok_state = u0 >= 0.0 && u0 < 1.0 && cycle_ok(cycle);
    int ok_value;
    if (absolute) {
        ok_value = split_one(value, T, mc, &k1, u1);
        *dk = k1 - (double)cycle;
        *nk = (int64_t)k1;
    } else {
        double x = value / T, f, r;
        ok_value = fabs(x) <= mc;
        x = ok_value && ok_state ? u0 + x : 0.0;
        f = floor_small(x);
        r = x - f;
        *dk = f + (double)(r >= 1.0);
        *u1 = r >= 1.0 ? 0.0 : r;
        if (ok_value && ok_state && !cycle_ok(cycle + (int64_t)*dk)) {
            *nk = cycle;
            return AC_ERR_OVERFLOW;
        }
        *nk = ok_state ? cycle + (int64_t)*dk : 0;
    }
    if (!ok_state) {
        *dk = 0.0;
        *u1 = 0.0;
        *nk = 0;
    }
    return ok_state && ok_value ? AC_OK : AC_ERR_VALUE;
}

static ac_status advance_error(const ac_looptrack *tr, int64_t cycle, double u0,
                               double value, int absolute, int code, size_t i,
                               ac_error *err)
{
    if (!(u0 >= 0.0 && u0 < 1.0))
        return ac_fail(err, AC_ERR_VALUE, i, AC_ARG_PHASE, u0, "must lie in [0, 1)");
    if (!cycle_ok(cycle))
        return ac_fail(err, AC_ERR_VALUE, i, AC_ARG_CYCLE, (double)cycle, "must lie in [-2^53, 2^53]");
    if (code == AC_ERR_OVERFLOW)
        return ac_fail(err, AC_ERR_OVERFLOW, i, AC_ARG_DT, value,
                       "moves the cursor beyond 2^53 cycles (cycle=%lld)", (long long)cycle);
    return time_error(tr, absolute ? AC_ARG_T : AC_ARG_DT, value, i, err);
}

/* Relative steps of a block: phase u0 (step sp) plus dt / T (step sv), split
   into whole cycles dk and the new phase u1; branch-free so it vectorizes.
   Invalid elements get dk = 0, u0 = u1 = 0 and are diagnosed afterwards. */
static inline int step_block(const double *phase, size_t sp, const double *dt, size_t sv,
                             double T, double mc, double *dk, double *u0, double *u1, size_t m)
{
    int64_t bad = 0;
    for (size_t i = 0; i < m; i++) {
        double u = phase[i * sp], x = dt[i * sv] / T, f, r, wrap;
        int64_t ok = (fabs(x) <= mc) & (u >= 0.0) & (u < 1.0);
        x = ac_pick(ok, u + x, 0.0); /* |x| <= max_cycles + 1 */
        f = floor_small(x);
        r = x - f;
        wrap = ac_pick(r >= 1.0, 1.0, 0.0);
        dk[i] = f + wrap;
        u1[i] = r - wrap;
        u0[i] = ac_pick(ok, u, 0.0);
        bad |= ok ^ 1;
    }
    return bad != 0;
}

AC_VECTORIZED
static int advance_loop(const ac_looptrack *tr, const int64_t *cycle, const double *phase,
                        const double *value, const size_t s[3], int absolute,
                        int64_t *new_cycle, double *new_phase, double *translation,
                        double *rotation, size_t n)
{
    double T = tr->duration, mc = tr->max_cycles;
    double dk[BLOCK], u0[BLOCK], u1[BLOCK];
    size_t ts = tr->channels, rs = rotation_size(tr);
    int bad = 0;
    for (size_t base = 0; base < n; base += BLOCK) {
        size_t m = n - base < BLOCK ? n - base : BLOCK;
        const int64_t *c = cycle + base * s[0];
        const double *ph = phase + base * s[1], *v = value + base * s[2];
        if (absolute) {
            bad |= s[2] ? split_block(v, 1, T, mc, dk, u1, m) : split_block(v, 0, T, mc, dk, u1, m);
            for (size_t i = 0; i < m; i++) {
                double u = ph[i * s[1]];
                int ok = (u >= 0.0) & (u < 1.0) & cycle_ok(c[i * s[0]]);
                new_cycle[base + i] = (int64_t)dk[i]; /* |k| <= max_cycles <= 2^50 */
                dk[i] = ok ? dk[i] - (double)c[i * s[0]] : 0.0;
                u0[i] = ok ? u : 0.0;
                bad |= ok ^ 1;
            }
        } else {
            if (s[1] && s[2])
                bad |= step_block(ph, 1, v, 1, T, mc, dk, u0, u1, m);
            else if (s[1])
                bad |= step_block(ph, 1, v, 0, T, mc, dk, u0, u1, m);
            else
                bad |= step_block(ph, s[1], v, s[2], T, mc, dk, u0, u1, m);
            for (size_t i = 0; i < m; i++) {
                int64_t k = c[i * s[0]];
                int64_t nk = cycle_ok(k) ? k + (int64_t)dk[i] : 0; /* no overflow */
                int ok = cycle_ok(k) && cycle_ok(nk);
                new_cycle[base + i] = ok ? nk : 0;
                dk[i] = ok ? dk[i] : 0.0;
                bad |= ok ^ 1;
            }
        }
        memcpy(new_phase + base, u1, m * sizeof *u1);
        motion_block(tr, dk, u0, u1, translation + base * ts,
                     rotation ? rotation + base * rs : NULL, m);
    }
    return !bad;
}

/* 1 when every cursor step is one advance_loop accepts with a motion that
   delta_bounded covers: phase in [0, 1), value within max_cycles, and a
   cycle that keeps |dk| <= 2 max_cycles + 2 (absolute: dk = k1 - cycle with
   |k1| <= max_cycles + 1) or the new cycle within 2^53 (relative: |dk| <=
   max_cycles + 2). */
AC_VECTORIZED
static int advance_within(const ac_looptrack *tr, const int64_t *cycle, const double *phase,
                          const double *value, const size_t s[3], int absolute, size_t n)
{
    double T = tr->duration, mc = tr->max_cycles;
    int64_t lim = absolute ? (int64_t)mc + 1 : (1LL << 53) - (int64_t)mc - 3, ok = 1;
    for (size_t i = 0; i < n; i++) {
        int64_t c = cycle[i * s[0]];
        double u = phase[i * s[1]];
        ok &= (c >= -lim) & (c <= lim) & (u >= 0.0) & (u < 1.0) &
              (fabs(value[i * s[2]] / T) <= mc);
    }
    return ok != 0;
}

bool ac_rootmotion_advance_check(const ac_looptrack *track, const int64_t *cycle,
                                 const double *phase, const double *value,
                                 const size_t steps[3], bool absolute, size_t n)
{
    static const size_t all[3] = {1, 1, 1};
    return n == 0 || (track->delta_bounded &&
                      advance_within(track, cycle, phase, value, steps ? steps : all, absolute, n));
}

ac_status ac_rootmotion_advance(const ac_looptrack *tr, const int64_t *cycle,
                                const double *phase, const double *value,
                                const size_t steps[3], bool absolute, int64_t *new_cycle,
                                double *new_phase, double *translation, double *rotation,
                                size_t n, ac_error *err)
{
    static const size_t all[3] = {1, 1, 1};
    const size_t *s = steps ? steps : all;
    if (advance_loop(tr, cycle, phase, value, s, absolute, new_cycle, new_phase, translation,
                     rotation, n))
        return check_motion(tr, translation, rotation, n, err);
    for (size_t i = 0; i < n; i++) {
        double dk, u1, u0 = phase[i * s[1]];
        int64_t nk, c = cycle[i * s[0]];
        int code = advance_one(tr, c, u0, value[i * s[2]], absolute, &dk, &u1, &nk);
        if (code)
            return advance_error(tr, c, u0, value[i * s[2]], absolute, code, i, err);
    }
    AC_ASSERT(0 && "advance loop reported a failure the diagnosis did not find");
    return ac_fail(err, AC_ERR_VALUE, 0, AC_ARG_DT, value[0], "internal check failed");
}

/* ------------------------------------------------------------ construction */

double ac_rootmotion_duration(const ac_looptrack *tr) { return tr->duration; }
size_t ac_rootmotion_channels(const ac_looptrack *tr) { return tr->channels; }
ac_root_rotation ac_rootmotion_rotation(const ac_looptrack *tr) { return tr->rotation; }

void ac_rootmotion_destroy(ac_looptrack *tr)
{
    ac_allocator mem;
    if (!tr)
        return;
    mem = tr->mem;
    ac_mem_release(&mem, tr->table);
    ac_mem_release(&mem, tr->phase);
    ac_mem_release(&mem, tr);
}

static ac_status validate(const double *times, const double *positions, size_t k,
                          size_t channels, ac_curve_interpolation interpolation,
                          ac_root_rotation rotation, const double *rotations, int up_axis,
                          double max_cycles, ac_error *err)
{
    if (k < 2 || k > 0xFFFFFFF0u)
        return ac_fail(err, AC_ERR_VALUE, 0, AC_ARG_TIMES, (double)k,
                       "must hold from 2 to 2^32 - 16 keys (this is their count)");
    if (channels < 1)
        return ac_fail(err, AC_ERR_VALUE, 0, AC_ARG_POSITIONS, 0.0, "must have at least 1 channel");
    if (interpolation != AC_CURVE_LINEAR && interpolation != AC_CURVE_CUBIC)
        return ac_fail(err, AC_ERR_VALUE, 0, AC_ARG_INTERPOLATION, (double)interpolation,
                       "must be AC_CURVE_LINEAR or AC_CURVE_CUBIC");
    if (rotation != AC_ROOT_NO_ROTATION && rotation != AC_ROOT_YAW && rotation != AC_ROOT_QUAT)
        return ac_fail(err, AC_ERR_VALUE, 0, AC_ARG_ROTATIONS, (double)rotation,
                       "kind must be none, yaw or quaternion");
    if (up_axis < 0 || up_axis > 2)
        return ac_fail(err, AC_ERR_VALUE, 0, AC_ARG_UP_AXIS, (double)up_axis, "must be 0, 1 or 2");
    if (!ac_finite(max_cycles) || !(max_cycles > 0.0) || max_cycles > 1125899906842624.0)
        return ac_fail(err, AC_ERR_VALUE, 0, AC_ARG_MAX_CYCLES, max_cycles,
                       "must lie in (0, 2^50]");
    if (rotation == AC_ROOT_YAW && channels != 2 && channels != 3)
        return ac_fail(err, AC_ERR_VALUE, 0, AC_ARG_POSITIONS, (double)channels,
                       "must have 2 or 3 channels with yaw rotations (this is the count)");
    if (rotation == AC_ROOT_QUAT && channels != 3)
        return ac_fail(err, AC_ERR_VALUE, 0, AC_ARG_POSITIONS, (double)channels,
                       "must have 3 channels with quaternion rotations (this is the count)");
    for (size_t i = 0; i < k; i++) {
        if (!ac_finite(times[i]))
            return ac_fail(err, AC_ERR_VALUE, i, AC_ARG_TIMES, times[i], "must be finite");
        if (i == 0 && times[0] != 0.0)
            return ac_fail(err, AC_ERR_VALUE, 0, AC_ARG_TIMES, times[0],
                           "must be 0: the clip starts at time 0");
        if (i > 0 && !(times[i] > times[i - 1]))
            return ac_fail(err, AC_ERR_VALUE, i, AC_ARG_TIMES, times[i],
                           "must be > the previous key time %.15g", times[i - 1]);
    }
    for (size_t i = 0; i < k * channels; i++)
        if (!ac_finite(positions[i]))
            return ac_fail(err, AC_ERR_VALUE, i, AC_ARG_POSITIONS, positions[i], "must be finite");
    if (rotation == AC_ROOT_YAW)
        for (size_t i = 0; i < k; i++) {
            if (!ac_finite(rotations[i]))
                return ac_fail(err, AC_ERR_VALUE, i, AC_ARG_ROTATIONS, rotations[i],
                               "must be finite");
            /* turns are taken relative to the first key and between neighbours */
            if (!ac_finite(rotations[i] - rotations[0]) ||
                (i > 0 && !ac_finite(rotations[i] - rotations[i - 1])))
                return ac_fail(err, AC_ERR_VALUE, i, AC_ARG_ROTATIONS, rotations[i],
                               "must differ from the previous and first key angles by a "
                               "finite amount (radians)");
        }
    if (rotation == AC_ROOT_QUAT)
        for (size_t i = 0; i < k; i++) {
            double len;
            for (size_t c = 0; c < 4; c++)
                if (!ac_finite(rotations[4 * i + c]))
                    return ac_fail(err, AC_ERR_VALUE, 4 * i + c, AC_ARG_ROTATIONS,
                                   rotations[4 * i + c], "must be finite");
            /* normalized below, like every quaternion that stands for a
               rotation; only a (numerically) zero one is no rotation */
            len = sqrt(ac_quat_dot4(rotations + 4 * i, rotations + 4 * i));
            if (!(len >= QUAT_MIN_LENGTH && len <= 1.0 / QUAT_MIN_LENGTH))
                return ac_fail(err, AC_ERR_VALUE, 4 * i, AC_ARG_ROTATIONS, rotations[4 * i],
                               "starts quaternion %zu, of length %.3g (must be in "
                               "[1e-150, 1e150]: it is normalized)", i, len);
        }
    return AC_OK;
}

/* Catmull-Rom velocities per second, v[i] = (q[i+1] - q[i-1]) / (t[i+1] - t[i-1]),
   where the end keys look through the loop: key 0's left neighbour is key k-2
   one cycle earlier (C^-1 applied to it, time t[k-2] - T) and key k-1's right
   neighbour is key 1 one cycle later (C applied, time T + t[1]). */
static void catmull_rom(ac_looptrack *tr, const double *times, double *v)
{
    size_t k = tr->k, d = tr->dim;
    const double *q = tr->pos;
    double T = tr->duration, prev[3], next[3];
    for (size_t i = 1; i + 1 < k; i++)
        for (size_t c = 0; c < d; c++)
            v[i * d + c] = (q[(i + 1) * d + c] - q[(i - 1) * d + c]) / (times[i + 1] - times[i - 1]);
    if (tr->rotation == AC_ROOT_NO_ROTATION) {
        double span = times[1] + (T - times[k - 2]);
        for (size_t c = 0; c < d; c++) {
            v[c] = (q[d + c] - (q[(k - 2) * d + c] - tr->stride[c])) / span;
            v[(k - 1) * d + c] = ((q[d + c] + tr->stride[c]) - q[(k - 2) * d + c]) / span;
        }
        return;
    }
    {
        rigid cyc, inv;
        double span = times[1] + (T - times[k - 2]);
        if (tr->rotation == AC_ROOT_YAW) {
            double diff[3], th = tr->cycle_yaw;
            for (int c = 0; c < 3; c++)
                diff[c] = q[(k - 2) * 3 + c] - tr->cycle_pos[c];
            yaw_rotate(tr, cos(th), -sin(th), diff, prev);
            yaw_rotate(tr, cos(th), sin(th), q + 3, next);
            for (int c = 0; c < 3; c++)
                next[c] += tr->cycle_pos[c];
        } else {
            memcpy(cyc.q, tr->cycle_quat, sizeof cyc.q);
            memcpy(cyc.t, tr->cycle_pos, sizeof cyc.t);
            rigid_inverse(&cyc, &inv);
            ac_quat_rotate(inv.q, q + (k - 2) * 3, prev);
            ac_quat_rotate(cyc.q, q + 3, next);
            for (int c = 0; c < 3; c++) {
                prev[c] += inv.t[c];
                next[c] += cyc.t[c];
            }
        }
        for (int c = 0; c < 3; c++) {
            v[c] = (q[3 + c] - prev[c]) / span;
            v[(k - 1) * 3 + c] = (next[c] - q[(k - 2) * 3 + c]) / span;
        }
    }
}

/* The smallest power of two >= 4(k-1) bins (at most 2^16) such that no bin
   holds two keys strictly inside it: the phase lookup then needs at most one
   step from the table's segment. */
static size_t choose_bins(const double *phase, size_t k, int *one_step)
{
    const size_t max_bins = (size_t)1 << 16;
    size_t bins = 4;
    while (bins < 4 * (k - 1) && bins < max_bins)
        bins *= 2;
    for (;; bins *= 2) {
        int ok = 1;
        size_t last = (size_t)-1;
        for (size_t m = 1; m + 1 < k && ok; m++) {
            double x = phase[m] * (double)bins;
            size_t b = (size_t)x;
            if ((double)b == x)
                continue; /* at the start of its bin: the table has it */
            ok = b != last;
            last = b;
        }
        if (ok || bins >= max_bins) {
            *one_step = ok;
            return bins;
        }
    }
}

ac_status ac_rootmotion_create(ac_looptrack **track, const double *times,
                               const double *positions, size_t k, size_t channels,
                               ac_curve_interpolation interpolation,
                               ac_root_rotation rotation, const double *rotations,
                               int up_axis, double max_cycles,
                               const ac_allocator *allocator, ac_error *err)
{
    ac_looptrack *tr;
    size_t dim, bins = 4, doubles;
    double *block;
    ac_status st;
    *track = NULL;
    if ((st = validate(times, positions, k, channels, interpolation, rotation, rotations,
                       up_axis, max_cycles, err)))
        return st;
    dim = rotation == AC_ROOT_NO_ROTATION ? channels : 3;
    if (dim > ((size_t)1 << 40) / k)
        return ac_fail(err, AC_ERR_NOMEM, 0, AC_ARG_POSITIONS, (double)dim, "are too many");
    /* phase k, inv_width k, pos k*dim, m0 and m1 k*dim each, stride dim,
       yaw k, quat 4k, velocities k*dim, slope k*dim */
    doubles = 2 * k + 5 * k * dim + dim + k + 4 * k;
    tr = ac_mem_zeroed(allocator, 1, sizeof *tr);
    block = ac_mem_zeroed(allocator, doubles, sizeof *block);
    if (tr && allocator)
        tr->mem = *allocator;
    if (tr && block) {
        for (size_t i = 0; i < k; i++)
            block[i] = times[i] / times[k - 1];
        block[k - 1] = 1.0;
        bins = choose_bins(block, k, &tr->one_step);
        tr->table = ac_mem_alloc(allocator, (bins + 1) * sizeof *tr->table);
    }
    if (!tr || !block || !tr->table) {
        if (tr)
            ac_mem_release(allocator, tr->table);
        ac_mem_release(allocator, tr);
        ac_mem_release(allocator, block);
        return ac_fail(err, AC_ERR_NOMEM, 0, AC_ARG_TIMES, (double)k, "track allocation failed");
    }
    tr->k = k;
    tr->channels = channels;
    tr->dim = dim;
    tr->interpolation = interpolation;
    tr->rotation = rotation;
    tr->duration = times[k - 1];
    tr->max_cycles = max_cycles;
    tr->bins = bins;
    tr->bins_d = (double)bins;
    tr->phase = block;
    tr->track.k = k, tr->track.times = tr->phase;
    tr->track.before = tr->track.after = AC_EXTRAP_CYCLE_OFFSET;
    tr->inv_width = tr->phase + k;
    tr->pos = tr->inv_width + k;
    tr->m0 = tr->pos + k * dim;
    tr->m1 = tr->m0 + k * dim;
    tr->stride = tr->m1 + k * dim;
    tr->yaw = tr->stride + dim;
    tr->quat = tr->yaw + k;
    tr->slope = tr->quat + 4 * k + k * dim;
    {
        double *vel = tr->quat + 4 * k;
        size_t j = 0;
        for (size_t i = 0; i + 1 < k; i++)
            tr->inv_width[i] = 1.0 / (tr->phase[i + 1] - tr->phase[i]);
        for (size_t b = 0; b <= bins; b++) {
            double u = (double)b / (double)bins;
            while (j + 2 < k && tr->phase[j + 1] <= u)
                j++;
            tr->table[b] = (uint32_t)j;
        }

        if (rotation == AC_ROOT_NO_ROTATION) {
            memcpy(tr->pos, positions, k * dim * sizeof *positions);
            for (size_t c = 0; c < dim; c++)
                tr->stride[c] = positions[(k - 1) * dim + c] - positions[c];
            tr->plane_i = 0, tr->plane_j = 1;
        } else {
            /* positions as 3-vectors: 2 channels are the turning plane */
            if (channels == 2) {
                tr->plane_i = 0, tr->plane_j = 1;
            } else {
                tr->plane_i = (up_axis + 1) % 3, tr->plane_j = (up_axis + 2) % 3;
            }
            for (size_t c = 0; c < channels; c++)
                tr->origin_pos[c] = positions[c];
            if (rotation == AC_ROOT_YAW) {
                double y0 = rotations[0];
                tr->origin_yaw = y0;
                for (size_t i = 0; i < k; i++) {
                    double rel[3] = {0, 0, 0};
                    tr->yaw[i] = rotations[i] - y0;
                    for (size_t c = 0; c < channels; c++)
                        rel[c] = positions[i * channels + c] - positions[c];
                    yaw_rotate(tr, cos(y0), -sin(y0), rel, tr->pos + 3 * i);
                }
                tr->cycle_yaw = tr->yaw[k - 1];
                tr->cycle_yaw_reduced = wrap_angle(tr->cycle_yaw);
            } else {
                double r0[4], inv0[4];
                memcpy(r0, rotations, sizeof r0);
                ac_quat_normalize(r0, r0);
                memcpy(tr->origin_quat, r0, sizeof r0);
                ac_quat_conj(r0, inv0);
                for (size_t i = 0; i < k; i++) {
                    double r[4], rel[3];
                    memcpy(r, rotations + 4 * i, sizeof r);
                    ac_quat_normalize(r, r);
                    ac_quat_mul(inv0, r, tr->quat + 4 * i);
                    ac_quat_normalize(tr->quat + 4 * i, tr->quat + 4 * i);
                    for (size_t c = 0; c < 3; c++)
                        rel[c] = positions[i * 3 + c] - positions[c];
                    ac_quat_rotate(inv0, rel, tr->pos + 3 * i);
                }
                memcpy(tr->cycle_quat, tr->quat + 4 * (k - 1), sizeof tr->cycle_quat);
            }
            memcpy(tr->cycle_pos, tr->pos + 3 * (k - 1), sizeof tr->cycle_pos);
            for (size_t c = 0; c < channels; c++)
                tr->stride[c] = positions[(k - 1) * channels + c] - positions[c];
        }
        for (size_t i = 0; i + 1 < k; i++)
            for (size_t c = 0; c < dim; c++)
                tr->slope[i * dim + c] =
                    (tr->pos[(i + 1) * dim + c] - tr->pos[i * dim + c]) * tr->inv_width[i];
        if (interpolation == AC_CURVE_CUBIC) {
            catmull_rom(tr, times, vel);
            for (size_t i = 0; i + 1 < k; i++) {
                double h = times[i + 1] - times[i];
                for (size_t c = 0; c < dim; c++) {
                    tr->m0[i * dim + c] = h * vel[i * dim + c];
                    tr->m1[i * dim + c] = h * vel[(i + 1) * dim + c];
                }
            }
        }
        for (size_t i = 0; i < k * dim; i++)
            if (!ac_finite(tr->m0[i]) || !ac_finite(tr->m1[i]) || !ac_finite(tr->pos[i]) ||
                !ac_finite(tr->slope[i])) {
                ac_rootmotion_destroy(tr);
                return ac_fail(err, AC_ERR_OVERFLOW, i, AC_ARG_POSITIONS, positions[i % (k * channels)],
                               "give tangents or offsets that are not representable");
            }
    }
    if (rotation == AC_ROOT_NO_ROTATION) {
        /* A delta is dk D plus the difference of two local positions, with
           |dk| <= 2 max_cycles + 2 (each cycle within max_cycles + 1 of 0).
           A local position lies within |p0| + |p1 - p0| (linear) or
           max(|p0|, |p1|) + 4/27 (|m0| + |m1|) (Hermite weights) of 0, so with
           keys and tangents below DBL_MAX / 16 and |dk D| below DBL_MAX / 4
           the sum stays below 3/4 DBL_MAX, rounding included. */
        double big = 0.0, stride = 0.0;
        for (size_t i = 0; i < k * dim; i++)
            big = fmax(big, fabs(tr->pos[i]));
        for (size_t i = 0; interpolation == AC_CURVE_CUBIC && i < (k - 1) * dim; i++)
            big = fmax(big, fmax(fabs(tr->m0[i]), fabs(tr->m1[i])));
        for (size_t c = 0; c < dim; c++)
            stride = fmax(stride, fabs(tr->stride[c]));
        tr->delta_bounded =
            big <= DBL_MAX / 16.0 && (2.0 * max_cycles + 2.0) * stride <= DBL_MAX / 4.0;
    }
    *track = tr;
    return AC_OK;
}
