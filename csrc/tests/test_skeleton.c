/* Skeletons: evaluation order, forward kinematics by hand, the inverse, the
   decomposition, and every error branch. */
#include <string.h>

#include "ac_internal.h"
#include "ac_test.h"

static void hierarchy(void)
{
    /* joint 0's parent is 2, listed after it */
    int64_t parents[3] = {2, -1, 1}, order[3];
    double t[9] = {1, 0, 0, 0, 0, 0, 1, 0, 0};
    double h = sqrt(0.5), q[12] = {0, 0, h, h, 0, 0, 0, 1, 0, 0, h, h};
    double s[9] = {1, 1, 1, 1, 1, 1, 2, 2, 2};
    double world[48], local[48], tt[3], rr[4], ss[3];
    ac_skeleton *sk = NULL;
    ac_error err;
    CHECK(ac_skeleton_create(parents, 3, &sk, NULL, &err) == AC_OK);
    CHECK(ac_skeleton_joints(sk) == 3);
    ac_skeleton_order(sk, order);
    CHECK(order[0] == 1 && order[1] == 2 && order[2] == 0);
    CHECK(ac_skeleton_world(sk, t, q, s, NULL, world, 1, &err) == AC_OK);
    /* joint 2: a quarter turn about z, scale 2, at (1, 0, 0); joint 0 one unit
       along its x axis: 2 units along world y */
    CHECK_NEAR(world[16 * 0 + 3], 1.0, 1e-15);
    CHECK_NEAR(world[16 * 0 + 7], 2.0, 1e-15);
    CHECK_NEAR(world[16 * 0 + 0], -2.0, 1e-15); /* two quarter turns: x -> -x, times 2 */
    CHECK(world[16 * 0 + 15] == 1.0 && world[16 * 0 + 12] == 0.0);
    CHECK(ac_skeleton_local(sk, world, local, 1, &err) == AC_OK);
    CHECK(ac_skeleton_decompose(local, tt, rr, ss, 1, &err) == AC_OK);
    CHECK_NEAR(tt[0], 1.0, 1e-15);
    CHECK_NEAR(fabs(rr[2]), h, 1e-15);
    CHECK_NEAR(ss[1], 1.0, 1e-15);
    CHECK(ac_skeleton_decompose(world + 32, tt, rr, ss, 1, &err) == AC_OK);
    CHECK_NEAR(ss[0], 2.0, 1e-15);
    ac_skeleton_destroy(sk);
}

static void errors(void)
{
    int64_t cycle[3] = {-1, 2, 1}, range[2] = {-1, 2}, self[1] = {0}, ok[2] = {-1, 0};
    double t[6] = {0}, q[8] = {0, 0, 0, 1, 0, 0, 0, 0}, s[6] = {1, 1, 1, 1, 1, 1};
    double world[32], out[32], m[16] = {1, 1, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}, r3[9];
    double tt[3], rr[4], ss[3];
    ac_skeleton *sk = NULL;
    ac_error err;
    CHECK(ac_skeleton_create(cycle, 3, &sk, NULL, &err) == AC_ERR_VALUE && sk == NULL);
    CHECK(err.arg == AC_ARG_PARENTS && (err.index == 1 || err.index == 2));
    CHECK(ac_skeleton_create(range, 2, &sk, NULL, &err) == AC_ERR_VALUE && err.index == 1);
    CHECK(err.value == 2.0);
    CHECK(ac_skeleton_create(NULL, 0, &sk, NULL, &err) == AC_OK && ac_skeleton_joints(sk) == 0);
    ac_skeleton_destroy(sk);
    sk = NULL;
    CHECK(ac_skeleton_create(self, 1, &sk, NULL, &err) == AC_ERR_VALUE && err.index == 0);
    CHECK(ac_skeleton_create(ok, 2, &sk, NULL, &err) == AC_OK);
    CHECK(ac_skeleton_world(sk, t, q, s, NULL, world, 1, &err) == AC_ERR_VALUE);
    CHECK(err.arg == AC_ARG_ROTATION_NORM && err.index == 1);
    q[7] = 1.0;
    s[4] = NAN;
    CHECK(ac_skeleton_world(sk, t, q, s, NULL, world, 1, &err) == AC_ERR_VALUE);
    CHECK(err.arg == AC_ARG_SCALE && err.index == 1);
    s[4] = 1.0;
    t[0] = t[3] = 1e308;
    CHECK(ac_skeleton_world(sk, t, q, s, NULL, world, 1, &err) == AC_ERR_OVERFLOW);
    CHECK(err.arg == AC_ARG_WORLD && err.index == 1);
    memset(world, 0, sizeof world);
    world[15] = world[31] = 1.0; /* affine, but the parent's 3x3 part is singular */
    CHECK(ac_skeleton_local(sk, world, out, 1, &err) == AC_ERR_VALUE);
    CHECK(err.arg == AC_ARG_WORLD && err.index == 0);
    ac_skeleton_destroy(sk);
    CHECK(ac_skeleton_decompose(m, tt, rr, ss, 1, &err) == AC_ERR_VALUE); /* sheared */
    CHECK(err.arg == AC_ARG_MATRIX);
    m[1] = 0.0, m[15] = 2.0;
    CHECK(ac_skeleton_decompose(m, tt, rr, ss, 1, &err) == AC_ERR_VALUE); /* not affine */
    memset(r3, 0, sizeof r3);
    r3[0] = -1, r3[4] = 1, r3[8] = 1;
    CHECK(ac_quat_batch_from_matrix(r3, rr, 1, &err) == AC_ERR_VALUE);
    CHECK(err.arg == AC_ARG_MATRIX_DET && err.value == -1.0);
}

static void conversions(void)
{
    const double PI = 3.14159265358979323846;
    int zyx[3] = {2, 1, 0}, bad[3] = {0, 0, 1};
    double angles[3] = {0.3, -0.2, 0.1}, q[4], back[3], m[9], q2[4], v[3], q3[4];
    ac_error err;
    CHECK(ac_quat_batch_from_euler(angles, zyx, 0, q, 1, &err) == AC_OK);
    CHECK(ac_quat_batch_to_euler(q, zyx, 0, back, 1, &err) == AC_OK);
    for (int k = 0; k < 3; k++)
        CHECK_NEAR(back[k], angles[k], 1e-15);
    CHECK(ac_quat_batch_to_matrix(q, m, 1, &err) == AC_OK);
    CHECK(ac_quat_batch_from_matrix(m, q2, 1, &err) == AC_OK);
    CHECK_NEAR(fabs(ac_quat_dot4(q, q2)), 1.0, 1e-15);
    CHECK(ac_quat_batch_to_rotvec(q, v, 1, &err) == AC_OK);
    CHECK(ac_quat_batch_from_rotvec(v, q3, 1, &err) == AC_OK);
    CHECK_NEAR(fabs(ac_quat_dot4(q, q3)), 1.0, 1e-15);
    {   /* a half turn about x: the rotation vector (pi, 0, 0) */
        double half[4] = {1, 0, 0, 0};
        CHECK(ac_quat_batch_to_rotvec(half, v, 1, &err) == AC_OK);
        CHECK_NEAR(v[0], PI, 1e-15);
    }
    CHECK(ac_quat_batch_to_euler(q, bad, 1, back, 1, &err) == AC_ERR_VALUE);
    CHECK(err.arg == AC_ARG_AXES);
    angles[1] = INFINITY;
    CHECK(ac_quat_batch_from_euler(angles, zyx, 1, q, 1, &err) == AC_ERR_VALUE);
    CHECK(err.arg == AC_ARG_ANGLES);
}

/* Many poses at once (vector lanes where the CPU has them, 8 poses at a
   time) give the bits of one pose at a time (the scalar path), and the same
   error: random poses with mirrors and zero scales, a shared (step 0)
   translation, poses that need the careful path (tiny and huge rotations),
   and in later rounds a world that overflows or a bad input. */
static double pose_value(uint64_t *state)
{
    *state ^= *state << 13, *state ^= *state >> 7, *state ^= *state << 17;
    return (double)(*state >> 11) / 4503599627370496.0 - 1.0; /* [-1, 1) */
}

static void lanes_match_poses(void)
{
    enum { J = 13, N = 29 };
    int64_t parents[J] = {-1, 0, 1, 0, 3, 4, -1, 6, 2, 8, 9, 5, 11};
    static double t[N * J * 3], q[N * J * 4], s[N * J * 3], all[N * J * 16], one[J * 16];
    static double bind[J * 16], skin[N * J * 16];
    const size_t steps[3] = {0, 1, 1}, skin_steps[4] = {0, 1, 1, 0};
    ac_skeleton *sk = NULL;
    ac_error err, err_one, err_skin;
    uint64_t state = 0x2545F4914F6CDD1Du;
    CHECK(ac_skeleton_create(parents, J, &sk, NULL, &err) == AC_OK);
    for (int round = 0; round < 8; round++) {
        size_t bad_pose = N, i;
        ac_status st, st_one = AC_OK;
        for (i = 0; i < N * J * 3; i++)
            t[i] = 10.0 * pose_value(&state),
            s[i] = pose_value(&state) < -0.9 ? 0.0 : 2.0 * pose_value(&state);
        for (i = 0; i < N * J * 4; i++)
            q[i] = pose_value(&state);
        q[4 * (J * 3 + 5)] *= 1e-170; /* tiny and huge: the careful path */
        for (int k = 0; k < 4; k++)
            q[4 * (J * 17 + 2) + k] *= 1e-170, q[4 * (J * 20 + 12) + k] *= 1e170;
        if (round == 1)
            s[3 * (J * 11 + 4)] = 1e300, s[3 * (J * 11 + 5)] = 1e300; /* overflows */
        if (round == 2)
            q[4 * (J * 18 + 9) + 2] = NAN, s[3 * (J * 18 + 7)] = INFINITY;
        if (round == 3)
            memset(q + 4 * (J * 26 + 10), 0, 4 * sizeof *q); /* no rotation */
        if (round == 4)
            t[1] = NAN; /* the translation every pose shares */
        for (i = 0; i < J * 16; i++)
            bind[i] = pose_value(&state);
        st = ac_skeleton_world(sk, t, q, s, steps, all, N, &err);
        /* skinning: the world matrices times bind, pose by pose, or world's error */
        CHECK(ac_skeleton_skin(sk, t, q, s, bind, skin_steps, skin, N, &err_skin) == st);
        if (st)
            CHECK(err_skin.index == err.index && err_skin.arg == err.arg);
        for (i = 0; i < N && !st; i++) {
            CHECK(ac_skeleton_multiply(all + 16 * J * i, bind, NULL, one, J, &err_one) == AC_OK);
            CHECK(memcmp(one, skin + 16 * J * i, sizeof one) == 0);
        }
        for (i = 0; i < N && !st_one; i++) {
            st_one = ac_skeleton_world(sk, t, q + 4 * J * i, s + 3 * J * i, steps, one, 1,
                                       &err_one);
            if (st_one)
                bad_pose = i;
            else
                CHECK(memcmp(one, all + 16 * J * i, sizeof one) == 0);
        }
        CHECK(st == st_one);
        CHECK((round >= 1 && round <= 4) == (bad_pose < N));
        if (st)
            CHECK(err.index == bad_pose * J + err_one.index && err.arg == err_one.arg &&
                  strcmp(err.detail, err_one.detail) == 0);
    }
    ac_skeleton_destroy(sk);
}

/* Products of 4x4 matrices: by hand (a turn about z times a translation and
   a scale), a shared factor, in place, and each error with its index. */
static void matrix_products(void)
{
    /* a: 90 degrees about z, then translated by (1, 2, 3); b: scale 2, moved by (0, 0, 1) */
    const double a[16] = {0, -1, 0, 1, 1, 0, 0, 2, 0, 0, 1, 3, 0, 0, 0, 1};
    const double b[16] = {2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 2, 1, 0, 0, 0, 1};
    const double ab[16] = {0, -2, 0, 1, 2, 0, 0, 2, 0, 0, 2, 4, 0, 0, 0, 1};
    const size_t shared[2] = {1, 0};
    double two[32], out[32], big[16];
    ac_error err;
    memcpy(two, a, sizeof a);
    memcpy(two + 16, b, sizeof b);
    CHECK(ac_skeleton_multiply(two, b, shared, out, 2, &err) == AC_OK);
    CHECK(memcmp(out, ab, sizeof ab) == 0);
    for (int i = 0; i < 4; i++) /* b b: the scale squared, the column (0, 0, 2 + 1) */
        for (int j = 0; j < 4; j++)
            CHECK(out[16 + 4 * i + j] == (i == j ? (i < 3 ? 4.0 : 1.0) : i == 2 && j == 3 ? 3.0
                                                                                          : 0.0));
    CHECK(ac_skeleton_multiply_check(two, b, shared, 2));
    CHECK(ac_skeleton_multiply(two, b, shared, two, 2, &err) == AC_OK); /* in place */
    CHECK(memcmp(two, out, sizeof out) == 0);
    two[16 + 6] = NAN;
    CHECK(!ac_skeleton_multiply_check(two, b, shared, 2));
    CHECK(ac_skeleton_multiply(two, b, shared, out, 2, &err) == AC_ERR_VALUE);
    CHECK(err.index == 1 && err.arg == AC_ARG_A);
    memcpy(big, b, sizeof b);
    big[0] = 0x1p600; /* 2^600 * 2^600: no double */
    two[16 + 6] = 0.0;
    two[16] = 0x1p600;
    CHECK(!ac_skeleton_multiply_check(two, big, shared, 2));
    CHECK(ac_skeleton_multiply(two, big, shared, out, 2, &err) == AC_ERR_OVERFLOW);
    CHECK(err.index == 1 && err.arg == AC_ARG_PRODUCT);
    CHECK(ac_skeleton_multiply(two, big, NULL, out, 0, &err) == AC_OK);
}

/* ac_skeleton_skin's own errors: a bind matrix that is not finite, a
   product beyond the doubles, each named by pose and joint. */
static void skin_errors(void)
{
    int64_t parents[2] = {-1, 0};
    double t[6] = {0}, q[8] = {0, 0, 0, 1, 0, 0, 0, 1}, s[6] = {1, 1, 1, 1, 1, 1};
    double bind[64] = {0}, out[64];
    const size_t steps[4] = {0, 0, 0, 1}; /* one pose, two sets of bind matrices */
    ac_skeleton *sk = NULL;
    ac_error err;
    CHECK(ac_skeleton_create(parents, 2, &sk, NULL, &err) == AC_OK);
    for (int m = 0; m < 4; m++)
        for (int k = 0; k < 4; k++)
            bind[16 * m + 5 * k] = 1.0;
    CHECK(ac_skeleton_skin(sk, t, q, s, bind, steps, out, 2, &err) == AC_OK);
    CHECK(out[0] == 1.0 && out[63] == 1.0);
    bind[16 * 3 + 2] = NAN; /* pose 1, joint 1 */
    CHECK(ac_skeleton_skin(sk, t, q, s, bind, steps, out, 2, &err) == AC_ERR_VALUE);
    CHECK(err.index == 3 && err.arg == AC_ARG_BIND);
    bind[16 * 3 + 2] = 0.0;
    bind[16 * 3 + 12] = 0x1p600, t[3] = 0x1p600; /* world row 0 x bind column 0 */
    CHECK(ac_skeleton_skin(sk, t, q, s, bind, steps, out, 2, &err) == AC_ERR_OVERFLOW);
    CHECK(err.index == 3 && err.arg == AC_ARG_PRODUCT);
    ac_skeleton_destroy(sk);
}

int main(void)
{
    hierarchy();
    errors();
    conversions();
    lanes_match_poses();
    matrix_products();
    skin_errors();
    TEST_DONE("test_skeleton");
}
