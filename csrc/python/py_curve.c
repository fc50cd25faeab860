#include "binding.h"

#define CAPSULE_NAME "animcore.ac_curve"

/* The curve of a capsule made by _curve_create; NULL with an exception if
   `capsule` is anything else. */
static ac_curve *get_curve(PyObject *capsule)
{
    return (ac_curve *)PyCapsule_GetPointer(capsule, CAPSULE_NAME);
}

const ac_curve *acpy_curve_of(PyObject *capsule)
{
    return PyCapsule_IsValid(capsule, CAPSULE_NAME)
               ? (const ac_curve *)PyCapsule_GetPointer(capsule, CAPSULE_NAME)
               : NULL;
}

/* What a curve's capsule carries besides the curve (its context): whether
   it was made from 1-D values (results without a channel axis), and the
   arrays it borrows its keys or ease index from (spec.borrow_keys,
   spec.borrow_ease_index; NULL: none), released with it. */
typedef struct curve_extra {
    int flat;
    PyObject *borrowed;
} curve_extra;

static void capsule_destroy(PyObject *capsule)
{
    curve_extra *extra = PyCapsule_GetContext(capsule);
    ac_curve_destroy(get_curve(capsule));
    if (extra) {
        Py_XDECREF(extra->borrowed);
        PyMem_Free(extra);
    }
}

/* 1 when the capsule's curve was made from 1-D values. */
static int is_flat(PyObject *capsule)
{
    curve_extra *extra = PyCapsule_GetContext(capsule);
    return extra && extra->flat;
}

/* The capsule owning a new curve; `borrowed` (a new reference or NULL) is
   kept until the capsule goes. NULL with an exception (the curve and
   `borrowed` then released). */
static PyObject *wrap_curve(ac_curve *curve, int flat, PyObject *borrowed)
{
    curve_extra *extra = PyMem_Malloc(sizeof *extra);
    PyObject *capsule = extra ? PyCapsule_New(curve, CAPSULE_NAME, capsule_destroy) : NULL;
    if (!capsule) {
        ac_curve_destroy(curve);
        Py_XDECREF(borrowed);
        PyMem_Free(extra);
        return extra ? NULL : PyErr_NoMemory();
    }
    extra->flat = flat, extra->borrowed = borrowed;
    if (PyCapsule_SetContext(capsule, extra) < 0) { /* (only for a capsule that is not one) */
        Py_XDECREF(borrowed);
        PyMem_Free(extra);
        Py_DECREF(capsule);
        return NULL;
    }
    return capsule;
}

/* The fields of a curve spec that every create path sets the same way. */
static void set_key_spec(ac_curve_spec *spec, PyArrayObject *times, PyArrayObject *values,
                         int interp, int tangents, PyArrayObject *vin, PyArrayObject *vout,
                         int before, int after, int jumps)
{
    spec->times = ACPY_F64(times);
    spec->values = ACPY_F64(values);
    spec->interpolation = (ac_curve_interpolation)interp;
    spec->tangents = (ac_curve_tangents)tangents;
    spec->in_velocities = vin ? ACPY_F64(vin) : NULL;
    spec->out_velocities = vout ? ACPY_F64(vout) : NULL;
    spec->before = (ac_curve_extrapolation)before;
    spec->after = (ac_curve_extrapolation)after;
    spec->jumps = jumps;
}

/* What the index of a create error counts: keys (times), key values (the
   shape of values: every id not listed, velocities and weights too), segments
   (interpolation codes and easings) or channels (extrapolation slopes). */
enum { VALUE_SPACE, KEY_SPACE, SEGMENT_SPACE, CHANNEL_SPACE };
static const acpy_arg_error create_errors[] = {
    {AC_ARG_TIMES, KEY_SPACE, NULL, 0},          {AC_ARG_INTERPOLATION, SEGMENT_SPACE, NULL, 0},
    {AC_ARG_EASE, SEGMENT_SPACE, NULL, 0},       {AC_ARG_OVERSHOOT, SEGMENT_SPACE, NULL, 0},
    {AC_ARG_AMPLITUDE, SEGMENT_SPACE, NULL, 0},  {AC_ARG_PERIOD, SEGMENT_SPACE, NULL, 0},
    {AC_ARG_X1, SEGMENT_SPACE, NULL, 0},         {AC_ARG_Y1, SEGMENT_SPACE, NULL, 0},
    {AC_ARG_X2, SEGMENT_SPACE, NULL, 0},         {AC_ARG_Y2, SEGMENT_SPACE, NULL, 0},
    {AC_ARG_BEFORE_SLOPES, CHANNEL_SPACE, NULL, 0}, {AC_ARG_AFTER_SLOPES, CHANNEL_SPACE, NULL, 0},
};

static PyObject *raise_create(const char *func, const ac_error *err, PyArrayObject *times,
                              PyArrayObject *values, npy_intp segments, npy_intp channels)
{
    acpy_space spaces[4] = {{PyArray_NDIM(values), PyArray_DIMS(values)},
                            {PyArray_NDIM(times), PyArray_DIMS(times)},
                            {1, &segments},
                            {1, &channels}};
    return acpy_raise_as(func, err, create_errors, sizeof create_errors / sizeof *create_errors,
                         spaces);
}

/* _curve_create(func, times, values, interpolation, tangents, in_velocities,
   out_velocities, before, after, jumps[, borrow]) -> capsule. values is (K,)
   or (K, C); the velocities are None or arrays of the shape of values. With
   borrow true the curve reads times and values in place (both read-only
   arrays, which the capsule keeps) instead of copying them. */
static PyObject *curve_create(PyObject *self, PyObject *args)
{
    const char *func;
    PyArrayObject *times, *values, *vin = NULL, *vout = NULL;
    int interp, tangents, before, after, jumps, borrow = 0;
    ac_curve_spec spec;
    ac_curve *curve = NULL;
    PyObject *kept = NULL; /* (times, values) when the curve reads them in place */
    ac_error err;
    ac_status st;
    (void)self;
    if (!PyArg_ParseTuple(args, "sO&O&iiO&O&iip|p:_curve_create", &func, acpy_f64, &times,
                          acpy_f64, &values, &interp, &tangents, acpy_f64_or_none, &vin,
                          acpy_f64_or_none, &vout, &before, &after, &jumps, &borrow))
        return NULL;
    if (borrow && (PyArray_ISWRITEABLE(times) || PyArray_ISWRITEABLE(values))) {
        PyErr_Format(PyExc_ValueError, "%s: borrowed times and values must be read-only", func);
        return NULL;
    }
    if (PyArray_NDIM(times) != 1 || PyArray_NDIM(values) < 1 || PyArray_NDIM(values) > 2 ||
        PyArray_DIM(values, 0) != PyArray_DIM(times, 0)) {
        PyErr_Format(PyExc_ValueError, "%s: times must be (K,) and values (K,) or (K, C)",
                     func);
        return NULL;
    }
    if ((vin && !acpy_same_shape(func, "in_velocities", vin, values)) ||
        (vout && !acpy_same_shape(func, "out_velocities", vout, values)))
        return NULL;
    memset(&spec, 0, sizeof spec);
    spec.keys = (size_t)PyArray_DIM(times, 0);
    spec.channels = PyArray_NDIM(values) == 2 ? (size_t)PyArray_DIM(values, 1) : 1;
    set_key_spec(&spec, times, values, interp, tangents, vin, vout, before, after, jumps);
    spec.borrow_keys = borrow;
    ACPY_RUN(spec.keys * spec.channels, st = ac_curve_create(&curve, &spec, &err));
    if (st)
        return raise_create(func, &err, times, values, 1, 1);
    if (borrow && !(kept = Py_BuildValue("(OO)", times, values))) {
        ac_curve_destroy(curve); /* (it would read arrays nothing keeps alive) */
        return NULL;
    }
    /* 1-D values give results without a channel axis. */
    return wrap_curve(curve, PyArray_NDIM(values) == 1, kept);
}

/* _distinct(items) -> (distinct, places) or None: the distinct items of a
   list or tuple, in the order of their first appearance, and each item's
   place among them (an intp array), each item hashed once; None when an item
   cannot be hashed or compared (TypeError). Items are the same when a dict
   would take them for the same key (identity, else equal hash and ==). */
typedef struct seen_item {
    Py_hash_t hash;
    PyObject *item;
    npy_intp place;
} seen_item;

/* 1 when exact str objects a and b hold the same text. */
static int same_text(PyObject *a, PyObject *b)
{
    const Py_ssize_t n = PyUnicode_GET_LENGTH(a);
    const int kind = PyUnicode_KIND(a);
    const unsigned char *x = PyUnicode_DATA(a), *y = PyUnicode_DATA(b);
    if (n != PyUnicode_GET_LENGTH(b) || kind != PyUnicode_KIND(b))
        return 0;
    for (Py_ssize_t i = 0; i < n * kind; i++) /* (short names: no call) */
        if (x[i] != y[i])
            return 0;
    return 1;
}

/* Puts item (of hash `hash`, place `place`) in the first free slot of its
   run in table (mask + 1 slots, at most half full). */
static void seen_put(seen_item *table, size_t mask, Py_hash_t hash, PyObject *item,
                     npy_intp place)
{
    size_t slot = (size_t)hash & mask;
    while (table[slot].item)
        slot = (slot + 1) & mask;
    table[slot].hash = hash, table[slot].item = item, table[slot].place = place;
}

/* A distinct str of distinct_names: its hash, length, kind and the str (a
   long text compared with same_text); a text
   of 4 to 16 bytes also as four 4-byte words at offsets (0, 4 and the two
   last ones, clamped into the text: they cover it), compared with those of
   an item of its length without a branch on the length. */
typedef struct seen_name {
    Py_hash_t hash;
    Py_ssize_t length;
    int kind, words;
    PyObject *str;
    size_t at[4];
    uint32_t word[4];
} seen_name;

static void seen_name_of(PyObject *s, Py_hash_t hash, seen_name *e)
{
    const size_t n = (size_t)PyUnicode_GET_LENGTH(s) * PyUnicode_KIND(s);
    const unsigned char *data = PyUnicode_DATA(s);
    e->hash = hash, e->length = PyUnicode_GET_LENGTH(s), e->kind = PyUnicode_KIND(s);
    e->str = s;
    e->words = n >= 4 && n <= 16;
    if (e->words) {
        e->at[0] = 0, e->at[1] = n - 4, e->at[2] = n >= 8 ? 4 : n - 4;
        e->at[3] = n >= 8 ? n - 8 : 0;
        for (int w = 0; w < 4; w++)
            memcpy(&e->word[w], data + e->at[w], 4);
    }
}

/* 1 when str s, of e's hash, length and kind, has e's text. */
static int same_name(const seen_name *e, PyObject *s)
{
    const unsigned char *data = PyUnicode_DATA(s);
    uint32_t diff = 0;
    if (!e->words)
        return same_text(e->str, s);
    for (int w = 0; w < 4; w++) {
        uint32_t x;
        memcpy(&x, data + e->at[w], 4);
        diff |= x ^ e->word[w];
    }
    return diff == 0;
}

/* The places of the leading items of `items` that are exact str objects
   among at most FEW distinct texts (a per-segment list of interpolation
   names: a few names, repeated), found without a search per item: an item
   is a distinct str found so far when it is that object (a small table by
   address), else when its hash, length, kind and text are one's (a small
   table by hash; a str caches its hash); otherwise it is a new distinct
   str. Exact strs are the same for a dict exactly when their texts are, and
   no code of the items runs here, so the list cannot change. Returns how
   many items were placed, the distinct strs appended to `list`; the rest is
   left to the general loop (an item not an exact str, more texts, texts
   whose hashes share a slot). */
enum { FEW = 16, SLOTS = 256, AHEAD = 16 };
static npy_intp distinct_names(PyObject *items, npy_intp n, npy_intp *place, PyObject *list)
{
    PyObject *const *item = PySequence_Fast_ITEMS(items);
    PyObject *address[SLOTS] = {NULL};
    unsigned char at_address[SLOTS] = {0}, at_hash[SLOTS] = {0};
    seen_name seen[FEW + 1];
    int used = 0;
    npy_intp i = 0;
    /* at_hash: the place of the text in a slot plus 1, 0 for none (seen[0]
       an entry no str matches) */
    memset(&seen[0], 0, sizeof seen[0]);
    seen[0].length = -1;
    for (; i < n; i++) {
        PyObject *s = item[i];
        const size_t a = ((uintptr_t)s >> 4) & (SLOTS - 1);
        const seen_name *e;
        Py_hash_t h;
        size_t slot;
        int r;
#if defined(__GNUC__) || defined(__clang__)
        if (i + AHEAD < n) /* (items lie apart in memory: a header fetched ahead) */
            __builtin_prefetch(item[i + AHEAD]);
#endif
        if (address[a] == s) {
            place[i] = at_address[a];
            continue;
        }
        if (!PyUnicode_CheckExact(s))
            break;
        h = ((PyASCIIObject *)s)->hash;
        if (h == -1 && (h = PyObject_Hash(s)) == -1)
            break;
        slot = (size_t)h & (SLOTS - 1);
        r = at_hash[slot], e = &seen[r];
        if (e->hash == h && e->length == PyUnicode_GET_LENGTH(s) &&
            e->kind == (int)PyUnicode_KIND(s) && same_name(e, s)) {
            place[i] = r - 1;
            continue;
        }
        if (r > 0 || used == FEW) /* a text whose slot is taken, or more texts */
            break;
        if (PyList_Append(list, s) < 0)
            break;
        r = ++used;
        seen_name_of(s, h, &seen[r]), at_hash[slot] = (unsigned char)r;
        address[a] = s, at_address[a] = (unsigned char)(r - 1);
        place[i] = r - 1;
    }
    return i;
}

static PyObject *distinct(PyObject *self, PyObject *arg)
{
    PyObject *list = NULL, *result = NULL, *held = NULL;
    PyArrayObject *places = NULL;
    seen_item *table = NULL;
    size_t mask = 15, used = 0;
    npy_intp n, *place, start;
    (void)self;
    if (!PyList_Check(arg) && !PyTuple_Check(arg)) {
        PyErr_SetString(PyExc_TypeError, "_distinct: expected a list or a tuple");
        return NULL;
    }
    n = PySequence_Fast_GET_SIZE(arg);
    if (!(list = PyList_New(0)) ||
        !(places = (PyArrayObject *)PyArray_SimpleNew(1, &n, NPY_INTP)))
        goto done;
    place = (npy_intp *)PyArray_DATA(places);
    start = distinct_names(arg, n, place, list);
    if (PyErr_Occurred())
        goto done;
    if (start == n) {
        result = Py_BuildValue("(OO)", list, places);
        goto done;
    }
    /* the rest in a table that holds the distinct strs found so far */
    used = (size_t)PyList_GET_SIZE(list);
    while (2 * used > mask)
        mask = 2 * mask + 1;
    if (!(table = PyMem_Calloc(mask + 1, sizeof *table))) {
        PyErr_NoMemory();
        goto done;
    }
    for (size_t r = 0; r < used; r++) {
        PyObject *s = PyList_GET_ITEM(list, r);
        Py_hash_t hash = PyObject_Hash(s); /* (an exact str: no code runs) */
        if (hash == -1)
            goto done;
        seen_put(table, mask, hash, s, (npy_intp)r);
    }
    for (npy_intp i = start; i < n; i++) {
        PyObject *item, *previous;
        int text;
        Py_hash_t hash;
        size_t slot;
        /* (an __eq__ or __hash__ may change a list: its items are read afresh,
           and an item not a str is held while it is looked up) */
        if (PySequence_Fast_GET_SIZE(arg) != n) {
            PyErr_SetString(PyExc_RuntimeError, "_distinct: the list changed size");
            goto done;
        }
        item = PySequence_Fast_ITEMS(arg)[i];
        previous = i > 0 ? PySequence_Fast_ITEMS(arg)[i - 1] : NULL;
        if (item == previous) { /* runs of one object */
            place[i] = place[i - 1];
            continue;
        }
        if (!(text = PyUnicode_CheckExact(item))) {
            Py_XSETREF(held, item);
            Py_INCREF(held);
        }
        if ((hash = PyObject_Hash(item)) == -1)
            goto done;
        for (slot = (size_t)hash & mask;; slot = (slot + 1) & mask) {
            seen_item *s = &table[slot];
            int same;
            if (!s->item) { /* new: a place of its own (the list holds it) */
                s->hash = hash, s->item = item, s->place = (npy_intp)used++;
                place[i] = s->place;
                if (PyList_Append(list, item) < 0)
                    goto done;
                break;
            }
            if (s->hash != hash)
                continue;
            same = s->item == item ? 1
                   : text && PyUnicode_CheckExact(s->item) ? same_text(s->item, item)
                                                           : PyObject_RichCompareBool(s->item, item, Py_EQ);
            if (same < 0)
                goto done;
            if (same) {
                place[i] = s->place;
                break;
            }
        }
        if (2 * used > mask) { /* grow: at most half full */
            size_t wider = 2 * mask + 1;
            seen_item *grown = PyMem_Calloc(wider + 1, sizeof *grown);
            if (!grown) {
                PyErr_NoMemory();
                goto done;
            }
            for (size_t r = 0; r <= mask; r++)
                if (table[r].item)
                    seen_put(grown, wider, table[r].hash, table[r].item, table[r].place);
            PyMem_Free(table);
            table = grown, mask = wider;
        }
    }
    result = Py_BuildValue("(OO)", list, places);
done:
    PyMem_Free(table);
    Py_XDECREF(held);
    Py_XDECREF(list);
    Py_XDECREF(places);
    if (!result && PyErr_ExceptionMatches(PyExc_TypeError)) { /* unhashable or incomparable */
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    return result;
}

_Static_assert(sizeof(npy_uintp) == sizeof(size_t), "ease indices are size_t");

/* Converters of the per-segment arrays: C ints (interpolation codes) and
   size_t indices (npy_uintp), or None. */
static int ints_or_none(PyObject *obj, void *result)
{
    if (obj == Py_None) {
        *(PyArrayObject **)result = NULL;
        return 1;
    }
    return acpy_array(obj, (PyArrayObject **)result, NPY_INT, 0);
}

static int indices_or_none(PyObject *obj, void *result)
{
    if (obj == Py_None) {
        *(PyArrayObject **)result = NULL;
        return 1;
    }
    return acpy_array(obj, (PyArrayObject **)result, NPY_UINTP, 0);
}

/* _curve_create_keyed(func, times, values, interpolation, tangents,
   in_velocities, out_velocities, before, after, jumps, segments, eases,
   ease_index, in_weights, out_weights, before_slopes, after_slopes) ->
   capsule: the key model of _curve_create plus, each None or an array,
   segments (K-1,) interpolation codes (C ints), eases (E, 9) rows (kind,
   flags, overshoot, amplitude, period, x1, y1, x2, y2), one per segment
   (E = K-1) or, with ease_index (K-1,) of size_t (numpy's uintp) naming
   each segment's row, a table of the distinct easings; weights of the
   shape of values and slopes (C,). A read-only ease_index is read in place
   by the curve, the capsule keeping it, instead of copied. */
static PyObject *curve_create_keyed(PyObject *self, PyObject *args)
{
    const char *func;
    PyArrayObject *times, *values, *vin = NULL, *vout = NULL, *segs = NULL, *eases = NULL,
                  *index = NULL;
    PyArrayObject *win = NULL, *wout = NULL, *sb = NULL, *sa = NULL;
    int interp, tangents, before, after, jumps;
    ac_curve_spec spec;
    ac_curve *curve = NULL;
    ac_error err;
    ac_status st;
    ac_curve_ease *easing = NULL;
    size_t k, nseg, neases;
    (void)self;
    int long_handles = 0, borrow_index;
    PyObject *kept = NULL;
    if (!PyArg_ParseTuple(args, "sO&O&iiO&O&iipO&O&O&O&O&O&O&|p:_curve_create_keyed", &func,
                          acpy_f64, &times, acpy_f64, &values, &interp, &tangents,
                          acpy_f64_or_none, &vin, acpy_f64_or_none, &vout, &before, &after,
                          &jumps, ints_or_none, &segs, acpy_f64_or_none, &eases,
                          indices_or_none, &index,
                          acpy_f64_or_none, &win, acpy_f64_or_none, &wout, acpy_f64_or_none,
                          &sb, acpy_f64_or_none, &sa, &long_handles))
        return NULL;
    borrow_index = index && !PyArray_ISWRITEABLE(index);
    if (PyArray_NDIM(times) != 1 || PyArray_NDIM(values) < 1 || PyArray_NDIM(values) > 2 ||
        PyArray_DIM(values, 0) != PyArray_DIM(times, 0) || PyArray_DIM(times, 0) < 1) {
        PyErr_Format(PyExc_ValueError, "%s: times must be (K,) and values (K,) or (K, C)",
                     func);
        return NULL;
    }
    if ((vin && !acpy_same_shape(func, "in_velocities", vin, values)) ||
        (vout && !acpy_same_shape(func, "out_velocities", vout, values)) ||
        (win && !acpy_same_shape(func, "in_weights", win, values)) ||
        (wout && !acpy_same_shape(func, "out_weights", wout, values)))
        return NULL;
    memset(&spec, 0, sizeof spec);
    k = (size_t)PyArray_DIM(times, 0);
    nseg = k - 1;
    spec.keys = k;
    spec.channels = PyArray_NDIM(values) == 2 ? (size_t)PyArray_DIM(values, 1) : 1;
    neases = index ? (eases ? (size_t)PyArray_SIZE(eases) / 9 : 0) : nseg;
    if ((segs && (size_t)PyArray_SIZE(segs) != nseg) ||
        (eases && (size_t)PyArray_SIZE(eases) != neases * 9) ||
        (index && (size_t)PyArray_SIZE(index) != nseg) ||
        (sb && (size_t)PyArray_SIZE(sb) != spec.channels) ||
        (sa && (size_t)PyArray_SIZE(sa) != spec.channels)) {
        PyErr_Format(PyExc_ValueError,
                     "%s: per-segment arrays need K-1 entries and slopes one per channel",
                     func);
        return NULL;
    }
    if (!(easing = PyMem_Calloc(neases ? neases : 1, sizeof *easing)))
        return PyErr_NoMemory();
    for (size_t j = 0; eases && j < neases; j++) {
        const double *row = ACPY_F64(eases) + 9 * j;
        easing[j].kind = (int)row[0], easing[j].flags = (int)row[1];
        easing[j].overshoot = row[2], easing[j].amplitude = row[3];
        easing[j].period = row[4];
        easing[j].x1 = row[5], easing[j].y1 = row[6];
        easing[j].x2 = row[7], easing[j].y2 = row[8];
    }
    set_key_spec(&spec, times, values, interp, tangents, vin, vout, before, after, jumps);
    spec.segment_interpolation = segs ? (const int *)PyArray_DATA(segs) : NULL;
    spec.segment_ease = eases ? easing : NULL;
    spec.segment_ease_index = index ? (const size_t *)PyArray_DATA(index) : NULL;
    spec.ease_count = neases;
    spec.in_weights = win ? ACPY_F64(win) : NULL;
    spec.out_weights = wout ? ACPY_F64(wout) : NULL;
    spec.before_slopes = sb ? ACPY_F64(sb) : NULL;
    spec.after_slopes = sa ? ACPY_F64(sa) : NULL;
    spec.long_handles = long_handles;
    spec.borrow_ease_index = borrow_index;
    ACPY_RUN(spec.keys * spec.channels, st = ac_curve_create(&curve, &spec, &err));
    PyMem_Free(easing);
    if (st)
        return raise_create(func, &err, times, values, (npy_intp)(nseg ? nseg : 1),
                            (npy_intp)spec.channels);
    if (borrow_index && !(kept = Py_BuildValue("(O)", index))) {
        ac_curve_destroy(curve);
        return NULL;
    }
    /* 1-D values give results without a channel axis. */
    return wrap_curve(curve, PyArray_NDIM(values) == 1, kept);
}

/* Time remaps of an evaluation (ac_curve_eval_remapped): whole-clip remaps,
   outermost first, and an optional easing inside every segment. */
typedef struct remap_plan {
    size_t nremap;
    int has_segment;
    ac_curve_ease segment;
    ac_curve_ease remaps[];
} remap_plan;

#define PLAN_NAME "animcore.ac_curve_remaps"

static void plan_destroy(PyObject *capsule)
{
    PyMem_Free(PyCapsule_GetPointer(capsule, PLAN_NAME));
}

/* Reads m rows (kind, flags, overshoot, amplitude, period, x1, y1, x2, y2). */
static void read_eases(const double *rows, size_t m, ac_curve_ease *e)
{
    for (size_t j = 0; j < m; j++) {
        const double *row = rows + 9 * j;
        e[j].kind = (int)row[0], e[j].flags = (int)row[1];
        e[j].overshoot = row[2], e[j].amplitude = row[3], e[j].period = row[4];
        e[j].x1 = row[5], e[j].y1 = row[6], e[j].x2 = row[7], e[j].y2 = row[8];
    }
}

/* _curve_remaps(func, remaps, segment) -> capsule: remaps (R, 9) easing rows,
   outermost first; segment a (9,) row or None (no per-segment ease). */
static PyObject *curve_remaps(PyObject *self, PyObject *args)
{
    const char *func;
    PyArrayObject *remaps, *segment = NULL;
    remap_plan *plan;
    size_t nremap;
    PyObject *capsule;
    (void)self;
    if (!PyArg_ParseTuple(args, "sO&O&:_curve_remaps", &func, acpy_f64, &remaps,
                          acpy_f64_or_none, &segment))
        return NULL;
    nremap = (size_t)PyArray_SIZE(remaps) / 9;
    if ((size_t)PyArray_SIZE(remaps) != 9 * nremap || (segment && PyArray_SIZE(segment) != 9)) {
        PyErr_Format(PyExc_ValueError, "%s: easing rows hold 9 values", func);
        return NULL;
    }
    plan = PyMem_Calloc(1, sizeof *plan + (nremap ? nremap : 1) * sizeof(ac_curve_ease));
    if (!plan)
        return PyErr_NoMemory();
    plan->nremap = nremap;
    read_eases(ACPY_F64(remaps), nremap, plan->remaps);
    if (segment) {
        plan->has_segment = 1;
        read_eases(ACPY_F64(segment), 1, &plan->segment);
    }
    capsule = PyCapsule_New(plan, PLAN_NAME, plan_destroy);
    if (!capsule)
        PyMem_Free(plan);
    return capsule;
}

/* Curve evaluation: the context is the curve's capsule, or a tuple (capsule,
   side) or (capsule, side, remaps) with side 0 (right) or 1 (left) of keys,
   jumps and cycle seams and remaps a capsule from _curve_remaps or None. */
static int curve_context(const char *func, PyObject *arg, acpy_context *ctx)
{
    PyObject *capsule = arg, *plan = Py_None;
    long side = 0;
    if (PyTuple_Check(arg)) {
        Py_ssize_t m = PyTuple_GET_SIZE(arg);
        if (m < 2 || m > 3) {
            PyErr_Format(PyExc_TypeError, "%s: a curve context is (curve, side[, remaps])",
                         func);
            return 0;
        }
        capsule = PyTuple_GET_ITEM(arg, 0);
        side = PyLong_AsLong(PyTuple_GET_ITEM(arg, 1));
        if (side == -1 && PyErr_Occurred())
            return 0;
        if (m == 3)
            plan = PyTuple_GET_ITEM(arg, 2);
    }
    if (!(ctx->object = get_curve(capsule)))
        return 0;
    if (plan != Py_None && !(ctx->detail = PyCapsule_GetPointer(plan, PLAN_NAME)))
        return 0;
    ctx->option[0] = side;
    ctx->channels = (npy_intp)ac_curve_channels(ctx->object);
    ctx->bare = is_flat(capsule);
    return 1;
}

/* One derivative order at n times on the context's side, through its remaps. */
static ac_status eval_order(const acpy_context *ctx, const double *t, size_t n, int order,
                            double *out, ac_error *err)
{
    const remap_plan *plan = ctx->detail;
    ac_curve_cursor cursor = {0};
    int side = (int)ctx->option[0];
    if (!plan && side == AC_SIDE_RIGHT)
        return ac_curve_eval(ctx->object, t, n, order, out, err);
    if (!plan)
        return ac_curve_eval_side(ctx->object, &cursor, t, n, order, side, out, err);
    return ac_curve_eval_remapped(ctx->object, &cursor, t, n, order, side, plan->remaps,
                                  plan->nremap, plan->has_segment ? &plan->segment : NULL,
                                  out, err);
}

/* The ACPY_CHECKS check of one order: time remaps are not vouched for. */
static int certain(const acpy_context *ctx, const double *t, size_t n, int order)
{
    return !ctx->detail && ac_curve_eval_check(ctx->object, t, n, order, (int)ctx->option[0]);
}

#define DERIVATIVE_LOOP(name, order)                                             \
    static ac_status name(const acpy_context *ctx, const double *const *in,      \
                          const size_t *steps, double *const *out, size_t n,     \
                          ac_error *err)                                         \
    {                                                                            \
        (void)steps;                                                             \
        if (!out) /* ACPY_CHECKS */                                              \
            return certain(ctx, in[0], n, order) ? AC_OK : acpy_unchecked(err);  \
        return eval_order(ctx, in[0], n, order, out[0], err);                    \
    }

DERIVATIVE_LOOP(value_loop, 0)
DERIVATIVE_LOOP(velocity_loop, 1)
DERIVATIVE_LOOP(acceleration_loop, 2)

static ac_status sample_loop(const acpy_context *ctx, const double *const *in,
                             const size_t *steps, double *const *out, size_t n, ac_error *err)
{
    ac_status st;
    (void)steps;
    if (!out) /* ACPY_CHECKS */
        return certain(ctx, in[0], n, 0) && certain(ctx, in[0], n, 1) ? AC_OK
                                                                       : acpy_unchecked(err);
    st = eval_order(ctx, in[0], n, 0, out[0], err);
    return st ? st : eval_order(ctx, in[0], n, 1, out[1], err);
}

static const acpy_kernel curve_value = {
    "_curve_value", "_curve_value(func, curve, t, out, workers) -> value", 1, 1,
    {{"t", 1}}, {{"value", ACPY_CHANNELS}}, value_loop, ACPY_CHECKS, curve_context,
};
static const acpy_kernel curve_velocity = {
    "_curve_velocity", "_curve_velocity(func, curve, t, out, workers) -> velocity", 1, 1,
    {{"t", 1}}, {{"velocity", ACPY_CHANNELS}}, velocity_loop, ACPY_CHECKS,
    curve_context,
};
static const acpy_kernel curve_acceleration = {
    "_curve_acceleration", "_curve_acceleration(func, curve, t, out, workers)", 1, 1,
    {{"t", 1}}, {{"acceleration", ACPY_CHANNELS}}, acceleration_loop, ACPY_CHECKS,
    curve_context,
};
static const acpy_kernel curve_sample = {
    "_curve_sample", "_curve_sample(func, curve, t, out, workers) -> (value, velocity)", 1, 2,
    {{"t", 1}}, {{"value", ACPY_CHANNELS}, {"velocity", ACPY_CHANNELS}}, sample_loop,
    ACPY_CHECKS, curve_context,
};

static const acpy_kernel *const kernels[] = {&curve_value, &curve_velocity,
                                             &curve_acceleration, &curve_sample};

/* _curve_key_velocities(capsule, in_velocities, out_velocities): fills both. */
static PyObject *curve_key_velocities(PyObject *self, PyObject *args)
{
    PyObject *capsule;
    PyArrayObject *vin, *vout;
    ac_curve *curve;
    size_t kc;
    (void)self;
    if (!PyArg_ParseTuple(args, "OO&O&:_curve_key_velocities", &capsule, acpy_f64_out,
                          &vin, acpy_f64_out, &vout))
        return NULL;
    if (!(curve = get_curve(capsule)))
        return NULL;
    kc = ac_curve_keys(curve) * ac_curve_channels(curve);
    if ((size_t)PyArray_SIZE(vin) != kc || (size_t)PyArray_SIZE(vout) != kc) {
        PyErr_SetString(PyExc_ValueError, "_curve_key_velocities: wrong output size");
        return NULL;
    }
    ac_curve_key_velocities(curve, ACPY_F64(vin), ACPY_F64(vout));
    Py_RETURN_NONE;
}

/* _curve_keys(capsule) -> (times, values): the curve's own key arrays,
   read-only views (values (K,) for a curve made from 1-D values). */
static PyObject *curve_keys(PyObject *self, PyObject *capsule)
{
    ac_curve *curve = get_curve(capsule);
    PyObject *times, *values;
    npy_intp k, c;
    (void)self;
    if (!curve)
        return NULL;
    k = (npy_intp)ac_curve_keys(curve);
    c = is_flat(capsule) ? 0 : (npy_intp)ac_curve_channels(curve);
    if (!(times = acpy_f64_view(capsule, ac_curve_times(curve), k, 0)))
        return NULL;
    if (!(values = acpy_f64_view(capsule, ac_curve_values(curve), k, c))) {
        Py_DECREF(times);
        return NULL;
    }
    return Py_BuildValue("(NN)", times, values);
}

/* _curve_velocities(capsule) -> (in, out) read-only views of the key
   velocities the curve stores (the same array twice where it stores one),
   shaped as its values, or None when it stores none (step and linear). */
static PyObject *curve_velocities(PyObject *self, PyObject *capsule)
{
    ac_curve *curve = get_curve(capsule);
    const double *vin, *vout;
    PyObject *in, *out;
    npy_intp k, c;
    (void)self;
    if (!curve)
        return NULL;
    vin = ac_curve_in_velocities(curve), vout = ac_curve_out_velocities(curve);
    if (!vin)
        Py_RETURN_NONE;
    k = (npy_intp)ac_curve_keys(curve);
    c = is_flat(capsule) ? 0 : (npy_intp)ac_curve_channels(curve);
    if (!(in = acpy_f64_view(capsule, vin, k, c)))
        return NULL;
    if (vout == vin) {
        Py_INCREF(in);
        out = in;
    } else if (!(out = acpy_f64_view(capsule, vout, k, c))) {
        Py_DECREF(in);
        return NULL;
    }
    return Py_BuildValue("(NN)", in, out);
}

static PyMethodDef methods[] = {
    {"_distinct", distinct, METH_O,
     "_distinct(items) -> (distinct items, intp places) of a list or tuple, or None"},
    {"_curve_velocities", curve_velocities, METH_O,
     "_curve_velocities(capsule) -> (in, out) read-only views of the stored key velocities, "
     "or None"},
    {"_curve_keys", curve_keys, METH_O,
     "_curve_keys(capsule) -> (times, values): read-only views of the curve's own keys"},
    {"_curve_create", curve_create, METH_VARARGS,
     "_curve_create(func, times, values, interpolation, tangents, in_velocities, "
     "out_velocities, before, after, jumps) -> capsule owning an ac_curve"},
    {"_curve_create_keyed", curve_create_keyed, METH_VARARGS,
     "_curve_create_keyed(func, times, values, interpolation, tangents, in_velocities, "
     "out_velocities, before, after, jumps, segments, eases, ease_index, in_weights, "
     "out_weights, before_slopes, after_slopes[, long_handles]) -> capsule "
     "owning an "
     "ac_curve"},
    {"_curve_remaps", curve_remaps, METH_VARARGS,
     "_curve_remaps(func, remaps, segment) -> capsule of time remaps for a curve context"},
    {"_curve_key_velocities", curve_key_velocities, METH_VARARGS,
     "_curve_key_velocities(curve, in_velocities, out_velocities)"},
    {NULL, NULL, 0, NULL},
};

int acpy_curve_init(PyObject *module)
{
    if (acpy_add_kernels(module, kernels, sizeof kernels / sizeof kernels[0]) < 0)
        return -1;
    return PyModule_AddFunctions(module, methods);
}
