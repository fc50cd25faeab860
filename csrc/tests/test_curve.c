/* The core's keyframe curves against article 004's figures, hand-computed
   extrapolation, sorted/unsorted agreement, jumps and every error branch. */
#include <float.h>
#include <string.h>

#include "ac_test.h"

static ac_curve *make(const double *t, const double *v, size_t k, size_t c,
                      ac_curve_interpolation interp, ac_curve_tangents tangents,
                      ac_curve_extrapolation before, ac_curve_extrapolation after)
{
    ac_curve_spec spec;
    ac_curve *curve = NULL;
    ac_error err;
    memset(&spec, 0, sizeof spec);
    spec.keys = k, spec.channels = c, spec.times = t, spec.values = v;
    spec.interpolation = interp, spec.tangents = tangents;
    spec.before = before, spec.after = after;
    if (ac_curve_create(&curve, &spec, &err) != AC_OK)
        fprintf(stderr, "create: %s[%zu] = %g %s\n", ac_arg_name(err.arg), err.index, err.value, err.detail);
    CHECK(curve != NULL);
    return curve;
}

static double at(const ac_curve *curve, double t, int derivative)
{
    double x = NAN;
    CHECK(ac_curve_eval(curve, &t, 1, derivative, &x, NULL) == AC_OK);
    return x;
}

/* 1 when curves a and b give the same bits at the n times q (c channels):
   values, velocities and accelerations. */
static int same_curves(const ac_curve *a, const ac_curve *b, const double *q, size_t n,
                       size_t c)
{
    double x[16], y[16];
    int same = n * c <= 16;
    for (int d = 0; same && d < 3; d++)
        same = ac_curve_eval(a, q, n, d, x, NULL) == AC_OK &&
               ac_curve_eval(b, q, n, d, y, NULL) == AC_OK &&
               memcmp(x, y, n * c * sizeof *x) == 0;
    return same;
}

static void article_figures(void)
{
    const double t[4] = {0, 1, 2, 3}, uneven[4] = {0, 1, 2, 4};
    const double v[4] = {0, 60, 60, 0}, w[4] = {-40, 0, 0, -40};
    double vin[4], vout[4];
    ac_curve *lin = make(t, v, 4, 1, AC_CURVE_LINEAR, 0, 0, 0);
    ac_curve *cr = make(t, v, 4, 1, AC_CURVE_CUBIC, AC_TANGENTS_CATMULL_ROM, 0, 0);
    ac_curve *cr1 = make(t, w, 4, 1, AC_CURVE_CUBIC, AC_TANGENTS_CATMULL_ROM, 0, 0);
    ac_curve *uni = make(uneven, v, 4, 1, AC_CURVE_CUBIC, AC_TANGENTS_CATMULL_ROM_UNIFORM, 0,
                         0);
    ac_curve *aware = make(uneven, v, 4, 1, AC_CURVE_CUBIC, AC_TANGENTS_CATMULL_ROM, 0, 0);

    CHECK_NEAR(at(lin, 0.5, 0), 30.0, 1e-12);
    ac_curve_key_velocities(lin, vin, vout);
    CHECK_NEAR(vout[1] - vin[1], -60.0, 1e-12); /* slope jump at t = 1 */
    CHECK_NEAR(vout[2] - vin[2], -60.0, 1e-12);

    CHECK_NEAR(at(cr, 1.5, 0), 67.5, 1e-12); /* hold overshoot b + (b - a) / 8 */
    CHECK_NEAR(at(cr1, 1.5, 0), 5.0, 1e-12);
    CHECK_NEAR(at(cr, 1.0 - 1e-9, 1), at(cr, 1.0, 1), 1e-6); /* C1 */

    ac_curve_key_velocities(uni, vin, vout); /* the 1/1/2 kink at t = 2 */
    CHECK_NEAR(vin[2], -30.0, 1e-12);
    CHECK_NEAR(vout[2], -15.0, 1e-12);
    CHECK_NEAR(at(uni, 2.0 - 1e-12, 1), -30.0, 1e-6);
    CHECK_NEAR(at(uni, 2.0, 1), -15.0, 1e-9);
    ac_curve_key_velocities(aware, vin, vout);
    CHECK_NEAR(vin[2], -20.0, 1e-12);
    CHECK(vin[2] == vout[2]);

    ac_curve_destroy(lin);
    ac_curve_destroy(cr);
    ac_curve_destroy(cr1);
    ac_curve_destroy(uni);
    ac_curve_destroy(aware);
}

static void extrapolation(void)
{
    const double t[3] = {1, 2, 3}, v[3] = {0, 10, 4};
    const double q[3] = {0.5, 3.5, 5.0};
    const struct { ac_curve_extrapolation mode; double x[3]; } cases[] = {
        {AC_EXTRAP_CLAMP, {0, 4, 4}},
        {AC_EXTRAP_LINEAR, {-5, 1, -8}},
        {AC_EXTRAP_CYCLE, {7, 5, 0}},
        {AC_EXTRAP_CYCLE_OFFSET, {3, 9, 8}},
        {AC_EXTRAP_OSCILLATE, {5, 7, 0}},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        ac_curve *curve = make(t, v, 3, 1, AC_CURVE_LINEAR, 0, cases[c].mode, cases[c].mode);
        double x[3];
        CHECK(ac_curve_eval(curve, q, 3, 0, x, NULL) == AC_OK);
        for (int i = 0; i < 3; i++)
            CHECK_NEAR(x[i], cases[c].x[i], 1e-12);
        ac_curve_destroy(curve);
    }
    {
        ac_curve *curve = make(t, v, 3, 1, AC_CURVE_LINEAR, 0, AC_EXTRAP_OSCILLATE,
                               AC_EXTRAP_ERROR);
        double x[3];
        ac_error err;
        CHECK_NEAR(at(curve, 3.5 - 2.0, 1), 10.0, 1e-12);
        CHECK_NEAR(at(curve, 0.5, 1), -10.0, 1e-12); /* mirrored: velocity flips */
        CHECK(ac_curve_eval(curve, q, 3, 0, x, &err) == AC_ERR_VALUE);
        CHECK(err.index == 1 && err.arg == AC_ARG_T && err.value == 3.5);
        CHECK(strcmp(err.detail, "must lie in [1, 3] (after is AC_EXTRAP_ERROR)") == 0);
        CHECK(err.reason == AC_REASON_AFTER_ERROR && err.limit[0] == 1 && err.limit[1] == 3);
        ac_curve_destroy(curve);
    }
}

/* Sorted, unsorted and block-wise cursor sweeps give the same bits. */
static void orders_agree(void)
{
    enum { K = 40, C = 3, N = 997 };
    double t[K], v[K * C], q[N], rq[N], a[N * C], b[N * C], s[N * C];
    ac_curve_cursor cursor = {0};
    ac_curve *curve;
    t[0] = -2.0;
    for (int i = 1; i < K; i++)
        t[i] = t[i - 1] + 0.1 + 0.05 * (i % 7);
    for (int i = 0; i < K * C; i++)
        v[i] = sin(0.7 * i) * 10;
    curve = make(t, v, K, C, AC_CURVE_CUBIC, AC_TANGENTS_PCHIP, AC_EXTRAP_CYCLE_OFFSET,
                 AC_EXTRAP_OSCILLATE);
    for (int i = 0; i < N; i++) {
        q[i] = -6.0 + 20.0 * i / (N - 1);
        rq[N - 1 - i] = q[i];
    }
    for (int d = 0; d <= 2; d++) {
        CHECK(ac_curve_eval(curve, q, N, d, a, NULL) == AC_OK);
        CHECK(ac_curve_eval(curve, rq, N, d, b, NULL) == AC_OK);
        cursor.segment = 0;
        for (int i = 0; i < N; i += 100)
            CHECK(ac_curve_eval_sorted(curve, &cursor, q + i, N - i < 100 ? N - i : 100, d,
                                       s + i * C, NULL) == AC_OK);
        for (int i = 0; i < N; i++)
            for (int c = 0; c < C; c++) {
                CHECK(a[i * C + c] == b[(N - 1 - i) * C + c]);
                CHECK(a[i * C + c] == s[i * C + c]);
            }
    }
    ac_curve_destroy(curve);
}

static void jumps_and_one_key(void)
{
    const double t[4] = {0, 1, 1, 2}, v[4] = {0, 1, 5, 6}, one = 3.0, t1 = 7.0;
    ac_curve_spec spec;
    ac_curve *curve;
    ac_error err;
    memset(&spec, 0, sizeof spec);
    spec.keys = 4, spec.channels = 1, spec.times = t, spec.values = v;
    spec.interpolation = AC_CURVE_LINEAR, spec.jumps = 1;
    CHECK(ac_curve_create(&curve, &spec, &err) == AC_OK);
    CHECK(at(curve, 1.0, 0) == 5.0); /* the right key wins */
    CHECK_NEAR(at(curve, 0.5, 0), 0.5, 1e-15);
    CHECK_NEAR(at(curve, 1.5, 0), 5.5, 1e-15);
    ac_curve_destroy(curve);

    curve = make(&t1, &one, 1, 1, AC_CURVE_CUBIC, AC_TANGENTS_CATMULL_ROM, AC_EXTRAP_LINEAR,
                 AC_EXTRAP_CYCLE);
    CHECK(at(curve, -5.0, 0) == 3.0 && at(curve, 7.0, 0) == 3.0 && at(curve, 70.0, 1) == 0.0);
    ac_curve_destroy(curve);
}

static ac_error create_error(const double *t, const double *v, size_t k, int jumps,
                             ac_status status, const char *arg, size_t index)
{
    ac_curve_spec spec;
    ac_curve *curve = (ac_curve *)&spec; /* must be reset to NULL */
    ac_error err;
    memset(&spec, 0, sizeof spec);
    memset(&err, 0, sizeof err);
    spec.keys = k, spec.channels = 1, spec.times = t, spec.values = v;
    spec.interpolation = AC_CURVE_CUBIC, spec.jumps = jumps;
    CHECK(ac_curve_create(&curve, &spec, &err) == status);
    CHECK(curve == NULL);
    CHECK(strcmp(ac_arg_name(err.arg), arg) == 0);
    CHECK(err.index == index);
    return err;
}

static void errors(void)
{
    const double ok[4] = {0, 1, 2, 3}, v[4] = {0, 1, 2, 3};
    const double nan_t[3] = {0, NAN, 2}, back[3] = {0, 2, 1}, equal[3] = {0, 1, 1};
    const double triple[5] = {0, 1, 1, 1, 2}, start[3] = {0, 0, 1};
    const double nan_v[4] = {0, 1, INFINITY, 3}, huge[4] = {0, DBL_MAX, -DBL_MAX, 0};
    const double big[4] = {1.6e308, 1.797e308, 1.797e308, 1.6e308};
    ac_error err;
    ac_curve *curve;
    double x = 0.0, q = NAN;

    create_error(ok, v, 0, 0, AC_ERR_VALUE, "times", 0);
    create_error(nan_t, v, 3, 0, AC_ERR_VALUE, "times", 1);
    err = create_error(back, v, 3, 1, AC_ERR_VALUE, "times", 2);
    CHECK(strcmp(err.detail, "must be >= the previous time 2") == 0);
    create_error(equal, v, 3, 0, AC_ERR_VALUE, "times", 2);
    {
        /* jumps at the end keys (dual-valued end knots): the right side of the
           first and the left side of the last are the inner keys */
        ac_curve_spec spec;
        ac_curve_cursor cur = {0};
        double q2[2] = {1.0, 1.0}, o2[2];
        memset(&spec, 0, sizeof spec);
        spec.keys = 3, spec.channels = 1, spec.times = equal, spec.values = v;
        spec.interpolation = AC_CURVE_LINEAR, spec.jumps = 1;
        CHECK(ac_curve_create(&curve, &spec, &err) == AC_OK);
        CHECK(ac_curve_eval_side(curve, &cur, q2, 2, 0, AC_SIDE_LEFT, o2, &err) == AC_OK);
        CHECK(o2[0] == 1.0);
        CHECK(at(curve, 1.0, 0) == 2.0 && at(curve, 0.5, 0) == 0.5);
        ac_curve_destroy(curve);
        spec.times = start;
        CHECK(ac_curve_create(&curve, &spec, &err) == AC_OK);
        CHECK(at(curve, 0.0, 0) == 1.0 && at(curve, -1.0, 0) == 0.0 && at(curve, 0.5, 0) == 1.5);
        CHECK(ac_curve_eval_side(curve, &cur, &start[0], 1, 0, AC_SIDE_LEFT, o2, &err) == AC_OK);
        CHECK(o2[0] == 0.0);
        ac_curve_destroy(curve);
    }
    err = create_error(triple, v, 5, 1, AC_ERR_VALUE, "times", 3);
    CHECK(strstr(err.detail, "third equal time") != NULL);
    create_error(ok, nan_v, 4, 0, AC_ERR_VALUE, "values", 2);
    create_error(ok, huge, 4, 0, AC_ERR_OVERFLOW, "values", 1); /* polynomial overflows */
    {
        /* the slope of a tiny segment overflows: reported as the key's velocity */
        const double tiny_t[3] = {0, 1e-300, 1}, steep_v[3] = {0, 1e300, 0};
        err = create_error(tiny_t, steep_v, 3, 0, AC_ERR_OVERFLOW, "velocity", 0);
        CHECK(isinf(err.value));
    }
    {
        ac_curve_spec spec;
        memset(&spec, 0, sizeof spec);
        spec.keys = 4, spec.channels = 1, spec.times = ok, spec.values = v;
        spec.interpolation = AC_CURVE_CUBIC, spec.tangents = AC_TANGENTS_EXPLICIT;
        spec.in_velocities = v; /* out_velocities missing */
        CHECK(ac_curve_create(&curve, &spec, &err) == AC_ERR_VALUE);
        CHECK(curve == NULL && err.arg == AC_ARG_OUT_VELOCITIES);
        /* options out of range */
        spec.tangents = (ac_curve_tangents)(AC_TANGENTS_NATURAL + 1);
        CHECK(ac_curve_create(&curve, &spec, &err) == AC_ERR_VALUE);
        CHECK(curve == NULL && err.arg == AC_ARG_TANGENTS);
        spec.tangents = AC_TANGENTS_CATMULL_ROM;
        spec.interpolation = (ac_curve_interpolation)(AC_CURVE_EASE + 1);
        CHECK(ac_curve_create(&curve, &spec, &err) == AC_ERR_VALUE);
        CHECK(curve == NULL && err.arg == AC_ARG_INTERPOLATION);
        spec.interpolation = AC_CURVE_CUBIC;
        spec.after = (ac_curve_extrapolation)(AC_EXTRAP_SLOPED + 1);
        CHECK(ac_curve_create(&curve, &spec, &err) == AC_ERR_VALUE);
        CHECK(curve == NULL && err.arg == AC_ARG_EXTRAPOLATION);
        CHECK(err.value == AC_EXTRAP_SLOPED + 1);
    }

    /* The hold overshoot of huge keys is not representable. */
    curve = make(ok, big, 4, 1, AC_CURVE_CUBIC, AC_TANGENTS_CATMULL_ROM, 0, 0);
    {
        double qs[3] = {0.5, 1.5, 2.5}, xs[3];
        CHECK(ac_curve_eval(curve, qs, 3, 0, xs, &err) == AC_ERR_OVERFLOW);
        CHECK(err.index == 1 && err.arg == AC_ARG_VALUE);
    }
    {
        /* Without an ac_error the status is still that of the first failure:
           the outputs after it (here a stale inf) are not scanned for overflow. */
        double qs[3] = {0.5, NAN, 0.5}, xs[3] = {0.0, 0.0, INFINITY};
        CHECK(ac_curve_eval(curve, qs, 3, 0, xs, NULL) == AC_ERR_VALUE);
    }
    CHECK(ac_curve_eval(curve, &q, 1, 0, &x, &err) == AC_ERR_VALUE);
    CHECK(err.arg == AC_ARG_T && strcmp(err.detail, "must be finite") == 0);
    CHECK(ac_curve_eval(curve, ok, 1, 3, &x, &err) == AC_ERR_VALUE);
    CHECK(err.arg == AC_ARG_DERIVATIVE);
    ac_curve_destroy(curve);
    ac_curve_destroy(NULL);

    /* Linear extrapolation far away overflows. */
    curve = make(ok, v, 4, 1, AC_CURVE_LINEAR, 0, AC_EXTRAP_LINEAR, AC_EXTRAP_LINEAR);
    {
        double qs[2] = {1.0, DBL_MAX}, xs[2];
        CHECK(ac_curve_eval(curve, qs, 2, 0, xs, &err) == AC_OK); /* slope 1: finite */
        CHECK(xs[1] == DBL_MAX);
    }
    ac_curve_destroy(curve);
    {
        const double steep[2] = {0, 1e300};
        const double tt[2] = {0, 1e-5};
        double qs[2] = {0.0, 1e300}, xs[2];
        curve = make(tt, steep, 2, 1, AC_CURVE_LINEAR, 0, AC_EXTRAP_LINEAR,
                     AC_EXTRAP_LINEAR);
        CHECK(ac_curve_eval(curve, qs, 2, 0, xs, &err) == AC_ERR_OVERFLOW);
        CHECK(err.index == 1);
        ac_curve_destroy(curve);
    }
}

/* Per-segment kinds, weights, sides, sloped extrapolation, natural tangents
   and time remaps, with values worked out by hand. */
static void keyed_segments(void)
{
    const double t[3] = {0, 1, 2}, v[3] = {0, 1, 0}, vel[3] = {1, 0, -1};
    const double third[3] = {1.0 / 3, 1.0 / 3, 1.0 / 3};
    const int kinds[2] = {AC_CURVE_EASE, AC_CURVE_BEZIER};
    ac_curve_ease eases[2];
    ac_curve_spec spec;
    ac_curve *a, *b;
    ac_curve_cursor cur = {0};
    ac_error err;
    double q[4] = {0.25, 0.5, 1.5, 1.75}, x[4], y[4];
    memset(&spec, 0, sizeof spec);
    memset(eases, 0, sizeof eases);
    spec.keys = 3, spec.channels = 1, spec.times = t, spec.values = v;
    spec.interpolation = AC_CURVE_CUBIC, spec.tangents = AC_TANGENTS_EXPLICIT;
    spec.in_velocities = spec.out_velocities = vel;
    CHECK(ac_curve_create(&a, &spec, &err) == AC_OK);
    /* Bezier with weights of 1/3 is the Hermite curve, bit for bit */
    spec.interpolation = AC_CURVE_BEZIER, spec.in_weights = spec.out_weights = third;
    CHECK(ac_curve_create(&b, &spec, &err) == AC_OK);
    CHECK(same_curves(a, b, q, 4, 1));
    ac_curve_destroy(b);
    /* an eased first segment (smoothstep: 0.15625 at u = 1/4) and a Bezier
       second whose handles are flat and reach the middle: symmetric, so 1/2
       at its middle */
    {
        const double w[3] = {0.5, 0.5, 0.5}, flat[3] = {0, 0, 0};
        eases[0].kind = AC_EASE_SMOOTHSTEP;
        spec.segment_interpolation = kinds, spec.segment_ease = eases;
        spec.in_weights = spec.out_weights = w;
        spec.in_velocities = spec.out_velocities = flat;
        spec.before = AC_EXTRAP_SLOPED, spec.after = AC_EXTRAP_LINEAR;
        spec.before_slopes = &vel[0];
        CHECK(ac_curve_create(&b, &spec, &err) == AC_OK);
        CHECK_NEAR(at(b, 0.25, 0), 0.15625, 1e-15);
        CHECK_NEAR(at(b, 1.5, 0), 0.5, 1e-14);
        CHECK_NEAR(at(b, 0.25, 1), 6 * 0.25 * 0.75, 1e-14);
        CHECK_NEAR(at(b, -2.0, 0), -2.0, 1e-15); /* sloped: slope 1 */
        CHECK(at(b, 3.0, 0) == 0.0);             /* linear along a flat outer side */
        ac_curve_destroy(b);
    }
    /* the last key: right side is the extrapolation, left side the segment */
    {
        double k2 = 2.0, r = NAN;
        CHECK(ac_curve_eval_side(a, &cur, &k2, 1, 1, AC_SIDE_LEFT, &r, &err) == AC_OK);
        CHECK(r == -1.0);
        CHECK(at(a, 2.0, 1) == 0.0); /* clamp */
        CHECK(ac_curve_eval_side(a, &cur, &k2, 1, 0, 2, &r, &err) == AC_ERR_VALUE);
        CHECK(err.arg == AC_ARG_SIDE);
    }
    /* whole-clip remaps: linear is the identity; smoothstep keeps the middle */
    {
        ac_curve_ease lin, smooth;
        double mid = 1.0;
        memset(&lin, 0, sizeof lin), memset(&smooth, 0, sizeof smooth);
        lin.kind = AC_EASE_LINEAR, smooth.kind = AC_EASE_SMOOTHSTEP;
        CHECK(ac_curve_eval_remapped(a, &cur, q, 4, 0, AC_SIDE_RIGHT, &lin, 1, NULL, y, &err) ==
              AC_OK);
        CHECK(ac_curve_eval(a, q, 4, 0, x, &err) == AC_OK);
        for (int i = 0; i < 4; i++)
            CHECK_NEAR(x[i], y[i], 1e-15);
        CHECK(ac_curve_eval_remapped(a, &cur, &mid, 1, 1, AC_SIDE_RIGHT, &smooth, 1, NULL, y,
                                     &err) == AC_OK);
        CHECK_NEAR(y[0], 1.5 * at(a, 1.0, 1), 1e-15); /* rate 1.5 at the middle */
        q[1] = NAN;
        CHECK(ac_curve_eval_remapped(a, &cur, q, 4, 0, AC_SIDE_RIGHT, &lin, 1, NULL, y, &err) ==
              AC_ERR_VALUE);
        CHECK(err.index == 1 && err.arg == AC_ARG_T);
    }
    ac_curve_destroy(a);
    /* natural tangents: keys (0,0) (1,1) (2,0) give velocities 1.5, 0, -1.5 */
    a = make(t, v, 3, 1, AC_CURVE_CUBIC, AC_TANGENTS_NATURAL, 0, 0);
    CHECK_NEAR(at(a, 0.5, 0), 0.6875, 1e-15);
    CHECK_NEAR(at(a, 0.0, 2), 0.0, 1e-12);
    ac_curve_destroy(a);
    /* bad keyed input, one per branch */
    {
        const double neg[3] = {0.3, -0.1, 0.3};
        memset(&spec, 0, sizeof spec);
        spec.keys = 3, spec.channels = 1, spec.times = t, spec.values = v;
        spec.interpolation = AC_CURVE_BEZIER, spec.out_weights = neg;
        CHECK(ac_curve_create(&a, &spec, &err) == AC_ERR_VALUE && a == NULL);
        CHECK(err.arg == AC_ARG_OUT_WEIGHTS && err.index == 1);
        spec.out_weights = NULL, spec.interpolation = AC_CURVE_EASE;
        CHECK(ac_curve_create(&a, &spec, &err) == AC_ERR_VALUE && err.arg == AC_ARG_EASE);
        eases[0].kind = eases[1].kind = AC_EASE_COUNT;
        spec.segment_ease = eases;
        CHECK(ac_curve_create(&a, &spec, &err) == AC_ERR_VALUE && err.arg == AC_ARG_EASE);
        eases[0].kind = eases[1].kind = AC_CURVE_EASE_CUBIC_BEZIER;
        eases[0].x1 = 1.5;
        CHECK(ac_curve_create(&a, &spec, &err) == AC_ERR_VALUE && err.arg == AC_ARG_X1);
        eases[0].x1 = 0.5;
        spec.after = AC_EXTRAP_SLOPED;
        CHECK(ac_curve_create(&a, &spec, &err) == AC_ERR_VALUE &&
              err.arg == AC_ARG_AFTER_SLOPES);
    }
}

/* Easings given as a table with an index per segment give the same bits as
   the same easings given one per segment; an index outside the table is an
   error naming its segment. */
static void ease_table(void)
{
    const double t[5] = {0, 1, 2.5, 3, 4}, v[5] = {0, 2, -1, 1, 5};
    const int kinds[4] = {AC_CURVE_EASE, AC_CURVE_LINEAR, AC_CURVE_EASE, AC_CURVE_EASE};
    const size_t index[4] = {1, 0, 1, 2}, bad[4] = {1, 0, 3, 2};
    ac_curve_ease table[3], each[4];
    ac_curve_spec spec;
    ac_curve *a, *b;
    ac_error err;
    const double q[7] = {-0.5, 0.25, 1.5, 2.7, 3.1, 3.9, 4.5};
    memset(table, 0, sizeof table);
    table[0].kind = AC_EASE_LINEAR, table[1].kind = AC_EASE_BACK_IN_OUT;
    table[1].overshoot = 1.70158;
    table[2].kind = AC_CURVE_EASE_CUBIC_BEZIER;
    table[2].x1 = 0.25, table[2].y1 = 0.1, table[2].x2 = 0.25, table[2].y2 = 1.0;
    for (int j = 0; j < 4; j++)
        each[j] = table[index[j]];
    memset(&spec, 0, sizeof spec);
    spec.keys = 5, spec.channels = 1, spec.times = t, spec.values = v;
    spec.interpolation = AC_CURVE_CUBIC, spec.tangents = AC_TANGENTS_CATMULL_ROM;
    spec.before = spec.after = AC_EXTRAP_LINEAR;
    spec.segment_interpolation = kinds, spec.segment_ease = each;
    CHECK(ac_curve_create(&a, &spec, &err) == AC_OK);
    spec.segment_ease = table, spec.segment_ease_index = index, spec.ease_count = 3;
    CHECK(ac_curve_create(&b, &spec, &err) == AC_OK);
    CHECK(same_curves(a, b, q, 7, 1));
    /* the curve's own keys, as given */
    CHECK(ac_curve_times(b) != t && memcmp(ac_curve_times(b), t, sizeof t) == 0);
    CHECK(ac_curve_values(b) != v && memcmp(ac_curve_values(b), v, sizeof v) == 0);
    ac_curve_destroy(b);
    /* the index borrowed (read in place, not released with the curve): the
       same curve */
    {
        size_t borrowed[4];
        memcpy(borrowed, index, sizeof borrowed);
        spec.borrow_ease_index = true;
        spec.segment_ease_index = borrowed;
        CHECK(ac_curve_create(&b, &spec, &err) == AC_OK);
        CHECK(same_curves(a, b, q, 7, 1));
        ac_curve_destroy(b);
        spec.borrow_ease_index = false;
        spec.segment_ease_index = index;
    }
    ac_curve_destroy(a);
    spec.segment_ease_index = bad;
    CHECK(ac_curve_create(&a, &spec, &err) == AC_ERR_VALUE && a == NULL);
    CHECK(err.arg == AC_ARG_EASE && err.index == 2 && err.value == 3.0);
}

/* ac_curve_eval_check: whenever it vouches for a time, evaluating there
   succeeds with a finite result, on every kind, extrapolation mode, side and order, with keys,
   velocities and slopes up to the edge of overflow and times out to
   DBL_MAX; and it does vouch for ordinary times. */
static void eval_check(void)
{
    const double t[4] = {-2.0, -1.0, 0.5, 3.0};
    const int kinds[3] = {AC_CURVE_EASE, AC_CURVE_BEZIER, AC_CURVE_LINEAR};
    const double w[4] = {0.2, 0.7, 0.1, 0.5}, mantissas[3] = {1, 2, 5};
    const double steep_w[4] = {1e-9, 1.0, 1e-6, 0.999}; /* near-vertical handles */
    /* ordinary, huge values, huge velocities, a huge cycle shift */
    const double values[6][4] = {{1, -2, 0.5, 3}, {1e307, -1e307, 5e306, -8e307},
                                 {0, 1, -1, 2}, {-1.5e307, 0, 0, 1.5e307},
                                 {-1e300, 0, 0, 1e300}, {1, -2, 0.5, 3}};
    const double velocities[6][4] = {{0.5, -1, 2, 1}, {1, 0, 0, -1},
                                     {1e300, -3e305, 1e302, -2e301}, {0, 0, 0, 0},
                                     {0, 0, 0, 1e-300}, {1e3, -1e3, 1e2, 1}};
    double qs[2 * 3 * 312 + 16];
    size_t nq = 0, vouched = 0, trials = 0, bezier_rates = 0;
    ac_curve_ease eases[3];
    for (int e = -3; e <= 308; e++) /* 1, 2 and 5 times each power of ten (inf beyond) */
        for (int m = 0; m < 3; m++)
            qs[nq++] = mantissas[m] * pow(10.0, e), qs[nq++] = -mantissas[m] * pow(10.0, e);
    for (int i = 0; i < 4; i++)
        qs[nq++] = t[i], qs[nq++] = nextafter(t[i], -INFINITY), qs[nq++] = nextafter(t[i], INFINITY);
    qs[nq++] = DBL_MAX, qs[nq++] = -DBL_MAX, qs[nq++] = NAN, qs[nq++] = INFINITY;
    for (int set = 0; set < 6; set++)
        for (int interp = 0; interp <= AC_CURVE_EASE + 2; interp++)
            for (int mode = 0; mode <= AC_EXTRAP_SLOPED; mode++) {
                ac_curve_spec spec;
                ac_curve *curve = NULL;
                ac_error err;
                const double slopes[1] = {velocities[set][3]};
                memset(&spec, 0, sizeof spec);
                spec.keys = 4, spec.channels = 1, spec.times = t, spec.values = values[set];
                /* then one segment of each kind; then circ_in, whose rate at
                   the end makes the last key's velocity infinite */
                spec.interpolation = interp <= AC_CURVE_EASE ? interp
                                     : interp == AC_CURVE_EASE + 1 ? AC_CURVE_CUBIC
                                                                   : AC_CURVE_EASE;
                if (interp == AC_CURVE_EASE + 1)
                    spec.segment_interpolation = kinds;
                memset(eases, 0, sizeof eases);
                for (int j = 0; j < 3; j++)
                    eases[j].kind = interp == AC_CURVE_EASE + 2 ? AC_EASE_CIRC_IN : AC_EASE_SMOOTHSTEP;
                spec.segment_ease = eases;
                spec.tangents = AC_TANGENTS_EXPLICIT;
                spec.in_velocities = spec.out_velocities = velocities[set];
                spec.in_weights = spec.out_weights = set == 5 ? steep_w : w;
                spec.before = (ac_curve_extrapolation)mode;
                spec.after = (ac_curve_extrapolation)((mode + 3) % (AC_EXTRAP_SLOPED + 1));
                spec.before_slopes = spec.after_slopes = slopes;
                if (ac_curve_create(&curve, &spec, &err) != AC_OK)
                    continue; /* a tangent that overflows: nothing to evaluate */
                for (size_t i = 0; i < nq; i++)
                    for (int d = 0; d < 3; d++)
                        for (int side = 0; side < 2; side++) {
                            ac_curve_cursor cursor = {0};
                            double x = NAN;
                            trials++;
                            if (!ac_curve_eval_check(curve, &qs[i], 1, d, side))
                                continue;
                            vouched++;
                            bezier_rates += interp == AC_CURVE_BEZIER && d > 0;
                            if (ac_curve_eval_side(curve, &cursor, &qs[i], 1, d, side, &x, &err) ||
                                !isfinite(x)) {
                                fprintf(stderr, "vouched for t=%.17g d=%d side=%d set=%d interp=%d "
                                        "modes=%d,%d: %s\n", qs[i], d, side, set, interp,
                                        spec.before, spec.after, err.detail);
                                CHECK(0);
                            }
                        }
                CHECK(!ac_curve_eval_check(curve, qs, 1, 3, 0));
                CHECK(!ac_curve_eval_check(curve, qs, 1, 0, 2));
                ac_curve_destroy(curve);
            }
    CHECK(vouched > trials / 10 && bezier_rates > 1000);

    /* ordinary times: vouched for in every mode but outside an error side */
    for (int mode = 0; mode <= AC_EXTRAP_SLOPED; mode++) {
        const double v[4] = {1, -2, 0.5, 3};
        double inside[3] = {-2.0, 0.0, 3.0}, far[2] = {-50.0, 1e6}, bad[2] = {0.0, NAN};
        ac_curve *curve = make(t, v, 4, 1, AC_CURVE_CUBIC, AC_TANGENTS_CATMULL_ROM,
                               mode == AC_EXTRAP_SLOPED ? AC_EXTRAP_LINEAR : mode,
                               mode == AC_EXTRAP_SLOPED ? AC_EXTRAP_LINEAR : mode);
        for (int d = 0; d < 3; d++) {
            CHECK(ac_curve_eval_check(curve, inside, 3, d, AC_SIDE_RIGHT));
            CHECK(ac_curve_eval_check(curve, inside, 3, d, AC_SIDE_LEFT));
            CHECK(ac_curve_eval_check(curve, far, 2, d, AC_SIDE_RIGHT) ==
                  (mode != AC_EXTRAP_ERROR));
            CHECK(!ac_curve_eval_check(curve, bad, 2, d, AC_SIDE_RIGHT));
        }
        CHECK(ac_curve_eval_check(curve, inside, 0, 0, AC_SIDE_RIGHT));
        ac_curve_destroy(curve);
    }
    /* a Bezier segment whose handles nearly meet: time almost stops at its
       middle, where the velocity (1e5 times the rise) overflows, and the
       acceleration just before it */
    {
        const double tt[2] = {0, 1}, rise[2] = {0, 1e305}, flat[2] = {0, 0};
        const double w[2] = {0.99999, 0.99999}, at[3] = {0.5, 0.5, 0.4975};
        double mid = 0.5, x;
        ac_curve_spec spec;
        ac_curve *curve = NULL;
        ac_error err;
        memset(&spec, 0, sizeof spec);
        spec.keys = 2, spec.channels = 1, spec.times = tt, spec.values = rise;
        spec.interpolation = AC_CURVE_BEZIER, spec.tangents = AC_TANGENTS_EXPLICIT;
        spec.in_velocities = spec.out_velocities = flat;
        spec.in_weights = spec.out_weights = w;
        CHECK(ac_curve_create(&curve, &spec, &err) == AC_OK);
        CHECK(ac_curve_eval(curve, &mid, 1, 0, &x, &err) == AC_OK && isfinite(x));
        CHECK(ac_curve_eval_check(curve, &mid, 1, 0, AC_SIDE_RIGHT));
        for (int d = 1; d < 3; d++) {
            CHECK(!ac_curve_eval_check(curve, &at[d], 1, d, AC_SIDE_RIGHT));
            CHECK(ac_curve_eval(curve, &at[d], 1, d, &x, &err) == AC_ERR_OVERFLOW);
        }
        ac_curve_destroy(curve);
    }
    /* one key near DBL_MAX with a slope: not vouched for where the line overflows */
    {
        const double one = 1.0, near[2] = {-1e307, 1e307}, far = 5e307;
        double key = 1.0, x;
        ac_curve_spec spec;
        ac_curve *curve = NULL;
        ac_error err;
        memset(&spec, 0, sizeof spec);
        spec.keys = 1, spec.channels = 1, spec.times = &t[0], spec.values = &key;
        spec.before = spec.after = AC_EXTRAP_SLOPED;
        spec.before_slopes = spec.after_slopes = &one;
        CHECK(ac_curve_create(&curve, &spec, &err) == AC_OK);
        CHECK(ac_curve_eval_check(curve, near, 2, 0, AC_SIDE_RIGHT));
        ac_curve_destroy(curve);
        key = 1.5e308;
        CHECK(ac_curve_create(&curve, &spec, &err) == AC_OK);
        CHECK(!ac_curve_eval_check(curve, &far, 1, 0, AC_SIDE_RIGHT));
        CHECK(ac_curve_eval(curve, &far, 1, 0, &x, &err) == AC_ERR_OVERFLOW);
        ac_curve_destroy(curve);
    }
    /* the steep line of `errors`: vouched for near the keys, not where it overflows */
    {
        const double steep[2] = {0, 1e300}, tt[2] = {0, 1e-5}, near[2] = {-1.0, 1.0};
        double qs2[2] = {0.0, 1e300}, xs[2];
        ac_error err;
        ac_curve *curve = make(tt, steep, 2, 1, AC_CURVE_LINEAR, 0, AC_EXTRAP_LINEAR,
                               AC_EXTRAP_LINEAR);
        CHECK(ac_curve_eval_check(curve, near, 2, 0, AC_SIDE_RIGHT));
        CHECK(!ac_curve_eval_check(curve, qs2, 2, 0, AC_SIDE_RIGHT));
        CHECK(ac_curve_eval(curve, qs2, 2, 0, xs, &err) == AC_ERR_OVERFLOW);
        ac_curve_destroy(curve);
    }
}

/* AC_CURVE_EASE_HOLD: a step that reaches its end key at its end, so the
   left side there (at the last key, at a cycle seam) is the end key's value */
static void hold_segment(void)
{
    const double t[2] = {0, 10}, v[2] = {0, 1};
    double q[6] = {0, 5, 9.5, 10, 20, 30}, x[6];
    const double left_expected[6] = {1, 0, 0, 1, 1, 1}, right_expected[6] = {0, 0, 0, 0, 0, 0};
    int kinds[1] = {AC_CURVE_EASE};
    ac_curve_ease hold[1];
    ac_curve_spec spec;
    ac_curve *cv;
    ac_curve_cursor cursor = {0};
    ac_error err;
    memset(&spec, 0, sizeof spec);
    memset(hold, 0, sizeof hold);
    hold[0].kind = AC_EASE_LINEAR, hold[0].flags = AC_CURVE_EASE_HOLD;
    spec.keys = 2, spec.channels = 1, spec.times = t, spec.values = v;
    spec.interpolation = AC_CURVE_STEP, spec.segment_interpolation = kinds;
    spec.segment_ease = hold, spec.before = spec.after = AC_EXTRAP_CYCLE;
    CHECK(ac_curve_create(&cv, &spec, &err) == AC_OK);
    CHECK(ac_curve_eval_side(cv, &cursor, q, 6, 0, AC_SIDE_LEFT, x, &err) == AC_OK);
    for (int i = 0; i < 6; i++)
        CHECK(x[i] == left_expected[i]);
    cursor.segment = 0;
    CHECK(ac_curve_eval_side(cv, &cursor, q, 6, 0, AC_SIDE_RIGHT, x, &err) == AC_OK);
    for (int i = 0; i < 6; i++)
        CHECK(x[i] == right_expected[i]);
    cursor.segment = 0;
    CHECK(ac_curve_eval_side(cv, &cursor, q, 6, 1, AC_SIDE_LEFT, x, &err) == AC_OK);
    for (int i = 0; i < 6; i++)
        CHECK(x[i] == 0.0);
    ac_curve_destroy(cv);
    /* the same over keys more than DBL_MAX apart (evaluated on halves) */
    {
        const double wide[2] = {-1e308, 1e308}, ends[2] = {1e308, 0.0};
        spec.times = wide, spec.before = spec.after = AC_EXTRAP_CLAMP;
        CHECK(ac_curve_create(&cv, &spec, &err) == AC_OK);
        cursor.segment = 0;
        CHECK(ac_curve_eval_side(cv, &cursor, ends, 2, 0, AC_SIDE_LEFT, x, &err) == AC_OK);
        CHECK(x[0] == 1.0 && x[1] == 0.0);
        ac_curve_destroy(cv);
    }
}

/* Borrowed keys (spec.borrow_keys) are read where they are, and a curve on
   them gives what a curve on its own copies gives; the stored velocities are
   exposed where the curve keeps them, once where both sides are equal. */
static void borrowed_keys(void)
{
    const double t[5] = {0.0, 0.5, 1.25, 2.0, 3.0};
    const double v[10] = {0, 1, 2, -1, 0.5, 3, 4, 0, -2, 2};
    const double vel[10] = {1, 0, -1, 2, 0.5, 0, 0, 1, 3, -3};
    const double q[7] = {-0.5, 0.0, 0.3, 1.25, 1.9, 2.0, 3.5};
    for (int interp = AC_CURVE_STEP; interp <= AC_CURVE_CUBIC; interp++) {
        ac_curve_spec spec;
        ac_curve *own = NULL, *lent = NULL;
        ac_error err;
        memset(&spec, 0, sizeof spec);
        spec.keys = 5, spec.channels = 2, spec.times = t, spec.values = v;
        spec.interpolation = (ac_curve_interpolation)interp;
        spec.tangents = interp == AC_CURVE_CUBIC ? AC_TANGENTS_EXPLICIT : AC_TANGENTS_CATMULL_ROM;
        spec.in_velocities = spec.out_velocities = vel;
        spec.before = AC_EXTRAP_LINEAR, spec.after = AC_EXTRAP_CYCLE;
        CHECK(ac_curve_create(&own, &spec, &err) == AC_OK);
        spec.borrow_keys = true;
        CHECK(ac_curve_create(&lent, &spec, &err) == AC_OK);
        CHECK(ac_curve_times(lent) == t && ac_curve_values(lent) == v);
        CHECK(ac_curve_times(own) != t && ac_curve_values(own) != v);
        CHECK(same_curves(own, lent, q, 7, 2));
        /* linear and step curves keep no velocities; explicit ones are kept
           once when one array gives both sides, and read back as given */
        CHECK((ac_curve_in_velocities(own) == NULL) == (interp != AC_CURVE_CUBIC));
        if (interp == AC_CURVE_CUBIC) {
            CHECK(ac_curve_in_velocities(own) == ac_curve_out_velocities(own));
            CHECK(memcmp(ac_curve_in_velocities(own), vel, sizeof vel) == 0);
        } else { /* computed from the keys: the slopes, or 0 for steps */
            double vin[10], vout[10];
            ac_curve_key_velocities(own, vin, vout);
            CHECK(vout[0] == (interp == AC_CURVE_LINEAR ? (v[2] - v[0]) / (t[1] - t[0]) : 0.0));
            CHECK(vin[2] == vout[0] && vin[0] == vout[0]);
        }
        ac_curve_destroy(own);
        ac_curve_destroy(lent);
    }
}

/* Keys less than 1 / DBL_MAX apart, whose inverse durations are not finite:
   u is the offset over the duration and the rates are divided by it. Every
   rule being scale-free in time, such a curve is the one over its key times
   scaled up by 2^1000 (to the bit where the spacings are powers of two), its
   velocities 2^1000 times larger; a flat segment's rates are 0. */
static void short_segments(void)
{
    enum { N = 40 };
    const double s = 0x1p-1064, t[4] = {16 * s, 18 * s, 19 * s, 21 * s};
    const double v[12] = {3, 0, 1, 1, 0, 4, 4, 0, -1, -1, 0, 5}; /* x 2^-100 below */
    const ac_curve_interpolation kinds[3] = {AC_CURVE_STEP, AC_CURVE_LINEAR, AC_CURVE_CUBIC};
    double vals[12], up[4], q[N], qup[N], x[3 * N], y[3 * N], z[3 * N];
    size_t seg[N];
    for (int i = 0; i < 12; i++)
        vals[i] = ldexp(v[i], -100); /* velocities then representable */
    for (int i = 0; i < 4; i++)
        up[i] = ldexp(t[i], 1000);
    for (int i = 0; i < N; i++) { /* before, between and after the keys, every 8th of s */
        q[i] = t[0] + (i - 6) * (s / 8);
        qup[i] = ldexp(q[i], 1000);
    }
    for (int kind = 0; kind < 3; kind++)
        for (int side = AC_SIDE_RIGHT; side <= AC_SIDE_LEFT; side++)
            for (int d = 0; d < 2; d++) {
                ac_curve *tiny = make(t, vals, 4, 3, kinds[kind], AC_TANGENTS_CATMULL_ROM,
                                      AC_EXTRAP_CYCLE, AC_EXTRAP_OSCILLATE);
                ac_curve *big = make(up, vals, 4, 3, kinds[kind], AC_TANGENTS_CATMULL_ROM,
                                     AC_EXTRAP_CYCLE, AC_EXTRAP_OSCILLATE);
                ac_curve_cursor c0 = {0}, c1 = {0};
                double rev[N];
                CHECK(ac_curve_eval_side(tiny, &c0, q, N, d, side, x, NULL) == AC_OK);
                CHECK(ac_curve_eval_side(big, &c1, qup, N, d, side, y, NULL) == AC_OK);
                for (int i = 0; i < 3 * N; i++)
                    CHECK(x[i] == ldexp(y[i], 1000 * d));
                for (int i = 0; i < N; i++) /* unsorted: the point path */
                    rev[i] = q[N - 1 - i];
                c0.segment = 0;
                CHECK(ac_curve_eval_side(tiny, &c0, rev, N, d, side, z, NULL) == AC_OK);
                for (int i = 0; i < N; i++)
                    for (int ch = 0; ch < 3; ch++)
                        CHECK(z[3 * (N - 1 - i) + ch] == x[3 * i + ch]);
                if (d == 0 && side == AC_SIDE_RIGHT) { /* located (the pose sampler) */
                    size_t n = 0;
                    for (int i = 0; i < N; i++)
                        if (q[i] >= t[0] && q[i] < t[3]) {
                            seg[n] = q[i] < t[1] ? 0 : q[i] < t[2] ? 1 : 2;
                            rev[n++] = q[i];
                        }
                    CHECK(ac_curve_eval_located(tiny, rev, seg, n, z, 3, NULL) == AC_OK);
                    for (size_t i = 0; i < n; i++)
                        for (int ch = 0; ch < 3; ch++)
                            CHECK(z[3 * i + ch] == x[3 * (i + 6) + ch]);
                }
                ac_curve_destroy(tiny);
                ac_curve_destroy(big);
            }
    /* u = 0.5 exactly: flat tangents from 2 down to 0 and back give 1 */
    {
        const double tt[3] = {0.0, 1e-320, 2e-320}, vv[3] = {2, 0, 2};
        ac_curve *cubic = make(tt, vv, 3, 1, AC_CURVE_CUBIC, AC_TANGENTS_FLAT, 0, 0);
        CHECK(at(cubic, 0.5e-320, 0) == 1.0 && at(cubic, 0.0, 0) == 2.0);
        CHECK(at(cubic, 0.0, 1) == 0.0 && at(cubic, 1e-320, 1) == 0.0);
        ac_curve_destroy(cubic);
    }
    /* a flat linear segment: the value, and rates of 0 */
    {
        const double tt[2] = {0.0, 1e-320}, vv[2] = {1, 1};
        ac_curve *line = make(tt, vv, 2, 1, AC_CURVE_LINEAR, 0, 0, 0);
        for (int d = 0; d < 3; d++)
            CHECK(at(line, 0.0, d) == (d == 0 ? 1.0 : 0.0) &&
                  at(line, 0.5e-320, d) == at(line, 0.0, d));
        ac_curve_destroy(line);
    }
    /* steps, unsorted */
    {
        const double tt[3] = {0.0, 1e-320, 2e-320}, vv[3] = {1, 2, 3};
        const double qq[4] = {1e-320, 0.0, 0.5e-320, 2e-320}, want[4] = {2, 1, 1, 3};
        double out[4];
        ac_curve *step = make(tt, vv, 3, 1, AC_CURVE_STEP, 0, 0, 0);
        CHECK(ac_curve_eval(step, qq, 4, 0, out, NULL) == AC_OK);
        for (int i = 0; i < 4; i++)
            CHECK(out[i] == want[i]);
        CHECK(ac_curve_eval(step, qq, 4, 1, out, NULL) == AC_OK);
        for (int i = 0; i < 4; i++)
            CHECK(out[i] == 0.0);
        ac_curve_destroy(step);
    }
    /* the edge: 1 / 2^-1024 overflows, the next duration up has an inverse */
    {
        const double tt[2] = {0.0, 0x1p-1024}, vv[2] = {0.0, 0x1p-60};
        const double next[2] = {0.0, 0x1p-1024 + 0x1p-1074};
        ac_curve *line = make(tt, vv, 2, 1, AC_CURVE_LINEAR, 0, 0, 0);
        CHECK(at(line, 0x1p-1025, 0) == 0x1p-61 && at(line, 0.0, 1) == 0x1p964);
        CHECK(at(line, 0.0, 0) == 0.0);
        ac_curve_destroy(line);
        line = make(next, vv, 2, 1, AC_CURVE_LINEAR, 0, 0, 0);
        CHECK(at(line, 0.0, 0) == 0.0 && at(line, 0x1p-1025, 0) == 0x1p-61 * (0x1p-1024 / next[1]));
        CHECK(at(line, 0.0, 1) == 0x1p-60 / next[1]);
        ac_curve_destroy(line);
    }
}

/* A CSS-eased segment whose polynomial overflows is refused, naming the
   segment's end value (read before the curve is freed: ASan checks it). */
static void eased_overflow(void)
{
    const double t[2] = {0, 1}, v[2] = {0, 1e308};
    const int kinds[1] = {AC_CURVE_EASE};
    ac_curve_ease ease;
    ac_curve_spec spec;
    ac_curve *curve = NULL;
    ac_error err;
    memset(&spec, 0, sizeof spec);
    memset(&ease, 0, sizeof ease);
    ease.kind = AC_CURVE_EASE_CUBIC_BEZIER;
    ease.x1 = 0.2, ease.y1 = 0.0, ease.x2 = 0.8, ease.y2 = 1.0;
    spec.keys = 2, spec.channels = 1, spec.times = t, spec.values = v;
    spec.interpolation = AC_CURVE_LINEAR;
    spec.segment_interpolation = kinds, spec.segment_ease = &ease;
    CHECK(ac_curve_create(&curve, &spec, &err) == AC_ERR_OVERFLOW);
    CHECK(curve == NULL);
    CHECK(err.arg == AC_ARG_VALUES && err.index == 1 && err.value == 1e308);
}

int main(void)
{
    short_segments();
    borrowed_keys();
    hold_segment();
    article_figures();
    extrapolation();
    orders_agree();
    jumps_and_one_key();
    errors();
    keyed_segments();
    ease_table();
    eval_check();
    eased_overflow();
    TEST_DONE("test_curve");
}
