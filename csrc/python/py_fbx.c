/* FBX record trees: ac_fbx_parse into NumPy tables that animcore.fbx reads. */
#include <stddef.h>
#include <string.h>

#include "binding.h"

/* A fresh 1-D array of n items of NumPy type `type` (at least one, so its
   data pointer is never NULL for the core). */
static PyArrayObject *table_array(size_t n, int type)
{
    npy_intp len = (npy_intp)(n ? n : 1);
    return (PyArrayObject *)PyArray_SimpleNew(1, &len, type);
}

/* _fbx_parse(data) -> (version, ascii, records, properties, numbers) with the
   tables as uint8 arrays of ac_fbx_record / ac_fbx_property structs and a
   float64 array of ASCII numbers; or (None, offset, line, path, message) when
   the file is malformed. */
static PyObject *fbx_parse(PyObject *self, PyObject *args)
{
    Py_buffer view;
    ac_fbx_table table;
    ac_fbx_failure failure;
    ac_status st;
    PyArrayObject *records = NULL, *properties = NULL, *numbers = NULL;
    PyObject *result = NULL;
    (void)self;
    if (!PyArg_ParseTuple(args, "y*:_fbx_parse", &view))
        return NULL;
    memset(&table, 0, sizeof table);
    memset(&failure, 0, sizeof failure);
    /* a first pass counts the tables; the second fills the arrays returned */
    Py_BEGIN_ALLOW_THREADS
    st = ac_fbx_parse(view.buf, (size_t)view.len, &table, &failure, NULL);
    Py_END_ALLOW_THREADS
    if (st == AC_OK) {
        records = table_array(table.records_used * sizeof *table.records, NPY_UINT8);
        properties = table_array(table.properties_used * sizeof *table.properties, NPY_UINT8);
        numbers = table_array(table.numbers_used, NPY_FLOAT64);
        if (!records || !properties || !numbers)
            goto done;
        table.record_capacity = table.records_used;
        table.property_capacity = table.properties_used;
        table.number_capacity = table.numbers_used;
        table.records = PyArray_DATA(records);
        table.properties = PyArray_DATA(properties);
        table.numbers = PyArray_DATA(numbers);
        Py_BEGIN_ALLOW_THREADS
        st = ac_fbx_parse(view.buf, (size_t)view.len, &table, &failure, NULL);
        Py_END_ALLOW_THREADS
    }
    if (st != AC_OK) {
        result = Py_BuildValue("(OKKyy)", Py_None, (unsigned long long)failure.offset,
                               (unsigned long long)failure.line, failure.path, failure.message);
    } else {
        npy_intp counts[3] = {(npy_intp)(table.records_used * sizeof *table.records),
                              (npy_intp)(table.properties_used * sizeof *table.properties),
                              (npy_intp)table.numbers_used};
        /* the arrays' exact lengths (an empty table was given one spare item) */
        PyObject *r = PySequence_GetSlice((PyObject *)records, 0, counts[0]);
        PyObject *p = PySequence_GetSlice((PyObject *)properties, 0, counts[1]);
        PyObject *d = PySequence_GetSlice((PyObject *)numbers, 0, counts[2]);
        if (r && p && d)
            result = Py_BuildValue("(kiOOO)", (unsigned long)table.version, table.ascii, r, p, d);
        Py_XDECREF(r);
        Py_XDECREF(p);
        Py_XDECREF(d);
    }
done:
    Py_XDECREF(records);
    Py_XDECREF(properties);
    Py_XDECREF(numbers);
    PyBuffer_Release(&view);
    return result;
}

/* _fbx_layout() -> (sizeof record, sizeof property, offsets of the property
   fields): the struct layout animcore.fbx views the tables with. */
static PyObject *fbx_layout(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    return Py_BuildValue("(nn(nnnnnnn))", (Py_ssize_t)sizeof(ac_fbx_record),
                         (Py_ssize_t)sizeof(ac_fbx_property),
                         (Py_ssize_t)offsetof(ac_fbx_property, type),
                         (Py_ssize_t)offsetof(ac_fbx_property, encoding),
                         (Py_ssize_t)offsetof(ac_fbx_property, offset),
                         (Py_ssize_t)offsetof(ac_fbx_property, length),
                         (Py_ssize_t)offsetof(ac_fbx_property, count),
                         (Py_ssize_t)offsetof(ac_fbx_property, ivalue),
                         (Py_ssize_t)offsetof(ac_fbx_property, dvalue));
}

static PyMethodDef methods[] = {
    {"_fbx_parse", fbx_parse, METH_VARARGS,
     "_fbx_parse(data) -> (version, ascii, records, properties, numbers) or "
     "(None, offset, line, path, message)"},
    {"_fbx_layout", fbx_layout, METH_NOARGS, "_fbx_layout() -> struct sizes and offsets"},
    {NULL, NULL, 0, NULL},
};

int acpy_fbx_init(PyObject *module)
{
    return PyModule_AddFunctions(module, methods);
}
