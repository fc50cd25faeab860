/* The snapshot timelines and buffers against article 003's figures, the
   eviction, extrapolation, reorder and generation rules, and every error. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ac_test.h"

#define PI 3.14159265358979323846

typedef struct sample {
    double position, rotation[4];
    unsigned char mode;
    int64_t left, right;
} sample;

static sample at(const ac_snapshot_timeline *tl, double t)
{
    sample s;
    ac_error err;
    CHECK(ac_snapshot_timeline_sample(tl, &t, 1, &s.position, s.rotation, &s.mode, &s.left,
                                      &s.right, &err) == AC_OK);
    return s;
}

static unsigned char push1(ac_snapshot_timeline *tl, int64_t tick, int64_t segment,
                           double position)
{
    unsigned char r = 99;
    CHECK(ac_snapshot_timeline_push(tl, &tick, &segment, &position, NULL, 1, &r, NULL) ==
          AC_OK);
    return r;
}

static ac_snapshot_timeline *article(double extrapolation, size_t window)
{
    ac_snapshot_timeline *tl;
    const int64_t ticks[4] = {100, 102, 104, 106}, segments[4] = {0, 0, 1, 1};
    const double positions[4] = {0, 2, 102, 104};
    unsigned char r[4];
    CHECK(ac_snapshot_timeline_create(&tl, 1, 64, 0, extrapolation, window, NULL, NULL) == AC_OK);
    CHECK(ac_snapshot_timeline_push(tl, ticks, segments, positions, NULL, 4, r, NULL) ==
          AC_OK);
    for (int i = 0; i < 4; i++)
        CHECK(r[i] == AC_SNAPSHOT_ACCEPTED);
    return tl;
}

static void article_figures(void)
{
    ac_snapshot_timeline *tl = article(0, 0);
    sample s = at(tl, 101.5);
    CHECK(s.mode == AC_SNAPSHOT_INTERPOLATE && s.position == 1.5);
    CHECK(s.left == 100 && s.right == 102);
    s = at(tl, 103);
    CHECK(s.mode == AC_SNAPSHOT_SEGMENT_CUT && s.position == 102.0);
    CHECK(s.left == 102 && s.right == 104);
    CHECK(s.position != 52.0); /* the naive ghost */
    CHECK(push1(tl, 102, 0, 50.0) == AC_SNAPSHOT_OUT_OF_ORDER);
    CHECK(ac_snapshot_buffer_count(ac_snapshot_timeline_buffer(tl), 0) == 4);
    CHECK(at(tl, 103).position == 102.0);
    s = at(tl, 99);
    CHECK(s.mode == AC_SNAPSHOT_HOLD_OLDEST && s.position == 0.0 && s.left == 100);
    s = at(tl, 107);
    CHECK(s.mode == AC_SNAPSHOT_HOLD_LATEST && s.position == 104.0 && s.right == 106);
    /* push rules, in order */
    CHECK(push1(tl, 108, 1, NAN) == AC_SNAPSHOT_INVALID);
    CHECK(push1(tl, 108, -1, 0) == AC_SNAPSHOT_INVALID);
    CHECK(push1(tl, 108, 0, 0) == AC_SNAPSHOT_INVALID);
    CHECK(push1(tl, 100, 0, 0) == AC_SNAPSHOT_OUT_OF_ORDER);
    CHECK(push1(tl, 108, 1, 0) == AC_SNAPSHOT_ACCEPTED);
    ac_snapshot_timeline_destroy(tl);

    CHECK(ac_snapshot_timeline_create(&tl, 1, 8, 0, 0, 0, NULL, NULL) == AC_OK);
    s = at(tl, 5);
    CHECK(s.mode == AC_SNAPSHOT_EMPTY && s.position == 0 && s.left == 0 && s.right == 0);
    ac_snapshot_timeline_destroy(tl);
}

static void eviction(void)
{
    ac_snapshot_timeline *tl;
    int64_t ticks[4];
    CHECK(ac_snapshot_timeline_create(&tl, 1, 3, 0, 0, 0, NULL, NULL) == AC_OK);
    for (int k = 0; k < 10; k++)
        CHECK(push1(tl, 2 * k, 0, k) == AC_SNAPSHOT_ACCEPTED);
    CHECK(ac_snapshot_buffer_read(ac_snapshot_timeline_buffer(tl), 0, ticks, NULL, NULL,
                                  NULL) == 3);
    CHECK(ticks[0] == 14 && ticks[1] == 16 && ticks[2] == 18);
    CHECK(at(tl, 3).mode == AC_SNAPSHOT_HOLD_OLDEST && at(tl, 3).position == 7.0);
    CHECK(at(tl, 15).position == 7.5);
    CHECK(push1(tl, 17, 0, 0) == AC_SNAPSHOT_OUT_OF_ORDER);
    ac_snapshot_timeline_destroy(tl);
}

static void extrapolation(void)
{
    ac_snapshot_timeline *tl = article(3, 0);
    sample s = at(tl, 108);
    CHECK(s.mode == AC_SNAPSHOT_EXTRAPOLATE && s.position == 106.0);
    CHECK(s.left == 104 && s.right == 106);
    s = at(tl, 109);
    CHECK(s.mode == AC_SNAPSHOT_EXTRAPOLATE && s.position == 107.0);
    s = at(tl, 200);
    CHECK(s.mode == AC_SNAPSHOT_HOLD_LATEST && s.position == 107.0);
    CHECK(push1(tl, 108, 2, 500) == AC_SNAPSHOT_ACCEPTED); /* teleport */
    s = at(tl, 109);
    CHECK(s.mode == AC_SNAPSHOT_HOLD_LATEST && s.position == 500.0 && s.left == 108);
    ac_snapshot_timeline_destroy(tl);
}

static void reorder(void)
{
    ac_snapshot_timeline *tl;
    int64_t ticks[8];
    CHECK(ac_snapshot_timeline_create(&tl, 1, 8, 0, 0, 2, NULL, NULL) == AC_OK);
    CHECK(push1(tl, 100, 0, 0) == AC_SNAPSHOT_ACCEPTED);
    CHECK(push1(tl, 104, 1, 102) == AC_SNAPSHOT_ACCEPTED); /* releases 100 */
    CHECK(push1(tl, 102, 0, 2) == AC_SNAPSHOT_ACCEPTED);   /* late, in the window */
    CHECK(push1(tl, 102, 0, 2) == AC_SNAPSHOT_OUT_OF_ORDER);
    CHECK(push1(tl, 103, 2, 0) == AC_SNAPSHOT_INVALID);    /* segment after 104's */
    CHECK(ac_snapshot_timeline_pending(tl) == 1);          /* 102 released, 104 waits */
    CHECK(push1(tl, 101, 0, 1) == AC_SNAPSHOT_OUT_OF_ORDER);
    CHECK(push1(tl, 106, 1, 104) == AC_SNAPSHOT_ACCEPTED); /* releases 104 */
    CHECK(ac_snapshot_timeline_flush(tl) == 1 && ac_snapshot_timeline_pending(tl) == 0);
    CHECK(ac_snapshot_buffer_read(ac_snapshot_timeline_buffer(tl), 0, ticks, NULL, NULL,
                                  NULL) == 4);
    CHECK(ticks[0] == 100 && ticks[1] == 102 && ticks[2] == 104 && ticks[3] == 106);
    CHECK(at(tl, 103).position == 102.0 && at(tl, 101.5).position == 1.5);
    ac_snapshot_timeline_destroy(tl);
}

static void buffer_generations_and_rotations(void)
{
    ac_snapshot_buffer *b;
    const int64_t ent[4] = {0, 0, 1, 0}, tick[4] = {10, 20, 10, 5}, seg[4] = {0, 0, 0, 0};
    const int64_t gen[4] = {0, 0, 0, 1};
    const double pos[4] = {0, 10, 7, 3};
    /* 90 degrees about z, and the same rotation negated */
    const double h = sqrt(0.5), rot[16] = {0, 0, 0, 1, 0, 0, -h, -h, 0, 0, 0, 2, 0, 0, 0, 1};
    double p[2], q[8];
    unsigned char r[4], mode[2];
    int64_t left[2], right[2];
    CHECK(ac_snapshot_buffer_create(&b, 2, 1, 4, 1, 0, NULL, NULL) == AC_OK);
    CHECK(ac_snapshot_buffer_push(b, ent, tick, seg, pos, rot, gen, 3, r, NULL) == AC_OK);
    CHECK(r[0] == 0 && r[1] == 0 && r[2] == 0);
    CHECK(ac_snapshot_buffer_sample(b, 15, p, q, mode, left, right, NULL) == AC_OK);
    CHECK(mode[0] == AC_SNAPSHOT_INTERPOLATE && p[0] == 5.0);
    /* halfway along the short 90 degree arc: 45 degrees about +z */
    CHECK_NEAR(fabs(q[2]), sin(PI / 8), 1e-12);
    CHECK_NEAR(fabs(q[3]), cos(PI / 8), 1e-12);
    CHECK(q[2] * q[3] > 0);
    CHECK(mode[1] == AC_SNAPSHOT_HOLD_LATEST && p[1] == 7.0 && q[7] == 1.0);
    /* a higher generation resets the slot; then a lower one is INVALID */
    CHECK(ac_snapshot_buffer_push(b, ent + 3, tick + 3, seg + 3, pos + 3, rot + 12, gen + 3,
                                  1, r, NULL) == AC_OK);
    CHECK(r[0] == AC_SNAPSHOT_ACCEPTED && ac_snapshot_buffer_count(b, 0) == 1);
    CHECK(ac_snapshot_buffer_generation(b, 0) == 1);
    CHECK(ac_snapshot_buffer_push(b, ent, tick + 1, seg, pos, rot, NULL, 1, r, NULL) == AC_OK);
    CHECK(r[0] == AC_SNAPSHOT_INVALID && ac_snapshot_buffer_count(b, 0) == 1);
    ac_snapshot_buffer_destroy(b);
}

static void errors(void)
{
    ac_snapshot_buffer *b = NULL;
    ac_snapshot_timeline *tl = NULL;
    ac_error err;
    const int64_t ent[2] = {0, 2}, tick[2] = {1, 2}, seg[2] = {0, 0};
    const double pos[2] = {0, 0};
    unsigned char r[2];
    double t[2] = {1, NAN}, p[2];
    unsigned char m[2];
    int64_t l[2], rr[2];
    CHECK(ac_snapshot_buffer_create(&b, 2, 0, 4, 0, 0, NULL, &err) == AC_ERR_VALUE && !b);
    CHECK(err.arg == AC_ARG_DIM);
    CHECK(ac_snapshot_buffer_create(&b, 2, 1, 0, 0, 0, NULL, &err) == AC_ERR_VALUE);
    CHECK(err.arg == AC_ARG_CAPACITY);
    CHECK(ac_snapshot_buffer_create(&b, 2, 1, 4, 0, -1, NULL, &err) == AC_ERR_VALUE);
    CHECK(err.arg == AC_ARG_MAX_EXTRAPOLATION);
    CHECK(ac_snapshot_buffer_create(&b, SIZE_MAX / 2, 1, 4, 0, 0, NULL, &err) == AC_ERR_VALUE);
    CHECK(err.arg == AC_ARG_ENTITIES);
    CHECK(ac_snapshot_timeline_create(&tl, 1, 4, 0, 0, 100000, NULL, &err) == AC_ERR_VALUE && !tl);
    CHECK(err.arg == AC_ARG_REORDER_WINDOW);

    CHECK(ac_snapshot_buffer_create(&b, 2, 1, 4, 0, 0, NULL, &err) == AC_OK);
    CHECK(ac_snapshot_buffer_push(b, ent, tick, seg, pos, NULL, NULL, 2, r, &err) ==
          AC_ERR_VALUE);
    CHECK(err.arg == AC_ARG_ENTITY && err.index == 1 && err.value == 2.0);
    CHECK(ac_snapshot_buffer_count(b, 0) == 0); /* nothing applied */
    {
        const int64_t bad_tick[2] = {1, 4294967296LL}, fine[2] = {0, 1};
        CHECK(ac_snapshot_buffer_push(b, fine, bad_tick, seg, pos, NULL, NULL, 2, r, &err) ==
              AC_ERR_VALUE);
        CHECK(err.arg == AC_ARG_TICK && err.index == 1);
        CHECK(strcmp(err.detail, "must be an integer in [0, 4294967295]") == 0);
    }
    CHECK(ac_snapshot_buffer_sample(b, NAN, p, NULL, m, l, rr, &err) == AC_ERR_VALUE);
    CHECK(err.arg == AC_ARG_RENDER_TICK);
    ac_snapshot_buffer_destroy(b);

    CHECK(ac_snapshot_timeline_create(&tl, 1, 4, 1, 0, 0, NULL, &err) == AC_OK);
    CHECK(ac_snapshot_timeline_push(tl, tick, seg, pos, NULL, 1, r, &err) == AC_ERR_VALUE);
    CHECK(err.arg == AC_ARG_ROTATION);
    CHECK(ac_snapshot_timeline_sample(tl, t, 2, p, NULL, m, l, rr, &err) == AC_ERR_VALUE);
    CHECK(err.arg == AC_ARG_RENDER_TICK && err.index == 1);
    ac_snapshot_timeline_destroy(tl);
    CHECK(ac_snapshot_buffer_create(&b, 2, 1, 4, 1, 0, NULL, &err) == AC_OK);
    CHECK(ac_snapshot_buffer_push(b, ent, tick, seg, pos, NULL, NULL, 1, r, &err) ==
          AC_ERR_VALUE);
    CHECK(err.arg == AC_ARG_ROTATION && ac_snapshot_buffer_count(b, 0) == 0);
    ac_snapshot_buffer_destroy(b);
    ac_snapshot_buffer_destroy(NULL);
    ac_snapshot_timeline_destroy(NULL);
}


/* A deterministic stream for entity e at step i: ticks with gaps, a teleport
   (segment change) every 7 steps, a generation change at step 30 of entity 1. */
static void stream_push(ac_snapshot_buffer *b, size_t entities, int i)
{
    for (size_t e = 0; e < entities; e++) {
        int64_t ent = (int64_t)e, tick = 10 * i + (int64_t)e % 3 + (i % 4 == 3);
        int64_t seg = i / 7, gen = e == 1 && i >= 30;
        double pos[2] = {0.5 * i + (double)e, i % 7 ? 1.0 * i : 100.0 * i};
        double rot[4] = {0.1 * i, 0.2, 0.3 * (double)e, 1.0};
        unsigned char r;
        CHECK(ac_snapshot_buffer_push(b, &ent, &tick, &seg, pos, rot, &gen, 1, &r, NULL) ==
              AC_OK);
    }
}

static int same_samples(const ac_snapshot_buffer *a, const ac_snapshot_buffer *b, double t)
{
    double pa[6], pb[6], qa[12], qb[12];
    unsigned char ma[3], mb[3];
    int64_t la[3], lb[3], ra[3], rb[3];
    CHECK(ac_snapshot_buffer_sample(a, t, pa, qa, ma, la, ra, NULL) == AC_OK);
    CHECK(ac_snapshot_buffer_sample(b, t, pb, qb, mb, lb, rb, NULL) == AC_OK);
    return !memcmp(pa, pb, sizeof pa) && !memcmp(qa, qb, sizeof qa) &&
           !memcmp(ma, mb, sizeof ma) && !memcmp(la, lb, sizeof la) &&
           !memcmp(ra, rb, sizeof ra);
}

/* A restored buffer continues exactly like the original (ring wrapped,
   teleports, a generation change), and bad states change nothing. */
static void buffer_state(void)
{
    ac_snapshot_buffer *a, *b, *other;
    unsigned char *state, *copy;
    size_t size;
    ac_error err;
    CHECK(ac_snapshot_buffer_create(&a, 3, 2, 5, 1, 2.5, NULL, NULL) == AC_OK);
    CHECK(ac_snapshot_buffer_create(&b, 3, 2, 5, 1, 2.5, NULL, NULL) == AC_OK);
    for (int i = 0; i < 23; i++)
        stream_push(a, 3, i);
    size = ac_snapshot_buffer_state_size(a);
    CHECK(size == 8 * (6 + 2 * 3 + 15 * (2 + 2 + 4)));
    state = malloc(size);
    copy = malloc(size);
    CHECK(state && copy);
    ac_snapshot_buffer_state_get(a, state);
    CHECK(ac_snapshot_buffer_state_set(b, state, size, &err) == AC_OK);
    ac_snapshot_buffer_state_get(b, copy);
    CHECK(memcmp(state, copy, size) == 0);
    for (int i = 23; i < 40; i++) {
        stream_push(a, 3, i);
        stream_push(b, 3, i);
        for (double t = 10.0 * i - 45.0; t < 10.0 * i + 6.0; t += 0.75)
            CHECK(same_samples(a, b, t));
    }
    CHECK(ac_snapshot_buffer_generation(b, 1) == 1);

    /* each bad state is refused with its reason, and b keeps its content */
    ac_snapshot_buffer_state_get(b, state);
#define REFUSED(word, value, what)                                                   \
    do {                                                                             \
        memcpy(copy, state, size);                                                   \
        {                                                                            \
            uint64_t v_ = (value);                                                   \
            memcpy(copy + 8 * (word), &v_, 8);                                       \
        }                                                                            \
        CHECK(ac_snapshot_buffer_state_set(b, copy, size, &err) == AC_ERR_VALUE);    \
        CHECK(err.arg == AC_ARG_STATE && strstr(err.detail, what));            \
    } while (0)
    REFUSED(0, 1, "byte order");
    REFUSED(2, 3, "another entities, dim");
    REFUSED(6 + 1, 6, "count exceeds");
    REFUSED(6 + 3 + 1, (uint64_t)-1, "generation is negative");
    CHECK(err.index == 1);
    /* entity 2's second tick (slot 1) equal to its first */
    REFUSED(6 + 6 + 3 * 1 + 2, 10 * 35 + 2 % 3, "not increasing");
    REFUSED(6 + 6 + 15 + 3 * 1 + 2, (uint64_t)-1, "segments are negative");
    {
        double inf = INFINITY, two = 2.0;
        uint64_t bits;
        memcpy(&bits, &inf, 8);
        REFUSED(6 + 6 + 30 + 2 * (3 * 1 + 2), bits, "position is not finite");
        memcpy(&bits, &two, 8);
        REFUSED(6 + 6 + 30 + 30 + 4 * (3 * 1 + 2), bits, "not a unit quaternion");
    }
#undef REFUSED
    CHECK(ac_snapshot_buffer_state_set(b, state, size - 8, &err) == AC_ERR_VALUE);
    CHECK(strstr(err.detail, "size"));
    CHECK(ac_snapshot_buffer_create(&other, 3, 2, 5, 1, 2.0, NULL, NULL) == AC_OK);
    CHECK(ac_snapshot_buffer_state_set(other, state, size, &err) == AC_ERR_VALUE);
    CHECK(strstr(err.detail, "max_extrapolation"));
    ac_snapshot_buffer_state_get(b, copy);
    CHECK(memcmp(state, copy, size) == 0); /* nothing changed */
    for (double t = 300.0; t < 420.0; t += 1.25)
        CHECK(same_samples(a, b, t));
    free(state);
    free(copy);
    ac_snapshot_buffer_destroy(a);
    ac_snapshot_buffer_destroy(b);
    ac_snapshot_buffer_destroy(other);
}

/* A timeline restored with snapshots waiting in its reorder window releases
   them as the original does. */
static void timeline_state(void)
{
    ac_snapshot_timeline *a, *b;
    const int64_t ticks[6] = {100, 104, 102, 103, 108, 106}, segs[6] = {0, 0, 0, 0, 1, 1};
    const double pos[6] = {0, 4, 2, 3, 108, 106};
    int64_t tick = 120, seg = 1;
    double x = 120.0, t;
    unsigned char r[6], *state, *copy;
    size_t size;
    ac_error err;
    uint64_t v;
    CHECK(ac_snapshot_timeline_create(&a, 1, 4, 0, 1.0, 5, NULL, NULL) == AC_OK);
    CHECK(ac_snapshot_timeline_create(&b, 1, 4, 0, 1.0, 5, NULL, NULL) == AC_OK);
    CHECK(ac_snapshot_timeline_push(a, ticks, segs, pos, NULL, 6, r, NULL) == AC_OK);
    CHECK(ac_snapshot_timeline_pending(a) > 0);
    size = ac_snapshot_timeline_state_size(a);
    state = malloc(size);
    copy = malloc(size);
    CHECK(state && copy);
    ac_snapshot_timeline_state_get(a, state);
    CHECK(ac_snapshot_timeline_state_set(b, state, size, &err) == AC_OK);
    CHECK(ac_snapshot_timeline_pending(b) == ac_snapshot_timeline_pending(a));
    CHECK(ac_snapshot_timeline_push(a, &tick, &seg, &x, NULL, 1, r, NULL) == AC_OK);
    CHECK(ac_snapshot_timeline_push(b, &tick, &seg, &x, NULL, 1, r + 1, NULL) == AC_OK);
    CHECK(r[0] == r[1] && ac_snapshot_timeline_pending(b) == ac_snapshot_timeline_pending(a));
    for (t = 95.0; t < 125.0; t += 0.5) {
        sample sa = at(a, t), sb = at(b, t);
        CHECK(memcmp(&sa.position, &sb.position, sizeof sa.position) == 0);
        CHECK(sa.mode == sb.mode && sa.left == sb.left && sa.right == sb.right);
    }
    ac_snapshot_timeline_state_get(b, state);
    memcpy(copy, state, size);
    v = 9; /* a different reorder window */
    memcpy(copy + 8, &v, 8);
    CHECK(ac_snapshot_timeline_state_set(b, copy, size, &err) == AC_ERR_VALUE);
    CHECK(strstr(err.detail, "reorder_window"));
    memcpy(copy, state, size);
    v = 6; /* more waiting than the window holds */
    memcpy(copy + 16, &v, 8);
    CHECK(ac_snapshot_timeline_state_set(b, copy, size, &err) == AC_ERR_VALUE);
    CHECK(strstr(err.detail, "pending count"));
    memcpy(copy, state, size);
    v = 200; /* every waiting tick would be due for release */
    memcpy(copy + 24, &v, 8);
    CHECK(ac_snapshot_timeline_state_set(b, copy, size, &err) == AC_ERR_VALUE);
    CHECK(strstr(err.detail, "due for release"));
    ac_snapshot_timeline_state_get(b, copy);
    CHECK(memcmp(state, copy, size) == 0);
    free(state);
    free(copy);
    ac_snapshot_timeline_destroy(a);
    ac_snapshot_timeline_destroy(b);
}

/* The push checks change nothing and report what the push would; sampling
   chosen entities gives the rows of sampling all of them. */
static void checks_and_entity_samples(void)
{
    ac_snapshot_buffer *b;
    ac_snapshot_timeline *tl;
    ac_error err;
    const int64_t ent[3] = {2, 0, 1}, tick[3] = {10, 10, 12}, seg[3] = {0, 0, 0};
    const int64_t bad_ent[2] = {0, 3}, bad_tick[2] = {10, -1}, pick[4] = {1, 1, 2, 0};
    const double pos[6] = {1, 2, 3, 4, 5, 6};
    double all_p[6], p[8];
    unsigned char r[3], all_m[3], m[4];
    int64_t all_l[3], all_r[3], l[4], rr[4];
    CHECK(ac_snapshot_buffer_create(&b, 3, 2, 4, 0, 0, NULL, NULL) == AC_OK);
    CHECK(ac_snapshot_buffer_push_check(b, ent, tick, NULL, 3, &err) == AC_OK);
    CHECK(ac_snapshot_buffer_count(b, 0) == 0); /* nothing applied */
    CHECK(ac_snapshot_buffer_push_check(b, bad_ent, tick, NULL, 2, &err) == AC_ERR_VALUE);
    CHECK(err.arg == AC_ARG_ENTITY && err.index == 1 && err.value == 3.0);
    CHECK(ac_snapshot_buffer_push_check(b, ent, bad_tick, NULL, 2, &err) == AC_ERR_VALUE);
    CHECK(err.arg == AC_ARG_TICK && err.index == 1);
    CHECK(ac_snapshot_buffer_push(b, ent, tick, seg, pos, NULL, NULL, 3, r, NULL) == AC_OK);
    CHECK(ac_snapshot_buffer_sample(b, 11, all_p, NULL, all_m, all_l, all_r, NULL) == AC_OK);
    CHECK(ac_snapshot_buffer_sample_entities(b, 11, pick, 4, p, NULL, m, l, rr, NULL) == AC_OK);
    for (int i = 0; i < 4; i++) {
        CHECK(p[2 * i] == all_p[2 * pick[i]] && p[2 * i + 1] == all_p[2 * pick[i] + 1]);
        CHECK(m[i] == all_m[pick[i]] && l[i] == all_l[pick[i]] && rr[i] == all_r[pick[i]]);
    }
    CHECK(ac_snapshot_buffer_sample_entities(b, NAN, pick, 4, p, NULL, m, l, rr, &err) ==
          AC_ERR_VALUE);
    CHECK(err.arg == AC_ARG_RENDER_TICK);
    CHECK(ac_snapshot_buffer_sample_entities(b, 11, bad_ent, 2, p, NULL, m, l, rr, &err) ==
          AC_ERR_VALUE);
    CHECK(err.arg == AC_ARG_ENTITY && err.index == 1);
    /* with position NULL, the checks alone */
    CHECK(ac_snapshot_buffer_sample_entities(b, 11, pick, 4, NULL, NULL, NULL, NULL, NULL,
                                             &err) == AC_OK);
    CHECK(ac_snapshot_buffer_sample_entities(b, 11, bad_ent, 2, NULL, NULL, NULL, NULL, NULL,
                                             &err) == AC_ERR_VALUE);
    CHECK(err.arg == AC_ARG_ENTITY && err.index == 1);
    ac_snapshot_buffer_destroy(b);
    CHECK(ac_snapshot_timeline_create(&tl, 1, 8, 1, 0, 0, NULL, NULL) == AC_OK);
    CHECK(ac_snapshot_timeline_push_check(tl, tick, NULL, 1, &err) == AC_ERR_VALUE);
    CHECK(err.arg == AC_ARG_ROTATION); /* required */
    CHECK(ac_snapshot_timeline_push_check(tl, bad_tick, pos, 2, &err) == AC_ERR_VALUE);
    CHECK(err.arg == AC_ARG_TICK && err.index == 1);
    CHECK(ac_snapshot_buffer_count(ac_snapshot_timeline_buffer(tl), 0) == 0);
    {
        const double render[2] = {1.0, NAN};
        CHECK(ac_snapshot_timeline_sample(tl, render, 1, NULL, NULL, NULL, NULL, NULL, &err) ==
              AC_OK);
        CHECK(ac_snapshot_timeline_sample(tl, render, 2, NULL, NULL, NULL, NULL, NULL, &err) ==
              AC_ERR_VALUE);
        CHECK(err.arg == AC_ARG_RENDER_TICK && err.index == 1);
    }
    ac_snapshot_timeline_destroy(tl);
}

int main(void)
{
    article_figures();
    eviction();
    extrapolation();
    reorder();
    buffer_generations_and_rotations();
    errors();
    buffer_state();
    timeline_state();
    checks_and_entity_samples();
    TEST_DONE("test_snapshot");
}
