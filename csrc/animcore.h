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

/* A looping root track (article 001). Key times run from 0 to the clip
   duration T; the phase of a time t is u = t/T - k with cycle k = floor(t/T),
   so u lies in [0, 1) for any t, negative included. Positions interpolate
   linearly or as a cubic with Catmull-Rom velocities whose end keys see the
   neighbouring cycles (C1 across the loop seam). Optional rotations make the
   root pose a rigid transform P(u) (yaw angles about an up axis, or unit
   quaternions (x, y, z, w) interpolated by shortest-arc slerp); one cycle
   then moves the character by C = P(0)^-1 P(1) and the motion from t0 to t1,
   in the root frame at t0, is F(t0)^-1 F(t1) with F(t) = C^k P(0)^-1 P(u).
   Without rotations the motion is the translation (k1 - k0) D + p(u1) - p(u0),
   D = p(1) - p(0). */
typedef struct ac_looptrack ac_looptrack;

typedef enum ac_root_interpolation {
    AC_ROOT_LINEAR = 0,
    AC_ROOT_CUBIC = 1
} ac_root_interpolation;

typedef enum ac_root_rotation {
    AC_ROOT_NO_ROTATION = 0, /* translation only, any number of channels */
    AC_ROOT_YAW = 1,         /* k angles in radians; 2 or 3 position channels */
    AC_ROOT_QUAT = 2         /* k unit quaternions (x, y, z, w); 3 channels */
} ac_root_rotation;

/* Validates and builds a track from k >= 2 keys: times (k) strictly increasing
   from exactly 0, positions (k * channels, row-major), rotations (k yaw angles
   or 4k quaternion components, unused for AC_ROOT_NO_ROTATION). For yaw and 3
   channels, up_axis (0, 1 or 2) is the axis the yaw turns about, positive from
   axis up+1 toward axis up+2 (right-handed); with 2 channels the yaw turns the
   plane from channel 0 toward channel 1 and up_axis is not used. Quaternions
   must have unit length within 1e-6 (they are renormalized). max_cycles in
   (0, 2^50] bounds |t / T| for every time given later. *track is NULL on
   failure; AC_ERR_NOMEM when memory runs out. */
ac_status ac_rootmotion_create(ac_looptrack **track, const double *times,
                               const double *positions, size_t k, size_t channels,
                               ac_root_interpolation interpolation,
                               ac_root_rotation rotation, const double *rotations,
                               int up_axis, double max_cycles, ac_error *err);
void ac_rootmotion_destroy(ac_looptrack *track);

double ac_rootmotion_duration(const ac_looptrack *track);
size_t ac_rootmotion_channels(const ac_looptrack *track);
ac_root_rotation ac_rootmotion_rotation(const ac_looptrack *track);

/* cycle[i] = floor(t[i] / T) and phase[i] = t[i] / T - cycle[i] in [0, 1).
   AC_ERR_VALUE for non-finite t or |t / T| > max_cycles ("t"). */
ac_status ac_rootmotion_split(const ac_looptrack *track, const double *t, double *cycle,
                              double *phase, size_t n, ac_error *err);

/* The root pose at phase[i] in [0, 1]: position (n * channels) and, for a
   turning track, rotation (n yaw angles or 4n quaternion components; may be
   NULL). AC_ERR_VALUE for a phase outside [0, 1] or non-finite ("phase"). */
ac_status ac_rootmotion_sample(const ac_looptrack *track, const double *phase,
                               double *position, double *rotation, size_t n,
                               ac_error *err);

/* The motion from t0[i] to t1[i] (steps[0], steps[1] broadcast them, NULL
   for arrays of n): translation (n * channels) and, for a turning track,
   rotation (n yaw angles wrapped to (-pi, pi], or 4n quaternion components
   with w >= 0). Cycles enter as one multiplication (translation only), a
   closed form (yaw) or an O(log k) power (quaternions). AC_ERR_VALUE for
   non-finite times or |t / T| > max_cycles ("t0" / "t1"). */
ac_status ac_rootmotion_delta(const ac_looptrack *track, const double *t0, const double *t1,
                              const size_t steps[2], double *translation, double *rotation,
                              size_t n, ac_error *err);

/* Playback cursors: n states (integer cycle, phase in [0, 1)) move by
   value[i * steps[2]] seconds (absolute = 0) or to the time value (absolute =
   1). Writes the new states and the motion between old and new state, as
   ac_rootmotion_delta does; the inputs cycle/phase are only read, so a failed
   call changes nothing the caller keeps. Errors: AC_ERR_VALUE for a state
   outside its domain ("phase", "cycle"), a non-finite value, |dt / T| or
   |t / T| > max_cycles ("dt" / "t"); AC_ERR_OVERFLOW for a cycle count beyond
   2^53. steps[0] and steps[1] are for cycle and phase. */
ac_status ac_rootmotion_advance(const ac_looptrack *track, const long long *cycle,
                                const double *phase, const double *value,
                                const size_t steps[3], int absolute, long long *new_cycle,
                                double *new_phase, double *translation, double *rotation,
                                size_t n, ac_error *err);

/* --------------------------------------------------------------- contact */

/* -------------------------------------------------------------- snapshot */

#ifdef __cplusplus
}
#endif

#endif /* ANIMCORE_H */
