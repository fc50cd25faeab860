/* Binding of the tools' automatic tangents (ac_tangents.c): key arrays in,
   fresh handle or slope arrays out. */
#include "binding.h"

/* Errors on points count over (key, coordinate), on handle types over keys
   (shown as integers); times over keys, values and slopes over (K,) or (K, C). */
static const acpy_arg_error blender_errors[] = {
    {AC_ARG_KEYS, 0, NULL, 0},       {AC_ARG_LEFT, 0, NULL, 0},
    {AC_ARG_RIGHT, 0, NULL, 0},      {AC_ARG_LEFT_TYPES, 1, NULL, 1},
    {AC_ARG_RIGHT_TYPES, 1, NULL, 1}, {AC_ARG_SCRATCH, ACPY_NO_INDEX, NULL, 1},
};
static const acpy_arg_error auto_ease_errors[] = {
    {AC_ARG_TIMES, 1, NULL, 0},
    {AC_ARG_VALUES, 0, NULL, 0},
    {AC_ARG_SLOPES, 0, NULL, 0},
};

static int acpy_u8(PyObject *obj, void *result)
{
    return acpy_array(obj, (PyArrayObject **)result, NPY_UINT8, 0);
}

static int is_points(const char *func, const char *name, PyArrayObject *a, npy_intp k)
{
    if (PyArray_NDIM(a) != 2 || PyArray_DIM(a, 0) != k || PyArray_DIM(a, 1) != 2) {
        PyErr_Format(PyExc_ValueError, "%s: %s must have shape (%zd, 2)", func, name, k);
        return 0;
    }
    return 1;
}

static PyObject *tangents_blender(PyObject *self, PyObject *args)
{
    const char *func;
    PyArrayObject *keys, *lt, *rt, *left_in, *right_in, *left, *right;
    unsigned int flags;
    npy_intp k;
    ac_status status;
    ac_error err;
    (void)self;
    if (!PyArg_ParseTuple(args, "sO&O&O&IO&O&:_tangents_blender", &func, acpy_f64, &keys,
                          acpy_u8, &lt, acpy_u8, &rt, &flags, acpy_f64, &left_in, acpy_f64,
                          &right_in))
        return NULL;
    if (PyArray_NDIM(keys) != 2 || PyArray_DIM(keys, 1) != 2) {
        PyErr_Format(PyExc_ValueError, "%s: keys must have shape (K, 2)", func);
        return NULL;
    }
    k = PyArray_DIM(keys, 0);
    if (!is_points(func, "left", left_in, k) ||
        !is_points(func, "right", right_in, k))
        return NULL;
    if (PyArray_SIZE(lt) != k || PyArray_SIZE(rt) != k) {
        PyErr_Format(PyExc_ValueError, "%s: handle types must have %zd entries", func, k);
        return NULL;
    }
    left = (PyArrayObject *)PyArray_NewCopy(left_in, NPY_CORDER);
    right = (PyArrayObject *)PyArray_NewCopy(right_in, NPY_CORDER);
    if (!left || !right) {
        Py_XDECREF(left);
        Py_XDECREF(right);
        return NULL;
    }
    ACPY_RUN(k, status = ac_tangents_blender(ACPY_F64(keys), PyArray_DATA(lt), PyArray_DATA(rt),
                                             (size_t)k, flags, ACPY_F64(left), ACPY_F64(right),
                                             NULL, &err));
    if (status != AC_OK) {
        npy_intp shape[2] = {k, 2};
        acpy_space spaces[2] = {{2, shape}, {1, shape}};
        Py_DECREF(left);
        Py_DECREF(right);
        return acpy_raise_as(func, &err, blender_errors,
                             sizeof blender_errors / sizeof *blender_errors, spaces);
    }
    return Py_BuildValue("NN", left, right);
}

static PyObject *tangents_auto_ease(PyObject *self, PyObject *args)
{
    const char *func;
    PyArrayObject *times, *values, *slopes;
    npy_intp k, c;
    ac_status status;
    ac_error err;
    (void)self;
    if (!PyArg_ParseTuple(args, "sO&O&:_tangents_auto_ease", &func, acpy_f64, &times,
                          acpy_f64, &values))
        return NULL;
    k = PyArray_SIZE(times);
    if (PyArray_NDIM(times) != 1 || PyArray_NDIM(values) < 1 || PyArray_NDIM(values) > 2 ||
        PyArray_DIM(values, 0) != k) {
        PyErr_Format(PyExc_ValueError, "%s: values must have shape (%zd,) or (%zd, C)", func,
                     k, k);
        return NULL;
    }
    c = PyArray_NDIM(values) == 2 ? PyArray_DIM(values, 1) : 1;
    slopes = (PyArrayObject *)PyArray_SimpleNew(PyArray_NDIM(values), PyArray_DIMS(values),
                                                NPY_FLOAT64);
    if (!slopes)
        return NULL;
    ACPY_RUN(k * c, status = ac_tangents_auto_ease(ACPY_F64(times), ACPY_F64(values),
                                                   (size_t)k, (size_t)c, ACPY_F64(slopes),
                                                   &err));
    if (status != AC_OK) {
        acpy_space spaces[2] = {{PyArray_NDIM(values), PyArray_DIMS(values)},
                                {1, PyArray_DIMS(times)}};
        Py_DECREF(slopes);
        return acpy_raise_as(func, &err, auto_ease_errors,
                             sizeof auto_ease_errors / sizeof *auto_ease_errors, spaces);
    }
    return (PyObject *)slopes;
}

/* _tangents_fbx(times, values, flags, data, right_weights, next_left_weights,
   first) -> (in_slopes, out_slopes): ac_tangents_fbx over k keys (data k x 3). */
static PyObject *tangents_fbx(PyObject *self, PyObject *args)
{
    PyArrayObject *times, *values, *flags, *data, *wr, *wl, *first, *in = NULL, *out = NULL;
    npy_intp k;
    ac_error err;
    (void)self;
    if (!PyArg_ParseTuple(args, "O&O&O&O&O&O&O&:_tangents_fbx", acpy_f64, &times, acpy_f64,
                          &values, acpy_i64, &flags, acpy_f64, &data, acpy_f64, &wr, acpy_f64,
                          &wl, acpy_u8, &first))
        return NULL;
    k = PyArray_SIZE(times);
    if (PyArray_SIZE(values) != k || PyArray_SIZE(flags) != k || PyArray_SIZE(data) != 3 * k ||
        PyArray_SIZE(wr) != k || PyArray_SIZE(wl) != k || PyArray_SIZE(first) != k) {
        PyErr_Format(PyExc_ValueError, "_tangents_fbx: every key array must have %zd "
                     "entries (data %zd)", k, 3 * k);
        return NULL;
    }
    in = (PyArrayObject *)PyArray_SimpleNew(1, &k, NPY_FLOAT64);
    out = (PyArrayObject *)PyArray_SimpleNew(1, &k, NPY_FLOAT64);
    if (!in || !out) {
        Py_XDECREF(in);
        Py_XDECREF(out);
        return NULL;
    }
    ACPY_RUN(k, ac_tangents_fbx(ACPY_F64(times), ACPY_F64(values), PyArray_DATA(flags),
                                ACPY_F64(data), ACPY_F64(wr), ACPY_F64(wl),
                                PyArray_DATA(first), (size_t)k, ACPY_F64(in), ACPY_F64(out),
                                &err));
    return Py_BuildValue("(NN)", in, out);
}

static PyMethodDef methods[] = {
    {"_tangents_blender", tangents_blender, METH_VARARGS,
     "_tangents_blender(func, keys, left_types, right_types, flags, left, right) -> "
     "(left, right): Blender's handles of automatic and vector keys"},
    {"_tangents_auto_ease", tangents_auto_ease, METH_VARARGS,
     "_tangents_auto_ease(func, times, values) -> slopes: OpenUSD's AutoEase"},
    {"_tangents_fbx", tangents_fbx, METH_VARARGS,
     "_tangents_fbx(times, values, flags, data, right_weights, next_left_weights, first) -> "
     "(in_slopes, out_slopes): the slopes of FBX curve keys"},
    {NULL, NULL, 0, NULL},
};

int acpy_tangents_init(PyObject *module)
{
    return PyModule_AddFunctions(module, methods);
}
