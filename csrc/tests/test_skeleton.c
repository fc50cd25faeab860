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

int main(void)
{
    hierarchy();
    errors();
    conversions();
    TEST_DONE("test_skeleton");
}
