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

/* The distinct texts made so far by one call of _fbx_texts (nothing outlives
   the call): open addressing on an FNV-1a hash of the bytes, grown to stay at
   most half full. Equal bytes give the one str object and its id (the order
   in which the distinct texts were first met). */
typedef struct text_slot {
    const char *bytes;
    size_t length;
    PyObject *text;  /* a reference the cache holds; NULL: an empty slot */
    Py_ssize_t id;
} text_slot;

typedef struct text_cache {
    text_slot *slots;
    size_t mask;
    Py_ssize_t distinct;
} text_cache;

static uint64_t text_hash(const char *bytes, size_t length)
{
    uint64_t h = 1469598103934665603u;
    for (size_t i = 0; i < length; i++)
        h = (h ^ (unsigned char)bytes[i]) * 1099511628211u;
    return h;
}

static int cache_init(text_cache *c)
{
    c->mask = 255;
    c->distinct = 0;
    c->slots = PyMem_Calloc(c->mask + 1, sizeof *c->slots);
    if (!c->slots)
        PyErr_NoMemory();
    return c->slots != NULL;
}

static void cache_free(text_cache *c)
{
    if (!c->slots)
        return;
    for (size_t i = 0; i <= c->mask; i++)
        Py_XDECREF(c->slots[i].text);
    PyMem_Free(c->slots);
    c->slots = NULL;
}

/* The empty slot where `bytes` goes, or the slot holding them. */
static text_slot *cache_slot(text_slot *slots, size_t mask, const char *bytes, size_t length)
{
    size_t i = (size_t)text_hash(bytes, length) & mask;
    while (slots[i].text && (slots[i].length != length ||
                             memcmp(slots[i].bytes, bytes, length) != 0))
        i = (i + 1) & mask;
    return &slots[i];
}

/* Doubles the table (its entries rehashed); 0 with MemoryError. */
static int cache_grow(text_cache *c)
{
    size_t mask = c->mask * 2 + 1;
    text_slot *slots = PyMem_Calloc(mask + 1, sizeof *slots);
    if (!slots) {
        PyErr_NoMemory();
        return 0;
    }
    for (size_t i = 0; i <= c->mask; i++)
        if (c->slots[i].text)
            *cache_slot(slots, mask, c->slots[i].bytes, c->slots[i].length) = c->slots[i];
    PyMem_Free(c->slots);
    c->slots = slots;
    c->mask = mask;
    return 1;
}

/* span_text through the cache: a new reference, its id in *id. */
static PyObject *cached_text(text_cache *c, const Py_buffer *view, uint64_t offset,
                             uint64_t length, int ascii, Py_ssize_t *id)
{
    const char *bytes = (const char *)view->buf + offset;
    text_slot *slot;
    PyObject *text;
    if (offset > (uint64_t)view->len || length > (uint64_t)view->len - offset)
        return span_text(view, offset, length, ascii); /* (raises) */
    slot = cache_slot(c->slots, c->mask, bytes, (size_t)length);
    if (slot->text) {
        *id = slot->id;
        Py_INCREF(slot->text);
        return slot->text;
    }
    if (!(text = span_text(view, offset, length, ascii)))
        return NULL;
    if ((size_t)(c->distinct + 1) * 2 > c->mask + 1) {
        if (!cache_grow(c)) {
            Py_DECREF(text);
            return NULL;
        }
        slot = cache_slot(c->slots, c->mask, bytes, (size_t)length);
    }
    slot->bytes = bytes;
    slot->length = (size_t)length;
    slot->id = *id = c->distinct++;
    Py_INCREF(text);
    slot->text = text;
    return text;
}

/* String values up to this many bytes go through the cache (names of
   properties, types and flags repeat; longer texts seldom do). */
#define TEXT_CACHED_LENGTH 64

/* _fbx_texts(data, records, properties) -> (names, values, name_ids,
   distinct_names): the records' names (ASCII, errors replaced) and one
   Python value per property of the tables _fbx_parse gave for `data`: an int
   ('Y' 'C' 'I' 'L'), a float ('F' 'D'), a str ('S' 'W', UTF-8, errors
   replaced), or None (raw bytes and arrays, which the caller reads from the
   buffer). Equal names (and equal short strings) are one str object;
   name_ids (intp, one per record) numbers the distinct names, which
   distinct_names lists in that order. */
static PyObject *fbx_texts(PyObject *self, PyObject *args)
{
    Py_buffer view;
    PyObject *records_obj, *properties_obj, *names = NULL, *values = NULL, *result = NULL;
    PyObject *distinct = NULL;
    PyArrayObject *records = NULL, *properties = NULL, *ids = NULL;
    const ac_fbx_record *r;
    const ac_fbx_property *p;
    size_t nr, np_;
    text_cache name_cache = {NULL, 0, 0}, value_cache = {NULL, 0, 0};
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
    {
        npy_intp len = (npy_intp)nr;
        if (!(ids = (PyArrayObject *)PyArray_SimpleNew(1, &len, NPY_INTP)))
            goto done;
    }
    if (!cache_init(&name_cache) || !cache_init(&value_cache))
        goto done;
    for (size_t i = 0; i < nr; i++) {
        Py_ssize_t id;
        PyObject *name = cached_text(&name_cache, &view, r[i].name_offset, r[i].name_length,
                                     1, &id);
        if (!name)
            goto done;
        PyList_SET_ITEM(names, (Py_ssize_t)i, name);
        ((npy_intp *)PyArray_DATA(ids))[i] = (npy_intp)id;
    }
    if (!(distinct = PyList_New(name_cache.distinct)))
        goto done;
    for (size_t i = 0; i <= name_cache.mask; i++) {
        text_slot *slot = &name_cache.slots[i];
        if (slot->text) {
            Py_INCREF(slot->text);
            PyList_SET_ITEM(distinct, slot->id, slot->text);
        }
    }
    for (size_t i = 0; i < np_; i++) {
        PyObject *value;
        Py_ssize_t unused;
        switch (p[i].type) {
        case 'Y': case 'C': case 'I': case 'L':
            value = PyLong_FromLongLong((long long)p[i].ivalue);
            break;
        case 'F': case 'D':
            value = PyFloat_FromDouble(p[i].dvalue);
            break;
        case 'S': case 'W':
            value = p[i].length <= TEXT_CACHED_LENGTH ?
                cached_text(&value_cache, &view, p[i].offset, p[i].length, 0, &unused) :
                span_text(&view, p[i].offset, p[i].length, 0);
            break;
        default:
            Py_INCREF(Py_None);
            value = Py_None;
        }
        if (!value)
            goto done;
        PyList_SET_ITEM(values, (Py_ssize_t)i, value);
    }
    result = PyTuple_Pack(4, names, values, (PyObject *)ids, distinct);
done:
    cache_free(&name_cache);
    cache_free(&value_cache);
    Py_XDECREF(names);
    Py_XDECREF(values);
    Py_XDECREF(ids);
    Py_XDECREF(distinct);
    PyBuffer_Release(&view);
    return result;
}

/* _fbx_gather(data, properties, indices) -> bytes: the raw bytes of the
   binary arrays properties[indices] (properties: the table _fbx_parse gave
   for `data`; indices: int64) one after the other (ac_fbx_gather). */
static PyObject *fbx_gather(PyObject *self, PyObject *args)
{
    Py_buffer view;
    PyObject *properties_obj, *result = NULL;
    PyArrayObject *properties = NULL, *indices = NULL;
    const ac_fbx_property *p;
    const int64_t *idx;
    size_t np_, n, total = 0;
    ac_error err;
    ac_status st;
    (void)self;
    if (!PyArg_ParseTuple(args, "y*OO&:_fbx_gather", &view, &properties_obj, acpy_i64,
                          &indices))
        return NULL;
    if (!acpy_array(properties_obj, &properties, NPY_UINT8, 0))
        goto done;
    if (PyArray_NBYTES(properties) % sizeof *p ||
        (uintptr_t)PyArray_DATA(properties) % _Alignof(ac_fbx_property)) {
        PyErr_SetString(PyExc_ValueError, "_fbx_gather: the table is not whole, aligned "
                        "properties");
        goto done;
    }
    np_ = (size_t)PyArray_NBYTES(properties) / sizeof *p;
    p = PyArray_DATA(properties);
    n = (size_t)PyArray_SIZE(indices);
    idx = PyArray_DATA(indices);
    for (size_t i = 0; i < n; i++) /* the output's size (ac_fbx_gather checks each span) */
        if (idx[i] >= 0 && (uint64_t)idx[i] < np_ && p[idx[i]].length <= (uint64_t)view.len)
            total += (size_t)p[idx[i]].length;
    if (total > ((size_t)-1 >> 1))
        total = 0; /* (then ac_fbx_gather reports the lengths) */
    if (!(result = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)total)))
        goto done;
    ACPY_RUN(total, st = ac_fbx_gather(view.buf, (size_t)view.len, p, np_, idx, n,
                                       (unsigned char *)PyBytes_AS_STRING(result), total, &err));
    if (st != AC_OK) {
        Py_CLEAR(result);
        PyErr_Format(PyExc_ValueError, "_fbx_gather: indices at index %zu is %lld (%s)",
                     err.index, err.index < n ? (long long)idx[err.index] : -1LL, err.detail);
    }
done:
    PyBuffer_Release(&view);
    return result;
}

/* 0, or -1 with a ValueError naming `func` when the values of record i
   leave the list of `nvalues` (the one _fbx_texts gave). */
static int values_inside(const char *func, const ac_fbx_record *r, size_t i, Py_ssize_t nvalues)
{
    if (r[i].first_property > (uint64_t)nvalues ||
        r[i].property_count > (uint64_t)nvalues - r[i].first_property) {
        PyErr_Format(PyExc_ValueError, "%s: record %zu's values leave the list of %zd", func, i,
                     nvalues);
        return -1;
    }
    return 0;
}

/* Appends the int i to `list`: 0, or -1 with an exception set. */
static int append_index(PyObject *list, size_t i)
{
    PyObject *index = PyLong_FromSize_t(i);
    int failed = !index || PyList_Append(list, index) < 0;
    Py_XDECREF(index);
    return failed ? -1 : 0;
}

/* One pass of _fbx_block over the entries of record `block`: pass 0 appends
   to `unread` the indices of the entries whose values (from `skip` on) are
   still None, pass 1 sets props[key] to those values; 0, or -1 with an
   exception set. */
static int block_pass(const ac_fbx_record *r, size_t nr, const npy_intp *id, PyObject *values,
                      size_t block, Py_ssize_t entry, Py_ssize_t skip, PyObject *props,
                      PyObject *wanted, int pass, PyObject *unread)
{
    Py_ssize_t nvalues = PyList_GET_SIZE(values);
    /* the block's subtree is the records after it whose parent is it or a record
       after it (parents come before their children, in file order) */
    for (size_t i = block + 1; i < nr && r[i].parent >= (int64_t)block; i++) {
        uint64_t first = r[i].first_property, count = r[i].property_count;
        PyObject *key;
        if (r[i].parent != (int64_t)block || !count || id[i] != (npy_intp)entry)
            continue;
        if (values_inside("_fbx_block", r, i, nvalues) < 0)
            return -1;
        key = PyList_GET_ITEM(values, (Py_ssize_t)first);
        if (!PyUnicode_Check(key))
            continue;
        if (wanted != Py_None) {
            int has = PySet_Contains(wanted, key);
            if (has < 0)
                return -1;
            if (!has)
                continue;
        }
        if (pass == 0) {
            for (uint64_t k = first + (uint64_t)skip; k < first + count; k++)
                if (PyList_GET_ITEM(values, (Py_ssize_t)k) == Py_None) {
                    if (append_index(unread, i) < 0)
                        return -1;
                    break;
                }
        } else {
            Py_ssize_t low = (Py_ssize_t)first + skip, high = (Py_ssize_t)(first + count);
            PyObject *slice = PyList_GetSlice(values, low < high ? low : high, high);
            int failed = !slice || PyDict_SetItem(props, key, slice) < 0;
            Py_XDECREF(slice);
            if (failed)
                return -1;
        }
    }
    return 0;
}

/* The checked record table (and name ids, unless ids_obj is NULL) of the
   functions below; 0 with an exception set when they are not whole, aligned
   records (with one name id each). */
static int block_tables(const char *func, PyObject *records_obj, PyObject *ids_obj,
                        PyArrayObject **records, PyArrayObject **ids, size_t *nr)
{
    if (!acpy_array(records_obj, records, NPY_UINT8, 0) ||
        (ids_obj && !acpy_array(ids_obj, ids, NPY_INTP, 0)))
        return 0;
    if (PyArray_NBYTES(*records) % sizeof(ac_fbx_record) ||
        (uintptr_t)PyArray_DATA(*records) % _Alignof(ac_fbx_record) ||
        (ids_obj &&
         (size_t)PyArray_SIZE(*ids) != (size_t)PyArray_NBYTES(*records) / sizeof(ac_fbx_record))) {
        PyErr_Format(PyExc_ValueError, "%s: the table is not whole, aligned records%s", func,
                     ids_obj ? " with one name id each" : "");
        return 0;
    }
    *nr = (size_t)PyArray_NBYTES(*records) / sizeof(ac_fbx_record);
    return 1;
}

/* _fbx_block(records, name_ids, values, block, entry, skip, props[, wanted]) -> list:
   the entries of a Properties70 / Properties60 record into the dict `props`,
   as animcore.fbx._properties reads them: each child of record `block`
   (records: the table _fbx_parse gave; name_ids: the numbers _fbx_texts gave
   its names) named `entry` (a name id) whose first value (in `values`, the
   list _fbx_texts gave) is a str sets props[that str] to the list of its
   values from index `skip` on, and returns []. When some of those values are
   still None (arrays or raw bytes not read yet), props is left untouched and
   the list holds the indices of their records (for the caller to read, then
   call again). With `wanted` (a set), only the entries it holds. */
static PyObject *fbx_block(PyObject *self, PyObject *args)
{
    PyObject *records_obj, *ids_obj, *values, *props, *wanted = Py_None, *unread;
    PyArrayObject *records = NULL, *ids = NULL;
    Py_ssize_t block, entry, skip;
    size_t nr;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOO!nnnO!|O:_fbx_block", &records_obj, &ids_obj, &PyList_Type,
                          &values, &block, &entry, &skip, &PyDict_Type, &props, &wanted))
        return NULL;
    if (wanted != Py_None && !PyAnySet_Check(wanted)) {
        PyErr_SetString(PyExc_TypeError, "_fbx_block: wanted must be a set or None");
        return NULL;
    }
    if (!block_tables("_fbx_block", records_obj, ids_obj, &records, &ids, &nr))
        return NULL;
    if (block < 0 || (size_t)block >= nr || skip < 0) {
        PyErr_Format(PyExc_ValueError, "_fbx_block: block %zd is not a record of the %zu, "
                     "or skip %zd is negative", block, nr, skip);
        return NULL;
    }
    if (!(unread = PyList_New(0)))
        return NULL;
    for (int pass = 0; pass < 2; pass++) {
        if (block_pass(PyArray_DATA(records), nr, PyArray_DATA(ids), values, (size_t)block,
                       entry, skip, props, wanted, pass, unread) < 0) {
            Py_DECREF(unread);
            return NULL;
        }
        if (PyList_GET_SIZE(unread))
            break; /* (props untouched) */
    }
    return unread;
}

/* _fbx_blocks(records, name_ids, values, blocks, entry, skip, props[, wanted]) -> list:
   _fbx_block of many blocks at once: blocks[i] (a record index, or -1 for
   none) into the dict props[i]. When some values are still None, no dict is
   touched and the list holds the indices of their records. */
static PyObject *fbx_blocks(PyObject *self, PyObject *args)
{
    PyObject *records_obj, *ids_obj, *values, *blocks, *props, *wanted = Py_None, *unread;
    PyArrayObject *records = NULL, *ids = NULL;
    Py_ssize_t entry, skip, n;
    size_t nr;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOO!O!nnO!|O:_fbx_blocks", &records_obj, &ids_obj,
                          &PyList_Type, &values, &PyList_Type, &blocks, &entry, &skip,
                          &PyList_Type, &props, &wanted))
        return NULL;
    if (wanted != Py_None && !PyAnySet_Check(wanted)) {
        PyErr_SetString(PyExc_TypeError, "_fbx_blocks: wanted must be a set or None");
        return NULL;
    }
    if (!block_tables("_fbx_blocks", records_obj, ids_obj, &records, &ids, &nr))
        return NULL;
    n = PyList_GET_SIZE(blocks);
    if (PyList_GET_SIZE(props) != n || skip < 0) {
        PyErr_Format(PyExc_ValueError, "_fbx_blocks: %zd blocks but %zd dicts, or skip %zd "
                     "is negative", n, PyList_GET_SIZE(props), skip);
        return NULL;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_ssize_t block = PyLong_AsSsize_t(PyList_GET_ITEM(blocks, i));
        if (block == -1 && PyErr_Occurred())
            return NULL;
        if (block < -1 || block >= (Py_ssize_t)nr || !PyDict_Check(PyList_GET_ITEM(props, i))) {
            PyErr_Format(PyExc_ValueError, "_fbx_blocks: blocks at index %zd is %zd (must be "
                         "-1 or a record of the %zu, with a dict in props)", i, block, nr);
            return NULL;
        }
    }
    if (!(unread = PyList_New(0)))
        return NULL;
    for (int pass = 0; pass < 2; pass++) {
        for (Py_ssize_t i = 0; i < n; i++) {
            Py_ssize_t block = PyLong_AsSsize_t(PyList_GET_ITEM(blocks, i));
            if (block >= 0 &&
                block_pass(PyArray_DATA(records), nr, PyArray_DATA(ids), values, (size_t)block,
                           entry, skip, PyList_GET_ITEM(props, i), wanted, pass, unread) < 0) {
                Py_DECREF(unread);
                return NULL;
            }
        }
        if (PyList_GET_SIZE(unread))
            break; /* (no dict touched) */
    }
    return unread;
}

/* _fbx_block_numbers(records, name_ids, values, blocks, entries, skips, names) ->
   (numbers, odd): for each record i, the number each of `names` (a tuple of
   str) has among the entries of its property blocks, as
   animcore.fbx._scalar(_properties(record), name, 0.0) gives it: blocks[k][i]
   is the record's block of kind k (-1: none), read in turn (entries[k]: the
   name id of its entries, -1 when no record has that name; skips[k]: where
   their values start), a later entry of a name replacing an earlier one.
   numbers is float64 (records, names): the first value of the name's last
   entry when it is a float or an int, 0.0 without an entry or value. odd
   lists the records where some value of those entries is anything else (a
   str, an array still unread, an int too large): the caller reads those
   with _properties. */
static PyObject *fbx_block_numbers(PyObject *self, PyObject *args)
{
    PyObject *records_obj, *ids_obj, *values, *blocks, *entries, *skips, *names;
    PyObject *odd = NULL, *result = NULL;
    PyArrayObject *records = NULL, *ids = NULL, *numbers = NULL;
    const ac_fbx_record *r;
    const npy_intp *id;
    Py_ssize_t n = 0, kinds, width, nvalues;
    size_t nr;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOO!O!O!O!O!:_fbx_block_numbers", &records_obj, &ids_obj,
                          &PyList_Type, &values, &PyTuple_Type, &blocks, &PyTuple_Type,
                          &entries, &PyTuple_Type, &skips, &PyTuple_Type, &names))
        return NULL;
    if (!block_tables("_fbx_block_numbers", records_obj, ids_obj, &records, &ids, &nr))
        return NULL;
    kinds = PyTuple_GET_SIZE(blocks);
    width = PyTuple_GET_SIZE(names);
    if (PyTuple_GET_SIZE(entries) != kinds || PyTuple_GET_SIZE(skips) != kinds || !kinds) {
        PyErr_SetString(PyExc_ValueError, "_fbx_block_numbers: blocks, entries and skips "
                        "must have one item per kind of block");
        return NULL;
    }
    for (Py_ssize_t k = 0; k < kinds; k++) {
        PyObject *list = PyTuple_GET_ITEM(blocks, k);
        if (!PyList_Check(list) || (k && PyList_GET_SIZE(list) != n)) {
            PyErr_SetString(PyExc_ValueError, "_fbx_block_numbers: blocks must be lists of "
                            "one block per record");
            return NULL;
        }
        n = PyList_GET_SIZE(list);
    }
    for (Py_ssize_t j = 0; j < width; j++)
        if (!PyUnicode_Check(PyTuple_GET_ITEM(names, j))) {
            PyErr_SetString(PyExc_TypeError, "_fbx_block_numbers: names must be str");
            return NULL;
        }
    r = PyArray_DATA(records);
    id = PyArray_DATA(ids);
    nvalues = PyList_GET_SIZE(values);
    {
        npy_intp dims[2] = {(npy_intp)n, (npy_intp)width};
        if (!(numbers = (PyArrayObject *)PyArray_ZEROS(2, dims, NPY_FLOAT64, 0)))
            return NULL;
    }
    if (!(odd = PyList_New(0)))
        goto done;
    for (Py_ssize_t i = 0; i < n; i++) {
        double *row = (double *)PyArray_DATA(numbers) + i * width;
        int is_odd = 0;
        for (Py_ssize_t k = 0; k < kinds && !is_odd; k++) {
            Py_ssize_t block = PyLong_AsSsize_t(PyList_GET_ITEM(PyTuple_GET_ITEM(blocks, k), i));
            Py_ssize_t entry = PyLong_AsSsize_t(PyTuple_GET_ITEM(entries, k));
            Py_ssize_t skip = PyLong_AsSsize_t(PyTuple_GET_ITEM(skips, k));
            if (PyErr_Occurred())
                goto done;
            if (block < -1 || block >= (Py_ssize_t)nr || skip < 0) {
                PyErr_Format(PyExc_ValueError, "_fbx_block_numbers: block %zd of record %zd "
                             "is not a record of the %zu, or skip %zd is negative", block, i,
                             nr, skip);
                goto done;
            }
            if (block < 0 || entry < 0)
                continue;
            for (size_t c = (size_t)block + 1; c < nr && r[c].parent >= (int64_t)block; c++) {
                uint64_t first = r[c].first_property, count = r[c].property_count;
                PyObject *key;
                if (r[c].parent != (int64_t)block || !count || id[c] != (npy_intp)entry)
                    continue;
                if (values_inside("_fbx_block_numbers", r, c, nvalues) < 0)
                    goto done;
                key = PyList_GET_ITEM(values, (Py_ssize_t)first);
                if (!PyUnicode_Check(key))
                    continue;
                for (Py_ssize_t j = 0; j < width; j++) {
                    PyObject *v;
                    int same = PyUnicode_Compare(key, PyTuple_GET_ITEM(names, j));
                    if (same == -1 && PyErr_Occurred())
                        goto done;
                    if (same != 0)
                        continue;
                    if (count <= (uint64_t)skip) { /* an entry without values */
                        row[j] = 0.0;
                        break;
                    }
                    v = PyList_GET_ITEM(values, (Py_ssize_t)(first + (uint64_t)skip));
                    if (PyFloat_CheckExact(v)) {
                        row[j] = PyFloat_AS_DOUBLE(v);
                    } else if (PyLong_CheckExact(v)) {
                        row[j] = PyLong_AsDouble(v);
                        if (row[j] == -1.0 && PyErr_Occurred()) {
                            PyErr_Clear();
                            is_odd = 1;
                        }
                    } else {
                        is_odd = 1;
                    }
                    break;
                }
            }
        }
        if (is_odd && append_index(odd, (size_t)i) < 0)
            goto done;
    }
    result = PyTuple_Pack(2, (PyObject *)numbers, odd);
done:
    Py_XDECREF(numbers);
    Py_XDECREF(odd);
    return result;
}

/* _fbx_connections(records, name_ids, values, block, names) -> (children,
   parents, properties, parent_heads, parent_next, child_heads, child_next),
   or a list: the connection records among the children of record `block`
   (tables as for _fbx_block; `names`: a set of name ids, those of "C" and
   "Connect"), as animcore.fbx._Objects reads them. Each one with three
   values or more, (kind, child, parent[, property]), is one link j (in file
   order): children[j], parents[j] and properties[j] (the fourth value of an
   "OP" connection when it is a string, None otherwise). The links of one child are a chain:
   parent_heads[child] is its first link, parent_next[j] the next one of the
   same child (-1: the last); child_heads and child_next chain the links of
   one parent alike. No list per object is made here: the reader makes those
   it asks for. When some of the values are still None (not read yet), a
   list of the indices of their records instead (for the caller to read,
   then call again). */
static PyObject *fbx_connections(PyObject *self, PyObject *args)
{
    PyObject *records_obj, *ids_obj, *values, *names, *op = NULL;
    PyObject *lists[4] = {NULL, NULL, NULL, NULL}; /* children, parents, properties, unread */
    PyObject *heads[2] = {NULL, NULL}, *nexts[2] = {NULL, NULL}, *result = NULL;
    PyArrayObject *records = NULL, *ids = NULL;
    Py_ssize_t block, nvalues, links;
    const ac_fbx_record *r;
    const npy_intp *id;
    size_t nr;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOO!nO:_fbx_connections", &records_obj, &ids_obj,
                          &PyList_Type, &values, &block, &names))
        return NULL;
    if (!block_tables("_fbx_connections", records_obj, ids_obj, &records, &ids, &nr))
        return NULL;
    if (!PyAnySet_Check(names)) {
        PyErr_SetString(PyExc_TypeError, "_fbx_connections: names must be a set");
        return NULL;
    }
    r = PyArray_DATA(records);
    id = PyArray_DATA(ids);
    nvalues = PyList_GET_SIZE(values);
    if (block < 0 || (size_t)block >= nr) {
        PyErr_Format(PyExc_ValueError, "_fbx_connections: block %zd is not a record of the "
                     "%zu", block, nr);
        return NULL;
    }
    if (!(op = PyUnicode_FromString("OP")))
        goto done;
    for (int k = 0; k < 4; k++)
        if (!(lists[k] = PyList_New(0)))
            goto done;
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = (size_t)block + 1; i < nr && r[i].parent >= (int64_t)block; i++) {
            uint64_t first = r[i].first_property, count = r[i].property_count;
            PyObject *v[4] = {NULL, NULL, NULL, NULL}, *prop = Py_None, *code;
            int has;
            if (r[i].parent != (int64_t)block || count < 3)
                continue;
            if (!(code = PyLong_FromSsize_t((Py_ssize_t)id[i])))
                goto done;
            has = PySet_Contains(names, code);
            Py_DECREF(code);
            if (has < 0)
                goto done;
            if (!has)
                continue;
            if (values_inside("_fbx_connections", r, i, nvalues) < 0)
                goto done;
            for (uint64_t k = 0; k < 4 && k < count; k++)
                v[k] = PyList_GET_ITEM(values, (Py_ssize_t)(first + k));
            if (pass == 0) {
                if ((v[0] == Py_None || v[1] == Py_None || v[2] == Py_None ||
                     v[3] == Py_None) && append_index(lists[3], i) < 0)
                    goto done;
                continue;
            }
            /* (a kind or a property that is not a string, such as an array,
               makes a plain link) */
            if (v[3] && PyUnicode_Check(v[0]) && PyUnicode_Check(v[3])) {
                int is_op = PyObject_RichCompareBool(v[0], op, Py_EQ);
                if (is_op < 0)
                    goto done;
                if (is_op)
                    prop = v[3];
            }
            if (PyList_Append(lists[0], v[1]) < 0 || PyList_Append(lists[1], v[2]) < 0 ||
                PyList_Append(lists[2], prop) < 0)
                goto done;
        }
        if (pass == 0 && PyList_GET_SIZE(lists[3])) {
            Py_INCREF(lists[3]);
            result = lists[3];
            goto done;
        }
    }
    links = PyList_GET_SIZE(lists[0]);
    /* the chains, made from the last link back (so that each runs in file order) */
    for (int side = 0; side < 2; side++) {
        if (!(heads[side] = PyDict_New()) || !(nexts[side] = PyList_New(links)))
            goto done;
        for (Py_ssize_t j = links - 1; j >= 0; j--) {
            PyObject *key = PyList_GET_ITEM(lists[side], j); /* parents: keyed by the child */
            PyObject *head = PyDict_GetItemWithError(heads[side], key), *index;
            if (!head && PyErr_Occurred())
                goto done;
            if (head)
                Py_INCREF(head);
            else if (!(head = PyLong_FromLong(-1)))
                goto done;
            PyList_SET_ITEM(nexts[side], j, head);
            if (!(index = PyLong_FromSsize_t(j)))
                goto done;
            if (PyDict_SetItem(heads[side], key, index) < 0) {
                Py_DECREF(index);
                goto done;
            }
            Py_DECREF(index);
        }
    }
    result = PyTuple_Pack(7, lists[0], lists[1], lists[2], heads[0], nexts[0], heads[1],
                          nexts[1]);
done:
    for (int k = 0; k < 4; k++)
        Py_XDECREF(lists[k]);
    for (int side = 0; side < 2; side++) {
        Py_XDECREF(heads[side]);
        Py_XDECREF(nexts[side]);
    }
    Py_XDECREF(op);
    return result;
}

/* _fbx_objects(records, values, block) -> (order, records) or a list: the
   objects among the children of record `block` (the Objects record; tables
   as for _fbx_block), as animcore.fbx._Objects reads them: each child with a
   value gives an object whose id is its first value, `order` listing the ids
   in file order and the dict `records` giving each id's record index (the
   last record of an id given twice). When some first values are still None
   (not read yet), a list of the indices of their records instead (for the
   caller to read, then call again). */
static PyObject *fbx_objects(PyObject *self, PyObject *args)
{
    PyObject *records_obj, *values, *order = NULL, *where = NULL, *unread = NULL;
    PyObject *result = NULL;
    PyArrayObject *records = NULL;
    Py_ssize_t block, nvalues;
    const ac_fbx_record *r;
    size_t nr;
    (void)self;
    if (!PyArg_ParseTuple(args, "OO!n:_fbx_objects", &records_obj, &PyList_Type, &values,
                          &block))
        return NULL;
    if (!block_tables("_fbx_objects", records_obj, NULL, &records, NULL, &nr))
        return NULL;
    r = PyArray_DATA(records);
    nvalues = PyList_GET_SIZE(values);
    if (block < 0 || (size_t)block >= nr) {
        PyErr_Format(PyExc_ValueError, "_fbx_objects: block %zd is not a record of the %zu",
                     block, nr);
        return NULL;
    }
    if (!(order = PyList_New(0)) || !(where = PyDict_New()) || !(unread = PyList_New(0)))
        goto done;
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = (size_t)block + 1; i < nr && r[i].parent >= (int64_t)block; i++) {
            uint64_t first = r[i].first_property, count = r[i].property_count;
            PyObject *oid, *index;
            int failed;
            if (r[i].parent != (int64_t)block || !count)
                continue;
            if (values_inside("_fbx_objects", r, i, nvalues) < 0)
                goto done;
            oid = PyList_GET_ITEM(values, (Py_ssize_t)first);
            if (pass == 0) {
                if (oid == Py_None && append_index(unread, i) < 0)
                    goto done;
                continue;
            }
            if (!(index = PyLong_FromSize_t(i)))
                goto done;
            failed = PyList_Append(order, oid) < 0 || PyDict_SetItem(where, oid, index) < 0;
            Py_DECREF(index);
            if (failed)
                goto done;
        }
        if (pass == 0 && PyList_GET_SIZE(unread)) {
            Py_INCREF(unread);
            result = unread;
            goto done;
        }
    }
    result = PyTuple_Pack(2, order, where);
done:
    Py_XDECREF(order);
    Py_XDECREF(where);
    Py_XDECREF(unread);
    return result;
}

/* _fbx_curves(cls, columns, times, starts, ends, group_ends, blob, kinds_of, parts) ->
   list: the FbxCurves animcore.fbx._read_curves makes of curves read
   together, without their class's __init__ (instances of `cls` whose
   __dict__ is set at once). Curve i has the keys starts[i]:ends[i] of the
   float64 array `times` (curves whose key times are the same bytes share
   one view of it) and the attribute groups group_ends[i-1]:group_ends[i]
   (0 for the first), whose 16 bytes each in `blob` name its per-key segment
   kinds and tangent modes: kinds_of(first, end) gives them as a pair, once
   per distinct run of bytes. parts[i] is its (default, pre, post,
   repetitions); `columns` (the reader's key columns) and its first key are
   kept for the key arrays made when first read. */
static PyObject *fbx_curves(PyObject *self, PyObject *args)
{
    PyObject *cls, *columns, *times, *starts, *ends, *group_ends, *blob, *kinds_of, *parts;
    PyObject *out = NULL, *same_times = NULL, *same_kinds = NULL, *empty = NULL;
    PyObject *keys[10] = {NULL};
    static const char *const names[10] = {"times", "interpolation", "tangent_modes", "pre",
                                          "post", "repetitions", "default", "_columns",
                                          "_start", "__dict__"};
    Py_buffer tv = {0};
    Py_ssize_t n, groups, keys_total;
    (void)self;
    if (!PyArg_ParseTuple(args, "O!OOO!O!O!O!OO!:_fbx_curves", &PyType_Type, &cls, &columns,
                          &times, &PyList_Type, &starts, &PyList_Type, &ends, &PyList_Type,
                          &group_ends, &PyBytes_Type, &blob, &kinds_of, &PyList_Type, &parts))
        return NULL;
    n = PyList_GET_SIZE(starts);
    if (PyList_GET_SIZE(ends) != n || PyList_GET_SIZE(group_ends) != n ||
        PyList_GET_SIZE(parts) != n) {
        PyErr_SetString(PyExc_ValueError, "_fbx_curves: starts, ends, group_ends and parts "
                        "must have one item per curve");
        return NULL;
    }
    if (PyObject_GetBuffer(times, &tv, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
        return NULL;
    if (tv.itemsize != 8 || !tv.format || strcmp(tv.format, "d") != 0) {
        PyErr_SetString(PyExc_ValueError, "_fbx_curves: times must be contiguous float64");
        goto done;
    }
    keys_total = tv.len / 8;
    groups = PyBytes_GET_SIZE(blob) / 16;
    for (int k = 0; k < 10; k++)
        if (!(keys[k] = PyUnicode_InternFromString(names[k])))
            goto done;
    if (!(out = PyList_New(n)) || !(same_times = PyDict_New()) ||
        !(same_kinds = PyDict_New()) || !(empty = PyTuple_New(0)))
        goto fail;
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_ssize_t a = PyLong_AsSsize_t(PyList_GET_ITEM(starts, i));
        Py_ssize_t b = PyLong_AsSsize_t(PyList_GET_ITEM(ends, i));
        Py_ssize_t gb = PyLong_AsSsize_t(PyList_GET_ITEM(group_ends, i));
        Py_ssize_t ga = i ? PyLong_AsSsize_t(PyList_GET_ITEM(group_ends, i - 1)) : 0;
        PyObject *part = PyList_GET_ITEM(parts, i), *stamp, *t, *run, *kinds, *curve, *dict;
        PyObject *start, *values[9];
        int failed;
        if (PyErr_Occurred())
            goto fail;
        if (a < 0 || b < a || b > keys_total || ga < 0 || gb < ga || gb > groups ||
            !PyTuple_Check(part) || PyTuple_GET_SIZE(part) != 4) {
            PyErr_Format(PyExc_ValueError, "_fbx_curves: curve %zd's keys %zd:%zd (of %zd), "
                         "groups %zd:%zd (of %zd) or parts are not a curve's", i, a, b,
                         keys_total, ga, gb, groups);
            goto fail;
        }
        if (!(stamp = PyBytes_FromStringAndSize((const char *)tv.buf + 8 * a, 8 * (b - a))))
            goto fail;
        t = PyDict_GetItemWithError(same_times, stamp); /* (borrowed) */
        if (!t && !PyErr_Occurred()) {
            t = PySequence_GetSlice(times, a, b);
            failed = !t || PyDict_SetItem(same_times, stamp, t) < 0;
            Py_XDECREF(t); /* (the dict holds it) */
            if (failed)
                t = NULL;
        }
        Py_DECREF(stamp);
        if (!t)
            goto fail;
        if (!(run = PyBytes_FromStringAndSize(PyBytes_AS_STRING(blob) + 16 * ga,
                                              16 * (gb - ga))))
            goto fail;
        kinds = PyDict_GetItemWithError(same_kinds, run);
        if (!kinds && !PyErr_Occurred()) {
            kinds = PyObject_CallFunction(kinds_of, "nn", ga, gb);
            if (kinds && (!PyTuple_Check(kinds) || PyTuple_GET_SIZE(kinds) != 2)) {
                PyErr_SetString(PyExc_ValueError, "_fbx_curves: kinds_of must give a pair");
                Py_CLEAR(kinds);
            }
            failed = !kinds || PyDict_SetItem(same_kinds, run, kinds) < 0;
            Py_XDECREF(kinds);
            if (failed)
                kinds = NULL;
        }
        Py_DECREF(run);
        if (!kinds)
            goto fail;
        if (!(start = PyLong_FromSsize_t(a)))
            goto fail;
        values[0] = t;
        values[1] = PyTuple_GET_ITEM(kinds, 0);
        values[2] = PyTuple_GET_ITEM(kinds, 1);
        values[3] = PyTuple_GET_ITEM(part, 1);
        values[4] = PyTuple_GET_ITEM(part, 2);
        values[5] = PyTuple_GET_ITEM(part, 3);
        values[6] = PyTuple_GET_ITEM(part, 0);
        values[7] = columns;
        values[8] = start;
        dict = PyDict_New();
        failed = !dict;
        for (int k = 0; k < 9 && !failed; k++)
            failed = PyDict_SetItem(dict, keys[k], values[k]) < 0;
        Py_DECREF(start);
        curve = failed ? NULL : ((PyTypeObject *)cls)->tp_new((PyTypeObject *)cls, empty, NULL);
        /* (object.__setattr__(curve, "__dict__", dict): past a frozen class's __setattr__) */
        if (curve && PyObject_GenericSetAttr(curve, keys[9], dict) < 0)
            Py_CLEAR(curve);
        Py_XDECREF(dict);
        if (!curve)
            goto fail;
        PyList_SET_ITEM(out, i, curve);
    }
    goto done;
fail:
    Py_CLEAR(out);
done:
    for (int k = 0; k < 10; k++)
        Py_XDECREF(keys[k]);
    Py_XDECREF(same_times);
    Py_XDECREF(same_kinds);
    Py_XDECREF(empty);
    PyBuffer_Release(&tv);
    return out;
}

/* _fbx_key_attributes(flags, data, counts, keys) -> (key_flags, right_slopes,
   next_left_slopes, right_weights, next_left_weights, attributes): the
   per-key attributes of curves read together (ac_fbx_key_attributes) from
   their attribute groups: flags and counts int64 (G,), data float32 (G, 4). */
static PyObject *fbx_key_attributes(PyObject *self, PyObject *args)
{
    PyArrayObject *flags, *counts, *data = NULL, *out[6] = {NULL};
    PyObject *data_obj, *result = NULL;
    Py_ssize_t keys;
    npy_intp groups;
    ac_error err;
    ac_status st;
    (void)self;
    if (!PyArg_ParseTuple(args, "O&OO&n:_fbx_key_attributes", acpy_i64, &flags, &data_obj,
                          acpy_i64, &counts, &keys))
        return NULL;
    if (!acpy_array(data_obj, &data, NPY_FLOAT32, 0))
        return NULL;
    groups = PyArray_SIZE(flags);
    if (PyArray_SIZE(counts) != groups || PyArray_SIZE(data) != 4 * groups || keys < 0) {
        PyErr_Format(PyExc_ValueError, "_fbx_key_attributes: counts must have the %zd "
                     "entries of flags and data 4 per entry (keys %zd)", (Py_ssize_t)groups,
                     keys);
        return NULL;
    }
    for (int i = 0; i < 6; i++) {
        npy_intp dims[2] = {(npy_intp)keys, 3};
        out[i] = (PyArrayObject *)PyArray_SimpleNew(i == 5 ? 2 : 1, dims,
                                                     i == 0 ? NPY_INT64 : NPY_FLOAT64);
        if (!out[i])
            goto done;
    }
    ACPY_RUN(keys, st = ac_fbx_key_attributes(PyArray_DATA(flags), PyArray_DATA(data),
                                              PyArray_DATA(counts), (size_t)groups,
                                              (size_t)keys, PyArray_DATA(out[0]),
                                              ACPY_F64(out[1]), ACPY_F64(out[2]),
                                              ACPY_F64(out[3]), ACPY_F64(out[4]),
                                              ACPY_F64(out[5]), &err));
    if (st != AC_OK) {
        PyErr_Format(PyExc_ValueError, "_fbx_key_attributes: counts at index %zu is %lld (%s)",
                     err.index, err.index < (size_t)groups ?
                     (long long)((const int64_t *)PyArray_DATA(counts))[err.index] : -1LL,
                     err.detail);
        goto done;
    }
    result = PyTuple_Pack(6, out[0], out[1], out[2], out[3], out[4], out[5]);
done:
    for (int i = 0; i < 6; i++)
        Py_XDECREF(out[i]);
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
     "_fbx_texts(data, records, properties) -> (record names, property values, name ids, "
     "distinct names)"},
    {"_fbx_gather", fbx_gather, METH_VARARGS,
     "_fbx_gather(data, properties, indices) -> the raw arrays' bytes, joined"},
    {"_fbx_block", fbx_block, METH_VARARGS,
     "_fbx_block(records, name_ids, values, block, entry, skip, props[, wanted]) -> the "
     "records whose values are still to read ([]: props filled)"},
    {"_fbx_blocks", fbx_blocks, METH_VARARGS,
     "_fbx_blocks(records, name_ids, values, blocks, entry, skip, props[, wanted]) -> the "
     "records whose values are still to read ([]: each props[i] filled from blocks[i])"},
    {"_fbx_block_numbers", fbx_block_numbers, METH_VARARGS,
     "_fbx_block_numbers(records, name_ids, values, blocks, entries, skips, names) -> "
     "(numbers, odd records)"},
    {"_fbx_connections", fbx_connections, METH_VARARGS,
     "_fbx_connections(records, name_ids, values, block, names) -> (children, parents, "
     "properties, parent_heads, parent_next, child_heads, child_next), or the records whose "
     "values are still to read"},
    {"_fbx_objects", fbx_objects, METH_VARARGS,
     "_fbx_objects(records, values, block) -> (ids in file order, {id: record index}), or "
     "the records whose first values are still to read"},
    {"_fbx_curves", fbx_curves, METH_VARARGS,
     "_fbx_curves(cls, columns, times, starts, ends, group_ends, blob, kinds_of, parts) -> "
     "the curves, made without cls.__init__"},
    {"_fbx_key_attributes", fbx_key_attributes, METH_VARARGS,
     "_fbx_key_attributes(flags, data, counts, keys) -> (key_flags, right_slopes, "
     "next_left_slopes, right_weights, next_left_weights, attributes)"},
    {"_fbx_layout", fbx_layout, METH_NOARGS, "_fbx_layout() -> struct sizes and offsets"},
    {NULL, NULL, 0, NULL},
};

int acpy_fbx_init(PyObject *module)
{
    return PyModule_AddFunctions(module, methods);
}
