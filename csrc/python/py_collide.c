/* Binding of the contact between two moving rigid bodies (ac_contact_collide)
   and of spheres stepped with spin and recorded contacts (ac_contact_advance_spin). */
#include "binding.h"

#include <string.h>

/* ------------------------------------------------------- declared kernels
   The contact of two bodies: the context is (dim, a's inertia is a tensor,
   b's is), (C) is dim; one declaration per kind of the two inertias. */

static int collide_context(const char *func, PyObject *arg, acpy_context *ctx)
{
    long v[3];
    if (!PyTuple_Check(arg) || PyTuple_GET_SIZE(arg) != 3) {
        PyErr_Format(PyExc_TypeError, "%s: the contact context is (dim, tensor_a, tensor_b)",
                     func);
        return 0;
    }
    for (int i = 0; i < 3; i++)
        if ((v[i] = PyLong_AsLong(PyTuple_GET_ITEM(arg, i))) == -1 && PyErr_Occurred())
            return 0;
    ctx->channels = v[0];
    ctx->option[0] = (v[1] != 0) | (v[2] != 0) << 1;
    return 1;
}

static void load_body(ac_body *body, const double *const *in, const size_t *steps, int tensor)
{
    body->velocity = in[0];
    body->angular_velocity = in[1];
    body->inverse_mass = in[2];
    body->inverse_inertia = in[3];
    body->center = in[4];
    memcpy(body->steps, steps, sizeof body->steps);
    body->inertia_tensor = tensor;
}

static ac_status collide_loop(const acpy_context *ctx, const double *const *in,
                              const size_t *steps, double *const *out, size_t n, ac_error *err)
{
    ac_body a, b;
    ac_body_update new_a = {out[0], out[1]}, new_b = {out[2], out[3]};
    load_body(&a, in, steps, (int)(ctx->option[0] & 1));
    load_body(&b, in + 5, steps + 5, (int)(ctx->option[0] >> 1 & 1));
    return ac_contact_collide(&a, &b, in[10], in[11], in[12], in[13], in[14], steps + 10,
                              (size_t)ctx->channels, &new_a, &new_b, out[4], out[5], n, err);
}

#define COLLIDE_KERNEL(var, name, inertia_a, inertia_b)                                      \
    static const acpy_kernel var = {                                                         \
        name,                                                                                \
        name "(func, (dim, tensor_a, tensor_b), a's velocity, angular_velocity, "            \
             "inverse_mass, inverse_inertia, center, b's ..., normal, point, restitution, "  \
             "friction, threshold, out, workers) -> (velocity_a, angular_velocity_a, "       \
             "velocity_b, angular_velocity_b, normal_impulse, tangent_impulse)",             \
        15,                                                                                  \
        6,                                                                                   \
        {{"a.velocity", ACPY_CHANNELS}, {"a.angular_velocity", ACPY_SPIN},                   \
         {"a.inverse_mass", 1}, {"a.inverse_inertia", inertia_a}, {"a.center", ACPY_CHANNELS},\
         {"b.velocity", ACPY_CHANNELS}, {"b.angular_velocity", ACPY_SPIN},                   \
         {"b.inverse_mass", 1}, {"b.inverse_inertia", inertia_b}, {"b.center", ACPY_CHANNELS},\
         {"normal", ACPY_CHANNELS}, {"point", ACPY_CHANNELS}, {"restitution", 1},            \
         {"friction", 1}, {"threshold", 1}},                                                 \
        {{"velocity_a", ACPY_CHANNELS}, {"angular_velocity_a", ACPY_SPIN},                   \
         {"velocity_b", ACPY_CHANNELS}, {"angular_velocity_b", ACPY_SPIN},                   \
         {"normal_impulse", 1}, {"tangent_impulse", ACPY_CHANNELS}},                         \
        collide_loop,                                                                        \
        1,                                                                                   \
        collide_context,                                                                     \
    }

COLLIDE_KERNEL(collide_scalar, "_collide", 1, 1);
COLLIDE_KERNEL(collide_tensor_a, "_collide_tensor_a", ACPY_3X3, 1);
COLLIDE_KERNEL(collide_tensor_b, "_collide_tensor_b", 1, ACPY_3X3);
COLLIDE_KERNEL(collide_tensors, "_collide_tensors", ACPY_3X3, ACPY_3X3);

static const acpy_kernel *const kernels[] = {&collide_scalar, &collide_tensor_a,
                                             &collide_tensor_b, &collide_tensors};

/* A writeable C-contiguous intc array of `size` elements. */
static int int_array(const char *func, const char *name, PyArrayObject *a, npy_intp size)
{
    if (PyArray_TYPE(a) != NPY_INT || !PyArray_ISCARRAY(a) || PyArray_SIZE(a) != size) {
        PyErr_Format(PyExc_ValueError, "%s: %s must be a writeable intc array of %zd elements",
                     func, name, size);
        return -1;
    }
    return 0;
}

/* advance_projectiles with spin and recorded contacts: the arguments of
   _advance, then angular_velocity (updated in place) and inverse_inertia, or
   None for both, then (plane, time, normal_impulse, tangent_impulse) slots or
   None. */
static PyObject *advance_spin(PyObject *self, PyObject *args)
{
    const char *func;
    PyArrayObject *position, *velocity, *radius, *dt, *point, *normal, *plane_velocity;
    PyArrayObject *restitution, *friction, *bounces, *angular = NULL, *inertia = NULL;
    PyArrayObject *ev_plane = NULL, *ev_time = NULL, *ev_normal = NULL, *ev_tangent = NULL;
    PyObject *events_obj;
    int max_bounces, nd;
    npy_intp n, m, dim;
    ac_planes planes;
    ac_projectile_params params;
    ac_projectile_spin spin;
    ac_projectile_events events;
    ac_error err;
    ac_status st;
    (void)self;
    if (!PyArg_ParseTuple(args, "sO&O&O&O&O&O&O&O&O&iO!O&O&O:_advance_spin", &func,
                          acpy_f64_out, &position, acpy_f64_out, &velocity, acpy_f64, &radius,
                          acpy_f64, &dt, acpy_f64, &point, acpy_f64, &normal, acpy_f64,
                          &plane_velocity, acpy_f64, &restitution, acpy_f64, &friction,
                          &max_bounces, &PyArray_Type, &bounces, acpy_f64_out_or_none, &angular,
                          acpy_f64_or_none, &inertia, &events_obj))
        return NULL;
    nd = PyArray_NDIM(position);
    dim = nd ? PyArray_DIM(position, nd - 1) : 0;
    if (dim != 2 && dim != 3) {
        PyErr_Format(PyExc_ValueError, "%s: vectors must have 2 or 3 components", func);
        return NULL;
    }
    n = PyArray_SIZE(position) / dim;
    m = PyArray_NDIM(point) == 2 ? PyArray_DIM(point, 0) : -1;
    if (!acpy_same_shape(func, "velocity", velocity, position) ||
        int_array(func, "bounces", bounces, n) < 0)
        return NULL;
    if (m < 0 || PyArray_DIM(point, 1) != dim ||
        !acpy_same_shape(func, "plane_normal", normal, point) ||
        !acpy_same_shape(func, "plane_velocity", plane_velocity, point)) {
        if (!PyErr_Occurred())
            PyErr_Format(PyExc_ValueError, "%s: plane_point must have shape (M, %zd)", func,
                         dim);
        return NULL;
    }
    planes.point = ACPY_F64(point);
    planes.normal = ACPY_F64(normal);
    planes.velocity = ACPY_F64(plane_velocity);
    planes.count = (size_t)m;
    planes.dim = (size_t)dim;
    params.radius = ACPY_F64(radius);
    params.dt = ACPY_F64(dt);
    params.restitution = ACPY_F64(restitution);
    params.friction = ACPY_F64(friction);
    params.max_bounces = max_bounces;
    if (acpy_step(func, "radius", radius, n, &params.radius_step) < 0 ||
        acpy_step(func, "dt", dt, n, &params.dt_step) < 0 ||
        acpy_pair_steps(func, "restitution", restitution, n, m, params.restitution_steps) < 0 ||
        acpy_pair_steps(func, "friction", friction, n, m, params.friction_steps) < 0)
        return NULL;
    if ((angular == NULL) != (inertia == NULL)) {
        PyErr_Format(PyExc_ValueError, "%s: angular_velocity and inverse_inertia go together",
                     func);
        return NULL;
    }
    if (angular) {
        if (PyArray_SIZE(angular) != n * (dim == 2 ? 1 : 3) ||
            acpy_step(func, "inverse_inertia", inertia, n, &spin.inverse_inertia_step) < 0) {
            if (!PyErr_Occurred())
                PyErr_Format(PyExc_ValueError, "%s: angular_velocity must hold one item per "
                             "sphere", func);
            return NULL;
        }
        spin.angular_velocity = ACPY_F64(angular);
        spin.inverse_inertia = ACPY_F64(inertia);
    }
    if (events_obj != Py_None) {
        npy_intp slots;
        if (!PyArg_ParseTuple(events_obj, "O!O&O&O&:_advance_spin events", &PyArray_Type,
                              &ev_plane, acpy_f64_out, &ev_time, acpy_f64_out, &ev_normal,
                              acpy_f64_out, &ev_tangent))
            return NULL;
        slots = PyArray_SIZE(ev_time);
        if (int_array(func, "events.plane", ev_plane, slots) < 0)
            return NULL;
        if ((n && slots % n) || PyArray_SIZE(ev_normal) != slots ||
            PyArray_SIZE(ev_tangent) != slots * dim) {
            PyErr_Format(PyExc_ValueError, "%s: events must hold the same slots per sphere",
                         func);
            return NULL;
        }
        events.plane = (int *)PyArray_DATA(ev_plane);
        events.time = ACPY_F64(ev_time);
        events.normal_impulse = ACPY_F64(ev_normal);
        events.tangent_impulse = ACPY_F64(ev_tangent);
        events.capacity = n ? (size_t)(slots / n) : 0;
    }
    /* the work allowed, spheres x planes x contacts, decides (not n x m alone) */
    ACPY_RUN((double)n * (double)(m + 1) * (double)(max_bounces + 1),
             st = ac_contact_advance_spin(ACPY_F64(position), ACPY_F64(velocity), &planes,
                                          &params, angular ? &spin : NULL,
                                          ev_plane ? &events : NULL,
                                          (int *)PyArray_DATA(bounces), (size_t)n, &err));
    if (!st)
        Py_RETURN_NONE;
    /* the index counts planes, (sphere, plane) pairs or spheres */
    return acpy_raise_advance(func, &err, nd - 1, PyArray_DIMS(position), m);
}

static PyMethodDef methods[] = {
    {"_advance_spin", advance_spin, METH_VARARGS,
     "_advance_spin(func, <the arguments of _advance>, angular_velocity, inverse_inertia, "
     "events): angular_velocity and inverse_inertia or None, events a tuple (plane, time, "
     "normal_impulse, tangent_impulse) of slot arrays or None"},
    {NULL, NULL, 0, NULL},
};

int acpy_collide_init(PyObject *module)
{
    if (acpy_add_kernels(module, kernels, sizeof kernels / sizeof kernels[0]) < 0)
        return -1;
    return PyModule_AddFunctions(module, methods);
}
