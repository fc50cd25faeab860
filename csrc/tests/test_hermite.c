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

/* A value for the random trials: ordinary most of the time, else an extreme
   (huge, tiny, zero, non-finite). */
static unsigned long long lcg_state = 12345;
static double uniform01(void)
{
    lcg_state = lcg_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(lcg_state >> 11) / 9007199254740992.0;
}

static double trial_value(int ordinary)
{
    static const double extremes[] = {DBL_MAX, -DBL_MAX, DBL_MAX / 4, DBL_MAX / 9, 1e308,
                                      -3e307, 1e-300, 0.0, INFINITY, NAN};
    if (ordinary || uniform01() < 0.7)
        return (uniform01() - 0.5) * 2e3;
    return extremes[(int)(uniform01() * 10) % 10];
}

/* ac_hermite_check never accepts what the evaluation rejects, accepts
   ordinary inputs, and shared keys (whose loop skips the overflow checks
   when they are bounded) give bit for bit the results of the same keys as
   arrays (the loop that checks every element). */
static void check_and_shared_keys(void)
{
    enum { N = 32 };
    static const double durations[] = {2.0, 1.7, 1e-300, 1e-5, 1e300, 0.0, -1.0, NAN};
    int accepted = 0, refused_valid = 0;
    for (int trial = 0; trial < 4000; trial++) {
        int ordinary = trial % 4 == 0;
        double p0 = trial_value(ordinary), p1 = trial_value(ordinary);
        double v0 = trial_value(ordinary), v1 = trial_value(ordinary);
        double T = ordinary ? 0.001 + uniform01() * 100 : durations[trial % 8];
        double P0[N], P1[N], V0[N], V1[N], D[N], t[N], xs[N], vs[N], xa[N], va[N];
        ac_status shared, arrays;
        int check;
        for (int i = 0; i < N; i++) {
            P0[i] = p0, P1[i] = p1, V0[i] = v0, V1[i] = v1, D[i] = T;
            t[i] = i == N - 1 ? T : T * uniform01();
        }
        if (!ordinary && trial % 5 == 0)
            t[trial % N] = trial % 2 ? -0.5 : T * 1.5;
        shared = ac_hermite_eval(&p0, &p1, &v0, &v1, &T, t, keys_shared, xs, vs, N, NULL);
        arrays = ac_hermite_eval(P0, P1, V0, V1, D, t, NULL, xa, va, N, NULL);
        CHECK(shared == arrays);
        if (shared == AC_OK) {
            CHECK(memcmp(xs, xa, sizeof xs) == 0);
            CHECK(memcmp(vs, va, sizeof vs) == 0);
        }
        check = ac_hermite_check(&p0, &p1, &v0, &v1, &T, t, keys_shared, N);
        CHECK(check == ac_hermite_check(P0, P1, V0, V1, D, t, NULL, N));
        if (check)
            CHECK(shared == AC_OK);
        if (ordinary)
            CHECK(check);
        accepted += check;
        refused_valid += !check && shared == AC_OK;
    }
    /* both outcomes occur, and some valid calls are refused (near overflow) */
    CHECK(accepted > 1000 && refused_valid > 20);
    CHECK(ac_hermite_check(NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0));
}

/* Every mix of shared (step 0) and per-item inputs gives the bits, status
   and error index of the same call on expanded arrays: 700 items, two blocks
   of the spread loop and a rest; every other mask with one t out of range. */
static void mixed_steps(void)
{
    enum { N = 700 };
    static double in[6][N], wide[6][N], xs[N], vs[N], xa[N], va[N];
    for (int mask = 0; mask < 64; mask++) {
        size_t steps[6];
        ac_error es, ea;
        ac_status st_steps, st_arrays;
        for (int k = 0; k < 6; k++)
            steps[k] = (size_t)(mask >> k & 1);
        for (int i = 0; i < N; i++) {
            for (int k = 0; k < 4; k++)
                in[k][i] = trial_value(1);
            in[4][i] = 0.01 + uniform01() * 10.0;
        }
        for (int i = 0; i < N; i++) { /* t within the duration of every item it meets */
            double T = in[4][steps[4] ? i : 0];
            for (int j = 0; !steps[5] && steps[4] && j < N; j++)
                T = in[4][j] < T ? in[4][j] : T;
            in[5][i] = T * uniform01();
        }
        if (mask % 2)
            in[5][steps[5] ? (mask * 37) % N : 0] = -1.0;
        for (int k = 0; k < 6; k++)
            for (int i = 0; i < N; i++)
                wide[k][i] = in[k][steps[k] ? i : 0];
        st_steps = ac_hermite_eval(in[0], in[1], in[2], in[3], in[4], in[5], steps, xs, vs, N,
                                   &es);
        st_arrays = ac_hermite_eval(wide[0], wide[1], wide[2], wide[3], wide[4], wide[5],
                                    NULL, xa, va, N, &ea);
        CHECK(st_steps == st_arrays);
        CHECK(st_steps == (mask % 2 ? AC_ERR_VALUE : AC_OK));
        if (st_steps == AC_OK)
            CHECK(memcmp(xs, xa, sizeof xs) == 0 && memcmp(vs, va, sizeof vs) == 0);
        else
            CHECK(es.index == ea.index && es.arg == ea.arg);
    }
}

int main(void)
{
    article_figures();
    polynomial_sweep();
    errors();
    segments_and_conversions();
    check_and_shared_keys();
    mixed_steps();
    TEST_DONE("test_hermite");
}
