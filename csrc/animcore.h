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

#ifdef __cplusplus
}
#endif

#endif /* ANIMCORE_H */
