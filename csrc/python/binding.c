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

int acpy_u8_out(PyObject *obj, void *result)
{
    return acpy_array(obj, (PyArrayObject **)result, NPY_UINT8, 1);
}

int acpy_item_step(const char *func, const char *name, PyArrayObject *a, npy_intp n,
                   npy_intp width, size_t *step)
{
    npy_intp size = PyArray_SIZE(a);
    if (size == width || size == n * width) {
        *step = size == n * width && n != 1;
        return 0;
    }
    PyErr_Format(PyExc_ValueError, "%s: %s has %zd values, expected %zd or %zd", func, name,
                 size, width, n * width);
    return -1;
}

int acpy_step(const char *func, const char *name, PyArrayObject *a, npy_intp n,
              size_t *step)
{
    return acpy_item_step(func, name, a, n, 1, step);
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

PyObject *acpy_raise_ints(const char *func, const ac_error *err, int ndim,
                          const npy_intp *shape, const char *const *integers)
{
    char index[256] = "", *value;
    size_t rest = err->index;
    PyObject *type;
    npy_intp coords[NPY_MAXDIMS];
    int integral = 0;

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
    /* Integer arguments show integer values as integers. */
    for (int i = 0; integers && integers[i]; i++)
        integral |= err->arg && strcmp(err->arg, integers[i]) == 0;
    integral &= err->value == floor(err->value) && fabs(err->value) < 1e300;
    value = PyOS_double_to_string(err->value, integral ? 'f' : 'r', 0,
                                  integral ? 0 : Py_DTSF_ADD_DOT_0, NULL);
    if (!value)
        return NULL;
    PyErr_Format(type, "%s: %s%s is %s (%s)", func, err->arg, index, value, err->detail);
    PyMem_Free(value);
    return NULL;
}

PyObject *acpy_raise(const char *func, const ac_error *err, int ndim,
                     const npy_intp *shape)
{
    return acpy_raise_ints(func, err, ndim, shape, NULL);
}

int acpy_pair_steps(const char *func, const char *name, PyArrayObject *a, npy_intp n,
                    npy_intp m, size_t steps[2])
{
    npy_intp rows = PyArray_NDIM(a) == 2 ? PyArray_DIM(a, 0) : -1;
    npy_intp cols = PyArray_NDIM(a) == 2 ? PyArray_DIM(a, 1) : -1;
    if ((rows != 1 && rows != n) || (cols != 1 && cols != m)) {
        PyErr_Format(PyExc_ValueError, "%s: %s must have shape (1 or %zd, 1 or %zd)", func,
                     name, n, m);
        return -1;
    }
    steps[0] = rows == 1 ? 0 : (size_t)cols;
    steps[1] = cols == 1 ? 0 : 1;
    return 0;
}
