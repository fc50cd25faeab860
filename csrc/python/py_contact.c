#include "binding.h"

#include <string.h>

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

static PyObject *bounce(PyObject *self, PyObject *args)
{
    static const char *const names[6] = {"velocity",    "surface_velocity", "normal",
                                         "restitution", "friction",         "threshold"};
    const char *func;
    PyArrayObject *in[6], *result;
    size_t steps[6], dim;
    npy_intp n;
    ac_error err;
    ac_status st;
    (void)self;
    if (!PyArg_ParseTuple(args, "sO&O&O&O&O&O&O&:_bounce", &func, acpy_f64, &in[0], acpy_f64,
                          &in[1], acpy_f64, &in[2], acpy_f64, &in[3], acpy_f64, &in[4],
                          acpy_f64, &in[5], acpy_f64_out, &result))
        return NULL;
    if (vector_dim(func, result, &dim, &n) < 0)
        return NULL;
    for (int k = 0; k < 3; k++)
        if (acpy_item_step(func, names[k], in[k], n, (npy_intp)dim, &steps[k]) < 0)
            return NULL;
    for (int k = 3; k < 6; k++)
        if (acpy_step(func, names[k], in[k], n, &steps[k]) < 0)
            return NULL;
    ACPY_RUN(n, st = ac_contact_bounce(ACPY_F64(in[0]), ACPY_F64(in[1]), ACPY_F64(in[2]),
                                       ACPY_F64(in[3]), ACPY_F64(in[4]), ACPY_F64(in[5]),
                                       steps, dim, ACPY_F64(result), (size_t)n, &err));
    if (st)
        return acpy_raise(func, &err, PyArray_NDIM(result) - 1, PyArray_DIMS(result));
    Py_RETURN_NONE;
}

static PyObject *point_velocity(PyObject *self, PyObject *args)
{
    const char *func;
    PyArrayObject *linear, *angular, *offset, *result;
    size_t steps[3], dim;
    npy_intp n;
    ac_error err;
    ac_status st;
    (void)self;
    if (!PyArg_ParseTuple(args, "sO&O&O&O&:_point_velocity", &func, acpy_f64, &linear,
                          acpy_f64, &angular, acpy_f64, &offset, acpy_f64_out, &result))
        return NULL;
    if (vector_dim(func, result, &dim, &n) < 0 ||
        acpy_item_step(func, "linear_velocity", linear, n, (npy_intp)dim, &steps[0]) < 0 ||
        acpy_item_step(func, "angular_velocity", angular, n, dim == 2 ? 1 : 3, &steps[1]) < 0 ||
        acpy_item_step(func, "offset", offset, n, (npy_intp)dim, &steps[2]) < 0)
        return NULL;
    ACPY_RUN(n, st = ac_contact_point_velocity(ACPY_F64(linear), ACPY_F64(angular),
                                               ACPY_F64(offset), steps, dim,
                                               ACPY_F64(result), (size_t)n, &err));
    if (st)
        return acpy_raise(func, &err, PyArray_NDIM(result) - 1, PyArray_DIMS(result));
    Py_RETURN_NONE;
}

/* Steps over (sphere, plane) of a 2-D parameter array of shape (1 or n,
   1 or m). */
static int pair_steps(const char *func, const char *name, PyArrayObject *a, npy_intp n,
                      npy_intp m, size_t steps[2])
{
    npy_intp rows, cols;
    if (PyArray_NDIM(a) != 2)
        goto bad;
    rows = PyArray_DIM(a, 0);
    cols = PyArray_DIM(a, 1);
    if ((rows != 1 && rows != n) || (cols != 1 && cols != m))
        goto bad;
    steps[0] = rows == 1 ? 0 : (size_t)cols;
    steps[1] = cols == 1 ? 0 : 1;
    return 0;
bad:
    PyErr_Format(PyExc_ValueError, "%s: %s must have shape (1 or %zd, 1 or %zd)", func, name,
                 n, m);
    return -1;
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
        pair_steps(func, "restitution", restitution, n, m, params.restitution_steps) < 0 ||
        pair_steps(func, "friction", friction, n, m, params.friction_steps) < 0)
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
    if (strncmp(err.arg, "plane_", 6) == 0)
        return acpy_raise(func, &err, 1, &m);
    if (strcmp(err.arg, "max_bounces") == 0)
        return acpy_raise(func, &err, 0, NULL);
    if (strcmp(err.arg, "restitution") == 0 || strcmp(err.arg, "friction") == 0) {
        npy_intp shape[NPY_MAXDIMS];
        memcpy(shape, PyArray_DIMS(position), (size_t)nd * sizeof *shape);
        shape[nd] = m;
        return acpy_raise(func, &err, nd + 1, shape);
    }
    return acpy_raise(func, &err, nd, PyArray_DIMS(position));
}

static PyMethodDef methods[] = {
    {"_bounce", bounce, METH_VARARGS,
     "_bounce(func, velocity, surface_velocity, normal, restitution, friction, threshold, "
     "result); func names the caller in error messages"},
    {"_point_velocity", point_velocity, METH_VARARGS,
     "_point_velocity(func, linear_velocity, angular_velocity, offset, result)"},
    {"_advance", advance, METH_VARARGS,
     "_advance(func, position, velocity, radius, dt, plane_point, plane_normal, "
     "plane_velocity, restitution, friction, max_bounces, bounces); position and "
     "velocity are updated in place"},
    {NULL, NULL, 0, NULL},
};

int acpy_contact_init(PyObject *module)
{
    return PyModule_AddFunctions(module, methods);
}
