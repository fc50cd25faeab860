/* Binding of the skeleton kernels: a capsule owns the validated hierarchy. */
#include "binding.h"

#define SKELETON_CAPSULE "animcore.ac_skeleton"

static void skeleton_free(PyObject *capsule)
{
    ac_skeleton_destroy((ac_skeleton *)PyCapsule_GetPointer(capsule, SKELETON_CAPSULE));
}

static ac_skeleton *get_skeleton(PyObject *capsule)
{
    return (ac_skeleton *)PyCapsule_GetPointer(capsule, SKELETON_CAPSULE);
}

/* _skeleton_create(func, parents int64 (J,)) -> capsule */
static PyObject *skeleton_create(PyObject *self, PyObject *args)
{
    const char *func;
    PyArrayObject *parents;
    ac_skeleton *skeleton = NULL;
    npy_intp j;
    ac_error err;
    ac_status st;
    PyObject *capsule;
    (void)self;
    if (!PyArg_ParseTuple(args, "sO&:_skeleton_create", &func, acpy_i64, &parents))
        return NULL;
    j = PyArray_SIZE(parents);
    ACPY_RUN(j, st = ac_skeleton_create((const int64_t *)PyArray_DATA(parents), (size_t)j,
                                        &skeleton, NULL, &err));
    if (st)
        return acpy_raise(func, &err, 1, &j);
    capsule = PyCapsule_New(skeleton, SKELETON_CAPSULE, skeleton_free);
    if (!capsule)
        ac_skeleton_destroy(skeleton);
    return capsule;
}

/* _skeleton_order(capsule, out int64 (J,)) */
static PyObject *skeleton_order(PyObject *self, PyObject *args)
{
    PyObject *capsule;
    PyArrayObject *out;
    ac_skeleton *skeleton;
    (void)self;
    if (!PyArg_ParseTuple(args, "OO&:_skeleton_order", &capsule, acpy_i64_out, &out))
        return NULL;
    if (!(skeleton = get_skeleton(capsule)))
        return NULL;
    if (PyArray_SIZE(out) != (npy_intp)ac_skeleton_joints(skeleton)) {
        PyErr_SetString(PyExc_ValueError, "_skeleton_order: out must hold one value per joint");
        return NULL;
    }
    ac_skeleton_order(skeleton, (int64_t *)PyArray_DATA(out));
    Py_RETURN_NONE;
}

/* Poses in a (..., J, 4, 4) output of J joints; -1 with a ValueError if it is not one. */
static int matrix_poses(const char *func, PyArrayObject *out, npy_intp joints, npy_intp *n)
{
    int nd = PyArray_NDIM(out);
    if (nd < 3 || PyArray_DIMS(out)[nd - 1] != 4 || PyArray_DIMS(out)[nd - 2] != 4 ||
        PyArray_DIMS(out)[nd - 3] != joints) {
        PyErr_Format(PyExc_ValueError, "%s: the output must have shape (..., %zd, 4, 4)", func,
                     joints);
        return -1;
    }
    *n = joints ? PyArray_SIZE(out) / (16 * joints) : 0;
    return 0;
}

/* _skeleton_world(func, capsule, translation, rotation, scale, out (..., J, 4, 4)) */
static PyObject *skeleton_world(PyObject *self, PyObject *args)
{
    const char *func;
    PyObject *capsule;
    PyArrayObject *t, *r, *s, *out;
    ac_skeleton *skeleton;
    size_t steps[3];
    npy_intp n, joints;
    ac_error err;
    ac_status st;
    (void)self;
    if (!PyArg_ParseTuple(args, "sOO&O&O&O&:_skeleton_world", &func, &capsule, acpy_f64, &t,
                          acpy_f64, &r, acpy_f64, &s, acpy_f64_out, &out))
        return NULL;
    if (!(skeleton = get_skeleton(capsule)))
        return NULL;
    joints = (npy_intp)ac_skeleton_joints(skeleton);
    if (matrix_poses(func, out, joints, &n) < 0 ||
        acpy_item_step(func, "translation", t, n, 3 * joints, &steps[0]) < 0 ||
        acpy_item_step(func, "rotation", r, n, 4 * joints, &steps[1]) < 0 ||
        acpy_item_step(func, "scale", s, n, 3 * joints, &steps[2]) < 0)
        return NULL;
    ACPY_RUN(n * joints, st = ac_skeleton_world(skeleton, ACPY_F64(t), ACPY_F64(r), ACPY_F64(s),
                                                steps, ACPY_F64(out), (size_t)n, &err));
    if (st)
        return acpy_raise(func, &err, PyArray_NDIM(out) - 2, PyArray_DIMS(out));
    Py_RETURN_NONE;
}

/* _skeleton_local(func, capsule, world, out), both (..., J, 4, 4) */
static PyObject *skeleton_local(PyObject *self, PyObject *args)
{
    const char *func;
    PyObject *capsule;
    PyArrayObject *world, *out;
    ac_skeleton *skeleton;
    npy_intp n, joints;
    ac_error err;
    ac_status st;
    (void)self;
    if (!PyArg_ParseTuple(args, "sOO&O&:_skeleton_local", &func, &capsule, acpy_f64, &world,
                          acpy_f64_out, &out))
        return NULL;
    if (!(skeleton = get_skeleton(capsule)))
        return NULL;
    joints = (npy_intp)ac_skeleton_joints(skeleton);
    if (matrix_poses(func, out, joints, &n) < 0 || !acpy_same_shape(func, "world", world, out))
        return NULL;
    ACPY_RUN(n * joints, st = ac_skeleton_local(skeleton, ACPY_F64(world), ACPY_F64(out),
                                                (size_t)n, &err));
    if (st)
        return acpy_raise(func, &err, PyArray_NDIM(out) - 2, PyArray_DIMS(out));
    Py_RETURN_NONE;
}

/* _skeleton_decompose(func, matrices (..., 4, 4), t (..., 3), r (..., 4), s (..., 3)) */
static PyObject *skeleton_decompose(PyObject *self, PyObject *args)
{
    const char *func;
    PyArrayObject *m, *t, *r, *s;
    npy_intp n;
    ac_error err;
    ac_status st;
    (void)self;
    if (!PyArg_ParseTuple(args, "sO&O&O&O&:_skeleton_decompose", &func, acpy_f64, &m,
                          acpy_f64_out, &t, acpy_f64_out, &r, acpy_f64_out, &s))
        return NULL;
    n = PyArray_SIZE(m) / 16;
    if (PyArray_NDIM(m) < 2 || PyArray_SIZE(t) != 3 * n || PyArray_SIZE(r) != 4 * n ||
        PyArray_SIZE(s) != 3 * n) {
        PyErr_Format(PyExc_ValueError, "%s: outputs must hold 3, 4 and 3 values per matrix",
                     func);
        return NULL;
    }
    ACPY_RUN(n, st = ac_skeleton_decompose(ACPY_F64(m), ACPY_F64(t), ACPY_F64(r), ACPY_F64(s),
                                           (size_t)n, &err));
    if (st)
        return acpy_raise(func, &err, PyArray_NDIM(m) - 2, PyArray_DIMS(m));
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"_skeleton_create", skeleton_create, METH_VARARGS, "_skeleton_create(func, parents)"},
    {"_skeleton_order", skeleton_order, METH_VARARGS, "_skeleton_order(skeleton, out)"},
    {"_skeleton_world", skeleton_world, METH_VARARGS,
     "_skeleton_world(func, skeleton, translation, rotation, scale, out)"},
    {"_skeleton_local", skeleton_local, METH_VARARGS,
     "_skeleton_local(func, skeleton, world, out)"},
    {"_skeleton_decompose", skeleton_decompose, METH_VARARGS,
     "_skeleton_decompose(func, matrices, translation, rotation, scale)"},
    {NULL, NULL, 0, NULL},
};

int acpy_skeleton_init(PyObject *module)
{
    return PyModule_AddFunctions(module, methods);
}
