/* Contact response against kinematic surfaces: restitution acts
   on the velocity relative to the surface's contact point, w = v - u, never on
   the world velocity. With s = w . n, a contact with s < 0 becomes
   v' = v - (1 + e) s n, so that the relative normal speed after is -e s and
   the tangential relative velocity is kept (or reduced by Coulomb friction).
   The same per-contact routine, bounce_one, serves the batch call and the
   continuous stepping of projectiles against moving planes; the batch
   lanes (AC_SIMD) do its operations lane by lane. */
#include <stdint.h>
#include <stdlib.h>

#include "ac_internal.h"

#define UNIT_TOLERANCE 1e-12 /* |n . n - 1| allowed for a unit normal */

/* Forced inlining for the small functions of the dispatched (AC_VECTORIZED) loops. */
#define CONTACT_INLINE static AC_FORCE_INLINE

static const size_t all_arrays[6] = {1, 1, 1, 1, 1, 1};

/* ------------------------------------------------------------ the law */

/* x when cond holds, else +0.0, with integer masks: GCC turns a ternary (or
   a product with 0 or 1) on doubles into a branch that stops vectorization
   under the default -ftrapping-math. */
CONTACT_INLINE double keep_if(int cond, double x)
{
    return ac_pick(cond, x, 0.0);
}

/* The change of normal speed -(1 + e') s, > 0 for an approaching contact
   (s < 0) and +0 otherwise, where e' is e above the threshold approach speed
   (-s > threshold) and 0 below. The one statement of the law, shared by every
   loop. Values are computed unconditionally and selected, so loops vectorize. */
CONTACT_INLINE double normal_impulse(double s, double e, double threshold)
{
    return keep_if(s < 0.0, -(1.0 + keep_if(-s > threshold, e)) * s);
}

/* One contact: writes v' to out and returns 1 when the relative velocity, its
   normal speed and v' are representable (0 otherwise: the caller diagnoses).
   Inputs are assumed valid. `frictionless` and `careful` are constants at
   every call site, so the unused parts compile away; `careful` also handles
   a tangential speed whose square overflows. out may not alias v or u. */
static inline int64_t bounce_one(int dim, int frictionless, int careful, const double *v,
                                 const double *u, const double *n, double e, double mu,
                                 double threshold, double *out, double *normal_speed)
{
    double w[3], s = 0.0, impulse;
    int64_t ok;
    for (int k = 0; k < dim; k++) {
        w[k] = v[k] - u[k];
        s += w[k] * n[k];
    }
    impulse = normal_impulse(s, e, threshold);
    ok = ac_finite(s);
    if (frictionless) {
        for (int k = 0; k < dim; k++) {
            out[k] = v[k] + impulse * n[k];
            ok &= ac_finite(out[k]);
        }
    } else {
        /* Coulomb: the tangential relative velocity wt loses at most
           mu * impulse of its length, and is never reversed. */
        double wt[3], wt2 = 0.0, len, jt = mu * impulse, ratio, f;
        for (int k = 0; k < dim; k++) {
            wt[k] = w[k] - s * n[k];
            wt2 += wt[k] * wt[k];
        }
        len = sqrt(fabs(wt2));
        if (careful && !ac_finite(wt2))
            len = ac_length(wt, (size_t)dim);
        ratio = jt / len;
        f = keep_if(jt < len, ratio) + keep_if(!(jt < len) & (jt > 0.0), 1.0);
        ok &= ac_finite(len); /* jt = inf is fine: the tangent stops */
        for (int k = 0; k < dim; k++) {
            out[k] = v[k] + impulse * n[k] - f * wt[k];
            ok &= ac_finite(out[k]);
        }
    }
    *normal_speed = s;
    return ok;
}

/* ------------------------------------------------------------ bounce */

static double dot(int dim, const double *a, const double *b)
{
    double sum = 0.0;
    for (int k = 0; k < dim; k++)
        sum += a[k] * b[k];
    return sum;
}

static ac_status check_vector(ac_arg arg, int dim, const double *x, size_t i,
                              ac_error *err)
{
    for (int k = 0; k < dim; k++)
        if (!ac_finite(x[k]))
            return ac_fail(err, AC_ERR_VALUE, i, arg, x[k], "must be finite");
    return AC_OK;
}

static ac_status check_unit(ac_arg arg, int dim, const double *n, size_t i,
                            ac_error *err)
{
    double nn = dot(dim, n, n);
    if (!(fabs(nn - 1.0) <= UNIT_TOLERANCE))
        return ac_fail(err, AC_ERR_VALUE, i, arg, nn,
                       "must lie within 1e-12 of 1: normals must be unit vectors");
    return AC_OK;
}

static ac_status check_range(ac_arg arg, double x, double hi, size_t i, ac_error *err)
{
    if (!ac_finite(x))
        return ac_fail(err, AC_ERR_VALUE, i, arg, x, "must be finite");
    if (!(x >= 0.0))
        return ac_fail(err, AC_ERR_VALUE, i, arg, x, "%s",
                       hi == 1.0 ? "must lie in [0, 1]" : "must be >= 0");
    if (!(x <= hi))
        return ac_fail(err, AC_ERR_VALUE, i, arg, x, "must lie in [0, 1]");
    return AC_OK;
}

/* The scale of a contact's fallback computation: velocities are divided by
   2^CONTACT_SCALE_BITS, so that |w| <= 2 sqrt(3) max|v|, the normal speed and
   the impulse (<= 2 |s|) and every partial sum of the result stay below
   DBL_MAX for any finite inputs. A power of two: the scaled computation is
   the plain one's bits times the scale wherever nothing is subnormal. */
#define CONTACT_SCALE_BITS 4

/* bounce_one in that scaled form, its result scaled back: for a contact whose
   plain computation overflowed in an intermediate (the relative velocity,
   its normal speed, the impulse) although the result exists. Returns 1 when
   the result is representable. */
static int64_t bounce_scaled(int dim, const double *v, const double *u, const double *n,
                             double e, double mu, double threshold, double *out)
{
    double vs[3], us[3], sp;
    int64_t ok;
    for (int k = 0; k < dim; k++) {
        vs[k] = ldexp(v[k], -CONTACT_SCALE_BITS);
        us[k] = ldexp(u[k], -CONTACT_SCALE_BITS);
    }
    ok = bounce_one(dim, 0, 1, vs, us, n, e, mu, ldexp(threshold, -CONTACT_SCALE_BITS), out,
                    &sp);
    for (int k = 0; k < dim; k++) {
        out[k] = ldexp(out[k], CONTACT_SCALE_BITS);
        ok &= ac_finite(out[k]);
    }
    return ok;
}

/* Validates and computes element by element, in the documented order, with the
   overflow-safe tangential length, and where an intermediate overflows, in
   the scaled form. Run only when the fast loop saw a failure; returns AC_OK
   when the failure was an overflowing intermediate and every result exists
   (every element is then rewritten). */
static ac_status bounce_careful(const double *v, const double *u, const double *nrm,
                                const double *rest, const double *fric,
                                const double *thr, const size_t s[6], int dim,
                                double *out, size_t n, ac_error *err)
{
    const size_t d = (size_t)dim;
    for (size_t i = 0; i < n; i++) {
        const double *vi = v + i * s[0] * d, *ui = u + i * s[1] * d, *ni = nrm + i * s[2] * d;
        double e = rest[i * s[3]], mu = fric[i * s[4]], th = thr[i * s[5]], sp;
        ac_status st;
        if ((st = check_vector(AC_ARG_VELOCITY, dim, vi, i, err)) ||
            (st = check_vector(AC_ARG_SURFACE_VELOCITY, dim, ui, i, err)) ||
            (st = check_vector(AC_ARG_NORMAL, dim, ni, i, err)) ||
            (st = check_range(AC_ARG_RESTITUTION, e, 1.0, i, err)) ||
            (st = check_unit(AC_ARG_NORMAL_LENGTH2, dim, ni, i, err)) ||
            (st = check_range(AC_ARG_FRICTION, mu, DBL_MAX, i, err)) ||
            (st = check_range(AC_ARG_THRESHOLD, th, DBL_MAX, i, err)))
            return st;
        if (!bounce_one(dim, 0, 1, vi, ui, ni, e, mu, th, out + i * d, &sp) &&
            !bounce_scaled(dim, vi, ui, ni, e, mu, th, out + i * d)) {
            for (int k = 0; k < dim; k++)
                if (!ac_finite(out[i * d + k]))
                    return ac_fail(err, AC_ERR_OVERFLOW, i, AC_ARG_RESULT, out[i * d + k],
                                   "is not representable although the inputs are finite");
            AC_ASSERT(0 && "the scaled bounce reported an overflow its result does not show");
            return ac_fail(err, AC_ERR_OVERFLOW, i, AC_ARG_RESULT, out[i * d],
                           "is not representable although the inputs are finite");
        }
    }
    return AC_OK;
}

/* The batch loop, branch-free so that it vectorizes: validity accumulated,
   diagnosed afterwards. Returns 1 when every element is valid. */
CONTACT_INLINE int bounce_loop(int dim, int frictionless, const double *v, const double *u,
                              const double *nrm, const double *rest, const double *fric,
                              const double *thr, const size_t s[6], double *restrict out,
                              size_t n)
{
    const size_t d = (size_t)dim;
    int64_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        const double *ni = nrm + i * s[2] * d;
        double e = rest[i * s[3]], mu = frictionless ? 0.0 : fric[i * s[4]];
        double th = thr[i * s[5]], nn = 0.0, sp;
        int64_t ok;
        for (int k = 0; k < dim; k++)
            nn += ni[k] * ni[k];
        ok = bounce_one(dim, frictionless, 0, v + i * s[0] * d, u + i * s[1] * d, ni, e, mu,
                        th, out + i * d, &sp);
        ok &= (fabs(nn - 1.0) <= UNIT_TOLERANCE) & (e >= 0.0) & (e <= 1.0) & (mu >= 0.0)
              & (mu <= DBL_MAX) & (th >= 0.0) & (th <= DBL_MAX);
        bad |= ok ^ 1;
    }
    return !bad;
}

#ifdef AC_SIMD
/* 3-D contacts in AC_LANES lanes, for the common batch layout (v and n
   arrays, u an array or one moving wall's, one restitution and threshold, no
   friction): bounce_one's operations per lane, in its order (its s starts
   from 0.0, which changes only the sign of a zero s, and no result sees
   that), so the results are bit for bit the general loop's. n is a multiple
   of AC_LANES; returns 1 when every s, n . n and result is valid. */
AC_SIMD_KERNEL int bounce3_lanes(const double *v, const double *u, size_t ustep,
                                 const double *nrm, double e, double th, double *out, size_t n)
{
    const ac_vd zero = ac_vd_splat(0.0), ee = ac_vd_splat(e), thr = ac_vd_splat(th);
    ac_vm ok = (ac_vm)(zero == zero);
    for (size_t i = 0; i < n; i += AC_LANES) {
        ac_vd vi[3], ui[3], ni[3], o[3], s, nn, impulse;
        ac_vd_load3(v + 3 * i, 1, vi);
        ac_vd_load3(u + 3 * i * ustep, ustep, ui);
        ac_vd_load3(nrm + 3 * i, 1, ni);
        s = (vi[0] - ui[0]) * ni[0] + (vi[1] - ui[1]) * ni[1] + (vi[2] - ui[2]) * ni[2];
        nn = ni[0] * ni[0] + ni[1] * ni[1] + ni[2] * ni[2];
        /* normal_impulse per lane */
        impulse = ac_vd_pick((ac_vm)(s < 0.0),
                             -(1.0 + ac_vd_pick((ac_vm)(-s > thr), ee, zero)) * s, zero);
        for (int k = 0; k < 3; k++)
            o[k] = vi[k] + impulse * ni[k];
        ac_vd_store3(out + 3 * i, o);
        ok &= ac_vd_finite(o, 3) & ac_vd_finite(&s, 1) &
              (ac_vm)(ac_vd_abs(nn - 1.0) <= UNIT_TOLERANCE);
    }
    return !ac_vm_any(~ok);
}
#endif

/* Constant steps and dimension for the common layouts give straight loops.
   n > 0. */
AC_VECTORIZED
static int bounce_all(const double *v, const double *u, const double *nrm,
                      const double *rest, const double *fric, const double *thr,
                      const size_t s[6], int dim, double *out, size_t n)
{
    static const size_t vectors_only[6] = {1, 1, 1, 0, 0, 0};
    static const size_t shared_surface[6] = {1, 0, 1, 0, 0, 0};
    int frictionless = s[4] == 0 && fric[0] == 0.0;
#ifdef AC_SIMD
    if (dim == 3 && frictionless && s[0] == 1 && s[1] <= 1 && s[2] == 1 && s[3] == 0 &&
        s[5] == 0 && n >= AC_LANES && ac_simd_available()) {
        /* the lanes take all but the last n % AC_LANES, which the general
           loop takes; the shared restitution and threshold are checked here */
        const size_t last = n - n % AC_LANES;
        const size_t *edges = s[1] ? vectors_only : shared_surface;
        int ok = rest[0] >= 0.0 && rest[0] <= 1.0 && thr[0] >= 0.0 && thr[0] <= DBL_MAX;
        ok &= bounce3_lanes(v, u, s[1], nrm, rest[0], thr[0], out, last);
        return ok & bounce_loop(3, 1, v + 3 * last, u + 3 * last * s[1], nrm + 3 * last, rest,
                                fric, thr, edges, out + 3 * last, n - last);
    }
#endif
    int vectors = s[0] == 1 && s[1] == 1 && s[2] == 1;
    int scalars_shared = s[3] == 0 && s[4] == 0 && s[5] == 0;
    if (frictionless && scalars_shared && s[0] == 1 && s[2] == 1) {
        if (s[1] == 1)
            return dim == 3 ? bounce_loop(3, 1, v, u, nrm, rest, fric, thr, vectors_only, out, n)
                            : bounce_loop(2, 1, v, u, nrm, rest, fric, thr, vectors_only, out, n);
        return dim == 3 ? bounce_loop(3, 1, v, u, nrm, rest, fric, thr, shared_surface, out, n)
                        : bounce_loop(2, 1, v, u, nrm, rest, fric, thr, shared_surface, out, n);
    }
    if (vectors && s[3] == 1 && s[4] == 1 && s[5] == 1)
        return dim == 3 ? bounce_loop(3, 0, v, u, nrm, rest, fric, thr, all_arrays, out, n)
                        : bounce_loop(2, 0, v, u, nrm, rest, fric, thr, all_arrays, out, n);
    if (frictionless)
        return dim == 3 ? bounce_loop(3, 1, v, u, nrm, rest, fric, thr, s, out, n)
                        : bounce_loop(2, 1, v, u, nrm, rest, fric, thr, s, out, n);
    return dim == 3 ? bounce_loop(3, 0, v, u, nrm, rest, fric, thr, s, out, n)
                    : bounce_loop(2, 0, v, u, nrm, rest, fric, thr, s, out, n);
}

/* One contact the law takes without overflow: components within 2^500
   (so |w| <= 2^501, |s| and the impulse below 2^505, wt below 2^504 and its
   squared length finite), the kernel's unit test of the normal, and the
   coefficients in range. */
CONTACT_INLINE int64_t bounce_safe(int dim, const double *v, const double *u, const double *n,
                                   double e, double mu, double th)
{
    const double bound = 0x1p500;
    double nn = 0.0;
    int64_t ok = (e >= 0.0) & (e <= 1.0) & (mu >= 0.0) & (mu <= DBL_MAX) & (th >= 0.0) &
                 (th <= DBL_MAX);
    for (int k = 0; k < dim; k++) {
        nn += n[k] * n[k];
        ok &= (fabs(v[k]) <= bound) & (fabs(u[k]) <= bound);
    }
    return ok & (fabs(nn - 1.0) <= UNIT_TOLERANCE);
}

/* The inputs of n contacts, for ac_all_items. */
typedef struct contacts {
    const double *v, *u, *nrm, *rest, *fric, *thr;
    const size_t *s;
    int dim;
} contacts;

CONTACT_INLINE int64_t contact_safe(const void *items, size_t i)
{
    const contacts *c = items;
    const size_t d = (size_t)c->dim, *s = c->s;
    return bounce_safe(c->dim, c->v + i * s[0] * d, c->u + i * s[1] * d, c->nrm + i * s[2] * d,
                       c->rest[i * s[3]], c->fric[i * s[4]], c->thr[i * s[5]]);
}

CONTACT_INLINE int bounce_safe_all(int dim, const double *v, const double *u, const double *nrm,
                                   const double *rest, const double *fric, const double *thr,
                                   const size_t s[6], size_t n)
{
    const contacts c = {v, u, nrm, rest, fric, thr, s, dim};
    return ac_all_items(&c, n, contact_safe);
}

/* Constant steps for the common layouts (vectors per contact, the surface's
   too or one wall's; coefficients shared) give straight loops, as in
   bounce_all. */
AC_VECTORIZED
static int bounce_ok(const double *v, const double *u, const double *nrm, const double *rest,
                     const double *fric, const double *thr, const size_t s[6], int dim,
                     size_t n)
{
    static const size_t vectors_only[6] = {1, 1, 1, 0, 0, 0};
    static const size_t shared_surface[6] = {1, 0, 1, 0, 0, 0};
    if (s[0] == 1 && s[1] <= 1 && s[2] == 1 && s[3] == 0 && s[4] == 0 && s[5] == 0) {
        if (s[1])
            return dim == 3 ? bounce_safe_all(3, v, u, nrm, rest, fric, thr, vectors_only, n)
                            : bounce_safe_all(2, v, u, nrm, rest, fric, thr, vectors_only, n);
        return dim == 3 ? bounce_safe_all(3, v, u, nrm, rest, fric, thr, shared_surface, n)
                        : bounce_safe_all(2, v, u, nrm, rest, fric, thr, shared_surface, n);
    }
    return dim == 3 ? bounce_safe_all(3, v, u, nrm, rest, fric, thr, s, n)
                    : bounce_safe_all(2, v, u, nrm, rest, fric, thr, s, n);
}

bool ac_contact_bounce_check(const double *velocity, const double *surface_velocity,
                             const double *normal, const double *restitution,
                             const double *friction, const double *threshold,
                             const size_t steps[6], size_t dim, size_t n)
{
    return (dim == 2 || dim == 3) &&
           (n == 0 || bounce_ok(velocity, surface_velocity, normal, restitution, friction,
                                threshold, steps ? steps : all_arrays, (int)dim, n));
}

static ac_status check_dim(size_t dim, ac_error *err)
{
    if (dim == 2 || dim == 3)
        return AC_OK;
    return ac_fail(err, AC_ERR_VALUE, 0, AC_ARG_DIM, (double)dim, "must be 2 or 3");
}

ac_status ac_contact_bounce(const double *velocity, const double *surface_velocity,
                            const double *normal, const double *restitution,
                            const double *friction, const double *threshold,
                            const size_t steps[6], size_t dim, double *result, size_t n,
                            ac_error *err)
{
    const size_t *s = steps ? steps : all_arrays;
    ac_status st;
    if ((st = check_dim(dim, err)))
        return st;
    if (n == 0)
        return AC_OK;
    if (bounce_all(velocity, surface_velocity, normal, restitution, friction, threshold, s,
                   (int)dim, result, n))
        return AC_OK;
    return bounce_careful(velocity, surface_velocity, normal, restitution, friction,
                          threshold, s, (int)dim, result, n, err);
}

/* ------------------------------------------------ contact point velocity */

/* w x r; in 2-D w is the scalar about the axis out of the plane. */
static void spin_velocity(int dim, const double *w, const double *r, double *out)
{
    if (dim == 2) {
        out[0] = -w[0] * r[1];
        out[1] = w[0] * r[0];
    } else {
        out[0] = w[1] * r[2] - w[2] * r[1];
        out[1] = w[2] * r[0] - w[0] * r[2];
        out[2] = w[0] * r[1] - w[1] * r[0];
    }
}

/* Components within 2^510: each product of the cross product is at most
   2^1020, and the sums stay finite. */
AC_VECTORIZED
static int point_velocity_ok(const double *v, const double *w, const double *r,
                             const size_t s[3], size_t dim, size_t n)
{
    const double bound = 0x1p510;
    return ac_items_within(v, dim, s[0], n, bound) &&
           ac_items_within(w, dim == 2 ? 1 : 3, s[1], n, bound) &&
           ac_items_within(r, dim, s[2], n, bound);
}

bool ac_contact_point_velocity_check(const double *linear_velocity,
                                     const double *angular_velocity, const double *offset,
                                     const size_t steps[3], size_t dim, size_t n)
{
    return (dim == 2 || dim == 3) &&
           (n == 0 || point_velocity_ok(linear_velocity, angular_velocity, offset,
                                        steps ? steps : all_arrays, dim, n));
}

ac_status ac_contact_point_velocity(const double *linear_velocity,
                                    const double *angular_velocity, const double *offset,
                                    const size_t steps[3], size_t dim, double *result,
                                    size_t n, ac_error *err)
{
    const size_t *s = steps ? steps : all_arrays;
    const size_t d = dim, da = dim == 2 ? 1 : 3;
    ac_status st;
    if ((st = check_dim(dim, err)))
        return st;
    for (size_t i = 0; i < n; i++) {
        const double *v = linear_velocity + i * s[0] * d, *w = angular_velocity + i * s[1] * da;
        const double *r = offset + i * s[2] * d;
        double *out = result + i * d;
        if ((st = check_vector(AC_ARG_LINEAR_VELOCITY, dim, v, i, err)) ||
            (st = check_vector(AC_ARG_ANGULAR_VELOCITY, (int)da, w, i, err)) ||
            (st = check_vector(AC_ARG_OFFSET, dim, r, i, err)))
            return st;
        spin_velocity((int)dim, w, r, out);
        for (size_t k = 0; k < d; k++)
            out[k] = v[k] + out[k];
        for (size_t k = 0; k < d; k++)
            if (!ac_finite(out[k]))
                return ac_fail(err, AC_ERR_OVERFLOW, i, AC_ARG_RESULT, out[k],
                               "is not representable although the inputs are finite");
    }
    return AC_OK;
}

/* ------------------------------------------------------------- collide */

/* One body at one contact: velocity, angular velocity (1 value in 2-D, 3 in
   3-D), center, inverse mass and inverse inertia (one value for a disc or a
   sphere, or in 3-D a row-major world tensor). */
typedef struct rigid {
    const double *v, *w, *c, *inertia;
    double inverse_mass;
    int tensor;
} rigid;

/* The change of a body's angular velocity from the impulse j at arm r:
   inverse_inertia (r x j). */
static void spin_change(int dim, const rigid *b, const double *r, const double *j,
                        double *out)
{
    double t[3];
    if (dim == 2) {
        out[0] = b->inertia[0] * (r[0] * j[1] - r[1] * j[0]);
        return;
    }
    t[0] = r[1] * j[2] - r[2] * j[1];
    t[1] = r[2] * j[0] - r[0] * j[2];
    t[2] = r[0] * j[1] - r[1] * j[0];
    for (int k = 0; k < 3; k++)
        out[k] = b->tensor ? b->inertia[3 * k] * t[0] + b->inertia[3 * k + 1] * t[1] +
                                 b->inertia[3 * k + 2] * t[2]
                           : b->inertia[0] * t[k];
}

/* Adds to the columns of K the change of contact-point velocity that a unit
   impulse along each axis causes through the body's rotation. */
static void add_rotational_mass(int dim, const rigid *b, const double *r, double K[3][3])
{
    if (!b->tensor) { /* the closed form i (|r|^2 I - r r^T), r_perp r_perp^T i in 2-D */
        const double i = b->inertia[0];
        if (dim == 2) {
            K[0][0] += i * (r[1] * r[1]);
            K[0][1] -= i * (r[0] * r[1]);
            K[1][0] -= i * (r[0] * r[1]);
            K[1][1] += i * (r[0] * r[0]);
            return;
        }
        for (int row = 0; row < 3; row++)
            for (int col = 0; col < 3; col++)
                K[row][col] += i * ((row == col ? r[0] * r[0] + r[1] * r[1] + r[2] * r[2] : 0.0) -
                                    r[row] * r[col]);
        return;
    }
    for (int col = 0; col < dim; col++) {
        double unit[3] = {0.0, 0.0, 0.0}, dw[3], du[3];
        unit[col] = 1.0;
        spin_change(dim, b, r, unit, dw);
        spin_velocity(dim, dw, r, du);
        for (int row = 0; row < dim; row++)
            K[row][col] += du[row];
    }
}

/* A quantity computed as a difference that cancelled all but this fraction
   of its terms has lost too many of its bits to be trusted: the effective mass
   K is graded along axes that are not the coordinate axes (an inverse inertia
   far above the inverse masses, an arm off the normal), and collide_structured
   takes the contact. Above it the plain computation loses at most about 20 of
   its 53 bits in such a difference, and a well-conditioned contact never
   comes near it. */
#define CANCELLED 0x1p-20

/* LDL^T of a symmetric matrix A (no square roots; L unit lower triangular,
   its strict lower part written). With pivot_floor > 0, a pivot not above
   pivot_floor times its diagonal entry is raised to that before the later
   rows use it; pivot_floor = 0 keeps every pivot as computed. */
static void ldl_factor(int dim, double A[3][3], double pivot_floor, double L[3][3], double *D)
{
    for (int i = 0; i < dim; i++) {
        double diag = A[i][i];
        for (int j = 0; j < i; j++) {
            double sum = A[i][j];
            for (int k = 0; k < j; k++)
                sum -= L[i][k] * L[j][k] * D[k];
            L[i][j] = sum / D[j];
            diag -= L[i][j] * L[i][j] * D[j];
        }
        double low = pivot_floor * A[i][i];
        D[i] = pivot_floor > 0.0 && !(diag > low) ? low : diag;
    }
}

/* Solves K x = y for a symmetric positive definite K by LDL^T (no square
   roots: a diagonal K is solved by plain division). Returns 0 when a pivot
   cancelled below CANCELLED of its diagonal entry (x is then not to be
   trusted). */
static int spd_solve(int dim, double K[3][3], const double *y, double *x)
{
    double L[3][3] = {{0.0}}, D[3], z[3];
    int trusted = 1;
    ldl_factor(dim, K, 0.0, L, D);
    for (int i = 0; i < dim; i++)
        trusted &= D[i] >= CANCELLED * K[i][i];
    for (int i = 0; i < dim; i++) {
        double sum = y[i];
        for (int k = 0; k < i; k++)
            sum -= L[i][k] * z[k];
        z[i] = sum;
    }
    for (int i = dim - 1; i >= 0; i--) {
        double sum = z[i] / D[i];
        for (int k = i + 1; k < dim; k++)
            sum -= L[k][i] * x[k];
        x[i] = sum;
    }
    return trusted;
}

static int all_zero(int count, const double *x)
{
    for (int k = 0; k < count; k++)
        if (x[k] != 0.0)
            return 0;
    return 1;
}

/* For a slipping 3-D contact, the unit direction d of the friction impulse
   that leaves the remaining slip exactly opposite to it. In the tangent basis
   (t1, t2), t1 the direction of the impulse that would stop the slip, a
   friction impulse x leaves the slip c + S x: c is the slip without friction
   and S the tangential effective mass once the normal impulse has taken its
   share (positive definite). With x = -rho u, u the unit remaining slip, u
   runs along (S + m I)^-1 c for some m >= 0, from t1's opposite (m = 0) to
   c's direction (m -> inf), and m makes |(S + m I)^-1 c| equal to the
   Coulomb impulse rho = mu dn / (a - mu q . u): found by bisection, the sign
   of the difference changing between the two ends. When both ends agree
   (spheres and discs hit in line with their centers) d is t1. Returns 0 when
   S lost its accuracy to cancellation (CANCELLED). */
static int slip_direction(double K[3][3], const double *w, double dn, const double *n,
                          double mu, const double *t1, double *d)
{
    double t2[3], Kn[3], K1[3], K2[3], a = 0.0, q0 = 0.0, q1 = 0.0, c0 = 0.0, c1 = 0.0;
    double s00 = 0.0, s01 = 0.0, s11 = 0.0, scale, lo = 0.0, hi = 1.0, u0 = -1.0, u1 = 0.0;
    int trusted;
    t2[0] = n[1] * t1[2] - n[2] * t1[1];
    t2[1] = n[2] * t1[0] - n[0] * t1[2];
    t2[2] = n[0] * t1[1] - n[1] * t1[0];
    for (int r = 0; r < 3; r++) {
        Kn[r] = K[r][0] * n[0] + K[r][1] * n[1] + K[r][2] * n[2];
        K1[r] = K[r][0] * t1[0] + K[r][1] * t1[1] + K[r][2] * t1[2];
        K2[r] = K[r][0] * t2[0] + K[r][1] * t2[1] + K[r][2] * t2[2];
    }
    for (int k = 0; k < 3; k++) {
        a += n[k] * Kn[k];
        q0 += t1[k] * Kn[k];
        q1 += t2[k] * Kn[k];
        s00 += t1[k] * K1[k];
        s01 += t1[k] * K2[k];
        s11 += t2[k] * K2[k];
        c0 += t1[k] * w[k];
        c1 += t2[k] * w[k];
    }
    /* products grouped so that masses near the ends of the range (K of
       order 1e200 or 1e-200) neither overflow nor underflow */
    trusted = s00 - q0 * (q0 / a) >= CANCELLED * s00 && s11 - q1 * (q1 / a) >= CANCELLED * s11;
    s00 -= q0 * (q0 / a);
    s01 -= q0 * (q1 / a);
    s11 -= q1 * (q1 / a);
    c0 += q0 * (dn / a);
    c1 += q1 * (dn / a);
    for (int k = 0; k < 3; k++)
        d[k] = t1[k];
    if (!(fabs(c1) > 1e-15 * fabs(c0)))
        return trusted; /* the two ends agree */
    /* S is divided by its mean diagonal: the determinant stays of order 1,
       and the unscaled length is len / scale */
    scale = 0.5 * (s00 + s11);
    s00 /= scale;
    s01 /= scale;
    s11 /= scale;
    trusted &= s00 * s11 - s01 * s01 >= CANCELLED * (s00 * s11);
    for (int step = 0; step < 100; step++) {
        const double tau = 0.5 * (lo + hi), m = tau / (1.0 - tau);
        const double det = (s00 + m) * (s11 + m) - s01 * s01;
        const double v0 = ((s11 + m) * c0 - s01 * c1) / det, v1 = ((s00 + m) * c1 - s01 * c0) / det;
        const double len = ac_length((const double[2]){v0, v1}, 2);
        const double unit0 = v0 / len, unit1 = v1 / len, den = a - mu * (q0 * unit0 + q1 * unit1);
        if (!(tau > lo && tau < hi))
            break; /* converged to the last bit */
        u0 = unit0, u1 = unit1;
        if (den > 0.0 && len > mu * dn * (scale / den))
            lo = tau;
        else
            hi = tau;
    }
    for (int k = 0; k < 3; k++)
        d[k] = -(u0 * t1[k] + u1 * t2[k]);
    return trusted;
}

/* The impulse j on body a (b receives -j) at an approaching contact with
   relative contact velocity w, normal speed s < 0 and effective mass K (the
   change of w per unit impulse). The impulse j* that leaves w' = -e' s n
   (restitution on the normal speed, the slip stopped) is taken when Coulomb's
   bound allows it, |j*_t| <= mu j*_n; otherwise the friction impulse is
   mu j_n opposite the slip that remains (along j*_t in 2-D and whenever the
   tangential response is isotropic, else from slip_direction), and j_n comes
   from the restitution law. When neither body can translate (K may be
   singular) the contact is frictionless. Returns 0 when a step lost its
   accuracy to cancellation (CANCELLED): collide_structured then takes the
   contact. */
static int contact_impulse(int dim, double K[3][3], int translates, const double *w,
                           double s, double dn, const double *n, double mu, double *j)
{
    double rhs[3], jt[3], jn = 0.0, len, kn = 0.0, size = 0.0, d[3];
    int trusted;
    if (!translates) {
        for (int r = 0; r < dim; r++)
            for (int c = 0; c < dim; c++) {
                kn += n[r] * K[r][c] * n[c];
                size += fabs(n[r] * K[r][c] * n[c]);
            }
        for (int k = 0; k < dim; k++)
            j[k] = kn > 0.0 ? dn / kn * n[k] : 0.0;
        return kn >= CANCELLED * size;
    }
    for (int k = 0; k < dim; k++)
        rhs[k] = dn * n[k] - (w[k] - s * n[k]);
    trusted = spd_solve(dim, K, rhs, j);
    for (int k = 0; k < dim; k++)
        jn += j[k] * n[k];
    for (int k = 0; k < dim; k++)
        jt[k] = j[k] - jn * n[k];
    /* scaled: a plain square would underflow to 0 (friction where there is
       none) or overflow to inf (friction lost) at extreme inverse masses */
    len = ac_length(jt, (size_t)dim);
    if (len <= mu * jn)
        return trusted; /* sticks */
    /* slips: j = j_n (n + mu d), with n . K j = dn; the denominator is > 0
       whenever the bound fails (K positive definite, dn > 0) */
    for (int k = 0; k < dim; k++)
        d[k] = jt[k] / len;
    if (dim == 3 && mu > 0.0) {
        trusted &= slip_direction(K, w, dn, n, mu, d, jt);
        memcpy(d, jt, sizeof d);
    }
    for (int k = 0; k < dim; k++)
        d[k] = n[k] + mu * d[k];
    kn = 0.0;
    for (int r = 0; r < dim; r++)
        for (int c = 0; c < dim; c++) {
            kn += n[r] * K[r][c] * d[c];
            size += fabs(n[r] * K[r][c] * d[c]);
        }
    for (int k = 0; k < dim; k++)
        j[k] = dn / kn * d[k];
    /* d is perpendicular to n only to rounding, which mu multiplies in kn:
       beyond 1 / CANCELLED it is not trusted (nor is dn / kn below the normal
       range, whose lost bits mu d would have restored) */
    return trusted & (kn >= CANCELLED * size) & (mu <= 1.0 / CANCELLED) & !(dn / kn < DBL_MIN);
}

/* Relative velocity, normal speed and every result representable, and the
   impulse trusted (contact_impulse): 1. */
static inline int collide_one(int dim, const rigid *a, const rigid *b, const double *n,
                       const double *p, double e, double mu, double threshold,
                       double *va, double *wa, double *vb, double *wb, double *jn_out,
                       double *jt_out)
{
    const int da = dim == 2 ? 1 : 3, wi = a->tensor ? 9 : 1, wj = b->tensor ? 9 : 1;
    double ra[3] = {0.0, 0.0, 0.0}, rb[3] = {0.0, 0.0, 0.0}, ua[3], ub[3], w[3], dwa[3], dwb[3];
    double j[3] = {0.0, 0.0, 0.0};
    double s = 0.0, jn = 0.0;
    int ok = 1;
    for (int k = 0; k < dim; k++) {
        ra[k] = p[k] - a->c[k];
        rb[k] = p[k] - b->c[k];
    }
    spin_velocity(dim, a->w, ra, ua);
    spin_velocity(dim, b->w, rb, ub);
    for (int k = 0; k < dim; k++)
        ub[k] = b->v[k] + ub[k]; /* b's contact-point velocity */
    if (a->inverse_mass > 0.0 && all_zero(wi, a->inertia) && b->inverse_mass == 0.0 &&
        all_zero(wj, b->inertia)) {
        /* a point mass against a kinematic body: the bounce law itself */
        double u[3], sp;
        int spins = !all_zero(dim, ua);
        for (int k = 0; k < dim; k++)
            u[k] = spins ? ub[k] - ua[k] : ub[k];
        ok = (int)bounce_one(dim, mu == 0.0, 1, a->v, u, n, e, mu, threshold, va, &sp);
        for (int k = 0; k < dim; k++)
            j[k] = (va[k] - a->v[k]) / a->inverse_mass;
    } else {
        for (int k = 0; k < dim; k++) {
            w[k] = (a->v[k] + ua[k]) - ub[k];
            s += w[k] * n[k];
            ok &= ac_finite(w[k]);
        }
        ok &= ac_finite(s);
        if (s < 0.0) {
            double K[3][3] = {{0.0}}, m = a->inverse_mass + b->inverse_mass;
            for (int k = 0; k < dim; k++)
                K[k][k] = m;
            add_rotational_mass(dim, a, ra, K);
            add_rotational_mass(dim, b, rb, K);
            ok &= contact_impulse(dim, K, m > 0.0, w, s, normal_impulse(s, e, threshold), n, mu,
                                  j);
        }
        for (int k = 0; k < dim; k++)
            va[k] = a->v[k] + a->inverse_mass * j[k];
    }
    spin_change(dim, a, ra, j, dwa);
    spin_change(dim, b, rb, j, dwb);
    for (int k = 0; k < dim; k++) {
        vb[k] = b->v[k] - b->inverse_mass * j[k];
        jn += j[k] * n[k];
    }
    for (int k = 0; k < da; k++) {
        wa[k] = a->w[k] + dwa[k];
        wb[k] = b->w[k] - dwb[k];
        ok &= ac_finite(wa[k]) & ac_finite(wb[k]);
    }
    for (int k = 0; k < dim; k++) {
        jt_out[k] = j[k] - jn * n[k];
        ok &= ac_finite(va[k]) & ac_finite(vb[k]) & ac_finite(jt_out[k]);
    }
    *jn_out = jn;
    return ok & ac_finite(jn);
}

/* The larger of *e and the binary exponent of x > 0 (x = 0 changes nothing). */
static void raise_exponent(int *e, int *any, double x, int extra)
{
    if (x > 0.0 && (!*any || ilogb(x) + extra > *e)) {
        *e = ilogb(x) + extra;
        *any = 1;
    }
}

/* The magnitudes within which collide_one neither overflows nor loses a
   significant term to underflow: every nonzero inverse mass and largest
   inertia entry in [2^-300, 2^300], arms up to 2^150, the largest velocity
   and spin times arm in [2^-300, 2^300] (or all zero). Then K's entries are
   below 2^601, the impulse below DBL_MAX, and an impulse that underflows
   changes no velocity by more than 2^-700 of its size. Comparisons only:
   the common case pays no more. */
static int contact_ordinary(int dim, const rigid *a, const rigid *b, const double *p)
{
    const rigid *bodies[2] = {a, b};
    const double lo = 0x1p-300, hi = 0x1p300;
    double speed = 0.0;
    int ok = 1;
    for (int q = 0; q < 2; q++) {
        const rigid *body = bodies[q];
        const int count = body->tensor ? 9 : 1, da = dim == 2 ? 1 : 3;
        double arm = 0.0, spin = 0.0, most = 0.0;
        for (int c = 0; c < dim; c++) {
            const double r = fabs(p[c] - body->c[c]), v = fabs(body->v[c]);
            arm = r > arm ? r : arm;
            speed = v > speed ? v : speed;
        }
        for (int c = 0; c < da; c++)
            spin = fabs(body->w[c]) > spin ? fabs(body->w[c]) : spin;
        for (int c = 0; c < count; c++)
            most = fabs(body->inertia[c]) > most ? fabs(body->inertia[c]) : most;
        ok &= (arm <= 0x1p150) & (spin <= hi) & ((most == 0.0) | ((most >= lo) & (most <= hi))) &
              ((body->inverse_mass == 0.0) |
               ((body->inverse_mass >= lo) & (body->inverse_mass <= hi)));
        speed = spin * arm > speed ? spin * arm : speed;
    }
    return ok & ((speed == 0.0) | ((speed >= lo) & (speed <= hi)));
}

/* collide_one in a scaled form, its results scaled back: for a contact
   outside contact_ordinary's range (inverse masses or inertias whose sum or
   products with the arms overflow, velocities whose difference does, an
   impulse that underflows where the velocity change it makes does not). The
   inverse masses and inertias are divided by 2^E, E the exponent of the
   largest entry of the effective mass K (so that K's entries are of order
   1), and the velocities and angular velocities by 2^k, k the exponent of
   the largest contact-point velocity; the impulse then comes out times
   2^(E - k), the velocities times 2^-k. Powers of two: where nothing is
   subnormal these are the plain computation's bits. Returns 1 when every
   result is representable, the impulse only when `impulse` is set (arms that
   overflow are not: then the plain computation's status and results); 0
   without computing when an inverse mass or inertia entry would fall below
   the normal range (it may be all K has in some direction). */
static int collide_scaled(int dim, const rigid *a, const rigid *b, const double *n,
                          const double *p, double e, double mu, double threshold, int impulse,
                          double *va, double *wa, double *vb, double *wb, double *jn,
                          double *jt)
{
    const int da = dim == 2 ? 1 : 3;
    const rigid *bodies[2] = {a, b};
    rigid scaled[2];
    double v[2][3], w[2][3], inertia[2][9];
    int mass = 0, any_mass = 0, speed = 0, any_speed = 0, ok = 1, lost = 0, k;
    for (int q = 0; q < 2; q++) {
        const rigid *body = bodies[q];
        const int count = body->tensor ? 9 : 1;
        double arm = 0.0, spin = 0.0, most = 0.0;
        for (int c = 0; c < dim; c++) {
            const double r = fabs(p[c] - body->c[c]);
            if (!ac_finite(r))
                return dim == 3 ? collide_one(3, a, b, n, p, e, mu, threshold, va, wa, vb, wb,
                                              jn, jt)
                                : collide_one(2, a, b, n, p, e, mu, threshold, va, wa, vb, wb,
                                              jn, jt);
            arm = r > arm ? r : arm;
            raise_exponent(&speed, &any_speed, fabs(body->v[c]), 0);
        }
        for (int c = 0; c < da; c++)
            spin = fabs(body->w[c]) > spin ? fabs(body->w[c]) : spin;
        for (int c = 0; c < count; c++)
            most = fabs(body->inertia[c]) > most ? fabs(body->inertia[c]) : most;
        if (arm > 0.0) {
            if (spin > 0.0)
                raise_exponent(&speed, &any_speed, spin, ilogb(arm) + 1);
            if (most > 0.0)
                raise_exponent(&mass, &any_mass, most, 2 * ilogb(arm) + 2);
        }
        raise_exponent(&mass, &any_mass, body->inverse_mass, 0);
    }
    k = any_speed ? speed : 0;
    if (!any_mass)
        mass = 0;
    for (int q = 0; q < 2; q++) {
        const rigid *body = bodies[q];
        const int count = body->tensor ? 9 : 1;
        scaled[q] = *body;
        for (int c = 0; c < dim; c++)
            v[q][c] = ldexp(body->v[c], -k);
        for (int c = 0; c < da; c++)
            w[q][c] = ldexp(body->w[c], -k);
        for (int c = 0; c < count; c++) {
            inertia[q][c] = ldexp(body->inertia[c], -mass);
            lost |= body->inertia[c] != 0.0 && !(fabs(inertia[q][c]) >= DBL_MIN);
        }
        scaled[q].v = v[q];
        scaled[q].w = w[q];
        scaled[q].inertia = inertia[q];
        scaled[q].inverse_mass = ldexp(body->inverse_mass, -mass);
        lost |= body->inverse_mass != 0.0 && !(scaled[q].inverse_mass >= DBL_MIN);
    }
    if (lost) /* a term of K below the normal range: collide_structured keeps it */
        return 0;
    ok = dim == 3 ? collide_one(3, &scaled[0], &scaled[1], n, p, e, mu, ldexp(threshold, -k),
                                va, wa, vb, wb, jn, jt)
                  : collide_one(2, &scaled[0], &scaled[1], n, p, e, mu, ldexp(threshold, -k),
                                va, wa, vb, wb, jn, jt);
    for (int c = 0; c < dim; c++) {
        va[c] = ldexp(va[c], k);
        vb[c] = ldexp(vb[c], k);
        jt[c] = ldexp(jt[c], k - mass);
        ok &= ac_finite(va[c]) & ac_finite(vb[c]) & ((impulse == 0) | ac_finite(jt[c]));
    }
    for (int c = 0; c < da; c++) {
        wa[c] = ldexp(wa[c], k);
        wb[c] = ldexp(wb[c], k);
        ok &= ac_finite(wa[c]) & ac_finite(wb[c]);
    }
    *jn = ldexp(*jn, k - mass);
    return ok & ((impulse == 0) | ac_finite(*jn));
}

/* ------------------------------------------- collide: the structured form */

/* For contacts whose effective mass K no single power-of-two scaling makes
   ordinary. Its terms, m I from the inverse masses and for each turning body
   i |r|^2 (I - u u^T) (a tensor's [r]x^T T [r]x), may span more than the
   double range, or span so much that their rounded sum loses the small ones
   where they are all there is: a body that turns far more easily than it
   translates (i |r|^2 >> m) makes K stiff across its arm and soft along it;
   formed in world axes, the rounding of the stiff terms buries the soft one
   (1 + 1e17 is 1e17), K looks singular, and the plain solve gives NaN or,
   short of that, an impulse whose error the huge inverse inertia multiplies.

   collide_structured resolves such a contact in the frame of the body with
   the largest rotational term (the dominant lever): its first axis is that
   body's arm, its second the direction of the body's largest principal term,
   so that the body's term is exactly 0 in the first row and column and, for
   a body that turns about one axis only, along the third. Each entry is
   summed from its terms as `wide` numbers (a double with its own exponent),
   the system is scaled by powers of two to a unit diagonal (K is symmetric
   positive definite and graded along the frame's axes, where LDL^T is
   accurate whatever the grading), and all of the contact law runs in the
   frame: the sticking impulse; a slipping one, jn (n + mu d), its two parts
   kept apart (d is perpendicular to n by construction, so the inverse masses
   add nothing to n . K d however large mu); slip_direction's bisection,
   through the resolvent of K itself; and each body's change of spin
   i (r x j) = i |r| (u x j) from the impulse's frame components, so that the
   dominant body's soft component never enters and its huge inverse inertia
   meets the tiny stiff components as a product of wide numbers. Velocities
   are scaled by a power of two as in collide_scaled. What the frame cannot
   give are quantities below the rounding of the contact's own velocities (a
   normal approach 1e-80 of a tangential slip) and the small eigenvalues of a
   tensor given in rotated axes whose entries span more than the double's
   precision: as in the plain form, those keep the accuracy the inputs' sizes
   give them. */

/* m 2^e: m is 0 (e 0) or 0.5 <= |m| < 1. Products and quotients round once;
   a sum aligns on the larger exponent, dropping a term 2^1100 below. */
typedef struct wide {
    double m;
    int e;
} wide;

static wide wide_make(double m, int e)
{
    wide r;
    int k;
    r.m = frexp(m, &k);
    r.e = r.m == 0.0 ? 0 : e + k;
    return r;
}

static wide wide_of(double x) { return wide_make(x, 0); }

static wide wide_mul(wide a, wide b) { return wide_make(a.m * b.m, a.e + b.e); }

static wide wide_div(wide a, wide b) { return wide_make(a.m / b.m, a.e - b.e); }

static wide wide_scale(wide a, int k)
{
    a.e += a.m == 0.0 ? 0 : k;
    return a;
}

static wide wide_add(wide a, wide b)
{
    if (a.m == 0.0)
        return b;
    if (b.m == 0.0)
        return a;
    if (a.e < b.e) {
        const wide t = a;
        a = b;
        b = t;
    }
    return wide_make(a.m + ldexp(b.m, b.e - a.e < -1100 ? -1100 : b.e - a.e), a.e);
}

static wide wide_neg(wide a)
{
    a.m = -a.m;
    return a;
}

static wide wide_sub(wide a, wide b) { return wide_add(a, wide_neg(b)); }

/* a 2^k as a double (0 or +-inf beyond the range) */
static double wide_double(wide a, int k)
{
    const long e = (long)a.e + k;
    return ldexp(a.m, e < -2200 ? -2200 : e > 2200 ? 2200 : (int)e);
}

static wide wide_sqrt(wide a) /* a >= 0 */
{
    const int odd = a.e % 2 != 0;
    return wide_make(sqrt(odd ? 2.0 * a.m : a.m), (a.e - odd) / 2);
}

static int wide_positive(wide a) { return a.m > 0.0; }

static int wide_less(wide a, wide b) { return wide_sub(a, b).m < 0.0; }

/* a b - c d within about an ulp of the result (Kahan's difference of products;
   fma is exact). For the cross products of an arm with a nearly parallel
   normal, whose size sets a soft contact's effective mass. */
static double diff_of_products(double a, double b, double c, double d)
{
    const double cd = c * d;
    return fma(a, b, -cd) + fma(-c, d, cd);
}

static void cross_exact(const double *x, const double *y, double *out)
{
    out[0] = diff_of_products(x[1], y[2], x[2], y[1]);
    out[1] = diff_of_products(x[2], y[0], x[0], y[2]);
    out[2] = diff_of_products(x[0], y[1], x[1], y[0]);
}

static void cross3(const double *x, const double *y, double *out)
{
    out[0] = x[1] * y[2] - x[2] * y[1];
    out[1] = x[2] * y[0] - x[0] * y[2];
    out[2] = x[0] * y[1] - x[1] * y[0];
}

/* One body's turning response: the impulse j at arm r changes its spin by
   i (r x j), i = inertia t (t its tensor over the largest entry, or t[0] = 1).
   In 2-D vectors carry z = 0 and only the z spin turns. */
typedef struct lever {
    double arm[3]; /* r 2^-shift, its largest component in [0.5, 1) (0: no arm) */
    double u[3];   /* r / |r| (0: no arm) */
    double t[9];
    double axis[3][3], along[3]; /* t = sum along[i] axis[i] axis[i]^T (exact for a
                                    diagonal tensor and a scalar) */
    wide len, inertia; /* |r| and the largest inverse inertia entry (0: no turning) */
    int shift, tensor, dim;
} lever;

/* The eigenvectors (rows of v) and eigenvalues (>= 0) of a symmetric 3x3 t of
   order 1, by cyclic Jacobi rotations: none for a diagonal t, so that a body
   that turns about one axis only keeps exact zeros. */
static void principal_axes(const double *t, double v[3][3], double *lambda)
{
    double A[3][3];
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) {
            A[r][c] = t[3 * r + c];
            v[r][c] = r == c ? 1.0 : 0.0;
        }
    for (int sweep = 0; sweep < 16; sweep++) {
        int rotated = 0;
        for (int p = 0; p < 2; p++)
            for (int q = p + 1; q < 3; q++) {
                double theta, tn, c, sn;
                if (!(fabs(A[p][q]) > 0x1p-60 * (fabs(A[p][p]) + fabs(A[q][q]))) &&
                    !(A[p][p] == 0.0 && A[q][q] == 0.0 && A[p][q] != 0.0))
                    continue;
                rotated = 1;
                theta = (A[q][q] - A[p][p]) / (2.0 * A[p][q]);
                tn = (theta >= 0.0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1.0));
                if (!ac_finite(theta * theta))
                    tn = 0.5 / theta;
                c = 1.0 / sqrt(tn * tn + 1.0);
                sn = tn * c;
                for (int k = 0; k < 3; k++) { /* A <- J^T A J */
                    const double akp = A[k][p], akq = A[k][q];
                    A[k][p] = c * akp - sn * akq;
                    A[k][q] = sn * akp + c * akq;
                }
                for (int k = 0; k < 3; k++) {
                    const double apk = A[p][k], aqk = A[q][k];
                    A[p][k] = c * apk - sn * aqk;
                    A[q][k] = sn * apk + c * aqk;
                }
                A[p][q] = A[q][p] = 0.0;
                for (int k = 0; k < 3; k++) {
                    const double vp = v[p][k], vq = v[q][k];
                    v[p][k] = c * vp - sn * vq;
                    v[q][k] = sn * vp + c * vq;
                }
            }
        if (!rotated)
            break;
    }
    for (int k = 0; k < 3; k++)
        lambda[k] = A[k][k] > 0.0 ? A[k][k] : 0.0;
}

static void lever_init(int dim, const rigid *body, const double *r, lever *lv)
{
    const int count = body->tensor ? 9 : 1;
    double big = 0.0, most = 0.0, len;
    memset(lv, 0, sizeof *lv);
    lv->tensor = body->tensor;
    lv->dim = dim;
    for (int c = 0; c < dim; c++)
        big = fabs(r[c]) > big ? fabs(r[c]) : big;
    for (int c = 0; c < count; c++)
        most = fabs(body->inertia[c]) > most ? fabs(body->inertia[c]) : most;
    if (big > 0.0 && most > 0.0) {
        frexp(big, &lv->shift);
        for (int c = 0; c < dim; c++)
            lv->arm[c] = ldexp(r[c], -lv->shift);
        len = ac_length(lv->arm, (size_t)dim);
        for (int c = 0; c < dim; c++)
            lv->u[c] = lv->arm[c] / len;
        lv->len = wide_scale(wide_of(len), lv->shift);
        for (int c = 0; c < count; c++)
            lv->t[c] = body->inertia[c] / most;
        lv->inertia = wide_of(most);
        if (lv->tensor)
            principal_axes(lv->t, lv->axis, lv->along);
        for (int k = 0; k < 3 && !lv->tensor; k++) {
            lv->axis[k][k] = 1.0;
            lv->along[k] = lv->t[0];
        }
    }
}

/* t x, for x of order 1 (3-D; in 2-D the z component alone) */
static void lever_turn(const lever *lv, const double *x, double *out)
{
    for (int k = 0; k < 3; k++)
        out[k] = lv->tensor ? lv->t[3 * k] * x[0] + lv->t[3 * k + 1] * x[1] +
                                  lv->t[3 * k + 2] * x[2]
                            : lv->t[0] * x[k];
    if (lv->dim == 2)
        out[0] = out[1] = 0.0;
}

/* (r x x) . i (r x y): the body's term of x . K y. `exact`: r as given, the
   cross products to an ulp; else r = |r| u, so that r x u is exactly 0. */
static wide lever_term(const lever *lv, const double *x, const double *y, int exact)
{
    double cx[3], cy[3], ty[3];
    if (!wide_positive(lv->inertia))
        return wide_of(0.0);
    if (exact) {
        cross_exact(lv->arm, x, cx);
        cross_exact(lv->arm, y, cy);
    } else {
        cross3(lv->u, x, cx);
        cross3(lv->u, y, cy);
    }
    lever_turn(lv, cy, ty);
    return wide_mul(wide_mul(wide_of(cx[0] * ty[0] + cx[1] * ty[1] + cx[2] * ty[2]),
                             lv->inertia),
                    exact ? wide_make(1.0, 2 * lv->shift) : wide_mul(lv->len, lv->len));
}

/* i c for the cross product c = r x j given in wide components */
static void lever_spin(const lever *lv, const wide c[3], wide out[3])
{
    int top = -100000;
    double x[3], y[3];
    for (int k = 0; k < 3; k++)
        top = c[k].m != 0.0 && c[k].e > top ? c[k].e : top;
    for (int k = 0; k < 3; k++)
        x[k] = wide_double(c[k], -top);
    lever_turn(lv, x, y);
    for (int k = 0; k < 3; k++)
        out[k] = wide_scale(wide_mul(wide_of(y[k]), lv->inertia), top);
}

/* n . K n for two bodies that cannot translate (K is the levers' terms
   alone), from the arms as given */
static wide turning_mass(const lever lv[2], const double *n)
{
    return wide_add(lever_term(&lv[0], n, n, 1), lever_term(&lv[1], n, n, 1));
}

/* The frame of the dominant lever: q[0] = u, its arm's direction (the
   coordinate axes for no arm); in 3-D q[1] along g = axis x u of its largest
   term along[i] |axis[i] x u|^2, and q[2] = u x q[1]. Returns that term's i
   (-1 for none): lever_in_frame holds it to q[1] exactly. */
static int frame_of(int dim, const lever *lv, double q[3][3])
{
    const double *u = lv->u;
    int big = -1;
    double len, most = 0.0;
    memset(q, 0, 9 * sizeof(double));
    if (u[0] == 0.0 && u[1] == 0.0 && u[2] == 0.0) {
        for (int c = 0; c < 3; c++)
            q[c][c] = 1.0;
        return -1;
    }
    memcpy(q[0], u, 3 * sizeof(double));
    if (dim == 2) {
        q[1][0] = -u[1];
        q[1][1] = u[0];
        return -1;
    }
    for (int i = 0; i < 3; i++) {
        double g[3], size;
        cross3(lv->axis[i], u, g);
        size = lv->along[i] * (g[0] * g[0] + g[1] * g[1] + g[2] * g[2]);
        if (size > most) {
            most = size;
            big = i;
            memcpy(q[1], g, sizeof g);
        }
    }
    if (big < 0) { /* u x e_k, e_k the axis least along u (exact components) */
        int k = 0;
        for (int c = 1; c < 3; c++)
            k = fabs(u[c]) < fabs(u[k]) ? c : k;
        q[1][(k + 1) % 3] = u[(k + 2) % 3];
        q[1][(k + 2) % 3] = -u[(k + 1) % 3];
    }
    len = ac_length(q[1], 3);
    for (int c = 0; c < 3; c++)
        q[1][c] /= len;
    cross3(u, q[1], q[2]);
    return big;
}

/* The components (g_i . q[p]) of the dominant lever's terms g_i = axis[i] x u
   in the frame: 0 along q[0] = u, and the term `big` exactly |g| along q[1]
   and 0 along q[2], so that the frame holds the lever's stiff directions
   apart from its soft ones (a body that turns about one axis only). */
static void lever_in_frame(const lever *lv, double q[3][3], int big, double g[3][3])
{
    for (int i = 0; i < 3; i++) {
        double gi[3];
        cross3(lv->axis[i], lv->u, gi);
        g[i][0] = 0.0;
        g[i][1] = i == big ? ac_length(gi, 3) : dot(3, gi, q[1]);
        g[i][2] = i == big ? 0.0 : dot(3, gi, q[2]);
    }
}

/* Solves M x = y for a symmetric positive definite M given entry by entry:
   rows and columns scaled by powers of two so that the diagonal lies in
   [0.5, 2), LDL^T of that in doubles, the substitutions in wide numbers. A
   pivot that rounding took to 0 or below (M singular to working accuracy, a
   contact whose answer the rounding of its inputs decides) is kept at 2^-52
   of its diagonal entry, so the result stays finite. */
static void wide_solve(int dim, wide M[3][3], const wide *y, wide *x)
{
    double A[3][3], L[3][3] = {{0.0}}, D[3];
    wide z[3];
    int half[3];
    for (int i = 0; i < dim; i++)
        half[i] = M[i][i].e / 2 - (M[i][i].e % 2 < 0); /* rounded down */
    for (int i = 0; i < dim; i++)
        for (int j = 0; j < dim; j++)
            A[i][j] = wide_double(M[i][j], -half[i] - half[j]);
    ldl_factor(dim, A, 0x1p-52, L, D);
    for (int i = 0; i < dim; i++) {
        wide sum = wide_scale(y[i], -half[i]);
        for (int k = 0; k < i; k++)
            sum = wide_sub(sum, wide_mul(wide_of(L[i][k]), z[k]));
        z[i] = sum;
    }
    for (int i = dim - 1; i >= 0; i--) {
        wide sum = wide_div(z[i], wide_of(D[i]));
        for (int k = i + 1; k < dim; k++)
            sum = wide_sub(sum, wide_mul(wide_of(L[k][i]), x[k]));
        x[i] = sum;
    }
    for (int i = 0; i < dim; i++)
        x[i] = wide_scale(x[i], -half[i]);
}

static wide wide_dot(int dim, const wide *x, const double *y)
{
    wide sum = wide_of(0.0);
    for (int k = 0; k < dim; k++)
        sum = wide_add(sum, wide_mul(x[k], wide_of(y[k])));
    return sum;
}

/* The contact in the structured form, in the frame q: K = m I + R, R the
   levers' terms (R holds the dominant lever's structure exactly), vectors by
   their components along q. */
typedef struct structured {
    const lever *lv;
    wide K[3][3], R[3][3], m;
    double q[3][3], g[3][3]; /* g: lever_in_frame of the dominant lever (3-D) */
    int dim, dominant;
} structured;

/* M x for a symmetric wide M and a wide or double x (frame components) */
static void wide_apply(int dim, wide M[3][3], const wide *x, wide *out)
{
    for (int i = 0; i < dim; i++) {
        out[i] = wide_of(0.0);
        for (int k = 0; k < dim; k++)
            out[i] = wide_add(out[i], wide_mul(M[i][k], x[k]));
    }
}

static wide wide_dotw(int dim, const wide *x, const wide *y)
{
    wide sum = wide_of(0.0);
    for (int k = 0; k < dim; k++)
        sum = wide_add(sum, wide_mul(x[k], y[k]));
    return sum;
}

/* the tangential part x - n (n . x) / |n|^2 of x */
static void tangential(int dim, const double *n, const wide *x, wide *out)
{
    const wide along = wide_div(wide_dot(dim, x, n), wide_of(dot(dim, n, n)));
    for (int k = 0; k < dim; k++)
        out[k] = wide_sub(x[k], wide_mul(along, wide_of(n[k])));
}

/* |x| for wide components */
static wide wide_length(int dim, const wide *x) { return wide_sqrt(wide_dotw(dim, x, x)); }

/* What slip_direction's test reads, in the frame: K, P = I - n n^T / |n|^2,
   r = P w - dn n, a = n . K n and q = P R n. */
typedef struct slip_problem {
    const structured *st;
    const double *n;
    wide P[3][3], r[3], q[3], a;
    double mu, dn;
} slip_problem;

/* slip_direction's test at the resolvent parameter m: does the slip left
   after the Coulomb impulse still exceed it (the direction then turns
   further)? u receives the unit slip direction at m (kept where that is 0). */
static int slip_exceeds(const slip_problem *sp, wide m, wide u[3])
{
    wide M[3][3], z[3], v[3], len, den, rho;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            M[i][j] = wide_add(sp->st->K[i][j], wide_mul(m, sp->P[i][j]));
    wide_solve(3, M, sp->r, z);
    tangential(3, sp->n, z, v);
    len = wide_length(3, v);
    for (int k = 0; k < 3 && wide_positive(len); k++)
        u[k] = wide_div(v[k], len);
    den = wide_sub(sp->a, wide_mul(wide_of(sp->mu), wide_dotw(3, sp->q, u)));
    rho = wide_positive(den) ? wide_div(wide_of(sp->mu * sp->dn), den) : wide_of(0.0);
    return wide_positive(den) && wide_less(rho, len);
}

/* slip_direction's bisection in the structured form, all in the frame (n,
   w, t1 and the result d by their frame components): the friction direction
   d of a slipping 3-D contact, t1 the direction of the sticking impulse's
   tangential part. The direction of (S + m I)^-1 c in the tangent plane is
   that of P (K + m P)^-1 (P w - dn n), P = I - n n^T, and d is its opposite
   at the m where a |v| = mu (dn + q . v) (slip_direction's test): q = P R n
   (the inverse masses add nothing between n and a tangent). d is formed as
   -P z / |P z|, so that its component along a stiff axis in the tangent plane
   keeps its size, however small. m runs over exponents first: the root may
   lie far outside K's range (a huge friction coefficient and a tiny normal
   speed put it near |q . c| / dn), and 2^+-4400 around K's diagonal covers
   every ratio of doubles and their squares; then over the mantissa. */
static void slip_direction_structured(structured *st, const double *w, double dn,
                                      const double *n, double mu, const wide *t1, wide *d)
{
    slip_problem sp;
    wide rn[3], wt[3], c[3], t2[3], c0, c1, nn, nw[3], u[3];
    double t1d[3], t2d[3], mlo = 1.0, mhi = 2.0;
    const double n2 = dot(3, n, n);
    int lo, hi, emin = 100000, emax = -100000;
    sp.st = st, sp.n = n, sp.mu = mu, sp.dn = dn;
    for (int k = 0; k < 3; k++) {
        nw[k] = wide_of(n[k]);
        wt[k] = wide_of(w[k]);
        t1d[k] = wide_double(t1[k], 0);
        d[k] = u[k] = t1[k];
    }
    wide_apply(3, st->R, nw, rn);
    sp.a = wide_add(wide_mul(st->m, wide_of(n2)), wide_dot(3, rn, n));
    tangential(3, n, rn, sp.q);
    tangential(3, n, wt, wt);
    /* c = P w + q dn / a; both ends agree when c is along t1 (t2 = n x t1) */
    for (int k = 0; k < 3; k++)
        c[k] = wide_add(wt[k], wide_mul(sp.q[k], wide_div(wide_of(dn), sp.a)));
    cross3(n, t1d, t2d);
    for (int k = 0; k < 3; k++)
        t2[k] = wide_of(t2d[k]);
    c0 = wide_dotw(3, c, t1);
    c1 = wide_dotw(3, c, t2);
    if (!(c1.m != 0.0 && wide_less(wide_mul(wide_of(1e-15), wide_make(fabs(c0.m), c0.e)),
                                   wide_make(fabs(c1.m), c1.e))))
        return; /* the two ends agree */
    nn = wide_of(n2);
    for (int i = 0; i < 3; i++) {
        sp.r[i] = wide_sub(wt[i], wide_mul(wide_of(dn), nw[i]));
        for (int j = 0; j < 3; j++) { /* the diagonal of P as a sum of squares */
            double other = 0.0;
            for (int k = 0; k < 3; k++)
                other += k != i ? n[k] * n[k] : 0.0;
            sp.P[i][j] = i == j ? wide_div(wide_of(other), nn)
                                : wide_neg(wide_div(wide_of(n[i] * n[j]), nn));
        }
        emin = st->K[i][i].e < emin ? st->K[i][i].e : emin;
        emax = st->K[i][i].e > emax ? st->K[i][i].e : emax;
    }
    lo = emin - 4400;
    hi = emax + 4400;
    if (slip_exceeds(&sp, wide_make(1.0, lo), u) && !slip_exceeds(&sp, wide_make(1.0, hi), u)) {
        while (hi - lo > 1) { /* the exponent: the test holds at 2^lo, fails at 2^hi */
            const int mid = lo + (hi - lo) / 2;
            if (slip_exceeds(&sp, wide_make(1.0, mid), u))
                lo = mid;
            else
                hi = mid;
        }
        for (int step = 0; step < 64; step++) { /* then the mantissa */
            const double mid = 0.5 * (mlo + mhi);
            if (!(mid > mlo && mid < mhi))
                break;
            if (slip_exceeds(&sp, wide_make(mid, lo), u))
                mlo = mid;
            else
                mhi = mid;
        }
    }
    for (int k = 0; k < 3; k++)
        d[k] = wide_neg(u[k]);
}

/* i (r x j) for the impulse j = sum x_i q_i given in the frame: r = |r| u, so
   that the component along u (the dominant body's soft one) never enters; for
   the dominant lever in 3-D, sum along[k] axis[k] |r| (j . g_k) from its
   structure. */
static void turn_in_frame(const lever *lv, const structured *st, const wide *x, wide out[3])
{
    wide cr[3];
    if (st->dim == 3 && lv == &st->lv[st->dominant]) {
        for (int c = 0; c < 3; c++)
            out[c] = wide_of(0.0);
        for (int k = 0; k < 3; k++) {
            const wide along = wide_mul(wide_add(wide_mul(x[1], wide_of(st->g[k][1])),
                                                 wide_mul(x[2], wide_of(st->g[k][2]))),
                                        wide_mul(wide_of(lv->along[k]),
                                                 wide_mul(lv->inertia, lv->len)));
            for (int c = 0; c < 3; c++)
                out[c] = wide_add(out[c], wide_mul(along, wide_of(lv->axis[k][c])));
        }
        return;
    }
    for (int c = 0; c < 3; c++)
        cr[c] = wide_of(0.0);
    for (int i = 0; i < st->dim; i++) {
        double uq[3];
        cross3(lv->u, st->q[i], uq);
        for (int c = 0; c < 3; c++)
            cr[c] = wide_add(cr[c], wide_mul(x[i], wide_of(uq[c])));
    }
    for (int c = 0; c < 3; c++)
        cr[c] = wide_mul(cr[c], lv->len);
    lever_spin(lv, cr, out);
}

/* i (r x j) for the impulse j in world axes, from the arm as given */
static void turn_exact(const lever *lv, int dim, const wide *j, wide out[3])
{
    int top = -100000;
    double jd[3] = {0.0, 0.0, 0.0}, cr[3];
    wide crw[3];
    for (int c = 0; c < dim; c++)
        top = j[c].m != 0.0 && j[c].e > top ? j[c].e : top;
    for (int c = 0; c < dim; c++)
        jd[c] = wide_double(j[c], -top);
    cross_exact(lv->arm, jd, cr);
    for (int c = 0; c < 3; c++)
        crw[c] = wide_make(cr[c], top + lv->shift);
    lever_spin(lv, crw, out);
}

/* The impulse of an approaching contact (s < 0, normal impulse dn) in the
   structured form, as contact_impulse gives it: x its frame components, jn =
   j . n and jt' the frame components of j - jn n. Returns 1 when it was
   solved in the frame (always but for two bodies that cannot translate,
   whose frictionless impulse is along n: then x holds j in world axes). A
   slipping impulse jn (n + mu d) keeps its parts apart: d is perpendicular to
   n by construction, and the rounding of n . d times a huge mu would
   otherwise swamp jn. */
static int structured_impulse(structured *st, const lever lv[2], const double *w, double dn,
                              const double *n, double mu, wide *x, wide *jn, wide *jt)
{
    const int dim = st->dim;
    double nq[3] = {0.0, 0.0, 0.0}, wq[3] = {0.0, 0.0, 0.0};
    wide y[3], wt[3], rn[3], len, kn, coef, d[3];
    for (int c = 0; c < 3; c++)
        y[c] = wt[c] = rn[c] = wide_of(0.0);
    int dominant, big;
    for (int c = 0; c < 3; c++)
        jt[c] = x[c] = wide_of(0.0);
    if (!wide_positive(st->m)) { /* neither body translates: frictionless */
        kn = turning_mass(lv, n);
        coef = wide_positive(kn) ? wide_div(wide_of(dn), kn) : wide_of(0.0);
        for (int c = 0; c < dim; c++)
            x[c] = wide_mul(coef, wide_of(n[c]));
        *jn = wide_mul(coef, wide_of(dot(dim, n, n)));
        return 0;
    }
    dominant = st->dominant =
        wide_less(wide_mul(lv[0].inertia, wide_mul(lv[0].len, lv[0].len)),
                  wide_mul(lv[1].inertia, wide_mul(lv[1].len, lv[1].len)));
    big = frame_of(dim, &lv[dominant], st->q);
    if (dim == 3)
        lever_in_frame(&lv[dominant], st->q, big, st->g);
    for (int i = 0; i < dim; i++)
        for (int c = 0; c < dim; c++) {
            wide own = lever_term(&lv[dominant], st->q[i], st->q[c], 0);
            if (dim == 3) { /* the dominant lever's term from its structure */
                double sum = 0.0;
                for (int k = 0; k < 3; k++)
                    sum += lv[dominant].along[k] * st->g[k][i] * st->g[k][c];
                own = wide_mul(wide_mul(wide_of(sum), lv[dominant].inertia),
                               wide_mul(lv[dominant].len, lv[dominant].len));
            }
            st->R[i][c] = wide_add(own, lever_term(&lv[1 - dominant], st->q[i], st->q[c], 0));
            st->K[i][c] = wide_add(i == c ? st->m : wide_of(0.0), st->R[i][c]);
        }
    for (int i = 0; i < dim; i++) {
        nq[i] = dot(dim, st->q[i], n);
        wq[i] = dot(dim, st->q[i], w);
        wt[i] = wide_of(wq[i]);
    }
    /* sticks: K x = dn n - P w */
    tangential(dim, nq, wt, wt);
    for (int i = 0; i < dim; i++)
        y[i] = wide_sub(wide_mul(wide_of(dn), wide_of(nq[i])), wt[i]);
    wide_solve(dim, st->K, y, x);
    *jn = wide_dot(dim, x, nq);
    tangential(dim, nq, x, jt);
    len = wide_length(dim, jt);
    if (!wide_less(wide_mul(wide_of(mu), *jn), len))
        return 1;
    /* slips: j = coef (n + mu d), coef = dn / (n . K n + mu n . R d) */
    for (int c = 0; c < 3; c++)
        d[c] = c < dim ? wide_div(jt[c], len) : wide_of(0.0);
    if (dim == 3 && mu > 0.0) {
        const wide t1[3] = {d[0], d[1], d[2]};
        slip_direction_structured(st, wq, dn, nq, mu, t1, d);
    }
    {
        wide nw[3] = {wide_of(nq[0]), wide_of(nq[1]), wide_of(nq[2])};
        wide_apply(dim, st->R, nw, rn);
    }
    kn = wide_add(wide_mul(st->m, wide_of(dot(dim, nq, nq))), wide_dot(dim, rn, nq));
    if (mu > 0.0)
        kn = wide_add(kn, wide_mul(wide_of(mu), wide_dotw(dim, rn, d)));
    coef = wide_div(wide_of(dn), kn);
    *jn = wide_mul(coef, wide_of(dot(dim, nq, nq)));
    for (int c = 0; c < dim; c++) {
        jt[c] = wide_mul(wide_mul(coef, wide_of(mu)), d[c]);
        x[c] = wide_add(wide_mul(coef, wide_of(nq[c])), jt[c]);
    }
    return 1;
}

/* x + change 2^k, x = xs 2^k */
static double add_change(double x, double xs, wide change, int k)
{
    const double sum = x + wide_double(change, k);
    return ac_finite(sum) ? sum : ldexp(xs + wide_double(change, 0), k);
}

/* collide_one in the structured form (see above), velocities scaled as in
   collide_scaled; returns 1 when every result is representable, the impulse
   only when `impulse` is set (arms beyond the range are not: then the plain
   form's status and results). */
static int collide_structured(int dim, const rigid *a, const rigid *b, const double *n,
                              const double *p, double e, double mu, double threshold,
                              int impulse, double *va, double *wa, double *vb, double *wb,
                              double *jn_out, double *jt_out)
{
    const int da = dim == 2 ? 1 : 3;
    const rigid *bodies[2] = {a, b};
    lever lv[2];
    structured st;
    double v[2][3] = {{0.0}}, w[2][3] = {{0.0}}, r[2][3] = {{0.0}}, rel[3] = {0.0, 0.0, 0.0};
    double s = 0.0, n3[3] = {0.0, 0.0, 0.0};
    wide mass[2], j[3], x[3], turn[2][3], jn = wide_of(0.0), jt[3], jtq[3];
    int speed = 0, any = 0, ok = 1, k;
    memcpy(n3, n, (size_t)dim * sizeof(double));
    for (int q = 0; q < 2; q++) {
        const rigid *body = bodies[q];
        double arm = 0.0, spin = 0.0;
        for (int c = 0; c < dim; c++) {
            r[q][c] = p[c] - body->c[c];
            if (!ac_finite(r[q][c]))
                return dim == 3 ? collide_one(3, a, b, n, p, e, mu, threshold, va, wa, vb, wb,
                                              jn_out, jt_out)
                                : collide_one(2, a, b, n, p, e, mu, threshold, va, wa, vb, wb,
                                              jn_out, jt_out);
            arm = fabs(r[q][c]) > arm ? fabs(r[q][c]) : arm;
            raise_exponent(&speed, &any, fabs(body->v[c]), 0);
        }
        for (int c = 0; c < da; c++)
            spin = fabs(body->w[c]) > spin ? fabs(body->w[c]) : spin;
        if (arm > 0.0 && spin > 0.0)
            raise_exponent(&speed, &any, spin, ilogb(arm) + 1);
        lever_init(dim, body, r[q], &lv[q]);
        mass[q] = wide_of(body->inverse_mass);
    }
    k = any ? speed : 0;
    for (int q = 0; q < 2; q++) { /* the contact-point velocities, scaled by 2^-k */
        double spin[3];
        for (int c = 0; c < dim; c++)
            v[q][c] = ldexp(bodies[q]->v[c], -k);
        for (int c = 0; c < da; c++)
            w[q][c] = ldexp(bodies[q]->w[c], -k);
        spin_velocity(dim, w[q], r[q], spin);
        for (int c = 0; c < dim; c++)
            rel[c] += q == 0 ? v[q][c] + spin[c] : -(v[q][c] + spin[c]);
    }
    for (int c = 0; c < dim; c++)
        s += rel[c] * n[c];
    for (int c = 0; c < 3; c++)
        j[c] = jt[c] = turn[0][c] = turn[1][c] = wide_of(0.0);
    st.lv = lv;
    st.dim = dim;
    st.m = wide_add(mass[0], mass[1]);
    if (s < 0.0) {
        const double dn = normal_impulse(s, e, ldexp(threshold, -k));
        const int framed = structured_impulse(&st, lv, rel, dn, n3, mu, x, &jn, jtq);
        for (int c = 0; c < 3; c++) { /* world axes */
            j[c] = framed ? wide_of(0.0) : x[c];
            for (int i = 0; i < dim && framed; i++) {
                j[c] = wide_add(j[c], wide_mul(x[i], wide_of(st.q[i][c])));
                jt[c] = wide_add(jt[c], wide_mul(jtq[i], wide_of(st.q[i][c])));
            }
        }
        for (int q = 0; q < 2; q++)
            if (wide_positive(lv[q].inertia)) {
                if (framed)
                    turn_in_frame(&lv[q], &st, x, turn[q]);
                else
                    turn_exact(&lv[q], dim, j, turn[q]);
            }
    }
    /* the changes added to the inputs as given (a tiny component next to a
       huge one is kept), or where that overflows, in the scaled units */
    for (int c = 0; c < dim; c++) {
        va[c] = add_change(a->v[c], v[0][c], wide_mul(mass[0], j[c]), k);
        vb[c] = add_change(b->v[c], v[1][c], wide_neg(wide_mul(mass[1], j[c])), k);
        jt_out[c] = wide_double(jt[c], k);
        ok &= ac_finite(va[c]) & ac_finite(vb[c]) & ((impulse == 0) | ac_finite(jt_out[c]));
    }
    for (int c = 0; c < da; c++) {
        const int axis = dim == 2 ? 2 : c;
        wa[c] = add_change(a->w[c], w[0][c], turn[0][axis], k);
        wb[c] = add_change(b->w[c], w[1][c], wide_neg(turn[1][axis]), k);
        ok &= ac_finite(wa[c]) & ac_finite(wb[c]);
    }
    *jn_out = wide_double(jn, k);
    return ok & ((impulse == 0) | ac_finite(*jn_out));
}

/* Inverse inertia tensors: finite, symmetric within 1e-12 of the largest
   diagonal entry, and positive semi-definite (every principal minor of the
   tensor scaled by that entry >= -1e-12). */
static ac_status check_tensor(ac_arg arg, const double *t, size_t i, ac_error *err)
{
    double scale = 0.0, q[9], minor[7];
    ac_status st;
    if ((st = ac_check_finite(arg, t, 9, i, err)))
        return st;
    for (int k = 0; k < 3; k++) {
        if (!(t[4 * k] >= 0.0))
            return ac_fail(err, AC_ERR_VALUE, i, arg, t[4 * k],
                           "is a diagonal entry: must be >= 0 (positive semi-definite)");
        scale = t[4 * k] > scale ? t[4 * k] : scale;
    }
    for (int r = 0; r < 3; r++)
        for (int c = r + 1; c < 3; c++)
            if (!(fabs(t[3 * r + c] - t[3 * c + r]) <= 1e-12 * scale) &&
                t[3 * r + c] != t[3 * c + r])
                return ac_fail(err, AC_ERR_VALUE, i, arg, t[3 * r + c] - t[3 * c + r],
                               "is T[%d][%d] - T[%d][%d]: the tensor must be symmetric", r, c,
                               c, r);
    if (scale == 0.0) { /* a zero diagonal: positive semi-definite only if all zero */
        for (int k = 0; k < 9; k++)
            if (t[k] != 0.0)
                return ac_fail(err, AC_ERR_VALUE, i, arg, t[k],
                               "is off the zero diagonal: must be 0 (positive semi-definite)");
        return AC_OK;
    }
    for (int k = 0; k < 9; k++)
        q[k] = t[k] / scale;
    minor[0] = q[0] * q[4] - q[1] * q[3];
    minor[1] = q[0] * q[8] - q[2] * q[6];
    minor[2] = q[4] * q[8] - q[5] * q[7];
    minor[3] = q[0] * (q[4] * q[8] - q[5] * q[7]) - q[1] * (q[3] * q[8] - q[5] * q[6]) +
               q[2] * (q[3] * q[7] - q[4] * q[6]);
    for (int k = 0; k < 4; k++)
        if (!(minor[k] >= -1e-12))
            return ac_fail(err, AC_ERR_VALUE, i, arg, minor[k],
                           "is a principal minor over the largest diagonal entry: must be "
                           ">= 0 (positive semi-definite)");
    return AC_OK;
}

/* Reads and checks body `b` of contact i. */
static ac_status load_rigid(const ac_arg names[5], int dim, const ac_body *body,
                            size_t i, rigid *r, ac_error *err)
{
    const size_t d = (size_t)dim, da = dim == 2 ? 1 : 3, di = body->inertia_tensor ? 9 : 1;
    ac_status st;
    r->v = body->velocity + i * body->steps[0] * d;
    r->w = body->angular_velocity + i * body->steps[1] * da;
    r->inverse_mass = body->inverse_mass[i * body->steps[2]];
    r->inertia = body->inverse_inertia + i * body->steps[3] * di;
    r->c = body->center + i * body->steps[4] * d;
    r->tensor = body->inertia_tensor != 0;
    if (!r->tensor) { /* the common case, checked without branches first */
        int ok = (r->inverse_mass >= 0.0) & (r->inverse_mass <= DBL_MAX) &
                 (r->inertia[0] >= 0.0) & (r->inertia[0] <= DBL_MAX);
        for (int k = 0; k < dim; k++)
            ok &= ac_finite(r->v[k]) & ac_finite(r->c[k]);
        for (size_t k = 0; k < da; k++)
            ok &= ac_finite(r->w[k]);
        if (ok)
            return AC_OK;
    }
    if ((st = check_vector(names[0], dim, r->v, i, err)) ||
        (st = check_vector(names[1], (int)da, r->w, i, err)) ||
        (st = check_range(names[2], r->inverse_mass, DBL_MAX, i, err)) ||
        (st = r->tensor ? check_tensor(names[3], r->inertia, i, err)
                        : check_range(names[3], r->inertia[0], DBL_MAX, i, err)) ||
        (st = check_vector(names[4], dim, r->c, i, err)))
        return st;
    return AC_OK;
}

ac_status ac_contact_collide(const ac_body *a, const ac_body *b, const double *normal,
                             const double *point, const double *restitution,
                             const double *friction, const double *threshold,
                             const size_t steps[5], size_t dim, ac_body_update *new_a,
                             ac_body_update *new_b, double *normal_impulse,
                             double *tangent_impulse, size_t n, ac_error *err)
{
    static const ac_arg names_a[5] = {AC_ARG_A_VELOCITY, AC_ARG_A_ANGULAR_VELOCITY,
                                      AC_ARG_A_INVERSE_MASS, AC_ARG_A_INVERSE_INERTIA,
                                      AC_ARG_A_CENTER};
    static const ac_arg names_b[5] = {AC_ARG_B_VELOCITY, AC_ARG_B_ANGULAR_VELOCITY,
                                      AC_ARG_B_INVERSE_MASS, AC_ARG_B_INVERSE_INERTIA,
                                      AC_ARG_B_CENTER};
    const size_t *s = steps ? steps : all_arrays;
    const size_t d = dim, da = dim == 2 ? 1 : 3;
    const int id = (int)dim;
    ac_status st;
    if ((st = check_dim(dim, err)))
        return st;
    if (dim == 2 && (a->inertia_tensor || b->inertia_tensor))
        return ac_fail(err, AC_ERR_VALUE, 0, a->inertia_tensor ? names_a[3] : names_b[3],
                       9.0, "values per body: must be 1 in 2-D");
    for (size_t i = 0; i < n; i++) {
        rigid ra, rb;
        const double *ni = normal + i * s[0] * d, *pi = point + i * s[1] * d;
        double e = restitution[i * s[2]], mu = friction[i * s[3]], th = threshold[i * s[4]];
        double *va = new_a->velocity + i * d, *wa = new_a->angular_velocity + i * da;
        double *vb = new_b->velocity + i * d, *wb = new_b->angular_velocity + i * da;
        double *jt = tangent_impulse + i * d;
        int fine = (e >= 0.0) & (e <= 1.0) & (mu >= 0.0) & (mu <= DBL_MAX) & (th >= 0.0) &
                   (th <= DBL_MAX) & (fabs(dot(id, ni, ni) - 1.0) <= UNIT_TOLERANCE);
        for (int k = 0; k < id; k++)
            fine &= ac_finite(pi[k]);
        if ((st = load_rigid(names_a, id, a, i, &ra, err)) ||
            (st = load_rigid(names_b, id, b, i, &rb, err)))
            return st;
        if (!fine &&
            ((st = check_vector(AC_ARG_NORMAL, id, ni, i, err)) ||
            (st = check_vector(AC_ARG_POINT, id, pi, i, err)) ||
            (st = check_range(AC_ARG_RESTITUTION, e, 1.0, i, err)) ||
            (st = check_unit(AC_ARG_NORMAL_LENGTH2, id, ni, i, err)) ||
            (st = check_range(AC_ARG_FRICTION, mu, DBL_MAX, i, err)) ||
            (st = check_range(AC_ARG_THRESHOLD, th, DBL_MAX, i, err))))
            return st;
        /* constant dimensions: straight code, and bounds the compiler can see */
        if (!(contact_ordinary(id, &ra, &rb, pi) &&
              (id == 3 ? collide_one(3, &ra, &rb, ni, pi, e, mu, th, va, wa, vb, wb,
                                     normal_impulse + i, jt)
                       : collide_one(2, &ra, &rb, ni, pi, e, mu, th, va, wa, vb, wb,
                                     normal_impulse + i, jt))) &&
            !collide_scaled(id, &ra, &rb, ni, pi, e, mu, th, 1, va, wa, vb, wb,
                            normal_impulse + i, jt) &&
            !collide_structured(id, &ra, &rb, ni, pi, e, mu, th, 1, va, wa, vb, wb,
                                normal_impulse + i, jt)) {
            static const ac_arg outputs[6] = {
                AC_ARG_VELOCITY_A, AC_ARG_ANGULAR_VELOCITY_A, AC_ARG_VELOCITY_B,
                AC_ARG_ANGULAR_VELOCITY_B, AC_ARG_NORMAL_IMPULSE, AC_ARG_TANGENT_IMPULSE};
            const double *results[6] = {va, wa, vb, wb, normal_impulse + i, jt};
            const size_t widths[6] = {d, da, d, da, 1, d};
            for (int r = 0; r < 6; r++)
                for (size_t k = 0; k < widths[r]; k++)
                    if (!ac_finite(results[r][k]))
                        return ac_fail(err, AC_ERR_OVERFLOW, i, outputs[r], results[r][k],
                                       "is not representable although the inputs are finite");
            return ac_fail(err, AC_ERR_OVERFLOW, i, AC_ARG_CONTACT_VELOCITY,
                           HUGE_VAL, "is not representable although the inputs are finite");
        }
    }
    return AC_OK;
}

/* ------------------------------------------------- continuous stepping */

/* Relative normal speeds at or above -this (times |v| + |u|) are rounding,
   not approach: a sphere sliding along a plane, or just bounced off it with
   e = 0, must not collide with it again. */
#define APPROACH_ROUNDING (8.0 * DBL_EPSILON)

static ac_status check_planes(const ac_planes *pl, ac_error *err)
{
    const int dim = (int)pl->dim;
    for (size_t j = 0; j < pl->count; j++) {
        ac_status st;
        if ((st = check_vector(AC_ARG_PLANE_POINT, dim, pl->point + j * pl->dim, j, err)) ||
            (st = check_vector(AC_ARG_PLANE_NORMAL, dim, pl->normal + j * pl->dim, j, err)) ||
            (st = check_unit(AC_ARG_PLANE_NORMAL_LENGTH2, dim, pl->normal + j * pl->dim, j,
                             err)) ||
            (st = check_vector(AC_ARG_PLANE_VELOCITY, dim, pl->velocity + j * pl->dim, j, err)))
            return st;
    }
    return AC_OK;
}

/* restitution in [0, 1] or friction >= 0 for the (sphere, plane) pairs of
   sphere i (the same values for every sphere when steps[0] is 0); the index
   reported is i * m + j. */
static ac_status check_pair_row(ac_arg arg, const double *x, const size_t steps[2],
                                double hi, size_t i, size_t m, ac_error *err)
{
    for (size_t j = 0; j < (steps[1] ? m : (m > 0)); j++) {
        ac_status st = check_range(arg, x[i * steps[0] + j * steps[1]], hi, i * m + j, err);
        if (st)
            return st;
    }
    return AC_OK;
}

/* The same for every pair the steps make distinct. */
static ac_status check_pairs(ac_arg arg, const double *x, const size_t steps[2],
                             double hi, size_t n, size_t m, ac_error *err)
{
    for (size_t i = 0; i < (steps[0] ? n : (n > 0)); i++) {
        ac_status st = check_pair_row(arg, x, steps, hi, i, m, err);
        if (st)
            return st;
    }
    return AC_OK;
}

/* True when every position and velocity component is finite and every
   radius and dt is finite and >= 0: a branch-free scan, so that only invalid
   input pays for the element-by-element diagnosis. */
AC_VECTORIZED
static int spheres_valid(const double *position, const double *velocity, size_t dim,
                         const ac_projectile_params *pr, size_t n)
{
    const double *r = pr->radius, *dt = pr->dt;
    size_t nr = pr->radius_step ? n : (n > 0), ndt = pr->dt_step ? n : (n > 0);
    int64_t bad = 0;
    for (size_t j = 0; j < n * dim; j++)
        bad |= (int64_t)(ac_finite(position[j]) & ac_finite(velocity[j])) ^ 1;
    for (size_t i = 0; i < nr; i++)
        bad |= (int64_t)((r[i] >= 0.0) & (r[i] <= DBL_MAX)) ^ 1;
    for (size_t i = 0; i < ndt; i++)
        bad |= (int64_t)((dt[i] >= 0.0) & (dt[i] <= DBL_MAX)) ^ 1;
    return !bad;
}

/* Angular velocities finite, inverse inertia finite and >= 0. */
static ac_status check_spin(const ac_projectile_spin *spin, size_t dim, size_t n, ac_error *err)
{
    const size_t da = dim == 2 ? 1 : 3;
    ac_status st;
    for (size_t i = 0; i < n; i++)
        if ((st = ac_check_finite(AC_ARG_ANGULAR_VELOCITY, spin->angular_velocity + i * da, da, i,
                                  err)) ||
            (st = check_range(AC_ARG_INVERSE_INERTIA,
                              spin->inverse_inertia[i * spin->inverse_inertia_step], DBL_MAX, i,
                              err)))
            return st;
    return AC_OK;
}

/* The spheres' own values, their (sphere, plane) parameters and their spin:
   a scan of each kind first, and when one fails, sphere by sphere in that
   order, so that the failure reported is the first bad sphere's whatever
   the split of the spheres into calls. */
static ac_status check_spheres(const double *position, const double *velocity,
                               const ac_planes *pl, const ac_projectile_params *pr,
                               const ac_projectile_spin *spin, size_t n, ac_error *err)
{
    const int dim = (int)pl->dim;
    const size_t m = pl->count, da = dim == 2 ? 1 : 3;
    ac_status st;
    if (spheres_valid(position, velocity, pl->dim, pr, n) &&
        !check_pairs(AC_ARG_RESTITUTION, pr->restitution, pr->restitution_steps, 1.0, n, m,
                     err) &&
        !check_pairs(AC_ARG_FRICTION, pr->friction, pr->friction_steps, DBL_MAX, n, m, err) &&
        !(spin && check_spin(spin, pl->dim, n, err)))
        return AC_OK;
    for (size_t i = 0; i < n; i++) {
        double r = pr->radius[i * pr->radius_step], dt = pr->dt[i * pr->dt_step];
        if ((st = check_vector(AC_ARG_POSITION, dim, position + i * pl->dim, i, err)) ||
            (st = check_vector(AC_ARG_VELOCITY, dim, velocity + i * pl->dim, i, err)) ||
            (st = check_range(AC_ARG_RADIUS, r, DBL_MAX, i, err)) ||
            (st = check_range(AC_ARG_DT, dt, DBL_MAX, i, err)) ||
            (st = check_pair_row(AC_ARG_RESTITUTION, pr->restitution, pr->restitution_steps,
                                 1.0, i, m, err)) ||
            (st = check_pair_row(AC_ARG_FRICTION, pr->friction, pr->friction_steps, DBL_MAX, i,
                                 m, err)))
            return st;
        if (spin && ((st = ac_check_finite(AC_ARG_ANGULAR_VELOCITY,
                                           spin->angular_velocity + i * da, da, i, err)) ||
                     (st = check_range(AC_ARG_INVERSE_INERTIA,
                                       spin->inverse_inertia[i * spin->inverse_inertia_step],
                                       DBL_MAX, i, err))))
            return st;
    }
    return AC_OK; /* not reached: a scan failed, so some sphere does */
}

/* Spheres are stepped in blocks of LANES, stored lane-major (one array per
   component), so that the search for the earliest impact runs over many
   spheres at once for each plane and vectorizes. Spheres whose step is done
   leave the block; the others are packed down after every pass and the next
   spheres take the free lanes. */
enum { LANES = 128 };

/* The planes laid out plane-major (one array per component), and the
   starting side of every (plane, lane) pair. Owned by one
   ac_contact_advance call. */
typedef struct plane_scratch {
    size_t m;
    double *point[3], *normal[3]; /* point[k][j]: component k of plane j */
    double *normal_speed;         /* plane velocity . normal */
    double *speed;                /* |plane velocity|_1, the rounding scale of s */
    uint64_t *front;              /* bit j % 64 of front[j / 64 * LANES + i]: lane i's
                                     center started in front of plane j */
    size_t words;                 /* words of front per lane: (m + 63) / 64 */
} plane_scratch;

typedef struct sphere_block {
    double p[3][LANES], v[3][LANES], w[3][LANES]; /* w: angular velocity, with spin */
    double t[LANES], r[LANES], dt[LANES], best[LANES];
    int64_t hit[LANES], bad[LANES];
    size_t index[LANES];
    int count[LANES];
    const ac_projectile_spin *spin;     /* NULL: point masses */
    const ac_projectile_events *events; /* NULL: not recorded */
} sphere_block;

static ac_status scratch_init(plane_scratch *ps, const ac_planes *pl, ac_error *err)
{
    const size_t m = pl->count, d = pl->dim, words = (m + 63) / 64;
    /* zeroed: block_pass reads front past the active lanes */
    double *block = calloc((2 * d + 2) * m + words * LANES + 1, sizeof(double));
    if (!block)
        return ac_fail(err, AC_ERR_NOMEM, 0, AC_ARG_PLANE_POINT, (double)m,
                       "planes: scratch could not be allocated");
    ps->m = m;
    for (size_t k = 0; k < 3; k++) {
        ps->point[k] = block + (k < d ? k : 0) * m;
        ps->normal[k] = block + (d + (k < d ? k : 0)) * m;
    }
    ps->normal_speed = block + 2 * d * m;
    ps->speed = ps->normal_speed + m;
    ps->front = (uint64_t *)(ps->speed + m); /* same size as double */
    ps->words = words;
    for (size_t j = 0; j < m; j++) {
        ps->normal_speed[j] = ps->speed[j] = 0.0;
        for (size_t k = 0; k < d; k++) {
            double u = pl->velocity[j * d + k];
            ps->point[k][j] = pl->point[j * d + k];
            ps->normal[k][j] = pl->normal[j * d + k];
            ps->normal_speed[j] += u * pl->normal[j * d + k];
            ps->speed[j] += fabs(u);
        }
    }
    return AC_OK;
}

/* Fills lanes [lane, lane + count) with spheres first, first + 1, ... and
   records which planes each center starts in front of (signed distance >= 0). */
CONTACT_INLINE void block_load(int dim, sphere_block *b, const plane_scratch *ps,
                               const ac_projectile_params *pr, const double *position,
                               const double *velocity, size_t first, size_t lane,
                               size_t count)
{
    const size_t d = (size_t)dim, end = lane + count;
    for (size_t i = lane; i < end; i++) {
        size_t s = first + i - lane;
        for (int k = 0; k < dim; k++) {
            b->p[k][i] = position[s * d + (size_t)k];
            b->v[k][i] = velocity[s * d + (size_t)k];
        }
        if (b->spin)
            for (int k = 0; k < (dim == 2 ? 1 : 3); k++)
                b->w[k][i] = b->spin->angular_velocity[s * (dim == 2 ? 1 : 3) + (size_t)k];
        b->t[i] = 0.0;
        b->r[i] = pr->radius[s * pr->radius_step];
        b->dt[i] = pr->dt[s * pr->dt_step];
        b->bad[i] = 0;
        b->count[i] = 0;
        b->index[i] = s;
    }
    for (size_t w = 0; w < ps->words; w++)
        for (size_t i = lane; i < end; i++)
            ps->front[w * LANES + i] = 0;
    for (size_t j = 0; j < ps->m; j++) {
        const double qx = ps->point[0][j], qy = ps->point[1][j], qz = ps->point[2][j];
        const double nx = ps->normal[0][j], ny = ps->normal[1][j], nz = ps->normal[2][j];
        uint64_t *restrict front = ps->front + j / 64 * LANES;
        int64_t *restrict bad = b->bad;
        for (size_t i = lane; i < end; i++) {
            double d0 = (b->p[0][i] - qx) * nx + (b->p[1][i] - qy) * ny;
            if (dim == 3)
                d0 = (b->p[0][i] - qx) * nx + (b->p[1][i] - qy) * ny + (b->p[2][i] - qz) * nz;
            front[i] |= (uint64_t)(d0 >= 0.0) << (j % 64);
            bad[i] |= (int64_t)!ac_finite(d0);
        }
    }
}

/* Signed distance from plane j of lane i's center at its time t[i]. */
CONTACT_INLINE double lane_distance(int dim, const double *const p[3], const double *t,
                                    size_t i, const plane_scratch *ps, size_t j)
{
    const double qx = ps->point[0][j], qy = ps->point[1][j], qz = ps->point[2][j];
    const double nx = ps->normal[0][j], ny = ps->normal[1][j], nz = ps->normal[2][j];
    if (dim == 3)
        return (p[0][i] - qx) * nx + (p[1][i] - qy) * ny + (p[2][i] - qz) * nz -
               t[i] * ps->normal_speed[j];
    return (p[0][i] - qx) * nx + (p[1][i] - qy) * ny - t[i] * ps->normal_speed[j];
}

/* Normal speed of lane i relative to plane j. */
CONTACT_INLINE double lane_speed(int dim, const double *const v[3], size_t i,
                                 const plane_scratch *ps, size_t j)
{
    const double nx = ps->normal[0][j], ny = ps->normal[1][j], nz = ps->normal[2][j];
    if (dim == 3)
        return v[0][i] * nx + v[1][i] * ny + v[2][i] * nz - ps->normal_speed[j];
    return v[0][i] * nx + v[1][i] * ny - ps->normal_speed[j];
}

/* Flags the lanes [0, count) whose distance from a plane or normal speed
   relative to it is not representable. Run only when block_pass saw one. */
static void block_flag(int dim, sphere_block *b, const plane_scratch *ps, size_t count)
{
    const double *const p[3] = {b->p[0], b->p[1], b->p[2]};
    const double *const v[3] = {b->v[0], b->v[1], b->v[2]};
    for (size_t j = 0; j < ps->m; j++)
        for (size_t i = 0; i < count; i++)
            b->bad[i] |= (int64_t)(ac_finite(lane_distance(dim, p, b->t, i, ps, j)) &
                                   ac_finite(lane_speed(dim, v, i, ps, j))) ^ 1;
}

/* x when cond holds, else y: an integer select, which GCC turns into a blend. */
CONTACT_INLINE double select_if(int64_t cond, double x, double y)
{
    union { double d; uint64_t u; } a, c;
    a.d = x;
    c.d = y;
    a.u = cond ? a.u : c.u;
    return a.d;
}

/* The next double above x >= 0 (inf above DBL_MAX): toi < next_up(dt) is
   toi <= dt. */
CONTACT_INLINE double next_up(double x)
{
    union { double d; uint64_t u; } bits;
    bits.d = x + 0.0; /* -0 becomes +0 */
    bits.u += 1;
    return bits.d;
}

/* The search of block_pass against plane j; returns 1 when a distance or
   relative speed is not representable in some lane. `moving` is a constant
   at each call: 0 drops the plane-velocity terms. */
CONTACT_INLINE int64_t plane_pass(int dim, int moving, sphere_block *b, const plane_scratch *ps,
                                  size_t j, const double *restrict vabs,
                                  const double *restrict limit, size_t padded)
{
    double *restrict best = b->best;
    int64_t *restrict hit = b->hit;
    uint64_t nonfinite = 0;
    const double *restrict px = b->p[0], *restrict py = b->p[1], *restrict pz = b->p[2];
    const double *restrict vx = b->v[0], *restrict vy = b->v[1], *restrict vz = b->v[2];
    const double *restrict t = b->t, *restrict r = b->r;
    const uint64_t *restrict front = ps->front + j / 64 * LANES, bit = (uint64_t)1 << (j % 64);
    const double qx = ps->point[0][j], qy = ps->point[1][j], qz = ps->point[2][j];
    const double nx = ps->normal[0][j], ny = ps->normal[1][j], nz = ps->normal[2][j];
    const double un = ps->normal_speed[j], speed = ps->speed[j];
    for (size_t i = 0; i < padded; i++) {
        double dist = (px[i] - qx) * nx + (py[i] - qy) * ny, sj = vx[i] * nx + vy[i] * ny;
        double toi, approach;
        union { double d; uint64_t u; } check;
        int64_t take;
        if (dim == 3) {
            dist = (px[i] - qx) * nx + (py[i] - qy) * ny + (pz[i] - qz) * nz;
            sj = vx[i] * nx + vy[i] * ny + vz[i] * nz;
        }
        approach = limit[i];
        if (moving) {
            dist = dist - t[i] * un;
            sj = sj - un;
            approach = -APPROACH_ROUNDING * (vabs[i] + speed);
        }
        /* x - x is +0 for finite x and NaN otherwise: the bits stay 0 while
           dist and sj are finite */
        check.d = (dist - dist) + (sj - sj);
        nonfinite |= check.u;
        toi = t[i] + keep_if(dist > r[i], (dist - r[i]) / -sj);
        take = ((front[i] & bit) != 0) & (sj < approach) & (toi < best[i]);
        best[i] = select_if(take, toi, best[i]);
        hit[i] = take ? (int64_t)j : hit[i];
    }
    return nonfinite != 0;
}

/* For lanes [0, count): the earliest impact best[i] in [t, dt] with a plane
   the sphere approaches (relative normal speed below -rounding) and started
   in front of, and its plane hit[i] (the first among equal times; m for
   none, and then best[i] is not a time), and bad[i] set when a distance or
   speed is not representable. A sphere touching or penetrating such a plane
   hits it at t; otherwise when its distance reaches its radius. Branch-free.
   The loops run on to a multiple of 4 lanes, so that they need no scalar
   remainder: the lanes past count hold finished spheres' (or zeroed) data,
   and what is computed for them is never read. */
CONTACT_INLINE void block_pass(int dim, sphere_block *b, const plane_scratch *ps,
                               size_t count)
{
    double vabs[LANES], limit[LANES];
    const size_t padded = (count + 3) & ~(size_t)3;
    int64_t nonfinite = 0;
    for (size_t i = 0; i < padded; i++) {
        vabs[i] = fabs(b->v[0][i]) + fabs(b->v[1][i]);
        if (dim == 3)
            vabs[i] = fabs(b->v[0][i]) + fabs(b->v[1][i]) + fabs(b->v[2][i]);
        limit[i] = -APPROACH_ROUNDING * vabs[i]; /* for a plane at rest */
        b->best[i] = next_up(b->dt[i]); /* toi < best: toi <= dt and earlier */
        b->hit[i] = (int64_t)ps->m;
    }
    /* A plane at rest (speed 0, so normal speed +-0) drops the terms in its
       velocity: subtracting +-0 changes only the sign of a zero, which no
       comparison below sees, and vabs + 0 is vabs. */
    for (size_t j = 0; j < ps->m; j++)
        nonfinite |= ps->speed[j] != 0.0
                         ? plane_pass(dim, 1, b, ps, j, vabs, limit, padded)
                         : plane_pass(dim, 0, b, ps, j, vabs, limit, padded);
    if (nonfinite) /* in some lane, maybe one past count: find which */
        block_flag(dim, b, ps, count);
}

/* The contact of lane i with plane hit[i] for spinning spheres or recorded
   events: collide's law with the sphere as a (unit inverse mass, its inverse
   inertia per unit inverse mass, the arm -radius * normal) and the plane as a
   kinematic body, so a point mass (no spin) gets bounce's result. */
static void lane_contact(int dim, sphere_block *b, size_t i, const ac_planes *pl,
                         const ac_projectile_params *pr)
{
    const size_t d = (size_t)dim, hit = (size_t)b->hit[i], s = b->index[i];
    const double *n = pl->normal + hit * d, zero[3] = {0.0, 0.0, 0.0};
    const double e = pr->restitution[s * pr->restitution_steps[0] + hit * pr->restitution_steps[1]];
    const double mu = pr->friction[s * pr->friction_steps[0] + hit * pr->friction_steps[1]];
    double v[3], w[3] = {0.0, 0.0, 0.0}, c[3], point[3], va[3], wa[3], vb[3], wb[3], jn, jt[3];
    double inertia = b->spin ? b->spin->inverse_inertia[s * b->spin->inverse_inertia_step] : 0.0;
    rigid sphere, plane;
    int ok;
    for (int k = 0; k < dim; k++) {
        v[k] = b->v[k][i];
        c[k] = b->p[k][i];
        point[k] = c[k] - b->r[i] * n[k];
    }
    for (int k = 0; b->spin && k < (dim == 2 ? 1 : 3); k++)
        w[k] = b->w[k][i];
    sphere.v = v, sphere.w = w, sphere.c = c, sphere.inertia = &inertia;
    sphere.inverse_mass = 1.0, sphere.tensor = 0;
    plane.v = pl->velocity + hit * d, plane.w = zero, plane.c = point, plane.inertia = zero;
    plane.inverse_mass = 0.0, plane.tensor = 0;
    ok = contact_ordinary(dim, &sphere, &plane, point) &&
         (dim == 3 ? collide_one(3, &sphere, &plane, n, point, e, mu, 0.0, va, wa, vb, wb, &jn, jt)
                   : collide_one(2, &sphere, &plane, n, point, e, mu, 0.0, va, wa, vb, wb, &jn,
                                 jt));
    if (!ok) /* the impulse only for the events */
        ok = collide_scaled(dim, &sphere, &plane, n, point, e, mu, 0.0, b->events != NULL, va,
                            wa, vb, wb, &jn, jt) ||
             collide_structured(dim, &sphere, &plane, n, point, e, mu, 0.0, b->events != NULL,
                                va, wa, vb, wb, &jn, jt);
    b->bad[i] |= (int64_t)!ok;
    for (int k = 0; k < dim; k++)
        b->v[k][i] = va[k];
    if (b->spin)
        for (int k = 0; k < (dim == 2 ? 1 : 3); k++)
            b->w[k][i] = wa[k];
    if (b->events && (size_t)b->count[i] < b->events->capacity) {
        const size_t slot = s * b->events->capacity + (size_t)b->count[i];
        b->events->plane[slot] = (int)hit;
        b->events->time[slot] = b->t[i];
        b->events->normal_impulse[slot] = jn;
        for (int k = 0; k < dim; k++)
            b->events->tangent_impulse[slot * d + (size_t)k] = jt[k];
    }
}

/* Moves lane i to its impact and bounces it, or to the end of its step.
   Returns 1 while the sphere has more of its step to go. */
CONTACT_INLINE int lane_resolve(int dim, sphere_block *b, size_t i, const ac_planes *pl,
                                const ac_projectile_params *pr)
{
    const size_t d = (size_t)dim, m = pl->count, hit = (size_t)b->hit[i], s = b->index[i];
    const double t = b->t[i], dt = b->dt[i], best = b->best[i];
    if (b->bad[i])
        return 0;
    if (hit == m) { /* no more contacts: fly to the end of the step */
        for (int k = 0; k < dim; k++)
            b->p[k][i] += b->v[k][i] * (dt - t);
        return 0;
    }
    for (int k = 0; k < dim; k++)
        b->p[k][i] += b->v[k][i] * (best - t);
    b->t[i] = best;
    if (b->count[i] >= pr->max_bounces) { /* out of bounces: ride the surface */
        for (int k = 0; k < dim; k++)
            b->p[k][i] += pl->velocity[hit * d + (size_t)k] * (dt - best);
        return 0;
    }
    if (b->spin || b->events)
        lane_contact(dim, b, i, pl, pr);
    else {
        double v[3], out[3], sp;
        for (int k = 0; k < dim; k++)
            v[k] = b->v[k][i];
        const double *u = pl->velocity + hit * d, *n = pl->normal + hit * d;
        const double e = pr->restitution[s * pr->restitution_steps[0] +
                                         hit * pr->restitution_steps[1]];
        const double mu = pr->friction[s * pr->friction_steps[0] + hit * pr->friction_steps[1]];
        if (!bounce_one(dim, 0, 1, v, u, n, e, mu, 0.0, out, &sp))
            b->bad[i] |= (int64_t)bounce_scaled(dim, v, u, n, e, mu, 0.0, out) ^ 1;
        for (int k = 0; k < dim; k++)
            b->v[k][i] = out[k];
    }
    b->count[i]++;
    return !b->bad[i];
}

/* All spheres through one block of lanes: after every pass, the spheres
   whose step is done are written back, the others packed down, and the free
   lanes refilled with the next spheres, so that passes run over full blocks
   until the last spheres. Returns the index of the first sphere whose step
   overflowed, or n. */
CONTACT_INLINE size_t advance_dim(int dim, double *position, double *velocity,
                                  const ac_planes *pl, const ac_projectile_params *pr,
                                  const plane_scratch *ps, int *bounces, size_t n,
                                  sphere_block *b)
{
    const size_t d = (size_t)dim;
    size_t failed = n, next = 0, active = 0; /* next: sphere to load; active: lanes in use */
    for (;;) {
        size_t kept = 0, load = n - next < LANES - active ? n - next : LANES - active;
        block_load(dim, b, ps, pr, position, velocity, next, active, load);
        next += load;
        active += load;
        if (active == 0)
            break;
        block_pass(dim, b, ps, active);
        for (size_t i = 0; i < active; i++) {
            if (lane_resolve(dim, b, i, pl, pr)) { /* pack the lane down */
                if (kept != i) {
                    for (int k = 0; k < dim; k++) {
                        b->p[k][kept] = b->p[k][i];
                        b->v[k][kept] = b->v[k][i];
                        b->w[k][kept] = b->w[k][i];
                    }
                    b->t[kept] = b->t[i];
                    b->r[kept] = b->r[i];
                    b->dt[kept] = b->dt[i];
                    b->bad[kept] = b->bad[i];
                    b->index[kept] = b->index[i];
                    b->count[kept] = b->count[i];
                    for (size_t w = 0; w < ps->words; w++)
                        ps->front[w * LANES + kept] = ps->front[w * LANES + i];
                }
                kept++;
            } else { /* done: write it back */
                size_t s = b->index[i];
                int ok = !b->bad[i];
                for (int k = 0; k < dim; k++) {
                    position[s * d + (size_t)k] = b->p[k][i];
                    velocity[s * d + (size_t)k] = b->v[k][i];
                    ok &= ac_finite(b->p[k][i]) & ac_finite(b->v[k][i]);
                }
                if (b->spin)
                    for (int k = 0; k < (dim == 2 ? 1 : 3); k++) {
                        b->spin->angular_velocity[s * (dim == 2 ? 1 : 3) + (size_t)k] =
                            b->w[k][i];
                        ok &= ac_finite(b->w[k][i]);
                    }
                if (bounces)
                    bounces[s] = b->count[i];
                if (!ok && s < failed)
                    failed = s;
            }
        }
        active = kept;
    }
    return failed;
}

/* The sphere loop, in versions for the vector units the CPU has. */
AC_VECTORIZED
static size_t advance_all(double *position, double *velocity, const ac_planes *pl,
                          const ac_projectile_params *pr, const plane_scratch *ps,
                          int *bounces, size_t n, sphere_block *b)
{
    return pl->dim == 3 ? advance_dim(3, position, velocity, pl, pr, ps, bounces, n, b)
                        : advance_dim(2, position, velocity, pl, pr, ps, bounces, n, b);
}

ac_status ac_contact_advance(double *position, double *velocity, const ac_planes *planes,
                             const ac_projectile_params *params, int *bounces, size_t n,
                             ac_error *err)
{
    return ac_contact_advance_spin(position, velocity, planes, params, NULL, NULL, bounces, n,
                                   err);
}

ac_status ac_contact_advance_spin(double *position, double *velocity,
                                  const ac_planes *planes, const ac_projectile_params *params,
                                  const ac_projectile_spin *spin,
                                  const ac_projectile_events *events, int *bounces, size_t n,
                                  ac_error *err)
{
    plane_scratch ps;
    sphere_block *b;
    ac_status st;
    const size_t d = planes->dim;
    size_t i;
    if ((st = check_dim(planes->dim, err)))
        return st;
    if (params->max_bounces < 0)
        return ac_fail(err, AC_ERR_VALUE, 0, AC_ARG_MAX_BOUNCES, (double)params->max_bounces,
                       "must be >= 0");
    if (params->max_bounces > AC_CONTACT_MAX_BOUNCES) /* bounds the work of a call */
        return ac_fail(err, AC_ERR_VALUE, 0, AC_ARG_MAX_BOUNCES, (double)params->max_bounces,
                       "must be <= AC_CONTACT_MAX_BOUNCES = %d", AC_CONTACT_MAX_BOUNCES);
    if ((st = check_planes(planes, err)) ||
        (st = check_spheres(position, velocity, planes, params, spin, n, err)) ||
        (st = scratch_init(&ps, planes, err)))
        return st;
    b = calloc(1, sizeof *b); /* zeroed: block_pass reads lanes past the active ones */
    if (!b) {
        free(ps.point[0]);
        return ac_fail(err, AC_ERR_NOMEM, 0, AC_ARG_POSITION, (double)n,
                       "spheres: scratch could not be allocated");
    }
    b->spin = spin;
    b->events = events && events->capacity ? events : NULL;
    if (b->events)
        for (size_t slot = 0; slot < n * events->capacity; slot++) {
            events->plane[slot] = -1;
            events->time[slot] = events->normal_impulse[slot] = 0.0;
            for (size_t k = 0; k < d; k++)
                events->tangent_impulse[slot * d + k] = 0.0;
        }
    i = advance_all(position, velocity, planes, params, &ps, bounces, n, b);
    free(b);
    free(ps.point[0]);
    if (i == n)
        return AC_OK;
    for (size_t k = 0; k < d; k++)
        if (!ac_finite(velocity[i * d + k]))
            return ac_fail(err, AC_ERR_OVERFLOW, i, AC_ARG_VELOCITY, velocity[i * d + k],
                           "is not representable after a bounce although the inputs are "
                           "finite");
    for (size_t k = 0; k < d; k++)
        if (!ac_finite(position[i * d + k]))
            return ac_fail(err, AC_ERR_OVERFLOW, i, AC_ARG_POSITION, position[i * d + k],
                           "is not representable although the inputs are finite");
    for (size_t k = 0; spin && k < (d == 2 ? 1 : 3); k++)
        if (!ac_finite(spin->angular_velocity[i * (d == 2 ? 1 : 3) + k]))
            return ac_fail(err, AC_ERR_OVERFLOW, i, AC_ARG_ANGULAR_VELOCITY,
                           spin->angular_velocity[i * (d == 2 ? 1 : 3) + k],
                           "is not representable after a bounce although the inputs are "
                           "finite");
    for (size_t slot = i * (events ? events->capacity : 0);
         events && slot < (i + 1) * events->capacity; slot++) {
        const size_t contact = slot - i * events->capacity;
        if (!ac_finite(events->normal_impulse[slot]))
            return ac_fail(err, AC_ERR_OVERFLOW, i, AC_ARG_NORMAL_IMPULSE,
                           events->normal_impulse[slot],
                           "is not representable in event %zu although the inputs are finite",
                           contact);
        for (size_t k = 0; k < d; k++)
            if (!ac_finite(events->tangent_impulse[slot * d + k]))
                return ac_fail(err, AC_ERR_OVERFLOW, i, AC_ARG_TANGENT_IMPULSE,
                               events->tangent_impulse[slot * d + k],
                               "is not representable in event %zu although the inputs are "
                               "finite", contact);
    }
    return ac_fail(err, AC_ERR_OVERFLOW, i, AC_ARG_POSITION, position[i * d],
                   "is too far from a plane: the distance is not representable");
}
