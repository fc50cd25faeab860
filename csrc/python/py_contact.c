#include "binding.h"

#include <string.h>

/* ---------------------------------------------------- declared kernels
   bounce and contact_point_velocity, one declaration per dimension. */

#define BOUNCE_LOOP(name, dim)                                                   \
    static ac_status name(const acpy_context *ctx, const double *const *in,      \
                          const size_t *steps, double *const *out, size_t n,     \
                          ac_error *err)                                         \
    {                                                                            \
        (void)ctx;                                                               \
        if (!out) /* ACPY_CHECKS */                                              \
            return ac_contact_bounce_check(in[0], in[1], in[2], in[3], in[4], in[5], \
                                           steps, dim, n)                        \
                       ? AC_OK                                                   \
                       : acpy_unchecked(err);                                    \
        return ac_contact_bounce(in[0], in[1], in[2], in[3], in[4], in[5], steps, \
                                 dim, out[0], n, err);                           \
    }

#define POINT_LOOP(name, dim)                                                    \
    static ac_status name(const acpy_context *ctx, const double *const *in,      \
                          const size_t *steps, double *const *out, size_t n,     \
                          ac_error *err)                                         \
    {                                                                            \
        (void)ctx;                                                               \
        if (!out) /* ACPY_CHECKS */                                              \
            return ac_contact_point_velocity_check(in[0], in[1], in[2], steps, dim, n) \
                       ? AC_OK                                                   \
                       : acpy_unchecked(err);                                    \
        return ac_contact_point_velocity(in[0], in[1], in[2], steps, dim, out[0], n, \
                                         err);                                   \
    }

BOUNCE_LOOP(bounce2_loop, 2)
BOUNCE_LOOP(bounce3_loop, 3)
POINT_LOOP(point2_loop, 2)
POINT_LOOP(point3_loop, 3)

#define BOUNCE_DECL(entry, dim, loop)                                            \
    {                                                                            \
        entry,                                                                   \
        entry "(func, velocity, surface_velocity, normal, restitution, friction, " \
              "threshold, out, workers)",                                        \
        6, 1,                                                                    \
        {{"velocity", dim}, {"surface_velocity", dim}, {"normal", dim},          \
         {"restitution", 1}, {"friction", 1}, {"threshold", 1}},                 \
        {{"result", dim}}, loop, ACPY_SHARED | ACPY_CHECKS, NULL,                \
    }

static const acpy_kernel bounce2 = BOUNCE_DECL("_bounce2", 2, bounce2_loop);
static const acpy_kernel bounce3 = BOUNCE_DECL("_bounce3", 3, bounce3_loop);
static const acpy_kernel point2 = {
    "_point_velocity2", "_point_velocity2(func, linear_velocity, angular_velocity, offset, "
    "out, workers)", 3, 1,
    {{"linear_velocity", 2}, {"angular_velocity", 1}, {"offset", 2}}, {{"result", 2}},
    point2_loop, ACPY_SHARED | ACPY_CHECKS, NULL,
};
static const acpy_kernel point3 = {
    "_point_velocity3", "_point_velocity3(func, linear_velocity, angular_velocity, offset, "
    "out, workers)", 3, 1,
    {{"linear_velocity", 3}, {"angular_velocity", 3}, {"offset", 3}}, {{"result", 3}},
    point3_loop, ACPY_SHARED | ACPY_CHECKS, NULL,
};

/* ------------------------------------------------------------ projectiles
   Spheres stepped against moving planes: the context is (dim, planes,
   max_bounces); the planes, (M, C) each, are shared by every sphere, the
   (sphere, plane) parameters are (M) per sphere (one value for all planes
   when the axis is missing or 1), and each sphere records up to K =
   max_bounces contacts. One declaration per choice of spin and events. */

/* How the core's indices read: the sphere's, the plane's, the pair's, none. */
static const acpy_arg_error advance_errors[] = {
    {AC_ARG_POSITION, ACPY_ITEMS, NULL, 0},         {AC_ARG_VELOCITY, ACPY_ITEMS, NULL, 0},
    {AC_ARG_RADIUS, ACPY_ITEMS, NULL, 0},           {AC_ARG_DT, ACPY_ITEMS, NULL, 0},
    {AC_ARG_ANGULAR_VELOCITY, ACPY_ITEMS, NULL, 0}, {AC_ARG_INVERSE_INERTIA, ACPY_ITEMS, NULL, 0},
    {AC_ARG_PLANE_POINT, ACPY_OWN, NULL, 0},        {AC_ARG_PLANE_NORMAL, ACPY_OWN, NULL, 0},
    {AC_ARG_PLANE_NORMAL_LENGTH2, ACPY_OWN, NULL, 0}, {AC_ARG_PLANE_VELOCITY, ACPY_OWN, NULL, 0},
    {AC_ARG_RESTITUTION, ACPY_PARTS, NULL, 0},      {AC_ARG_FRICTION, ACPY_PARTS, NULL, 0},
    {AC_ARG_MAX_BOUNCES, ACPY_NO_INDEX, NULL, 1}};

static int advance_context(const char *func, PyObject *arg, acpy_context *ctx)
{
    long v[3];
    if (!PyTuple_Check(arg) || PyTuple_GET_SIZE(arg) != 3) {
        PyErr_Format(PyExc_TypeError, "%s: the context is (dim, planes, max_bounces)", func);
        return 0;
    }
    for (int i = 0; i < 3; i++)
        if ((v[i] = PyLong_AsLong(PyTuple_GET_ITEM(arg, i))) == -1 && PyErr_Occurred())
            return 0;
    if ((v[0] != 2 && v[0] != 3) || v[1] < 0 || v[2] < 0 || v[2] > AC_CONTACT_MAX_BOUNCES) {
        PyErr_Format(PyExc_ValueError, "%s: the context (%ld, %ld, %ld) is out of range", func,
                     v[0], v[1], v[2]);
        return 0;
    }
    ctx->channels = v[0];
    ctx->count = v[1];
    ctx->slots = v[2];
    ctx->error_items = v[1] > 1 ? v[1] : 1; /* the pairs' index counts M per sphere */
    ctx->errors = advance_errors;
    ctx->nerrors = sizeof advance_errors / sizeof *advance_errors;
    ctx->work = (npy_intp)(v[1] + 1) * (npy_intp)(v[2] + 1); /* contact tests per sphere */
    return 1;
}

#define INTS(p) ((int *)(void *)(p))

/* The n items of `width` values an input holds (or its one item, step 0)
   into the output the core then steps in place. */
static void start(double *out, const double *in, size_t step, size_t n, size_t width)
{
    if (step) {
        if (out != in)
            memcpy(out, in, n * width * sizeof *out);
        return;
    }
    for (size_t i = 0; i < n; i++)
        memcpy(out + i * width, in, width * sizeof *out);
}

/* Inputs: position, velocity (C), radius, dt, plane_point, plane_normal,
   plane_velocity (M, C), restitution, friction (M)[, angular_velocity (spin),
   inverse_inertia]. Outputs: position, velocity, bounces[, angular_velocity]
   [, plane (K), time (K), normal_impulse (K), tangent_impulse (K, C)]. The
   core steps position and velocity (and spin) in place, in the outputs. */
static ac_status advance_block(const acpy_context *ctx, const double *const *in,
                               const size_t *steps, double *const *out, size_t n, int spin,
                               int events, ac_error *err)
{
    const size_t dim = (size_t)ctx->channels, m = (size_t)ctx->count;
    const size_t da = dim == 2 ? 1 : 3, slots = (size_t)ctx->slots;
    const size_t ev = spin ? 4 : 3;
    /* planes shared by all spheres (as the Python API passes them) take one
       call for the block; planes per sphere, one call each */
    const size_t group = steps[4] || steps[5] || steps[6] ? 1 : n;
    start(out[0], in[0], steps[0], n, dim);
    start(out[1], in[1], steps[1], n, dim);
    if (spin)
        start(out[3], in[9], steps[9], n, da);
    for (size_t i = 0; i < n; i += group) {
        ac_planes planes = {in[4] + steps[4] * i * m * dim, in[5] + steps[5] * i * m * dim,
                            in[6] + steps[6] * i * m * dim, m, dim};
        ac_projectile_params params = {
            in[2] + steps[2] * i, in[3] + steps[3] * i, in[7] + steps[7] * i * m,
            in[8] + steps[8] * i * m, steps[2], steps[3], {steps[7] ? m : 0, 1},
            {steps[8] ? m : 0, 1}, (int)ctx->slots};
        ac_projectile_spin sp = {spin ? out[3] + i * da : NULL,
                                 spin ? in[10] + steps[10] * i : NULL, spin ? steps[10] : 0};
        ac_projectile_events record = {
            events ? INTS(out[ev]) + i * slots : NULL, events ? out[ev + 1] + i * slots : NULL,
            events ? out[ev + 2] + i * slots : NULL,
            events ? out[ev + 3] + i * slots * dim : NULL, slots};
        ac_status st = ac_contact_advance_spin(out[0] + i * dim, out[1] + i * dim, &planes,
                                               &params, spin ? &sp : NULL,
                                               events ? &record : NULL, INTS(out[2]) + i,
                                               group, err);
        if (st) {
            acpy_error_after(ctx, err, i);
            return st;
        }
    }
    return AC_OK;
}

#define ADVANCE_LOOP(name, spin, events)                                         \
    static ac_status name(const acpy_context *ctx, const double *const *in,      \
                          const size_t *steps, double *const *out, size_t n,     \
                          ac_error *err)                                         \
    {                                                                            \
        return advance_block(ctx, in, steps, out, n, spin, events, err);         \
    }
ADVANCE_LOOP(advance_loop, 0, 0)
ADVANCE_LOOP(advance_spin_loop, 1, 0)
ADVANCE_LOOP(advance_events_loop, 0, 1)
ADVANCE_LOOP(advance_spin_events_loop, 1, 1)

#define ADVANCE_IN                                                               \
    {"position", ACPY_CHANNELS}, {"velocity", ACPY_CHANNELS}, {"radius", 1}, {"dt", 1}, \
        {"plane_point", ACPY_MC}, {"plane_normal", ACPY_MC}, {"plane_velocity", ACPY_MC}, \
        {"restitution", ACPY_M}, {"friction", ACPY_M}
#define ADVANCE_OUT                                                              \
    {"position", ACPY_CHANNELS}, {"velocity", ACPY_CHANNELS}, {"bounces", ACPY_INTC}
#define SPIN_IN {"angular_velocity", ACPY_SPIN}, {"inverse_inertia", 1}
#define SPIN_OUT {"angular_velocity", ACPY_SPIN}
#define EVENTS_OUT                                                               \
    {"events.plane", ACPY_K_INTC}, {"events.time", ACPY_K},                      \
        {"events.normal_impulse", ACPY_K}, {"events.tangent_impulse", ACPY_KC}
#define ADVANCE_DOC(name, extra_in, extra_out)                                   \
    name "(func, (dim, planes, max_bounces), position, velocity, radius, dt, plane_point, " \
         "plane_normal, plane_velocity, restitution, friction" extra_in ", out, workers) -> " \
         "(position, velocity, bounces" extra_out ")"
#define EVENTS_DOC ", plane, time, normal_impulse, tangent_impulse"

static const acpy_kernel advance = {
    "_advance", ADVANCE_DOC("_advance", "", ""), 9, 3, {ADVANCE_IN}, {ADVANCE_OUT},
    advance_loop, ACPY_SHARED | ACPY_IN_PLACE, advance_context,
};
static const acpy_kernel advance_spin = {
    "_advance_spin",
    ADVANCE_DOC("_advance_spin", ", angular_velocity, inverse_inertia", ", angular_velocity"),
    11, 4, {ADVANCE_IN, SPIN_IN}, {ADVANCE_OUT, SPIN_OUT}, advance_spin_loop,
    ACPY_SHARED | ACPY_IN_PLACE, advance_context,
};
static const acpy_kernel advance_events = {
    "_advance_events", ADVANCE_DOC("_advance_events", "", EVENTS_DOC), 9, 7, {ADVANCE_IN},
    {ADVANCE_OUT, EVENTS_OUT}, advance_events_loop, ACPY_SHARED | ACPY_IN_PLACE,
    advance_context,
};
static const acpy_kernel advance_spin_events = {
    "_advance_spin_events",
    ADVANCE_DOC("_advance_spin_events", ", angular_velocity, inverse_inertia",
                ", angular_velocity" EVENTS_DOC),
    11, 8, {ADVANCE_IN, SPIN_IN}, {ADVANCE_OUT, SPIN_OUT, EVENTS_OUT}, advance_spin_events_loop,
    ACPY_SHARED | ACPY_IN_PLACE, advance_context,
};

static const acpy_kernel *const kernels[] = {&bounce2, &bounce3, &point2, &point3, &advance,
                                             &advance_spin, &advance_events,
                                             &advance_spin_events};

int acpy_contact_init(PyObject *module)
{
    return acpy_add_kernels(module, kernels, sizeof kernels / sizeof kernels[0]);
}
