/* FBX record trees: ac_fbx_parse into NumPy tables that animcore.fbx reads. */
#include <stddef.h>
#include <stdint.h>
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

/* The text of `length` bytes at `offset` of the buffer, decoded with
   errors="replace"; NULL with a ValueError when the span leaves the buffer. */
static PyObject *span_text(const Py_buffer *view, uint64_t offset, uint64_t length, int ascii)
{
    const char *start = (const char *)view->buf + offset;
    if (offset > (uint64_t)view->len || length > (uint64_t)view->len - offset) {
        PyErr_Format(PyExc_ValueError, "_fbx_texts: text of %llu bytes at %llu leaves the "
                     "%zd bytes of data", (unsigned long long)length,
                     (unsigned long long)offset, view->len);
        return NULL;
    }
    return ascii ? PyUnicode_DecodeASCII(start, (Py_ssize_t)length, "replace")
                 : PyUnicode_DecodeUTF8(start, (Py_ssize_t)length, "replace");
}

/* _fbx_texts(data, records, properties) -> (names, values): the records'
   names (ASCII, errors replaced) and one Python value per property of the
   tables _fbx_parse gave for `data`: an int ('Y' 'C' 'I' 'L'), a float ('F'
   'D'), a str ('S' 'W', UTF-8, errors replaced), or None (raw bytes and
   arrays, which the caller reads from the buffer). */
static PyObject *fbx_texts(PyObject *self, PyObject *args)
{
    Py_buffer view;
    PyObject *records_obj, *properties_obj, *names = NULL, *values = NULL, *result = NULL;
    PyArrayObject *records = NULL, *properties = NULL;
    const ac_fbx_record *r;
    const ac_fbx_property *p;
    size_t nr, np_;
    (void)self;
    if (!PyArg_ParseTuple(args, "y*OO:_fbx_texts", &view, &records_obj, &properties_obj))
        return NULL;
    if (!acpy_array(records_obj, &records, NPY_UINT8, 0) ||
        !acpy_array(properties_obj, &properties, NPY_UINT8, 0))
        goto done;
    if (PyArray_NBYTES(records) % sizeof *r || PyArray_NBYTES(properties) % sizeof *p ||
        (uintptr_t)PyArray_DATA(records) % _Alignof(ac_fbx_record) ||
        (uintptr_t)PyArray_DATA(properties) % _Alignof(ac_fbx_property)) {
        PyErr_SetString(PyExc_ValueError, "_fbx_texts: tables are not whole, aligned records "
                        "and properties");
        goto done;
    }
    nr = (size_t)PyArray_NBYTES(records) / sizeof *r;
    np_ = (size_t)PyArray_NBYTES(properties) / sizeof *p;
    r = PyArray_DATA(records);
    p = PyArray_DATA(properties);
    if (!(names = PyList_New((Py_ssize_t)nr)) || !(values = PyList_New((Py_ssize_t)np_)))
        goto done;
    for (size_t i = 0; i < nr; i++) {
        PyObject *name = span_text(&view, r[i].name_offset, r[i].name_length, 1);
        if (!name)
            goto done;
        PyList_SET_ITEM(names, (Py_ssize_t)i, name);
    }
    for (size_t i = 0; i < np_; i++) {
        PyObject *value;
        switch (p[i].type) {
        case 'Y': case 'C': case 'I': case 'L':
            value = PyLong_FromLongLong((long long)p[i].ivalue);
            break;
        case 'F': case 'D':
            value = PyFloat_FromDouble(p[i].dvalue);
            break;
        case 'S': case 'W':
            value = span_text(&view, p[i].offset, p[i].length, 0);
            break;
        default:
            Py_INCREF(Py_None);
            value = Py_None;
        }
        if (!value)
            goto done;
        PyList_SET_ITEM(values, (Py_ssize_t)i, value);
    }
    result = PyTuple_Pack(2, names, values);
done:
    Py_XDECREF(names);
    Py_XDECREF(values);
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
    {"_fbx_texts", fbx_texts, METH_VARARGS,
     "_fbx_texts(data, records, properties) -> (record names, property values)"},
    {"_fbx_layout", fbx_layout, METH_NOARGS, "_fbx_layout() -> struct sizes and offsets"},
    {NULL, NULL, 0, NULL},
};

int acpy_fbx_init(PyObject *module)
{
    return PyModule_AddFunctions(module, methods);
}
