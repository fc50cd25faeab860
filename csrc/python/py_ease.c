#include "binding.h"

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

/* ---------------------------------------------------- declared kernels
   The context is the easing's parameters: a kind (an ac_ease_kind), the
   control points (x1, y1, x2, y2) or (count, position). */

static int kind_context(const char *func, PyObject *arg, acpy_context *ctx)
{
    long kind = PyLong_AsLong(arg);
    if (kind == -1 && PyErr_Occurred())
        return 0;
    if (kind < 0 || kind >= AC_EASE_COUNT) {
        PyErr_Format(PyExc_ValueError, "%s: unknown easing kind %ld", func, kind);
        return 0;
    }
    ctx->option[0] = kind;
    return 1;
}

static int bezier_context(const char *func, PyObject *arg, acpy_context *ctx)
{
    ac_ease_bezier curve;
    ac_error err;
    if (!PyArg_ParseTuple(arg, "dddd", &ctx->value[0], &ctx->value[1], &ctx->value[2],
                          &ctx->value[3]))
        return 0;
    if (ac_ease_bezier_init(&curve, ctx->value[0], ctx->value[1], ctx->value[2], ctx->value[3],
                            &err)) {
        acpy_raise(func, &err, 0, NULL);
        return 0;
    }
    return 1;
}

static int steps_context(const char *func, PyObject *arg, acpy_context *ctx)
{
    (void)func;
    return PyArg_ParseTuple(arg, "ll", &ctx->option[0], &ctx->option[1]);
}

/* The ACPY_CHECKS answer of a loop on u: certain to succeed when what the
   context needs besides holds (`valid`) and every u is in [0, 1]. */
static ac_status certain(int valid, const double *u, size_t n, ac_error *err)
{
    return valid && ac_ease_check(u, n) ? AC_OK : acpy_unchecked(err);
}

static ac_status ease_value_loop(const acpy_context *ctx, const double *const *in,
                                 const size_t *steps, double *const *out, size_t n,
                                 ac_error *err)
{
    (void)steps;
    if (!out) /* ACPY_CHECKS: the context holds a kind in range */
        return certain(1, in[0], n, err);
    return ac_ease_eval((ac_ease_kind)ctx->option[0], in[0], out[0], n, err);
}

static ac_status ease_rate_loop(const acpy_context *ctx, const double *const *in,
                                const size_t *steps, double *const *out, size_t n,
                                ac_error *err)
{
    (void)steps;
    if (!out) /* ACPY_CHECKS */
        return certain(1, in[0], n, err);
    return ac_ease_rate((ac_ease_kind)ctx->option[0], in[0], out[0], n, err);
}

static ac_status ease_inverse_loop(const acpy_context *ctx, const double *const *in,
                                   const size_t *steps, double *const *out, size_t n,
                                   ac_error *err)
{
    (void)steps;
    if (!out) /* ACPY_CHECKS */
        return certain(ac_ease_monotone((ac_ease_kind)ctx->option[0]), in[0], n, err);
    return ac_ease_inverse((ac_ease_kind)ctx->option[0], in[0], out[0], n, err);
}

static ac_status bezier_value_loop(const acpy_context *ctx, const double *const *in,
                                   const size_t *steps, double *const *out, size_t n,
                                   ac_error *err)
{
    const ac_ease_bezier curve = {ctx->value[0], ctx->value[1], ctx->value[2], ctx->value[3]};
    (void)steps;
    if (!out) /* ACPY_CHECKS: the context's curve passed ac_ease_bezier_init */
        return certain(1, in[0], n, err);
    return ac_ease_bezier_eval(&curve, in[0], out[0], NULL, n, err);
}

/* The rate: s is solved on the way and discarded, a piece at a time. */
static ac_status bezier_rate_loop(const acpy_context *ctx, const double *const *in,
                                  const size_t *steps, double *const *out, size_t n,
                                  ac_error *err)
{
    enum { PIECE = 256 };
    const ac_ease_bezier curve = {ctx->value[0], ctx->value[1], ctx->value[2], ctx->value[3]};
    double s[PIECE];
    (void)steps;
    if (!out) /* ACPY_CHECKS */
        return certain(1, in[0], n, err);
    for (size_t i = 0; i < n; i += PIECE) {
        size_t m = n - i < PIECE ? n - i : PIECE;
        ac_status st = ac_ease_bezier_eval(&curve, in[0] + i, s, out[0] + i, m, err);
        if (st) {
            if (err)
                err->index += i;
            return st;
        }
    }
    return AC_OK;
}

static ac_status steps_value_loop(const acpy_context *ctx, const double *const *in,
                                  const size_t *steps, double *const *out, size_t n,
                                  ac_error *err)
{
    (void)steps;
    if (!out) /* ACPY_CHECKS: no values, so only the count and position are checked */
        return certain(ac_ease_steps_eval(ctx->option[0], (ac_ease_jump)ctx->option[1], NULL,
                                          NULL, 0, NULL) == AC_OK,
                       in[0], n, err);
    return ac_ease_steps_eval(ctx->option[0], (ac_ease_jump)ctx->option[1], in[0], out[0], n,
                              err);
}

#define EASE_DECL(entry, in, loop, context)                                      \
    {                                                                            \
        entry, entry "(func, parameters, " in ", out, workers)", 1, 1,           \
        {{in, 1}}, {{"result", 1}}, loop, ACPY_CHECKS, context,                  \
    }

static const acpy_kernel ease_value = EASE_DECL("_ease_value", "u", ease_value_loop,
                                                kind_context);
static const acpy_kernel ease_rate = EASE_DECL("_ease_rate", "u", ease_rate_loop, kind_context);
static const acpy_kernel ease_inverse_kernel = EASE_DECL("_ease_inverse", "s", ease_inverse_loop,
                                                         kind_context);
static const acpy_kernel bezier_value = EASE_DECL("_bezier_value", "u", bezier_value_loop,
                                                  bezier_context);
static const acpy_kernel bezier_rate = EASE_DECL("_bezier_rate", "u", bezier_rate_loop,
                                                 bezier_context);
static const acpy_kernel steps_value = EASE_DECL("_steps_value", "u", steps_value_loop,
                                                 steps_context);

static const acpy_kernel *const kernels[] = {&ease_value,   &ease_rate,   &ease_inverse_kernel,
                                             &bezier_value, &bezier_rate, &steps_value};

static PyMethodDef methods[] = {
    {"_ease_kinds", ease_kinds, METH_NOARGS,
     "_ease_kinds() -> ((name, monotone), ...) in kind order"},
    {"_bezier_eval", bezier_eval, METH_VARARGS,
     "_bezier_eval(func, x1, y1, x2, y2, u_or_None[, s, dsdu_or_None])"},
    {NULL, NULL, 0, NULL},
};

int acpy_ease_init(PyObject *module)
{
    if (acpy_add_kernels(module, kernels, sizeof kernels / sizeof kernels[0]) < 0)
        return -1;
    return PyModule_AddFunctions(module, methods);
}
