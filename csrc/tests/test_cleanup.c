/* Cleanup kernels: the Euler filter's two triplets and whole turns, the
   quaternion sign continuity, and the error branches. */
#include <math.h>

#include "ac_internal.h"
#include "ac_test.h"

static const double PI = 3.14159265358979323846;

static void euler(void)
{
    /* a wrap of the last angle: moved by a whole turn */
    double a[6] = {0.1, 0.2, 3.1, 0.1, 0.2, -3.1}, out[6];
    ac_error err;
    CHECK(ac_cleanup_euler_filter(a, 0, out, 2, &err) == AC_OK);
    CHECK(out[0] == 0.1 && out[2] == 3.1);
    CHECK_NEAR(out[5], 2 * PI - 3.1, 1e-15);
    /* Tait-Bryan: the other triplet (a + pi, pi - b, c + pi) is nearer */
    {
        double b[6] = {0.0, 1.5, 0.0, PI, PI - 1.52, PI}, o[6];
        CHECK(ac_cleanup_euler_filter(b, 0, o, 2, &err) == AC_OK);
        CHECK_NEAR(o[3], 0.0, 1e-15);
        CHECK_NEAR(o[4], 1.52, 1e-15);
        CHECK_NEAR(o[5], 0.0, 1e-15);
    }
    /* proper: (a + pi, -b, c + pi) */
    {
        double b[6] = {0.0, 0.05, 0.0, PI, -0.06, PI}, o[6];
        CHECK(ac_cleanup_euler_filter(b, 1, o, 2, &err) == AC_OK);
        CHECK_NEAR(o[3], 0.0, 1e-15);
        CHECK_NEAR(o[4], 0.06, 1e-15);
        CHECK_NEAR(o[5], 0.0, 1e-15);
    }
    CHECK(ac_cleanup_euler_filter(a, 0, out, 0, &err) == AC_OK);
    a[4] = NAN;
    CHECK(ac_cleanup_euler_filter(a, 0, out, 2, &err) == AC_ERR_VALUE);
    CHECK(err.index == 1 && err.arg == AC_ARG_ANGLES);
    CHECK(ac_cleanup_euler_filter(a, 0, out, 2, NULL) == AC_ERR_VALUE);
}

static void quats(void)
{
    double q[12] = {0, 0, 0, 1, 0, 0, 0.1, -1, 0, 0, 0.2, -1}, out[12];
    ac_error err;
    CHECK(ac_cleanup_quat_continuous(q, out, 3, &err) == AC_OK);
    CHECK(out[3] == 1 && out[7] == 1 && out[11] == 1 && out[6] == -0.1);
    q[9] = INFINITY;
    CHECK(ac_cleanup_quat_continuous(q, out, 3, &err) == AC_ERR_VALUE);
    CHECK(err.index == 2 && err.arg == AC_ARG_Q);
}

int main(void)
{
    euler();
    quats();
    TEST_DONE("test_cleanup");
}
