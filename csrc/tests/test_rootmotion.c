/* Root motion of looping clips: article 001's figures, the 25,921-pair sweep
   against a piecewise integration, turning loops, a 10^7-frame cursor run and
   every error branch. */
#include <string.h>

#include "ac_test.h"

static const double article_times[4] = {0, 0.25, 0.75, 1};
static const double article_pos[4] = {0, 0.2, 1.7, 2};

static ac_looptrack *article_track(void)
{
    ac_looptrack *tr = NULL;
    ac_error err;
    CHECK(ac_rootmotion_create(&tr, article_times, article_pos, 4, 1, AC_CURVE_LINEAR,
                               AC_ROOT_NO_ROTATION, NULL, 1, 1e6, NULL, &err) == AC_OK);
    CHECK(tr != NULL);
    return tr;
}

static double delta1(const ac_looptrack *tr, double t0, double t1)
{
    double d = NAN;
    CHECK(ac_rootmotion_delta(tr, &t0, &t1, NULL, &d, NULL, 1, NULL) == AC_OK);
    return d;
}

static void article_figures(void)
{
    ac_looptrack *tr = article_track();
    double t = -0.1, k, u, ph[2] = {0.1, 0.9}, p[2];
    CHECK_NEAR(delta1(tr, 0.9, 1.1), 0.2, 1e-9);
    CHECK_NEAR(delta1(tr, 0.9, 3.1), 4.2, 1e-9);
    CHECK_NEAR(delta1(tr, 1.1, 0.9), -0.2, 1e-9);
    CHECK(ac_rootmotion_split(tr, &t, &k, &u, 1, NULL) == AC_OK);
    CHECK(k == -1.0);
    CHECK_NEAR(u, 0.9, 1e-12);
    CHECK(ac_rootmotion_sample(tr, ph, p, NULL, 2, NULL) == AC_OK);
    CHECK_NEAR(p[0] - p[1], -1.8, 1e-9); /* the naive phase difference */
    CHECK(ac_rootmotion_duration(tr) == 1.0 && ac_rootmotion_channels(tr) == 1);
    CHECK(ac_rootmotion_rotation(tr) == AC_ROOT_NO_ROTATION);
    ac_rootmotion_destroy(tr);
}

/* For every cycle and key segment the interval overlaps: overlap x speed. */
static double integrate(double t0, double t1)
{
    double lo = t0 < t1 ? t0 : t1, hi = t0 < t1 ? t1 : t0, total = 0;
    for (int c = -7; c <= 7; c++)
        for (int j = 0; j < 3; j++) {
            double a = c + article_times[j], b = c + article_times[j + 1];
            double speed = (article_pos[j + 1] - article_pos[j]) / (b - a);
            double o = (hi < b ? hi : b) - (lo > a ? lo : a);
            if (o > 0)
                total += o * speed;
        }
    return t1 >= t0 ? total : -total;
}

static void sweep(void)
{
    enum { N = 161 };
    ac_looptrack *tr = article_track();
    static double t0[N * N], t1[N * N], d[N * N], mid[N * N], a[N * N], b[N * N];
    size_t steps[2] = {1, 1};
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            t0[i * N + j] = i / 16.0 - 5.0;
            t1[i * N + j] = j / 16.0 - 5.0;
            mid[i * N + j] = 0.5 * (t0[i * N + j] + t1[i * N + j]);
        }
    CHECK(ac_rootmotion_delta(tr, t0, t1, steps, d, NULL, N * N, NULL) == AC_OK);
    CHECK(ac_rootmotion_delta(tr, t0, mid, steps, a, NULL, N * N, NULL) == AC_OK);
    CHECK(ac_rootmotion_delta(tr, mid, t1, steps, b, NULL, N * N, NULL) == AC_OK);
    for (int i = 0; i < N * N; i++) {
        CHECK_NEAR(d[i], integrate(t0[i], t1[i]), 1e-9);
        CHECK_NEAR(a[i] + b[i], d[i], 1e-9);
    }
    ac_rootmotion_destroy(tr);
}

static void square(void)
{
    const double times[2] = {0, 1}, pos[6] = {0, 0, 0, 0, 0, 1};
    const double yaw[2] = {0, acos(-1.0) / 2};
    const double h = acos(-1.0) / 4, quat[8] = {0, 0, 0, 1, 0, sin(h), 0, cos(h)};
    double t0[3] = {0, 0.5, 0}, t1[3] = {4, 2.5, 2}, tr3[9], rot[3], q[12];
    ac_looptrack *tr = NULL;
    CHECK(ac_rootmotion_create(&tr, times, pos, 2, 3, AC_CURVE_LINEAR, AC_ROOT_YAW, yaw, 1, 1e6, NULL,
                               NULL) == AC_OK);
    CHECK(ac_rootmotion_delta(tr, t0, t1, NULL, tr3, rot, 3, NULL) == AC_OK);
    for (int c = 0; c < 3; c++)
        CHECK_NEAR(tr3[c], 0.0, 1e-9);
    CHECK_NEAR(rot[0], 0.0, 1e-9);
    CHECK_NEAR(fabs(rot[1]), acos(-1.0), 1e-9);
    CHECK_NEAR(tr3[6], 1.0, 1e-12); /* two cycles: 1 m forward, 1 m to the side */
    CHECK_NEAR(tr3[8], 1.0, 1e-12);
    ac_rootmotion_destroy(tr);

    CHECK(ac_rootmotion_create(&tr, times, pos, 2, 3, AC_CURVE_LINEAR, AC_ROOT_QUAT, quat, 1,
                               1e6, NULL, NULL) == AC_OK);
    CHECK(ac_rootmotion_delta(tr, t0, t1, NULL, tr3, q, 3, NULL) == AC_OK);
    for (int c = 0; c < 3; c++)
        CHECK_NEAR(tr3[c], 0.0, 1e-9);
    CHECK_NEAR(q[3], 1.0, 1e-9);        /* identity, w >= 0 */
    CHECK_NEAR(fabs(q[5]), 1.0, 1e-9); /* half-turn about y */
    CHECK_NEAR(tr3[6], 1.0, 1e-12);
    CHECK_NEAR(tr3[8], 1.0, 1e-12);
    ac_rootmotion_destroy(tr);
}

/* 10^7 frames of 1/60 s through a cursor sum to the closed form. */
static void cursor_long_run(void)
{
    ac_looptrack *tr = article_track();
    int64_t cycle = 0, next;
    double phase = 0, dt = 1.0 / 60, d, total = 0, comp = 0, expected;
    const long frames = 10000000;
    for (long i = 0; i < frames; i++) {
        double y, s;
        CHECK(ac_rootmotion_advance(tr, &cycle, &phase, &dt, NULL, 0, &next, &phase, &d, NULL,
                                    1, NULL) == AC_OK);
        cycle = next;
        y = d - comp; /* compensated sum, so the check measures the cursor */
        s = total + y;
        comp = (s - total) - y;
        total = s;
    }
    expected = delta1(tr, 0.0, frames / 60.0);
    CHECK(fabs(total - expected) <= 1e-6 * fabs(expected));
    CHECK(cycle == frames / 60);
    /* absolute moves, and a reverse step back over the seam */
    {
        double t = 3.1, back = -0.2, u;
        int64_t c2 = 0, n2;
        u = 0.9;
        CHECK(ac_rootmotion_advance(tr, &c2, &u, &t, NULL, 1, &n2, &u, &d, NULL, 1, NULL) == AC_OK);
        CHECK_NEAR(d, 4.2, 1e-9);
        CHECK(n2 == 3);
        CHECK(ac_rootmotion_advance(tr, &n2, &u, &back, NULL, 0, &c2, &u, &d, NULL, 1, NULL) == AC_OK);
        CHECK_NEAR(d, -0.2, 1e-9);
        CHECK(c2 == 2);
        CHECK_NEAR(u, 0.9, 1e-12);
    }
    ac_rootmotion_destroy(tr);
}

static void cubic_seam(void)
{
    const double times[4] = {0, 0.3, 0.5, 1.2}, pos[4] = {0, 1, 0.5, 3};
    ac_looptrack *tr = NULL;
    double h = 1e-6;
    CHECK(ac_rootmotion_create(&tr, times, pos, 4, 1, AC_CURVE_CUBIC, AC_ROOT_NO_ROTATION, NULL,
                               1, 1e6, NULL, NULL) == AC_OK);
    CHECK_NEAR(delta1(tr, 1.2 - 2 * h, 1.2 - h) / h, delta1(tr, 1.2 + h, 1.2 + 2 * h) / h, 1e-4);
    CHECK_NEAR(delta1(tr, 0, 1.2), 3.0, 1e-12);
    ac_rootmotion_destroy(tr);
}

static void expect_create(const double *times, const double *pos, size_t k, size_t ch,
                          int interp, ac_root_rotation rot, const double *rotations, int up,
                          double max_cycles, ac_status status, const char *arg, size_t index)
{
    ac_looptrack *tr = (ac_looptrack *)&tr; /* must become NULL */
    ac_error err;
    memset(&err, 0, sizeof err);
    CHECK(ac_rootmotion_create(&tr, times, pos, k, ch, (ac_curve_interpolation)interp, rot,
                               rotations, up, max_cycles, NULL, &err) == status);
    CHECK(tr == NULL);
    CHECK(err.status == status);
    CHECK(strcmp(ac_arg_name(err.arg), arg) == 0);
    CHECK(err.index == index);
}

static void errors(void)
{
    const double t2[2] = {0, 1}, p2[2] = {0, 1}, p6[6] = {0}, y2[2] = {0, 1};
    const double bad_t[2] = {0.5, 1}, dup[3] = {0, 1, 1}, nan_t[2] = {0, NAN};
    const double inf_p[2] = {0, INFINITY}, nan_y[2] = {0, NAN};
    const double q_nan[8] = {0, 0, 0, 1, 0, 0, NAN, 1}, q_long[8] = {0, 0, 0, 1, 0, 0, 0, 2},
                 q_zero[8] = {0, 0, 0, 1, 0, 0, 0, 0};
    const double tiny[3] = {0, 1e-300, 1}, huge[3] = {0, 1e300, 0};
    ac_looptrack *tr = NULL;
    ac_error err;
    expect_create(t2, p2, 1, 1, AC_CURVE_LINEAR, AC_ROOT_NO_ROTATION, NULL, 1, 1e6, AC_ERR_VALUE, "times", 0);
    expect_create(t2, p2, 2, 0, AC_CURVE_LINEAR, AC_ROOT_NO_ROTATION, NULL, 1, 1e6, AC_ERR_VALUE, "positions", 0);
    expect_create(t2, p2, 2, 1, 7, AC_ROOT_NO_ROTATION, NULL, 1, 1e6, AC_ERR_VALUE, "interpolation", 0);
    expect_create(t2, p2, 2, 1, AC_CURVE_STEP, AC_ROOT_NO_ROTATION, NULL, 1, 1e6, AC_ERR_VALUE,
                  "interpolation", 0); /* step does not apply to root tracks */
    expect_create(t2, p2, 2, 1, AC_CURVE_LINEAR, (ac_root_rotation)9, NULL, 1, 1e6, AC_ERR_VALUE, "rotations", 0);
    expect_create(t2, p2, 2, 1, AC_CURVE_LINEAR, AC_ROOT_NO_ROTATION, NULL, 3, 1e6, AC_ERR_VALUE, "up_axis", 0);
    expect_create(t2, p2, 2, 1, AC_CURVE_LINEAR, AC_ROOT_NO_ROTATION, NULL, 1, 0, AC_ERR_VALUE, "max_cycles", 0);
    expect_create(t2, p2, 2, 1, AC_CURVE_LINEAR, AC_ROOT_NO_ROTATION, NULL, 1, NAN, AC_ERR_VALUE, "max_cycles", 0);
    expect_create(t2, p2, 2, 1, AC_CURVE_LINEAR, AC_ROOT_NO_ROTATION, NULL, 1, 1e300, AC_ERR_VALUE, "max_cycles", 0);
    expect_create(t2, p2, 2, 1, AC_CURVE_LINEAR, AC_ROOT_YAW, y2, 1, 1e6, AC_ERR_VALUE, "positions", 0);
    expect_create(t2, p6, 2, 2, AC_CURVE_LINEAR, AC_ROOT_QUAT, q_long, 1, 1e6, AC_ERR_VALUE, "positions", 0);
    expect_create(nan_t, p2, 2, 1, AC_CURVE_LINEAR, AC_ROOT_NO_ROTATION, NULL, 1, 1e6, AC_ERR_VALUE, "times", 1);
    expect_create(bad_t, p2, 2, 1, AC_CURVE_LINEAR, AC_ROOT_NO_ROTATION, NULL, 1, 1e6, AC_ERR_VALUE, "times", 0);
    expect_create(dup, p6, 3, 1, AC_CURVE_LINEAR, AC_ROOT_NO_ROTATION, NULL, 1, 1e6, AC_ERR_VALUE, "times", 2);
    expect_create(t2, inf_p, 2, 1, AC_CURVE_LINEAR, AC_ROOT_NO_ROTATION, NULL, 1, 1e6, AC_ERR_VALUE, "positions", 1);
    expect_create(t2, p6, 2, 2, AC_CURVE_LINEAR, AC_ROOT_YAW, nan_y, 1, 1e6, AC_ERR_VALUE, "rotations", 1);
    expect_create(t2, p6, 2, 3, AC_CURVE_LINEAR, AC_ROOT_QUAT, q_nan, 1, 1e6, AC_ERR_VALUE, "rotations", 6);
    /* a quaternion of any non-zero length is normalized; a zero one is no rotation */
    expect_create(t2, p6, 2, 3, AC_CURVE_LINEAR, AC_ROOT_QUAT, q_zero, 1, 1e6, AC_ERR_VALUE, "rotations", 4);
    CHECK(ac_rootmotion_create(&tr, t2, p6, 2, 3, AC_CURVE_LINEAR, AC_ROOT_QUAT, q_long, 1, 1e6, NULL,
                               &err) == AC_OK);
    ac_rootmotion_destroy(tr);
    expect_create(tiny, huge, 3, 1, AC_CURVE_CUBIC, AC_ROOT_NO_ROTATION, NULL, 1, 1e6,
                  AC_ERR_OVERFLOW, "positions", 0);

    {
        ac_looptrack *tr = article_track();
        ac_error err;
        double t[3] = {0, 2e6, NAN}, k[3], u[3], ph = 1.5, pos, d[3];
        double tt[3] = {0, 0, 0};
        int64_t c[2] = {0, 1LL << 60}, nc[2];
        double p[2] = {0.5, 0.5}, np2[2], v[2] = {0.1, 0.1}, dd[2];
        CHECK(ac_rootmotion_split(tr, t, k, u, 3, &err) == AC_ERR_VALUE);
        CHECK(err.index == 1 && err.arg == AC_ARG_T);
        CHECK(strstr(err.detail, "max_cycles=1000000") != NULL);
        CHECK(ac_rootmotion_split(tr, t + 2, k, u, 1, &err) == AC_ERR_VALUE);
        CHECK(strcmp(err.detail, "must be finite") == 0);
        CHECK(ac_rootmotion_sample(tr, &ph, &pos, NULL, 1, &err) == AC_ERR_VALUE);
        CHECK(err.arg == AC_ARG_PHASE && strcmp(err.detail, "must lie in [0, 1]") == 0);
        ph = NAN;
        CHECK(ac_rootmotion_sample(tr, &ph, &pos, NULL, 1, &err) == AC_ERR_VALUE);
        CHECK(ac_rootmotion_delta(tr, tt, t, NULL, d, NULL, 3, &err) == AC_ERR_VALUE);
        CHECK(err.index == 1 && err.arg == AC_ARG_T1);
        CHECK(ac_rootmotion_delta(tr, t, tt, NULL, d, NULL, 3, &err) == AC_ERR_VALUE);
        CHECK(err.index == 1 && err.arg == AC_ARG_T0);
        /* cursors: state and value errors, and nothing needs rolling back */
        CHECK(ac_rootmotion_advance(tr, c, p, v, NULL, 0, nc, np2, dd, NULL, 2, &err) == AC_ERR_VALUE);
        CHECK(err.index == 1 && err.arg == AC_ARG_CYCLE);
        c[1] = 0;
        p[1] = 1.0;
        CHECK(ac_rootmotion_advance(tr, c, p, v, NULL, 1, nc, np2, dd, NULL, 2, &err) == AC_ERR_VALUE);
        CHECK(err.index == 1 && err.arg == AC_ARG_PHASE);
        p[1] = 0.5;
        v[0] = INFINITY;
        CHECK(ac_rootmotion_advance(tr, c, p, v, NULL, 0, nc, np2, dd, NULL, 2, &err) == AC_ERR_VALUE);
        CHECK(err.index == 0 && err.arg == AC_ARG_DT);
        v[0] = -3e6;
        CHECK(ac_rootmotion_advance(tr, c, p, v, NULL, 1, nc, np2, dd, NULL, 2, &err) == AC_ERR_VALUE);
        CHECK(err.index == 0 && err.arg == AC_ARG_T);
        c[0] = (1LL << 53) - 1;
        v[0] = 2.0;
        CHECK(ac_rootmotion_advance(tr, c, p, v, NULL, 0, nc, np2, dd, NULL, 2, &err) == AC_ERR_OVERFLOW);
        CHECK(err.index == 0 && err.arg == AC_ARG_DT);
        ac_rootmotion_destroy(tr);
    }
    ac_rootmotion_destroy(NULL);
}

/* The delta check bounds |t| instead of dividing: at the edge of
   max_cycles, for durations and limits of every magnitude, it vouches only
   for times whose delta succeeds, and for every time well inside. */
static void delta_check_at_the_edge(void)
{
    const double durations[6] = {1.0, 1.7, 3e-300, 1e-310, 7e290, 0.3};
    const double limits[4] = {1.0, 3.7, 1e6, 0x1p50};
    for (int a = 0; a < 6; a++)
        for (int m = 0; m < 4; m++) {
            const double times[2] = {0.0, durations[a]}, pos[2] = {0.0, 1.0};
            double edge = limits[m] * durations[a], t = edge;
            ac_looptrack *tr = NULL;
            CHECK(ac_rootmotion_create(&tr, times, pos, 2, 1, AC_CURVE_LINEAR,
                                       AC_ROOT_NO_ROTATION, NULL, 1, limits[m], NULL,
                                       NULL) == AC_OK);
            for (int k = 0; k < 8; k++)
                t = nextafter(t, INFINITY);
            for (int k = 0; k < 16; k++, t = nextafter(t, 0.0))
                for (int sign = -1; sign <= 1; sign += 2) {
                    double t0 = sign * t, t1 = 0.5 * t, d;
                    if (ac_rootmotion_delta_check(tr, &t0, &t1, NULL, 1))
                        CHECK(ac_rootmotion_delta(tr, &t0, &t1, NULL, &d, NULL, 1, NULL) ==
                              AC_OK);
                }
            {
                double inside[2] = {-0.5 * edge, 0.999 * edge};
                CHECK(ac_rootmotion_delta_check(tr, inside, inside + 1, NULL, 1));
            }
            ac_rootmotion_destroy(tr);
        }
}

/* The check passes vouch only where sample and delta succeed, and do vouch
   for ordinary times; never for the deltas of a turning track or of a track
   whose deltas within max_cycles could overflow. */
static void check_passes(void)
{
    const double times[2] = {0, 1}, steep[2] = {0, 1e300}, pos[6] = {0, 0, 0, 0, 0, 1};
    const double yaw[2] = {0, 1.0};
    const double ts[9] = {0.0, -3.5, 2e6, 1e6, -1e6, NAN, INFINITY, 999999.9, -1e300};
    const bool valid[9] = {1, 1, 0, 1, 1, 0, 0, 1, 0}; /* max_cycles 1e6, duration 1 */
    const double ph[6] = {0.0, 1.0, 0.5, -1e-300, 1.0 + 2.3e-16, NAN};
    size_t shared[2] = {1, 0};
    ac_looptrack *tr = article_track(), *steep_tr = NULL, *turn = NULL;
    CHECK(ac_rootmotion_create(&steep_tr, times, steep, 2, 1, AC_CURVE_LINEAR,
                               AC_ROOT_NO_ROTATION, NULL, 1, 1e9, NULL, NULL) == AC_OK);
    CHECK(ac_rootmotion_create(&turn, times, pos, 2, 3, AC_CURVE_LINEAR, AC_ROOT_YAW, yaw, 1,
                               1e6, NULL, NULL) == AC_OK);
    for (int i = 0; i < 9; i++)
        for (int j = 0; j < 9; j++) {
            double d;
            bool vouched = ac_rootmotion_delta_check(tr, &ts[i], &ts[j], NULL, 1);
            CHECK(vouched == (ac_rootmotion_delta(tr, &ts[i], &ts[j], NULL, &d, NULL, 1, NULL) ==
                              AC_OK));
            CHECK(vouched == (valid[i] && valid[j]));
            CHECK(!ac_rootmotion_delta_check(turn, &ts[i], &ts[j], NULL, 1));
        }
    CHECK(ac_rootmotion_delta_check(tr, ts, ts + 1, shared, 2)); /* t1 shared: -3.5 */
    CHECK(!ac_rootmotion_delta_check(tr, ts + 1, ts + 2, shared, 2));
    CHECK(!ac_rootmotion_delta_check(steep_tr, ts, ts, NULL, 1));
    {
        double t0 = 0.0, t1 = 5e8, d;
        CHECK(ac_rootmotion_delta(steep_tr, &t0, &t1, NULL, &d, NULL, 1, NULL) == AC_ERR_OVERFLOW);
    }
    for (int i = 0; i < 6; i++) {
        double p[3], q;
        bool vouched = ac_rootmotion_sample_check(tr, &ph[i], 1);
        CHECK(vouched == (ac_rootmotion_sample(tr, &ph[i], p, NULL, 1, NULL) == AC_OK));
        CHECK(vouched == (ac_rootmotion_sample(turn, &ph[i], p, &q, 1, NULL) == AC_OK));
        CHECK(vouched == ac_rootmotion_sample_check(turn, &ph[i], 1));
        CHECK(vouched == (i < 3));
    }
    /* cursor steps: vouched for only where the step succeeds, near the cycle limits too */
    {
        const int64_t lim = 1LL << 53;
        const int64_t cycles[8] = {0, -7, 1000001, 1000002, -1000001, lim - 1000003, lim - 5, -lim};
        const double phases[4] = {0.0, 0.5, 1.0, NAN}, values[5] = {0.25, -999999.0, 1e6, 2e6, NAN};
        size_t vouched = 0;
        for (int absolute = 0; absolute < 2; absolute++)
            for (int c = 0; c < 8; c++)
                for (int p = 0; p < 4; p++)
                    for (int v = 0; v < 5; v++) {
                        int64_t next;
                        double u, d;
                        bool ok = ac_rootmotion_advance_check(tr, &cycles[c], &phases[p], &values[v],
                                                              NULL, absolute, 1);
                        vouched += ok;
                        if (ok)
                            CHECK(ac_rootmotion_advance(tr, &cycles[c], &phases[p], &values[v], NULL,
                                                        absolute, &next, &u, &d, NULL, 1,
                                                        NULL) == AC_OK);
                        CHECK(!ac_rootmotion_advance_check(turn, &cycles[c], &phases[p], &values[v],
                                                           NULL, absolute, 1));
                    }
        CHECK(vouched >= 20);
        {
            int64_t c = 0, next;
            double u = 0.0, dt = 5e8, d;
            CHECK(!ac_rootmotion_advance_check(steep_tr, &c, &u, &dt, NULL, 0, 1));
            CHECK(ac_rootmotion_advance(steep_tr, &c, &u, &dt, NULL, 0, &next, &u, &d, NULL, 1,
                                        NULL) == AC_ERR_OVERFLOW);
        }
    }
    ac_rootmotion_destroy(tr);
    ac_rootmotion_destroy(steep_tr);
    ac_rootmotion_destroy(turn);
}

int main(void)
{
    article_figures();
    sweep();
    square();
    cursor_long_run();
    cubic_seam();
    errors();
    check_passes();
    delta_check_at_the_edge();
    TEST_DONE("test_rootmotion");
}
