#include "binding.h"

#define CAPSULE_NAME "animcore._core.looptrack"

static void capsule_destroy(PyObject *capsule)
{
    ac_rootmotion_destroy((ac_looptrack *)PyCapsule_GetPointer(capsule, CAPSULE_NAME));
}

static int track_converter(PyObject *obj, void *result)
{
    ac_looptrack *tr = (ac_looptrack *)PyCapsule_GetPointer(obj, CAPSULE_NAME);
    if (!tr)
        return 0;
    *(ac_looptrack **)result = tr;
    return 1;
}

static size_t rotation_size(const ac_looptrack *tr)
{
    switch (ac_rootmotion_rotation(tr)) {
    case AC_ROOT_YAW: return 1;
    case AC_ROOT_QUAT: return 4;
    default: return 0;
    }
}

/* The rotation output must be given exactly for turning tracks. */
static int check_rotation(const char *func, const ac_looptrack *tr, PyArrayObject *rotation,
                          npy_intp n)
{
    size_t rs = rotation_size(tr);
    if (rs && (!rotation || PyArray_SIZE(rotation) != n * (npy_intp)rs)) {
        PyErr_Format(PyExc_ValueError, "%s: rotation output must hold %zd values", func,
                     n * (npy_intp)rs);
        return 0;
    }
    if (!rs && rotation) {
        PyErr_Format(PyExc_ValueError, "%s: this track has no rotations", func);
        return 0;
    }
    return 1;
}

static PyObject *create(PyObject *self, PyObject *args)
{
    const char *func;
    PyArrayObject *times, *positions, *rotations;
    int interpolation, kind, up_axis;
    double max_cycles;
    npy_intp k, channels;
    ac_looptrack *tr = NULL;
    ac_error err;
    ac_status st;
    PyObject *capsule;
    (void)self;
    if (!PyArg_ParseTuple(args, "sO&O&iiO&id:_rootmotion_create", &func, acpy_f64, &times,
                          acpy_f64, &positions, &interpolation, &kind, acpy_f64_or_none,
                          &rotations, &up_axis, &max_cycles))
        return NULL;
    k = PyArray_SIZE(times);
    if (PyArray_NDIM(times) != 1 || PyArray_NDIM(positions) != 2 ||
        PyArray_DIM(positions, 0) != k) {
        PyErr_Format(PyExc_ValueError, "%s: expected times (K,) and positions (K, C)", func);
        return NULL;
    }
    channels = PyArray_DIM(positions, 1);
    if (kind != AC_ROOT_NO_ROTATION &&
        (!rotations || PyArray_SIZE(rotations) != k * (kind == AC_ROOT_QUAT ? 4 : 1))) {
        PyErr_Format(PyExc_ValueError, "%s: rotations do not match the keys", func);
        return NULL;
    }
    st = ac_rootmotion_create(&tr, ACPY_F64(times), ACPY_F64(positions), (size_t)k,
                              (size_t)channels, (ac_root_interpolation)interpolation,
                              (ac_root_rotation)kind, rotations ? ACPY_F64(rotations) : NULL,
                              up_axis, max_cycles, &err);
    if (st) {
        PyArrayObject *where = NULL;
        if (strcmp(err.arg, "times") == 0)
            where = times;
        else if (strcmp(err.arg, "positions") == 0)
            where = positions;
        else if (strcmp(err.arg, "rotations") == 0)
            where = rotations;
        if (where)
            return acpy_raise(func, &err, PyArray_NDIM(where), PyArray_DIMS(where));
        return acpy_raise(func, &err, 0, NULL);
    }
    capsule = PyCapsule_New(tr, CAPSULE_NAME, capsule_destroy);
    if (!capsule)
        ac_rootmotion_destroy(tr);
    return capsule;
}

static PyObject *split(PyObject *self, PyObject *args)
{
    const char *func, *arg;
    ac_looptrack *tr;
    PyArrayObject *t, *cycle, *phase;
    npy_intp n;
    ac_error err;
    ac_status st;
    (void)self;
    if (!PyArg_ParseTuple(args, "ssO&O&O&O&:_rootmotion_split", &func, &arg, track_converter,
                          &tr, acpy_f64, &t, acpy_f64_out, &cycle, acpy_f64_out, &phase))
        return NULL;
    if (!acpy_same_shape(func, "cycle", cycle, t) || !acpy_same_shape(func, "phase", phase, t))
        return NULL;
    n = PyArray_SIZE(t);
    ACPY_RUN(n, st = ac_rootmotion_split(tr, ACPY_F64(t), ACPY_F64(cycle), ACPY_F64(phase),
                                         (size_t)n, &err));
    if (st) {
        static const char bound[] = "must satisfy |t/";
        if (strncmp(err.detail, bound, sizeof bound - 1) == 0) { /* the caller's name */
            char detail[AC_DETAIL_SIZE];
            PyOS_snprintf(detail, sizeof detail, "must satisfy |%s/%s", arg,
                          err.detail + sizeof bound - 1);
            memcpy(err.detail, detail, sizeof detail);
        }
        err.arg = arg;
        return acpy_raise(func, &err, PyArray_NDIM(t), PyArray_DIMS(t));
    }
    Py_RETURN_NONE;
}

static PyObject *sample(PyObject *self, PyObject *args)
{
    const char *func;
    ac_looptrack *tr;
    PyArrayObject *phase, *position, *rotation;
    npy_intp n;
    ac_error err;
    ac_status st;
    (void)self;
    if (!PyArg_ParseTuple(args, "sO&O&O&O&:_rootmotion_sample", &func, track_converter, &tr,
                          acpy_f64, &phase, acpy_f64_out, &position, acpy_f64_out_or_none,
                          &rotation))
        return NULL;
    n = PyArray_SIZE(phase);
    if (PyArray_SIZE(position) != n * (npy_intp)ac_rootmotion_channels(tr)) {
        PyErr_Format(PyExc_ValueError, "%s: position output has the wrong size", func);
        return NULL;
    }
    if (rotation && !check_rotation(func, tr, rotation, n))
        return NULL;
    ACPY_RUN(n, st = ac_rootmotion_sample(tr, ACPY_F64(phase), ACPY_F64(position),
                                          rotation ? ACPY_F64(rotation) : NULL, (size_t)n,
                                          &err));
    if (st)
        return acpy_raise(func, &err, PyArray_NDIM(phase), PyArray_DIMS(phase));
    Py_RETURN_NONE;
}

/* n motions into translation (shape S + (C,)); the error index is unravelled
   over S. */
static int motion_outputs(const char *func, const ac_looptrack *tr, PyArrayObject *translation,
                          PyArrayObject *rotation, npy_intp *n)
{
    npy_intp ch = (npy_intp)ac_rootmotion_channels(tr);
    int nd = PyArray_NDIM(translation);
    if (nd < 1 || PyArray_DIM(translation, nd - 1) != ch) {
        PyErr_Format(PyExc_ValueError, "%s: translation output must end with %zd channels",
                     func, ch);
        return 0;
    }
    *n = PyArray_SIZE(translation) / ch;
    return check_rotation(func, tr, rotation, *n);
}

static PyObject *delta(PyObject *self, PyObject *args)
{
    const char *func;
    ac_looptrack *tr;
    PyArrayObject *t0, *t1, *translation, *rotation;
    npy_intp n;
    size_t steps[2];
    ac_error err;
    ac_status st;
    (void)self;
    if (!PyArg_ParseTuple(args, "sO&O&O&O&O&:_rootmotion_delta", &func, track_converter, &tr,
                          acpy_f64, &t0, acpy_f64, &t1, acpy_f64_out, &translation,
                          acpy_f64_out_or_none, &rotation))
        return NULL;
    if (!motion_outputs(func, tr, translation, rotation, &n) ||
        acpy_step(func, "t0", t0, n, &steps[0]) < 0 || acpy_step(func, "t1", t1, n, &steps[1]) < 0)
        return NULL;
    ACPY_RUN(n, st = ac_rootmotion_delta(tr, ACPY_F64(t0), ACPY_F64(t1), steps,
                                         ACPY_F64(translation),
                                         rotation ? ACPY_F64(rotation) : NULL, (size_t)n,
                                         &err));
    if (st)
        return acpy_raise(func, &err, PyArray_NDIM(translation) - 1, PyArray_DIMS(translation));
    Py_RETURN_NONE;
}

static PyObject *advance(PyObject *self, PyObject *args)
{
    const char *func;
    ac_looptrack *tr;
    PyArrayObject *cycle, *phase, *value, *new_cycle, *new_phase, *translation, *rotation;
    int absolute;
    npy_intp n;
    size_t steps[3];
    ac_error err;
    ac_status st;
    (void)self;
    if (!PyArg_ParseTuple(args, "sO&O&O&O&pO&O&O&O&:_rootmotion_advance", &func,
                          track_converter, &tr, acpy_i64, &cycle, acpy_f64, &phase,
                          acpy_f64, &value, &absolute, acpy_i64_out, &new_cycle,
                          acpy_f64_out, &new_phase, acpy_f64_out, &translation,
                          acpy_f64_out_or_none, &rotation))
        return NULL;
    if (!motion_outputs(func, tr, translation, rotation, &n))
        return NULL;
    if (PyArray_SIZE(new_cycle) != n || PyArray_SIZE(new_phase) != n) {
        PyErr_Format(PyExc_ValueError, "%s: state outputs must hold %zd values", func, n);
        return NULL;
    }
    if (acpy_step(func, "cycle", cycle, n, &steps[0]) < 0 ||
        acpy_step(func, "phase", phase, n, &steps[1]) < 0 ||
        acpy_step(func, absolute ? "t" : "dt", value, n, &steps[2]) < 0)
        return NULL;
    ACPY_RUN(n, st = ac_rootmotion_advance(tr, (const int64_t *)PyArray_DATA(cycle),
                                           ACPY_F64(phase), ACPY_F64(value), steps, absolute,
                                           (int64_t *)PyArray_DATA(new_cycle),
                                           ACPY_F64(new_phase), ACPY_F64(translation),
                                           rotation ? ACPY_F64(rotation) : NULL, (size_t)n,
                                           &err));
    if (st)
        return acpy_raise(func, &err, PyArray_NDIM(translation) - 1, PyArray_DIMS(translation));
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"_rootmotion_create", create, METH_VARARGS,
     "_rootmotion_create(func, times, positions, interpolation, kind, rotations_or_None, "
     "up_axis, max_cycles) -> track capsule"},
    {"_rootmotion_split", split, METH_VARARGS, "_rootmotion_split(func, arg, track, t, cycle, phase); arg names t in errors"},
    {"_rootmotion_sample", sample, METH_VARARGS,
     "_rootmotion_sample(func, track, phase, position, rotation_or_None)"},
    {"_rootmotion_delta", delta, METH_VARARGS,
     "_rootmotion_delta(func, track, t0, t1, translation, rotation_or_None)"},
    {"_rootmotion_advance", advance, METH_VARARGS,
     "_rootmotion_advance(func, track, cycle, phase, value, absolute, new_cycle, new_phase, "
     "translation, rotation_or_None)"},
    {NULL, NULL, 0, NULL},
};

int acpy_rootmotion_init(PyObject *module)
{
    return PyModule_AddFunctions(module, methods);
}
