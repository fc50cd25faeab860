/* The one generic entry point that serves every declared kernel (see
   binding.h): argument conversion, broadcasting, the strided block walk,
   out=, workers= and error mapping. */
#include <stdlib.h>
#include <string.h>

#include "binding.h"

#include <numpy/arrayscalars.h>

#define MAX_OPS (ACPY_MAX_IN + ACPY_MAX_OUT)
#define BLOCK_VALUES 4096 /* scratch values per operand and block (32 KB) */
#define MIN_SPLIT 65536   /* work (items x values per item) below which workers= keeps one
                             thread */

/* Element types read and written in place; anything else is converted once. */
enum { T_F64, T_F32, T_I8, T_I16, T_I32, T_I64, T_U8, T_U16, T_U32, T_U64, T_BOOL };

typedef struct operand {
    char *data;
    int type;
    int kind;                      /* what its loop buffers hold: NPY_DOUBLE, NPY_INT64... */
    int size;                      /* bytes per value in those buffers */
    int native;                    /* the array holds them as is (no conversion) */
    int aligned;
    npy_intp width;                /* values per item */
    int ncore;                     /* core axes of an item (0 to 3) */
    npy_intp cdims[3], cstrides[3]; /* their lengths and byte strides */
    int packed;                    /* an item's values are contiguous */
    npy_intp strides[NPY_MAXDIMS]; /* byte strides over the loop axes, 0 = broadcast */
    npy_intp held;                 /* items its scratch holds: a block, or 1 when shared */
} operand;

/* One call's walk: the loop axes (coalesced) and the operands, inputs first. */
typedef struct walk {
    const acpy_kernel *kernel;
    const acpy_context *ctx;
    int nin, nout, nd;
    npy_intp shape[NPY_MAXDIMS];
    operand op[MAX_OPS];
    npy_intp block;  /* items per block */
    int long_runs;   /* ACPY_LONG_RUNS applies: runs need no scratch */
    int long_checks; /* an ACPY_CHECKS check reads every input in place, so it too
                        takes whole runs: it writes nothing, and blocks only add calls */
    npy_intp widest; /* values per item of the widest operand: the work of an item */
    int write;       /* 0: the validation pass (outputs go to scratch) */
    int check;       /* 1: the kernel's check (ACPY_CHECKS), which writes nothing */
} walk;

/* A range of a walk, the scratch it runs in and what it found. */
typedef struct part {
    const walk *w;
    npy_intp begin, end;
    double *scratch;
    ac_status status;
    ac_error err;
    npy_intp err_flat;
} part;

#define MAX_THREADS 64

/* What the threads of one job share: what is left of each thread's share of
   the items, [front, back), and the failure with the lowest flat index found
   so far (stop == total when none). A thread takes chunks from the front of
   its own share, so that it writes one stretch of memory (threads writing
   neighbouring chunks would fault in the same new pages at the same time),
   then from the back of the share with the most left, so that a busy core
   holds back only its current chunk. Nothing at or past stop is taken. */
typedef struct shared {
    const acpy_job *job;
    npy_intp chunk, stop;
    int count;
    npy_intp front[MAX_THREADS], back[MAX_THREADS];
    PyThread_type_lock lock; /* NULL with one thread */
    ac_status status;
    ac_error err;
} shared;

typedef struct worker {
    shared *s;
    int index;
    PyThread_type_lock done;
} worker;

static int element_type(PyArrayObject *a)
{
    if (!PyArray_ISNOTSWAPPED(a))
        return -1;
    switch (PyArray_TYPE(a)) {
    case NPY_DOUBLE: return T_F64;
    case NPY_FLOAT: return T_F32;
    case NPY_BYTE: return T_I8;
    case NPY_SHORT: return T_I16;
    case NPY_BOOL: return T_BOOL;
    case NPY_UBYTE: return T_U8;
    case NPY_USHORT: return T_U16;
    default: break;
    }
    if (PyArray_ISSIGNED(a)) {
        switch (PyArray_ITEMSIZE(a)) {
        case 4: return T_I32;
        case 8: return T_I64;
        default: return -1;
        }
    }
    if (PyArray_ISUNSIGNED(a)) {
        switch (PyArray_ITEMSIZE(a)) {
        case 4: return T_U32;
        case 8: return T_U64;
        default: return -1;
        }
    }
    return -1;
}

#define GATHER_LOOP(T)                                                          \
    for (npy_intp r = 0; r < rows; r++)                                         \
        for (npy_intp i = 0; i < cols; i++)                                     \
            for (npy_intp c = 0; c < width; c++) {                              \
                T v;                                                            \
                memcpy(&v, src + r * outer + i * stride + item_offset(o, c),    \
                       sizeof v);                                               \
                *dst++ = (double)v;                                             \
            }

/* Byte offset of value c (in C order) of an item of operand o. */
static npy_intp item_offset(const operand *o, npy_intp c)
{
    npy_intp at = 0;
    for (int d = o->ncore - 1; d >= 0; d--) {
        at += c % o->cdims[d] * o->cstrides[d];
        c /= o->cdims[d];
    }
    return at;
}

/* One integer of an array of element type `type` (an integer or bool type). */
static int64_t load_int(const char *p, int type)
{
    switch (type) {
    case T_I8: { int8_t v; memcpy(&v, p, 1); return v; }
    case T_I16: { int16_t v; memcpy(&v, p, 2); return v; }
    case T_I32: { int32_t v; memcpy(&v, p, 4); return v; }
    case T_I64: { int64_t v; memcpy(&v, p, 8); return v; }
    case T_U16: { uint16_t v; memcpy(&v, p, 2); return v; }
    case T_U32: { uint32_t v; memcpy(&v, p, 4); return v; }
    case T_U64: { uint64_t v; memcpy(&v, p, 8); return (int64_t)v; } /* checked below 2^63 */
    default: { uint8_t v; memcpy(&v, p, 1); return v; } /* T_U8, T_BOOL */
    }
}

/* Stores v as an integer of element type `type` (which holds it, as check_out
   and the kernels' ranges ensure). */
static void store_int(char *p, int type, int64_t v)
{
    switch (type) {
    case T_I8: { int8_t x = (int8_t)v; memcpy(p, &x, 1); break; }
    case T_I16: { int16_t x = (int16_t)v; memcpy(p, &x, 2); break; }
    case T_I32: { int32_t x = (int32_t)v; memcpy(p, &x, 4); break; }
    case T_I64: memcpy(p, &v, 8); break;
    case T_U16: { uint16_t x = (uint16_t)v; memcpy(p, &x, 2); break; }
    case T_U32: { uint32_t x = (uint32_t)v; memcpy(p, &x, 4); break; }
    case T_U64: { uint64_t x = (uint64_t)v; memcpy(p, &x, 8); break; }
    default: { uint8_t x = (uint8_t)v; memcpy(p, &x, 1); break; }
    }
}

/* The element type of an integer operand's loop buffers (NumPy type `kind`). */
static int kind_type(int kind)
{
    return kind == NPY_INT64 ? T_I64 : kind == NPY_UINT8 ? T_U8 : T_I32;
}

/* gather and scatter for integer operands: values of the array's type to
   and from buffers of the kind's C type, exactly. */
static void move_ints(const operand *o, char *array, npy_intp outer, npy_intp stride,
                      npy_intp rows, npy_intp cols, char *buffer, int to_buffer)
{
    const int btype = kind_type(o->kind);
    for (npy_intp r = 0; r < rows; r++)
        for (npy_intp i = 0; i < cols; i++)
            for (npy_intp c = 0; c < o->width; c++) {
                char *at = array + r * outer + i * stride + item_offset(o, c);
                if (to_buffer)
                    store_int(buffer, btype, load_int(at, o->type));
                else
                    store_int(at, o->type, load_int(buffer, btype));
                buffer += o->size;
            }
}

/* Reads rows x cols items of o (width values each) into dst (item-major),
   converting: row r starts at src + r * outer, items are `stride` apart. */
static void gather(const operand *o, const char *src, npy_intp outer, npy_intp stride,
                   npy_intp rows, npy_intp cols, double *dst)
{
    const int type = o->type;
    const npy_intp width = o->width;
    if (o->kind != NPY_DOUBLE) {
        move_ints(o, (char *)src, outer, stride, rows, cols, (char *)dst, 1);
        return;
    }
    if (type == T_F64 && width == 1) { /* the common cases, kept tight */
        for (npy_intp r = 0; r < rows; r++) {
            const char *row = src + r * outer;
            if (stride == 0) { /* one value per row (an (N, 1) operand) */
                double v;
                memcpy(&v, row, sizeof v);
                for (npy_intp i = 0; i < cols; i++)
                    dst[i] = v;
            } else {
                for (npy_intp i = 0; i < cols; i++)
                    memcpy(dst + i, row + i * stride, sizeof *dst);
            }
            dst += cols;
        }
        return;
    }
    if (type == T_F64 && o->packed) { /* an item's values side by side: no offsets */
        for (npy_intp r = 0; r < rows; r++)
            for (npy_intp i = 0; i < cols; i++) {
                const char *item = src + r * outer + i * stride;
                for (npy_intp c = 0; c < width; c++)
                    memcpy(dst++, item + c * (npy_intp)sizeof *dst, sizeof *dst);
            }
        return;
    }
    switch (type) {
    case T_F64: GATHER_LOOP(double) break;
    case T_F32: GATHER_LOOP(float) break;
    case T_I8: GATHER_LOOP(int8_t) break;
    case T_I16: GATHER_LOOP(int16_t) break;
    case T_I32: GATHER_LOOP(int32_t) break;
    case T_I64: GATHER_LOOP(int64_t) break;
    case T_U8: GATHER_LOOP(uint8_t) break;
    case T_U16: GATHER_LOOP(uint16_t) break;
    case T_U32: GATHER_LOOP(uint32_t) break;
    case T_U64: GATHER_LOOP(uint64_t) break;
    default: GATHER_LOOP(uint8_t) break; /* T_BOOL: one byte, 0 or 1 */
    }
}

#define SCATTER_LOOP(T)                                                         \
    for (npy_intp r = 0; r < rows; r++)                                         \
        for (npy_intp i = 0; i < cols; i++)                                     \
            for (npy_intp c = 0; c < o->width; c++) {                           \
                T v = (T)*src++;                                                \
                memcpy(dst + r * outer + i * stride + item_offset(o, c), &v,    \
                       sizeof v);                                               \
            }

/* Writes rows x cols items from src to output o, converting to its type: a
   float type for float results (check_out accepts no other), integer
   results exactly through move_ints. */
static void scatter(const operand *o, char *dst, npy_intp outer, npy_intp stride,
                    npy_intp rows, npy_intp cols, const double *src)
{
    if (o->kind != NPY_DOUBLE) {
        move_ints(o, dst, outer, stride, rows, cols, (char *)src, 0);
        return;
    }
    if (o->type == T_F32)
        SCATTER_LOOP(float)
    else if (o->packed) /* an item's values side by side: no offsets */
        for (npy_intp r = 0; r < rows; r++)
            for (npy_intp i = 0; i < cols; i++) {
                char *item = dst + r * outer + i * stride;
                for (npy_intp c = 0; c < o->width; c++)
                    memcpy(item + c * (npy_intp)sizeof *src, src++, sizeof *src);
            }
    else
        SCATTER_LOOP(double)
}

/* Runs the kernel over flat items [begin, end) of the loop shape, C order, in
   blocks that are rectangles of the last two loop axes: a piece of one row,
   or whole rows when rows are short. */
static void walk_part(part *p)
{
    const walk *w = p->w;
    const int nops = w->nin + w->nout, last = w->nd - 1;
    const npy_intp inner = w->shape[last], block = w->block;
    const npy_intp plane = last > 0 ? w->shape[last - 1] : 1;
    npy_intp pos = p->begin;
    double *buf[MAX_OPS];
    /* What each input's scratch holds: the block gathered from held[k] with
       held_rows x held_cols items (the same block again needs no gather). */
    char *held[MAX_OPS];
    npy_intp held_rows[MAX_OPS] = {0}, held_cols[MAX_OPS] = {0};

    p->status = AC_OK;
    buf[0] = p->scratch;
    for (int k = 1; k < nops; k++)
        buf[k] = buf[k - 1] + w->op[k - 1].held * w->op[k - 1].width;
    for (int k = 0; k < nops; k++)
        held[k] = NULL;

    while (pos < p->end) {
        npy_intp row = pos / inner, col = pos % inner, rows, cols, n;
        npy_intp coords[NPY_MAXDIMS], rest = row;
        char *base[MAX_OPS];
        const double *in[ACPY_MAX_IN];
        double *out[ACPY_MAX_OUT];
        size_t steps[ACPY_MAX_IN];
        int direct[MAX_OPS];
        ac_status st;

        if (col != 0 || inner >= block / 2 || p->end - pos < inner) {
            rows = 1;
            cols = inner - col;
            if (cols > block && !(w->write ? w->long_runs : w->check && w->long_checks))
                cols = block;
            if (cols > p->end - pos)
                cols = p->end - pos;
        } else {
            rows = block / inner;
            if (rows > (p->end - pos) / inner)
                rows = (p->end - pos) / inner;
            if (rows > plane - row % plane) /* stay within one plane */
                rows = plane - row % plane;
            cols = inner;
        }
        n = rows * cols;

        for (int d = last - 1; d >= 0; d--) {
            coords[d] = rest % w->shape[d];
            rest /= w->shape[d];
        }
        for (int k = 0; k < nops; k++) {
            const operand *o = &w->op[k];
            char *ptr = o->data + col * o->strides[last];
            for (int d = 0; d < last; d++)
                ptr += coords[d] * o->strides[d];
            base[k] = ptr;
        }

        for (int k = 0; k < nops; k++) {
            const operand *o = &w->op[k];
            npy_intp s = o->strides[last], so = last > 0 ? o->strides[last - 1] : 0;
            npy_intp item = o->size * o->width;
            int same = s == 0 && (rows == 1 || so == 0);
            int packed = s == item && (rows == 1 || so == cols * item);
            int shared = same && (w->kernel->flags & ACPY_SHARED) && k < w->nin;
            direct[k] = o->native && o->aligned && o->packed &&
                        (k < w->nin ? packed || shared : packed && w->write);
            if (k < w->nin) {
                steps[k] = !shared;
                if (direct[k]) {
                    in[k] = (const double *)base[k];
                } else {
                    npy_intp r = shared ? 1 : rows, c = shared ? 1 : cols;
                    if (held[k] != base[k] || held_rows[k] != r || held_cols[k] != c) {
                        gather(o, base[k], so, s, r, c, buf[k]);
                        held[k] = base[k], held_rows[k] = r, held_cols[k] = c;
                    }
                    in[k] = buf[k];
                }
            } else {
                out[k - w->nin] = direct[k] ? (double *)base[k] : buf[k];
            }
        }

        st = w->kernel->loop(w->ctx, in, steps, w->check ? NULL : out, (size_t)n, &p->err);
        if (st) { /* err_flat counts items; err.index keeps what it counts within one */
            p->status = st;
            p->err.status = st;
            p->err_flat = pos + acpy_error_item(w->ctx, &p->err);
            break;
        }
        if (w->write)
            for (int k = w->nin; k < nops; k++) {
                const operand *o = &w->op[k];
                if (!direct[k])
                    scatter(o, base[k], last > 0 ? o->strides[last - 1] : 0, o->strides[last],
                            rows, cols, buf[k]);
            }
        pos += n;
    }
}

static void take(PyThread_type_lock lock) { if (lock) PyThread_acquire_lock(lock, WAIT_LOCK); }
static void give(PyThread_type_lock lock) { if (lock) PyThread_release_lock(lock); }

/* What is left of share i before stop. */
static npy_intp share_left(const shared *s, int i)
{
    npy_intp back = s->back[i] < s->stop ? s->back[i] : s->stop;
    return back > s->front[i] ? back - s->front[i] : 0;
}

/* Thread t's next chunk in [*begin, *end); 0 when none is left before stop. */
static int next_chunk(shared *s, int t, npy_intp *begin, npy_intp *end)
{
    int r = t;
    take(s->lock);
    npy_intp left = share_left(s, t);
    for (int i = 0; left == 0 && i < s->count; i++)
        if (share_left(s, i) > share_left(s, r))
            r = i;
    left = share_left(s, r);
    if (left > 0 && r == t) { /* the front of its own share */
        *begin = s->front[t];
        *end = *begin + (s->chunk < left ? s->chunk : left);
        s->front[t] = *end;
    } else if (left > 0) { /* the back of the share with the most left */
        *end = s->front[r] + left;
        *begin = *end - (s->chunk < left ? s->chunk : left);
        s->back[r] = *begin;
    }
    give(s->lock);
    return left > 0;
}

/* Thread t's work: chunks until none is left before the first failure. A
   started thread without its scratch leaves its share to the others, which
   take what is left of every share; the calling thread (last) fails then. */
static void run_chunks(shared *s, int t)
{
    const acpy_job *job = s->job;
    void *scratch = job->scratch ? malloc(job->scratch) : NULL;
    npy_intp begin, end, err_flat = 0;
    ac_error err;
    ac_status st;
    if (job->scratch && !scratch && t != s->count - 1)
        return;
    while (next_chunk(s, t, &begin, &end)) {
        if (job->scratch && !scratch) { /* fails at the chunk it cannot run */
            st = err.status = AC_ERR_NOMEM;
            err.index = 0;
            err.arg = AC_ARG_SCRATCH;
            err.value = (double)job->scratch;
            err.reason = AC_REASON_NONE;
            strcpy(err.detail, "could not be allocated");
            err_flat = begin;
        } else {
            st = job->run(job->ctx, scratch, begin, end, &err, &err_flat);
        }
        if (st) {
            take(s->lock);
            if (err_flat < s->stop) {
                s->stop = err_flat;
                s->status = st;
                s->err = err;
            }
            give(s->lock);
        }
    }
    free(scratch);
}

static void worker_main(void *arg)
{
    worker *k = arg;
    run_chunks(k->s, k->index);
    PyThread_release_lock(k->done);
}

ac_status acpy_run_job(const acpy_job *job, npy_intp total, int workers, ac_error *err,
                       npy_intp *err_flat)
{
    worker threads[MAX_THREADS];
    shared s;
    int count = workers < MAX_THREADS ? workers : MAX_THREADS, started = 0;
    npy_intp work = total * job->work, least = job->min_chunk;
    if (work < (npy_intp)count * MIN_SPLIT)
        count = (int)(work / MIN_SPLIT) > 1 ? (int)(work / MIN_SPLIT) : 1;
    s.job = job;
    s.stop = total;
    s.count = count;
    s.status = AC_OK;
    for (int i = 0; i < count; i++) {
        s.front[i] = total / count * i;
        s.back[i] = i == count - 1 ? total : total / count * (i + 1);
    }
    /* chunks of 1/16 of a thread's share: fine enough to balance cores that
       other work slows down, coarse enough that taking one costs nothing */
    s.chunk = count == 1 ? total : total / ((npy_intp)count * 16);
    if (s.chunk < least)
        s.chunk = least > 0 ? least : 1;
    s.lock = count > 1 ? PyThread_allocate_lock() : NULL;
    for (int i = 0; s.lock && i < count - 1; i++) {
        threads[i].s = &s;
        threads[i].index = i;
        threads[i].done = PyThread_allocate_lock();
        if (!threads[i].done)
            break;
        PyThread_acquire_lock(threads[i].done, WAIT_LOCK);
        if (PyThread_start_new_thread(worker_main, &threads[i]) == PYTHREAD_INVALID_THREAD_ID) {
            PyThread_release_lock(threads[i].done);
            PyThread_free_lock(threads[i].done);
            break;
        }
        started++;
    }
    /* this thread takes the last share, and the others' if their threads did not start */
    run_chunks(&s, count - 1);
    for (int i = 0; i < started; i++) {
        PyThread_acquire_lock(threads[i].done, WAIT_LOCK);
        PyThread_release_lock(threads[i].done);
        PyThread_free_lock(threads[i].done);
    }
    if (s.lock)
        PyThread_free_lock(s.lock);
    if (!s.status)
        return AC_OK;
    *err = s.err;
    *err_flat = s.stop;
    return s.status;
}

/* walk_part as an acpy_job's run */
static ac_status walk_range(const void *ctx, void *scratch, npy_intp begin, npy_intp end,
                            ac_error *err, npy_intp *err_flat)
{
    part p;
    p.w = ctx;
    p.begin = begin, p.end = end;
    p.scratch = scratch;
    walk_part(&p);
    if (p.status)
        *err = p.err, *err_flat = p.err_flat;
    return p.status;
}

/* Runs the walk over all `total` items on `workers` threads (this one
   included); returns the failure with the lowest flat index, as one thread
   would have found it. Called without the GIL. */
static ac_status walk_all(const walk *w, npy_intp total, int workers, ac_error *err,
                          npy_intp *err_flat)
{
    size_t values = 0;
    acpy_job job;
    for (int k = 0; k < w->nin + w->nout; k++)
        values += (size_t)(w->op[k].held * w->op[k].width);
    job.run = walk_range;
    job.ctx = w;
    job.scratch = (values ? values : 1) * sizeof(double);
    job.work = w->widest;
    job.min_chunk = MIN_SPLIT / 4 / w->widest;
    return acpy_run_job(&job, total, workers, err, err_flat);
}

/* ------------------------------------------------------------ arguments */

/* The core shape of an operand (at most 3 axes, in dims): its number of
   axes, and the values per item in *width. (C) is bare (no axis, one value)
   when the context says so. */
static int core_shape(const acpy_operand *o, const acpy_context *ctx, npy_intp *width,
                      npy_intp dims[3])
{
    npy_intp d[3] = {1, 1, 1}, c = ctx->channels;
    int n;
    switch (o->width) {
    case ACPY_CHANNELS: n = !ctx->bare, d[0] = ctx->bare ? 1 : c; break;
    case ACPY_ANGLES: n = 1, d[0] = 3; break;
    case ACPY_3X3: n = 2, d[0] = d[1] = 3; break;
    case ACPY_4X4: n = 2, d[0] = d[1] = 4; break;
    case ACPY_C3: n = 2, d[0] = c, d[1] = 3; break;
    case ACPY_C4: n = 2, d[0] = c, d[1] = 4; break;
    case ACPY_C4X4: n = 3, d[0] = c, d[1] = d[2] = 4; break;
    case ACPY_U8:
    case ACPY_I64:
    case ACPY_INTC: n = 0; break;
    case ACPY_SPIN: n = c == 3, d[0] = c == 3 ? 3 : 1; break;
    case ACPY_M: n = 1, d[0] = ctx->count; break;
    case ACPY_MC: n = 2, d[0] = ctx->count, d[1] = c; break;
    case ACPY_K:
    case ACPY_K_INTC: n = 1, d[0] = ctx->slots; break;
    case ACPY_KC: n = 2, d[0] = ctx->slots, d[1] = c; break;
    default: n = o->width != 1, d[0] = o->width; break;
    }
    if (dims)
        memcpy(dims, d, sizeof d);
    *width = d[0] * d[1] * d[2];
    return n;
}

/* The NumPy type of an operand's loop buffers, and of a fresh output. */
static int out_type(const acpy_operand *o)
{
    switch (o->width) {
    case ACPY_I64: return NPY_INT64;
    case ACPY_U8: return NPY_UINT8;
    case ACPY_INTC:
    case ACPY_K_INTC: return NPY_INT;
    default: return NPY_DOUBLE;
    }
}

static int has_core(const acpy_operand *o, const acpy_context *ctx, npy_intp *width)
{
    return core_shape(o, ctx, width, NULL);
}

/* animcore._arrays.as_float64 (or as_int64) of value: an array, or NULL with
   the named error. */
static PyObject *as_array(const char *how, const char *func, const char *name, PyObject *value)
{
    PyObject *module = PyImport_ImportModule("animcore._arrays"), *result;
    if (!module)
        return NULL;
    result = PyObject_CallMethod(module, how, "ssO", func, name, value);
    Py_DECREF(module);
    return result;
}

/* os.cpu_count(), or 1 when unknown. */
static long cpu_count(void)
{
    long n = 1;
    PyObject *os = PyImport_ImportModule("os"), *r = NULL;
    if (os)
        r = PyObject_CallMethod(os, "cpu_count", NULL);
    if (r && PyLong_Check(r))
        n = PyLong_AsLong(r);
    Py_XDECREF(r);
    Py_XDECREF(os);
    PyErr_Clear();
    return n > 0 ? n : 1;
}

int acpy_workers(const char *func, PyObject *arg, int *workers)
{
    PyObject *index;
    long n, cores = 0;
    int overflow;
    if (arg == Py_None) {
        *workers = 1;
        return 1;
    }
    /* any integer (a NumPy one too), not a bool (NumPy 1's has __index__) or a float */
    if (PyBool_Check(arg) || PyArray_IsScalar(arg, Bool) || !(index = PyNumber_Index(arg))) {
        if (PyErr_Occurred() && !PyErr_ExceptionMatches(PyExc_TypeError))
            return 0; /* (a MemoryError, an interrupt: as raised) */
        PyErr_Clear();
        PyErr_Format(PyExc_ValueError, "%s: workers must be None or an integer, got %R", func,
                     arg);
        return 0;
    }
    n = PyLong_AsLongAndOverflow(index, &overflow);
    Py_DECREF(index);
    if (overflow) /* beyond a long: as many threads as there may be, or none */
        n = overflow > 0 ? LONG_MAX : 0;
    if (n < 0)
        n += (cores = cpu_count()) + 1;
    if (n < 1) {
        cores = cores ? cores : cpu_count();
        PyErr_Format(PyExc_ValueError,
                     "%s: workers is %R (must be None, a positive count, or -k for all "
                     "but k - 1 of the %ld cores)",
                     func, arg, cores);
        return 0;
    }
    *workers = n > 64 ? 64 : (int)n;
    return 1;
}

/* "(2, 3)" for a shape, as Python prints tuples. */
static void shape_text(int nd, const npy_intp *dims, char *text, size_t size)
{
    size_t used = (size_t)PyOS_snprintf(text, size, "(");
    for (int d = 0; d < nd && used < size; d++)
        used += (size_t)PyOS_snprintf(text + used, size - used, d ? ", %zd" : "%zd", dims[d]);
    if (used < size)
        PyOS_snprintf(text + used, size - used, nd == 1 ? ",)" : ")");
}

static const char *width_what(int width)
{
    return width == 4 ? "quaternions (x, y, z, w)" : width == 3 ? "vectors (x, y, z)" : "values";
}

/* Whether input a has the core shape of its declaration; a ValueError if not.
   An (M) axis that is missing is added (of length 1) to *a, a view. */
static int check_core(const char *func, const acpy_operand *decl, const acpy_context *ctx,
                      PyArrayObject **a_)
{
    npy_intp width, dims[3];
    int n = core_shape(decl, ctx, &width, dims), an = PyArray_NDIM(*a_), fits = an >= n;
    int m_axis = decl->width == ACPY_M || decl->width == ACPY_MC;
    const npy_intp *have = PyArray_DIMS(*a_);
    char got[256], want[256];
    if (m_axis && an == n - 1) { /* one value for all M */
        npy_intp shape[NPY_MAXDIMS];
        PyArray_Dims newshape = {shape, an + 1};
        PyArrayObject *view;
        shape[0] = 1;
        if (an > 0) /* a 0-d array has no dims (NULL): nothing to copy */
            memcpy(shape + 1, have, sizeof(npy_intp) * (size_t)an);
        view = (PyArrayObject *)PyArray_Newshape(*a_, &newshape, NPY_CORDER);
        if (!view)
            return 0;
        Py_SETREF(*a_, view);
        an++, fits = 1;
        have = PyArray_DIMS(*a_);
    }
    for (int d = 0; fits && d < n; d++)
        fits = have[an - n + d] == dims[d] || (m_axis && d == 0 && have[an - n] == 1);
    if (fits)
        return 1;
    shape_text(an, have, got, sizeof got);
    if (decl->width < ACPY_CHANNELS) { /* the fixed shapes: (3) angles, matrices, joints */
        shape_text(n, dims, want, sizeof want);
        want[strlen(want) - (n == 1 ? 2 : 1)] = '\0'; /* "(3, 3)" -> "(3, 3" */
        PyErr_Format(PyExc_ValueError, "%s: %s must have shape (..., %s), got shape %s", func,
                     decl->name, want + 1, got);
    } else
        PyErr_Format(PyExc_ValueError,
                     "%s: %s must hold %s on its last axis of length %zd, got shape %s", func,
                     decl->name, width_what((int)width), width, got);
    return 0;
}

/* An input as an array the walk reads in place (any layout, supported types;
   integers and bools for an integer operand) or converted once; NULL with an
   exception naming func and name. */
static PyArrayObject *input_array(const char *func, const char *name, PyObject *obj,
                                  int integer)
{
    PyArrayObject *a = NULL;
    if (PyArray_Check(obj)) {
        Py_INCREF(obj);
        a = (PyArrayObject *)obj;
    } else if (PyFloat_Check(obj) || PyLong_Check(obj) || PyList_Check(obj) ||
               PyTuple_Check(obj) || PyArray_IsScalar(obj, Generic)) {
        a = (PyArrayObject *)PyArray_FromAny(obj, NULL, 0, 0, 0, NULL);
        if (!a)
            PyErr_Clear();
    }
    if (a) {
        int type = element_type(a);
        /* uint64 beyond int64 and floats go through as_int64's checks */
        if (integer ? type >= T_I8 && type != T_U64 : type >= 0)
            return a;
    }
    Py_XDECREF(a);
    return (PyArrayObject *)as_array(integer ? "as_int64" : "as_float64", func, name, obj);
}

/* Checks an `out` array against the result shape and type (a float type for
   float results, an integer type for integer ones); 0 with a ValueError. */
static int check_out(const char *func, int i, PyObject *obj, int nd, const npy_intp *dims,
                     int type)
{
    PyArrayObject *a;
    PyArray_Descr *f64;
    int castable;
    char want[256], got[256];
    if (!PyArray_Check(obj)) {
        PyErr_Format(PyExc_ValueError, "%s: out[%d] must be a numpy array, got %.100s", func, i,
                     Py_TYPE(obj)->tp_name);
        return 0;
    }
    a = (PyArrayObject *)obj;
    if (PyArray_NDIM(a) != nd || !PyArray_CompareLists(PyArray_DIMS(a), dims, nd)) {
        shape_text(PyArray_NDIM(a), PyArray_DIMS(a), got, sizeof got);
        shape_text(nd, dims, want, sizeof want);
        PyErr_Format(PyExc_ValueError, "%s: out[%d] has shape %s, expected %s", func, i, got,
                     want);
        return 0;
    }
    /* floats: any float type (a narrower one rounds, as NumPy's ufuncs do);
       integers: any integer type that holds every value of the result's (a
       narrower one would wrap) */
    f64 = PyArray_DescrFromType(type);
    castable = type == NPY_DOUBLE
                   ? PyArray_CanCastTypeTo(f64, PyArray_DESCR(a), NPY_SAME_KIND_CASTING)
                   : PyArray_ISINTEGER(a) &&
                         PyArray_CanCastTypeTo(f64, PyArray_DESCR(a), NPY_SAFE_CASTING);
    if (!castable) {
        PyObject *dtype = PyObject_Str((PyObject *)PyArray_DESCR(a));
        PyObject *result = PyObject_Str((PyObject *)f64);
        if (type == NPY_DOUBLE)
            PyErr_Format(PyExc_ValueError, "%s: out[%d] has dtype %S, expected a float dtype",
                         func, i, dtype ? dtype : Py_None);
        else
            PyErr_Format(PyExc_ValueError, "%s: out[%d] has dtype %S, expected an integer dtype "
                         "that holds every %S value", func, i, dtype ? dtype : Py_None,
                         result ? result : Py_None);
        Py_XDECREF(dtype);
        Py_XDECREF(result);
        Py_DECREF(f64);
        return 0;
    }
    Py_DECREF(f64);
    if (!PyArray_ISWRITEABLE(a)) {
        PyErr_Format(PyExc_ValueError, "%s: out[%d] is read-only", func, i);
        return 0;
    }
    return 1;
}

/* Byte range [lo, hi) an array's elements occupy. */
static void extent(PyArrayObject *a, char **lo, char **hi)
{
    char *l = PyArray_BYTES(a), *h = l;
    for (int d = 0; d < PyArray_NDIM(a); d++) {
        npy_intp span = (PyArray_DIMS(a)[d] - 1) * PyArray_STRIDES(a)[d];
        if (PyArray_DIMS(a)[d] == 0) {
            *lo = *hi = PyArray_BYTES(a);
            return;
        }
        if (span < 0)
            l += span;
        else
            h += span;
    }
    *lo = l;
    *hi = h + PyArray_ITEMSIZE(a);
}

static int overlaps(PyArrayObject *a, PyArrayObject *b)
{
    char *alo, *ahi, *blo, *bhi;
    extent(a, &alo, &ahi);
    extent(b, &blo, &bhi);
    return alo < bhi && blo < ahi;
}

/* Whether a and b are the same elements: data, dtype, shape and strides. */
static int same_layout(PyArrayObject *a, PyArrayObject *b)
{
    return PyArray_DATA(a) == PyArray_DATA(b) && PyArray_EquivTypes(PyArray_DESCR(a),
                                                                     PyArray_DESCR(b)) &&
           PyArray_NDIM(a) == PyArray_NDIM(b) &&
           PyArray_CompareLists(PyArray_DIMS(a), PyArray_DIMS(b), PyArray_NDIM(a)) &&
           PyArray_CompareLists(PyArray_STRIDES(a), PyArray_STRIDES(b), PyArray_NDIM(a));
}

static PyObject *f64_scalar(double v)
{
    PyObject *s = PyArrayScalar_New(Double);
    if (s)
        PyArrayScalar_ASSIGN(s, Double, v);
    return s;
}

/* One result of a scalar call, of the output's type. */
typedef union scalar_value {
    double f;
    int64_t i;
    int c;
    unsigned char u;
} scalar_value;

/* The NumPy scalar of a result of NumPy type `type`. */
static PyObject *numpy_scalar(const scalar_value *v, int type)
{
    PyArray_Descr *descr;
    PyObject *s;
    if (type == NPY_DOUBLE)
        return f64_scalar(v->f);
    descr = PyArray_DescrFromType(type);
    if (!descr)
        return NULL;
    s = PyArray_Scalar((void *)v, descr, NULL);
    Py_DECREF(descr);
    return s;
}

/* Holds the context's object for the loop (see acpy_context.acquire); 0 with
   an exception when it is in use. */
static int hold(const char *func, const acpy_context *ctx)
{
    return !ctx->acquire || ctx->acquire(func, ctx);
}

static void let_go(const acpy_context *ctx)
{
    if (ctx->release)
        ctx->release(ctx);
}

/* Whether o is one item of a float64 operand with core axes: an aligned,
   native, C-contiguous float64 array of exactly the core shape. */
static int one_item(PyObject *o, int ncore, const npy_intp *dims)
{
    PyArrayObject *a = (PyArrayObject *)o;
    return PyArray_CheckExact(o) && PyArray_TYPE(a) == NPY_DOUBLE && PyArray_ISCARRAY_RO(a) &&
           PyArray_ISNOTSWAPPED(a) && PyArray_NDIM(a) == ncore &&
           PyArray_CompareLists(PyArray_DIMS(a), dims, ncore);
}

/* The fast path of one item: every input a Python or NumPy real scalar (or,
   for an operand with core axes, one_item), no out. Core-shaped results are
   fresh arrays, the others NumPy scalars. Returns NULL without an exception
   when not applicable. */
static PyObject *scalar_call(const acpy_kernel *k, const char *func, const acpy_context *ctx,
                             PyObject *const *args, int *handled)
{
    double values[ACPY_MAX_IN];
    scalar_value results[ACPY_MAX_OUT];
    int64_t integers[ACPY_MAX_IN];
    const double *in[ACPY_MAX_IN];
    double *out[ACPY_MAX_OUT];
    PyObject *arrays[ACPY_MAX_OUT] = {0}, *result = NULL;
    size_t steps[ACPY_MAX_IN];
    npy_intp width, dims[3];
    ac_error err;
    *handled = 0;
    for (int i = 0; i < k->nin; i++) {
        PyObject *o = args[i];
        int ncore = core_shape(&k->in[i], ctx, &width, dims);
        steps[i] = 0;
        if (ncore) {
            if (out_type(&k->in[i]) != NPY_DOUBLE || !one_item(o, ncore, dims))
                return NULL;
            in[i] = (const double *)PyArray_DATA((PyArrayObject *)o);
            continue;
        }
        if (out_type(&k->in[i]) != NPY_DOUBLE) { /* an exact int64 Python int only */
            int overflow;
            if (k->in[i].width != ACPY_I64 || !PyLong_CheckExact(o))
                return NULL;
            integers[i] = PyLong_AsLongLongAndOverflow(o, &overflow);
            if (overflow || (integers[i] == -1 && PyErr_Occurred())) {
                PyErr_Clear();
                return NULL;
            }
            in[i] = (const double *)(const void *)&integers[i];
            continue;
        }
        if (PyFloat_Check(o)) {
            values[i] = PyFloat_AS_DOUBLE(o);
        } else if (PyLong_CheckExact(o)) {
            int overflow;
            long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
            if (overflow || (v == -1 && PyErr_Occurred())) {
                PyErr_Clear();
                return NULL;
            }
            values[i] = (double)v;
        } else {
            return NULL;
        }
        in[i] = &values[i];
    }
    *handled = 1;
    for (int i = 0; i < k->nout; i++) {
        int ncore = core_shape(&k->out[i], ctx, &width, dims);
        out[i] = (double *)(void *)&results[i];
        if (ncore) {
            arrays[i] = PyArray_SimpleNew(ncore, dims, out_type(&k->out[i]));
            if (!arrays[i])
                goto done;
            out[i] = (double *)PyArray_DATA((PyArrayObject *)arrays[i]);
        }
    }
    if (!hold(func, ctx))
        goto done;
    if (((k->flags & ACPY_MUTATES) && k->loop(ctx, in, steps, NULL, 1, &err)) ||
        k->loop(ctx, in, steps, out, 1, &err)) {
        acpy_raise_item(func, &err, 0, 0, NULL, ctx);
        let_go(ctx);
        goto done;
    }
    let_go(ctx);
    result = k->nout == 1 ? NULL : PyTuple_New(k->nout);
    if (k->nout != 1 && !result)
        goto done;
    for (int i = 0; i < k->nout; i++) {
        PyObject *v = arrays[i] ? arrays[i] : numpy_scalar(&results[i], out_type(&k->out[i]));
        arrays[i] = NULL; /* the result holds it now */
        if (!v) {
            Py_CLEAR(result);
            break;
        }
        if (k->nout == 1)
            result = v;
        else
            PyTuple_SET_ITEM(result, i, v);
    }
done:
    for (int i = 0; i < k->nout; i++)
        Py_XDECREF(arrays[i]);
    return result;
}

static PyObject *call(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    const acpy_kernel *k = PyCapsule_GetPointer(self, "animcore._core.kernel");
    const char *func;
    acpy_context ctx = {0};
    PyArrayObject *in[ACPY_MAX_IN] = {0}, *out[ACPY_MAX_OUT] = {0}, *target[ACPY_MAX_OUT] = {0};
    PyObject *out_arg, *result = NULL;
    npy_intp loop[NPY_MAXDIMS], rdims[NPY_MAXDIMS], total = 1;
    int nd = 0, workers, have_ctx, handled, broadcast_fails = 0, caller_written = 0;
    walk w;
    ac_error err;
    npy_intp err_flat = 0;
    ac_status st;

    if (!k)
        return NULL;
    have_ctx = k->context != NULL;
    if (nargs != 1 + have_ctx + k->nin + 2) {
        PyErr_Format(PyExc_TypeError, "%s takes %d arguments (%zd given)", k->name,
                     1 + have_ctx + k->nin + 2, nargs);
        return NULL;
    }
    func = PyUnicode_AsUTF8(args[0]);
    if (!func)
        return NULL;
    if (have_ctx && !k->context(func, args[1], &ctx))
        return NULL;
    args += 1 + have_ctx;
    out_arg = args[k->nin];
    if (!acpy_workers(func, args[k->nin + 1], &workers))
        goto done;
    if (out_arg == Py_None) {
        result = scalar_call(k, func, &ctx, args, &handled);
        if (handled || result)
            goto done;
    }

    /* Inputs and the broadcast of their loop axes (right-aligned). */
    for (int i = 0; i < k->nin; i++) {
        npy_intp width;
        int core = has_core(&k->in[i], &ctx, &width), an;
        in[i] = input_array(func, k->in[i].name, args[i], out_type(&k->in[i]) != NPY_DOUBLE);
        if (!in[i] || !check_core(func, &k->in[i], &ctx, &in[i]))
            goto done;
        an = PyArray_NDIM(in[i]) - core;
        if (an > nd) {
            memmove(loop + (an - nd), loop, sizeof(npy_intp) * (size_t)nd);
            for (int d = 0; d < an - nd; d++)
                loop[d] = 1;
            nd = an;
        }
        for (int d = 0; d < an; d++) {
            npy_intp *have = &loop[nd - an + d], ext = PyArray_DIMS(in[i])[d];
            if (*have == 1)
                *have = ext;
            else if (ext != 1 && ext != *have)
                broadcast_fails = 1;
        }
    }
    if (broadcast_fails)
        goto cannot_broadcast;
    if (ctx.one_item && nd > 0) {
        char text[256];
        shape_text(nd, loop, text, sizeof text);
        PyErr_Format(PyExc_ValueError, "%s: one item expected, got arrays of shape %s", func,
                     text);
        goto done;
    }
    if (k->flags & ACPY_MUTATES) /* in order */
        workers = 1;
    if (nd > NPY_MAXDIMS - 3) { /* room for an output's core axes */
        PyErr_Format(PyExc_ValueError, "%s: inputs of %d dimensions (at most %d)", func, nd,
                     NPY_MAXDIMS - 3);
        goto done;
    }
    for (int d = 0; d < nd; d++)
        total *= loop[d];

    /* Outputs: fresh float64 arrays, or the caller's arrays checked. */
    if (out_arg != Py_None) {
        PyObject *items = out_arg;
        if (k->nout == 1 && PyArray_Check(out_arg))
            items = NULL;
        else if (!PyTuple_Check(out_arg) || PyTuple_GET_SIZE(out_arg) != k->nout) {
            PyErr_Format(PyExc_ValueError, "%s: out must be a tuple of %d arrays", func,
                         k->nout);
            goto done;
        }
        for (int j = 0; j < k->nout; j++) {
            PyObject *o = items ? PyTuple_GET_ITEM(items, j) : out_arg;
            npy_intp width;
            int rnd = nd + core_shape(&k->out[j], &ctx, &width, rdims + nd);
            memcpy(rdims, loop, sizeof(npy_intp) * (size_t)nd);
            if (o == Py_None && items) /* a fresh array for this one */
                continue;
            if (!check_out(func, j, o, rnd, rdims, out_type(&k->out[j])))
                goto done;
            Py_INCREF(o);
            target[j] = (PyArrayObject *)o;
        }
    }
    for (int j = 0; j < k->nout; j++) {
        npy_intp width;
        int rnd = nd + core_shape(&k->out[j], &ctx, &width, rdims + nd), usable;
        memcpy(rdims, loop, sizeof(npy_intp) * (size_t)nd);
        usable = target[j] && element_type(target[j]) >= 0 &&
                 (out_type(&k->out[j]) != NPY_DOUBLE || PyArray_TYPE(target[j]) == NPY_DOUBLE ||
                  PyArray_TYPE(target[j]) == NPY_FLOAT);
        for (int i = 0; usable && i < k->nin; i++)
            if (overlaps(target[j], in[i]) && /* read every input before writing */
                !(i == j && (k->flags & ACPY_IN_PLACE) && same_layout(target[j], in[i]))) {
                PyArrayObject *copy = (PyArrayObject *)PyArray_NewCopy(in[i], NPY_KEEPORDER);
                if (!copy)
                    goto done;
                Py_SETREF(in[i], copy);
            }
        if (usable) {
            Py_INCREF(target[j]);
            out[j] = target[j];
            caller_written = 1;
        } else { /* fresh, or a float dtype copied into at the end */
            out[j] = (PyArrayObject *)PyArray_SimpleNew(rnd, rdims, out_type(&k->out[j]));
            if (!out[j])
                goto done;
        }
    }

    /* The walk: per-operand strides over the loop axes, then coalesced. */
    memset(&w, 0, sizeof w);
    w.kernel = k;
    w.ctx = &ctx;
    w.nin = k->nin;
    w.nout = k->nout;
    for (int i = 0; i < k->nin + k->nout; i++) {
        PyArrayObject *a = i < k->nin ? in[i] : out[i - k->nin];
        const acpy_operand *decl = i < k->nin ? &k->in[i] : &k->out[i - k->nin];
        operand *o = &w.op[i];
        int core = core_shape(decl, &ctx, &o->width, o->cdims), and = PyArray_NDIM(a) - core;
        npy_intp packed_stride;
        o->data = PyArray_BYTES(a);
        o->type = element_type(a);
        o->kind = out_type(decl);
        o->size = o->kind == NPY_UINT8 ? 1 : o->kind == NPY_INT ? (int)sizeof(int) : 8;
        o->native = o->type == (o->kind == NPY_DOUBLE ? T_F64 : kind_type(o->kind)) &&
                    PyArray_ITEMSIZE(a) == o->size;
        o->aligned = PyArray_ISALIGNED(a);
        o->ncore = core;
        o->packed = 1;
        packed_stride = o->size;
        for (int d = core - 1; d >= 0; d--) {
            /* a core axis of length 1 in place of M is read as a broadcast one */
            o->cstrides[d] = PyArray_DIMS(a)[and + d] == 1 ? 0 : PyArray_STRIDES(a)[and + d];
            o->packed &= o->cdims[d] == 1 || o->cstrides[d] == packed_stride;
            packed_stride *= o->cdims[d];
        }
        for (int d = 0; d < nd; d++) {
            int e = d - (nd - and);
            o->strides[d] = e < 0 || PyArray_DIMS(a)[e] == 1 ? 0 : PyArray_STRIDES(a)[e];
        }
    }
    w.nd = 0;
    for (int d = 0; d < nd; d++) {
        int merge = w.nd > 0;
        if (loop[d] == 1 && nd > 1)
            continue;
        for (int i = 0; merge && i < k->nin + k->nout; i++)
            merge = w.op[i].strides[w.nd - 1] == w.op[i].strides[d] * loop[d];
        if (merge) {
            w.shape[w.nd - 1] *= loop[d];
            for (int i = 0; i < k->nin + k->nout; i++)
                w.op[i].strides[w.nd - 1] = w.op[i].strides[d];
        } else {
            w.shape[w.nd] = loop[d];
            for (int i = 0; i < k->nin + k->nout; i++)
                w.op[i].strides[w.nd] = w.op[i].strides[d];
            w.nd++;
        }
    }
    if (w.nd == 0) {
        w.nd = 1;
        w.shape[0] = 1;
        for (int i = 0; i < k->nin + k->nout; i++)
            w.op[i].strides[0] = 0;
    }
    {
        /* An input that every item shares (the planes of a scene, say) is
           gathered once per block, so it does not shrink the block. */
        npy_intp widest = 1;
        int shared[MAX_OPS];
        for (int i = 0; i < k->nin + k->nout; i++) {
            shared[i] = i < k->nin && (k->flags & ACPY_SHARED);
            for (int d = 0; shared[i] && d < w.nd; d++)
                shared[i] = w.op[i].strides[d] == 0;
            if (!shared[i])
                widest = w.op[i].width > widest ? w.op[i].width : widest;
        }
        w.block = BLOCK_VALUES / widest > 16 ? BLOCK_VALUES / widest : 16;
        w.long_checks = w.long_runs = 1; /* every input, then every output, read in place */
        for (int i = 0; w.long_runs && i < k->nin + k->nout; i++) {
            const operand *o = &w.op[i];
            w.long_runs = o->native && o->aligned && o->packed &&
                          (shared[i] || o->strides[w.nd - 1] == o->size * o->width);
            w.long_checks &= w.long_runs || i >= k->nin;
        }
        w.long_runs &= (k->flags & ACPY_LONG_RUNS) != 0;
        w.long_checks &= (k->flags & ACPY_CHECKS) != 0;
        w.widest = widest > ctx.work ? widest : ctx.work;
        for (int i = 0; i < k->nin + k->nout; i++)
            w.op[i].held = shared[i] ? 1 : w.block;
    }

    /* The context's object is held from here on only: every argument is read. */
    if (!hold(func, &ctx))
        goto done;
    /* A validation pass first when the caller's arrays are written, so that
       an error leaves them untouched; then the pass that writes. */
    st = AC_OK;
    if (total > 0) {
        PyThreadState *released = !(k->flags & ACPY_MUTATES) && total * w.widest > ACPY_GIL_THRESHOLD
                                      ? PyEval_SaveThread()
                                      : NULL;
        int validate = caller_written;
        if (k->flags & ACPY_MUTATES) { /* every block checked before the object changes */
            w.check = 1;
            st = walk_all(&w, total, 1, &err, &err_flat);
            w.check = 0;
            validate = 0;
        }
        if (validate && (k->flags & ACPY_CHECKS)) { /* a cheap proof of success instead */
            w.check = 1;
            validate = walk_all(&w, total, workers, &err, &err_flat) != AC_OK;
            w.check = 0;
        }
        for (int pass = validate ? 0 : 1; pass < 2 && !st; pass++) {
            w.write = pass == 1;
            st = walk_all(&w, total, workers, &err, &err_flat);
        }
        if (released)
            PyEval_RestoreThread(released);
    }
    if (st)
        acpy_raise_item(func, &err, err_flat, nd, loop, &ctx);
    let_go(&ctx);
    if (st)
        goto done;
    for (int j = 0; j < k->nout; j++)
        if (target[j] && out[j] != target[j] && PyArray_CopyInto(target[j], out[j]) < 0)
            goto done;

    /* Results: the caller's arrays, or the fresh ones (scalars when 0-d). */
    result = k->nout == 1 ? NULL : PyTuple_New(k->nout);
    if (k->nout != 1 && !result)
        goto done;
    for (int j = 0; j < k->nout; j++) {
        PyObject *r;
        if (target[j]) {
            Py_INCREF(target[j]);
            r = (PyObject *)target[j];
        } else {
            Py_INCREF(out[j]);
            r = PyArray_Return(out[j]);
            if (!r) {
                Py_CLEAR(result);
                goto done;
            }
        }
        if (k->nout == 1)
            result = r;
        else
            PyTuple_SET_ITEM(result, j, r);
    }
    goto done;

cannot_broadcast: {
    char text[1024];
    size_t used = 0;
    for (int i = 0; i < k->nin && used + 1 < sizeof text; i++) {
        used += (size_t)PyOS_snprintf(text + used, sizeof text - used, "%s%s ", i ? ", " : "",
                                      k->in[i].name);
        if (used < sizeof text)
            shape_text(PyArray_NDIM(in[i]), PyArray_DIMS(in[i]), text + used, sizeof text - used);
        used = strlen(text);
    }
    for (int i = 0; i < k->nin; i++)
        if (k->in[i].width != 1) {
            PyErr_Format(PyExc_ValueError,
                         "%s: cannot broadcast %s together (the last axis of quaternions and "
                         "vectors is not broadcast)",
                         func, text);
            goto done;
        }
    PyErr_Format(PyExc_ValueError, "%s: cannot broadcast %s together", func, text);
}
done:
    for (int i = 0; i < k->nin; i++)
        Py_XDECREF(in[i]);
    for (int j = 0; j < k->nout; j++) {
        Py_XDECREF(out[j]);
        Py_XDECREF(target[j]);
    }
    return result;
}

int acpy_add_kernels(PyObject *module, const acpy_kernel *const *kernels, size_t count)
{
    PyObject *name = PyModule_GetNameObject(module);
    if (!name)
        return -1;
    for (size_t i = 0; i < count; i++) {
        PyMethodDef *def = PyMem_Calloc(1, sizeof *def); /* lives as long as the module */
        PyObject *capsule, *fn;
        if (!def)
            goto fail;
        def->ml_name = kernels[i]->name;
        def->ml_meth = (PyCFunction)(void (*)(void))call;
        def->ml_flags = METH_FASTCALL;
        def->ml_doc = kernels[i]->doc;
        capsule = PyCapsule_New((void *)kernels[i], "animcore._core.kernel", NULL);
        if (!capsule)
            goto fail;
        fn = PyCFunction_NewEx(def, capsule, name);
        Py_DECREF(capsule);
        if (!fn || PyModule_AddObject(module, kernels[i]->name, fn) < 0) {
            Py_XDECREF(fn);
            goto fail;
        }
    }
    Py_DECREF(name);
    return 0;
fail:
    Py_DECREF(name);
    return -1;
}
