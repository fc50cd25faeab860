/* Network snapshot interpolation across teleports.

   Every entity is a ring of snapshots inside one structure-of-arrays buffer;
   the single timeline is a one-entity buffer plus a receive buffer for
   reordering. The per-entity rules live in exactly two functions,
   push_entity and sample_entity, which both front ends call. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ac_internal.h"

#define DIM_MAX 1024
#define CAPACITY_MAX ((size_t)1 << 24)
#define WINDOW_MAX 65536

struct ac_snapshot_buffer {
    size_t entities, dim, capacity;
    int rotations;
    double max_extrapolation;
    /* [slot * entities + entity]: slot-major, so that entities whose
       snapshots arrive together (the usual server stream) sit side by side
       and a sample over all entities streams through memory. Positions and
       rotations have dim / 4 channels per slot. The sampler reads only `key` and the positions:
       key = tick << 1 | cut, where cut says that the slot's segment differs
       from the one of the slot before it (when pushed); `segment` itself is
       read by pushes. */
    uint64_t *key;
    int64_t *segment;
    ac_allocator mem; /* what every block of the buffer came from */
    uint64_t *recent; /* per entity: the RECENT newest keys, newest last */
    double *position;
    double *rotation;
    /* Per entity, copies of the RECENT newest positions and rotations
       (newest last), beside one another for all entities: the usual sample
       reads only these, so it streams through memory however the entities'
       rings are aligned (entities that joined at different times wrap their
       rings at different slots, which scatters reads of the rows). */
    double *recent_position;
    double *recent_rotation;
    /* per entity: ring start (oldest snapshot), snapshot count, generation */
    uint32_t *head;
    uint32_t *count;
    int64_t *generation;
};

struct ac_snapshot_timeline {
    ac_snapshot_buffer *buffer; /* the released timeline: one entity */
    size_t window;
    /* receive buffer, sorted by tick, window + 1 places */
    size_t pending;
    uint32_t *pending_tick;
    int64_t *pending_segment;
    double *pending_position;
    double *pending_rotation;
    int64_t newest_received; /* -1 before the first push */
    ac_allocator mem;
};

/* ------------------------------------------------------------ validation */

/* A snapshot's own data: finite position, segment >= 0, and a rotation that
   can be normalized (scaled by its largest component first, so huge and tiny
   finite quaternions work). Writes the unit rotation into q. */
static int snapshot_valid(size_t dim, int rotations, int64_t segment, const double *pos,
                          const double *rot, double q[4])
{
    int ok = segment >= 0;
    for (size_t k = 0; k < dim; k++)
        ok &= ac_finite(pos[k]);
    if (rotations) {
        double m = 0.0, s[4];
        for (int k = 0; k < 4; k++) {
            ok &= ac_finite(rot[k]);
            m = fabs(rot[k]) > m ? fabs(rot[k]) : m;
        }
        if (!ok || !(m > 0.0))
            return 0;
        for (int k = 0; k < 4; k++)
            s[k] = rot[k] / m;
        ac_quat_normalize(s, q);
    }
    return ok;
}

static ac_status check_tick(const int64_t *tick, size_t n, ac_error *err)
{
    for (size_t i = 0; i < n; i++)
        if (tick[i] < 0 || tick[i] > (int64_t)UINT32_MAX)
            return ac_fail(err, AC_ERR_VALUE, i, AC_ARG_TICK, (double)tick[i],
                           "must be an integer in [0, 4294967295]");
    return AC_OK;
}

/* Branch-free over all render ticks first (it vectorizes), then the first bad one. */
AC_VECTORIZED
static ac_status check_render_ticks(const double *t, size_t n, ac_error *err)
{
    int64_t bad = 0;
    for (size_t i = 0; i < n; i++)
        bad |= !ac_finite(t[i]);
    if (bad)
        for (size_t i = 0; i < n; i++)
            if (!ac_finite(t[i]))
                return ac_fail(err, AC_ERR_VALUE, i, AC_ARG_RENDER_TICK, t[i], "must be finite");
    return AC_OK;
}

/* ------------------------------------------------------- per-entity rules */

static inline size_t slot_of(const ac_snapshot_buffer *b, size_t e, size_t logical)
{
    size_t s = b->head[e] + logical;
    s -= s >= b->capacity ? b->capacity : 0;
    return s * b->entities + e;
}

#define KEY_TICK(k) ((uint32_t)((k) >> 1))
#define KEY_CUT(k) ((int)((k) & 1u))
#define RECENT 4

static void store(ac_snapshot_buffer *b, size_t slot, uint32_t tick, int cut,
                  int64_t segment, const double *pos, const double q[4])
{
    b->key[slot] = (uint64_t)tick << 1 | (uint64_t)(cut != 0);
    b->segment[slot] = segment;
    memcpy(b->position + slot * b->dim, pos, b->dim * sizeof *pos);
    if (b->rotations)
        memcpy(b->rotation + slot * 4, q, 4 * sizeof *q);
}

/* Appends a snapshot already known to be in order, evicting the oldest when
   the ring is full. */
static void append(ac_snapshot_buffer *b, size_t e, uint32_t tick, int64_t segment,
                   const double *pos, const double q[4])
{
    size_t slot;
    int cut = b->count[e] && b->segment[slot_of(b, e, b->count[e] - 1)] != segment;
    if (b->count[e] == b->capacity) {
        slot = slot_of(b, e, 0);
        b->head[e] = (uint32_t)(b->head[e] + 1 == b->capacity ? 0 : b->head[e] + 1);
    } else {
        slot = slot_of(b, e, b->count[e]);
        b->count[e]++;
    }
    store(b, slot, tick, cut, segment, pos, q);
    {
        uint64_t *recent = b->recent + e * RECENT;
        double *rp = b->recent_position + e * RECENT * b->dim;
        for (int k = 0; k < RECENT - 1; k++)
            recent[k] = recent[k + 1];
        recent[RECENT - 1] = b->key[slot];
        memmove(rp, rp + b->dim, (RECENT - 1) * b->dim * sizeof *rp);
        memcpy(rp + (RECENT - 1) * b->dim, pos, b->dim * sizeof *pos);
        if (b->rotations) {
            double *rr = b->recent_rotation + e * RECENT * 4;
            memmove(rr, rr + 4, (RECENT - 1) * 4 * sizeof *rr);
            memcpy(rr + (RECENT - 1) * 4, q, 4 * sizeof *q);
        }
    }
}

/* The push rule. `rot` is ignored when the buffer has no rotations. */
static ac_snapshot_push_result push_entity(ac_snapshot_buffer *b, size_t e, uint32_t tick,
                                           int64_t segment, const double *pos,
                                           const double *rot, int64_t generation)
{
    double q[4] = {0.0, 0.0, 0.0, 1.0};
    if (!snapshot_valid(b->dim, b->rotations, segment, pos, rot, q))
        return AC_SNAPSHOT_INVALID;
    if (generation < b->generation[e])
        return AC_SNAPSHOT_INVALID;
    if (generation > b->generation[e]) { /* a re-used slot starts empty */
        b->generation[e] = generation;
        b->count[e] = 0;
        b->head[e] = 0;
    } else if (b->count[e]) {
        size_t last = slot_of(b, e, b->count[e] - 1);
        if (tick <= KEY_TICK(b->key[last]))
            return AC_SNAPSHOT_OUT_OF_ORDER;
        if (segment < b->segment[last])
            return AC_SNAPSHOT_INVALID;
    }
    append(b, e, tick, segment, pos, q);
    return AC_SNAPSHOT_ACCEPTED;
}

/* Where a snapshot's position and rotation are read: its slot in the rows,
   or its place j in the entity's recent copies. */
typedef struct snapshot_ref {
    const double *pos, *rot;
} snapshot_ref;

static inline snapshot_ref row_ref(const ac_snapshot_buffer *b, size_t slot)
{
    snapshot_ref r = {b->position + slot * b->dim,
                      b->rotations ? b->rotation + slot * 4 : NULL};
    return r;
}

static inline snapshot_ref recent_ref(const ac_snapshot_buffer *b, size_t e, size_t j)
{
    snapshot_ref r = {b->recent_position + (e * RECENT + j) * b->dim,
                      b->rotations ? b->recent_rotation + (e * RECENT + j) * 4 : NULL};
    return r;
}

/* Copies a snapshot to the outputs. */
static inline void put(const ac_snapshot_buffer *b, snapshot_ref s, double *pos, double *rot)
{
    for (size_t k = 0; k < b->dim; k++)
        pos[k] = s.pos[k];
    if (rot)
        for (int k = 0; k < 4; k++)
            rot[k] = s.rot[k];
}

/* The sampling rule for entity e at render tick t (finite).

   Memory: the entity's four newest keys, positions and rotations sit
   together in the recent copies (next to the ones of the neighbouring
   entities), so the usual render tick, a few ticks behind the newest
   snapshot, is sampled without touching the slot-major rows. Older render
   ticks fall back to a search of the rows. */
static inline void sample_entity(const ac_snapshot_buffer *b, size_t e, double t,
                                 double *restrict pos, double *restrict rot,
                                 unsigned char *mode, int64_t *left_tick,
                                 int64_t *right_tick)
{
    size_t n = b->count[e], dim = b->dim;
    const uint64_t *recent = b->recent + e * RECENT, *key = b->key;
    uint64_t kl, kr, klast;
    snapshot_ref sl, sr;
    if (n == 0) {
        for (size_t k = 0; k < dim; k++)
            pos[k] = 0.0;
        if (rot)
            rot[0] = rot[1] = rot[2] = 0.0, rot[3] = 1.0;
        *mode = AC_SNAPSHOT_EMPTY;
        *left_tick = *right_tick = 0;
        return;
    }
    klast = recent[RECENT - 1];
    if (t > (double)KEY_TICK(klast)) {
        double tl = KEY_TICK(klast), limit = b->max_extrapolation, ahead, f;
        int finite = 1;
        sl = recent_ref(b, e, RECENT - 1);
        if (!(limit > 0.0) || n < 2 || KEY_CUT(klast)) {
            put(b, sl, pos, rot);
            *mode = AC_SNAPSHOT_HOLD_LATEST;
            *left_tick = *right_tick = KEY_TICK(klast);
            return;
        }
        sr = recent_ref(b, e, RECENT - 2); /* the snapshot before the newest */
        ahead = t - tl;
        *mode = AC_SNAPSHOT_EXTRAPOLATE;
        if (ahead > limit) {
            ahead = limit;
            *mode = AC_SNAPSHOT_HOLD_LATEST;
        }
        f = ahead / (tl - (double)KEY_TICK(recent[RECENT - 2]));
        for (size_t k = 0; k < dim; k++) {
            pos[k] = sl.pos[k] + (sl.pos[k] - sr.pos[k]) * f;
            finite &= ac_finite(pos[k]);
        }
        if (!finite) { /* not representable: no extrapolation, hold */
            put(b, sl, pos, rot);
            *mode = AC_SNAPSHOT_HOLD_LATEST;
            *left_tick = *right_tick = KEY_TICK(klast);
            return;
        }
        if (rot)
            ac_quat_slerp(sr.rot, sl.rot, 1.0 + f, rot);
        *left_tick = KEY_TICK(recent[RECENT - 2]);
        *right_tick = KEY_TICK(klast);
        return;
    }
    {
        /* t <= newest tick: hi is the first logical index with t <= its
           tick. Count, without branches, how many of the (up to three)
           recent snapshots before the newest are at or after t: a suffix. */
        size_t probe = n - 1 < RECENT - 1 ? n - 1 : RECENT - 1, later = 0;
        for (size_t j = 1; j <= probe; j++)
            later += (double)KEY_TICK(recent[RECENT - 1 - j]) >= t;
        if (later < probe) {
            kl = recent[RECENT - 2 - later];
            kr = recent[RECENT - 1 - later];
            sl = recent_ref(b, e, RECENT - 2 - later);
            sr = recent_ref(b, e, RECENT - 1 - later);
        } else {
            /* older: hold the oldest, or binary search the key rows */
            size_t lo = 0, hi = n - 1 - later, first = slot_of(b, e, 0);
            if (t <= (double)KEY_TICK(key[first])) {
                put(b, row_ref(b, first), pos, rot);
                *mode = AC_SNAPSHOT_HOLD_OLDEST;
                *left_tick = *right_tick = KEY_TICK(key[first]);
                return;
            }
            while (hi - lo > 1) {
                size_t mid = lo + (hi - lo) / 2;
                if ((double)KEY_TICK(key[slot_of(b, e, mid)]) < t)
                    lo = mid;
                else
                    hi = mid;
            }
            kl = key[slot_of(b, e, hi - 1)];
            kr = key[slot_of(b, e, hi)];
            sl = row_ref(b, slot_of(b, e, hi - 1));
            sr = row_ref(b, slot_of(b, e, hi));
        }
    }
    {
        /* interpolation and cut computed alike and selected without a
           branch: teleports are rare and unpredictable */
        int cut = KEY_CUT(kr), finite = 1;
        double tl = KEY_TICK(kl), alpha = (t - tl) / ((double)KEY_TICK(kr) - tl);
        const double *pl = sl.pos, *pr = sr.pos;
        *left_tick = KEY_TICK(kl);
        *right_tick = KEY_TICK(kr);
        *mode = cut ? AC_SNAPSHOT_SEGMENT_CUT : AC_SNAPSHOT_INTERPOLATE;
        for (size_t k = 0; k < dim; k++) {
            double v = pl[k] + (pr[k] - pl[k]) * alpha;
            finite &= ac_finite(v);
            pos[k] = cut ? pr[k] : v;
        }
        if (!finite && !cut) /* pr - pl overflowed: this form cannot, alpha in (0, 1] */
            for (size_t k = 0; k < dim; k++)
                pos[k] = (1.0 - alpha) * pl[k] + alpha * pr[k];
        if (rot) {
            if (cut)
                for (int k = 0; k < 4; k++)
                    rot[k] = sr.rot[k];
            else
                ac_quat_slerp(sl.rot, sr.rot, alpha, rot);
        }
    }
}

/* ------------------------------------------------------------------ buffer */

static void *alloc(const ac_allocator *mem, size_t count, size_t size, int *failed)
{
    void *p = ac_mem_zeroed(mem, count ? count : 1, size);
    *failed |= p == NULL;
    return p;
}

ac_status ac_snapshot_buffer_create(ac_snapshot_buffer **buffer, size_t entities,
                                    size_t dim, size_t capacity, bool rotations,
                                    double max_extrapolation, const ac_allocator *allocator,
                                    ac_error *err)
{
    ac_snapshot_buffer *b;
    size_t slots;
    int failed = 0;
    *buffer = NULL;
    if (dim < 1 || dim > DIM_MAX)
        return ac_fail(err, AC_ERR_VALUE, 0, AC_ARG_DIM, (double)dim, "must lie in [1, %d]",
                       DIM_MAX);
    if (capacity < 1 || capacity > CAPACITY_MAX)
        return ac_fail(err, AC_ERR_VALUE, 0, AC_ARG_CAPACITY, (double)capacity,
                       "must lie in [1, %zu]", CAPACITY_MAX);
    if (!(ac_finite(max_extrapolation) && max_extrapolation >= 0.0))
        return ac_fail(err, AC_ERR_VALUE, 0, AC_ARG_MAX_EXTRAPOLATION, max_extrapolation,
                       "must be finite and >= 0");
    if (entities > SIZE_MAX / (capacity + RECENT) / (dim + 4) / sizeof(double))
        return ac_fail(err, AC_ERR_VALUE, 0, AC_ARG_ENTITIES, (double)entities,
                       "needs more memory than can be addressed");
    slots = entities * capacity;
    b = ac_mem_zeroed(allocator, 1, sizeof *b);
    if (!b)
        return ac_fail(err, AC_ERR_NOMEM, 0, AC_ARG_ENTITIES, (double)entities, "out of memory");
    if (allocator)
        b->mem = *allocator;
    b->entities = entities;
    b->dim = dim;
    b->capacity = capacity;
    b->rotations = rotations != 0;
    b->max_extrapolation = max_extrapolation;
    b->key = alloc(&b->mem, slots, sizeof *b->key, &failed);
    b->segment = alloc(&b->mem, slots, sizeof *b->segment, &failed);
    b->position = alloc(&b->mem, slots * dim, sizeof *b->position, &failed);
    b->rotation = b->rotations ? alloc(&b->mem, slots * 4, sizeof *b->rotation, &failed) : NULL;
    b->recent = alloc(&b->mem, entities * RECENT, sizeof *b->recent, &failed);
    b->recent_position = alloc(&b->mem, entities * RECENT * dim, sizeof *b->recent_position,
                               &failed);
    b->recent_rotation = b->rotations ? alloc(&b->mem, entities * RECENT * 4,
                                              sizeof *b->recent_rotation, &failed)
                                      : NULL;
    b->head = alloc(&b->mem, entities, sizeof *b->head, &failed);
    b->count = alloc(&b->mem, entities, sizeof *b->count, &failed);
    b->generation = alloc(&b->mem, entities, sizeof *b->generation, &failed);
    if (failed) {
        ac_snapshot_buffer_destroy(b);
        return ac_fail(err, AC_ERR_NOMEM, 0, AC_ARG_ENTITIES, (double)entities, "out of memory");
    }
    *buffer = b;
    return AC_OK;
}

void ac_snapshot_buffer_destroy(ac_snapshot_buffer *buffer)
{
    ac_allocator mem;
    if (!buffer)
        return;
    mem = buffer->mem;
    ac_mem_release(&mem, buffer->key);
    ac_mem_release(&mem, buffer->segment);
    ac_mem_release(&mem, buffer->position);
    ac_mem_release(&mem, buffer->rotation);
    ac_mem_release(&mem, buffer->recent);
    ac_mem_release(&mem, buffer->recent_position);
    ac_mem_release(&mem, buffer->recent_rotation);
    ac_mem_release(&mem, buffer->head);
    ac_mem_release(&mem, buffer->count);
    ac_mem_release(&mem, buffer->generation);
    ac_mem_release(&mem, buffer);
}

/* Entities in [0, entities), the first one outside as AC_ERR_VALUE. */
static ac_status check_entities(const ac_snapshot_buffer *b, const int64_t *entity, size_t n,
                                ac_error *err)
{
    for (size_t i = 0; i < n; i++)
        if (entity[i] < 0 || (uint64_t)entity[i] >= b->entities)
            return ac_fail(err, AC_ERR_VALUE, i, AC_ARG_ENTITY, (double)entity[i],
                           "must lie in [0, entities=%zu)", b->entities);
    return AC_OK;
}

ac_status ac_snapshot_buffer_push_check(const ac_snapshot_buffer *buffer, const int64_t *entity,
                                        const int64_t *tick, const double *rotation, size_t n,
                                        ac_error *err)
{
    ac_status st;
    if (buffer->rotations && !rotation && n)
        return ac_fail(err, AC_ERR_VALUE, 0, AC_ARG_ROTATION, 0.0,
                       "is required: the buffer has rotations");
    if ((st = check_entities(buffer, entity, n, err)))
        return st;
    return check_tick(tick, n, err);
}

ac_status ac_snapshot_buffer_push(ac_snapshot_buffer *buffer, const int64_t *entity,
                                  const int64_t *tick, const int64_t *segment,
                                  const double *position, const double *rotation,
                                  const int64_t *generation, size_t n,
                                  unsigned char *result, ac_error *err)
{
    ac_snapshot_buffer *b = buffer;
    ac_status st;
    if ((st = ac_snapshot_buffer_push_check(b, entity, tick, rotation, n, err)))
        return st;
    for (size_t i = 0; i < n; i++)
        result[i] = (unsigned char)push_entity(
            b, (size_t)entity[i], (uint32_t)tick[i], segment[i], position + i * b->dim,
            b->rotations ? rotation + i * 4 : NULL, generation ? generation[i] : 0);
    return AC_OK;
}

ac_status ac_snapshot_buffer_sample(const ac_snapshot_buffer *buffer, double render_tick,
                                    double *position, double *rotation,
                                    unsigned char *mode, int64_t *left_tick,
                                    int64_t *right_tick, ac_error *err)
{
    const ac_snapshot_buffer *b = buffer;
    size_t dim = b->dim;
    double *rot = b->rotations ? rotation : NULL;
    if (!ac_finite(render_tick))
        return ac_fail(err, AC_ERR_VALUE, 0, AC_ARG_RENDER_TICK, render_tick, "must be finite");
    for (size_t e = 0; e < b->entities; e++) {
        sample_entity(b, e, render_tick, position + e * dim, rot ? rot + e * 4 : NULL,
                      mode + e, left_tick + e, right_tick + e);
    }
    return AC_OK;
}

ac_status ac_snapshot_buffer_sample_entities(const ac_snapshot_buffer *buffer,
                                             double render_tick, const int64_t *entity,
                                             size_t n, double *position, double *rotation,
                                             unsigned char *mode, int64_t *left_tick,
                                             int64_t *right_tick, ac_error *err)
{
    const ac_snapshot_buffer *b = buffer;
    size_t dim = b->dim;
    double *rot = b->rotations ? rotation : NULL;
    ac_status st;
    if (!ac_finite(render_tick))
        return ac_fail(err, AC_ERR_VALUE, 0, AC_ARG_RENDER_TICK, render_tick, "must be finite");
    if ((st = check_entities(b, entity, n, err)) || !position)
        return st;
    for (size_t i = 0; i < n; i++)
        sample_entity(b, (size_t)entity[i], render_tick, position + i * dim,
                      rot ? rot + i * 4 : NULL, mode + i, left_tick + i, right_tick + i);
    return AC_OK;
}

size_t ac_snapshot_buffer_entities(const ac_snapshot_buffer *buffer)
{
    return buffer->entities;
}

size_t ac_snapshot_buffer_dim(const ac_snapshot_buffer *buffer)
{
    return buffer->dim;
}

bool ac_snapshot_buffer_rotations(const ac_snapshot_buffer *buffer)
{
    return buffer->rotations;
}

size_t ac_snapshot_buffer_count(const ac_snapshot_buffer *buffer, size_t entity)
{
    return entity < buffer->entities ? buffer->count[entity] : 0;
}

int64_t ac_snapshot_buffer_generation(const ac_snapshot_buffer *buffer, size_t entity)
{
    return entity < buffer->entities ? buffer->generation[entity] : 0;
}

size_t ac_snapshot_buffer_read(const ac_snapshot_buffer *buffer, size_t entity,
                               int64_t *tick, int64_t *segment, double *position,
                               double *rotation)
{
    const ac_snapshot_buffer *b = buffer;
    size_t n = ac_snapshot_buffer_count(b, entity);
    for (size_t i = 0; i < n; i++) {
        size_t s = slot_of(b, entity, i);
        if (tick)
            tick[i] = KEY_TICK(b->key[s]);
        if (segment)
            segment[i] = b->segment[s];
        if (position)
            memcpy(position + i * b->dim, b->position + s * b->dim,
                   b->dim * sizeof *position);
        if (rotation && b->rotations)
            memcpy(rotation + i * 4, b->rotation + s * 4, 4 * sizeof *rotation);
    }
    return n;
}

/* ---------------------------------------------------------------- timeline */

ac_status ac_snapshot_timeline_create(ac_snapshot_timeline **timeline, size_t dim,
                                      size_t capacity, bool rotations,
                                      double max_extrapolation, size_t reorder_window,
                                      const ac_allocator *allocator, ac_error *err)
{
    ac_snapshot_timeline *tl;
    ac_status st;
    int failed = 0;
    size_t places = reorder_window + 1;
    *timeline = NULL;
    if (reorder_window > WINDOW_MAX)
        return ac_fail(err, AC_ERR_VALUE, 0, AC_ARG_REORDER_WINDOW, (double)reorder_window,
                       "must lie in [0, %d]", WINDOW_MAX);
    tl = ac_mem_zeroed(allocator, 1, sizeof *tl);
    if (!tl)
        return ac_fail(err, AC_ERR_NOMEM, 0, AC_ARG_REORDER_WINDOW, (double)reorder_window,
                       "out of memory");
    if (allocator)
        tl->mem = *allocator;
    if ((st = ac_snapshot_buffer_create(&tl->buffer, 1, dim, capacity, rotations,
                                        max_extrapolation, allocator, err))) {
        ac_mem_release(allocator, tl);
        return st;
    }
    tl->window = reorder_window;
    tl->newest_received = -1;
    tl->pending_tick = alloc(&tl->mem, places, sizeof *tl->pending_tick, &failed);
    tl->pending_segment = alloc(&tl->mem, places, sizeof *tl->pending_segment, &failed);
    tl->pending_position = alloc(&tl->mem, places * dim, sizeof *tl->pending_position, &failed);
    tl->pending_rotation = alloc(&tl->mem, places * 4, sizeof *tl->pending_rotation, &failed);
    if (failed) {
        ac_snapshot_timeline_destroy(tl);
        return ac_fail(err, AC_ERR_NOMEM, 0, AC_ARG_REORDER_WINDOW, (double)reorder_window,
                       "out of memory");
    }
    *timeline = tl;
    return AC_OK;
}

void ac_snapshot_timeline_destroy(ac_snapshot_timeline *timeline)
{
    ac_allocator mem;
    if (!timeline)
        return;
    mem = timeline->mem;
    ac_snapshot_buffer_destroy(timeline->buffer);
    ac_mem_release(&mem, timeline->pending_tick);
    ac_mem_release(&mem, timeline->pending_segment);
    ac_mem_release(&mem, timeline->pending_position);
    ac_mem_release(&mem, timeline->pending_rotation);
    ac_mem_release(&mem, timeline);
}

/* Moves the `count` oldest waiting snapshots into the timeline. They are in
   tick order after the released ones and their segments never decrease, so
   the shared push rule accepts each of them. */
static void release(ac_snapshot_timeline *tl, size_t count)
{
    size_t dim = tl->buffer->dim;
    for (size_t i = 0; i < count; i++) {
        ac_snapshot_push_result r = push_entity(
            tl->buffer, 0, tl->pending_tick[i], tl->pending_segment[i],
            tl->pending_position + i * dim, tl->pending_rotation + i * 4, 0);
        AC_ASSERT(r == AC_SNAPSHOT_ACCEPTED);
        (void)r;
    }
    tl->pending -= count;
    memmove(tl->pending_tick, tl->pending_tick + count,
            tl->pending * sizeof *tl->pending_tick);
    memmove(tl->pending_segment, tl->pending_segment + count,
            tl->pending * sizeof *tl->pending_segment);
    memmove(tl->pending_position, tl->pending_position + count * dim,
            tl->pending * dim * sizeof *tl->pending_position);
    memmove(tl->pending_rotation, tl->pending_rotation + count * 4,
            tl->pending * 4 * sizeof *tl->pending_rotation);
}

static ac_snapshot_push_result timeline_push_one(ac_snapshot_timeline *tl, uint32_t tick,
                                                 int64_t segment, const double *pos,
                                                 const double *rot)
{
    ac_snapshot_buffer *b = tl->buffer;
    size_t dim = b->dim, at = 0, ready = 0;
    double q[4] = {0.0, 0.0, 0.0, 1.0};
    int has_before = 0;
    int64_t before = 0;
    if (tl->window == 0) /* no reorder window: pushes go straight in */
        return push_entity(b, 0, tick, segment, pos, rot, 0);
    if (!snapshot_valid(dim, b->rotations, segment, pos, rot, q))
        return AC_SNAPSHOT_INVALID;
    if (b->count[0]) {
        size_t last = slot_of(b, 0, b->count[0] - 1);
        if (tick <= KEY_TICK(b->key[last]))
            return AC_SNAPSHOT_OUT_OF_ORDER;
        has_before = 1;
        before = b->segment[last];
    }
    while (at < tl->pending && tl->pending_tick[at] < tick)
        at++;
    if (at < tl->pending && tl->pending_tick[at] == tick)
        return AC_SNAPSHOT_OUT_OF_ORDER; /* a duplicate of a waiting snapshot */
    if (at > 0)
        has_before = 1, before = tl->pending_segment[at - 1];
    if ((has_before && segment < before) ||
        (at < tl->pending && segment > tl->pending_segment[at]))
        return AC_SNAPSHOT_INVALID;
    /* insert at `at` */
    memmove(tl->pending_tick + at + 1, tl->pending_tick + at,
            (tl->pending - at) * sizeof *tl->pending_tick);
    memmove(tl->pending_segment + at + 1, tl->pending_segment + at,
            (tl->pending - at) * sizeof *tl->pending_segment);
    memmove(tl->pending_position + (at + 1) * dim, tl->pending_position + at * dim,
            (tl->pending - at) * dim * sizeof *tl->pending_position);
    memmove(tl->pending_rotation + (at + 1) * 4, tl->pending_rotation + at * 4,
            (tl->pending - at) * 4 * sizeof *tl->pending_rotation);
    tl->pending_tick[at] = tick;
    tl->pending_segment[at] = segment;
    memcpy(tl->pending_position + at * dim, pos, dim * sizeof *pos);
    /* raw, so that the timeline normalizes it exactly as without a window */
    memcpy(tl->pending_rotation + at * 4, b->rotations ? rot : q, sizeof q);
    tl->pending++;
    if ((int64_t)tick > tl->newest_received)
        tl->newest_received = tick;
    while (ready < tl->pending &&
           (int64_t)tl->pending_tick[ready] + (int64_t)tl->window <= tl->newest_received)
        ready++;
    release(tl, ready);
    AC_ASSERT(tl->pending <= tl->window);
    return AC_SNAPSHOT_ACCEPTED;
}

ac_status ac_snapshot_timeline_push_check(const ac_snapshot_timeline *timeline,
                                          const int64_t *tick, const double *rotation, size_t n,
                                          ac_error *err)
{
    if (timeline->buffer->rotations && !rotation && n)
        return ac_fail(err, AC_ERR_VALUE, 0, AC_ARG_ROTATION, 0.0,
                       "is required: the timeline has rotations");
    return check_tick(tick, n, err);
}

ac_status ac_snapshot_timeline_push(ac_snapshot_timeline *timeline, const int64_t *tick,
                                    const int64_t *segment, const double *position,
                                    const double *rotation, size_t n,
                                    unsigned char *result, ac_error *err)
{
    ac_snapshot_timeline *tl = timeline;
    size_t dim = tl->buffer->dim;
    int rotations = tl->buffer->rotations;
    ac_status st;
    if ((st = ac_snapshot_timeline_push_check(tl, tick, rotation, n, err)))
        return st;
    for (size_t i = 0; i < n; i++)
        result[i] = (unsigned char)timeline_push_one(tl, (uint32_t)tick[i], segment[i],
                                                     position + i * dim,
                                                     rotations ? rotation + i * 4 : NULL);
    return AC_OK;
}

size_t ac_snapshot_timeline_flush(ac_snapshot_timeline *timeline)
{
    size_t count = timeline->pending;
    release(timeline, count);
    return count;
}

ac_status ac_snapshot_timeline_sample(const ac_snapshot_timeline *timeline,
                                      const double *render_tick, size_t n,
                                      double *position, double *rotation,
                                      unsigned char *mode, int64_t *left_tick,
                                      int64_t *right_tick, ac_error *err)
{
    const ac_snapshot_buffer *b = timeline->buffer;
    double *rot = b->rotations ? rotation : NULL;
    ac_status st;
    if ((st = check_render_ticks(render_tick, n, err)) || !position)
        return st;
    for (size_t i = 0; i < n; i++)
        sample_entity(b, 0, render_tick[i], position + i * b->dim,
                      rot ? rot + i * 4 : NULL, mode + i, left_tick + i, right_tick + i);
    return AC_OK;
}

size_t ac_snapshot_timeline_pending(const ac_snapshot_timeline *timeline)
{
    return timeline->pending;
}

const ac_snapshot_buffer *ac_snapshot_timeline_buffer(const ac_snapshot_timeline *timeline)
{
    return timeline->buffer;
}

/* ------------------------------------------------------------------- state

   The exported state is the logical content of a buffer: the config, each
   entity's count and generation, and its snapshots oldest first at slot i of
   the slot-major rows (head 0, unused slots 0). Cut bits and the recent-key
   blocks follow from the ticks and segments, so they are rebuilt on import:
   two buffers that push and sample alike export the same bytes. Every value
   is an 8-byte word (uint64, int64 or double) in the machine's byte order;
   a magic word tells the kind and catches a byte-swapped state. */

#define STATE_BUFFER_MAGIC UINT64_C(0x3142414e53434100)   /* "\0ACSNAB1" */
#define STATE_TIMELINE_MAGIC UINT64_C(0x3154414e53434100) /* "\0ACSNAT1" */
#define STATE_BUFFER_HEADER 6
#define STATE_TIMELINE_HEADER 4
/* stored rotations are unit quaternions from ac_quat_normalize */
#define STATE_UNIT_TOLERANCE 1e-12

static size_t buffer_state_words(const ac_snapshot_buffer *b)
{
    size_t slots = b->entities * b->capacity;
    return STATE_BUFFER_HEADER + 2 * b->entities +
           slots * (2 + b->dim + (b->rotations ? 4 : 0));
}

size_t ac_snapshot_buffer_state_size(const ac_snapshot_buffer *buffer)
{
    return 8 * buffer_state_words(buffer);
}

/* Word writers and readers: memcpy, so the state needs no alignment. */
static unsigned char *put_u64(unsigned char *p, uint64_t v)
{
    memcpy(p, &v, 8);
    return p + 8;
}

static unsigned char *put_f64(unsigned char *p, double v)
{
    memcpy(p, &v, 8);
    return p + 8;
}

static uint64_t get_u64(const unsigned char *p, size_t word)
{
    uint64_t v;
    memcpy(&v, p + 8 * word, 8);
    return v;
}

static int64_t get_i64(const unsigned char *p, size_t word)
{
    int64_t v;
    memcpy(&v, p + 8 * word, 8);
    return v;
}

static double get_f64(const unsigned char *p, size_t word)
{
    double v;
    memcpy(&v, p + 8 * word, 8);
    return v;
}

static unsigned char *buffer_state_write(const ac_snapshot_buffer *b, unsigned char *p)
{
    size_t e, i, k, n = b->entities, slots = n * b->capacity;
    unsigned char *tick, *segment, *position, *rotation;
    memset(p, 0, 8 * buffer_state_words(b));
    p = put_u64(p, STATE_BUFFER_MAGIC);
    p = put_u64(p, b->entities);
    p = put_u64(p, b->dim);
    p = put_u64(p, b->capacity);
    p = put_u64(p, (uint64_t)b->rotations);
    p = put_f64(p, b->max_extrapolation);
    for (e = 0; e < n; e++)
        p = put_u64(p, b->count[e]);
    for (e = 0; e < n; e++)
        p = put_u64(p, (uint64_t)b->generation[e]);
    tick = p;
    segment = tick + 8 * slots;
    position = segment + 8 * slots;
    rotation = position + 8 * slots * b->dim;
    for (e = 0; e < n; e++)
        for (i = 0; i < b->count[e]; i++) {
            size_t s = slot_of(b, e, i), d = i * n + e;
            put_u64(tick + 8 * d, KEY_TICK(b->key[s]));
            put_u64(segment + 8 * d, (uint64_t)b->segment[s]);
            for (k = 0; k < b->dim; k++)
                put_f64(position + 8 * (d * b->dim + k), b->position[s * b->dim + k]);
            for (k = 0; b->rotations && k < 4; k++)
                put_f64(rotation + 8 * (d * 4 + k), b->rotation[s * 4 + k]);
        }
    return rotation + (b->rotations ? 32 * slots : 0);
}

void ac_snapshot_buffer_state_get(const ac_snapshot_buffer *buffer, void *state)
{
    buffer_state_write(buffer, state);
}

static ac_status bad_state(ac_error *err, size_t index, double value, const char *what)
{
    return ac_fail(err, AC_ERR_VALUE, index, AC_ARG_STATE, value, "%s", what);
}

/* Checks a buffer state `p` of `words` words against buffer b (same config)
   and each entity's snapshots against the push rules. Errors are indexed by
   entity (0 for the header). */
static ac_status buffer_state_check(const ac_snapshot_buffer *b, const unsigned char *p,
                                    size_t words, ac_error *err)
{
    size_t n = b->entities, slots = n * b->capacity, dim = b->dim;
    size_t count0 = STATE_BUFFER_HEADER, gen0 = count0 + n, tick0 = gen0 + n;
    size_t seg0 = tick0 + slots, pos0 = seg0 + slots, rot0 = pos0 + slots * dim;
    double extrapolation = get_f64(p, 5);
    if (words != buffer_state_words(b))
        return bad_state(err, 0, (double)(8 * words), "is not the size of this object's state");
    if (get_u64(p, 0) != STATE_BUFFER_MAGIC)
        return bad_state(err, 0, (double)get_u64(p, 0),
                         "is not a snapshot buffer state of this byte order");
    if (get_u64(p, 1) != b->entities || get_u64(p, 2) != b->dim ||
        get_u64(p, 3) != b->capacity || get_u64(p, 4) != (uint64_t)b->rotations ||
        memcmp(&extrapolation, &b->max_extrapolation, sizeof extrapolation) != 0)
        return bad_state(err, 0, (double)get_u64(p, 1),
                         "has another entities, dim, capacity, rotations or "
                         "max_extrapolation than this object");
    for (size_t e = 0; e < n; e++) {
        uint64_t count = get_u64(p, count0 + e);
        if (count > b->capacity)
            return bad_state(err, e, (double)count, "an entity's count exceeds the capacity");
        if (get_i64(p, gen0 + e) < 0)
            return bad_state(err, e, (double)get_i64(p, gen0 + e),
                             "an entity's generation is negative");
        for (size_t i = 0; i < count; i++) {
            size_t d = i * n + e;
            uint64_t tick = get_u64(p, tick0 + d);
            int64_t segment = get_i64(p, seg0 + d);
            double q[4], norm2 = 0.0;
            if (tick > UINT32_MAX || (i && tick <= get_u64(p, tick0 + d - n)))
                return bad_state(err, e, (double)tick,
                                 "an entity's ticks are not increasing 32-bit ticks");
            if (segment < 0 || (i && segment < get_i64(p, seg0 + d - n)))
                return bad_state(err, e, (double)segment,
                                 "an entity's segments are negative or decreasing");
            for (size_t k = 0; k < dim; k++)
                if (!ac_finite(get_f64(p, pos0 + d * dim + k)))
                    return bad_state(err, e, get_f64(p, pos0 + d * dim + k),
                                     "an entity's position is not finite");
            for (int k = 0; b->rotations && k < 4; k++) {
                q[k] = get_f64(p, rot0 + d * 4 + (size_t)k);
                norm2 += q[k] * q[k];
            }
            if (b->rotations && !(fabs(norm2 - 1.0) <= STATE_UNIT_TOLERANCE))
                return bad_state(err, e, norm2, "an entity's rotation is not a unit quaternion");
        }
    }
    return AC_OK;
}

/* Replaces b's content with a state already checked by buffer_state_check. */
static void buffer_state_read(ac_snapshot_buffer *b, const unsigned char *p)
{
    size_t n = b->entities, slots = n * b->capacity, dim = b->dim;
    size_t count0 = STATE_BUFFER_HEADER, gen0 = count0 + n, tick0 = gen0 + n;
    size_t seg0 = tick0 + slots, pos0 = seg0 + slots, rot0 = pos0 + slots * dim;
    for (size_t e = 0; e < n; e++) {
        uint64_t *recent = b->recent + e * RECENT;
        b->head[e] = 0;
        b->count[e] = (uint32_t)get_u64(p, count0 + e);
        b->generation[e] = get_i64(p, gen0 + e);
        for (int k = 0; k < RECENT; k++)
            recent[k] = 0;
    }
    for (size_t s = 0; s < slots; s++) {
        size_t e = s % n, i = s / n;
        int live = i < b->count[e];
        int cut = live && i && get_i64(p, seg0 + s) != get_i64(p, seg0 + s - n);
        b->key[s] = get_u64(p, tick0 + s) << 1 | (uint64_t)cut;
        b->segment[s] = get_i64(p, seg0 + s);
        for (size_t k = 0; k < dim; k++)
            b->position[s * dim + k] = get_f64(p, pos0 + s * dim + k);
        for (size_t k = 0; b->rotations && k < 4; k++)
            b->rotation[s * 4 + k] = get_f64(p, rot0 + s * 4 + k);
    }
    for (size_t e = 0; e < n; e++) { /* the newest keys, newest last */
        size_t count = b->count[e], recent = count < RECENT ? count : RECENT;
        for (size_t j = 0; j < recent; j++) {
            size_t from = (count - 1 - j) * n + e, to = e * RECENT + RECENT - 1 - j;
            b->recent[to] = b->key[from];
            memcpy(b->recent_position + to * dim, b->position + from * dim,
                   dim * sizeof *b->position);
            if (b->rotations)
                memcpy(b->recent_rotation + to * 4, b->rotation + from * 4,
                       4 * sizeof *b->rotation);
        }
    }
}

ac_status ac_snapshot_buffer_state_set(ac_snapshot_buffer *buffer, const void *state,
                                       size_t size, ac_error *err)
{
    ac_status st;
    if (size % 8 || size < 8 * STATE_BUFFER_HEADER)
        return bad_state(err, 0, (double)size, "is not the size of this object's state");
    if ((st = buffer_state_check(buffer, state, size / 8, err)))
        return st;
    buffer_state_read(buffer, state);
    return AC_OK;
}

size_t ac_snapshot_timeline_state_size(const ac_snapshot_timeline *timeline)
{
    size_t places = timeline->window + 1, dim = timeline->buffer->dim;
    return 8 * (STATE_TIMELINE_HEADER + places * (2 + dim + 4)) +
           ac_snapshot_buffer_state_size(timeline->buffer);
}

void ac_snapshot_timeline_state_get(const ac_snapshot_timeline *timeline, void *state)
{
    const ac_snapshot_timeline *tl = timeline;
    size_t places = tl->window + 1, dim = tl->buffer->dim, i, k;
    unsigned char *p = state;
    memset(p, 0, ac_snapshot_timeline_state_size(tl));
    p = put_u64(p, STATE_TIMELINE_MAGIC);
    p = put_u64(p, tl->window);
    p = put_u64(p, tl->pending);
    p = put_u64(p, (uint64_t)tl->newest_received);
    for (i = 0; i < tl->pending; i++) {
        put_u64(p + 8 * i, tl->pending_tick[i]);
        put_u64(p + 8 * (places + i), (uint64_t)tl->pending_segment[i]);
        for (k = 0; k < dim; k++)
            put_f64(p + 8 * (2 * places + i * dim + k), tl->pending_position[i * dim + k]);
        for (k = 0; k < 4; k++)
            put_f64(p + 8 * ((2 + dim) * places + i * 4 + k), tl->pending_rotation[i * 4 + k]);
    }
    buffer_state_write(tl->buffer, p + 8 * places * (2 + dim + 4));
}

ac_status ac_snapshot_timeline_state_set(ac_snapshot_timeline *timeline, const void *state,
                                         size_t size, ac_error *err)
{
    ac_snapshot_timeline *tl = timeline;
    const ac_snapshot_buffer *b = tl->buffer;
    size_t places = tl->window + 1, dim = b->dim, words = size / 8, pending;
    size_t seg0 = STATE_TIMELINE_HEADER + places, pos0 = seg0 + places;
    size_t rot0 = pos0 + places * dim, body = STATE_TIMELINE_HEADER + places * (2 + dim + 4);
    const unsigned char *p = state;
    int64_t newest, last_tick = -1, last_segment = 0;
    ac_status st;
    if (size % 8 || size != ac_snapshot_timeline_state_size(tl))
        return bad_state(err, 0, (double)size, "is not the size of this object's state");
    if (get_u64(p, 0) != STATE_TIMELINE_MAGIC)
        return bad_state(err, 0, (double)get_u64(p, 0),
                         "is not a snapshot timeline state of this byte order");
    if (get_u64(p, 1) != tl->window)
        return bad_state(err, 0, (double)get_u64(p, 1),
                         "has another reorder_window than this object");
    if ((st = buffer_state_check(b, p + 8 * body, words - body, err)))
        return st;
    pending = (size_t)get_u64(p, 2);
    newest = get_i64(p, 3);
    if (get_u64(p, 2) > tl->window)
        return bad_state(err, 0, (double)get_u64(p, 2),
                         "the pending count exceeds the reorder window");
    {
        /* the newest released snapshot, which every waiting one must follow */
        const unsigned char *bp = p + 8 * body;
        size_t count = (size_t)get_u64(bp, STATE_BUFFER_HEADER);
        size_t tick0 = STATE_BUFFER_HEADER + 2, seg0b = tick0 + b->capacity;
        if (count) {
            last_tick = get_i64(bp, tick0 + count - 1);
            last_segment = get_i64(bp, seg0b + count - 1);
        }
    }
    if (newest < -1 || newest > (int64_t)UINT32_MAX || (tl->window && newest < last_tick) ||
        (!tl->window && newest != -1))
        return bad_state(err, 0, (double)newest, "the newest received tick is out of range");
    for (size_t i = 0; i < pending; i++) {
        int64_t tick = get_i64(p, STATE_TIMELINE_HEADER + i);
        int64_t segment = get_i64(p, seg0 + i);
        double m = 0.0;
        if (tick <= last_tick || tick > newest || tick + (int64_t)tl->window <= newest)
            return bad_state(err, i, (double)tick,
                             "a waiting tick is out of order or due for release");
        if (segment < last_segment)
            return bad_state(err, i, (double)segment, "a waiting segment is decreasing");
        for (size_t k = 0; k < dim; k++)
            if (!ac_finite(get_f64(p, pos0 + i * dim + k)))
                return bad_state(err, i, get_f64(p, pos0 + i * dim + k),
                                 "a waiting position is not finite");
        for (size_t k = 0; k < 4; k++) {
            double q = get_f64(p, rot0 + i * 4 + k);
            if (!ac_finite(q))
                return bad_state(err, i, q, "a waiting rotation is not finite");
            m = fabs(q) > m ? fabs(q) : m;
        }
        if (!(m > 0.0))
            return bad_state(err, i, 0.0, "a waiting rotation is zero");
        last_tick = tick;
        last_segment = segment;
    }
    buffer_state_read(tl->buffer, p + 8 * body);
    tl->pending = pending;
    tl->newest_received = newest;
    for (size_t i = 0; i < places; i++) {
        tl->pending_tick[i] = (uint32_t)get_u64(p, STATE_TIMELINE_HEADER + i);
        tl->pending_segment[i] = get_i64(p, seg0 + i);
        for (size_t k = 0; k < dim; k++)
            tl->pending_position[i * dim + k] = get_f64(p, pos0 + i * dim + k);
        for (size_t k = 0; k < 4; k++)
            tl->pending_rotation[i * 4 + k] = get_f64(p, rot0 + i * 4 + k);
    }
    return AC_OK;
}
