/* The one-call pose sampler: every track's values are, to the bit, those of
   the track's own evaluation (ac_curve_eval, ac_quat_curve_eval), for tracks
   that share key times and tracks that do not, sorted and unsorted times,
   times outside the keys, and the kinds it evaluates itself and the ones it
   hands back; then its errors. */
#include <string.h>

#include "ac_internal.h"
#include "ac_test.h"

enum { K = 40, N = 300 };

/* A bit-exact comparison (signs of zeros too). */
static int same_bits(const double *a, const double *b, size_t n)
{
    return memcmp(a, b, n * sizeof(double)) == 0;
}

static double wave(size_t i, size_t c) { return sin(0.37 * (double)i + 1.3 * (double)c); }

/* tracks: curves (linear, cubic, step, a shifted linear, Bezier) and
   rotations (linear, cubic, step), poses of W = 3 + 4 doubles per time. */
static void against_own_evaluation(const double *t, size_t n)
{
    double times[K], shifted[K], values[3 * K], quats[4 * K], vel[3 * K], qvel[4 * K];
    double out[N * 7 * 4], own[N * 4];
    ac_curve *curves[5];
    ac_quat_curve *rotations[3];
    ac_pose_track tracks[8];
    ac_error err;
    int weights_kind[K - 1];
    for (size_t i = 0; i < K; i++) {
        times[i] = 0.05 * (double)i + (i % 3 == 0 ? 0.01 : 0.0);
        shifted[i] = times[i] + 0.3;
        for (size_t c = 0; c < 3; c++)
            values[3 * i + c] = wave(i, c), vel[3 * i + c] = wave(i + 7, c);
        for (size_t c = 0; c < 4; c++) {
            quats[4 * i + c] = wave(i, c + 3) + (c == 3 ? 1.5 : 0.0);
            qvel[4 * i + c] = 0.3 * wave(i + 2, c);
        }
    }
    for (size_t j = 0; j + 1 < K; j++)
        weights_kind[j] = j % 4 == 1 ? AC_CURVE_BEZIER : AC_CURVE_LINEAR;
    for (int c = 0; c < 5; c++) {
        ac_curve_spec spec;
        memset(&spec, 0, sizeof spec);
        spec.keys = K, spec.channels = 3, spec.values = values;
        spec.times = c == 3 ? shifted : times;
        spec.interpolation = c == 1 ? AC_CURVE_CUBIC : c == 2 ? AC_CURVE_STEP : AC_CURVE_LINEAR;
        spec.tangents = c == 1 ? AC_TANGENTS_EXPLICIT : AC_TANGENTS_CATMULL_ROM;
        spec.in_velocities = spec.out_velocities = vel;
        spec.before = c == 3 ? AC_EXTRAP_LINEAR : AC_EXTRAP_CLAMP;
        spec.after = c == 3 ? AC_EXTRAP_CYCLE : AC_EXTRAP_CLAMP;
        spec.segment_interpolation = c == 4 ? weights_kind : NULL;
        CHECK(ac_curve_create(&curves[c], &spec, &err) == AC_OK);
    }
    for (int r = 0; r < 3; r++)
        CHECK(ac_quat_curve_create(times, quats, qvel, qvel, K,
                                   r == 0 ? AC_CURVE_LINEAR : r == 1 ? AC_CURVE_CUBIC
                                                                     : AC_CURVE_STEP,
                                   AC_EXTRAP_CLAMP, r == 0 ? AC_EXTRAP_CYCLE : AC_EXTRAP_CLAMP,
                                   &rotations[r], NULL, &err) == AC_OK);
    /* a pose row: 5 curves of 3 values, then 3 rotations of 4 */
    for (int i = 0; i < 8; i++) {
        tracks[i].curve = i < 5 ? curves[i] : NULL;
        tracks[i].rotation = i < 5 ? NULL : rotations[i - 5];
        tracks[i].out = out + (i < 5 ? 3 * i : 15 + 4 * (i - 5));
        tracks[i].stride = 27;
    }
    CHECK(ac_pose_sample(tracks, 8, t, n, &err) == AC_OK);
    for (int i = 0; i < 8; i++) {
        const size_t w = i < 5 ? 3 : 4;
        if (i < 5)
            CHECK(ac_curve_eval(curves[i], t, n, 0, own, &err) == AC_OK);
        else
            CHECK(ac_quat_curve_eval(rotations[i - 5], NULL, t, n, AC_SIDE_RIGHT, own, NULL,
                                     &err) == AC_OK);
        for (size_t q = 0; q < n; q++)
            CHECK(same_bits(out + 27 * q + (i < 5 ? 3 * (size_t)i : 15 + 4 * (size_t)(i - 5)),
                            own + w * q, w));
    }
    for (int c = 0; c < 5; c++)
        ac_curve_destroy(curves[c]);
    for (int r = 0; r < 3; r++)
        ac_quat_curve_destroy(rotations[r]);
}

/* Tracks on key-time arrays `array` (of `keys[j]` keys each) sampled at M
   sorted times, several blocks: every track's values to the bit those of its
   own evaluation. The arrays borrow `times`, so tracks on one array share
   its pointer. */
enum { SETS = 6, M = 700 };
static double set_times[2 * SETS][K];

static void sets_against_own_evaluation(const int *array, const size_t *keys, size_t count)
{
    static double values[3 * K], out[M * 3 * 40], own[3 * M], t[M];
    ac_curve *curves[40];
    ac_pose_track tracks[40];
    ac_error err;
    for (size_t i = 0; i < K; i++)
        for (size_t c = 0; c < 3; c++)
            values[3 * i + c] = wave(i, c);
    for (size_t i = 0; i < M; i++)
        t[i] = -0.1 + 0.004 * (double)i;
    for (size_t j = 0; j < count; j++) {
        ac_curve_spec spec;
        memset(&spec, 0, sizeof spec);
        spec.keys = keys[j], spec.channels = 3, spec.values = values;
        spec.times = set_times[array[j]], spec.borrow_keys = true;
        spec.interpolation = AC_CURVE_LINEAR;
        CHECK(ac_curve_create(&curves[j], &spec, &err) == AC_OK);
        tracks[j].curve = curves[j], tracks[j].rotation = NULL;
        tracks[j].out = out + 3 * j, tracks[j].stride = 3 * count;
    }
    CHECK(ac_pose_sample(tracks, count, t, M, &err) == AC_OK);
    for (size_t j = 0; j < count; j++) {
        CHECK(ac_curve_eval(curves[j], t, M, 0, own, &err) == AC_OK);
        for (size_t q = 0; q < M; q++)
            CHECK(same_bits(out + 3 * count * q + 3 * j, own + 3 * q, 3));
        ac_curve_destroy(curves[j]);
    }
}

/* More sets of key times than the sampler locates at a time (it takes their
   groups over in turn, and remembers each track's group from one block to
   the next): six sets, each in two arrays of the same values, tracks over
   them in turn; then a track on a prefix of an array whose group the whole
   array takes over at the end of every block. */
static void many_key_sets(void)
{
    int array[36];
    size_t keys[36];
    for (size_t s = 0; s < 2 * SETS; s++)
        for (size_t i = 0; i < K; i++) /* arrays s and s + SETS hold the same times */
            set_times[s][i] = (0.05 + 0.01 * (double)(s % SETS)) * (double)i;
    for (int j = 0; j < 36; j++)
        array[j] = (j % SETS) + SETS * ((j / SETS) % 2), keys[j] = K;
    sets_against_own_evaluation(array, keys, 36);
    {
        const int takeover[5] = {0, 1, 2, 3, 0}; /* four groups: the fifth takes the first's */
        const size_t prefix[5] = {K / 2, K, K, K, K};
        sets_against_own_evaluation(takeover, prefix, 5);
    }
}

static void samples(void)
{
    double t[N];
    /* sorted: several per segment, one per segment, before and after the keys */
    for (size_t i = 0; i < N; i++)
        t[i] = -0.2 + 0.009 * (double)i;
    against_own_evaluation(t, N);
    for (size_t i = 0; i < N; i++) /* every key time itself, then beyond */
        t[i] = i < K ? 0.05 * (double)i + (i % 3 == 0 ? 0.01 : 0.0) : 2.5 + (double)i;
    against_own_evaluation(t, N);
    for (size_t i = 0; i < N; i++) /* unsorted */
        t[i] = 1.9 * fabs(wave(i, 5));
    against_own_evaluation(t, N);
    against_own_evaluation(t, 1);
    against_own_evaluation(t, 0);
}

static void errors(void)
{
    double times[2] = {0.0, 1.0}, values[6] = {0, 0, 0, 1, 1, 1}, t[3] = {0.5, 0.7, 1.5};
    double out[12];
    ac_curve_spec spec;
    ac_curve *curve;
    ac_pose_track tracks[2];
    ac_error err;
    memset(&spec, 0, sizeof spec);
    spec.keys = 2, spec.channels = 3, spec.times = times, spec.values = values;
    spec.interpolation = AC_CURVE_LINEAR, spec.after = AC_EXTRAP_ERROR;
    CHECK(ac_curve_create(&curve, &spec, &err) == AC_OK);
    memset(tracks, 0, sizeof tracks);
    tracks[0].curve = curve, tracks[0].out = out, tracks[0].stride = 6;
    tracks[1].out = out + 3, tracks[1].stride = 6; /* no curve */
    CHECK(ac_pose_sample(tracks, 2, t, 2, &err) == AC_ERR_VALUE);
    CHECK(err.arg == AC_ARG_TRACKS && err.index == 1);
    tracks[1].curve = curve;
    /* time 2 (1.5) lies after the keys, where the curve's extrapolation is
       "error": index track * n + time */
    CHECK(ac_pose_sample(tracks, 2, t, 3, &err) == AC_ERR_VALUE);
    CHECK(err.arg == AC_ARG_T && err.index == 2);
    CHECK(ac_pose_sample(tracks, 2, t, 2, &err) == AC_OK);
    CHECK(out[0] == 0.5 && out[6 + 5] == 0.7);
    {   /* a segment that is not its time's, before anything is written */
        size_t segments[3] = {0, 0, 0};
        double q[8] = {0, 0, 0, 1, 0, 0, 1, 0}, tq[3] = {0.5, 1.0, 0.25};
        ac_quat_curve *rotation;
        out[0] = -1.0;
        CHECK(ac_curve_eval_located(curve, tq, segments, 2, out, 3, &err) == AC_ERR_VALUE);
        CHECK(err.arg == AC_ARG_SEGMENTS && err.index == 1 && out[0] == -1.0);
        segments[1] = 1;
        CHECK(ac_curve_eval_located(curve, tq, segments, 2, out, 3, &err) == AC_ERR_VALUE);
        CHECK(ac_curve_eval_located(curve, tq + 2, segments, 1, out, 3, &err) == AC_OK);
        CHECK(out[0] == 0.25 && out[2] == 0.25);
        CHECK(ac_quat_curve_create(times, q, NULL, NULL, 2, AC_CURVE_LINEAR, AC_EXTRAP_CLAMP,
                                   AC_EXTRAP_CLAMP, &rotation, NULL, &err) == AC_OK);
        CHECK(ac_quat_curve_eval_located(rotation, tq, segments, 2, out, 4, &err) ==
              AC_ERR_VALUE);
        CHECK(err.arg == AC_ARG_SEGMENTS && err.index == 1);
        CHECK(ac_quat_curve_eval_located(rotation, tq, segments, 1, out, 4, &err) == AC_OK);
        CHECK_NEAR(out[2], sqrt(0.5), 1e-15);
        ac_quat_curve_destroy(rotation);
    }
    ac_curve_destroy(curve);
}

/* Tracks that borrow key times from one array, some of them only its first
   keys: each is located on its own keys (they share the array, not the
   keys), and gives its own evaluation's values. */
static void borrowed_prefixes(void)
{
    static const double times[5] = {0, 1, 2, 3, 4}, all[5] = {0, 10, 20, 30, 40};
    static const double first[3] = {5, 6, 7};
    static const double q[12] = {0, 0, 0, 1, 0, 0.6, 0, 0.8, 0, 0.8, 0, 0.6};
    const double t[4] = {0.5, 1.5, 2.5, 3.5};
    double out[3][16], own[16];
    ac_curve *curves[2];
    ac_quat_curve *rotation;
    ac_error err;
    for (int c = 0; c < 2; c++) {
        ac_curve_spec spec;
        memset(&spec, 0, sizeof spec);
        spec.channels = 1, spec.times = times, spec.borrow_keys = true;
        spec.interpolation = AC_CURVE_LINEAR;
        spec.keys = c ? 3 : 5, spec.values = c ? first : all;
        CHECK(ac_curve_create(&curves[c], &spec, &err) == AC_OK);
    }
    CHECK(ac_quat_curve_borrow(times, q, NULL, NULL, 3, AC_CURVE_LINEAR, AC_EXTRAP_CLAMP,
                               AC_EXTRAP_CLAMP, &rotation, NULL, &err) == AC_OK);
    {
        ac_pose_track tracks[3] = {{curves[0], NULL, out[0], 1}, {curves[1], NULL, out[1], 1},
                                   {NULL, rotation, out[2], 4}};
        CHECK(ac_pose_sample(tracks, 3, t, 4, &err) == AC_OK);
    }
    for (int c = 0; c < 2; c++) {
        CHECK(ac_curve_eval(curves[c], t, 4, 0, own, &err) == AC_OK);
        CHECK(same_bits(out[c], own, 4));
    }
    CHECK(ac_quat_curve_eval(rotation, NULL, t, 4, AC_SIDE_RIGHT, own, NULL, &err) == AC_OK);
    CHECK(same_bits(out[2], own, 16));
    CHECK(out[1][3] == 7.0); /* held after the prefix's last key */
    ac_curve_destroy(curves[0]);
    ac_curve_destroy(curves[1]);
    ac_quat_curve_destroy(rotation);
}

int main(void)
{
    samples();
    errors();
    borrowed_prefixes();
    many_key_sets();
    TEST_DONE("test_pose");
}
