/* Binding of the contact between two moving rigid bodies (ac_contact_collide)
   and of spheres stepped with spin and recorded contacts (ac_contact_advance_spin). */
#include "binding.h"

#include <string.h>

/* Steps of one body's inputs over n contacts. */
static int body_steps(const char *func, const char *const names[5], PyArrayObject *in[5],
                      npy_intp n, npy_intp dim, int tensor, size_t steps[5])
{
    const npy_intp widths[5] = {dim, dim == 2 ? 1 : 3, 1, tensor ? 9 : 1, dim};
    for (int k = 0; k < 5; k++)
        if (acpy_item_step(func, names[k], in[k], n, widths[k], &steps[k]) < 0)
            return -1;
    return 0;
}

static PyObject *collide(PyObject *self, PyObject *args)
{
    static const char *const names_a[5] = {"a.velocity", "a.angular_velocity",
                                           "a.inverse_mass", "a.inverse_inertia", "a.center"};
    static const char *const names_b[5] = {"b.velocity", "b.angular_velocity",
                                           "b.inverse_mass", "b.inverse_inertia", "b.center"};
    static const char *const names_c[5] = {"normal", "point", "restitution", "friction",
                                           "threshold"};
    const char *func;
    PyArrayObject *a[5], *b[5], *c[5], *o[6];
    int tensor_a, tensor_b, nd;
    size_t steps[5];
    npy_intp n, dim;
    ac_body body_a, body_b;
    ac_body_update new_a, new_b;
    ac_error err;
    ac_status st;
    (void)self;
    if (!PyArg_ParseTuple(args, "s(O&O&O&O&O&)p(O&O&O&O&O&)p(O&O&O&O&O&)(O&O&O&O&O&O&):_collide",
                          &func, acpy_f64, &a[0], acpy_f64, &a[1], acpy_f64, &a[2], acpy_f64,
                          &a[3], acpy_f64, &a[4], &tensor_a, acpy_f64, &b[0], acpy_f64, &b[1],
                          acpy_f64, &b[2], acpy_f64, &b[3], acpy_f64, &b[4], &tensor_b,
                          acpy_f64, &c[0], acpy_f64, &c[1], acpy_f64, &c[2], acpy_f64, &c[3],
                          acpy_f64, &c[4], acpy_f64_out, &o[0], acpy_f64_out, &o[1],
                          acpy_f64_out, &o[2], acpy_f64_out, &o[3], acpy_f64_out, &o[4],
                          acpy_f64_out, &o[5]))
        return NULL;
    nd = PyArray_NDIM(o[0]);
    dim = nd ? PyArray_DIM(o[0], nd - 1) : 0;
    n = PyArray_SIZE(o[4]);
    if ((dim != 2 && dim != 3) || PyArray_SIZE(o[0]) != n * dim ||
        PyArray_SIZE(o[2]) != n * dim || PyArray_SIZE(o[5]) != n * dim ||
        PyArray_SIZE(o[1]) != n * (dim == 2 ? 1 : 3) || PyArray_SIZE(o[3]) != PyArray_SIZE(o[1])) {
        PyErr_Format(PyExc_ValueError, "%s: results must hold n vectors of 2 or 3 components",
                     func);
        return NULL;
    }
    if (body_steps(func, names_a, a, n, dim, tensor_a, body_a.steps) < 0 ||
        body_steps(func, names_b, b, n, dim, tensor_b, body_b.steps) < 0)
        return NULL;
    for (int k = 0; k < 5; k++)
        if (acpy_item_step(func, names_c[k], c[k], n, k < 2 ? dim : 1, &steps[k]) < 0)
            return NULL;
    body_a.velocity = ACPY_F64(a[0]);
    body_a.angular_velocity = ACPY_F64(a[1]);
    body_a.inverse_mass = ACPY_F64(a[2]);
    body_a.inverse_inertia = ACPY_F64(a[3]);
    body_a.center = ACPY_F64(a[4]);
    body_a.inertia_tensor = tensor_a;
    body_b.velocity = ACPY_F64(b[0]);
    body_b.angular_velocity = ACPY_F64(b[1]);
    body_b.inverse_mass = ACPY_F64(b[2]);
    body_b.inverse_inertia = ACPY_F64(b[3]);
    body_b.center = ACPY_F64(b[4]);
    body_b.inertia_tensor = tensor_b;
    new_a.velocity = ACPY_F64(o[0]);
    new_a.angular_velocity = ACPY_F64(o[1]);
    new_b.velocity = ACPY_F64(o[2]);
    new_b.angular_velocity = ACPY_F64(o[3]);
    ACPY_RUN(n, st = ac_contact_collide(&body_a, &body_b, ACPY_F64(c[0]), ACPY_F64(c[1]),
                                        ACPY_F64(c[2]), ACPY_F64(c[3]), ACPY_F64(c[4]), steps,
                                        (size_t)dim, &new_a, &new_b, ACPY_F64(o[4]),
                                        ACPY_F64(o[5]), (size_t)n, &err));
    if (st)
        return acpy_raise(func, &err, PyArray_NDIM(o[4]), PyArray_DIMS(o[4]));
    Py_RETURN_NONE;
}

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
    {"_collide", collide, METH_VARARGS,
     "_collide(func, (a's velocity, angular_velocity, inverse_mass, inverse_inertia, center), "
     "a_tensor, (b's ...), b_tensor, (normal, point, restitution, friction, threshold), "
     "(velocity_a, angular_velocity_a, velocity_b, angular_velocity_b, normal_impulse, "
     "tangent_impulse)); func names the caller in error messages"},
    {"_advance_spin", advance_spin, METH_VARARGS,
     "_advance_spin(func, <the arguments of _advance>, angular_velocity, inverse_inertia, "
     "events): angular_velocity and inverse_inertia or None, events a tuple (plane, time, "
     "normal_impulse, tangent_impulse) of slot arrays or None"},
    {NULL, NULL, 0, NULL},
};

int acpy_collide_init(PyObject *module)
{
    return PyModule_AddFunctions(module, methods);
}
