/* FBX record trees: ac_fbx_parse into NumPy tables that animcore.fbx reads. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "binding.h"

static PyObject *bytes_array(const void *data, size_t size)
{
    npy_intp n = (npy_intp)size;
    PyArrayObject *a = (PyArrayObject *)PyArray_SimpleNew(1, &n, NPY_UINT8);
    if (a && size)
        memcpy(PyArray_DATA(a), data, size);
    return (PyObject *)a;
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
    PyObject *result = NULL;
    (void)self;
    if (!PyArg_ParseTuple(args, "y*:_fbx_parse", &view))
        return NULL;
    memset(&table, 0, sizeof table);
    memset(&failure, 0, sizeof failure);
    Py_BEGIN_ALLOW_THREADS
    st = ac_fbx_parse(view.buf, (size_t)view.len, &table, &failure, NULL);
    if (st == AC_OK) {
        table.record_capacity = table.records_used;
        table.property_capacity = table.properties_used;
        table.number_capacity = table.numbers_used;
        table.records = malloc((table.records_used + 1) * sizeof *table.records);
        table.properties = malloc((table.properties_used + 1) * sizeof *table.properties);
        table.numbers = malloc((table.numbers_used + 1) * sizeof *table.numbers);
        if (table.records && table.properties && table.numbers)
            st = ac_fbx_parse(view.buf, (size_t)view.len, &table, &failure, NULL);
        else
            st = AC_ERR_NOMEM;
    }
    Py_END_ALLOW_THREADS
    if (st == AC_ERR_NOMEM) {
        PyErr_NoMemory();
    } else if (st != AC_OK) {
        result = Py_BuildValue("(OKKyy)", Py_None, (unsigned long long)failure.offset,
                               (unsigned long long)failure.line, failure.path, failure.message);
    } else {
        PyObject *records = bytes_array(table.records, table.records_used * sizeof *table.records);
        PyObject *properties = bytes_array(table.properties,
                                           table.properties_used * sizeof *table.properties);
        npy_intp n = (npy_intp)table.numbers_used;
        PyArrayObject *numbers = (PyArrayObject *)PyArray_SimpleNew(1, &n, NPY_FLOAT64);
        if (records && properties && numbers) {
            if (n)
                memcpy(PyArray_DATA(numbers), table.numbers, (size_t)n * sizeof(double));
            result = Py_BuildValue("(kiOOO)", (unsigned long)table.version, table.ascii,
                                   records, properties, (PyObject *)numbers);
        }
        Py_XDECREF(records);
        Py_XDECREF(properties);
        Py_XDECREF(numbers);
    }
    free(table.records);
    free(table.properties);
    free(table.numbers);
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
