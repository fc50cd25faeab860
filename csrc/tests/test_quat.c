/* Quaternion batch kernels and rotation tracks: identities, glTF semantics
   worked by hand, and every error branch. */
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "ac_internal.h"
#include "ac_test.h"

static const double PI = 3.14159265358979323846;

static void batch(void)
{
    double a[8] = {0, 0, 1, 0, 1, 2, 3, 4}, id[4] = {0, 0, 0, 1}, out[8], v[3] = {1, 0, 0};
    double axis[3] = {0, 0, 5}, angle = PI / 2, q[4], r[3], conj[8];
    size_t shared_b[2] = {1, 0};
    ac_error err;
    CHECK(ac_quat_batch_multiply(a, id, shared_b, out, 2, &err) == AC_OK);
    for (int k = 0; k < 8; k++)
        CHECK(out[k] == a[k]);
    CHECK(ac_quat_batch_multiply(a, a, NULL, out, 1, &err) == AC_OK); /* half turn twice */
    CHECK(out[3] == -1.0 && out[2] == 0.0);
    CHECK(ac_quat_batch_conjugate(a, conj, 2, &err) == AC_OK);
    CHECK(conj[4] == -1 && conj[7] == 4);
    CHECK(ac_quat_batch_normalize(a + 4, out, 1, &err) == AC_OK);
    CHECK_NEAR(out[3], 4 / sqrt(30.0), 1e-15);
    CHECK(ac_quat_batch_from_axis_angle(axis, &angle, NULL, q, 1, &err) == AC_OK);
    CHECK_NEAR(q[2], sqrt(0.5), 1e-15);
    CHECK_NEAR(q[3], sqrt(0.5), 1e-15);
    CHECK(ac_quat_batch_rotate(q, v, NULL, r, 1, &err) == AC_OK);
    CHECK_NEAR(r[0], 0.0, 1e-15);
    CHECK_NEAR(r[1], 1.0, 1e-15);
    {
        double t[3] = {0.0, 0.5, 1.0}, s[12], nl[12];
        size_t steps[3] = {0, 0, 1};
        CHECK(ac_quat_batch_slerp(id, q, t, steps, s, 3, &err) == AC_OK);
        CHECK(s[3] == 1.0);
        CHECK_NEAR(s[6], sin(PI / 8), 1e-15);
        CHECK_NEAR(s[10], sqrt(0.5), 1e-15);
        CHECK(ac_quat_batch_nlerp(id, q, t, steps, nl, 3, &err) == AC_OK);
        CHECK_NEAR(nl[6], s[6], 1e-15); /* the midpoint is the same on the arc */
    }
}

static void batch_errors(void)
{
    double zero[4] = {0, 0, 0, 0}, id[4] = {0, 0, 0, 1}, nan4[4] = {0, NAN, 0, 1};
    double out[4], t = 0.5, bad_t = 2.0, v[3] = {0, 0, INFINITY}, axis0[3] = {0, 0, 0};
    double big[4] = {1e300, 0, 0, 1e300};
    ac_error err;
    CHECK(ac_quat_batch_normalize(zero, out, 1, &err) == AC_ERR_VALUE);
    CHECK(err.arg == AC_ARG_Q_NORM && err.value == 0.0);
    CHECK(ac_quat_batch_normalize(nan4, out, 1, &err) == AC_ERR_VALUE);
    CHECK(err.arg == AC_ARG_Q && err.value != err.value);
    CHECK(ac_quat_batch_slerp(id, zero, &t, NULL, out, 1, &err) == AC_ERR_VALUE);
    CHECK(err.arg == AC_ARG_Q1_NORM);
    CHECK(ac_quat_batch_nlerp(zero, id, &t, NULL, out, 1, &err) == AC_ERR_VALUE);
    CHECK(err.arg == AC_ARG_Q0_NORM);
    CHECK(ac_quat_batch_slerp(id, id, &bad_t, NULL, out, 1, &err) == AC_ERR_VALUE);
    CHECK(err.arg == AC_ARG_T && strcmp(err.detail, "must lie in [0, 1]") == 0);
    CHECK(ac_quat_batch_rotate(id, v, NULL, out, 1, &err) == AC_ERR_VALUE);
    CHECK(err.arg == AC_ARG_V);
    CHECK(ac_quat_batch_from_axis_angle(axis0, &t, NULL, out, 1, &err) == AC_ERR_VALUE);
    CHECK(err.arg == AC_ARG_AXIS_NORM);
    CHECK(ac_quat_batch_multiply(big, big, NULL, out, 1, &err) == AC_ERR_OVERFLOW);
    CHECK(ac_quat_batch_conjugate(nan4, out, 1, NULL) == AC_ERR_VALUE);
}

/* ac_quat_batch_multiply_check never accepts what the product rejects,
   accepts ordinary quaternions, and reads shared items (step 0) as the
   product does; refusals near overflow occur but stay rare. */
static void multiply_check(void)
{
    enum { N = 8 };
    static const double extremes[] = {0x1p510, -0x1p510, 0x1.0000000000001p510, 1e300, -1e308,
                                      INFINITY, -INFINITY, NAN, 0.0, 1e-300};
    int accepted = 0, refused_valid = 0;
    unsigned state = 12345u;
    for (int trial = 0; trial < 4000; trial++) {
        double a[4 * N], b[4 * N], out[4 * N];
        size_t steps[2] = {1, (size_t)(trial % 3 != 0)};
        int check;
        ac_status st;
        for (int i = 0; i < 4 * N; i++) {
            state = state * 1103515245u + 12345u;
            a[i] = (double)(state >> 8) / 16777216.0 * 4.0 - 2.0;
            state = state * 1103515245u + 12345u;
            b[i] = (double)(state >> 8) / 16777216.0 * 4.0 - 2.0;
        }
        if (trial % 2) { /* one extreme component, in a or in b */
            state = state * 1103515245u + 12345u;
            (trial % 4 == 1 ? a : b)[(state >> 8) % (4 * N)] = extremes[(state >> 4) % 10];
        }
        st = ac_quat_batch_multiply(a, b, steps, out, N, NULL);
        check = ac_quat_batch_multiply_check(a, b, steps, N);
        if (check)
            CHECK(st == AC_OK);
        if (trial % 2 == 0)
            CHECK(check);
        accepted += check;
        refused_valid += !check && st == AC_OK;
    }
    CHECK(accepted > 2000 && refused_valid > 10 && refused_valid < 1000);
    CHECK(ac_quat_batch_multiply_check(NULL, NULL, NULL, 0));
}

/* Each kernel's check never accepts what the kernel rejects, and accepts
   ordinary inputs: random items, half the trials with one extreme value, a
   zero item or a t off [0, 1], inputs shared (step 0) or not. */
static unsigned check_state = 777u;
static double check_random(void)
{
    check_state = check_state * 1103515245u + 12345u;
    return (double)(check_state >> 8) / 16777216.0;
}

static void kernel_checks(void)
{
    enum { N = 12 };
    static const double extremes[] = {0x1p510, -0x1.0000000000001p510, 1e300, -DBL_MAX,
                                      INFINITY, -INFINITY, NAN, 0.0, 5e-324, -1e-300};
    static const int good_axes[3] = {0, 1, 2}, bad_axes[3] = {0, 0, 2};
    int accepted = 0, trials = 0;
    for (int trial = 0; trial < 6000; trial++) {
        double q[4 * N], r[4 * N], v[3 * N], t[N], m[9 * N], out[9 * N];
        size_t steps[3] = {1, (size_t)(trial % 3 != 0), (size_t)(trial % 5 != 0)};
        const int *axes = trial % 97 == 0 ? bad_axes : good_axes;
        double *inputs[4] = {q, r, v, t};
        const size_t sizes[4] = {4 * N, 4 * N, 3 * N, N};
        int odd = trial % 2, ok[12];
        ac_status st[12];
        for (int i = 0; i < 4 * N; i++)
            q[i] = 4.0 * check_random() - 2.0, r[i] = 4.0 * check_random() - 2.0;
        for (int i = 0; i < 3 * N; i++)
            v[i] = 4.0 * check_random() - 2.0;
        for (int i = 0; i < N; i++)
            t[i] = check_random();
        CHECK(ac_quat_batch_to_matrix(q, m, N, NULL) == AC_OK); /* rotations: det > 0 */
        if (odd) {
            int which = (int)(check_random() * 5), at = (int)(check_random() * 1000);
            double x = extremes[(int)(check_random() * 10)];
            if (which == 4)
                m[at % (9 * N)] = at % 3 ? x : -m[at % (9 * N)]; /* a reflection, or x */
            else if (at % 4 == 0 && which < 3) /* a whole item zero */
                memset(inputs[which] + (which == 2 ? 3 : 4) * (at % N), 0,
                       (which == 2 ? 3 : 4) * sizeof(double));
            else if (which == 3)
                t[at % N] = at % 2 ? x : 1.0 + (at % 3 ? DBL_EPSILON : -2.0);
            else
                inputs[which][at % sizes[which]] = x;
        }
        ok[0] = ac_quat_batch_unit_check(q, N);
        st[0] = ac_quat_batch_conjugate(q, out, N, NULL);
        st[1] = ac_quat_batch_normalize(q, out, N, NULL);
        st[2] = ac_quat_batch_to_matrix(q, out, N, NULL);
        st[3] = ac_quat_batch_to_rotvec(q, out, N, NULL);
        ok[1] = ok[2] = ok[3] = ok[0];
        ok[4] = ac_quat_batch_to_euler_check(q, axes, N);
        st[4] = ac_quat_batch_to_euler(q, axes, trial % 4 == 1, out, N, NULL);
        ok[5] = ac_quat_batch_from_euler_check(v, axes, N);
        st[5] = ac_quat_batch_from_euler(v, axes, trial % 4 == 1, out, N, NULL);
        ok[6] = ac_quat_batch_from_rotvec_check(v, N);
        st[6] = ac_quat_batch_from_rotvec(v, out, N, NULL);
        ok[7] = ac_quat_batch_from_matrix_check(m, N);
        st[7] = ac_quat_batch_from_matrix(m, out, N, NULL);
        ok[8] = ac_quat_batch_from_axis_angle_check(v, t, steps + 1, N);
        st[8] = ac_quat_batch_from_axis_angle(v, t, steps + 1, out, N, NULL);
        ok[9] = ac_quat_batch_rotate_check(q, v, steps, N);
        st[9] = ac_quat_batch_rotate(q, v, steps, out, N, NULL);
        ok[10] = ok[11] = ac_quat_batch_lerp_check(q, r, t, steps, N);
        st[10] = ac_quat_batch_slerp(q, r, t, steps, out, N, NULL);
        st[11] = ac_quat_batch_nlerp(q, r, t, steps, out, N, NULL);
        for (int k = 0; k < 12; k++) {
            if (ok[k])
                CHECK(st[k] == AC_OK);
            if (!odd && axes == good_axes)
                CHECK(ok[k]);
            accepted += ok[k];
        }
        trials += 12;
    }
    CHECK(accepted > trials / 2 && accepted < trials * 99 / 100);
    CHECK(ac_quat_batch_unit_check(NULL, 0) && ac_quat_batch_lerp_check(NULL, NULL, NULL, NULL, 0));
    CHECK(!ac_quat_batch_to_euler_check(NULL, bad_axes, 0));
}

/* A product of more than a megabyte streams its stores (ac_stream): at every
   start within a cache line it gives the bits of the scalar product and
   writes nothing outside the output. */
static void long_products(void)
{
    enum { N = 40003, PAD = 8 };
    double *a = malloc(4 * N * sizeof *a), *b = malloc(4 * N * sizeof *b);
    double *buffer = malloc((4 * N + 2 * PAD) * sizeof *buffer);
    ac_error err;
    CHECK(a && b && buffer);
    for (size_t i = 0; i < 4 * N; i++) {
        a[i] = sin(0.5 + (double)i);
        b[i] = cos(1.5 * (double)i);
    }
    for (int offset = 0; offset < PAD; offset++) {
        double *out = buffer + offset, want[4];
        int same = 1, untouched = 1;
        for (size_t i = 0; i < 4 * N + 2 * PAD; i++)
            buffer[i] = -7.0;
        CHECK(ac_quat_batch_multiply(a, b, NULL, out, N, &err) == AC_OK);
        for (size_t i = 0; i < N; i++) {
            ac_quat_mul(a + 4 * i, b + 4 * i, want);
            same &= memcmp(out + 4 * i, want, sizeof want) == 0;
        }
        for (int i = 0; i < offset; i++)
            untouched &= buffer[i] == -7.0;
        for (size_t i = (size_t)offset + 4 * N; i < 4 * N + 2 * PAD; i++)
            untouched &= buffer[i] == -7.0;
        CHECK(same);
        CHECK(untouched);
    }
    a[4 * (N - 1) + 1] = NAN; /* the last item: found after the run */
    CHECK(ac_quat_batch_multiply(a, b, NULL, buffer, N, &err) == AC_ERR_VALUE);
    CHECK(err.index == N - 1 && err.arg == AC_ARG_A);
    free(a);
    free(b);
    free(buffer);
}

static void curves(void)
{
    const double times[3] = {0.0, 2.0, 3.0};
    double keys[12] = {0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0};
    double t[4] = {-1.0, 1.0, 2.5, 3.0}, q[16], w[12];
    ac_quat_curve *curve = NULL;
    ac_error err;
    keys[6] = sin(PI / 4), keys[7] = cos(PI / 4); /* quarter turn about z at t = 2 */
    CHECK(ac_quat_curve_create(times, keys, NULL, NULL, 3, AC_CURVE_LINEAR, AC_EXTRAP_CLAMP,
                               AC_EXTRAP_CLAMP, &curve, NULL, &err) == AC_OK);
    CHECK(ac_quat_curve_eval(curve, NULL, t, 4, AC_SIDE_RIGHT, q, w, &err) == AC_OK);
    CHECK(q[3] == 1.0 && w[2] == 0.0);              /* clamped before */
    CHECK_NEAR(q[6], sin(PI / 8), 1e-15);           /* halfway through the quarter turn */
    CHECK_NEAR(w[5], (PI / 2) / 2.0, 1e-14);        /* pi/2 rad over 2 s */
    CHECK_NEAR(w[8], (PI / 2) / 1.0, 1e-14);        /* the next quarter turn in 1 s */
    CHECK(q[12] == 0 && q[14] == 1 && q[15] == 0);  /* the last key exactly */
    ac_quat_curve_destroy(curve);

    /* step: the key at or before t */
    CHECK(ac_quat_curve_create(times, keys, NULL, NULL, 3, AC_CURVE_STEP, AC_EXTRAP_CLAMP,
                               AC_EXTRAP_CYCLE, &curve, NULL, &err) == AC_OK);
    {
        double ts[3] = {1.999, 2.0, 3.5}; /* 3.5 cycles back to 0.5 */
        ac_curve_cursor cursor = {0};
        CHECK(ac_quat_curve_eval(curve, &cursor, ts, 3, AC_SIDE_RIGHT, q, NULL, &err) == AC_OK);
        CHECK(q[3] == 1.0 && q[6] == keys[6] && q[11] == 1.0);
    }
    ac_quat_curve_destroy(curve);

    /* cubic: zero tangents give the smoothstep blend of the keys, normalized */
    {
        double zeros[12] = {0};
        CHECK(ac_quat_curve_create(times, keys, zeros, zeros, 3, AC_CURVE_CUBIC, AC_EXTRAP_ERROR,
                                   AC_EXTRAP_OSCILLATE, &curve, NULL, &err) == AC_OK);
        CHECK(ac_quat_curve_eval(curve, NULL, t + 1, 1, AC_SIDE_RIGHT, q, w, &err) == AC_OK);
        {
            double s = 0.5 * 0.5 * (3 - 2 * 0.5), p[4] = {0, 0, s * keys[6], (1 - s) + s * keys[7]};
            double len = sqrt(p[2] * p[2] + p[3] * p[3]);
            CHECK_NEAR(q[2], p[2] / len, 1e-15);
            CHECK_NEAR(q[3], p[3] / len, 1e-15);
        }
        CHECK(ac_quat_curve_eval(curve, NULL, t, 1, AC_SIDE_RIGHT, q, w, &err) == AC_ERR_VALUE);
        CHECK(err.arg == AC_ARG_T && err.value == -1.0);
        ac_quat_curve_destroy(curve);
    }
    ac_quat_curve_destroy(NULL);
}

/* The side rule of the shared key track: at a key the right side is the
   segment after it, the left side the one before; at the last key the right
   side is the extrapolation; in a mirrored cycle the side is the query's. */
static void curve_sides(void)
{
    const double times[3] = {0.0, 2.0, 3.0};
    double keys[12] = {0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0}, q[8], w[6];
    double at_key[2] = {2.0, 3.0}, mirrored = 4.0; /* 4 = 3 + (3 - 2): key 1 mirrored */
    ac_quat_curve *curve = NULL;
    ac_curve_cursor cursor = {0};
    keys[6] = sin(PI / 4), keys[7] = cos(PI / 4);
    CHECK(ac_quat_curve_create(times, keys, NULL, NULL, 3, AC_CURVE_LINEAR, AC_EXTRAP_CLAMP,
                               AC_EXTRAP_CYCLE, &curve, NULL, NULL) == AC_OK);
    CHECK(ac_quat_curve_eval(curve, &cursor, at_key, 2, AC_SIDE_RIGHT, q, w, NULL) == AC_OK);
    CHECK_NEAR(w[2], PI / 2, 1e-14);              /* the segment after key 1 */
    CHECK_NEAR(w[5], PI / 4, 1e-14); /* the next cycle's start */
    CHECK(q[7] > 0.999999);
    CHECK(ac_quat_curve_eval(curve, &cursor, at_key, 2, AC_SIDE_LEFT, q, w, NULL) == AC_OK);
    CHECK_NEAR(w[2], PI / 4, 1e-14);              /* the segment before key 1 */
    CHECK(q[0] == keys[4] && q[3] == keys[7]);    /* ... ending on the key itself */
    CHECK_NEAR(w[5], PI / 2, 1e-14);              /* the last segment, on its last key */
    CHECK(q[6] == 1.0);
    CHECK(ac_quat_curve_eval(curve, NULL, at_key, 1, 2, q, w, NULL) == AC_ERR_VALUE);
    ac_quat_curve_destroy(curve);
    CHECK(ac_quat_curve_create(times, keys, NULL, NULL, 3, AC_CURVE_LINEAR, AC_EXTRAP_CLAMP,
                               AC_EXTRAP_OSCILLATE, &curve, NULL, NULL) == AC_OK);
    CHECK(ac_quat_curve_eval(curve, NULL, &mirrored, 1, AC_SIDE_RIGHT, q, w, NULL) == AC_OK);
    CHECK_NEAR(w[2], -PI / 4, 1e-14); /* just after 4 s: local time before key 1, backwards */
    CHECK(ac_quat_curve_eval(curve, NULL, &mirrored, 1, AC_SIDE_LEFT, q, w, NULL) == AC_OK);
    CHECK_NEAR(w[2], -PI / 2, 1e-14);
    ac_quat_curve_destroy(curve);
    /* linear: on at the end key's angular velocity (a quarter turn about z per
       second after the half turn at 3 s) */
    CHECK(ac_quat_curve_create(times, keys, NULL, NULL, 3, AC_CURVE_LINEAR, AC_EXTRAP_LINEAR,
                               AC_EXTRAP_LINEAR, &curve, NULL, NULL) == AC_OK);
    {
        double t2[2] = {-2.0, 4.0};
        CHECK(ac_quat_curve_eval(curve, NULL, t2, 2, AC_SIDE_RIGHT, q, w, NULL) == AC_OK);
        CHECK_NEAR(q[2], -sin(PI / 4), 1e-15); /* 2 s back at pi/4 rad/s: -pi/2 */
        CHECK_NEAR(q[3], cos(PI / 4), 1e-15);
        CHECK_NEAR(q[6], sin(3 * PI / 4), 1e-15); /* pi + pi/2 */
        CHECK_NEAR(q[7], cos(3 * PI / 4), 1e-15);
        CHECK_NEAR(w[2], PI / 4, 1e-14);
        CHECK_NEAR(w[5], PI / 2, 1e-14);
    }
    ac_quat_curve_destroy(curve);
    /* modes that do not apply to rotations */
    CHECK(ac_quat_curve_create(times, keys, NULL, NULL, 3, AC_CURVE_LINEAR, AC_EXTRAP_CYCLE_OFFSET,
                               AC_EXTRAP_CLAMP, &curve, NULL, NULL) == AC_ERR_VALUE);
    CHECK(ac_quat_curve_create(times, keys, NULL, NULL, 3, AC_CURVE_LINEAR, AC_EXTRAP_CLAMP,
                               AC_EXTRAP_SLOPED, &curve, NULL, NULL) == AC_ERR_VALUE);
    CHECK(ac_quat_curve_create(times, keys, NULL, NULL, 3, AC_CURVE_BEZIER, AC_EXTRAP_CLAMP,
                               AC_EXTRAP_CLAMP, &curve, NULL, NULL) == AC_ERR_VALUE);
}

static void curve_errors(void)
{
    double times[2] = {0.0, 0.0}, keys[8] = {0, 0, 0, 1, 0, 0, 0, 1}, tan[8] = {0};
    ac_quat_curve *curve = NULL;
    ac_error err;
    CHECK(ac_quat_curve_create(times, keys, NULL, NULL, 2, AC_CURVE_LINEAR, AC_EXTRAP_CLAMP,
                               AC_EXTRAP_CLAMP, &curve, NULL, &err) == AC_ERR_VALUE);
    CHECK(err.arg == AC_ARG_TIMES && err.index == 1 && curve == NULL);
    times[1] = 1.0;
    keys[7] = 0.0;
    CHECK(ac_quat_curve_create(times, keys, NULL, NULL, 2, AC_CURVE_LINEAR, AC_EXTRAP_CLAMP,
                               AC_EXTRAP_CLAMP, &curve, NULL, &err) == AC_ERR_VALUE);
    CHECK(err.arg == AC_ARG_QUATERNIONS_NORM && err.index == 1);
    keys[7] = 1.0;
    CHECK(ac_quat_curve_create(times, keys, NULL, tan, 2, AC_CURVE_CUBIC, AC_EXTRAP_CLAMP,
                               AC_EXTRAP_CLAMP, &curve, NULL, &err) == AC_ERR_VALUE);
    CHECK(err.arg == AC_ARG_IN_TANGENTS);
    tan[5] = NAN;
    CHECK(ac_quat_curve_create(times, keys, tan, tan, 2, AC_CURVE_CUBIC, AC_EXTRAP_CLAMP,
                               AC_EXTRAP_CLAMP, &curve, NULL, &err) == AC_ERR_VALUE);
    CHECK(err.arg == AC_ARG_IN_TANGENTS && err.index == 1);
    CHECK(ac_quat_curve_create(times, keys, NULL, NULL, 0, AC_CURVE_LINEAR, AC_EXTRAP_CLAMP,
                               AC_EXTRAP_CLAMP, &curve, NULL, &err) == AC_ERR_VALUE);
    CHECK(ac_quat_curve_create(times, keys, NULL, NULL, 2, (ac_curve_interpolation)7, AC_EXTRAP_CLAMP,
                               AC_EXTRAP_CLAMP, &curve, NULL, &err) == AC_ERR_VALUE);
    CHECK(ac_quat_curve_create(times, keys, NULL, NULL, 2, AC_CURVE_LINEAR, AC_EXTRAP_CLAMP,
                               (ac_curve_extrapolation)9, &curve, NULL, &err) == AC_ERR_VALUE);
    CHECK(err.arg == AC_ARG_AFTER);
    CHECK(ac_quat_curve_create(times, keys, NULL, NULL, 2, AC_CURVE_LINEAR, AC_EXTRAP_CLAMP,
                               AC_EXTRAP_CLAMP, &curve, NULL, &err) == AC_OK);
    {
        double t = NAN, q[4];
        CHECK(ac_quat_curve_eval(curve, NULL, &t, 1, AC_SIDE_RIGHT, q, NULL, &err) == AC_ERR_VALUE);
        CHECK(strcmp(err.detail, "must be finite") == 0);
    }
    ac_quat_curve_destroy(curve);
}

/* The vectorized slerp agrees with the shared scalar ac_quat_slerp, also for
   nearly equal and nearly opposite pairs, and across block boundaries. */
static void slerp_paths(void)
{
    enum { N = 1500 };
    static double a[4 * N], b[4 * N], t[N], out[4 * N];
    unsigned seed = 12345;
    for (int i = 0; i < 4 * N; i++) {
        seed = seed * 1103515245u + 12345u;
        a[i] = (double)(seed >> 8) / (1u << 24) - 0.5;
        seed = seed * 1103515245u + 12345u;
        b[i] = (double)(seed >> 8) / (1u << 24) - 0.5;
    }
    for (int i = 0; i < N; i++)
        t[i] = (double)i / (N - 1);
    for (int k = 0; k < 4; k++) {
        b[4 * 10 + k] = a[4 * 10 + k] * (1.0 + 1e-13 * k);   /* nearly equal */
        b[4 * 11 + k] = -a[4 * 11 + k] * (1.0 + 1e-13 * k);  /* nearly opposite */
    }
    CHECK(ac_quat_batch_slerp(a, b, t, NULL, out, N, NULL) == AC_OK);
    for (int i = 0; i < N; i++) {
        double ua[4], ub[4], r[4];
        ac_quat_normalize(a + 4 * i, ua);
        ac_quat_normalize(b + 4 * i, ub);
        ac_quat_slerp(ua, ub, t[i], r);
        for (int k = 0; k < 4; k++)
            CHECK_NEAR(out[4 * i + k], r[k], 2e-15);
    }
    /* One element of extreme length sends its block down the careful path:
       it gets the result of its rescaled self, the others keep theirs bit
       for bit, and so does an element evaluated on its own. */
    {
        static double again[4 * N];
        double one[4], big[4];
        for (int k = 0; k < 4; k++) {
            big[k] = a[4 * 600 + k] * 0x1p600;
            a[4 * 600 + k] = big[k];
        }
        CHECK(ac_quat_batch_slerp(a, b, t, NULL, again, N, NULL) == AC_OK);
        for (int i = 0; i < N; i++) {
            CHECK(ac_quat_batch_slerp(a + 4 * i, b + 4 * i, t + i, NULL, one, 1, NULL) == AC_OK);
            CHECK(memcmp(one, again + 4 * i, sizeof one) == 0);
            if (i != 600)
                CHECK(memcmp(out + 4 * i, again + 4 * i, sizeof one) == 0);
        }
        for (int k = 0; k < 4; k++)
            CHECK(again[4 * 600 + k] == out[4 * 600 + k]);
    }
}

/* A linear rotation track between two keys is the batch slerp of the keys,
   bit for bit. */
static void slerp_track(void)
{
    const double times[2] = {1.0, 3.0};
    const double keys[8] = {0.1, -0.2, 0.3, 0.9273618495495704, -0.5, 0.5, 0.5, -0.5};
    double q[4], expect[4], u;
    ac_quat_curve *curve = NULL;
    CHECK(ac_quat_curve_create(times, keys, NULL, NULL, 2, AC_CURVE_LINEAR, AC_EXTRAP_CLAMP,
                               AC_EXTRAP_CLAMP, &curve, NULL, NULL) == AC_OK);
    for (int j = 0; j < 8; j++) {
        double t = 1.0 + 0.25 * j;
        double k0[4], k1[4];
        CHECK(ac_quat_batch_normalize(keys, k0, 1, NULL) == AC_OK);
        CHECK(ac_quat_batch_normalize(keys + 4, k1, 1, NULL) == AC_OK);
        u = (t - 1.0) / 2.0;
        CHECK(ac_quat_batch_slerp(k0, k1, &u, NULL, expect, 1, NULL) == AC_OK);
        CHECK(ac_quat_curve_eval(curve, NULL, &t, 1, AC_SIDE_RIGHT, q, NULL, NULL) == AC_OK);
        CHECK(memcmp(q, expect, sizeof q) == 0);
    }
    ac_quat_curve_destroy(curve);
}

/* The keys above lie in opposite hemispheres: the last key is stored negated,
   so the result at it continues the arc. A full turn about z ends on -first:
   odd cycles are negated, so every seam continues too. */
static void sign_continuity(void)
{
    const double times[2] = {1.0, 3.0}, turn_t[3] = {0.0, 1.0, 2.0};
    const double keys[8] = {0.1, -0.2, 0.3, 0.9273618495495704, -0.5, 0.5, 0.5, -0.5};
    const double turn[12] = {0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, -1};
    double t[2] = {3.0 - 1e-9, 3.0}, seam[4] = {2.0 - 1e-9, 2.0 + 1e-9, 4.0 - 1e-9, 4.0 + 1e-9};
    double q[16], k1[4];
    ac_quat_curve *curve = NULL;
    CHECK(ac_quat_batch_normalize(keys + 4, k1, 1, NULL) == AC_OK);
    for (int interp = AC_CURVE_STEP; interp <= AC_CURVE_LINEAR; interp++) {
        CHECK(ac_quat_curve_create(times, keys, NULL, NULL, 2, (ac_curve_interpolation)interp,
                                   AC_EXTRAP_CLAMP, AC_EXTRAP_CLAMP, &curve, NULL, NULL) == AC_OK);
        CHECK(ac_quat_curve_eval(curve, NULL, t, 2, AC_SIDE_RIGHT, q, NULL, NULL) == AC_OK);
        for (int k = 0; k < 4; k++)
            CHECK(q[4 + k] == -k1[k]); /* the last key, in the first one's hemisphere */
        if (interp == AC_CURVE_LINEAR)
            CHECK(ac_quat_dot4(q, q + 4) > 0.999999);
        ac_quat_curve_destroy(curve);
    }
    CHECK(ac_quat_curve_create(turn_t, turn, NULL, NULL, 3, AC_CURVE_LINEAR, AC_EXTRAP_CYCLE,
                               AC_EXTRAP_CYCLE, &curve, NULL, NULL) == AC_OK);
    CHECK(ac_quat_curve_eval(curve, NULL, seam, 4, AC_SIDE_RIGHT, q, NULL, NULL) == AC_OK);
    CHECK(ac_quat_dot4(q, q + 4) > 0.999999);     /* cycle 0 into cycle 1 (negated) */
    CHECK(ac_quat_dot4(q + 8, q + 12) > 0.999999); /* cycle 1 into cycle 2 */
    CHECK(q[7] < -0.999999 && q[15] > 0.999999); /* -first in cycle 1, first in cycle 2 */
    ac_quat_curve_destroy(curve);
}

/* Steps other than 0 and 1 (every other item of a, say) give each item's
   own result, whichever path the kernel takes for them. */
static void other_steps(void)
{
    enum { N = 40 };
    double a[8 * N], b[4 * N], v[3 * N], t[N], out[4 * N], want[4];
    size_t every_other[3] = {2, 1, 1};
    ac_error err;
    for (int i = 0; i < 8 * N; i++)
        a[i] = sin(1.0 + i);
    for (int i = 0; i < 4 * N; i++)
        b[i] = cos(2.0 + 3 * i);
    for (int i = 0; i < 3 * N; i++)
        v[i] = sin(0.5 * i);
    for (int i = 0; i < N; i++)
        t[i] = (i % 11) / 10.0;
    CHECK(ac_quat_batch_multiply(a, b, every_other, out, N, &err) == AC_OK);
    for (int i = 0; i < N; i++) {
        ac_quat_mul(a + 8 * i, b + 4 * i, want);
        for (int k = 0; k < 4; k++)
            CHECK(out[4 * i + k] == want[k]);
    }
    CHECK(ac_quat_batch_rotate(a, v, every_other, out, N, &err) == AC_OK);
    for (int i = 0; i < N; i++) {
        double u[4];
        ac_quat_normalize(a + 8 * i, u);
        ac_quat_rotate(u, v + 3 * i, want);
        for (int k = 0; k < 3; k++)
            CHECK(out[3 * i + k] == want[k]);
    }
    CHECK(ac_quat_batch_slerp(a, b, t, every_other, out, N, &err) == AC_OK);
    for (int i = 0; i < N; i++) {
        double x[4], y[4];
        ac_quat_normalize(a + 8 * i, x);
        ac_quat_normalize(b + 4 * i, y);
        ac_quat_slerp_any(x, y, t[i], want);
        for (int k = 0; k < 4; k++)
            CHECK(out[4 * i + k] == want[k]);
    }
}

/* ac_quat_curve_eval_check: whenever it vouches for a time, evaluating
   there (with or without angular velocities, on either side) succeeds, for
   each interpolation and rotation extrapolation, with keys far apart, keys
   too close for their turn and times out to DBL_MAX; and it does vouch for
   ordinary times. */
static void curve_eval_check(void)
{
    const int modes[5] = {AC_EXTRAP_CLAMP, AC_EXTRAP_LINEAR, AC_EXTRAP_CYCLE,
                          AC_EXTRAP_OSCILLATE, AC_EXTRAP_ERROR};
    const double spans[3][3] = {{0.0, 2.0, 3.0}, {-1e308, 0.0, 1e308}, {0.0, 1e-309, 2e-309}}; /* too close for a quarter turn */
    double keys[12] = {0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0}, zeros[12] = {0};
    double qs[2 * 3 * 64 + 16], q[4], w[3];
    const double mantissas[3] = {1, 2, 5};
    size_t nq = 0, vouched = 0, trials = 0;
    keys[6] = sin(PI / 4), keys[7] = cos(PI / 4);
    for (int e = -3; e <= 308; e += 5) /* 1, 2 and 5 times powers of ten up to 1e307 */
        for (int m = 0; m < 3; m++)
            qs[nq++] = mantissas[m] * pow(10.0, e), qs[nq++] = -mantissas[m] * pow(10.0, e);
    for (int i = 0; i < 3; i++)
        qs[nq++] = spans[0][i], qs[nq++] = nextafter(spans[0][i], -INFINITY),
        qs[nq++] = nextafter(spans[0][i], INFINITY);
    qs[nq++] = DBL_MAX, qs[nq++] = -DBL_MAX, qs[nq++] = NAN, qs[nq++] = INFINITY;
    qs[nq++] = -INFINITY, qs[nq++] = 1e-300, qs[nq++] = 0.0;
    for (int span = 0; span < 3; span++)
        for (int interp = AC_CURVE_STEP; interp <= AC_CURVE_CUBIC; interp++)
            for (int b = 0; b < 5; b++)
                for (int a = 0; a < 5; a++) {
                    ac_quat_curve *curve = NULL;
                    if (ac_quat_curve_create(spans[span], keys, zeros, zeros, 3,
                                             (ac_curve_interpolation)interp,
                                             (ac_curve_extrapolation)modes[b],
                                             (ac_curve_extrapolation)modes[a], &curve, NULL,
                                             NULL) != AC_OK)
                        continue;
                    for (size_t i = 0; i < nq; i++)
                        for (int side = 0; side < 2; side++)
                            for (int omega = 0; omega < 2; omega++) {
                                ac_error err;
                                trials++;
                                if (!ac_quat_curve_eval_check(curve, &qs[i], 1, side, omega))
                                    continue;
                                vouched++;
                                if (ac_quat_curve_eval(curve, NULL, &qs[i], 1, side, q,
                                                       omega ? w : NULL, &err)) {
                                    fprintf(stderr, "vouched for t=%.17g side=%d omega=%d "
                                            "span=%d interp=%d modes=%d,%d: %s\n", qs[i], side,
                                            omega, span, interp, modes[b], modes[a], err.detail);
                                    CHECK(0);
                                }
                            }
                    CHECK(!ac_quat_curve_eval_check(curve, qs, 1, 2, false));
                    /* a step curve's angular velocity is 0 whatever the keys */
                    CHECK(ac_quat_curve_eval_check(curve, qs, 0, 0, true) ==
                          (interp == AC_CURVE_STEP || (interp == AC_CURVE_LINEAR && span != 2)));
                    {
                        double inside[3] = {spans[span][0], spans[span][1], spans[span][2]};
                        int turns = modes[b] == AC_EXTRAP_LINEAR || modes[a] == AC_EXTRAP_LINEAR;
                        CHECK(ac_quat_curve_eval_check(curve, inside, 3, AC_SIDE_LEFT, false) ==
                              (interp == AC_CURVE_STEP ||
                               (interp == AC_CURVE_LINEAR && !(span == 2 && turns))));
                    }
                    ac_quat_curve_destroy(curve);
                }
    CHECK(vouched > trials / 10);
}

/* ac_quat_curve_borrow reads the caller's keys where they are and gives
   what a curve on its own copies gives, for every interpolation; the keys
   as given read back from either. */
static void borrowed_curves(void)
{
    const double times[4] = {0.0, 0.5, 1.5, 2.0};
    const double keys[16] = {0, 0, 0, 2, 0.3, 0.1, 0, -0.9, 0, 1, 1, 0, 0.2, -0.5, 0.1, 0.4};
    const double tangents[16] = {0.1, 0, 0, 0, 0, 0.2, 0, 0, 0, 0, 0.3, 0, 0, 0, 0, 0.4};
    const double t[6] = {-0.25, 0.0, 0.4, 0.5, 1.75, 2.5};
    for (int interp = AC_CURVE_STEP; interp <= AC_CURVE_CUBIC; interp++) {
        ac_quat_curve *own = NULL, *lent = NULL;
        ac_error err;
        const double *tin = interp == AC_CURVE_CUBIC ? tangents : NULL;
        for (int side = AC_SIDE_RIGHT; side <= AC_SIDE_LEFT; side++) {
            double a[24], b[24], wa[18], wb[18];
            CHECK(ac_quat_curve_create(times, keys, tin, tin, 4, (ac_curve_interpolation)interp,
                                       AC_EXTRAP_LINEAR, AC_EXTRAP_CYCLE, &own, NULL, &err) == AC_OK);
            CHECK(ac_quat_curve_borrow(times, keys, tin, tin, 4, (ac_curve_interpolation)interp,
                                       AC_EXTRAP_LINEAR, AC_EXTRAP_CYCLE, &lent, NULL, &err) == AC_OK);
            CHECK(ac_quat_curve_times(lent) == times && ac_quat_curve_quats(lent) == keys);
            CHECK(ac_quat_curve_times(own) != times && ac_quat_curve_keys(own) == 4);
            CHECK(memcmp(ac_quat_curve_quats(own), keys, sizeof keys) == 0);
            CHECK(ac_quat_curve_eval(own, NULL, t, 6, side, a, wa, &err) == AC_OK);
            CHECK(ac_quat_curve_eval(lent, NULL, t, 6, side, b, wb, &err) == AC_OK);
            CHECK(memcmp(a, b, sizeof a) == 0 && memcmp(wa, wb, sizeof wa) == 0);
            ac_quat_curve_destroy(own);
            ac_quat_curve_destroy(lent);
        }
    }
}

/* ac_quat_curve_validate gives every error ac_quat_curve_create gives, the
   same one, and accepts what it builds. */
static void validate_matches_create(void)
{
    enum { K = 3 };
    for (int fault = 0; fault < 9; fault++)
        for (int interp = AC_CURVE_STEP; interp <= AC_CURVE_CUBIC; interp++) {
            double times[K] = {0.0, 1.0, 11.0}, tan[4 * K] = {0};
            double keys[4 * K] = {0, 0, 0, 1, 0, 0.6, 0, 0.8, 0, 0, -1, 0};
            ac_curve_extrapolation after = AC_EXTRAP_CLAMP;
            ac_quat_curve *curve = NULL;
            ac_error made, checked;
            ac_status st_made, st_checked;
            size_t k = K;
            switch (fault) {
            case 1: times[2] = 1.0; break;              /* not increasing */
            case 2: times[0] = NAN; break;              /* not finite */
            case 3: keys[5] = INFINITY; break;          /* a key not finite */
            case 4: memset(keys + 8, 0, 4 * sizeof(double)); break; /* a zero key */
            case 5: tan[6] = NAN; break;                /* a tangent not finite */
            case 6: tan[9] = 1e308; break;              /* dt * tangent overflows */
            case 7: after = (ac_curve_extrapolation)9; break;
            case 8: k = 0; break;
            default: break;
            }
            memset(&made, 0, sizeof made);
            memset(&checked, 0, sizeof checked);
            st_made = ac_quat_curve_create(times, keys, tan, tan, k,
                                           (ac_curve_interpolation)interp, AC_EXTRAP_CLAMP,
                                           after, &curve, NULL, &made);
            st_checked = ac_quat_curve_validate(times, keys, tan, tan, k,
                                                (ac_curve_interpolation)interp,
                                                AC_EXTRAP_CLAMP, after, &checked);
            CHECK(st_made == st_checked);
            CHECK((st_made == AC_OK) == (curve != NULL));
            CHECK(st_made != AC_OK || fault == 0 || (fault >= 5 && fault <= 6 &&
                                                     interp != AC_CURVE_CUBIC));
            if (st_made) {
                CHECK(made.arg == checked.arg && made.index == checked.index);
                CHECK(strcmp(made.detail, checked.detail) == 0);
                CHECK(memcmp(&made.value, &checked.value, sizeof made.value) == 0);
            }
            ac_quat_curve_destroy(curve);
        }
}

int main(void)
{
    borrowed_curves();
    batch();
    other_steps();
    slerp_paths();
    slerp_track();
    sign_continuity();
    batch_errors();
    multiply_check();
    kernel_checks();
    long_products();
    curves();
    curve_sides();
    curve_errors();
    validate_matches_create();
    curve_eval_check();
    TEST_DONE("test_quat");
}
