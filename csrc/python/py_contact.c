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
        return ac_contact_bounce(in[0], in[1], in[2], in[3], in[4], in[5], steps, \
                                 dim, out[0], n, err);                           \
    }

#define POINT_LOOP(name, dim)                                                    \
    static ac_status name(const acpy_context *ctx, const double *const *in,      \
                          const size_t *steps, double *const *out, size_t n,     \
                          ac_error *err)                                         \
    {                                                                            \
        (void)ctx;                                                               \
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
        {{"result", dim}}, loop, 1, NULL,                                        \
    }

static const acpy_kernel bounce2 = BOUNCE_DECL("_bounce2", 2, bounce2_loop);
static const acpy_kernel bounce3 = BOUNCE_DECL("_bounce3", 3, bounce3_loop);
static const acpy_kernel point2 = {
    "_point_velocity2", "_point_velocity2(func, linear_velocity, angular_velocity, offset, "
    "out, workers)", 3, 1,
    {{"linear_velocity", 2}, {"angular_velocity", 1}, {"offset", 2}}, {{"result", 2}},
    point2_loop, 1, NULL,
};
static const acpy_kernel point3 = {
    "_point_velocity3", "_point_velocity3(func, linear_velocity, angular_velocity, offset, "
    "out, workers)", 3, 1,
    {{"linear_velocity", 3}, {"angular_velocity", 3}, {"offset", 3}}, {{"result", 3}},
    point3_loop, 1, NULL,
};

static const acpy_kernel *const kernels[] = {&bounce2, &bounce3, &point2, &point3};

/* The vector length of a result array: its last axis, 2 or 3. */
static int vector_dim(const char *func, PyArrayObject *result, size_t *dim, npy_intp *n)
{
    int nd = PyArray_NDIM(result);
    npy_intp d = nd ? PyArray_DIM(result, nd - 1) : 0;
    if (d != 2 && d != 3) {
        PyErr_Format(PyExc_ValueError, "%s: vectors must have 2 or 3 components", func);
        return -1;
    }
    *dim = (size_t)d;
    *n = PyArray_SIZE(result) / d;
    return 0;
}

static int int_array(PyObject *obj, void *result)
{
    PyArrayObject *a;
    if (!PyArray_Check(obj) || PyArray_TYPE((PyArrayObject *)obj) != NPY_INT ||
        !PyArray_ISCARRAY((PyArrayObject *)obj)) {
        PyErr_SetString(PyExc_TypeError, "expected a writeable C-contiguous intc array");
        return 0;
    }
    a = (PyArrayObject *)obj;
    *(PyArrayObject **)result = a;
    return 1;
}

static PyObject *advance(PyObject *self, PyObject *args)
{
    const char *func;
    PyArrayObject *position, *velocity, *radius, *dt, *point, *normal, *plane_velocity;
    PyArrayObject *restitution, *friction, *bounces;
    int max_bounces, nd;
    size_t dim;
    npy_intp n, m;
    ac_planes planes;
    ac_projectile_params params;
    ac_error err;
    ac_status st;
    (void)self;
    if (!PyArg_ParseTuple(args, "sO&O&O&O&O&O&O&O&O&iO&:_advance", &func, acpy_f64_out,
                          &position, acpy_f64_out, &velocity, acpy_f64, &radius, acpy_f64,
                          &dt, acpy_f64, &point, acpy_f64, &normal, acpy_f64,
                          &plane_velocity, acpy_f64, &restitution, acpy_f64, &friction,
                          &max_bounces, int_array, &bounces))
        return NULL;
    if (vector_dim(func, position, &dim, &n) < 0 ||
        !acpy_same_shape(func, "velocity", velocity, position))
        return NULL;
    m = PyArray_NDIM(point) == 2 ? PyArray_DIM(point, 0) : -1;
    if (m < 0 || PyArray_DIM(point, 1) != (npy_intp)dim ||
        !acpy_same_shape(func, "plane_normal", normal, point) ||
        !acpy_same_shape(func, "plane_velocity", plane_velocity, point)) {
        if (!PyErr_Occurred())
            PyErr_Format(PyExc_ValueError, "%s: plane_point must have shape (M, %zu)", func,
                         dim);
        return NULL;
    }
    if (PyArray_SIZE(bounces) != n) {
        PyErr_Format(PyExc_ValueError, "%s: bounces must have %zd elements", func, n);
        return NULL;
    }
    planes.point = ACPY_F64(point);
    planes.normal = ACPY_F64(normal);
    planes.velocity = ACPY_F64(plane_velocity);
    planes.count = (size_t)m;
    planes.dim = dim;
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
    /* the work allowed, spheres x planes x contacts, decides (not n x m alone) */
    ACPY_RUN((double)n * (double)(m + 1) * (double)(max_bounces + 1),
             st = ac_contact_advance(ACPY_F64(position), ACPY_F64(velocity),
                                                  &planes, &params, (int *)PyArray_DATA(bounces),
                                                  (size_t)n, &err));
    if (!st)
        Py_RETURN_NONE;
    /* Unravel the index over what it counts: planes, (sphere, plane) pairs
       or spheres. */
    nd = PyArray_NDIM(position) - 1;
    return acpy_raise_advance(func, &err, nd, PyArray_DIMS(position), m);
}

static PyMethodDef methods[] = {
    {"_advance", advance, METH_VARARGS,
     "_advance(func, position, velocity, radius, dt, plane_point, plane_normal, "
     "plane_velocity, restitution, friction, max_bounces, bounces); position and "
     "velocity are updated in place"},
    {NULL, NULL, 0, NULL},
};

int acpy_contact_init(PyObject *module)
{
    if (acpy_add_kernels(module, kernels, sizeof kernels / sizeof kernels[0]) < 0)
        return -1;
    return PyModule_AddFunctions(module, methods);
}
