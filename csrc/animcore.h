/*
 * animcore: game-animation math in C11. This header is the whole public C API.
 *
 * Conventions
 * - Units are in the names: `velocity` is per second, `tangent` is per
 *   normalized segment parameter u in [0, 1], `duration` and `elapsed` are
 *   seconds.
 * - Quaternions are (x, y, z, w) everywhere (glTF order).
 * - Batch kernels work on float64 buffers with an explicit count `n`, take
 *   outputs last, return an ac_status and describe the first failure in *err
 *   (which may be NULL). They never print, abort or keep global state: every
 *   function is reentrant and thread-safe.
 * - Broadcasting: where a kernel takes `steps`, steps[i] is how far input i
 *   advances per element, 1 for an array of n values and 0 for a single value
 *   shared by all elements. NULL means every input holds n values.
 */
#ifndef ANIMCORE_H
#define ANIMCORE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- status */

typedef enum ac_status {
    AC_OK = 0,
    AC_ERR_VALUE = 1,    /* an input is outside its domain (non-finite, out of range) */
    AC_ERR_OVERFLOW = 2, /* finite inputs whose result is not representable */
    AC_ERR_NOMEM = 3     /* an allocation failed */
} ac_status;

#define AC_DETAIL_SIZE 96

/* The first failure of a call: which argument, at which element, with which
   value, and what the value must satisfy ("must lie in [0, duration=2]"). */
typedef struct ac_error {
    ac_status status;
    size_t index;       /* flat element index of the failure */
    const char *arg;    /* argument name (a static string) */
    double value;       /* the offending value */
    char detail[AC_DETAIL_SIZE];
} ac_error;

/* "ok", "invalid value", "overflow", "out of memory". */
const char *ac_status_name(ac_status status);

/* --------------------------------------------------------------- hermite */

/* One cubic Hermite segment with per-second key velocities, converted once to
   tangents: start_tangent = duration * start_velocity. */
typedef struct ac_hermite {
    double start, end;
    double start_tangent, end_tangent;
    double duration;
} ac_hermite;

/* Validates (finite inputs, duration > 0, finite tangents) and fills *segment. */
ac_status ac_hermite_init(ac_hermite *segment, double start, double end,
                          double start_velocity, double end_velocity,
                          double duration, ac_error *err);

/* Position and per-second velocity of n segment samples at `elapsed` seconds
   into the segment, elapsed in [0, duration]. Inputs are, in order: start, end,
   start_velocity, end_velocity, duration, elapsed (steps[0..5]). `velocity`
   may be NULL. Errors: AC_ERR_VALUE for non-finite input, duration <= 0 or
   elapsed outside [0, duration]; AC_ERR_OVERFLOW for a non-finite tangent or
   result. On failure the outputs hold unspecified values. */
ac_status ac_hermite_eval(const double *start, const double *end,
                          const double *start_velocity, const double *end_velocity,
                          const double *duration, const double *elapsed,
                          const size_t steps[6], double *position, double *velocity,
                          size_t n, ac_error *err);

/* tangent = duration * velocity, and back; steps[0] is for the first input,
   steps[1] for duration. Finite inputs, duration > 0, finite result. */
ac_status ac_hermite_velocity_to_tangent(const double *velocity, const double *duration,
                                         const size_t steps[2], double *tangent,
                                         size_t n, ac_error *err);
ac_status ac_hermite_tangent_to_velocity(const double *tangent, const double *duration,
                                         const size_t steps[2], double *velocity,
                                         size_t n, ac_error *err);

/* ---------------------------------------------------------------- curves */

/* ---------------------------------------------------------------- easing */

/* ----------------------------------------------------------- quaternions */

/* ----------------------------------------------------------- root motion */

/* --------------------------------------------------------------- contact */

/* -------------------------------------------------------------- snapshot */

/* Network snapshot interpolation across teleports (article 003). A producer
   sends snapshots (tick, segment, position[, rotation]); the segment number
   declares continuity, and the sampler never interpolates across a segment
   change. Ticks are integers in [0, 2^32 - 1]; render ticks are real numbers.

   Rules for one entity (shared by the single timeline and the batched buffer):
   - push: a non-finite position, a negative segment, or a rotation that is
     zero or non-finite is INVALID; then a tick not after the newest retained
     one is OUT_OF_ORDER; then a segment lower than the newest one is INVALID.
     A rejected push changes nothing. Rotations are stored normalized.
   - sample(t): no snapshot -> EMPTY (position 0, rotation identity, ticks 0);
     t <= oldest -> HOLD_OLDEST; t in (left, right] of two neighbours: same
     segment -> INTERPOLATE (lerp, shortest-arc slerp), else SEGMENT_CUT with
     the right snapshot; t > newest -> HOLD_LATEST, or, when
     max_extrapolation > 0 and the newest two snapshots share a segment,
     EXTRAPOLATE along them for t <= newest + max_extrapolation; later render
     ticks hold the value reached at that limit (mode HOLD_LATEST, with the
     two snapshots' ticks as left/right). An extrapolated position that is
     not representable falls back to holding the newest snapshot.
   - The ring holds `capacity` snapshots per entity; a push into a full ring
     evicts the oldest, so render ticks older than the oldest retained
     snapshot give HOLD_OLDEST at it. */

#include <stdint.h>

typedef enum ac_snapshot_push_result {
    AC_SNAPSHOT_ACCEPTED = 0,
    AC_SNAPSHOT_OUT_OF_ORDER = 1,
    AC_SNAPSHOT_INVALID = 2
} ac_snapshot_push_result;

typedef enum ac_snapshot_mode {
    AC_SNAPSHOT_EMPTY = 0,
    AC_SNAPSHOT_HOLD_OLDEST = 1,
    AC_SNAPSHOT_INTERPOLATE = 2,
    AC_SNAPSHOT_HOLD_LATEST = 3,
    AC_SNAPSHOT_SEGMENT_CUT = 4,
    AC_SNAPSHOT_EXTRAPOLATE = 5
} ac_snapshot_mode;

#define AC_SNAPSHOT_TICK_MAX 4294967295.0 /* ticks lie in [0, 2^32 - 1] */

/* Structure-of-arrays ring buffers for `entities` entities, each holding up to
   `capacity` snapshots of `dim` position channels (and a quaternion when
   `rotations` is non-zero). Each entity slot also has a generation (initially
   0): a push with a higher generation empties the slot first (a re-used
   network id), a lower one is INVALID.
   Layout: ring slots are stored slot-major (slot k of every entity side by
   side) and each entity's four newest ticks are kept together, so sampling
   all entities reads the memory nearly in order when their snapshots arrive
   together, and touches two positions per entity otherwise; render ticks
   more than three snapshots behind the newest take a binary search.
   Objects are not synchronized: samples may run concurrently with each
   other, a push or flush must not run concurrently with anything else on
   the same object. */
typedef struct ac_snapshot_buffer ac_snapshot_buffer;

/* entities >= 0, dim in [1, 1024], capacity in [1, 2^24], max_extrapolation
   finite and >= 0 (ticks). *buffer is NULL on failure. */
ac_status ac_snapshot_buffer_create(ac_snapshot_buffer **buffer, size_t entities,
                                    size_t dim, size_t capacity, int rotations,
                                    double max_extrapolation, ac_error *err);
void ac_snapshot_buffer_destroy(ac_snapshot_buffer *buffer);

/* Applies n pushes in order (the same entity twice in one call: the second
   sees the first). entity[i] in [0, entities), tick[i] in [0, 2^32 - 1],
   segment[i] any value (negative is INVALID), position n x dim, rotation n x 4
   (NULL when the buffer has no rotations; required otherwise), generation n
   values or NULL for all 0. result[i] receives an ac_snapshot_push_result.
   Arguments are checked before anything is applied: on AC_ERR_VALUE nothing
   has changed and `result` is unspecified. */
ac_status ac_snapshot_buffer_push(ac_snapshot_buffer *buffer, const int64_t *entity,
                                  const int64_t *tick, const int64_t *segment,
                                  const double *position, const double *rotation,
                                  const int64_t *generation, size_t n,
                                  unsigned char *result, ac_error *err);

/* Samples every entity at one finite render tick: position entities x dim,
   rotation entities x 4 (may be NULL), mode (ac_snapshot_mode), left_tick and
   right_tick. A non-finite render tick is AC_ERR_VALUE before anything is
   written. */
ac_status ac_snapshot_buffer_sample(const ac_snapshot_buffer *buffer, double render_tick,
                                    double *position, double *rotation,
                                    unsigned char *mode, int64_t *left_tick,
                                    int64_t *right_tick, ac_error *err);

/* Shape and contents: retained snapshots of one entity, oldest first (any of
   the output pointers may be NULL); returns the count written. */
size_t ac_snapshot_buffer_entities(const ac_snapshot_buffer *buffer);
size_t ac_snapshot_buffer_dim(const ac_snapshot_buffer *buffer);
int ac_snapshot_buffer_rotations(const ac_snapshot_buffer *buffer);
size_t ac_snapshot_buffer_count(const ac_snapshot_buffer *buffer, size_t entity);
int64_t ac_snapshot_buffer_generation(const ac_snapshot_buffer *buffer, size_t entity);
size_t ac_snapshot_buffer_read(const ac_snapshot_buffer *buffer, size_t entity,
                               int64_t *tick, int64_t *segment, double *position,
                               double *rotation);

/* One entity's timeline with an optional reorder window W (ticks). With W = 0
   pushes go straight into the timeline (the article's contract). With W > 0
   pushes wait in a receive buffer (at most W + 1 snapshots) and are released
   into the timeline in tick order once the newest received tick is W ahead of
   them, or on flush; a push whose tick is not after the newest released one,
   or repeats a waiting tick, is OUT_OF_ORDER; one whose segment is lower than
   that of a snapshot before it in tick order (or higher than one after it) is
   INVALID. Sampling sees released snapshots only. */
typedef struct ac_snapshot_timeline ac_snapshot_timeline;

/* dim, capacity, max_extrapolation as for the buffer; reorder_window in
   [0, 65536]. */
ac_status ac_snapshot_timeline_create(ac_snapshot_timeline **timeline, size_t dim,
                                      size_t capacity, int rotations,
                                      double max_extrapolation, size_t reorder_window,
                                      ac_error *err);
void ac_snapshot_timeline_destroy(ac_snapshot_timeline *timeline);

/* n pushes in order; arguments as for the buffer without entity/generation. */
ac_status ac_snapshot_timeline_push(ac_snapshot_timeline *timeline, const int64_t *tick,
                                    const int64_t *segment, const double *position,
                                    const double *rotation, size_t n,
                                    unsigned char *result, ac_error *err);

/* Releases every waiting snapshot into the timeline; returns how many. */
size_t ac_snapshot_timeline_flush(ac_snapshot_timeline *timeline);

/* n render ticks (all finite, checked first) -> n samples. */
ac_status ac_snapshot_timeline_sample(const ac_snapshot_timeline *timeline,
                                      const double *render_tick, size_t n,
                                      double *position, double *rotation,
                                      unsigned char *mode, int64_t *left_tick,
                                      int64_t *right_tick, ac_error *err);

/* Snapshots waiting in the receive buffer, and the released timeline (a
   one-entity buffer, readable with the functions above). */
size_t ac_snapshot_timeline_pending(const ac_snapshot_timeline *timeline);
const ac_snapshot_buffer *ac_snapshot_timeline_buffer(const ac_snapshot_timeline *timeline);

#ifdef __cplusplus
}
#endif

#endif /* ANIMCORE_H */
