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

/* ac_atan2_series against the libm's atan2: the same value at the axes,
   the diagonals, the origin and infinities with every sign, and within 4 ulp of
   pi elsewhere (quotients from 2^-60 to 2^60, and the small and large
   magnitudes of quaternion parts). */
static void atan2_series(void)
{
    const double edge[] = {0.0, -0.0, 1.0, -1.0, 0.5, -2.0, 1e-300, -1e-300, INFINITY,
                           -INFINITY};
    const int n = (int)(sizeof edge / sizeof edge[0]);
    uint64_t state = 0x2545F4914F6CDD1Du;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double y = edge[i], x = edge[j], got = ac_atan2_series(y, x);
            if (fabs(y) == fabs(x) || y == 0.0 || x == 0.0 || isinf(y) || isinf(x))
                CHECK(memcmp(&got, &(double){atan2(y, x)}, sizeof got) == 0);
        }
    for (int i = 0; i < 200000; i++) {
        double y, x;
        state ^= state << 13, state ^= state >> 7, state ^= state << 17;
        y = ldexp((double)(state >> 11) / 9007199254740992.0, (int)(state % 121) - 60);
        x = (double)(state & 0xFFFF) / 32768.0 - 1.0;
        y = state & (1u << 20) ? -y : y;
        CHECK(fabs(ac_atan2_series(y, x) - atan2(y, x)) <= 4 * 0x1p-51);
        CHECK(fabs(ac_atan2_series(x, y) - atan2(x, y)) <= 4 * 0x1p-51);
    }
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

/* ------------------------------------------------------------ SIMD lanes
   The lanes must give the scalar helpers' results bit for bit. Inputs with
   random 53-bit significands over wide exponent ranges, zeros of both signs,
   and exact ties of magnitude exercise the division without a divider. */
#ifdef AC_SIMD
static uint64_t lane_state = 0x9E3779B97F4A7C15u;

static uint64_t lane_bits(void)
{
    lane_state ^= lane_state << 13, lane_state ^= lane_state >> 7, lane_state ^= lane_state << 17;
    return lane_state;
}

/* A random significand times 2^e for e in [lo, hi], either sign. */
static double lane_value(int lo, int hi)
{
    uint64_t r = lane_bits();
    double m = (double)(r >> 11) / 9007199254740992.0 + 0.5; /* [0.5, 1) */
    return ldexp(r & 1 ? -m : m, lo + (int)(lane_bits() % (uint64_t)(hi - lo + 1)));
}

AC_SIMD_KERNEL void lanes_on_this_cpu(void)
{
    enum { N = 16 * AC_GROUPS * AC_LANES };
    double q[4 * N], v[3 * N], unit[4 * N], rot[3 * N], mul[4 * N], sl[4 * N], t[N];
    for (int round = 0; round < 40; round++) {
        for (int i = 0; i < 4 * N; i++) {
            int kind = (int)(lane_bits() % 16);
            q[i] = kind == 0 ? 0.0 : kind == 1 ? -0.0 : lane_value(round % 2 ? -60 : -3, 3);
        }
        for (int i = 0; i < 3 * N; i++)
            v[i] = lane_value(-40, 40);
        for (int i = 0; i < N; i++) {
            t[i] = (double)(lane_bits() >> 11) / 9007199254740992.0;
            if (i % 5 == 0) /* a tie: two components of equal magnitude */
                q[4 * i + 2] = -q[4 * i + 3];
            if (q[4 * i] == 0.0 && q[4 * i + 1] == 0.0 && q[4 * i + 2] == 0.0 && q[4 * i + 3] == 0.0)
                q[4 * i] = 1.0; /* no zero quaternion: that lane would be cleared */
        }
        for (int i = 0; i < N; i += AC_GROUPS * AC_LANES) { /* 1 group, then AC_GROUPS */
            ac_vd x[AC_GROUPS][4], y[AC_GROUPS][4], w[3], r[AC_GROUPS][4], r3[3], u[AC_GROUPS];
            ac_vm ok[AC_GROUPS], ok2[AC_GROUPS], ok3[AC_GROUPS];
            for (int g = 0; g < AC_GROUPS; g++) {
                int at = i + g * AC_LANES;
                ac_vd_load4(q + 4 * at, 1, x[g]);
                ac_vd_load4(q + 4 * ((at + 8) % N), 1, y[g]);
                ac_vd_quat_mul(x[g], y[g], r[g]);
                ac_vd_store4(mul + 4 * at, r[g]);
                u[g] = ac_vd_load1(t + at, 1);
            }
            if (i == 0) {
                ac_vd_quat_normalize(x, ok, 1);
                ac_vd_quat_normalize(x + 1, ok + 1, AC_GROUPS - 1);
            } else {
                ac_vd_quat_normalize(x, ok, AC_GROUPS);
            }
            for (int g = 0; g < AC_GROUPS; g++) {
                int at = i + g * AC_LANES;
                CHECK(!ac_vm_any(~ok[g])); /* every lane in range */
                ac_vd_store4(unit + 4 * at, x[g]);
                ac_vd_load3(v + 3 * at, 1, w);
                ac_vd_quat_rotate(x[g], w, r3);
                ac_vd_store3(rot + 3 * at, r3);
            }
            ac_vd_quat_normalize(y, ok2, AC_GROUPS);
            if (i == 0) {
                ac_vd_quat_slerp_any(x, y, u, r, ok3, 1);
                ac_vd_quat_slerp_any(x + 1, y + 1, u + 1, r + 1, ok3 + 1, AC_GROUPS - 1);
            } else {
                ac_vd_quat_slerp_any(x, y, u, r, ok3, AC_GROUPS);
            }
            for (int g = 0; g < AC_GROUPS; g++) {
                CHECK(!ac_vm_any(~(ok2[g] & ok3[g])));
                ac_vd_store4(sl + 4 * (i + g * AC_LANES), r[g]);
            }
        }
        for (int i = 0; i < N; i++) {
            double u[4], b[4], p[4], r[4], x[3];
            int j = (i + 8) % N;
            ac_quat_mul(q + 4 * i, q + 4 * j, p);
            ac_quat_normalize(q + 4 * i, u);
            ac_quat_normalize(q + 4 * j, b);
            ac_quat_rotate(u, v + 3 * i, x);
            ac_quat_slerp_any(u, b, t[i], r);
            for (int k = 0; k < 4; k++) {
                CHECK(memcmp(&p[k], &mul[4 * i + k], sizeof p[k]) == 0);
                CHECK(memcmp(&u[k], &unit[4 * i + k], sizeof u[k]) == 0);
                CHECK(memcmp(&r[k], &sl[4 * i + k], sizeof r[k]) == 0);
            }
            for (int k = 0; k < 3; k++)
                CHECK(memcmp(&x[k], &rot[3 * i + k], sizeof x[k]) == 0);
        }
    }
    /* the division itself, at the ends of its range */
    for (int i = 0; i < 50000; i++) {
        double a[AC_LANES], b[AC_LANES], y[AC_LANES], got[AC_LANES];
        for (int l = 0; l < AC_LANES; l++) {
            a[l] = lane_value(-900, 500);
            b[l] = fabs(lane_value(-500, 500));
            if (fabs(a[l] / b[l]) < 0x1p-1000 || fabs(a[l] / b[l]) > 0x1p1000)
                a[l] = b[l] * 0.75;
            y[l] = 1.0 / b[l];
        }
        {
            ac_vd va = ac_vd_load1(a, 1), vb = ac_vd_load1(b, 1), vy = ac_vd_load1(y, 1);
            ac_vd q = ac_vd_div_by(va, vb, vy);
            memcpy(got, &q, sizeof got);
        }
        for (int l = 0; l < AC_LANES; l++)
            CHECK(got[l] == a[l] / b[l]);
    }
    /* out of range: a zero, a subnormal or a huge component clears the lane */
    {
        double odd[4 * AC_LANES] = {0};
        ac_vd x[1][4];
        ac_vm ok[1];
        for (int i = 0; i < AC_LANES; i++)
            odd[4 * i + 3] = 1.0;
        odd[4 * 1 + 0] = 1e-300, odd[4 * 2 + 3] = 1e100, odd[4 * 3 + 3] = 0.0;
        odd[4 * 4 + 1] = NAN, odd[4 * 5 + 2] = INFINITY;
        ac_vd_load4(odd, 1, x[0]);
        ac_vd_quat_normalize(x, ok, 1);
        for (int i = 0; i < AC_LANES; i++)
            CHECK((ok[0][i] != 0) == (i == 0 || i == 6 || i == 7));
    }
}

static void lanes(void)
{
    if (ac_simd_available())
        lanes_on_this_cpu();
    else
        printf("test_internal: no AVX-512F here, the lanes are not tested\n");
}
#else
static void lanes(void) {}
#endif

/* ac_all_within_reach reads its values as eight parts side by side and a
   tail: one value out of range (or NaN) fails it at any place of any part,
   and a value at a bound or within reach passes. */
static void all_within(void)
{
    enum { MOST = 8 * 9 + 7 };
    double x[MOST];
    for (size_t n = 0; n <= MOST; n++) {
        for (size_t i = 0; i < n; i++)
            x[i] = 0.25 + 0.25 * (double)(i % 3); /* 0.25, 0.5, 0.75 */
        CHECK(ac_all_within(x, n, 0.0, 1.0));
        CHECK(ac_all_within(x, n, 0.25, 0.75));
        for (size_t i = 0; i < n; i++) {
            const double keep = x[i], bad[4] = {-0x1p-1074, 1.0 + 0x1p-52, NAN, -INFINITY};
            for (int b = 0; b < 4; b++) {
                x[i] = bad[b];
                CHECK(!ac_all_within(x, n, 0.0, 1.0));
            }
            x[i] = 2.0; /* 1 over hi: within a reach of 1, not of 0.5 */
            CHECK(ac_all_within_reach(x, n, 0.0, 1.0, 0.0, 1.0));
            CHECK(!ac_all_within_reach(x, n, 0.0, 1.0, 0.0, 0.5));
            x[i] = -0.0; /* at lo = 0 */
            CHECK(ac_all_within(x, n, 0.0, 1.0));
            x[i] = keep;
        }
    }
}

int main(void)
{
    version();
    allocator();
    every_create();
    segment_find();
    track();
    quaternions();
    atan2_series();
    normalize();
    fold();
    all_within();
    lanes();
    TEST_DONE("test_internal");
}
