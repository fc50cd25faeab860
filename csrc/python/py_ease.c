#include "binding.h"

/* _ease_eval(func, kind, rate, u, out): out = ease(u) or ds/du. */
static PyObject *ease_eval(PyObject *self, PyObject *args)
{
    const char *func;
    int kind, rate;
    PyArrayObject *u, *out;
    npy_intp n;
    ac_error err;
    ac_status st;
    (void)self;
    if (!PyArg_ParseTuple(args, "sipO&O&:_ease_eval", &func, &kind, &rate, acpy_f64, &u,
                          acpy_f64_out, &out))
        return NULL;
    if (!acpy_same_shape(func, "out", out, u))
        return NULL;
    n = PyArray_SIZE(u);
    ACPY_RUN(n, st = (rate ? ac_ease_rate : ac_ease_eval)((ac_ease_kind)kind, ACPY_F64(u),
                                                          ACPY_F64(out), (size_t)n, &err));
    if (st)
        return acpy_raise(func, &err, PyArray_NDIM(u), PyArray_DIMS(u));
    Py_RETURN_NONE;
}

/* _ease_inverse(func, kind, s, out): out = the u at which ease(u) = s. */
static PyObject *ease_inverse(PyObject *self, PyObject *args)
{
    const char *func;
    int kind;
    PyArrayObject *s, *out;
    npy_intp n;
    ac_error err;
    ac_status st;
    (void)self;
    if (!PyArg_ParseTuple(args, "siO&O&:_ease_inverse", &func, &kind, acpy_f64, &s,
                          acpy_f64_out, &out))
        return NULL;
    if (!acpy_same_shape(func, "out", out, s))
        return NULL;
    n = PyArray_SIZE(s);
    ACPY_RUN(n, st = ac_ease_inverse((ac_ease_kind)kind, ACPY_F64(s), ACPY_F64(out),
                                     (size_t)n, &err));
    if (st)
        return acpy_raise(func, &err, PyArray_NDIM(s), PyArray_DIMS(s));
    Py_RETURN_NONE;
}

/* _ease_kinds() -> ((name, monotone), ...) in ac_ease_kind order. */
static PyObject *ease_kinds(PyObject *self, PyObject *noargs)
{
    PyObject *result = PyTuple_New(AC_EASE_COUNT);
    (void)self, (void)noargs;
    if (!result)
        return NULL;
    for (int k = 0; k < AC_EASE_COUNT; k++) {
        PyObject *item = Py_BuildValue("(sO)", ac_ease_name((ac_ease_kind)k),
                                       ac_ease_monotone((ac_ease_kind)k) ? Py_True : Py_False);
        if (!item) {
            Py_DECREF(result);
            return NULL;
        }
        PyTuple_SET_ITEM(result, k, item);
    }
    return result;
}

/* _bezier_eval(func, x1, y1, x2, y2, u, s, dsdu_or_None); with u None only
   validates the control points. */
static PyObject *bezier_eval(PyObject *self, PyObject *args)
{
    const char *func;
    double x1, y1, x2, y2;
    PyObject *u_obj;
    PyArrayObject *u, *s = NULL, *dsdu = NULL;
    ac_ease_bezier curve;
    npy_intp n;
    ac_error err;
    ac_status st;
    (void)self;
    if (!PyArg_ParseTuple(args, "sddddO|O&O&:_bezier_eval", &func, &x1, &y1, &x2, &y2, &u_obj,
                          acpy_f64_out, &s, acpy_f64_out_or_none, &dsdu))
        return NULL;
    if (ac_ease_bezier_init(&curve, x1, y1, x2, y2, &err))
        return acpy_raise(func, &err, 0, NULL);
    if (u_obj == Py_None)
        Py_RETURN_NONE;
    if (!acpy_f64(u_obj, &u))
        return NULL;
    if (!s) {
        PyErr_SetString(PyExc_TypeError, "_bezier_eval: missing output array");
        return NULL;
    }
    if (!acpy_same_shape(func, "out", s, u) || (dsdu && !acpy_same_shape(func, "out", dsdu, u)))
        return NULL;
    n = PyArray_SIZE(u);
    ACPY_RUN(n, st = ac_ease_bezier_eval(&curve, ACPY_F64(u), ACPY_F64(s),
                                         dsdu ? ACPY_F64(dsdu) : NULL, (size_t)n, &err));
    if (st)
        return acpy_raise(func, &err, PyArray_NDIM(u), PyArray_DIMS(u));
    Py_RETURN_NONE;
}

/* _steps_eval(func, count, position, u, s); position is an ac_ease_jump. */
static PyObject *steps_eval(PyObject *self, PyObject *args)
{
    const char *func;
    long count;
    int position;
    PyArrayObject *u, *s;
    npy_intp n;
    ac_error err;
    ac_status st;
    (void)self;
    if (!PyArg_ParseTuple(args, "sliO&O&:_steps_eval", &func, &count, &position, acpy_f64, &u,
                          acpy_f64_out, &s))
        return NULL;
    if (!acpy_same_shape(func, "out", s, u))
        return NULL;
    n = PyArray_SIZE(u);
    ACPY_RUN(n, st = ac_ease_steps_eval(count, (ac_ease_jump)position, ACPY_F64(u),
                                        ACPY_F64(s), (size_t)n, &err));
    if (st)
        return acpy_raise(func, &err, PyArray_NDIM(u), PyArray_DIMS(u));
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"_ease_eval", ease_eval, METH_VARARGS,
     "_ease_eval(func, kind, rate, u, out): ease(u), or ds/du when rate is true"},
    {"_ease_inverse", ease_inverse, METH_VARARGS, "_ease_inverse(func, kind, s, out)"},
    {"_ease_kinds", ease_kinds, METH_NOARGS,
     "_ease_kinds() -> ((name, monotone), ...) in kind order"},
    {"_bezier_eval", bezier_eval, METH_VARARGS,
     "_bezier_eval(func, x1, y1, x2, y2, u_or_None[, s, dsdu_or_None])"},
    {"_steps_eval", steps_eval, METH_VARARGS, "_steps_eval(func, count, position, u, s)"},
    {NULL, NULL, 0, NULL},
};

int acpy_ease_init(PyObject *module)
{
    return PyModule_AddFunctions(module, methods);
}
