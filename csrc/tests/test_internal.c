/* The private helpers shared by the domains: key search, the key track and
   quaternions. */
#include "ac_internal.h"
#include "ac_test.h"
#include "ac_track.h"

/* Plain reference: last i in [0, k-2] with times[i] <= t. */
static size_t linear_find(const double *times, size_t k, double t)
{
    size_t i = 0;
    while (i + 1 < k - 1 && times[i + 1] <= t)
        i++;
    return i;
}

static void segment_find(void)
{
    const double times[7] = {0, 1, 1, 2.5, 3, 7, 7.5}; /* a jump at t = 1 */
    const size_t k = 7;
    size_t hint = 0;
    for (int j = -20; j <= 100; j++) {
        double t = j * 0.1;
        size_t expect = linear_find(times, k, t);
        hint = ac_segment_find(times, k, t, hint); /* sorted sweep */
        CHECK(hint == expect);
        for (size_t h = 0; h < k + 2; h++) /* any hint, even a bad one */
            CHECK(ac_segment_find(times, k, t, h) == expect);
    }
    CHECK(ac_segment_find(times, k, 1.0, 0) == 2); /* at a jump, the right segment */
    {
        const double two[2] = {0, 1};
        CHECK(ac_segment_find(two, 2, -5, 0) == 0 && ac_segment_find(two, 2, 5, 0) == 0);
    }
}

/* The one key track: segments and sides inside, every extrapolation mode
   outside, seams and mirrored keys. Keys at 0, 1, 1 (a jump), 2.5, 4. */
static void track(void)
{
    const double times[5] = {0, 1, 1, 2.5, 4};
    ac_track tr = {5, times, AC_EXTRAP_CLAMP, AC_EXTRAP_CYCLE};
    ac_track_point p;
    ac_error err;
    size_t hint = 0;
    /* inside: the right side takes the segment after a key, the left the one before */
    CHECK(ac_track_locate(&tr, 1.0, AC_SIDE_RIGHT, 0, &hint, &p, NULL) == AC_OK);
    CHECK(p.where == AC_TRACK_INSIDE && p.segment == 2 && p.time == 1.0 && p.mode == -1);
    CHECK(ac_track_locate(&tr, 1.0, AC_SIDE_LEFT, 0, &hint, &p, NULL) == AC_OK);
    CHECK(p.where == AC_TRACK_INSIDE && p.segment == 0 && p.side == AC_SIDE_LEFT);
    /* the first key: right is inside, left is the extrapolation (held) */
    CHECK(ac_track_locate(&tr, 0.0, AC_SIDE_LEFT, 0, &hint, &p, NULL) == AC_OK);
    CHECK(p.where == AC_TRACK_HOLD && p.key == 0 && !p.after);
    /* the last key on the right: the next cycle's start; on the left: inside */
    CHECK(ac_track_locate(&tr, 4.0, AC_SIDE_RIGHT, 0, &hint, &p, NULL) == AC_OK);
    CHECK(p.where == AC_TRACK_INSIDE && p.segment == 0 && p.time == 0.0 && p.cycles == 1.0);
    CHECK(p.odd && !p.mirrored && p.mode == AC_EXTRAP_CYCLE && p.after);
    CHECK(ac_track_locate(&tr, 4.0, AC_SIDE_LEFT, 0, &hint, &p, NULL) == AC_OK);
    CHECK(p.where == AC_TRACK_INSIDE && p.segment == 3 && p.time == 4.0 && p.mode == -1);
    /* a seam two cycles on, from the left: the end of the cycle before */
    CHECK(ac_track_locate(&tr, 8.0, AC_SIDE_LEFT, 0, &hint, &p, NULL) == AC_OK);
    CHECK(p.segment == 3 && p.time == 4.0 && p.cycles == 1.0 && p.odd);
    CHECK(ac_track_locate(&tr, -1e300, AC_SIDE_RIGHT, 0, &hint, &p, NULL) == AC_OK);
    CHECK(p.where == AC_TRACK_HOLD && p.key == 0);
    /* oscillate: the mirror of key 3 (2.5) is 5.5; later in clip time is earlier in
       local time, so the right side takes the segment before the key */
    tr.after = AC_EXTRAP_OSCILLATE;
    CHECK(ac_track_locate(&tr, 5.5, AC_SIDE_RIGHT, 0, &hint, &p, NULL) == AC_OK);
    CHECK(p.mirrored && p.odd && p.time == 2.5 && p.segment == 2 && p.side == AC_SIDE_LEFT);
    CHECK(ac_track_locate(&tr, 5.5, AC_SIDE_LEFT, 0, &hint, &p, NULL) == AC_OK);
    CHECK(p.mirrored && p.segment == 3 && p.side == AC_SIDE_RIGHT);
    CHECK(ac_track_locate(&tr, 8.5, AC_SIDE_RIGHT, 0, &hint, &p, NULL) == AC_OK);
    CHECK(!p.mirrored && !p.odd && p.time == 0.5 && p.cycles == 2.0);
    /* linear and sloped continue from the end key; error names the span */
    tr.before = AC_EXTRAP_SLOPED, tr.after = AC_EXTRAP_ERROR;
    CHECK(ac_track_locate(&tr, -3.0, AC_SIDE_RIGHT, 0, &hint, &p, NULL) == AC_OK);
    CHECK(p.where == AC_TRACK_LINE && p.key == 0 && p.mode == AC_EXTRAP_SLOPED);
    CHECK(ac_track_locate(&tr, 4.0, AC_SIDE_RIGHT, 0, &hint, &p, NULL) == AC_OK);
    CHECK(p.where == AC_TRACK_END && p.key == 4 && p.after);
    CHECK(ac_track_locate(&tr, 4.5, AC_SIDE_RIGHT, 7, &hint, &p, &err) == AC_ERR_VALUE);
    CHECK(err.index == 7 && err.arg == AC_ARG_T && err.value == 4.5);
    CHECK(err.reason == AC_REASON_AFTER_ERROR && err.limit[0] == 0.0 && err.limit[1] == 4.0);
    CHECK(ac_track_locate(&tr, NAN, AC_SIDE_RIGHT, 2, &hint, &p, &err) == AC_ERR_VALUE);
    CHECK(err.index == 2 && err.reason == AC_REASON_NONE);
    /* one key: everything outside holds it */
    tr.k = 1, tr.before = tr.after = AC_EXTRAP_CYCLE;
    CHECK(ac_track_locate(&tr, 3.0, AC_SIDE_RIGHT, 0, &hint, &p, NULL) == AC_OK);
    CHECK(p.where == AC_TRACK_HOLD && p.key == 0);
}

static void quaternions(void)
{
    const double id[4] = {0, 0, 0, 1};
    const double h = 0.5 * acos(-1.0) / 2; /* half of a quarter turn */
    const double qz[4] = {0, 0, sin(h), cos(h)}, neg[4] = {0, 0, -sin(h), -cos(h)};
    double out[4], v[3] = {1, 0, 0}, r[3];
    ac_quat_mul(qz, qz, out); /* half turn about z */
    CHECK_NEAR(out[2], 1.0, 1e-15);
    CHECK_NEAR(out[3], 0.0, 1e-15);
    ac_quat_rotate(qz, v, r);
    CHECK_NEAR(r[0], 0.0, 1e-15);
    CHECK_NEAR(r[1], 1.0, 1e-15);
    ac_quat_slerp(id, qz, 0.5, out);
    CHECK_NEAR(out[2], sin(h / 2), 1e-15);
    ac_quat_slerp(id, neg, 0.5, out); /* -q is the same rotation: same arc */
    CHECK_NEAR(out[2], sin(h / 2), 1e-15);
    CHECK_NEAR(out[3], cos(h / 2), 1e-15);
    ac_quat_slerp(id, qz, 0.0, out);
    CHECK_NEAR(out[3], 1.0, 1e-15);
    ac_quat_slerp(id, qz, 1.0, out);
    CHECK_NEAR(out[2], qz[2], 1e-15);
    {
        const double tiny[4] = {0, 0, 1e-13, 1};
        ac_quat_slerp(id, tiny, 0.5, out);
        CHECK_NEAR(out[2], 0.5e-13, 1e-27);
    }
    ac_quat_conj(qz, out);
    ac_quat_mul(qz, out, out);
    CHECK_NEAR(out[3], 1.0, 1e-15);
}

/* The library reports the version of the header it was built from. */
static void version(void)
{
    char expect[32];
    snprintf(expect, sizeof expect, "%d.%d.%d", AC_VERSION_MAJOR, AC_VERSION_MINOR,
             AC_VERSION_PATCH);
    CHECK(strcmp(ac_version(), AC_VERSION_STRING) == 0);
    CHECK(strcmp(ac_version(), expect) == 0);
    CHECK(AC_VERSION == AC_VERSION_MAJOR * 10000 + AC_VERSION_MINOR * 100 + AC_VERSION_PATCH);
}

/* An engine's allocator: counts blocks, and fails once `budget` runs out. */
typedef struct arena {
    long live, total, budget;
} arena;

static void *arena_alloc(size_t size, void *user)
{
    arena *a = user;
    if (a->total >= a->budget)
        return NULL;
    a->live++, a->total++;
    return malloc(size);
}

static void arena_release(void *ptr, void *user)
{
    ((arena *)user)->live--;
    free(ptr);
}

/* A curve takes all its memory from the allocator it is given and returns
   it on destroy; an allocator that runs out gives AC_ERR_NOMEM, no leak. */
static void allocator(void)
{
    const double times[3] = {0.0, 1.0, 2.0}, values[3] = {0.0, 10.0, 5.0};
    arena a = {0, 0, 1000};
    ac_allocator mem = {arena_alloc, arena_release, &a};
    ac_curve_spec spec;
    ac_curve *curve = NULL;
    ac_error err;
    double t = 0.5, x;
    memset(&spec, 0, sizeof spec);
    spec.keys = 3, spec.channels = 1, spec.times = times, spec.values = values;
    spec.interpolation = AC_CURVE_LINEAR, spec.allocator = &mem;
    CHECK(ac_curve_create(&curve, &spec, &err) == AC_OK);
    CHECK(a.live > 0 && a.live == a.total);
    CHECK(ac_curve_eval(curve, &t, 1, 0, &x, &err) == AC_OK && x == 5.0);
    ac_curve_destroy(curve);
    CHECK(a.live == 0);
    for (long budget = 0; budget < a.total; budget++) {
        arena b = {0, 0, budget};
        ac_allocator short_of = {arena_alloc, arena_release, &b};
        spec.allocator = &short_of;
        curve = NULL;
        CHECK(ac_curve_create(&curve, &spec, &err) == AC_ERR_NOMEM);
        CHECK(b.live == 0);
    }
}

/* Every create function takes its memory from the allocator: all blocks are
   back when the object is destroyed, and running out at any allocation is
   AC_ERR_NOMEM without a leak. `make` creates (with `mem`) and destroys. */
typedef int (*make_fn)(const ac_allocator *mem, int destroy);

static int make_quat_curve(const ac_allocator *mem, int destroy)
{
    const double times[2] = {0.0, 1.0}, quats[8] = {0, 0, 0, 1, 0, 0, 1, 0};
    ac_quat_curve *c = NULL;
    ac_status st = ac_quat_curve_create(times, quats, NULL, NULL, 2, AC_CURVE_LINEAR,
                                        AC_EXTRAP_CLAMP, AC_EXTRAP_CLAMP, &c, mem, NULL);
    if (!st && destroy)
        ac_quat_curve_destroy(c);
    return st;
}

static int make_looptrack(const ac_allocator *mem, int destroy)
{
    const double times[3] = {0.0, 0.5, 1.0}, positions[3] = {0.0, 0.4, 1.0};
    ac_looptrack *tr = NULL;
    ac_status st = ac_rootmotion_create(&tr, times, positions, 3, 1, AC_CURVE_LINEAR,
                                        AC_ROOT_NO_ROTATION, NULL, 1, 1e6, mem, NULL);
    if (!st && destroy)
        ac_rootmotion_destroy(tr);
    return st;
}

static int make_buffer(const ac_allocator *mem, int destroy)
{
    ac_snapshot_buffer *b = NULL;
    ac_status st = ac_snapshot_buffer_create(&b, 4, 3, 8, true, 2.0, mem, NULL);
    if (!st && destroy)
        ac_snapshot_buffer_destroy(b);
    return st;
}

static int make_timeline(const ac_allocator *mem, int destroy)
{
    ac_snapshot_timeline *tl = NULL;
    ac_status st = ac_snapshot_timeline_create(&tl, 2, 8, true, 2.0, 4, mem, NULL);
    if (!st && destroy)
        ac_snapshot_timeline_destroy(tl);
    return st;
}

static int make_skeleton(const ac_allocator *mem, int destroy)
{
    const int64_t parents[4] = {-1, 0, 1, 0};
    ac_skeleton *s = NULL;
    ac_status st = ac_skeleton_create(parents, 4, &s, mem, NULL);
    if (!st && destroy)
        ac_skeleton_destroy(s);
    return st;
}

static void every_create(void)
{
    static const make_fn makes[] = {make_quat_curve, make_looptrack, make_buffer,
                                    make_timeline, make_skeleton};
    for (size_t m = 0; m < sizeof makes / sizeof makes[0]; m++) {
        arena a = {0, 0, 1000};
        ac_allocator mem = {arena_alloc, arena_release, &a};
        CHECK(makes[m](&mem, 1) == AC_OK);
        CHECK(a.total > 0 && a.live == 0);
        for (long budget = 0; budget < a.total; budget++) {
            arena b = {0, 0, budget};
            ac_allocator short_of = {arena_alloc, arena_release, &b};
            CHECK(makes[m](&short_of, 1) == AC_ERR_NOMEM);
            CHECK(b.live == 0);
        }
        CHECK(makes[m](NULL, 1) == AC_OK); /* NULL: malloc and free */
    }
}

/* Normalization by the largest component: any finite magnitude, zeros for 0. */
static void normalize(void)
{
    const double scales[5] = {1e-310, 1e-170, 1.0, 1e200, 1.7e308};
    for (int s = 0; s < 5; s++) {
        double q[4] = {scales[s], scales[s], scales[s], scales[s]}, out[4];
        CHECK(ac_quat_normalize(q, out));
        for (int k = 0; k < 4; k++)
            CHECK(out[k] == 0.5);
    }
    {
        double v[3] = {3e300, 0, -4e300}, out[3], zero[4] = {0, 0, 0, 0}, z[4] = {9, 9, 9, 9};
        CHECK(ac_normalize(v, 3, out));
        CHECK_NEAR(out[0], 0.6, 1e-15);
        CHECK_NEAR(out[2], -0.8, 1e-15);
        CHECK(!ac_quat_normalize(zero, z) && z[0] == 0.0 && z[3] == 0.0);
    }
}

/* The cycle fold against fmod, at ordinary and extreme times and spans. */
static void fold(void)
{
    double cycles, sign, t;
    t = ac_cycle_fold(2.75, 0.0, 1.0, 0, &cycles, &sign);
    CHECK(t == 0.75 && cycles == 2.0 && sign == 1.0);
    t = ac_cycle_fold(3.25, 0.0, 1.0, 1, &cycles, &sign);
    CHECK(t == 0.75 && cycles == 3.0 && sign == -1.0); /* mirrored */
    t = ac_cycle_fold(-0.25, 0.0, 1.0, 1, &cycles, &sign);
    CHECK(t == 0.25 && cycles == -1.0 && sign == -1.0);
    t = ac_cycle_fold(1.7e308, 0.0, 0.3, 1, &cycles, &sign);
    CHECK(sign == (fmod(1.7e308, 0.6) >= 0.3 ? -1.0 : 1.0));
    CHECK(t == (sign < 0 ? 0.3 - fmod(1.7e308, 0.3) : fmod(1.7e308, 0.3)));
    CHECK(!ac_finite(cycles) || cycles > 1e307);
    t = ac_cycle_fold(1.5e308, -1e308, 1e308, 0, &cycles, &sign); /* span beyond DBL_MAX */
    CHECK(fabs(t - -0.5e308) <= 1e293); /* 1.5e308 is 2.5e308 past -1e308: 0.5e308 into cycle 1 */
    CHECK(cycles == 1.0 && sign == 1.0);
    t = ac_cycle_fold(1.5e308, -1e308, 1e308, 1, &cycles, &sign);
    CHECK(fabs(t - 0.5e308) <= 1e293 && sign == -1.0);
}

int main(void)
{
    version();
    allocator();
    every_create();
    segment_find();
    track();
    quaternions();
    normalize();
    fold();
    TEST_DONE("test_internal");
}
