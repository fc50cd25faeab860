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
 * - The read-only *_check functions that prove a call will succeed serve the
 *   Python binding; they are gathered in the last section ("Binding support")
 *   and an engine need not call them.
 */
#ifndef ANIMCORE_H
#define ANIMCORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* --------------------------------------------------------------- version */

#define AC_VERSION_MAJOR 0
#define AC_VERSION_MINOR 1
#define AC_VERSION_PATCH 0
#define AC_VERSION_STRING "0.1.0"
/* MAJOR * 10000 + MINOR * 100 + PATCH, for #if comparisons. */
#define AC_VERSION (AC_VERSION_MAJOR * 10000 + AC_VERSION_MINOR * 100 + AC_VERSION_PATCH)

/* ---------------------------------------------------------------- export
   AC_API marks the public functions, the only symbols the library exports.
   Build with -fvisibility=hidden (the Makefile does) so that nothing else is
   visible when the core is linked into a shared object; define AC_SHARED when
   building or using the core as a Windows DLL (and AC_BUILD while building
   it). */
#if defined(_WIN32) && defined(AC_SHARED)
#if defined(AC_BUILD)
#define AC_API __declspec(dllexport)
#else
#define AC_API __declspec(dllimport)
#endif
#elif defined(__GNUC__)
#define AC_API __attribute__((visibility("default")))
#else
#define AC_API
#endif

/* The version of the library linked, "MAJOR.MINOR.PATCH": compare it with
   AC_VERSION_STRING (the header compiled against) to detect a mismatch. */
AC_API const char *ac_version(void);

/* ---------------------------------------------------------------- memory */

/* Memory an engine supplies to the objects it creates (its arenas, its
   tracking): alloc returns `size` bytes aligned for any type, or NULL;
   release frees a block alloc returned. Every create function takes one (as
   its argument before `err`, or in its spec); the object keeps a copy and
   frees through it when destroyed; a NULL allocator means malloc and free.
   Batch kernels allocate nothing: they write into the caller's buffers
   (ac_skeleton_world on 8 or more poses of a skeleton of more than 32
   joints borrows scratch from the skeleton's allocator for its vector
   lanes, released before it returns; without it, the same results come
   more slowly). Three take scratch from malloc and free it before they
   return, failing with AC_ERR_NOMEM when it cannot be had: ac_ik_chain
   (k doubles, the bone lengths of one chain), ac_contact_advance and
   ac_contact_advance_spin (a block per call, its size set by the planes). */
typedef struct ac_allocator {
    void *(*alloc)(size_t size, void *user);
    void (*release)(void *ptr, void *user);
    void *user;
} ac_allocator;

/* ---------------------------------------------------------------- status */

typedef enum ac_status {
    AC_OK = 0,
    AC_ERR_VALUE = 1,    /* an input is outside its domain (non-finite, out of range) */
    AC_ERR_OVERFLOW = 2, /* finite inputs whose result is not representable */
    AC_ERR_NOMEM = 3     /* an allocation failed */
} ac_status;

/* Room for the longest detail the core writes, its numbers at their longest
   (a test checks every message against it). */
#define AC_DETAIL_SIZE 160

/* What an error is about: every argument (or quantity derived from arguments,
   such as |q|) that the core reports, by id. ac_arg_name gives its C spelling;
   a binding maps the id to its own spelling and to the shape the error index
   counts over. Ids are stable within a major version. */
typedef enum ac_arg {
    AC_ARG_NONE = 0,
    /* hermite */
    AC_ARG_START,
    AC_ARG_END,
    AC_ARG_START_VELOCITY,
    AC_ARG_END_VELOCITY,
    AC_ARG_DURATION,
    AC_ARG_ELAPSED,
    AC_ARG_POSITION,
    AC_ARG_VELOCITY,
    AC_ARG_TANGENT,
    /* key tracks */
    AC_ARG_TIMES,
    AC_ARG_VALUES,
    AC_ARG_T,
    AC_ARG_T0,
    AC_ARG_T1,
    AC_ARG_SIDE,
    AC_ARG_DERIVATIVE,
    AC_ARG_INTERPOLATION,
    AC_ARG_TANGENTS,
    AC_ARG_EXTRAPOLATION,
    AC_ARG_BEFORE,
    AC_ARG_AFTER,
    AC_ARG_IN_VELOCITIES,
    AC_ARG_OUT_VELOCITIES,
    AC_ARG_IN_WEIGHTS,
    AC_ARG_OUT_WEIGHTS,
    AC_ARG_BEFORE_SLOPES,
    AC_ARG_AFTER_SLOPES,
    AC_ARG_IN_TANGENTS,
    AC_ARG_OUT_TANGENTS,
    AC_ARG_VALUE,
    AC_ARG_ACCELERATION,
    /* easing */
    AC_ARG_KIND,
    AC_ARG_U,
    AC_ARG_S,
    AC_ARG_COUNT,
    AC_ARG_EASE,
    AC_ARG_OVERSHOOT,
    AC_ARG_AMPLITUDE,
    AC_ARG_PERIOD,
    AC_ARG_X1,
    AC_ARG_Y1,
    AC_ARG_X2,
    AC_ARG_Y2,
    /* quaternions and rotations */
    AC_ARG_A,
    AC_ARG_B,
    AC_ARG_PRODUCT,
    AC_ARG_Q,
    AC_ARG_Q_NORM, /* |q| */
    AC_ARG_Q0,
    AC_ARG_Q0_NORM, /* |q0| */
    AC_ARG_Q1,
    AC_ARG_Q1_NORM, /* |q1| */
    AC_ARG_QUATERNIONS,
    AC_ARG_QUATERNIONS_NORM, /* |quaternions| */
    AC_ARG_AXIS,
    AC_ARG_AXIS_NORM, /* |axis| */
    AC_ARG_ANGLE,
    AC_ARG_ANGLES,
    AC_ARG_AXES,
    AC_ARG_V,
    AC_ARG_ROTATED_VECTOR, /* rotated vector */
    AC_ARG_ROTVEC,
    AC_ARG_MATRIX,
    AC_ARG_MATRIX_DET, /* det(matrix) */
    AC_ARG_ANGULAR_VELOCITY,
    /* root motion */
    AC_ARG_POSITIONS,
    AC_ARG_ROTATIONS,
    AC_ARG_PHASE,
    AC_ARG_CYCLE,
    AC_ARG_DT,
    AC_ARG_MAX_CYCLES,
    AC_ARG_UP_AXIS,
    AC_ARG_TRANSLATION,
    AC_ARG_ROTATION,
    /* contacts */
    AC_ARG_SURFACE_VELOCITY,
    AC_ARG_NORMAL,
    AC_ARG_NORMAL_LENGTH2, /* normal . normal */
    AC_ARG_RESTITUTION,
    AC_ARG_FRICTION,
    AC_ARG_THRESHOLD,
    AC_ARG_RELATIVE_VELOCITY, /* velocity - surface_velocity */
    AC_ARG_NORMAL_SPEED, /* (velocity - surface_velocity) . normal */
    AC_ARG_RESULT,
    AC_ARG_DIM,
    AC_ARG_LINEAR_VELOCITY,
    AC_ARG_OFFSET,
    AC_ARG_POINT,
    AC_ARG_A_VELOCITY, /* a.velocity */
    AC_ARG_A_ANGULAR_VELOCITY, /* a.angular_velocity */
    AC_ARG_A_INVERSE_MASS, /* a.inverse_mass */
    AC_ARG_A_INVERSE_INERTIA, /* a.inverse_inertia */
    AC_ARG_A_CENTER, /* a.center */
    AC_ARG_B_VELOCITY, /* b.velocity */
    AC_ARG_B_ANGULAR_VELOCITY, /* b.angular_velocity */
    AC_ARG_B_INVERSE_MASS, /* b.inverse_mass */
    AC_ARG_B_INVERSE_INERTIA, /* b.inverse_inertia */
    AC_ARG_B_CENTER, /* b.center */
    AC_ARG_VELOCITY_A,
    AC_ARG_ANGULAR_VELOCITY_A,
    AC_ARG_VELOCITY_B,
    AC_ARG_ANGULAR_VELOCITY_B,
    AC_ARG_NORMAL_IMPULSE,
    AC_ARG_TANGENT_IMPULSE,
    AC_ARG_CONTACT_VELOCITY, /* relative velocity at the contact */
    AC_ARG_PLANE_POINT,
    AC_ARG_PLANE_NORMAL,
    AC_ARG_PLANE_NORMAL_LENGTH2, /* plane_normal . plane_normal */
    AC_ARG_PLANE_VELOCITY,
    AC_ARG_RADIUS,
    AC_ARG_MAX_BOUNCES,
    AC_ARG_INVERSE_INERTIA,
    /* snapshots */
    AC_ARG_ENTITIES,
    AC_ARG_ENTITY,
    AC_ARG_CAPACITY,
    AC_ARG_MAX_EXTRAPOLATION,
    AC_ARG_REORDER_WINDOW,
    AC_ARG_TICK,
    AC_ARG_RENDER_TICK,
    AC_ARG_STATE,
    /* skeletons */
    AC_ARG_PARENTS,
    AC_ARG_LOCAL,
    AC_ARG_WORLD,
    AC_ARG_SCALE,
    AC_ARG_ROTATION_NORM, /* |rotation| */
    AC_ARG_TRACKS,
    AC_ARG_SEGMENTS,
    /* working memory */
    AC_ARG_SCRATCH,
    /* the tools' tangents */
    AC_ARG_KEYS,
    AC_ARG_LEFT,
    AC_ARG_RIGHT,
    AC_ARG_LEFT_TYPES,
    AC_ARG_RIGHT_TYPES,
    AC_ARG_SLOPES,
    /* blending */
    AC_ARG_A_TRANSLATION,
    AC_ARG_A_ROTATION,
    AC_ARG_A_SCALE,
    AC_ARG_B_TRANSLATION,
    AC_ARG_B_ROTATION,
    AC_ARG_B_SCALE,
    AC_ARG_WEIGHT,
    AC_ARG_MASK,
    /* inverse kinematics */
    AC_ARG_MID,
    AC_ARG_TARGET,
    AC_ARG_POLE,
    AC_ARG_SOFTEN,
    AC_ARG_TWIST,
    AC_ARG_JOINT_WORLD,
    AC_ARG_FORWARD,
    AC_ARG_UP,
    AC_ARG_LIMITS,
    AC_ARG_TOLERANCE,
    AC_ARG_MAX_ITERATIONS,
    AC_ARG_METHOD,
    /* reduction */
    AC_ARG_SHELL,
    /* skinning */
    AC_ARG_BIND,
    AC_ARG_ID_COUNT /* one past the last id */
} ac_arg;

/* A setting of the object (rather than the value alone) that makes a value
   invalid, with the numbers that describe it in ac_error.limit. */
typedef enum ac_reason {
    AC_REASON_NONE = 0,
    AC_REASON_NO_JUMPS,      /* equal key times without the jumps flag */
    AC_REASON_BEFORE_ERROR,  /* t before the keys [limit[0], limit[1]], before = error */
    AC_REASON_AFTER_ERROR,   /* t after the keys [limit[0], limit[1]], after = error */
    AC_REASON_MAX_CYCLES     /* |t / limit[1]| > limit[0]: max_cycles of a duration */
} ac_reason;

/* The first failure of a call: which argument, at which element, with which
   value, and what the value must satisfy ("must lie in [0, duration=2]"). */
typedef struct ac_error {
    ac_status status;
    size_t index;       /* flat element index of the failure */
    ac_arg arg;         /* the argument the failure is about */
    double value;       /* the offending value */
    ac_reason reason;   /* AC_REASON_NONE unless a setting is the cause */
    double limit[2];    /* the numbers of the reason */
    char detail[AC_DETAIL_SIZE];
} ac_error;

/* "ok", "invalid value", "overflow", "out of memory". */
AC_API const char *ac_status_name(ac_status status);

/* The C spelling of an argument id ("times", "|q|", "a.velocity"); "" for
   AC_ARG_NONE, NULL for a value that is no id. */
AC_API const char *ac_arg_name(ac_arg arg);

/* --------------------------------------------------------------- hermite */

/* One cubic Hermite segment with per-second key velocities, converted once to
   tangents: start_tangent = duration * start_velocity. */
typedef struct ac_hermite {
    double start, end;
    double start_tangent, end_tangent;
    double duration;
} ac_hermite;

/* Validates (finite inputs, duration > 0, finite tangents) and fills *segment. */
AC_API ac_status ac_hermite_init(ac_hermite *segment, double start, double end,
                                 double start_velocity, double end_velocity,
                                 double duration, ac_error *err);

/* Position and per-second velocity of n segment samples at `elapsed` seconds
   into the segment, elapsed in [0, duration]. Inputs are, in order: start, end,
   start_velocity, end_velocity, duration, elapsed (steps[0..5]). `velocity`
   may be NULL. Errors: AC_ERR_VALUE for non-finite input, duration <= 0 or
   elapsed outside [0, duration]; AC_ERR_OVERFLOW for a non-finite tangent or
   result. On failure the outputs hold unspecified values. */
AC_API ac_status ac_hermite_eval(const double *start, const double *end,
                                 const double *start_velocity, const double *end_velocity,
                                 const double *duration, const double *elapsed,
                                 const size_t steps[6], double *position, double *velocity,
                                 size_t n, ac_error *err);


/* tangent = duration * velocity, and back; steps[0] is for the first input,
   steps[1] for duration. Finite inputs, duration > 0, finite result. */
AC_API ac_status ac_hermite_velocity_to_tangent(const double *velocity, const double *duration,
                                                const size_t steps[2], double *tangent,
                                                size_t n, ac_error *err);
AC_API ac_status ac_hermite_tangent_to_velocity(const double *tangent, const double *duration,
                                                const size_t steps[2], double *velocity,
                                                size_t n, ac_error *err);

/* ---------------------------------------------------------------- curves */

/* A keyframe track: K key times, K x C values (C channels, row-major) and,
   for cubic interpolation, per-key velocities (per second) on each side of
   every key. Built once by ac_curve_create, which validates everything and
   converts velocities to segment tangents with each segment's own duration
   (tangent = duration * velocity); evaluation then never re-checks the keys.
   Every query finds its segment and u once and reuses them for all channels.

   The interpolation, extrapolation and side enums below, the cursor and the
   side rule are those of every key track of the library: curves, rotation
   curves (ac_quat_curve) and the keys of a looping clip (ac_looptrack) share
   one track; each documents the values that apply to it. */

typedef enum ac_curve_interpolation {
    AC_CURVE_STEP = 0,   /* value of the last key at or before t */
    AC_CURVE_LINEAR = 1,
    AC_CURVE_CUBIC = 2,  /* Hermite with per-second key velocities */
    AC_CURVE_BEZIER = 3, /* 2-D cubic Bezier in (time, value): handles of any time
                            length (weights), solved for time */
    AC_CURVE_EASE = 4    /* v0 + ease(u) (v1 - v0), the easing in segment_ease */
} ac_curve_interpolation;

/* Variants of an eased segment (flags). */
#define AC_CURVE_EASE_BLENDER 1  /* Blender's formulas: expo rescaled by 2^-10 so it
                                    starts at 0 and ends at 1; elastic blended
                                    towards the key when amplitude < |change| */
#define AC_CURVE_EASE_RELATIVE 2 /* amplitude in units of |change|, period in units
                                    of the segment's duration (else value and
                                    time units) */
#define AC_CURVE_EASE_HOLD 4     /* with AC_EASE_LINEAR: a step that holds the
                                    segment's first key and reaches the next key
                                    at the segment's end, so the left side there
                                    is the end key's value (Blender's CONSTANT
                                    segment, whose end key holds at its time,
                                    at the last key and at cycle seams too) */

/* The easing of an AC_CURVE_EASE segment. overshoot: back's s (Penner's
   1.70158; in_out multiplies it by 1.525); amplitude and period: elastic
   (0 = the defaults: amplitude |change|, period 0.3 of the duration, 0.45
   for in_out). Kinds from ac_ease_kind (steps are not segment easings), or
   AC_CURVE_EASE_CUBIC_BEZIER: the CSS timing curve through (x1, y1) and
   (x2, y2), x1 and x2 in [0, 1], which makes the segment a 2-D Bezier. */
#define AC_CURVE_EASE_CUBIC_BEZIER (-1)
typedef struct ac_curve_ease {
    int kind;
    int flags;
    double overshoot, amplitude, period;
    double x1, y1, x2, y2;
} ac_curve_ease;

/* How cubic key velocities are chosen when not given explicitly. */
typedef enum ac_curve_tangents {
    AC_TANGENTS_CATMULL_ROM = 0,         /* (v[i+1]-v[i-1]) / (t[i+1]-t[i-1]); ends: the
                                            slope of the end segment */
    AC_TANGENTS_CATMULL_ROM_UNIFORM = 1, /* tangent (v[i+1]-v[i-1]) / 2 used as is in
                                            both neighbouring segments (legacy) */
    AC_TANGENTS_PCHIP = 2,               /* Fritsch-Butland, scipy's PchipInterpolator */
    AC_TANGENTS_CLAMPED = 3,             /* catmull_rom limited to never overshoot */
    AC_TANGENTS_FLAT = 4,                /* zero velocities */
    AC_TANGENTS_EXPLICIT = 5,            /* in_velocities / out_velocities given */
    AC_TANGENTS_NATURAL = 6              /* C2 spline, zero second derivative at the
                                            ends (scipy CubicSpline "natural") */
} ac_curve_tangents;

/* What a curve does before its first key and after its last. */
typedef enum ac_curve_extrapolation {
    AC_EXTRAP_CLAMP = 0,        /* hold the end key, velocity 0 */
    AC_EXTRAP_LINEAR = 1,       /* continue along the outer tangent: the velocity
                                   arriving at the first key (before), leaving
                                   the last key (after) */
    AC_EXTRAP_CYCLE = 2,        /* repeat */
    AC_EXTRAP_CYCLE_OFFSET = 3, /* repeat, each cycle shifted by last - first (the
                                   inner keys of jumps at the end keys) */
    AC_EXTRAP_OSCILLATE = 4,    /* repeat, every other cycle mirrored in time */
    AC_EXTRAP_ERROR = 5,        /* times outside the keys are an AC_ERR_VALUE */
    AC_EXTRAP_SLOPED = 6        /* continue with the given slope (before_slopes /
                                   after_slopes, per channel) */
} ac_curve_extrapolation;

/* Which side of a discontinuity (a key, a jump, a cycle seam) a query takes:
   the limit just after the time (RIGHT) or just before it (LEFT). Where a
   side does not exist (outside the keys with AC_EXTRAP_ERROR) the other one
   is used. */
typedef enum ac_curve_side { AC_SIDE_RIGHT = 0, AC_SIDE_LEFT = 1 } ac_curve_side;

typedef struct ac_curve_spec {
    size_t keys;     /* K >= 1 */
    size_t channels; /* C */
    const double *times;  /* K, strictly increasing and finite */
    const double *values; /* K x C, finite */
    ac_curve_interpolation interpolation;
    ac_curve_tangents tangents;
    /* K x C per-second velocities for AC_TANGENTS_EXPLICIT (may be the same
       array for unbroken tangents); ignored otherwise. in_velocities[i] is the
       velocity arriving at key i, out_velocities[i] the one leaving it; the
       outer ones, in_velocities[0] and out_velocities[K-1], are the slopes of
       AC_EXTRAP_LINEAR before the first and after the last key. */
    const double *in_velocities;
    const double *out_velocities;
    ac_curve_extrapolation before, after;
    /* Nonzero: a pair of equal consecutive times is a discontinuity (the left
       key ends the segment before, the right key starts the one after; at
       that time the right key wins). Not at the first or last key; three
       equal times are always an error. */
    bool jumps;
    /* Optional, NULL for the defaults. segment_interpolation: K-1 entries of
       ac_curve_interpolation, one per segment (overrides `interpolation`;
       velocities then follow the policy as for a cubic curve on the cubic
       and Bezier segments). */
    const int *segment_interpolation;
    /* K-1 easings, read for AC_CURVE_EASE segments (the interpolation or an
       entry of segment_interpolation). */
    const ac_curve_ease *segment_ease;
    /* K x C handle time lengths as fractions of the neighbouring segment's
       duration, arriving at (in) and leaving (out) each key; default 1/3
       (the Hermite case). A Bezier segment whose two weights are 1/3 is the
       cubic Hermite segment. A weight above 1 is scaled back to 1 along its
       handle (the handle keeps its slope), as Blender does, which keeps time
       monotone on the segment. */
    const double *in_weights;
    const double *out_weights;
    /* C slopes (per second) each, for AC_EXTRAP_SLOPED before / after. */
    const double *before_slopes;
    const double *after_slopes;
    /* true: Bezier weights above 1 are used as they are (OpenUSD's rule)
       instead of being scaled back; a segment whose time would then go
       backwards is an AC_ERR_VALUE naming the weights. */
    bool long_handles;
    const ac_allocator *allocator; /* NULL: malloc and free */
    /* Optional: K-1 indices into segment_ease, which is then a table of
       ease_count easings (a long curve reuses a few easings): segment j is
       eased by segment_ease[segment_ease_index[j]]. NULL: one per segment. */
    const size_t *segment_ease_index;
    size_t ease_count;
    /* true: the curve reads `times` and `values` where they are instead of
       copying them (an engine's key data, a file reader's arrays): the caller
       keeps both alive and unchanged until ac_curve_destroy, and
       ac_curve_times / ac_curve_values return them. */
    bool borrow_keys;
    /* true: the curve reads segment_ease_index where it is instead of
       copying it; the caller keeps it alive and unchanged until
       ac_curve_destroy. */
    bool borrow_ease_index;
} ac_curve_spec;

typedef struct ac_curve ac_curve; /* opaque; owns its memory (but borrowed keys) */

/* Search state of a forward (sorted) sweep: start with {0}. */
typedef struct ac_curve_cursor {
    size_t segment;
} ac_curve_cursor;

/* Validates *spec and builds *curve. Errors name the argument ("times",
   "values", "in_velocities", "out_velocities", "velocity" for a computed
   velocity that overflows) with the flat index into it. */
AC_API ac_status ac_curve_create(ac_curve **curve, const ac_curve_spec *spec, ac_error *err);
AC_API void ac_curve_destroy(ac_curve *curve);

AC_API size_t ac_curve_keys(const ac_curve *curve);
AC_API size_t ac_curve_channels(const ac_curve *curve);
/* The curve's key times (K) and values (K x C), as given: its own copies
   (or the borrowed arrays, spec.borrow_keys), read-only, alive as long as
   the curve. */
AC_API const double *ac_curve_times(const ac_curve *curve);
AC_API const double *ac_curve_values(const ac_curve *curve);

/* The per-second velocity arriving at and leaving every key (K x C each),
   as used by evaluation: for linear curves the adjacent segment slopes, for
   step curves 0, for catmull_rom_uniform the tangent divided by each side's
   own segment duration. Either output may be NULL. */
AC_API void ac_curve_key_velocities(const ac_curve *curve, double *in_velocities,
                                    double *out_velocities);
/* The curve's own key velocities (K x C), those ac_curve_key_velocities
   copies, where it stores them: a curve with cubic, Bezier or eased
   segments (the same array for both sides where they are equal by
   construction, as for one velocity per key given). NULL for step and
   linear curves, whose velocities follow from their keys. Read-only, alive
   as long as the curve. */
AC_API const double *ac_curve_in_velocities(const ac_curve *curve);
AC_API const double *ac_curve_out_velocities(const ac_curve *curve);

/* Value (derivative 0), per-second velocity (1) or acceleration (2) of the
   curve at n times t, written to out (n x C). Any order of t: a
   non-decreasing array is swept forward segment by segment (O(n + K));
   otherwise queries follow a forward cursor until one steps back, then use
   a binary search. Every path gives identical results. Errors: AC_ERR_VALUE
   "t" for a non-finite time or one outside the keys with AC_EXTRAP_ERROR,
   "derivative" outside 0..2; AC_ERR_OVERFLOW "value" / "velocity" /
   "acceleration" (index: the query) when a result is not representable. */
AC_API ac_status ac_curve_eval(const ac_curve *curve, const double *t, size_t n, int derivative,
                               double *out, ac_error *err);

/* The same for a playback sweep: *cursor carries the segment from one call
   to the next, so calling it with consecutive blocks of a sorted sequence
   costs O(n + K) in total. Correct (only slower) for any order. */
AC_API ac_status ac_curve_eval_sorted(const ac_curve *curve, ac_curve_cursor *cursor,
                                      const double *t, size_t n, int derivative, double *out,
                                      ac_error *err);

/* ac_curve_eval_sorted on a chosen side of keys, jumps and cycle seams
   (ac_curve_eval_sorted is AC_SIDE_RIGHT). In a mirrored ("oscillate") cycle
   the side is taken in clip time, so the rule is the same in every cycle. */
AC_API ac_status ac_curve_eval_side(const ac_curve *curve, ac_curve_cursor *cursor,
                                    const double *t, size_t n, int derivative, int side,
                                    double *out, ac_error *err);

/* Values at n times whose segments the caller has located, as a sampler
   that locates each time once for all the tracks that share their key
   times does (ac_pose_sample): segments[i] is the last key at or before
   t[i], which lies inside the keys, first <= t[i] < last. The values of
   time i (C of them) go to out + i * stride: ac_curve_eval's, to the bit.
   Errors: AC_ERR_VALUE "segments" (index: the time) for a segment that is
   not its time's, before anything is written; AC_ERR_OVERFLOW "value" as
   ac_curve_eval. */
AC_API ac_status ac_curve_eval_located(const ac_curve *curve, const double *t,
                                       const size_t *segments, size_t n, double *out,
                                       size_t stride, ac_error *err);


/* ac_curve_eval_side through time remaps, as a clip plays a curve:
   `remaps` (nremap of them, outermost first) each map clip time t in [first
   key, last key] to first + ease(u) (last - first), u = (t - first) / (last -
   first), and leave other times as they are; then `segment_ease` (NULL for
   none) remaps time inside every segment, t_j + ease(u) (t_j+1 - t_j),
   repeating with the keys in cycling extrapolation (mirrored in the mirrored
   cycles of oscillate). Easings are read with AC_CURVE_EASE_RELATIVE
   parameters on the unit square; the kind may be AC_CURVE_EASE_CUBIC_BEZIER.
   Derivatives follow the chain rule, up to the second. */
AC_API ac_status ac_curve_eval_remapped(const ac_curve *curve, ac_curve_cursor *cursor,
                                        const double *t, size_t n, int derivative, int side,
                                        const ac_curve_ease *remaps, size_t nremap,
                                        const ac_curve_ease *segment_ease, double *out,
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
AC_API const char *ac_ease_name(ac_ease_kind kind);

/* 1 when the kind never decreases (so it has an inverse): every kind except
   back, elastic and bounce. */
AC_API bool ac_ease_monotone(ac_ease_kind kind);

/* s = ease(u) (ac_ease_eval) or ds/du (ac_ease_rate) for n values of u in
   [0, 1]. Errors: AC_ERR_VALUE for a kind out of range or u non-finite or
   outside [0, 1] (the first such element). */
AC_API ac_status ac_ease_eval(ac_ease_kind kind, const double *u, double *s, size_t n,
                              ac_error *err);
AC_API ac_status ac_ease_rate(ac_ease_kind kind, const double *u, double *dsdu, size_t n,
                              ac_error *err);

/* The normalized time u in [0, 1] at which a monotone kind reaches s in
   [0, 1]: closed forms where they exist, else a safeguarded Newton/bisection
   to 1e-12. Where the kind is flat or jumps (expo at its ends) the earliest
   such time is returned. AC_ERR_VALUE for a non-monotone kind (arg "kind") or
   s outside [0, 1]. */
AC_API ac_status ac_ease_inverse(ac_ease_kind kind, const double *s, double *u, size_t n,
                                 ac_error *err);

/* The CSS cubic-bezier(x1, y1, x2, y2) timing function: the Bezier curve from
   (0, 0) to (1, 1) with control points (x1, y1), (x2, y2); x1, x2 in [0, 1]
   (so x is monotone), y free. ac_ease_bezier_init validates. */
typedef struct ac_ease_bezier {
    double x1, y1, x2, y2;
} ac_ease_bezier;

AC_API ac_status ac_ease_bezier_init(ac_ease_bezier *curve, double x1, double y1, double x2,
                                     double y2, ac_error *err);

/* s at n values of u in [0, 1], and ds/du when dsdu is not NULL (s may be u
   itself). The curve parameter is solved to |x(t) - u| <= 1e-13 by the
   solve a curve's Bezier segments use (a table guess, one Halley step, a
   bracketed Newton fallback), so the values are those of the segment.
   ds/du is +-inf where x has a zero slope and y does not. */
AC_API ac_status ac_ease_bezier_eval(const ac_ease_bezier *curve, const double *u, double *s,
                                     double *dsdu, size_t n, ac_error *err);

/* The CSS steps(count, position) timing function. */
typedef enum ac_ease_jump {
    AC_EASE_JUMP_START, AC_EASE_JUMP_END, AC_EASE_JUMP_NONE, AC_EASE_JUMP_BOTH
} ac_ease_jump;

/* s at n values of u in [0, 1] (the rate is 0 between the jumps). count >= 1,
   and >= 2 for AC_EASE_JUMP_NONE; a bad count is reported with arg "count". */
AC_API ac_status ac_ease_steps_eval(long count, ac_ease_jump position, const double *u, double *s,
                                    size_t n, ac_error *err);


/* ----------------------------------------------------------- quaternions */

/* Batch quaternion kernels. A quaternion is 4 doubles (x, y, z, w), a vector
   3 doubles; n items, and steps[k] is 1 when input k holds n items and 0
   when it holds one item shared by all (NULL: all hold n). Inputs must be
   finite; where a quaternion stands for a rotation (normalize, rotate, slerp,
   nlerp) it is normalized first and a zero length is an AC_ERR_VALUE with arg
   "|q|" (or "|q0|", "|q1|"). Outputs may not alias inputs. */

/* out = a * b (Hamilton product: b is applied first, then a). */
AC_API ac_status ac_quat_batch_multiply(const double *a, const double *b, const size_t steps[2],
                                        double *out, size_t n, ac_error *err);
/* out = (-x, -y, -z, w). */
AC_API ac_status ac_quat_batch_conjugate(const double *q, double *out, size_t n, ac_error *err);
/* out = q / |q|, computed without overflow or underflow for any finite q. */
AC_API ac_status ac_quat_batch_normalize(const double *q, double *out, size_t n, ac_error *err);
/* The rotation by `angle` radians about `axis` (normalized; non-zero). */
AC_API ac_status ac_quat_batch_from_axis_angle(const double *axis, const double *angle,
                                               const size_t steps[2], double *out, size_t n,
                                               ac_error *err);
/* out = v rotated by the rotation q / |q|. */
AC_API ac_status ac_quat_batch_rotate(const double *q, const double *v, const size_t steps[2],
                                      double *out, size_t n, ac_error *err);
/* Shortest-arc spherical (slerp) and normalized linear (nlerp) interpolation
   from q0 (t = 0) to q1 (t = 1), t in [0, 1]; q1 is negated when q0 . q1 < 0.
   Results are unit quaternions. */
AC_API ac_status ac_quat_batch_slerp(const double *q0, const double *q1, const double *t,
                                     const size_t steps[3], double *out, size_t n, ac_error *err);
AC_API ac_status ac_quat_batch_nlerp(const double *q0, const double *q1, const double *t,
                                     const size_t steps[3], double *out, size_t n, ac_error *err);

/* A rotation track with glTF animation semantics (glTF 2.0, Appendix C), on
   the same key track as ac_curve: the same interpolation, extrapolation and
   side enums, cursor and side rule. Interpolation: AC_CURVE_STEP (the key at
   or before t), AC_CURVE_LINEAR (shortest-arc slerp between neighbouring
   keys) or AC_CURVE_CUBIC (per-component Hermite with per-second tangents
   times the key interval, then normalized). Extrapolation: AC_EXTRAP_CLAMP
   (hold the end key, angular velocity 0), AC_EXTRAP_LINEAR (turn on at the
   end key's angular velocity on its inner side: exp(omega dt / 2) q_end),
   AC_EXTRAP_CYCLE, AC_EXTRAP_OSCILLATE or AC_EXTRAP_ERROR; the other modes
   do not apply to rotations. */
typedef struct ac_quat_curve ac_quat_curve;

/* Validates and copies k >= 1 keys: strictly increasing finite `times`
   (seconds), finite non-zero `quats` (4k, normalized here) and, for
   AC_CURVE_CUBIC, finite per-second `in_tangents` and `out_tangents` (4k each;
   ignored otherwise, may be NULL). Errors name "times", "quaternions",
   "|quaternions|", "in_tangents", "out_tangents", with the key index, and
   "interpolation", "before", "after" for a value that does not apply;
   AC_ERR_NOMEM when allocation fails. *curve is set on success only.
   Results are sign-continuous along the curve: for step and linear, each
   key after the first is stored negated when it lies in the opposite
   hemisphere of the key before (q and -q are the same rotation), so no
   output jumps from q to -q, at a key included; cubic keys are splined as
   given (glTF). With AC_EXTRAP_CYCLE, when the last key and the first lie in
   opposite hemispheres, every other cycle is negated, so the seams are
   sign-continuous too. */
AC_API ac_status ac_quat_curve_create(const double *times, const double *quats,
                                      const double *in_tangents, const double *out_tangents,
                                      size_t k, ac_curve_interpolation interp,
                                      ac_curve_extrapolation before,
                                      ac_curve_extrapolation after, ac_quat_curve **curve,
                                      const ac_allocator *allocator, ac_error *err);
/* ac_quat_curve_create reading `times` and `quats` where they are instead of
   copying them (an engine's key data, a file reader's arrays): the caller
   keeps both alive and unchanged until ac_quat_curve_destroy. */
AC_API ac_status ac_quat_curve_borrow(const double *times, const double *quats,
                                      const double *in_tangents, const double *out_tangents,
                                      size_t k, ac_curve_interpolation interp,
                                      ac_curve_extrapolation before,
                                      ac_curve_extrapolation after, ac_quat_curve **curve,
                                      const ac_allocator *allocator, ac_error *err);
/* Every check ac_quat_curve_create makes, with its errors, and nothing
   built: for a caller that builds the curve later (a file reader that leaves
   a linear curve's slerp precomputation to its first sample), whose
   ac_quat_curve_create of the same arguments can then fail only for memory. */
AC_API ac_status ac_quat_curve_validate(const double *times, const double *quats,
                                        const double *in_tangents,
                                        const double *out_tangents, size_t k,
                                        ac_curve_interpolation interp,
                                        ac_curve_extrapolation before,
                                        ac_curve_extrapolation after, ac_error *err);
AC_API void ac_quat_curve_destroy(ac_quat_curve *curve);
/* The number of keys, the key times (K) and the keys as given (4K, not
   normalized): the curve's own copies, or the borrowed arrays; read-only,
   alive as long as the curve. */
AC_API size_t ac_quat_curve_keys(const ac_quat_curve *curve);
AC_API const double *ac_quat_curve_times(const ac_quat_curve *curve);
AC_API const double *ac_quat_curve_quats(const ac_quat_curve *curve);

/* Unit quaternions q (4n, may be NULL) and angular velocities omega (3n, rad/s,
   may be NULL) at n times t (seconds), on `side` (ac_curve_side) of keys and
   cycle seams as ac_curve_eval_side: at the last key the right side is the
   extrapolation (held: angular velocity 0; cycling: the next cycle's start),
   at the first key the left side is, and in a mirrored cycle the side is
   taken in clip time. omega = 2 dq/dt q* is the rotation rate in the frame q
   rotates into (the parent frame for glTF nodes); it is exact for every
   interpolation (0 for step and where held). `cursor` (may be NULL; start
   with {0}) carries the segment from call to call: sorted queries then cost
   O(n + k). Errors: "side" not 0 or 1, non-finite t, t outside the keys with
   AC_EXTRAP_ERROR, a cubic spline passing through the zero quaternion. */
AC_API ac_status ac_quat_curve_eval(const ac_quat_curve *curve, ac_curve_cursor *cursor,
                                    const double *t, size_t n, int side, double *q,
                                    double *omega, ac_error *err);

/* Unit quaternions at n times whose segments the caller has located, as
   ac_curve_eval_located: segments[i] the last key at or before t[i], first
   <= t[i] < last; quaternion i goes to q + i * stride, ac_quat_curve_eval's
   on the right side, to the bit. Errors: AC_ERR_VALUE "segments" (index:
   the time) before anything is written; a cubic spline passing through the
   zero quaternion, as ac_quat_curve_eval. */
AC_API ac_status ac_quat_curve_eval_located(const ac_quat_curve *curve, const double *t,
                                            const size_t *segments, size_t n, double *q,
                                            size_t stride, ac_error *err);


/* Conversions. Matrices are 3x3 row-major acting on column vectors
   (v' = M v); rotation vectors are axis * angle (radians). Euler angles
   follow scipy.spatial.transform.Rotation: `axes` names the sequence's three
   axes (0 x, 1 y, 2 z; consecutive ones different), turning about the fixed
   frame's axes when `extrinsic` is nonzero (scipy's "xyz") and about the
   rotating frame's otherwise ("XYZ"); angles come back in [-pi, pi] with the
   middle one in [0, pi] (proper sequences such as zxz) or [-pi/2, pi/2], and
   at the gimbal lock (middle angle within 1e-7 of its limits) the third angle
   is 0. Quaternion inputs are normalized first (zero: AC_ERR_VALUE "|q|");
   from_matrix needs columns of length 1 within 5e-4 ("matrix", the farthest
   column's length: a scaled matrix is no rotation) and det(matrix) > 0
   ("det(matrix)"), otherwise it takes the matrix as given (Shepperd's method) and
   returns a unit quaternion; from_rotvec fails with AC_ERR_OVERFLOW "rotvec"
   where the angle |rotvec| is beyond the double range. */
AC_API ac_status ac_quat_batch_to_matrix(const double *q, double *matrix, size_t n, ac_error *err);
AC_API ac_status ac_quat_batch_from_matrix(const double *matrix, double *q, size_t n,
                                    ac_error *err);
AC_API ac_status ac_quat_batch_to_euler(const double *q, const int axes[3], int extrinsic,
                                 double *angles, size_t n, ac_error *err);
AC_API ac_status ac_quat_batch_from_euler(const double *angles, const int axes[3], int extrinsic,
                                   double *q, size_t n, ac_error *err);
/* to_rotvec returns the shorter turn (angle in [0, pi]). */
AC_API ac_status ac_quat_batch_to_rotvec(const double *q, double *rotvec, size_t n, ac_error *err);
AC_API ac_status ac_quat_batch_from_rotvec(const double *rotvec, double *q, size_t n,
                                    ac_error *err);

/* -------------------------------------------------------------- skeleton */

/* A joint hierarchy: parents[j] is the parent of joint j or -1 for a root, in
   any order. Create validates it (every parent -1 or a joint index, no
   cycles: each tree has one root) and keeps an evaluation order in which
   every joint follows its parent. Matrices are 4x4 row-major affine
   transforms acting on column vectors, world = parent world * local. */
typedef struct ac_skeleton ac_skeleton;

/* Errors: AC_ERR_VALUE "parents" with the joint index (out of range, or a
   joint on a cycle); AC_ERR_NOMEM. No joints (parents may then be NULL) is
   an empty skeleton. *skeleton is set on success only. Memory,
   the work space of the ordering included, comes from `allocator` (NULL:
   malloc). */
AC_API ac_status ac_skeleton_create(const int64_t *parents, size_t joints, ac_skeleton **skeleton,
                                    const ac_allocator *allocator, ac_error *err);
AC_API void ac_skeleton_destroy(ac_skeleton *skeleton);
AC_API size_t ac_skeleton_joints(const ac_skeleton *skeleton);
/* The evaluation order (joints entries): every joint after its parent. */
AC_API void ac_skeleton_order(const ac_skeleton *skeleton, int64_t *order);

/* World matrices (16 J per pose) of n poses of J joints from local
   translation (3 J per pose), rotation (4 J, normalized here) and scale
   (3 J); steps[k] is 1 when input k holds n poses and 0 when one pose is
   shared. Errors (index = pose * J + joint): AC_ERR_VALUE "translation",
   "rotation", "scale" (non-finite), "|rotation|" (zero quaternion);
   AC_ERR_OVERFLOW "world". */
AC_API ac_status ac_skeleton_world(const ac_skeleton *skeleton, const double *translation,
                            const double *rotation, const double *scale,
                            const size_t steps[3], double *world, size_t n, ac_error *err);
/* Local matrices from world matrices (16 J per pose, n poses): the inverse of
   ac_skeleton_world. Errors: "world" non-finite or a parent's 3x3 part
   singular (index: that parent), AC_ERR_OVERFLOW "local". */
AC_API ac_status ac_skeleton_local(const ac_skeleton *skeleton, const double *world, double *local,
                            size_t n, ac_error *err);
/* Translation (3n), unit rotation (4n) and scale (3n) of n affine matrices
   M = T R S: scales are the column lengths (x negative for a mirror).
   Errors: "matrix" non-finite, not affine, a zero column, or sheared
   (columns not orthogonal within a cosine of 2^-16, so that matrices
   rounded to float32, and world transforms composed from them along a
   chain, decompose). */
AC_API ac_status ac_skeleton_decompose(const double *matrices, double *translation,
                                double *rotation, double *scale, size_t n, ac_error *err);
/* Products a b of n pairs of 4x4 row-major matrices (skinning matrices:
   world * inverse bind); steps[k] is 1 when input k holds n matrices and 0
   when one is shared. Each element is its four products summed in order
   k = 0..3, each rounded (no fused multiply-add), so a plain re-derivation
   gives the same bits on any machine. out may be a or b (each pair is read
   before its product is written). Errors (index: the pair): AC_ERR_VALUE "a",
   "b" (non-finite), AC_ERR_OVERFLOW "product"; the products before it are
   written. */
AC_API ac_status ac_skeleton_multiply(const double *a, const double *b, const size_t steps[2],
                                      double *out, size_t n, ac_error *err);
/* Skinning matrices of n poses: each joint's world matrix (as
   ac_skeleton_world makes it) times its matrix of `bind` (16 J per pose:
   inverse bind matrices), each product as ac_skeleton_multiply's, so the
   bits are those of the two calls; each product is made as its world
   matrix is, with no pass over the world matrices of its own. steps[0..2]
   as ac_skeleton_world's, steps[3] for bind (0: one set for every pose).
   Errors (index = pose * J + joint): ac_skeleton_world's; AC_ERR_VALUE
   "bind" (non-finite), AC_ERR_OVERFLOW "product". */
AC_API ac_status ac_skeleton_skin(const ac_skeleton *skeleton, const double *translation,
                                  const double *rotation, const double *scale,
                                  const double *bind, const size_t steps[4], double *out,
                                  size_t n, ac_error *err);

/* ----------------------------------------------------------------- poses */

/* One track of a clip for ac_pose_sample: a curve of at most
   AC_POSE_MAX_CHANNELS scalar channels (a translation, a scale) or a
   rotation curve, exactly one of the two, and where its values go: `out`
   receives the values at the first time and each next time's lie `stride`
   doubles further on (a node's row in an array of poses). */
#define AC_POSE_MAX_CHANNELS 16
typedef struct ac_pose_track {
    const ac_curve *curve;
    const ac_quat_curve *rotation;
    double *out;
    size_t stride;
} ac_pose_track;

/* Every track of a clip at n times t (seconds) in one call, as
   ozz-animation's sampling job samples all of an animation's tracks: each
   value is the one the track's own evaluation gives (ac_curve_eval,
   ac_quat_curve_eval on the right side), to the bit. Sorted times are taken
   in blocks, and tracks that share their key times (the same values, not
   necessarily the same array) locate each time once; any order of t is
   correct. Reentrant: all its state is on the stack. Errors: AC_ERR_VALUE
   "tracks" (index: the track) for a track with neither or both curves, a
   NULL out, or more than AC_POSE_MAX_CHANNELS channels, before anything is
   written; then the first failure of a track's own evaluation (a time
   outside the keys with AC_EXTRAP_ERROR, an overflow), with index = track *
   n + time, the values of other tracks and times then unspecified. */
AC_API ac_status ac_pose_sample(const ac_pose_track *tracks, size_t count, const double *t,
                                size_t n, ac_error *err);

/* ----------------------------------------------------------- root motion */

/* A looping root track. Key times run from 0 to the clip
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
   are normalized, as everywhere a quaternion stands for a rotation; a length
   outside [1e-150, 1e150] (zero) is an AC_ERR_VALUE. max_cycles in
   (0, 2^50] bounds |t / T| for every time given later. *track is NULL on
   failure; AC_ERR_NOMEM when memory runs out. */
AC_API ac_status ac_rootmotion_create(ac_looptrack **track, const double *times,
                                      const double *positions, size_t k, size_t channels,
                                      ac_curve_interpolation interpolation,
                                      ac_root_rotation rotation, const double *rotations,
                                      int up_axis, double max_cycles,
                                      const ac_allocator *allocator, ac_error *err);
AC_API void ac_rootmotion_destroy(ac_looptrack *track);

AC_API double ac_rootmotion_duration(const ac_looptrack *track);
AC_API size_t ac_rootmotion_channels(const ac_looptrack *track);
AC_API ac_root_rotation ac_rootmotion_rotation(const ac_looptrack *track);

/* cycle[i] = floor(t[i] / T) and phase[i] = t[i] / T - cycle[i] in [0, 1).
   AC_ERR_VALUE for non-finite t or |t / T| > max_cycles ("t"). */
AC_API ac_status ac_rootmotion_split(const ac_looptrack *track, const double *t, double *cycle,
                                     double *phase, size_t n, ac_error *err);

/* The root pose at phase[i] in [0, 1]: position (n * channels) and, for a
   turning track, rotation (n yaw angles or 4n quaternion components; may be
   NULL). AC_ERR_VALUE for a phase outside [0, 1] or non-finite ("phase"). */
AC_API ac_status ac_rootmotion_sample(const ac_looptrack *track, const double *phase,
                                      double *position, double *rotation, size_t n,
                                      ac_error *err);

/* The motion from t0[i] to t1[i] (steps[0], steps[1] broadcast them, NULL
   for arrays of n): translation (n * channels) and, for a turning track,
   rotation (n yaw angles wrapped to (-pi, pi], or 4n quaternion components
   with w >= 0). Cycles enter as one multiplication (translation only), a
   closed form (yaw) or an O(log k) power (quaternions). AC_ERR_VALUE for
   non-finite times or |t / T| > max_cycles ("t0" / "t1"). */
AC_API ac_status ac_rootmotion_delta(const ac_looptrack *track, const double *t0, const double *t1,
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
AC_API ac_status ac_rootmotion_advance(const ac_looptrack *track, const int64_t *cycle,
                                       const double *phase, const double *value,
                                       const size_t steps[3], bool absolute, int64_t *new_cycle,
                                       double *new_phase, double *translation, double *rotation,
                                       size_t n, ac_error *err);


/* --------------------------------------------------------------- contact */

/* Velocity response of point masses to contacts with kinematic surfaces
   (moving walls, platforms) of infinite mass. Vectors have
   `dim` = 2 or 3 components stored contiguously; vector inputs step by whole
   vectors. With relative velocity w = v - u (u: the surface's velocity at the
   contact point) and s = w . n (n: unit normal pointing from the surface to
   the body), a contact with s >= 0 (separating or sliding) keeps v; otherwise

       v' = v - (1 + e') s n - f wt,   e' = e if -s > threshold, else 0,

   where wt = w - s n is the tangential relative velocity and f in [0, 1]
   removes at most friction * (1 + e') * |s| of its length (Coulomb friction;
   f = 1 stops it, it is never reversed). friction = 0 and threshold = 0 give
   the frictionless restitution law exactly. */

/* n contacts. Inputs in order: velocity, surface_velocity, normal (vectors),
   restitution, friction, threshold (scalars), with steps[0..5]. Errors:
   AC_ERR_VALUE for non-finite input, |n . n - 1| > 1e-12, restitution outside
   [0, 1], friction < 0 or threshold < 0; AC_ERR_OVERFLOW when w, s or the
   result is not representable. `result` must not overlap the inputs; on
   failure it holds unspecified values. */
AC_API ac_status ac_contact_bounce(const double *velocity, const double *surface_velocity,
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
AC_API ac_status ac_contact_point_velocity(const double *linear_velocity,
                                           const double *angular_velocity, const double *offset,
                                           const size_t steps[3], size_t dim, double *result,
                                           size_t n, ac_error *err);

/* One rigid body per contact for ac_contact_collide. Inputs step by whole
   items (steps[0..4] for velocity, angular_velocity, inverse_mass,
   inverse_inertia, center: 0 repeats one item, 1 gives one per contact).
   velocity and center have dim values, angular_velocity 1 in 2-D (about the
   axis out of the plane, counter-clockwise) and 3 in 3-D. inverse_inertia is
   one value (a disc, a sphere: 1 / I) or, in 3-D with inertia_tensor set, a
   row-major 3x3 world-space inverse inertia tensor. A kinematic or static
   body has inverse_mass 0 and inverse_inertia 0. */
typedef struct ac_body {
    const double *velocity, *angular_velocity, *inverse_mass, *inverse_inertia, *center;
    size_t steps[5];
    int inertia_tensor;
} ac_body;

/* A body's new velocities: n items each, contiguous. */
typedef struct ac_body_update {
    double *velocity, *angular_velocity;
} ac_body_update;

/* Contact between two rigid bodies that both may move. The normal n (unit)
   points from b to a; the contact point p gives the arms r = p - center.
   With w the velocity of a's material point at p minus b's and s = w . n, a
   contact with s >= 0 is left alone (zero impulse). Otherwise the impulse j
   on a (b receives -j) changes w by K j, K the effective mass of the pair:
   - j* solving K j* = -(1 + e') s n - w_t (restitution e' on the normal
     speed at the contact point, e' = e if -s > threshold, else 0, and the
     tangential slip w_t stopped) is used when |j*_t| <= friction * j*_n;
   - otherwise the contact slips: j = j_n (n + friction * d) with d the unit
     tangent exactly opposite the slip that remains after j (so friction
     never reverses the slip), and j_n such that the normal speed after is
     -e' s.
   Then v_a += inverse_mass_a j, w_a += I_a^-1 (r_a x j), v_b -= inverse_mass_b j,
   w_b -= I_b^-1 (r_b x j). A point mass (inverse_mass > 0, inverse inertia 0)
   against a kinematic body (both 0) gets exactly ac_contact_bounce's result
   for b's contact-point velocity. When neither body can translate (both
   inverse masses 0) the contact is frictionless.
   normal_impulse[i] = j . n, tangent_impulse (dim per contact) = j - (j . n) n.
   Contact inputs in order: normal, point (vectors), restitution, friction,
   threshold, with steps[0..4] (NULL: all 1). Errors: AC_ERR_VALUE for
   non-finite input, negative inverse mass or inverse inertia, an inverse
   inertia tensor that is not symmetric positive semi-definite, or the
   bounce conditions (unit normal, restitution in [0, 1], friction and
   threshold >= 0), err->arg naming it ("a.inverse_mass", "normal"...);
   AC_ERR_OVERFLOW when a result is not representable. On failure the outputs
   hold unspecified values. */
AC_API ac_status ac_contact_collide(const ac_body *a, const ac_body *b, const double *normal,
                                    const double *point, const double *restitution,
                                    const double *friction, const double *threshold,
                                    const size_t steps[5], size_t dim, ac_body_update *new_a,
                                    ac_body_update *new_b, double *normal_impulse,
                                    double *tangent_impulse, size_t n, ac_error *err);

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
    int max_bounces; /* in [0, AC_CONTACT_MAX_BOUNCES] */
} ac_projectile_params;

/* The largest max_bounces ac_contact_advance accepts: a step's work is at
   most spheres x planes x (max_bounces + 1), so this bounds the time a call
   can take (a sphere wedged between closing planes uses every bounce). */
#define AC_CONTACT_MAX_BOUNCES 4096

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
   max_bounces outside [0, AC_CONTACT_MAX_BOUNCES] (err->arg names the argument; for plane arguments index is
   the plane, for restitution and friction i * count + j, otherwise the
   sphere); AC_ERR_OVERFLOW when a position, distance or velocity is not
   representable; AC_ERR_NOMEM when its scratch (about 16 KB plus 1 KB per
   plane) cannot be allocated; planes->dim must be 2 or 3. On failure position and velocity hold unspecified values: callers
   wanting them intact pass copies. */
AC_API ac_status ac_contact_advance(double *position, double *velocity, const ac_planes *planes,
                                    const ac_projectile_params *params, int *bounces, size_t n,
                                    ac_error *err);

/* Optional spin for ac_contact_advance_spin: per sphere an angular velocity
   (1 value in 2-D, 3 in 3-D; updated in place) and an inverse moment of
   inertia per unit inverse mass, m / I in 1/m^2 (2.5 / radius^2 for a solid
   sphere, 2 / radius^2 for a disc), inverse_inertia[i * inverse_inertia_step]. */
typedef struct ac_projectile_spin {
    double *angular_velocity;
    const double *inverse_inertia;
    size_t inverse_inertia_step;
} ac_projectile_spin;

/* Optional record of the contacts: `capacity` slots per sphere, slot k of
   sphere i at i * capacity + k holding its k-th resolved contact in time
   order: the plane's index, the time into the step and the impulse the plane
   gave per unit mass (normal part, and dim values of tangential part). Slots
   past the contacts hold plane -1 and zeros. */
typedef struct ac_projectile_events {
    int *plane;
    double *time, *normal_impulse, *tangent_impulse;
    size_t capacity;
} ac_projectile_events;

/* ac_contact_advance with spinning spheres and recorded contacts (either may
   be NULL). Each contact is then resolved with ac_contact_collide's law: the
   sphere of unit inverse mass and its inverse inertia, hit at the arm
   -radius * normal, against the plane as a kinematic body; friction then
   sets the sphere spinning (a ball lands and rolls). Without spin the
   velocities are those of ac_contact_advance. Errors as ac_contact_advance,
   and AC_ERR_VALUE for a non-finite angular velocity or an inverse inertia
   that is not finite and >= 0 (index: the sphere). */
AC_API ac_status ac_contact_advance_spin(double *position, double *velocity,
                                         const ac_planes *planes, const ac_projectile_params *params,
                                         const ac_projectile_spin *spin,
                                         const ac_projectile_events *events, int *bounces, size_t n,
                                         ac_error *err);

/* -------------------------------------------------------------- snapshot */

/* Network snapshot interpolation across teleports. A producer
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
   side), and each entity's four newest snapshots (ticks, positions,
   rotations) are also kept together, next to those of the other entities, so
   sampling all entities at a render tick within them reads the memory in
   order however each entity's ring wraps (at a cost of 4 * dim doubles per
   entity, 4 * (dim + 4) with rotations); render ticks more than three snapshots behind the newest take
   a binary search of the rows.
   Objects are not synchronized: samples may run concurrently with each
   other, a push or flush must not run concurrently with anything else on
   the same object. */
typedef struct ac_snapshot_buffer ac_snapshot_buffer;

/* entities >= 0, dim in [1, 1024], capacity in [1, 2^24], max_extrapolation
   finite and >= 0 (ticks). *buffer is NULL on failure. */
AC_API ac_status ac_snapshot_buffer_create(ac_snapshot_buffer **buffer, size_t entities,
                                           size_t dim, size_t capacity, bool rotations,
                                           double max_extrapolation,
                                           const ac_allocator *allocator, ac_error *err);
AC_API void ac_snapshot_buffer_destroy(ac_snapshot_buffer *buffer);

/* Applies n pushes in order (the same entity twice in one call: the second
   sees the first). entity[i] in [0, entities), tick[i] in [0, 2^32 - 1],
   segment[i] any value (negative is INVALID), position n x dim, rotation n x 4
   (NULL when the buffer has no rotations; required otherwise), generation n
   values or NULL for all 0. result[i] receives an ac_snapshot_push_result.
   Arguments are checked before anything is applied: on AC_ERR_VALUE nothing
   has changed and `result` is unspecified. */
AC_API ac_status ac_snapshot_buffer_push(ac_snapshot_buffer *buffer, const int64_t *entity,
                                         const int64_t *tick, const int64_t *segment,
                                         const double *position, const double *rotation,
                                         const int64_t *generation, size_t n,
                                         unsigned char *result, ac_error *err);


/* Samples every entity at one finite render tick: position entities x dim,
   rotation entities x 4 (may be NULL), mode (ac_snapshot_mode), left_tick and
   right_tick. A non-finite render tick is AC_ERR_VALUE before anything is
   written. */
AC_API ac_status ac_snapshot_buffer_sample(const ac_snapshot_buffer *buffer, double render_tick,
                                           double *position, double *rotation,
                                           unsigned char *mode, int64_t *left_tick,
                                           int64_t *right_tick, ac_error *err);

/* The same for the n entities entity[0..n) (any order, repeats allowed): row
   i of the outputs is entity[i]'s sample. A non-finite render tick, then an
   entity outside [0, entities) (index i), is AC_ERR_VALUE before anything is
   written. With position NULL the call only makes these checks. */
AC_API ac_status ac_snapshot_buffer_sample_entities(const ac_snapshot_buffer *buffer,
                                                    double render_tick, const int64_t *entity,
                                                    size_t n, double *position,
                                                    double *rotation, unsigned char *mode,
                                                    int64_t *left_tick, int64_t *right_tick,
                                                    ac_error *err);

/* Shape and contents: retained snapshots of one entity, oldest first (any of
   the output pointers may be NULL); returns the count written. */
AC_API size_t ac_snapshot_buffer_entities(const ac_snapshot_buffer *buffer);
AC_API size_t ac_snapshot_buffer_dim(const ac_snapshot_buffer *buffer);
AC_API bool ac_snapshot_buffer_rotations(const ac_snapshot_buffer *buffer);
AC_API size_t ac_snapshot_buffer_count(const ac_snapshot_buffer *buffer, size_t entity);
AC_API int64_t ac_snapshot_buffer_generation(const ac_snapshot_buffer *buffer, size_t entity);
AC_API size_t ac_snapshot_buffer_read(const ac_snapshot_buffer *buffer, size_t entity,
                                      int64_t *tick, int64_t *segment, double *position,
                                      double *rotation);

/* One entity's timeline with an optional reorder window W (ticks). With W = 0
   pushes go straight into the timeline (arrival order is tick order). With W > 0
   pushes wait in a receive buffer (at most W + 1 snapshots) and are released
   into the timeline in tick order once the newest received tick is W ahead of
   them, or on flush; a push whose tick is not after the newest released one,
   or repeats a waiting tick, is OUT_OF_ORDER; one whose segment is lower than
   that of a snapshot before it in tick order (or higher than one after it) is
   INVALID. Sampling sees released snapshots only. */
typedef struct ac_snapshot_timeline ac_snapshot_timeline;

/* dim, capacity, max_extrapolation as for the buffer; reorder_window in
   [0, 65536]. */
AC_API ac_status ac_snapshot_timeline_create(ac_snapshot_timeline **timeline, size_t dim,
                                             size_t capacity, bool rotations,
                                             double max_extrapolation, size_t reorder_window,
                                             const ac_allocator *allocator, ac_error *err);
AC_API void ac_snapshot_timeline_destroy(ac_snapshot_timeline *timeline);

/* n pushes in order; arguments as for the buffer without entity/generation. */
AC_API ac_status ac_snapshot_timeline_push(ac_snapshot_timeline *timeline, const int64_t *tick,
                                           const int64_t *segment, const double *position,
                                           const double *rotation, size_t n,
                                           unsigned char *result, ac_error *err);


/* Releases every waiting snapshot into the timeline; returns how many. */
AC_API size_t ac_snapshot_timeline_flush(ac_snapshot_timeline *timeline);

/* n render ticks (all finite, checked first) -> n samples; with position
   NULL, only the check. */
AC_API ac_status ac_snapshot_timeline_sample(const ac_snapshot_timeline *timeline,
                                             const double *render_tick, size_t n,
                                             double *position, double *rotation,
                                             unsigned char *mode, int64_t *left_tick,
                                             int64_t *right_tick, ac_error *err);

/* Snapshots waiting in the receive buffer, and the released timeline (a
   one-entity buffer, readable with the functions above). */
AC_API size_t ac_snapshot_timeline_pending(const ac_snapshot_timeline *timeline);
AC_API const ac_snapshot_buffer *ac_snapshot_timeline_buffer(const ac_snapshot_timeline *timeline);

/* Exact state, to save and restore a buffer or timeline mid-stream (another
   process, a save game). state_get writes state_size bytes: the config and
   the retained (and waiting) snapshots, as 8-byte words in this machine's
   byte order. state_set replaces the content of an object created with the
   same config from such bytes; it checks the size, the config and every
   snapshot against the push rules first (AC_ERR_VALUE for arg "state",
   indexed by entity or waiting snapshot) and changes nothing on failure. An
   object restored from a state pushes and samples exactly as the original. */
AC_API size_t ac_snapshot_buffer_state_size(const ac_snapshot_buffer *buffer);
AC_API void ac_snapshot_buffer_state_get(const ac_snapshot_buffer *buffer, void *state);
AC_API ac_status ac_snapshot_buffer_state_set(ac_snapshot_buffer *buffer, const void *state,
                                       size_t size, ac_error *err);
AC_API size_t ac_snapshot_timeline_state_size(const ac_snapshot_timeline *timeline);
AC_API void ac_snapshot_timeline_state_get(const ac_snapshot_timeline *timeline, void *state);
AC_API ac_status ac_snapshot_timeline_state_set(ac_snapshot_timeline *timeline, const void *state,
                                         size_t size, ac_error *err);

/* -------------------------------------------------------------- tangents
   The tools' automatic handle rules, computed from the keys alone, so that an
   engine gets exactly the handles Blender and OpenUSD show for the same keys.
   The results feed an ac_curve: a handle at (time, value) offset (dt, dv)
   from its key is the velocity dv / dt with the weight dt / (the
   neighbouring segment's duration). */

/* Blender's keyframe handle types (bpy's handle_left_type / handle_right_type). */
typedef enum ac_handle_type {
    AC_HANDLE_FREE = 0,        /* the given handle, kept */
    AC_HANDLE_ALIGNED = 1,     /* the given handle, turned to stay opposite an
                                  automatic handle on the key's other side */
    AC_HANDLE_VECTOR = 2,      /* a third of the way to the neighbouring key */
    AC_HANDLE_AUTO = 3,        /* smooth through the key */
    AC_HANDLE_AUTO_CLAMPED = 4 /* smooth, flat at an extremum, never past a
                                  neighbour's value */
} ac_handle_type;

/* Options of ac_tangents_blender (flags). */
#define AC_HANDLES_CONT_ACCEL 1 /* auto smoothing "continuous acceleration" (else "none") */
#define AC_HANDLES_CYCLIC 2     /* a Cycles modifier repeats both ways: when both end
                                    keys are automatic on both sides they see each
                                    other across the seam */
#define AC_HANDLES_FLAT_FIRST 4 /* constant extrapolation before the first key: an
                                    automatic first key gets flat handles */
#define AC_HANDLES_FLAT_LAST 8  /* the same after the last key */
#define AC_HANDLES_FLOAT32 16   /* Blender's float32 arithmetic: keys and handles are
                                    read rounded to float32 (as Blender stores them),
                                    every step of the per-key rules is rounded to
                                    float32 as Blender's float code rounds it, and
                                    the results are float32 values (the continuous-
                                    acceleration solve runs in float64 on the
                                    float32 inputs); keys equal in float32 are an
                                    error */
#define AC_HANDLES_MIN_LENGTH 32 /* Blender 5: a handle less than 0.001 (time units:
                                    frames) from its key in time is moved out to
                                    just beyond 0.001 (one float32 step with
                                    AC_HANDLES_FLOAT32) before the rules run */

/* Or'ed into a left handle type of ac_tangents_blender: that key's left
   handle is not selected, so of two ALIGNED handles the left one turns to
   follow the right (Blender's order; by default the right one follows the
   left, as when the left handle is selected). */
#define AC_HANDLE_UNSELECTED 16

/* Blender's handle recalculation (BKE_fcurve_handles_recalc) for k keys:
   keys holds k (time, value) pairs, times strictly increasing; left and right
   hold the k handle points (time, value) and are updated in place: the
   handles of VECTOR, AUTO and AUTO_CLAMPED sides are computed, FREE ones kept,
   ALIGNED ones realigned where Blender does. Rules: handles never cross their
   key in time; auto handles point along the sum of the unit-time slopes to
   both neighbours (an end key mirrors its one neighbour) with a time length of
   0.3904 of the neighbouring interval under "none" smoothing (neighbour
   intervals limited to 5 times each other), a third of it under
   AC_HANDLES_CONT_ACCEL, whose heights then solve Blender's tridiagonal
   system for continuous acceleration (clamped handles within their limits);
   clamped handles are flat at a local extremum and never pass a neighbour's
   value; vector handles point a third of the way to their neighbour; an
   ALIGNED handle beside a non-FREE one turns to stay opposite it, keeping its
   length (when both are ALIGNED the right one follows the left, as Blender
   does when the left handle is selected; the left one follows the right when
   its left type carries AC_HANDLE_UNSELECTED). Fewer than two keys leave the
   handles as given. Scratch memory (O(k), only with
   AC_HANDLES_CONT_ACCEL) comes from `allocator` (NULL: malloc). Errors:
   AC_ERR_VALUE for non-finite keys or handles (AC_ARG_KEYS, AC_ARG_LEFT,
   AC_ARG_RIGHT, flat index), times that do not increase (AC_ARG_KEYS, index
   2i), an unknown handle type (AC_ARG_LEFT_TYPES, AC_ARG_RIGHT_TYPES);
   AC_ERR_NOMEM (AC_ARG_SCRATCH). On failure left
   and right are unchanged. */
AC_API ac_status ac_tangents_blender(const double *keys, const unsigned char *left_types,
                                     const unsigned char *right_types, size_t k,
                                     unsigned flags, double *left, double *right,
                                     const ac_allocator *allocator, ac_error *err);

/* OpenUSD's AutoEase tangents (Ts's TsTangentAlgorithmAutoEase, after Maya's
   "auto ease"): per-second slopes of k keys with c channels (values k x c,
   slopes k x c out), the same on both sides of a key, for handles of a third
   of the neighbouring interval (so they serve Hermite and Bezier segments
   alike). For an interior key with slopes s0 to the previous and s1 to the
   next key of the same sign, the slope is (1 - g) s0 + g s1 with
   g = 1/2 + u (1/2 + 2 u^2), u = f - 1/2 and f the key's time fraction
   between its neighbours, then limited to 3 times the smaller of |s0| and
   |s1|; 0 when s0 and s1 differ in sign or one is 0, at the first and last
   key, and at both keys of a jump (two equal times, as a dual-valued knot).
   Times nondecreasing, at most two equal. Errors: AC_ERR_VALUE for
   non-finite times or values (AC_ARG_TIMES, AC_ARG_VALUES) and for times
   that go back or repeat three times (AC_ARG_TIMES); AC_ERR_OVERFLOW for a
   slope that is not representable (AC_ARG_SLOPES, index i * c + channel). */
AC_API ac_status ac_tangents_auto_ease(const double *times, const double *values, size_t k,
                                       size_t c, double *slopes, ac_error *err);

/* The slopes (per second) FBX curve keys are evaluated with, on each side
   of each key, as MotionBuilder and Maya (and the ufbx reader) give them:
   k keys of curves laid one after the other (first[i] nonzero where a curve
   starts; first[0] is taken as set), each curve's times increasing; per key
   its KeyAttrFlags, its attribute data (k x 3: right slope, next-left slope,
   and for TCB keys tension, continuity, bias) and its right and next-left
   weights (fractions of the segment). User and break tangents as stored
   (a key's in-slope is the next-left slope of the key before it); auto
   keys solved from their neighbours (the stored slopes are the auto bias,
   in percent): the chord between the neighbours blended with the
   one-sided chords unless time-independent, pulled by the bias, 0 near a
   flat neighbour when clamped, limited so the handles do not pass the
   neighbours' values when clamped progressive; an auto key with one
   neighbour the chord to it; TCB keys by Kochanek-Bartels; linear
   segments along their chord; constant segments flat. Stored non-finite
   numbers give non-finite slopes (the caller checks what it evaluates);
   never fails. */
AC_API ac_status ac_tangents_fbx(const double *times, const double *values,
                                 const int64_t *flags, const double *data,
                                 const double *right_weights, const double *next_left_weights,
                                 const unsigned char *first, size_t k, double *in_slopes,
                                 double *out_slopes, ac_error *err);

/* ------------------------------------------------------------- blending
   Joint poses: translation (3), unit rotation (4, x y z w) and scale (3) per
   item. Every input is read through steps[i] (1: n items, 0: one item shared
   by all), in the order the arguments are listed; mask may be NULL (1).
   Rotations must be finite with |q|^2 within 1e-6 of 1 (AC_ARG_A_ROTATION,
   AC_ARG_B_ROTATION); translations and scales finite. Outputs are n
   contiguous items, written only after the item's inputs pass. */

/* Interpolation from pose a (weight 0) to pose b (weight 1) at w = weight *
   mask: translation and scale (1 - w) a + w b, rotation the core's one
   shortest-arc slerp. weight and mask must lie in [0, 1] (AC_ARG_WEIGHT,
   AC_ARG_MASK). Where w is 0 the output is a, bit for bit. */
AC_API ac_status ac_blend_poses(const double *a_translation, const double *a_rotation,
                                const double *a_scale, const double *b_translation,
                                const double *b_rotation, const double *b_scale,
                                const double *weight, const double *mask, const size_t steps[8],
                                double *translation, double *rotation, double *scale, size_t n,
                                ac_error *err);

/* How an additive pose's scale (and, for AC_BLEND_COMBINE, rotation) composes. */
typedef enum ac_blend_scale_mode {
    AC_BLEND_SCALE_MULTIPLY = 0, /* delta = pose / reference; base * delta^w */
    AC_BLEND_SCALE_ADD = 1,      /* delta = pose - reference; base + w delta */
    AC_BLEND_COMBINE = 2         /* scale as MULTIPLY; rotation base * delta^w, the power
                                    about delta's own angle 2 acos(delta_w) in [0, 2 pi], no
                                    hemisphere flip (Blender's NLA Combine) */
} ac_blend_scale_mode;

/* Additive delta of pose a against reference b: translation a - b, rotation
   conj(b) * a, scale a / b (AC_BLEND_SCALE_MULTIPLY; a zero reference scale
   is AC_ARG_B_SCALE) or a - b. steps has 6 entries (no weight, no mask). */
AC_API ac_status ac_blend_make_additive(const double *a_translation, const double *a_rotation,
                                        const double *a_scale, const double *b_translation,
                                        const double *b_rotation, const double *b_scale,
                                        const size_t steps[6], ac_blend_scale_mode mode,
                                        double *translation, double *rotation, double *scale,
                                        size_t n, ac_error *err);

/* Base pose a with additive delta b at w = weight * mask: translation a + w
   b, rotation a * slerp(identity, b, w) (b itself at w = 1; the slerp
   continues its great circle for w outside [0, 1]; a * b^w for
   AC_BLEND_COMBINE), scale a * b^w (AC_BLEND_SCALE_MULTIPLY, AC_BLEND_COMBINE:
   b > 0 unless w is 0 or 1, AC_ARG_B_SCALE) or a + w b. Any finite weight (above 1 exaggerates, below 0 reverses); mask in
   [0, 1]. Where w is 0 the output is a, bit for bit. */
AC_API ac_status ac_blend_apply_additive(const double *a_translation, const double *a_rotation,
                                         const double *a_scale, const double *b_translation,
                                         const double *b_rotation, const double *b_scale,
                                         const double *weight, const double *mask,
                                         const size_t steps[8], ac_blend_scale_mode mode,
                                         double *translation, double *rotation, double *scale,
                                         size_t n, ac_error *err);
/* ------------------------------------------------------ inverse kinematics
   Batch IK solvers over float64 world-space positions. Rotations they return
   are world-space corrections (x, y, z, w) that pre-multiply a joint's world
   rotation. Every result is finite; degenerate input has a defined answer
   (documented per solver). */

/* Two-bone IK for n chains start -> mid -> end (3 values each) reaching for
   `target` with the bend toward the world point `pole`. weight in [0, 1]
   blends from no correction (identity) to the full one by slerp; soften in
   [0, 1] (ozz-animation's meaning): targets nearer than da = soften (L1 + L2)
   are reached exactly; beyond it the end stops short on the start-target
   line at da + ds (1 - exp(-(D - da) / ds)), ds = L1 + L2 - da, D = |target -
   start| (the exponential soft-IK curve: slope 1 at da, never past the
   target, tending to full extension, nondecreasing in D); twist (radians) turns the chain
   about the start -> target axis by the right-hand rule. Outputs per chain:
   rotation_start, rotation_mid (4 each) such that the start's new world
   rotation is rotation_start * start_world and the mid's is
   rotation_mid * rotation_start * mid_world (the mid correction applies
   after the start's), and reached (1 when the corrected end lies within
   1e-9 (L1 + L2) of the target). The mid correction is a hinge about the
   current bend axis (mid - start) x (end - mid).
   Degenerate input: a zero-length bone gives identity corrections; a target
   at the start aims along the current start -> end direction (start -> mid
   when the end is at the start); a pole on the start-target line (or at the
   start) keeps the chain's current bend plane; a straight chain with such a
   pole bends in the plane of start -> mid and the pole, else about the world
   axis least aligned with the bone. steps[8] are 1 (n items) or 0 (one item
   shared) for start, mid, end, target, pole, weight, soften, twist; NULL
   means all 1. Errors: AC_ERR_VALUE for a non-finite value (AC_ARG_START,
   AC_ARG_MID, AC_ARG_END, AC_ARG_TARGET, AC_ARG_POLE, AC_ARG_TWIST) or a
   weight or soften outside [0, 1] (AC_ARG_WEIGHT, AC_ARG_SOFTEN); index: the
   chain. */
AC_API ac_status ac_ik_two_bone(const double *start, const double *mid, const double *end,
                                const double *target, const double *pole,
                                const double *weight, const double *soften,
                                const double *twist, const size_t steps[8],
                                double *rotation_start, double *rotation_mid,
                                uint8_t *reached, size_t n, ac_error *err);

/* Aim IK for n joints: joint_world (16 values, row-major 4x4 affine, column
   vectors, translation in the last column), the joint-local `forward` and
   `up` (3), the world `target` (3) and the world point `pole` (3, or NULL
   for no roll constraint), weight in [0, 1]. rotation (4 per joint) is the
   world correction turning the joint's forward (its linear part applied to
   `forward`) toward target - position by the shortest arc, then, with a
   pole, about that line so that the joint's up points toward the pole's side.
   Degenerate input: a target at the joint gives identity; a pole on the aim
   line, or an up parallel to forward, adds no roll. steps[6]: joint_world,
   forward, up, target, pole, weight (1 or 0, NULL: all 1). Errors:
   AC_ERR_VALUE for non-finite values, a zero forward (AC_ARG_FORWARD), a
   joint whose linear part maps forward to zero (AC_ARG_JOINT_WORLD), a
   weight outside [0, 1]. */
AC_API ac_status ac_ik_aim(const double *joint_world, const double *forward,
                           const double *up, const double *target, const double *pole,
                           const double *weight, const size_t steps[6], double *rotation,
                           size_t n, ac_error *err);

typedef enum ac_ik_method { AC_IK_FABRIK = 0, AC_IK_CCD = 1 } ac_ik_method;

/* Chain IK for n chains of k joints (positions 3k values, root first) toward
   `target` (3): FABRIK (Aristidou & Lasenby 2011) or cyclic coordinate
   descent, at most max_iterations passes, stopping when the end is within
   `tolerance` (absolute, > 0) of the target. The root stays put and segment
   lengths are kept (each joint is placed at its length along a unit
   direction). limits (k values, or NULL) are cone angles in [0, pi]: the
   angle between segment i-1 and segment i at joint i stays within limits[i]
   (entries 0 and k-1 are unused). A target beyond reach (without limits)
   stretches the chain straight toward it. out (3k per chain) and converged
   (1 when the end ends within tolerance). A segment whose ends coincide takes
   the direction of the previous segment (or root -> target, or +x).
   steps[3]: positions, target, limits. Errors: AC_ERR_VALUE for non-finite
   positions or limits outside [0, pi] (index = chain * k + joint), a
   non-finite target (index: the chain), tolerance not > 0 or not finite,
   max_iterations < 0, an unknown method; AC_ERR_OVERFLOW "target" (the
   chain) when joints or target lie too far apart to represent. */
AC_API ac_status ac_ik_chain(const double *positions, const double *target,
                             const double *limits, size_t k, ac_ik_method method,
                             int max_iterations, double tolerance, const size_t steps[3],
                             double *out, uint8_t *converged, size_t n, ac_error *err);

/* Cleanup of time series (one series of `frames` samples per call).
   euler_filter: each frame's angles (3 per frame, radians) become the
   triplet of the same rotation nearest the previous frame's result, among
   the given triplet and the sequence's other one, each moved by whole turns
   (`proper` nonzero for sequences such as zxz), so no step exceeds pi per
   angle; an angle beyond 2^20 is first taken as the angle of its rotation
   in [-pi, pi] (the first frame too), and whole turns are added exactly
   rounded, so every frame keeps its rotation. quat_continuous: signs
   flipped so that neighbours never have a negative dot product.
   AC_ERR_VALUE ("angles", "q") names the first non-finite input's frame. */
AC_API ac_status ac_cleanup_euler_filter(const double *angles, int proper, double *out,
                                         size_t frames, ac_error *err);
AC_API ac_status ac_cleanup_quat_continuous(const double *q, double *out, size_t frames,
                                            ac_error *err);

/* Keyframe reduction and its metric (animcore.reduce_keys, clip_error).

   ac_reduce_shell_error: ACL's object-space error between n pairs of affine
   matrices a, b (row-major 4x4; only the top three rows are read): per pair
   the largest distance between the images under a and under b of the six
   points +-shell along the local x, y and z axes, computed from the
   differences o (translations) and s d_k (axes k scaled by shell) as
   sqrt(|o|^2 + max_k (|s d_k|^2 + 2 |o . s d_k|)) (no cancellation), in
   units of the largest difference where the squares would overflow, +inf
   where the distance itself exceeds the double range. steps[3] (a, b,
   shell): 1 for an input per pair, 0 for one shared by all (NULL: all 1).
   AC_ERR_VALUE "a", "b" or "shell" names the first non-finite input's pair.

   ac_reduce_segment_error: the error of a candidate segment at n points:
   error[i] = the largest over `channels` channels of |x - target| where x
   is the segment from (t0, start) to (t1, end) at t of `kind`:
   AC_CURVE_STEP start; AC_CURVE_LINEAR start + ((t - t0) / (t1 - t0))
   (end - start); AC_CURVE_CUBIC the Hermite segment of ac_hermite_eval
   with per-second velocities start_velocity and end_velocity, duration
   t1 - t0 and elapsed min(t - t0, t1 - t0). +inf where x or the difference
   is beyond the double range (such a segment fits no tolerance). steps[8]
   (t, target, t0, t1, start, end, start_velocity, end_velocity): 1 for an
   input per point, 0 for one shared by all (NULL: all 1); target and the
   four key inputs hold `channels` values per point. AC_ERR_VALUE names the
   first non-finite input's point, or "kind" when it is none of the three.

   ac_reduce_rotation_error: the same for a rotation segment: the angle
   (radians, 2 acos(min(1, |dot|))) between target and the slerp of
   ac_quat_batch_slerp from start to end (quaternions (x, y, z, w)) at
   u = (t - t0) / (t1 - t0). steps[6] (t, target, t0, t1, start, end) as
   above, target, start and end 4 values per point; target is taken as the
   unit quaternion it must be (a curve's own samples), not normalized, while
   start and end are normalized as the slerp does. AC_ERR_VALUE names the
   first non-finite t, target, t0 or t1 and ac_quat_batch_slerp's errors
   ("q0", "q1", "t" for start, end and u) its point. */
AC_API ac_status ac_reduce_shell_error(const double *a, const double *b, const double *shell,
                                       const size_t steps[3], double *error, size_t n,
                                       ac_error *err);
AC_API ac_status ac_reduce_segment_error(ac_curve_interpolation kind, size_t channels,
                                         const double *t, const double *target,
                                         const double *t0, const double *t1,
                                         const double *start, const double *end,
                                         const double *start_velocity,
                                         const double *end_velocity, const size_t steps[8],
                                         double *error, size_t n, ac_error *err);
AC_API ac_status ac_reduce_rotation_error(const double *t, const double *target,
                                          const double *t0, const double *t1,
                                          const double *start, const double *end,
                                          const size_t steps[6], double *error, size_t n,
                                          ac_error *err);

/* Compressed clips (animcore.compress). Layout version 2, little-endian:
     header, 32 bytes: "ACCC", u16 version (2), u16 samples per segment L
       (>= 1), u32 nodes (<= 2^20), u32 samples (1 .. 2^28), f64 start time
       (s), f64 sample rate (samples per second, > 0);
     track table: for each node its translation, rotation and scale tracks,
       one byte each: bits 0-1 the kind (AC_TRACK_*), bits 2-3 an animated
       rotation's rebuilt component (0: w, 1: x, 2: y, 3: z; else 0), bits
       4-7 zero;
     clip data, in table order: default tracks nothing (identity: zero
       translation, rotation (0, 0, 0, 1), unit scale); constant tracks 3 f32
       (translation, scale) or 4 f32 (rotation x, y, z, w); animated tracks
       their clip range: 3 components as f32 (minimum, extent >= 0) pairs.
       The components are x, y, z; a rotation stores the three other than
       `rebuilt`, in x, y, z, w order, and rebuilds that one (>= 0) as
       sqrt(1 - the others' squares), or 0;
     segment offset table: u32 per segment (G = ceil(samples / L); segment
       g holds samples g L .. min((g + 1) L, samples) - 1), the byte offset
       of the segment from the end of this table: 0 for the first, each
       segment ending where the next starts and the last at the end of the
       data;
     segments: for each animated track, in table order, 8 bytes: u16 bit
       counts b_x | b_y << 5 | b_z << 10 (each 0..24, bit 15 zero), then per
       component c its segment range as u8 m_c, u8 e_c (in 255ths of the
       clip range); then the
       samples of every animated track, in table order, each track's
       samples in order, each sample's components c in order as b_c-bit
       unsigned integers q, the whole packed least significant bit first
       and padded to a byte at the segment's end. The component's value is
         minimum + extent * ((m_c + e_c * ((q + 0.5) / 2^b_c)) / 255),
       evaluated in double in that order (a 0-bit component is the middle
       of its segment range).
   Layout version 1 (one range and bit rate per track; still read):
     the same header with u16 reserved (0) for L and no segments; track
       table entries of 4 bytes: u8 kind, u8 bits (1..24 when animated, else
       0), u8 rebuilt (as above), u8 reserved (0); then per track its data:
       constant and default tracks as above, animated tracks their clip range
       followed by every sample's 3 components, sample-major, as `bits`-bit
       unsigned integers q packed least significant bit first and padded to
       a byte, the value minimum + extent * q / (2^bits - 1).
   Sample s lies at start + s / rate; between samples translation and scale
   are interpolated linearly and rotations by slerp on the shorter arc (as a
   linear rotation track, so a clip sampled from one is matched between its
   samples as well as at them); times outside the samples clamp. Every read
   is checked against `size` first: any inconsistency (magic, version,
   counts, kinds, bits, sizes, offsets, non-finite floats, negative extents)
   is AC_ERR_VALUE with arg "value", index the byte offset and the reason in
   detail. ac_reduce_compressed_info checks the whole layout (O(size)) and
   gives its counts; ac_reduce_compressed_open checks it again and keeps
   what decoding needs, so that ac_reduce_compressed_decode reads only the
   samples of the poses it makes (an engine opens a clip once, when it
   loads it, and decodes a pose per frame). */
#define AC_COMPRESSED_VERSION 2
enum { AC_TRACK_DEFAULT = 0, AC_TRACK_CONSTANT = 1, AC_TRACK_ANIMATED = 2 };
typedef struct ac_compressed_info {
    uint32_t nodes;
    uint32_t samples;
    uint32_t animated; /* animated tracks (the entries ac_reduce_compressed_open fills) */
    double start;
    double rate;
} ac_compressed_info;
AC_API ac_status ac_reduce_compressed_info(const uint8_t *data, size_t size,
                                           ac_compressed_info *info, ac_error *err);
/* An animated track of an opened clip. */
typedef struct ac_compressed_track {
    double range[6];   /* its clip ranges: (minimum, extent) per component */
    size_t data;       /* the byte offset of its clip data (version 1: its samples follow) */
    size_t out;        /* its first value's index in its path's pose row: node * width */
    uint8_t path;      /* 0 translation, 1 rotation, 2 scale */
    uint8_t rebuilt;   /* a rotation's rebuilt component */
    uint8_t bits;      /* version 1: bits per component */
} ac_compressed_track;
/* An opened clip: its bytes (the caller keeps them alive and unchanged),
   where their parts lie, its animated tracks in table order, and the pose
   of its constant and default tracks. */
typedef struct ac_compressed_clip {
    ac_compressed_info info;
    const uint8_t *data;
    size_t size;
    unsigned version;
    size_t length;   /* version 2: samples per segment */
    size_t offsets;  /* version 2: the segment offset table */
    size_t area;     /* version 2: the first segment */
    const ac_compressed_track *tracks; /* info.animated of them */
    const double *rest; /* translation (nodes, 3), rotation (nodes, 4), scale (nodes, 3) */
} ac_compressed_clip;
/* Opens the layout in data: checks all of it as ac_reduce_compressed_info
   does, then fills the caller's storage, `tracks` (room for the info's
   `animated`) and `rest` (10 * nodes doubles: a pose), with what decoding
   reads, and *clip. */
AC_API ac_status ac_reduce_compressed_open(const uint8_t *data, size_t size,
                                           ac_compressed_track *tracks, double *rest,
                                           ac_compressed_clip *clip, ac_error *err);
/* Poses of an opened clip at n times t: translation (n, nodes, 3),
   rotation (n, nodes, 4), scale (n, nodes, 3). Errors: AC_ERR_VALUE "t"
   for a non-finite time (nothing written). */
AC_API ac_status ac_reduce_compressed_decode(const ac_compressed_clip *clip, const double *t,
                                             size_t n, double *translation, double *rotation,
                                             double *scale, ac_error *err);

/* ------------------------------------------------------------------ fbx
   A reader of FBX files' record trees, binary (versions 6100 to 7700, 32-bit
   record headers before 7500, 64-bit from 7500) and ASCII, into a flat
   table that a caller walks: one ac_fbx_record per node record (in file
   order, parents before children) and one ac_fbx_property per value.
   Nothing is decoded beyond the record structure: binary arrays are
   located in the buffer (encoding 0 raw, 1 zlib deflate; the caller
   inflates the latter into count * element-size bytes, which the parser
   has checked are at most 1032 times the stored bytes, deflate's largest
   ratio); ASCII numbers of `*N { a: ... }` arrays are written to a table of
   doubles. Hostile input is bounded: every offset and length is checked
   against the buffer, nesting is at most AC_FBX_MAX_DEPTH records, and the
   tables are as long as the file's records and values (call once with NULL
   tables to count them, then with tables of those lengths). */
#define AC_FBX_MAX_DEPTH 64
#define AC_FBX_PATH_SIZE 256

typedef struct ac_fbx_record {
    int64_t parent;           /* index of the parent record, -1 at the top */
    uint64_t name_offset;     /* the name's bytes in the buffer */
    uint64_t name_length;
    uint64_t first_property;  /* index of its first property */
    uint64_t property_count;
    uint64_t location;        /* byte offset of the record (binary), line (ASCII) */
} ac_fbx_record;

/* type: binary 'Y' 'C' 'I' 'F' 'D' 'L' (scalars in ivalue and dvalue), 'S' 'R'
   (bytes at offset, length), 'f' 'd' 'l' 'i' 'b' (count elements stored at
   offset, length bytes, encoding 0 raw or 1 zlib). ASCII: 'L' an integer,
   'D' a real, 'S' a quoted string, 'W' a bare word (offset, length), 'd' an
   array of count numbers at index offset of the number table (encoding 2). */
typedef struct ac_fbx_property {
    char type;
    uint32_t encoding;
    uint64_t offset;
    uint64_t length;
    uint64_t count;
    int64_t ivalue;
    double dvalue;
} ac_fbx_property;

typedef struct ac_fbx_table {
    ac_fbx_record *records;     /* NULL to count */
    ac_fbx_property *properties;
    double *numbers;
    size_t record_capacity, property_capacity, number_capacity;
    size_t records_used, properties_used, numbers_used; /* out */
    uint32_t version;           /* out: the header's FBXVersion (binary), 0 for ASCII */
    int ascii;                  /* out */
} ac_fbx_table;

/* Where and why a parse failed: byte offset (binary) or line (ASCII, from 1),
   the path of the records being read ("Objects/Model/Properties70/P") and a
   message. */
typedef struct ac_fbx_failure {
    uint64_t offset;
    uint64_t line;
    char path[AC_FBX_PATH_SIZE];
    char message[160];
} ac_fbx_failure;

/* Parses `size` bytes. Returns AC_OK, or AC_ERR_VALUE for malformed input
   (a binary file whose top-level list does not end with its null record, an
   ASCII file without records, and tables shorter than needed) with
   *failure filled (when not NULL) and *err (when not NULL): index = the
   byte offset (binary) or line (ASCII), detail = the start of the message. */
AC_API ac_status ac_fbx_parse(const unsigned char *data, size_t size, ac_fbx_table *table,
                              ac_fbx_failure *failure, ac_error *err);

/* The stored bytes of raw (encoding 0) binary array properties, one after the
   other: properties[indices[i]] for i < n, copied from `data` (`size` bytes)
   to `out`, whose `out_size` bytes must be their lengths' sum (a reader
   joins the arrays of many records in one call). AC_ERR_VALUE (index = i)
   for an index outside the `count` properties, a property that is not a raw
   array ('f' 'd' 'l' 'i' 'b' with encoding 0), a span outside the data, or
   lengths that do not sum to out_size; nothing is written then. */
AC_API ac_status ac_fbx_gather(const unsigned char *data, size_t size,
                               const ac_fbx_property *properties, size_t count,
                               const int64_t *indices, size_t n, unsigned char *out,
                               size_t out_size, ac_error *err);

/* Per-key attributes of FBX animation curves from their attribute groups
   (KeyAttrFlags, KeyAttrDataFloat, KeyAttrRefCount): group g, with flags[g]
   and the four floats data[4 g .. 4 g + 3], applies to counts[g] keys in
   turn, and the counts sum to `keys`. Writes per key: its flags, its right
   and next-left slopes (the first two floats, as doubles), its right and
   next-left weights (the two 4-digit decimal fixed-point numbers packed in
   the bits of the third float, times 0.0001, where flags hold the bits
   0x01000000 and 0x02000000; 1/3 otherwise) and the first three floats as
   doubles (`attributes`, keys x 3). AC_ERR_VALUE (index = g) for a negative
   count or counts that do not sum to `keys`; nothing is written then. */
AC_API ac_status ac_fbx_key_attributes(const int64_t *flags, const float *data,
                                       const int64_t *counts, size_t groups, size_t keys,
                                       int64_t *key_flags, double *right_slopes,
                                       double *next_left_slopes, double *right_weights,
                                       double *next_left_weights, double *attributes,
                                       ac_error *err);

/* ===============================================================   Binding support: read-only success proofs. Engines need not call these.

   Each *_check below answers, for the kernel it names and the same
   arguments, whether that kernel is certain to succeed, in one pass that
   reads the inputs and writes nothing (the snapshot checks return the error
   the push would return). A binding uses them to leave its output arrays
   untouched when a call would fail without evaluating twice; an engine that
   calls the kernels directly gets the same errors from the kernels
   themselves. False proves nothing: the checks are conservative near
   overflow, and the kernel then reports the error if there is one.
   ====================================================================== */

/* True when ac_hermite_eval is certain to succeed on these inputs (same
   arguments, steps may be NULL): one pass that reads the inputs and writes
   nothing, for callers that must leave their outputs untouched on failure
   and would otherwise evaluate twice. Conservative: inputs within a factor 8
   of overflow give false even when the evaluation would succeed. */
AC_API bool ac_hermite_check(const double *start, const double *end,
                             const double *start_velocity, const double *end_velocity,
                             const double *duration, const double *elapsed,
                             const size_t steps[6], size_t n);

/* True only when ac_curve_eval_side with these arguments is certain to
   succeed, from any cursor: every t finite, none outside the keys where the
   extrapolation is AC_EXTRAP_ERROR, none so far out that an extrapolated
   result could overflow, on a curve whose results of that order cannot
   overflow inside the keys. One pass that reads t and writes nothing, for
   callers that must leave their outputs untouched on failure and would
   otherwise evaluate twice. False proves nothing: it is conservative near
   overflow, and the evaluation then reports the error if there is one. */
AC_API bool ac_curve_eval_check(const ac_curve *curve, const double *t, size_t n,
                                int derivative, int side);

/* True when every u[0..n) lies in [0, 1], so that ac_ease_eval and
   ac_ease_rate (a kind in range), ac_ease_inverse (a monotone kind, with s
   for u), ac_ease_bezier_eval (an initialized curve) and ac_ease_steps_eval
   (a valid count and position) are certain to succeed on them. One pass that
   reads u and writes nothing, for callers that must leave their outputs
   untouched on failure and would otherwise evaluate twice. */
AC_API bool ac_ease_check(const double *u, size_t n);

/* True when ac_quat_batch_multiply is certain to succeed on these inputs
   (same arguments): one pass that reads them and writes nothing, for callers
   that must leave their outputs untouched on failure and would otherwise
   multiply twice. Conservative: a component beyond 2^510 in magnitude gives
   false even when the products are representable. */
AC_API bool ac_quat_batch_multiply_check(const double *a, const double *b,
                                         const size_t steps[2], size_t n);
/* The same for ac_skeleton_multiply (conservative: an element beyond
   2^510 in magnitude gives false). */
AC_API bool ac_skeleton_multiply_check(const double *a, const double *b,
                                       const size_t steps[2], size_t n);

/* The checks below answer, as ac_quat_batch_multiply_check, whether the
   kernels named are certain to succeed on these inputs (same arguments):
   one pass that reads them and writes nothing; false proves nothing.
   ac_quat_batch_unit_check: every quaternion finite and not zero, which
   ac_quat_batch_conjugate, ac_quat_batch_normalize, ac_quat_batch_to_matrix
   and ac_quat_batch_to_rotvec then accept (conservative: components whose
   magnitudes sum past DBL_MAX give false). */
AC_API bool ac_quat_batch_unit_check(const double *q, size_t n);

AC_API bool ac_quat_batch_from_axis_angle_check(const double *axis, const double *angle,
                                                const size_t steps[2], size_t n);

/* Conservative: a vector component beyond 2^510 in magnitude gives false. */
AC_API bool ac_quat_batch_rotate_check(const double *q, const double *v, const size_t steps[2],
                                       size_t n);

/* For both ac_quat_batch_slerp and ac_quat_batch_nlerp. */
AC_API bool ac_quat_batch_lerp_check(const double *q0, const double *q1, const double *t,
                                     const size_t steps[3], size_t n);

/* True only when ac_quat_curve_eval with these arguments (angular
   velocities wanted or not) is certain to succeed, from any cursor: a step
   or linear curve, every t finite, none outside the keys where the
   extrapolation is AC_EXTRAP_ERROR or AC_EXTRAP_LINEAR, and no segment
   whose keys are too close for their rotation where angular velocities are
   wanted or an end key turns on (AC_EXTRAP_LINEAR, at the key too). One
   pass that reads t and writes nothing, as ac_curve_eval_check; false
   proves nothing. */
AC_API bool ac_quat_curve_eval_check(const ac_quat_curve *curve, const double *t, size_t n,
                                     int side, bool omega);

AC_API bool ac_quat_batch_from_matrix_check(const double *matrix, size_t n);

AC_API bool ac_quat_batch_to_euler_check(const double *q, const int axes[3], size_t n);

AC_API bool ac_quat_batch_from_euler_check(const double *angles, const int axes[3], size_t n);

AC_API bool ac_quat_batch_from_rotvec_check(const double *rotvec, size_t n);

/* True only when ac_rootmotion_sample / ac_rootmotion_delta with these
   arguments are certain to succeed: every phase in [0, 1]; for a delta, a
   track without rotation whose keys and tangents keep every delta within
   max_cycles representable (decided once, at creation), and every time
   within max_cycles. One pass that reads the times and writes nothing, for
   callers that must leave their outputs untouched on failure and would
   otherwise evaluate twice. False proves nothing (turning tracks always give
   false for deltas): the evaluation then reports the error if there is one. */
AC_API bool ac_rootmotion_sample_check(const ac_looptrack *track, const double *phase, size_t n);

AC_API bool ac_rootmotion_delta_check(const ac_looptrack *track, const double *t0,
                                      const double *t1, const size_t steps[2], size_t n);

/* True only when ac_rootmotion_advance with these arguments is certain to
   succeed: a track without rotation whose deltas are bounded (see
   ac_rootmotion_delta_check), every phase in [0, 1), every value within
   max_cycles, and cycles that keep the step's whole cycles within
   2 max_cycles + 2 (absolute) or the new cycle within 2^53 (relative). Reads
   the inputs and writes nothing; false proves nothing. */
AC_API bool ac_rootmotion_advance_check(const ac_looptrack *track, const int64_t *cycle,
                                        const double *phase, const double *value,
                                        const size_t steps[3], bool absolute, size_t n);

/* True when ac_contact_bounce is certain to succeed on these inputs (same
   arguments): one pass that reads them and writes nothing. Conservative: a
   vector component beyond 2^500 in magnitude gives false. */
AC_API bool ac_contact_bounce_check(const double *velocity, const double *surface_velocity,
                                    const double *normal, const double *restitution,
                                    const double *friction, const double *threshold,
                                    const size_t steps[6], size_t dim, size_t n);

/* True when ac_contact_point_velocity is certain to succeed on these inputs
   (same arguments): one pass that reads them and writes nothing.
   Conservative: a component beyond 2^510 in magnitude gives false. */
AC_API bool ac_contact_point_velocity_check(const double *linear_velocity,
                                            const double *angular_velocity,
                                            const double *offset, const size_t steps[3],
                                            size_t dim, size_t n);

/* The argument checks of ac_snapshot_buffer_push alone (rotation given when
   required, entities in range, ticks in range): AC_OK when those n pushes
   would be applied, else the error the push would return. Changes nothing,
   so a caller applying a batch in pieces can check every piece first. */
AC_API ac_status ac_snapshot_buffer_push_check(const ac_snapshot_buffer *buffer,
                                               const int64_t *entity, const int64_t *tick,
                                               const double *rotation, size_t n,
                                               ac_error *err);

/* Its argument checks alone, as ac_snapshot_buffer_push_check. */
AC_API ac_status ac_snapshot_timeline_push_check(const ac_snapshot_timeline *timeline,
                                                 const int64_t *tick, const double *rotation,
                                                 size_t n, ac_error *err);

#ifdef __cplusplus
}
#endif

#endif /* ANIMCORE_H */
