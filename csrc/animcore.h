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

/* A keyframe track: K key times, K x C values (C channels, row-major) and,
   for cubic interpolation, per-key velocities (per second) on each side of
   every key. Built once by ac_curve_create, which validates everything and
   converts velocities to segment tangents with each segment's own duration
   (tangent = duration * velocity); evaluation then never re-checks the keys.
   Every query finds its segment and u once and reuses them for all channels. */

typedef enum ac_curve_interpolation {
    AC_CURVE_STEP = 0,   /* value of the last key at or before t */
    AC_CURVE_LINEAR = 1,
    AC_CURVE_CUBIC = 2   /* Hermite with per-second key velocities */
} ac_curve_interpolation;

/* How cubic key velocities are chosen when not given explicitly. */
typedef enum ac_curve_tangents {
    AC_TANGENTS_CATMULL_ROM = 0,         /* (v[i+1]-v[i-1]) / (t[i+1]-t[i-1]); ends: the
                                            slope of the end segment */
    AC_TANGENTS_CATMULL_ROM_UNIFORM = 1, /* tangent (v[i+1]-v[i-1]) / 2 used as is in
                                            both neighbouring segments (legacy) */
    AC_TANGENTS_PCHIP = 2,               /* Fritsch-Butland, scipy's PchipInterpolator */
    AC_TANGENTS_CLAMPED = 3,             /* catmull_rom limited to never overshoot */
    AC_TANGENTS_FLAT = 4,                /* zero velocities */
    AC_TANGENTS_EXPLICIT = 5             /* in_velocities / out_velocities given */
} ac_curve_tangents;

/* What a curve does before its first key and after its last. */
typedef enum ac_curve_extrapolation {
    AC_EXTRAP_CLAMP = 0,        /* hold the end key, velocity 0 */
    AC_EXTRAP_LINEAR = 1,       /* continue with the end velocity */
    AC_EXTRAP_CYCLE = 2,        /* repeat */
    AC_EXTRAP_CYCLE_OFFSET = 3, /* repeat, each cycle shifted by last - first */
    AC_EXTRAP_OSCILLATE = 4,    /* repeat, every other cycle mirrored in time */
    AC_EXTRAP_ERROR = 5         /* times outside the keys are an AC_ERR_VALUE */
} ac_curve_extrapolation;

typedef struct ac_curve_spec {
    size_t keys;     /* K >= 1 */
    size_t channels; /* C */
    const double *times;  /* K, strictly increasing and finite */
    const double *values; /* K x C, finite */
    ac_curve_interpolation interpolation;
    ac_curve_tangents tangents;
    /* K x C per-second velocities for AC_TANGENTS_EXPLICIT (may be the same
       array for unbroken tangents); ignored otherwise. in_velocities[i] is the
       velocity arriving at key i, out_velocities[i] the one leaving it. */
    const double *in_velocities;
    const double *out_velocities;
    ac_curve_extrapolation before, after;
    /* Nonzero: a pair of equal consecutive times is a discontinuity (the left
       key ends the segment before, the right key starts the one after; at
       that time the right key wins). Not at the first or last key; three
       equal times are always an error. */
    int jumps;
} ac_curve_spec;

typedef struct ac_curve ac_curve; /* opaque; owns its memory */

/* Search state of a forward (sorted) sweep: start with {0}. */
typedef struct ac_curve_cursor {
    size_t segment;
} ac_curve_cursor;

/* Validates *spec and builds *curve. Errors name the argument ("times",
   "values", "in_velocities", "out_velocities", "velocity" for a computed
   velocity that overflows) with the flat index into it. */
ac_status ac_curve_create(ac_curve **curve, const ac_curve_spec *spec, ac_error *err);
void ac_curve_destroy(ac_curve *curve);

size_t ac_curve_keys(const ac_curve *curve);
size_t ac_curve_channels(const ac_curve *curve);

/* The per-second velocity arriving at and leaving every key (K x C each),
   as used by evaluation: for linear curves the adjacent segment slopes, for
   step curves 0, for catmull_rom_uniform the tangent divided by each side's
   own segment duration. Either output may be NULL. */
void ac_curve_key_velocities(const ac_curve *curve, double *in_velocities,
                             double *out_velocities);

/* Value (derivative 0), per-second velocity (1) or acceleration (2) of the
   curve at n times t, written to out (n x C). Any order of t: a
   non-decreasing array is swept forward segment by segment (O(n + K));
   otherwise queries follow a forward cursor until one steps back, then use
   a binary search. Every path gives identical results. Errors: AC_ERR_VALUE
   "t" for a non-finite time or one outside the keys with AC_EXTRAP_ERROR,
   "derivative" outside 0..2; AC_ERR_OVERFLOW "value" / "velocity" /
   "acceleration" (index: the query) when a result is not representable. */
ac_status ac_curve_eval(const ac_curve *curve, const double *t, size_t n, int derivative,
                        double *out, ac_error *err);

/* The same for a playback sweep: *cursor carries the segment from one call
   to the next, so calling it with consecutive blocks of a sorted sequence
   costs O(n + K) in total. Correct (only slower) for any order. */
ac_status ac_curve_eval_sorted(const ac_curve *curve, ac_curve_cursor *cursor,
                               const double *t, size_t n, int derivative, double *out,
                               ac_error *err);

/* ---------------------------------------------------------------- easing */

/* Easing functions s = ease(u) on the normalized time u in [0, 1]: linear,
   smoothstep, smootherstep and Robert Penner's families, each as _IN, _OUT
   and _IN_OUT, following his original equations (back: s = 1.70158, in_out
   s * 1.525; elastic: period 0.3, in_out 0.45, amplitude 1). Endpoint
   adjustments, as in Penner's code: expo and elastic return exactly 0 at
   u = 0 and exactly 1 at u = 1 (expo_in's formula gives 2^-10 at u = 0, so it
   jumps there). The rate ds/du is analytic; where the curve has a vertical
   tangent (circ_in at 1, circ_out at 0, circ_in_out at 0.5) it is +inf. At
   the jumps of expo it is the one-sided rate of the formula. */
typedef enum ac_ease_kind {
    AC_EASE_LINEAR, AC_EASE_SMOOTHSTEP, AC_EASE_SMOOTHERSTEP,
    AC_EASE_QUAD_IN, AC_EASE_QUAD_OUT, AC_EASE_QUAD_IN_OUT,
    AC_EASE_CUBIC_IN, AC_EASE_CUBIC_OUT, AC_EASE_CUBIC_IN_OUT,
    AC_EASE_QUART_IN, AC_EASE_QUART_OUT, AC_EASE_QUART_IN_OUT,
    AC_EASE_QUINT_IN, AC_EASE_QUINT_OUT, AC_EASE_QUINT_IN_OUT,
    AC_EASE_SINE_IN, AC_EASE_SINE_OUT, AC_EASE_SINE_IN_OUT,
    AC_EASE_EXPO_IN, AC_EASE_EXPO_OUT, AC_EASE_EXPO_IN_OUT,
    AC_EASE_CIRC_IN, AC_EASE_CIRC_OUT, AC_EASE_CIRC_IN_OUT,
    AC_EASE_BACK_IN, AC_EASE_BACK_OUT, AC_EASE_BACK_IN_OUT,
    AC_EASE_ELASTIC_IN, AC_EASE_ELASTIC_OUT, AC_EASE_ELASTIC_IN_OUT,
    AC_EASE_BOUNCE_IN, AC_EASE_BOUNCE_OUT, AC_EASE_BOUNCE_IN_OUT,
    AC_EASE_COUNT
} ac_ease_kind;

/* "cubic_in_out" for AC_EASE_CUBIC_IN_OUT; NULL for a kind out of range. */
const char *ac_ease_name(ac_ease_kind kind);

/* 1 when the kind never decreases (so it has an inverse): every kind except
   back, elastic and bounce. */
int ac_ease_monotone(ac_ease_kind kind);

/* s = ease(u) (ac_ease_eval) or ds/du (ac_ease_rate) for n values of u in
   [0, 1]. Errors: AC_ERR_VALUE for a kind out of range or u non-finite or
   outside [0, 1] (the first such element). */
ac_status ac_ease_eval(ac_ease_kind kind, const double *u, double *s, size_t n,
                       ac_error *err);
ac_status ac_ease_rate(ac_ease_kind kind, const double *u, double *dsdu, size_t n,
                       ac_error *err);

/* The normalized time u in [0, 1] at which a monotone kind reaches s in
   [0, 1]: closed forms where they exist, else a safeguarded Newton/bisection
   to 1e-12. Where the kind is flat or jumps (expo at its ends) the earliest
   such time is returned. AC_ERR_VALUE for a non-monotone kind (arg "kind") or
   s outside [0, 1]. */
ac_status ac_ease_inverse(ac_ease_kind kind, const double *s, double *u, size_t n,
                          ac_error *err);

/* The CSS cubic-bezier(x1, y1, x2, y2) timing function: the Bezier curve from
   (0, 0) to (1, 1) with control points (x1, y1), (x2, y2); x1, x2 in [0, 1]
   (so x is monotone), y free. ac_ease_bezier_init validates. */
typedef struct ac_ease_bezier {
    double x1, y1, x2, y2;
} ac_ease_bezier;

ac_status ac_ease_bezier_init(ac_ease_bezier *curve, double x1, double y1, double x2,
                              double y2, ac_error *err);

/* s at n values of u in [0, 1], and ds/du when dsdu is not NULL. The curve
   parameter is solved to |x(t) - u| <= 1e-12 by Newton's method with a
   bisection fallback. ds/du is +-inf where x has a zero slope and y does not. */
ac_status ac_ease_bezier_eval(const ac_ease_bezier *curve, const double *u, double *s,
                              double *dsdu, size_t n, ac_error *err);

/* The CSS steps(count, position) timing function. */
typedef enum ac_ease_jump {
    AC_EASE_JUMP_START, AC_EASE_JUMP_END, AC_EASE_JUMP_NONE, AC_EASE_JUMP_BOTH
} ac_ease_jump;

/* s at n values of u in [0, 1] (the rate is 0 between the jumps). count >= 1,
   and >= 2 for AC_EASE_JUMP_NONE; a bad count is reported with arg "count". */
ac_status ac_ease_steps_eval(long count, ac_ease_jump position, const double *u, double *s,
                             size_t n, ac_error *err);

/* ----------------------------------------------------------- quaternions */

/* Batch quaternion kernels. A quaternion is 4 doubles (x, y, z, w), a vector
   3 doubles; n items, and steps[k] is 1 when input k holds n items and 0
   when it holds one item shared by all (NULL: all hold n). Inputs must be
   finite; where a quaternion stands for a rotation (normalize, rotate, slerp,
   nlerp) it is normalized first and a zero length is an AC_ERR_VALUE with arg
   "|q|" (or "|q0|", "|q1|"). Outputs may not alias inputs. */

/* out = a * b (Hamilton product: b is applied first, then a). */
ac_status ac_quat_batch_multiply(const double *a, const double *b, const size_t steps[2],
                                 double *out, size_t n, ac_error *err);
/* out = (-x, -y, -z, w). */
ac_status ac_quat_batch_conjugate(const double *q, double *out, size_t n, ac_error *err);
/* out = q / |q|, computed without overflow or underflow for any finite q. */
ac_status ac_quat_batch_normalize(const double *q, double *out, size_t n, ac_error *err);
/* The rotation by `angle` radians about `axis` (normalized; non-zero). */
ac_status ac_quat_batch_from_axis_angle(const double *axis, const double *angle,
                                        const size_t steps[2], double *out, size_t n,
                                        ac_error *err);
/* out = v rotated by the rotation q / |q|. */
ac_status ac_quat_batch_rotate(const double *q, const double *v, const size_t steps[2],
                               double *out, size_t n, ac_error *err);
/* Shortest-arc spherical (slerp) and normalized linear (nlerp) interpolation
   from q0 (t = 0) to q1 (t = 1), t in [0, 1]; q1 is negated when q0 . q1 < 0.
   Results are unit quaternions. */
ac_status ac_quat_batch_slerp(const double *q0, const double *q1, const double *t,
                              const size_t steps[3], double *out, size_t n, ac_error *err);
ac_status ac_quat_batch_nlerp(const double *q0, const double *q1, const double *t,
                              const size_t steps[3], double *out, size_t n, ac_error *err);

/* A rotation track with glTF animation semantics (glTF 2.0, Appendix C). */
typedef enum ac_quat_interp {
    AC_QUAT_STEP,   /* the key at or before t */
    AC_QUAT_LINEAR, /* shortest-arc slerp between neighbouring keys */
    AC_QUAT_CUBIC   /* per-component Hermite with per-second tangents times the
                       key interval, then normalized */
} ac_quat_interp;

/* Outside [first key, last key]. */
typedef enum ac_quat_extrap {
    AC_QUAT_CLAMP,     /* hold the end key (angular velocity 0) */
    AC_QUAT_CYCLE,     /* repeat the key range */
    AC_QUAT_OSCILLATE, /* repeat, every other cycle mirrored in time */
    AC_QUAT_ERROR      /* AC_ERR_VALUE naming the time */
} ac_quat_extrap;

typedef struct ac_quat_curve ac_quat_curve;

/* Validates and copies k >= 1 keys: strictly increasing finite `times`
   (seconds), finite non-zero `quats` (4k, normalized here) and, for
   AC_QUAT_CUBIC, finite per-second `in_tangents` and `out_tangents` (4k each;
   ignored otherwise, may be NULL). Errors name "times", "quaternions",
   "|quaternions|", "in_tangents", "out_tangents", with the key index;
   AC_ERR_NOMEM when allocation fails. *curve is set on success only. */
ac_status ac_quat_curve_create(const double *times, const double *quats,
                               const double *in_tangents, const double *out_tangents,
                               size_t k, ac_quat_interp interp, ac_quat_extrap before,
                               ac_quat_extrap after, ac_quat_curve **curve, ac_error *err);
void ac_quat_curve_destroy(ac_quat_curve *curve);

/* Unit quaternions q (4n, may be NULL) and angular velocities omega (3n, rad/s,
   may be NULL) at n times t (seconds). omega = 2 dq/dt q* is the rotation
   rate in the frame q rotates into (the parent frame for glTF nodes); it is
   exact for every interpolation (0 for step and where clamped). `cursor`
   (may be NULL) carries the segment of the last query from call to call:
   sorted queries then cost O(n + k). Errors: non-finite t, t outside the keys
   with AC_QUAT_ERROR, a cubic spline passing through the zero quaternion. */
ac_status ac_quat_curve_eval(const ac_quat_curve *curve, const double *t, size_t n,
                             size_t *cursor, double *q, double *omega, ac_error *err);

/* ----------------------------------------------------------- root motion */

/* --------------------------------------------------------------- contact */

/* -------------------------------------------------------------- snapshot */

#ifdef __cplusplus
}
#endif

#endif /* ANIMCORE_H */
