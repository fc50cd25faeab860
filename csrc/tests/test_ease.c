/* The easing kernels: article 004's smoothstep rates, Penner's values at a
   few points, CSS keyword values, steps(), inverses and every error branch. */
#include <float.h>
#include <string.h>

#include "ac_test.h"

static double ease1(ac_ease_kind kind, double u)
{
    double s = -1.0;
    CHECK(ac_ease_eval(kind, &u, &s, 1, NULL) == AC_OK);
    return s;
}

static double rate1(ac_ease_kind kind, double u)
{
    double r = -1.0;
    CHECK(ac_ease_rate(kind, &u, &r, 1, NULL) == AC_OK);
    return r;
}

static void article_figures(void)
{
    double u[3] = {0.25, 0.5, 0.75}, r[3];
    CHECK(ac_ease_rate(AC_EASE_SMOOTHSTEP, u, r, 3, NULL) == AC_OK);
    CHECK_NEAR(r[0], 1.125, 1e-15);
    CHECK_NEAR(r[1], 1.5, 1e-15);
    CHECK_NEAR(r[2], 1.125, 1e-15);
    CHECK(ease1(AC_EASE_SMOOTHSTEP, 0.5) == 0.5);
}

static void kinds(void)
{
    CHECK(strcmp(ac_ease_name(AC_EASE_CUBIC_IN_OUT), "cubic_in_out") == 0);
    CHECK(strcmp(ac_ease_name(AC_EASE_BOUNCE_IN_OUT), "bounce_in_out") == 0);
    CHECK(ac_ease_name(AC_EASE_COUNT) == NULL);
    CHECK(ac_ease_monotone(AC_EASE_CIRC_IN_OUT) && !ac_ease_monotone(AC_EASE_BACK_IN));
    for (int k = 0; k < AC_EASE_COUNT; k++) {
        CHECK(ease1((ac_ease_kind)k, 0.0) == 0.0);
        CHECK(ease1((ac_ease_kind)k, 1.0) == 1.0);
    }
    /* A few values worked by hand from Penner's equations. */
    CHECK_NEAR(ease1(AC_EASE_QUAD_IN_OUT, 0.25), 0.125, 1e-16);
    CHECK_NEAR(ease1(AC_EASE_CUBIC_OUT, 0.5), 0.875, 1e-16);
    CHECK_NEAR(ease1(AC_EASE_SINE_OUT, 0.5), sqrt(0.5), 4e-16);
    CHECK_NEAR(ease1(AC_EASE_EXPO_IN, 0.5), 1.0 / 32.0, 1e-17);
    CHECK_NEAR(ease1(AC_EASE_CIRC_IN, 0.5), 1.0 - sqrt(0.75), 1e-16);
    CHECK_NEAR(ease1(AC_EASE_BOUNCE_OUT, 0.5), 0.765625, 1e-15);
    CHECK_NEAR(ease1(AC_EASE_BACK_IN_OUT, 0.5), 0.5, 1e-15);
    CHECK_NEAR(rate1(AC_EASE_QUINT_IN, 0.5), 5.0 / 16.0, 1e-16);
    CHECK(rate1(AC_EASE_CIRC_IN, 1.0) == HUGE_VAL);
    /* Rates against central differences for every kind at an interior point
       away from the joints. */
    for (int k = 0; k < AC_EASE_COUNT; k++) {
        double u = 0.2137, h = 1e-6;
        double fd = (ease1((ac_ease_kind)k, u + h) - ease1((ac_ease_kind)k, u - h)) / (2 * h);
        CHECK_NEAR(rate1((ac_ease_kind)k, u), fd, 1e-6 * (1.0 + fabs(fd)));
    }
}

static void errors(void)
{
    double u[4] = {0.0, 0.5, 1.5, NAN}, s[4];
    ac_error err;
    CHECK(ac_ease_eval(AC_EASE_QUAD_IN, u, s, 4, &err) == AC_ERR_VALUE);
    CHECK(err.index == 2 && err.value == 1.5 && err.arg == AC_ARG_U);
    CHECK(strcmp(err.detail, "must lie in [0, 1]") == 0);
    CHECK(ac_ease_rate(AC_EASE_BOUNCE_IN, u + 3, s, 1, &err) == AC_ERR_VALUE);
    CHECK(strcmp(err.detail, "must be finite") == 0);
    CHECK(ac_ease_eval(AC_EASE_COUNT, u, s, 1, &err) == AC_ERR_VALUE);
    CHECK(err.arg == AC_ARG_KIND);
    CHECK(ac_ease_eval((ac_ease_kind)-1, u, s, 1, NULL) == AC_ERR_VALUE);
    CHECK(ac_ease_inverse(AC_EASE_ELASTIC_OUT, u, s, 1, &err) == AC_ERR_VALUE);
    CHECK(err.arg == AC_ARG_KIND && strstr(err.detail, "elastic_out") != NULL);
    CHECK(ac_ease_inverse(AC_EASE_QUAD_IN, u, s, 3, &err) == AC_ERR_VALUE);
    CHECK(err.index == 2 && err.arg == AC_ARG_S);
    CHECK(ac_ease_eval(AC_EASE_LINEAR, u, s, 0, &err) == AC_OK); /* empty is fine */
}

static void inverses(void)
{
    for (int k = 0; k < AC_EASE_COUNT; k++) {
        if (!ac_ease_monotone((ac_ease_kind)k))
            continue;
        for (int i = 0; i <= 64; i++) {
            double s = i / 64.0, u, back;
            CHECK(ac_ease_inverse((ac_ease_kind)k, &s, &u, 1, NULL) == AC_OK);
            CHECK(u >= 0.0 && u <= 1.0);
            back = ease1((ac_ease_kind)k, u);
            /* expo jumps at its ends: values inside the jump map to the end */
            if (!(k >= AC_EASE_EXPO_IN && k <= AC_EASE_EXPO_IN_OUT && s > 0 && s < 1))
                CHECK_NEAR(back, s, 1e-12);
        }
    }
}

static void bezier(void)
{
    ac_ease_bezier ease, ease_in, ease_in_out;
    ac_error err;
    double u = 0.5, q = 0.25, s, r;
    CHECK(ac_ease_bezier_init(&ease, 0.25, 0.1, 0.25, 1.0, &err) == AC_OK);
    CHECK(ac_ease_bezier_init(&ease_in, 0.42, 0.0, 1.0, 1.0, &err) == AC_OK);
    CHECK(ac_ease_bezier_init(&ease_in_out, 0.42, 0.0, 0.58, 1.0, &err) == AC_OK);
    CHECK(ac_ease_bezier_eval(&ease, &u, &s, &r, 1, &err) == AC_OK);
    CHECK_NEAR(s, 0.802403388, 1e-9);
    CHECK(ac_ease_bezier_eval(&ease_in, &u, &s, NULL, 1, &err) == AC_OK);
    CHECK_NEAR(s, 0.315356813, 1e-9);
    CHECK(ac_ease_bezier_eval(&ease_in_out, &q, &s, NULL, 1, &err) == AC_OK);
    CHECK_NEAR(s, 0.129161931, 1e-9);
    /* Where both speeds vanish at an end, the rate is the one-sided limit,
       the ratio of the second derivatives: ease-in arrives at 1 / 0.58. */
    {
        double one = 1.0;
        CHECK(ac_ease_bezier_eval(&ease_in, &one, &s, &r, 1, &err) == AC_OK);
        CHECK_NEAR(r, 1.0 / 0.58, 1e-15);
    }
    /* Long inputs take the vectorized path; it agrees with one-at-a-time
       solves, also on curves whose x speed vanishes (ease-in at 1). */
    {
        enum { N = 4096 };
        static double us[N], ss[N], rs[N];
        const ac_ease_bezier *curves[3] = {&ease, &ease_in, &ease_in_out};
        for (int c = 0; c < 3; c++) {
            for (int i = 0; i < N; i++)
                us[i] = (i * 7919 % N) / (double)(N - 1);
            CHECK(ac_ease_bezier_eval(curves[c], us, ss, rs, N, &err) == AC_OK);
            for (int i = 0; i < N; i += 7) {
                CHECK(ac_ease_bezier_eval(curves[c], &us[i], &s, &r, 1, &err) == AC_OK);
                CHECK_NEAR(ss[i], s, 1e-11);
                CHECK_NEAR(rs[i], r, 1e-7 * (1.0 + fabs(r)));
            }
        }
        us[N - 5] = 2.0;
        us[N - 2] = NAN;
        CHECK(ac_ease_bezier_eval(&ease, us, ss, NULL, N, &err) == AC_ERR_VALUE);
        CHECK(err.index == N - 5 && err.value == 2.0);
    }
    CHECK(ac_ease_bezier_init(&ease, 1.5, 0, 1, 1, &err) == AC_ERR_VALUE);
    CHECK(err.arg == AC_ARG_X1);
    CHECK(ac_ease_bezier_init(&ease, 0, NAN, 1, 1, &err) == AC_ERR_VALUE);
    CHECK(err.arg == AC_ARG_Y1);
    u = -0.5;
    CHECK(ac_ease_bezier_eval(&ease_in, &u, &s, NULL, 1, &err) == AC_ERR_VALUE);
}

static void steps(void)
{
    double u[5] = {0.0, 0.24, 0.25, 0.99, 1.0}, s[5];
    ac_error err;
    CHECK(ac_ease_steps_eval(4, AC_EASE_JUMP_END, u, s, 5, &err) == AC_OK);
    CHECK(s[0] == 0.0 && s[1] == 0.0 && s[2] == 0.25 && s[3] == 0.75 && s[4] == 1.0);
    CHECK(ac_ease_steps_eval(4, AC_EASE_JUMP_START, u, s, 5, &err) == AC_OK);
    CHECK(s[0] == 0.25 && s[4] == 1.0);
    CHECK(ac_ease_steps_eval(3, AC_EASE_JUMP_BOTH, u, s, 1, &err) == AC_OK);
    CHECK(s[0] == 0.25);
    CHECK(ac_ease_steps_eval(1, AC_EASE_JUMP_NONE, u, s, 1, &err) == AC_ERR_VALUE);
    CHECK(err.arg == AC_ARG_COUNT);
    CHECK(ac_ease_steps_eval(0, AC_EASE_JUMP_END, u, s, 1, &err) == AC_ERR_VALUE);
    CHECK(ac_ease_steps_eval(2, (ac_ease_jump)9, u, s, 1, &err) == AC_ERR_VALUE);
}

/* ac_ease_check vouches exactly for the values every easing accepts. */
static void check_pass(void)
{
    const double values[10] = {0.0, -0.0, 1.0, 0.5, 1e-300, -1e-300, 1.0 + 1e-16 * 2.3,
                               NAN, INFINITY, -INFINITY};
    const double ok[3] = {0.0, 0.25, 1.0};
    ac_ease_bezier curve;
    CHECK(ac_ease_bezier_init(&curve, 0.3, -0.4, 0.6, 1.5, NULL) == AC_OK);
    for (int i = 0; i < 10; i++) {
        double s, r;
        bool vouched = ac_ease_check(&values[i], 1);
        for (int k = 0; k < AC_EASE_COUNT; k++) {
            CHECK(vouched == (ac_ease_eval((ac_ease_kind)k, &values[i], &s, 1, NULL) == AC_OK));
            CHECK(vouched == (ac_ease_rate((ac_ease_kind)k, &values[i], &s, 1, NULL) == AC_OK));
            if (ac_ease_monotone((ac_ease_kind)k))
                CHECK(vouched ==
                      (ac_ease_inverse((ac_ease_kind)k, &values[i], &s, 1, NULL) == AC_OK));
        }
        CHECK(vouched == (ac_ease_bezier_eval(&curve, &values[i], &s, &r, 1, NULL) == AC_OK));
        CHECK(vouched ==
              (ac_ease_steps_eval(3, AC_EASE_JUMP_BOTH, &values[i], &s, 1, NULL) == AC_OK));
        CHECK(vouched == (i < 5));
    }
    CHECK(ac_ease_check(ok, 3) && ac_ease_check(ok, 0) && !ac_ease_check(values + 4, 2));
}

int main(void)
{
    article_figures();
    kinds();
    errors();
    inverses();
    bezier();
    steps();
    check_pass();
    TEST_DONE("test_ease");
}
