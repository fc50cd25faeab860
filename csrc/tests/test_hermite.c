/* The core's Hermite kernels against the article's figures and an analytic
   cubic, plus every error branch. */
#include <float.h>
#include <string.h>

#include "ac_test.h"

static const size_t keys_shared[6] = {0, 0, 0, 0, 0, 1};

static void article_figures(void)
{
    double p0 = 0, p1 = 10, v0 = 2, v1 = 0, T = 2, t[3] = {0, 1, 2}, x[3], v[3];
    ac_error err;
    CHECK(ac_hermite_eval(&p0, &p1, &v0, &v1, &T, t, keys_shared, x, v, 3, &err) == AC_OK);
    CHECK_NEAR(x[1], 5.5, 1e-12);
    CHECK_NEAR(v[0], 2.0, 1e-12);
    CHECK_NEAR(v[1], 7.0, 1e-12);
    CHECK_NEAR(x[2], 10.0, 1e-12);

    /* Overshoot: p=(0,1), v=(6,-6), T=1 peaks at 2 in the middle. */
    {
        double q0 = 0, q1 = 1, w0 = 6, w1 = -6, d = 1, half = 0.5, y;
        CHECK(ac_hermite_eval(&q0, &q1, &w0, &w1, &d, &half, keys_shared, &y, NULL, 1,
                              &err) == AC_OK);
        CHECK_NEAR(y, 2.0, 1e-12);
    }
}

/* f(t) = a t^3 + b t^2 + 2t - 3 is a cubic, so Hermite with its end values and
   end derivatives reproduces it exactly. */
static void polynomial_sweep(void)
{
    enum { SAMPLES = 101 };
    int points = 0;
    for (int a = -2; a <= 2; a++)
        for (int b = -2; b <= 2; b++)
            for (int T = 1; T <= 8; T++) {
                double p0 = -3, p1 = a * T * T * T + b * T * T + 2.0 * T - 3;
                double v0 = 2, v1 = 3.0 * a * T * T + 2.0 * b * T + 2, d = T;
                double t[SAMPLES], x[SAMPLES], v[SAMPLES];
                for (int i = 0; i < SAMPLES; i++)
                    t[i] = d * i / (SAMPLES - 1);
                CHECK(ac_hermite_eval(&p0, &p1, &v0, &v1, &d, t, keys_shared, x, v, SAMPLES,
                                      NULL) == AC_OK);
                for (int i = 0; i < SAMPLES; i++, points++) {
                    double s = t[i];
                    CHECK_NEAR(x[i], a * s * s * s + b * s * s + 2 * s - 3, 1e-9);
                    CHECK_NEAR(v[i], 3 * a * s * s + 2 * b * s + 2, 1e-9);
                }
            }
    CHECK(points == 20200);
}

static ac_error expect_error(double p0, double p1, double v0, double v1, double T,
                             double t, ac_status status, const char *arg)
{
    double x = 123.0, v = 456.0;
    ac_error err;
    memset(&err, 0, sizeof err);
    CHECK(ac_hermite_eval(&p0, &p1, &v0, &v1, &T, &t, NULL, &x, &v, 1, &err) == status);
    CHECK(err.status == status);
    CHECK(strcmp(ac_arg_name(err.arg), arg) == 0);
    CHECK(err.index == 0);
    return err;
}

static void errors(void)
{
    ac_error err;
    expect_error(NAN, 1, 0, 0, 1, 0, AC_ERR_VALUE, "start");
    expect_error(0, INFINITY, 0, 0, 1, 0, AC_ERR_VALUE, "end");
    expect_error(0, 1, NAN, 0, 1, 0, AC_ERR_VALUE, "start_velocity");
    expect_error(0, 1, 0, -INFINITY, 1, 0, AC_ERR_VALUE, "end_velocity");
    expect_error(0, 1, 0, 0, NAN, 0, AC_ERR_VALUE, "duration");
    err = expect_error(0, 1, 0, 0, 0, 0, AC_ERR_VALUE, "duration");
    CHECK(strcmp(err.detail, "must be > 0") == 0);
    expect_error(0, 1, 0, 0, -2, 0, AC_ERR_VALUE, "duration");
    expect_error(0, 1, DBL_MAX, 0, 2, 0, AC_ERR_OVERFLOW, "start_velocity");
    expect_error(0, 1, 0, -DBL_MAX, 2, 0, AC_ERR_OVERFLOW, "end_velocity");
    expect_error(0, 1, 0, 0, 1, NAN, AC_ERR_VALUE, "elapsed");
    err = expect_error(0, 10, 2, 0, 2, 2.5, AC_ERR_VALUE, "elapsed");
    CHECK(strcmp(err.detail, "must lie in [0, duration=2]") == 0);
    CHECK(err.value == 2.5);
    expect_error(0, 1, 0, 0, 1, -1e-300, AC_ERR_VALUE, "elapsed");
    expect_error(DBL_MAX, DBL_MAX, DBL_MAX / 2, DBL_MAX / 2, 1, 0.5, AC_ERR_OVERFLOW, "position");
    /* Position fits, but dividing dx/du by a tiny duration does not. */
    expect_error(0, 1e300, 0, 0, 1e-10, 0.5e-10, AC_ERR_OVERFLOW, "velocity");

    /* The first failing element is reported, by its flat index. */
    {
        double p0 = 0, p1 = 1, v0 = 0, v1 = 0, T = 1, t[4] = {0, 0.5, 2, -1}, x[4];
        CHECK(ac_hermite_eval(&p0, &p1, &v0, &v1, &T, t, keys_shared, x, NULL, 4, &err) ==
              AC_ERR_VALUE);
        CHECK(err.index == 2);
    }
    CHECK(strcmp(ac_status_name(AC_ERR_OVERFLOW), "overflow") == 0);
    /* every argument id has its own C spelling */
    CHECK(strcmp(ac_arg_name(AC_ARG_NONE), "") == 0 && ac_arg_name(AC_ARG_ID_COUNT) == NULL);
    CHECK(strcmp(ac_arg_name(AC_ARG_ELAPSED), "elapsed") == 0);
    CHECK(strcmp(ac_arg_name(AC_ARG_Q_NORM), "|q|") == 0);
    for (int a = 1; a < AC_ARG_ID_COUNT; a++) {
        CHECK(ac_arg_name((ac_arg)a) != NULL && ac_arg_name((ac_arg)a)[0] != '\0');
        for (int b = 1; b < a; b++)
            CHECK(strcmp(ac_arg_name((ac_arg)a), ac_arg_name((ac_arg)b)) != 0);
    }
}

static void segments_and_conversions(void)
{
    ac_hermite seg;
    ac_error err;
    double v[3] = {2, -1, 0.5}, T[3] = {2, 4, 0.25}, m[3], back[3];
    CHECK(ac_hermite_init(&seg, 0, 10, 2, 0, 2, &err) == AC_OK);
    CHECK(seg.start_tangent == 4.0 && seg.end_tangent == 0.0);
    CHECK(ac_hermite_init(&seg, 0, 10, 2, 0, 0, &err) == AC_ERR_VALUE);
    CHECK(ac_hermite_velocity_to_tangent(v, T, NULL, m, 3, &err) == AC_OK);
    CHECK(m[0] == 4.0 && m[1] == -4.0 && m[2] == 0.125);
    CHECK(ac_hermite_tangent_to_velocity(m, T, NULL, back, 3, &err) == AC_OK);
    CHECK(back[0] == 2.0 && back[1] == -1.0 && back[2] == 0.5);
    T[1] = -1;
    CHECK(ac_hermite_velocity_to_tangent(v, T, NULL, m, 3, &err) == AC_ERR_VALUE);
    CHECK(err.index == 1 && err.arg == AC_ARG_DURATION);
    T[1] = 1e-310;
    CHECK(ac_hermite_tangent_to_velocity(v, T, NULL, m, 3, &err) == AC_ERR_OVERFLOW);
    CHECK(err.arg == AC_ARG_TANGENT);
    T[1] = INFINITY;
    CHECK(ac_hermite_velocity_to_tangent(v, T, NULL, m, 3, &err) == AC_ERR_VALUE);
    CHECK(err.index == 1 && strcmp(err.detail, "must be finite") == 0);
    T[1] = 4, v[2] = NAN;
    CHECK(ac_hermite_tangent_to_velocity(v, T, NULL, m, 3, &err) == AC_ERR_VALUE);
    CHECK(err.index == 2 && err.arg == AC_ARG_TANGENT);
}

int main(void)
{
    article_figures();
    polynomial_sweep();
    errors();
    segments_and_conversions();
    TEST_DONE("test_hermite");
}
