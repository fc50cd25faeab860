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

/* Velocity response of point masses to contacts with kinematic surfaces
   (moving walls, platforms) of infinite mass (article 002). Vectors have
   `dim` = 2 or 3 components stored contiguously; vector inputs step by whole
   vectors. With relative velocity w = v - u (u: the surface's velocity at the
   contact point) and s = w . n (n: unit normal pointing from the surface to
   the body), a contact with s >= 0 (separating or sliding) keeps v; otherwise

       v' = v - (1 + e') s n - f wt,   e' = e if -s > threshold, else 0,

   where wt = w - s n is the tangential relative velocity and f in [0, 1]
   removes at most friction * (1 + e') * |s| of its length (Coulomb friction;
   f = 1 stops it, it is never reversed). friction = 0 and threshold = 0 give
   the article's frictionless law exactly. */

/* n contacts. Inputs in order: velocity, surface_velocity, normal (vectors),
   restitution, friction, threshold (scalars), with steps[0..5]. Errors:
   AC_ERR_VALUE for non-finite input, |n . n - 1| > 1e-12, restitution outside
   [0, 1], friction < 0 or threshold < 0; AC_ERR_OVERFLOW when w, s or the
   result is not representable. `result` must not overlap the inputs; on
   failure it holds unspecified values. */
ac_status ac_contact_bounce(const double *velocity, const double *surface_velocity,
                            const double *normal, const double *restitution,
                            const double *friction, const double *threshold,
                            const size_t steps[6], size_t dim, double *result, size_t n,
                            ac_error *err);

/* Velocity of a point of a rigid body: linear_velocity + angular x offset.
   In 2-D the angular velocity is a scalar (omega * (-offset_y, offset_x)),
   in 3-D a vector. Inputs in order: linear_velocity, angular_velocity, offset
   (steps[0..2], in whole vectors; the 2-D angular velocity is one value).
   Errors: AC_ERR_VALUE for non-finite input, AC_ERR_OVERFLOW for a result
   that is not representable. */
ac_status ac_contact_point_velocity(const double *linear_velocity,
                                    const double *angular_velocity, const double *offset,
                                    const size_t steps[3], size_t dim, double *result,
                                    size_t n, ac_error *err);

/* M one-sided planes, each moving with constant velocity during a step:
   at time t into the step, plane j passes through point[j] + velocity[j] * t
   with unit normal normal[j] (dim components each). */
typedef struct ac_planes {
    const double *point, *normal, *velocity;
    size_t count, dim;
} ac_planes;

/* Per-sphere and per-(sphere, plane) parameters of ac_contact_advance.
   Element (i, j) of restitution is restitution[i * restitution_steps[0] +
   j * restitution_steps[1]] (0 steps repeat one value), likewise friction;
   radius[i * radius_step] and dt[i * dt_step]. */
typedef struct ac_projectile_params {
    const double *radius, *dt, *restitution, *friction;
    size_t radius_step, dt_step;
    size_t restitution_steps[2], friction_steps[2];
    int max_bounces;
} ac_projectile_params;

/* Advances n spheres (position, velocity: n vectors, updated in place) by
   their dt against the planes, with continuous collision: the earliest time
   of impact in [0, dt] among the planes a sphere approaches (relative normal
   speed s < 0, beyond rounding) is where its signed distance reaches its
   radius; the sphere moves there, its velocity is resolved with the bounce
   law (that plane's velocity, restitution and friction, threshold 0) and the
   remaining time is used the same way, up to max_bounces contacts.
   - A plane acts on a sphere only if the sphere's center starts the step on
     its normal side (signed distance >= 0): planes are one-sided.
   - A sphere already touching or penetrating a plane it approaches bounces at
     once (time 0); its position is not corrected.
   - When a contact comes after max_bounces contacts were resolved in the
     step, the sphere moves to it and stays there, carried by that surface
     (it moves with the plane's velocity), for the rest of the step; its
     velocity is left unresolved, so the next step bounces it at time 0.
   So a sphere never crosses a plane it started in front of because of its
   own speed. bounces[i] (may be NULL) receives the number of contacts
   resolved. Errors: AC_ERR_VALUE for non-finite input, a plane normal that
   is not unit, radius < 0, dt < 0, restitution outside [0, 1], friction < 0,
   max_bounces < 0 (err->arg names the argument; for plane arguments index is
   the plane, for restitution and friction i * count + j, otherwise the
   sphere); AC_ERR_OVERFLOW when a position, distance or velocity is not
   representable; AC_ERR_NOMEM when its scratch (about 16 KB plus 1 KB per
   plane) cannot be allocated; planes->dim must be 2 or 3. On failure position and velocity hold unspecified values: callers
   wanting them intact pass copies. */
ac_status ac_contact_advance(double *position, double *velocity, const ac_planes *planes,
                             const ac_projectile_params *params, int *bounces, size_t n,
                             ac_error *err);

/* -------------------------------------------------------------- snapshot */

#ifdef __cplusplus
}
#endif

#endif /* ANIMCORE_H */
