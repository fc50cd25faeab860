#include "binding.h"

#include <math.h>
#include <string.h>

int acpy_array(PyObject *obj, PyArrayObject **result, int type, int writeable)
{
    PyArrayObject *a;
    if (!PyArray_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "expected a numpy.ndarray, got %.100s",
                     Py_TYPE(obj)->tp_name);
        return 0;
    }
    a = (PyArrayObject *)obj;
    if (!PyArray_EquivTypenums(PyArray_TYPE(a), type) || !PyArray_ISCARRAY_RO(a) ||
        PyArray_ISBYTESWAPPED(a)) {
        PyArray_Descr *want = PyArray_DescrFromType(type);
        PyErr_Format(PyExc_TypeError, "expected a C-contiguous, aligned, native %c%d array",
                     want ? want->kind : '?', want ? (int)PyDataType_ELSIZE(want) * 8 : 0);
        Py_XDECREF(want);
        return 0;
    }
    if (writeable && !PyArray_ISWRITEABLE(a)) {
        PyErr_SetString(PyExc_ValueError, "output array is read-only");
        return 0;
    }
    *result = a;
    return 1;
}

int acpy_f64(PyObject *obj, void *result)
{
    return acpy_array(obj, (PyArrayObject **)result, NPY_FLOAT64, 0);
}

int acpy_f64_out(PyObject *obj, void *result)
{
    return acpy_array(obj, (PyArrayObject **)result, NPY_FLOAT64, 1);
}

int acpy_f64_or_none(PyObject *obj, void *result)
{
    if (obj == Py_None) {
        *(PyArrayObject **)result = NULL;
        return 1;
    }
    return acpy_f64(obj, result);
}

int acpy_f64_out_or_none(PyObject *obj, void *result)
{
    if (obj == Py_None) {
        *(PyArrayObject **)result = NULL;
        return 1;
    }
    return acpy_f64_out(obj, result);
}

int acpy_i64(PyObject *obj, void *result)
{
    return acpy_array(obj, (PyArrayObject **)result, NPY_INT64, 0);
}

int acpy_i64_out(PyObject *obj, void *result)
{
    return acpy_array(obj, (PyArrayObject **)result, NPY_INT64, 1);
}

PyObject *acpy_f64_view(PyObject *owner, const double *data, npy_intp n, npy_intp c)
{
    npy_intp dims[2] = {n, c};
    PyObject *view = PyArray_New(&PyArray_Type, c ? 2 : 1, dims, NPY_FLOAT64, NULL,
                                 (void *)data, 0, NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED,
                                 NULL);
    if (!view)
        return NULL;
    Py_INCREF(owner); /* taken by PyArray_SetBaseObject, also when it fails */
    if (PyArray_SetBaseObject((PyArrayObject *)view, owner) < 0) {
        Py_DECREF(view);
        return NULL;
    }
    return view;
}

int acpy_same_shape(const char *func, const char *name, PyArrayObject *a,
                    PyArrayObject *like)
{
    if (PyArray_NDIM(a) == PyArray_NDIM(like) &&
        PyArray_CompareLists(PyArray_DIMS(a), PyArray_DIMS(like), PyArray_NDIM(a)))
        return 1;
    PyErr_Format(PyExc_ValueError, "%s: %s does not have the shape of the result", func,
                 name);
    return 0;
}

/* The Python words of a failure the core reports with a reason (an object's
   setting) into detail; the core's own words otherwise. */
static const char *python_detail(const ac_error *err, const char *name, const char *outside,
                                 char *detail, size_t size)
{
    const char *side = err->reason == AC_REASON_BEFORE_ERROR ? "before" : "after";
    switch (err->reason) {
    case AC_REASON_NO_JUMPS:
        return "equals the previous time (a jump needs jumps=True)";
    case AC_REASON_BEFORE_ERROR:
    case AC_REASON_AFTER_ERROR:
        if (outside)
            PyOS_snprintf(detail, size, outside, err->limit[0], err->limit[1], side);
        else
            PyOS_snprintf(detail, size, "must lie in [%.15g, %.15g] (%s='error')", err->limit[0],
                          err->limit[1], side);
        return detail;
    case AC_REASON_MAX_CYCLES:
        PyOS_snprintf(detail, size,
                      "must satisfy |%s/duration| <= max_cycles=%.15g with duration=%.15g", name,
                      err->limit[0], err->limit[1]);
        return detail;
    case AC_REASON_NONE: break;
    }
    return err->detail;
}

/* The exception for err under `name`, its index unravelled over `shape`
   (no index when ndim is 0), an integer value shown as one when `integer`. */
static PyObject *raise_named(const char *func, const ac_error *err, const char *name,
                             int integer, int ndim, const npy_intp *shape, const char *outside)
{
    char index[256] = "", *value, words[2 * AC_DETAIL_SIZE];
    const char *detail = python_detail(err, name, outside, words, sizeof words);
    size_t rest = err->index;
    PyObject *type;
    npy_intp coords[NPY_MAXDIMS];

    if (ndim > 0) {
        size_t used = (size_t)PyOS_snprintf(index, sizeof index, " at index (");
        for (int d = ndim - 1; d >= 0; d--) {
            npy_intp extent = shape[d] > 0 ? shape[d] : 1;
            coords[d] = (npy_intp)(rest % (size_t)extent);
            rest /= (size_t)extent;
        }
        for (int d = 0; d < ndim && used < sizeof index; d++)
            used += (size_t)PyOS_snprintf(index + used, sizeof index - used,
                                          d ? ", %zd" : "%zd", coords[d]);
        if (used < sizeof index)
            PyOS_snprintf(index + used, sizeof index - used, ndim == 1 ? ",)" : ")");
    }
    switch (err->status) {
    case AC_ERR_OVERFLOW: type = PyExc_OverflowError; break;
    case AC_ERR_NOMEM: type = PyExc_MemoryError; break;
    default: type = PyExc_ValueError; break;
    }
    integer &= err->value == floor(err->value) && fabs(err->value) < 1e300;
    value = PyOS_double_to_string(err->value, integer ? 'f' : 'r', 0,
                                  integer ? 0 : Py_DTSF_ADD_DOT_0, NULL);
    if (!value)
        return NULL;
    PyErr_Format(type, "%s: %s%s is %s (%s)", func, name, index, value, detail);
    PyMem_Free(value);
    return NULL;
}

static const char *c_name(ac_arg arg)
{
    const char *name = ac_arg_name(arg);
    return name && *name ? name : "argument";
}

PyObject *acpy_raise(const char *func, const ac_error *err, int ndim,
                     const npy_intp *shape)
{
    return raise_named(func, err, c_name(err->arg), 0, ndim, shape, NULL);
}

/* The declaration of how errors on `arg` read in ctx->errors, or NULL. */
static const acpy_arg_error *arg_error(const acpy_context *ctx, ac_arg arg)
{
    for (size_t i = 0; i < ctx->nerrors; i++)
        if (ctx->errors[i].arg == arg)
            return &ctx->errors[i];
    return NULL;
}

static npy_intp parts(const acpy_context *ctx)
{
    return ctx->error_items > 1 ? ctx->error_items : 1;
}

int acpy_error_space(const acpy_context *ctx, ac_arg arg)
{
    const acpy_arg_error *decl = arg_error(ctx, arg);
    return decl ? decl->space : parts(ctx) > 1 ? ACPY_PARTS : ACPY_ITEMS;
}

npy_intp acpy_error_item(const acpy_context *ctx, ac_error *err)
{
    const size_t per = (size_t)parts(ctx);
    size_t item;
    switch (acpy_error_space(ctx, err->arg)) {
    case ACPY_ITEMS:
        item = err->index;
        err->index = 0;
        return (npy_intp)item;
    case ACPY_PARTS:
        item = err->index / per;
        err->index %= per;
        return (npy_intp)item;
    default: return 0; /* the index is the context's own, or none */
    }
}

void acpy_error_after(const acpy_context *ctx, ac_error *err, size_t first)
{
    switch (acpy_error_space(ctx, err->arg)) {
    case ACPY_ITEMS: err->index += first; break;
    case ACPY_PARTS: err->index += first * (size_t)parts(ctx); break;
    default: break;
    }
}

PyObject *acpy_raise_item(const char *func, const ac_error *err, npy_intp item, int nd,
                          const npy_intp *dims, const acpy_context *ctx)
{
    const npy_intp per = parts(ctx);
    const acpy_arg_error *decl = arg_error(ctx, err->arg);
    const char *name = decl && decl->name ? decl->name
                       : ctx->renamed_as && err->arg == ctx->renamed ? ctx->renamed_as
                                                                     : c_name(err->arg);
    int space = acpy_error_space(ctx, err->arg), integer = decl && decl->integer;
    npy_intp shape[NPY_MAXDIMS + 1];
    ac_error e = *err;
    if (nd > 0)
        memcpy(shape, dims, sizeof(npy_intp) * (size_t)nd);
    switch (space) {
    case ACPY_PARTS: /* the index runs over the loop axes and the items' own */
        e.index = (size_t)item * (size_t)per + err->index;
        shape[nd++] = per;
        break;
    case ACPY_OWN:
        shape[0] = per;
        nd = 1;
        break;
    case ACPY_NO_INDEX: nd = 0; break;
    default: e.index = (size_t)item; break;
    }
    return raise_named(func, &e, name, integer, nd, shape, ctx->outside);
}

PyObject *acpy_raise_as(const char *func, const ac_error *err, const acpy_arg_error *args,
                        size_t count, const acpy_space *spaces)
{
    for (size_t i = 0; i < count; i++)
        if (args[i].arg == err->arg) {
            const acpy_space *s = args[i].space == ACPY_NO_INDEX ? NULL : &spaces[args[i].space];
            return raise_named(func, err, args[i].name ? args[i].name : c_name(err->arg),
                               args[i].integer, s ? s->ndim : 0, s ? s->dims : NULL, NULL);
        }
    return raise_named(func, err, c_name(err->arg), 0, spaces[0].ndim, spaces[0].dims, NULL);
}
