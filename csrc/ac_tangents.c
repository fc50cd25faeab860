/* The tools' automatic tangents: Blender's handle recalculation (auto,
   auto-clamped and vector handles, "none" and "continuous acceleration"
   smoothing, end keys and the Cycles wrap-around), OpenUSD's AutoEase and
   the slopes of FBX curve keys (MotionBuilder's and Maya's).
   Blender computes in float32; this file follows its steps in float64, or
   rounded to float32 as Blender rounds them (AC_HANDLES_FLOAT32). */
#include "ac_internal.h"

#define T(p, i) ((p)[2 * (i)])     /* time of point i in a (time, value) array */
#define V(p, i) ((p)[2 * (i) + 1]) /* its value */

static int is_auto(unsigned char type)
{
    return type == AC_HANDLE_AUTO || type == AC_HANDLE_AUTO_CLAMPED;
}

static int is_computed(unsigned char type)
{
    return is_auto(type) || type == AC_HANDLE_VECTOR;
}

/* Blender computes its handles in float32: with `f32` every step below is
   rounded to float32 as Blender's float code rounds it (a float32 operation
   is the float64 one rounded once, exactly so for + - * / and sqrt); without
   it the same steps run in float64. */
static inline double rnd(int f32, double x)
{
    return f32 ? (double)(float)x : x;
}

/* Blender's float32 constants where f32, else the exact numbers. */
#define K_CIRCLE(f32) ((f32) ? (double)2.5614f : 2.5614)
#define K_THIRD(f32) ((f32) ? (double)(1.0f / 3.0f) : 1.0 / 3.0)
#define K_TINY(f32) ((f32) ? (double)1e-5f : 1e-5) /* an aligned pair's shortest handle */

/* |(dx, dy)| as Blender's len_v3v3: sqrt of the sum of squares. */
static double length2(int f32, double dx, double dy)
{
    return f32 ? rnd(1, sqrt(rnd(1, rnd(1, dx * dx) + rnd(1, dy * dy)))) : hypot(dx, dy);
}

/* One key's handles without smoothing (BKE_nurb_handle_calc). prev/next are
   the neighbouring key points or NULL at an open end; left_first: the left
   handle is selected, so of two aligned handles the right one follows the
   left (else the left follows the right). Returns 1 when an auto-clamped
   handle was flattened at an extremum (the key is "locked"). */
static int key_handles(const double p2[2], const double *prev, const double *next,
                       unsigned char h1, unsigned char h2, int smooth, int left_first,
                       int f32, double left[2], double right[2])
{
    double p1[2], p3[2], da[2], db[2], la, lb;
    int locked = 0;
    for (int c = 0; c < 2; c++) {
        p1[c] = prev ? prev[c] : rnd(f32, 2.0 * p2[c] - next[c]);
        p3[c] = next ? next[c] : rnd(f32, 2.0 * p2[c] - p1[c]);
        da[c] = rnd(f32, p2[c] - p1[c]);
        db[c] = rnd(f32, p3[c] - p2[c]);
    }
    la = da[0] != 0.0 ? da[0] : 1.0;
    lb = db[0] != 0.0 ? db[0] : 1.0;
    if (is_auto(h1) || is_auto(h2)) {
        double tvec[2] = {rnd(f32, rnd(f32, db[0] / lb) + rnd(f32, da[0] / la)),
                          rnd(f32, rnd(f32, db[1] / lb) + rnd(f32, da[1] / la))};
        /* the handle length: 2.5614 is Blender's circle-approximation ratio */
        double length = rnd(f32, (smooth ? rnd(f32, 6.0 / K_CIRCLE(f32)) : tvec[0]) *
                                     K_CIRCLE(f32));
        if (length != 0.0) {
            int left_violate = 0, right_violate = 0;
            if (!smooth) { /* neighbour intervals within 5 times each other */
                if (la > rnd(f32, 5.0 * lb))
                    la = rnd(f32, 5.0 * lb);
                if (lb > rnd(f32, 5.0 * la))
                    lb = rnd(f32, 5.0 * la);
            }
            if (is_auto(h1)) {
                double q = rnd(f32, la / length);
                left[0] = rnd(f32, p2[0] + rnd(f32, tvec[0] * -q));
                left[1] = rnd(f32, p2[1] + rnd(f32, tvec[1] * -q));
                if (h1 == AC_HANDLE_AUTO_CLAMPED && prev && next) {
                    double y1 = rnd(f32, prev[1] - p2[1]), y2 = rnd(f32, next[1] - p2[1]);
                    if ((y1 <= 0.0 && y2 <= 0.0) || (y1 >= 0.0 && y2 >= 0.0)) {
                        left[1] = p2[1];
                        locked = 1;
                    } else if ((y1 <= 0.0 && prev[1] > left[1]) ||
                               (y1 > 0.0 && prev[1] < left[1])) {
                        left[1] = prev[1];
                        left_violate = 1;
                    }
                }
            }
            if (is_auto(h2)) {
                double q = rnd(f32, lb / length);
                right[0] = rnd(f32, p2[0] + rnd(f32, tvec[0] * q));
                right[1] = rnd(f32, p2[1] + rnd(f32, tvec[1] * q));
                if (h2 == AC_HANDLE_AUTO_CLAMPED && prev && next) {
                    double y1 = rnd(f32, prev[1] - p2[1]), y2 = rnd(f32, next[1] - p2[1]);
                    if ((y1 <= 0.0 && y2 <= 0.0) || (y1 >= 0.0 && y2 >= 0.0)) {
                        right[1] = p2[1];
                        locked = 1;
                    } else if ((y1 <= 0.0 && next[1] < right[1]) ||
                               (y1 > 0.0 && next[1] > right[1])) {
                        right[1] = next[1];
                        right_violate = 1;
                    }
                }
            }
            if (left_violate || right_violate) { /* keep the two handles in line */
                double h1x = rnd(f32, left[0] - p2[0]), h2x = rnd(f32, p2[0] - right[0]);
                if (left_violate)
                    right[1] = rnd(f32, p2[1] + rnd(f32, rnd(f32, rnd(f32, p2[1] - left[1]) / h1x)
                                                         * h2x));
                else
                    left[1] = rnd(f32, p2[1] + rnd(f32, rnd(f32, rnd(f32, p2[1] - right[1]) / h2x)
                                                        * h1x));
            }
        }
    }
    if (h1 == AC_HANDLE_VECTOR) {
        left[0] = rnd(f32, p2[0] + rnd(f32, da[0] * -K_THIRD(f32)));
        left[1] = rnd(f32, p2[1] + rnd(f32, da[1] * -K_THIRD(f32)));
    }
    if (h2 == AC_HANDLE_VECTOR) {
        right[0] = rnd(f32, p2[0] + rnd(f32, db[0] * K_THIRD(f32)));
        right[1] = rnd(f32, p2[1] + rnd(f32, db[1] * K_THIRD(f32)));
    }
    /* an aligned handle turns to stay opposite the other one, keeping its
       length (none beside a free handle); of two aligned ones the one whose
       key side is not selected follows (Blender's order of calculation) */
    if (h1 != AC_HANDLE_FREE && h2 != AC_HANDLE_FREE &&
        (h1 == AC_HANDLE_ALIGNED || h2 == AC_HANDLE_ALIGNED)) {
        double len_l = length2(f32, rnd(f32, p2[0] - left[0]), rnd(f32, p2[1] - left[1]));
        double len_r = length2(f32, rnd(f32, p2[0] - right[0]), rnd(f32, p2[1] - right[1]));
        double ratio;
        if (len_l == 0.0)
            len_l = 1.0;
        if (len_r == 0.0)
            len_r = 1.0;
        ratio = rnd(f32, len_l / len_r);
        for (int pass = 0; pass < 2; pass++) {
            int turn_right = left_first ? pass == 0 : pass == 1;
            if (turn_right && h2 == AC_HANDLE_ALIGNED && len_l > K_TINY(f32)) {
                double f = rnd(f32, 1.0 / ratio);
                right[0] = rnd(f32, p2[0] + rnd(f32, f * rnd(f32, p2[0] - left[0])));
                right[1] = rnd(f32, p2[1] + rnd(f32, f * rnd(f32, p2[1] - left[1])));
            }
            if (!turn_right && h1 == AC_HANDLE_ALIGNED && len_r > K_TINY(f32)) {
                left[0] = rnd(f32, p2[0] + rnd(f32, ratio * rnd(f32, p2[0] - right[0])));
                left[1] = rnd(f32, p2[1] + rnd(f32, ratio * rnd(f32, p2[1] - right[1])));
            }
        }
    }
    return locked;
}

/* ---- continuous acceleration (BKE_nurb_handle_smooth_fcurve) ---- */

/* Work arrays of one smoothing pass, each of at least k + 1 doubles. */
typedef struct smooth_work {
    double *dx, *dy, *l, *hmin, *hmax, *a, *b, *c, *d, *h;
    double *a0, *b0, *c0, *d0, *row_locked, *unlocks;
    double *t0, *t1, *t2, *t3; /* solver temporaries */
} smooth_work;

/* The plain tridiagonal system a[i] x[i-1] + b[i] x[i] + c[i] x[i+1] = d[i]
   (Thomas); 0 when the result is not finite. cp, dp: n temporaries. x may be d. */
static int tridiagonal(const double *a, const double *b, const double *c, const double *d,
                       double *x, size_t n, double *cp, double *dp)
{
    cp[0] = c[0] / b[0];
    dp[0] = d[0] / b[0];
    for (size_t i = 1; i < n; i++) {
        double m = b[i] - a[i] * cp[i - 1];
        cp[i] = c[i] / m;
        dp[i] = (d[i] - a[i] * dp[i - 1]) / m;
    }
    x[n - 1] = dp[n - 1];
    for (size_t i = n - 1; i-- > 0;)
        x[i] = dp[i] - cp[i] * x[i + 1];
    for (size_t i = 0; i < n; i++)
        if (!ac_finite(x[i]))
            return 0;
    return 1;
}

/* The cyclic system (indices mod n: a[0] couples x[n-1], c[n-1] couples x[0]),
   as BLI_tridiagonal_solve_cyclic: the plain solver when both corners are
   zero, else Sherman-Morrison on the system without its corners. */
static int tridiagonal_cyclic(const double *a, const double *b, const double *c,
                              const double *d, double *x, size_t n, const smooth_work *w)
{
    double a0 = a[0], cn = c[n - 1];
    if (n == 1) {
        x[0] = d[0] / (a[0] + b[0] + c[0]);
        return ac_finite(x[0]);
    }
    if (n == 2) { /* the two couplings of each row act on the same unknown */
        double a2[2] = {0.0, a[1] + c[1]}, c2[2] = {a[0] + c[0], 0.0};
        return tridiagonal(a2, b, c2, d, x, 2, w->t0, w->t1);
    }
    if (a0 == 0.0 && cn == 0.0)
        return tridiagonal(a, b, c, d, x, n, w->t0, w->t1);
    {
        double *b2 = w->t2, *z = w->t3, coeff;
        for (size_t i = 0; i < n; i++) {
            b2[i] = b[i];
            z[i] = 0.0;
        }
        b2[0] -= a0;
        b2[n - 1] -= cn;
        z[0] = a0;
        z[n - 1] = cn;
        if (!tridiagonal(a, b2, c, z, z, n, w->t0, w->t1) ||
            !tridiagonal(a, b2, c, d, x, n, w->t0, w->t1))
            return 0;
        coeff = (x[0] + x[n - 1]) / (1.0 + z[0] + z[n - 1]);
        if (!ac_finite(coeff))
            return 0;
        for (size_t i = 0; i < n; i++)
            x[i] -= coeff * z[i];
    }
    return 1;
}

/* tridiagonal_solve_with_limits: solve; lock values outside [hmin, hmax] at
   the limit they cross; release a locked one (at most twice) that the
   unconstrained row would pull back inside; repeat until nothing changes. */
static int solve_with_limits(smooth_work *w, size_t n)
{
    double *a = w->a, *b = w->b, *c = w->c, *d = w->d, *h = w->h;
    for (size_t i = 0; i < n; i++) {
        w->a0[i] = a[i];
        w->b0[i] = b[i];
        w->c0[i] = c[i];
        w->d0[i] = d[i];
        w->row_locked[i] = 0.0;
        w->unlocks[i] = 0.0;
    }
    for (;;) {
        int all = 0, lock_any = 0, overshoot, unlocked = 0;
        if (!tridiagonal_cyclic(a, b, c, d, h, n, w))
            return 0;
        for (;;) {
            overshoot = 0;
            for (size_t i = 0; i < n; i++) {
                double target;
                if (w->hmin[i] <= h[i] && h[i] <= w->hmax[i])
                    continue;
                overshoot = 1;
                target = h[i] > w->hmax[i] ? w->hmax[i] : w->hmin[i];
                if (target != 0.0 || all) { /* lock at zero only when nothing else helps */
                    w->row_locked[i] = 1.0;
                    a[i] = c[i] = 0.0;
                    b[i] = 1.0;
                    d[i] = target;
                    lock_any = 1;
                }
            }
            all = 1;
            if (!(overshoot && !lock_any))
                break;
        }
        if (!lock_any) {
            for (size_t i = 0; i < n; i++) {
                double state, relax;
                if (w->row_locked[i] == 0.0 || w->unlocks[i] >= 2.0)
                    continue;
                state = w->a0[i] * h[(i + n - 1) % n] + w->b0[i] * h[i] +
                        w->c0[i] * h[(i + 1) % n] - w->d0[i];
                relax = -state * w->b0[i];
                if ((relax > 0.0 && h[i] < w->hmax[i]) || (relax < 0.0 && h[i] > w->hmin[i])) {
                    a[i] = w->a0[i];
                    b[i] = w->b0[i];
                    c[i] = w->c0[i];
                    d[i] = w->d0[i];
                    w->row_locked[i] = 0.0;
                    w->unlocks[i] += 1.0;
                    unlocked = 1;
                }
            }
        }
        if (!(overshoot || unlocked))
            return 1;
    }
}

/* The keys and handles one smoothing pass works on. */
typedef struct fcurve {
    const double *co;
    double *left, *right;
    const unsigned char *lt, *rt;
    const unsigned char *locked;
    size_t total;
} fcurve;

/* bezier_output_handle: sets the height of an automatic or vector handle,
   then realigns an aligned partner, or mirrors an automatic partner at an
   end point. */
static void output_handle(const fcurve *f, size_t j, int is_right, double dy, int endpoint)
{
    unsigned char own = is_right ? f->rt[j] : f->lt[j];
    unsigned char other = is_right ? f->lt[j] : f->rt[j];
    double *h = is_right ? f->right : f->left, *o = is_right ? f->left : f->right;
    if (!is_computed(own))
        return;
    V(h, j) = V(f->co, j) + dy;
    if (other == AC_HANDLE_ALIGNED) {
        double hlen = hypot(T(o, j) - T(f->co, j), V(o, j) - V(f->co, j));
        double h2len = hypot(T(h, j) - T(f->co, j), V(h, j) - V(f->co, j));
        T(o, j) = T(f->co, j) + (T(f->co, j) - T(h, j)) * (hlen / h2len);
        V(o, j) = V(f->co, j) + (V(f->co, j) - V(h, j)) * (hlen / h2len);
    } else if (endpoint && is_computed(other)) {
        T(o, j) = 2.0 * T(f->co, j) - T(h, j);
        V(o, j) = 2.0 * V(f->co, j) - V(h, j);
    }
}

static void clamp_range(smooth_work *w, size_t i, double d, int on)
{
    if (!on)
        return;
    if (d > 0.0) {
        if (d < w->hmax[i])
            w->hmax[i] = d;
        w->hmin[i] = 0.0;
    } else if (d < 0.0) {
        w->hmax[i] = 0.0;
        if (d > w->hmin[i])
            w->hmin[i] = d;
    } else {
        w->hmax[i] = w->hmin[i] = 0.0;
    }
}

static int has_clamped(const fcurve *f, size_t j)
{
    return f->lt[j] == AC_HANDLE_AUTO_CLAMPED || f->rt[j] == AC_HANDLE_AUTO_CLAMPED;
}

/* A handle's time extent limited so that it fits its interval dx: returns
   the adjustment 1 - 3 * time / dx and scales hsize (time, value) down. */
static double adjust(double hsize[2], double dx)
{
    double fac = dx / (hsize[0] + dx / 3.0);
    if (fac < 1.0) {
        hsize[0] *= fac;
        hsize[1] *= fac;
    }
    return 1.0 - 3.0 * hsize[0] / dx;
}

static void continuous_row(smooth_work *w, size_t i)
{
    double l = w->l[i];
    w->a[i] = l * l;
    w->b[i] = 2.0 * (l + 1.0);
    w->c[i] = 1.0 / w->l[i + 1];
    w->d[i] = w->dy[i] * l * l + w->dy[i + 1];
}

static int solve_end(const fcurve *f, size_t j, unsigned char type, int end)
{
    return type == AC_HANDLE_VECTOR || (end && is_auto(type) && !f->locked[j]);
}

/* One run of free automatic keys between two fixed ones (or the whole
   cycle): count keys from start, wrapping over the seam when cycle. */
static void smooth_segment(const fcurve *f, smooth_work *w, size_t start, size_t count,
                           int cycle)
{
    size_t total = f->total, first = start, last, j, n;
    int full, solve_first, solve_last;
    double first_adj = 0.0, last_adj = 0.0;
    if (count < 2)
        return;
    full = start == 0 && count == total && cycle;
    last = start + count > total ? start + count - total : start + count - 1;
    solve_first = solve_end(f, first, f->rt[first], start == 0);
    solve_last = solve_end(f, last, f->lt[last], start + count == total);
    if (count == 2 && !full && solve_first == solve_last)
        return;
    j = start + 1;
    for (size_t i = 1; i < count; i++) {
        w->dx[i] = T(f->co, j) - T(f->co, j - 1);
        w->dy[i] = V(f->co, j) - V(f->co, j - 1);
        if (cycle && j == total - 1)
            j = 0;
        j++;
    }
    for (size_t i = 0; i < count; i++) {
        w->l[i] = 1.0;
        w->hmax[i] = HUGE_VAL;
        w->hmin[i] = -HUGE_VAL;
        w->a[i] = w->b[i] = w->c[i] = w->d[i] = 0.0;
    }
    if (full) {
        w->dx[0] = w->dx[count - 1];
        w->dy[0] = w->dy[count - 1];
        w->l[0] = w->l[count - 1] = w->dx[1] / w->dx[0];
    }
    for (size_t i = 1; i + 1 < count; i++)
        w->l[i] = w->dx[i + 1] / w->dx[i];
    {
        int clamped_cur = has_clamped(f, first);
        j = start + 1;
        for (size_t i = 1; i < count; i++) {
            int clamped_prev = clamped_cur;
            clamped_cur = has_clamped(f, j);
            if (cycle && j == total - 1) {
                j = 0;
                clamped_cur = clamped_cur || has_clamped(f, 0);
            }
            clamp_range(w, i - 1, w->dy[i], clamped_prev);
            clamp_range(w, i, w->dy[i] * w->l[i], clamped_cur);
            j++;
        }
    }
    n = count;
    if (full) {
        n = count - 1;
        if (w->hmin[n] > w->hmin[0])
            w->hmin[0] = w->hmin[n];
        if (w->hmax[n] < w->hmax[0])
            w->hmax[0] = w->hmax[n];
        solve_first = solve_last = 1;
        continuous_row(w, 0);
    } else {
        if (!solve_first) {
            double hs[2] = {T(f->right, first) - T(f->co, first),
                            V(f->right, first) - V(f->co, first)};
            first_adj = adjust(hs, w->dx[1]);
            w->a[0] = w->c[0] = 0.0;
            w->b[0] = 1.0;
            w->d[0] = hs[1];
        } else {
            w->a[0] = 0.0;
            w->b[0] = 2.0;
            w->c[0] = 1.0 / w->l[1];
            w->d[0] = w->dy[1];
        }
        if (!solve_last) {
            double hs[2] = {T(f->co, last) - T(f->left, last),
                            V(f->co, last) - V(f->left, last)};
            last_adj = adjust(hs, w->dx[count - 1]);
            w->a[count - 1] = w->c[count - 1] = 0.0;
            w->b[count - 1] = 1.0;
            w->d[count - 1] = hs[1];
        } else {
            double l = w->l[count - 1];
            w->a[count - 1] = l * l;
            w->b[count - 1] = 2.0 * l;
            w->c[count - 1] = 0.0;
            w->d[count - 1] = w->dy[count - 1] * l * l;
        }
    }
    for (size_t i = 1; i + 1 < count; i++)
        continuous_row(w, i);
    if (!full) {
        if (count > 2 || solve_last)
            w->b[1] += w->l[1] * first_adj;
        if (count > 2 || solve_first)
            w->b[count - 2] += last_adj;
    }
    if (!solve_with_limits(w, n))
        return; /* a degenerate system: Blender leaves these handles as they are */
    if (full)
        w->h[n] = w->h[0];
    j = start + 1;
    for (size_t i = 1; i + 1 < count; i++) {
        int end = j == total - 1;
        output_handle(f, j, 0, -w->h[i] / w->l[i], end);
        if (end)
            j = 0;
        output_handle(f, j, 1, w->h[i], end);
        j++;
    }
    if (solve_first)
        output_handle(f, first, 1, w->h[0], start == 0);
    if (solve_last)
        output_handle(f, last, 0, -w->h[count - 1] / w->l[count - 1], start + count == total);
}

static int free_auto(const fcurve *f, size_t i)
{
    return is_auto(f->lt[i]) && is_auto(f->rt[i]) && !f->locked[i];
}

/* Splits the keys into runs of free automatic keys and smooths each. */
static void smooth_cont_accel(const fcurve *f, smooth_work *w, int cyclic)
{
    size_t total = f->total, base = 0, start, count, j;
    cyclic = cyclic && free_auto(f, 0) && free_auto(f, total - 1);
    if (cyclic) {
        for (size_t i = 1; i + 1 < total; i++) {
            if (!free_auto(f, i)) {
                base = i;
                break;
            }
        }
        if (base == 0) {
            smooth_segment(f, w, 0, total, 1);
            return;
        }
    }
    start = base;
    count = 1;
    j = start + 1;
    for (size_t step = 1; step < total; step++) {
        if (j == total - 1 && cyclic)
            j = 0;
        if (!free_auto(f, j)) {
            smooth_segment(f, w, start, count + 1, cyclic);
            start = j;
            count = 1;
        } else {
            count++;
        }
        j++;
    }
    if (count > 1)
        smooth_segment(f, w, start, count, cyclic);
}

AC_API ac_status ac_tangents_blender(const double *keys, const unsigned char *left_types,
                                     const unsigned char *right_types, size_t k,
                                     unsigned flags, double *left, double *right,
                                     const ac_allocator *allocator, ac_error *err)
{
    int smooth = (flags & AC_HANDLES_CONT_ACCEL) != 0, cyclic;
    int f32 = (flags & AC_HANDLES_FLOAT32) != 0;
    unsigned char *bytes = NULL, *locked = NULL, *lt, *rt;
    double *scratch = NULL, *rounded = NULL, first_last[2], last_first[2];
    int lock_first = 0, lock_last = 0;
    for (size_t i = 0; i < 2 * k; i++)
        if (!ac_finite(keys[i]))
            return ac_fail(err, AC_ERR_VALUE, i, AC_ARG_KEYS, keys[i], "must be finite");
    for (size_t i = 0; i < 2 * k; i++) {
        if (!ac_finite(left[i]))
            return ac_fail(err, AC_ERR_VALUE, i, AC_ARG_LEFT, left[i], "must be finite");
        if (!ac_finite(right[i]))
            return ac_fail(err, AC_ERR_VALUE, i, AC_ARG_RIGHT, right[i], "must be finite");
    }
    for (size_t i = 1; i < k; i++)
        if (!(T(keys, i) > T(keys, i - 1)))
            return ac_fail(err, AC_ERR_VALUE, 2 * i, AC_ARG_KEYS, T(keys, i),
                           "must be > the previous time %.15g", T(keys, i - 1));
    for (size_t i = 0; i < k; i++) {
        if ((left_types[i] & ~AC_HANDLE_UNSELECTED) > AC_HANDLE_AUTO_CLAMPED)
            return ac_fail(err, AC_ERR_VALUE, i, AC_ARG_LEFT_TYPES, left_types[i],
                           "must be an ac_handle_type");
        if (right_types[i] > AC_HANDLE_AUTO_CLAMPED)
            return ac_fail(err, AC_ERR_VALUE, i, AC_ARG_RIGHT_TYPES, right_types[i],
                           "must be an ac_handle_type");
    }
    if (f32) /* keys that float32 cannot tell apart are no F-curve */
        for (size_t i = 1; i < k; i++)
            if (!((float)T(keys, i) > (float)T(keys, i - 1)))
                return ac_fail(err, AC_ERR_VALUE, 2 * i, AC_ARG_KEYS, T(keys, i),
                               "must be > the previous time %.15g in float32",
                               T(keys, i - 1));
    if (k < 2)
        return AC_OK;
    /* scratch: the types without selection bits and the locks (3k bytes), the
       keys rounded to float32 (2k), the smoothing's work arrays */
    bytes = ac_mem_zeroed(allocator, 3 * k, 1);
    rounded = f32 ? ac_mem_zeroed(allocator, 2 * k, sizeof *rounded) : NULL;
    scratch = smooth ? ac_mem_zeroed(allocator, 20 * (k + 1), sizeof *scratch) : NULL;
    if (!bytes || (f32 && !rounded) || (smooth && !scratch)) {
        ac_mem_release(allocator, bytes);
        ac_mem_release(allocator, rounded);
        ac_mem_release(allocator, scratch);
        return ac_fail(err, AC_ERR_NOMEM, 0, AC_ARG_SCRATCH, (double)k,
                       "keys need scratch memory");
    }
    lt = bytes, rt = bytes + k, locked = bytes + 2 * k;
    for (size_t i = 0; i < k; i++) {
        lt[i] = left_types[i] & ~AC_HANDLE_UNSELECTED;
        rt[i] = right_types[i];
    }
    if (f32) { /* Blender stores keys and handles in float32 */
        for (size_t i = 0; i < 2 * k; i++) {
            rounded[i] = rnd(1, keys[i]);
            left[i] = rnd(1, left[i]);
            right[i] = rnd(1, right[i]);
        }
        keys = rounded;
    }
    /* Blender's cyclic F-curve: the end keys see each other only when both are
       automatic on both sides */
    cyclic = (flags & AC_HANDLES_CYCLIC) && is_auto(lt[0]) && is_auto(rt[0]) &&
             is_auto(lt[k - 1]) && is_auto(rt[k - 1]);
    for (int c = 0; c < 2; c++) { /* the shifts of one cycle (cycle_offset_triple) */
        first_last[c] = rnd(f32, keys[c] - keys[2 * (k - 1) + c]);
        last_first[c] = rnd(f32, keys[2 * (k - 1) + c] - keys[c]);
    }
    for (size_t i = 0; i < k; i++) {
        double prev_wrap[2], next_wrap[2];
        const double *prev = i > 0 ? keys + 2 * (i - 1) : NULL;
        const double *next = i + 1 < k ? keys + 2 * (i + 1) : NULL;
        int lock;
        if (cyclic && !prev) { /* the key before the seam, one cycle earlier */
            prev_wrap[0] = rnd(f32, T(keys, k - 2) + first_last[0]);
            prev_wrap[1] = rnd(f32, V(keys, k - 2) + first_last[1]);
            prev = prev_wrap;
        }
        if (cyclic && !next) {
            next_wrap[0] = rnd(f32, T(keys, 1) + last_first[0]);
            next_wrap[1] = rnd(f32, V(keys, 1) + last_first[1]);
            next = next_wrap;
        }
        /* handles never cross their key in time */
        if (T(left, i) > T(keys, i))
            T(left, i) = T(keys, i);
        if (T(right, i) < T(keys, i))
            T(right, i) = T(keys, i);
        if (flags & AC_HANDLES_MIN_LENGTH) { /* Blender 5: at least 0.001 from the key */
            double lo = f32 ? (double)nextafterf((float)T(keys, i) - 0.001f, -INFINITY)
                            : T(keys, i) - 0.001;
            double hi = f32 ? (double)nextafterf((float)T(keys, i) + 0.001f, INFINITY)
                            : T(keys, i) + 0.001;
            if (T(left, i) > lo)
                T(left, i) = lo;
            if (T(right, i) < hi)
                T(right, i) = hi;
        }
        lock = key_handles(keys + 2 * i, prev, next, lt[i], rt[i], smooth,
                           !(left_types[i] & AC_HANDLE_UNSELECTED), f32, left + 2 * i,
                           right + 2 * i);
        if (!cyclic && (i == 0 || i == k - 1) && is_auto(lt[i]) && is_auto(rt[i]) &&
            (flags & (i == 0 ? AC_HANDLES_FLAT_FIRST : AC_HANDLES_FLAT_LAST))) {
            V(left, i) = V(right, i) = V(keys, i); /* flat under constant extrapolation */
            lock = 1;
        }
        locked[i] = (unsigned char)lock;
        if (i == 0)
            lock_first = lock;
        if (i == k - 1)
            lock_last = lock;
    }
    if (cyclic && (lock_first || lock_last)) { /* one locked end locks both */
        for (size_t e = 0; e < 2; e++) {
            size_t i = e ? k - 1 : 0;
            V(left, i) = V(right, i) = V(keys, i);
            locked[i] = 1;
        }
    }
    if (smooth) {
        size_t m = k + 1;
        smooth_work w = {scratch, scratch + m, scratch + 2 * m, scratch + 3 * m,
                         scratch + 4 * m, scratch + 5 * m, scratch + 6 * m, scratch + 7 * m,
                         scratch + 8 * m, scratch + 9 * m, scratch + 10 * m, scratch + 11 * m,
                         scratch + 12 * m, scratch + 13 * m, scratch + 14 * m,
                         scratch + 15 * m, scratch + 16 * m, scratch + 17 * m,
                         scratch + 18 * m, scratch + 19 * m};
        fcurve f = {keys, left, right, lt, rt, locked, k};
        smooth_cont_accel(&f, &w, cyclic);
        if (f32) /* the solve runs in float64; Blender stores float32 */
            for (size_t i = 0; i < 2 * k; i++) {
                left[i] = rnd(1, left[i]);
                right[i] = rnd(1, right[i]);
            }
    }
    ac_mem_release(allocator, bytes);
    ac_mem_release(allocator, rounded);
    ac_mem_release(allocator, scratch);
    return AC_OK;
}

/* ---- OpenUSD AutoEase (Ts_TypedKnotData::_UpdateTangentAutoEase) ---- */

AC_API ac_status ac_tangents_auto_ease(const double *times, const double *values, size_t k,
                                       size_t c, double *slopes, ac_error *err)
{
    for (size_t i = 0; i < k; i++)
        if (!ac_finite(times[i]))
            return ac_fail(err, AC_ERR_VALUE, i, AC_ARG_TIMES, times[i], "must be finite");
    for (size_t i = 0; i < k * c; i++)
        if (!ac_finite(values[i]))
            return ac_fail(err, AC_ERR_VALUE, i, AC_ARG_VALUES, values[i], "must be finite");
    for (size_t i = 1; i < k; i++) {
        if (times[i] < times[i - 1])
            return ac_fail(err, AC_ERR_VALUE, i, AC_ARG_TIMES, times[i],
                           "must be >= the previous time %.15g", times[i - 1]);
        if (i >= 2 && times[i] == times[i - 2])
            return ac_fail(err, AC_ERR_VALUE, i, AC_ARG_TIMES, times[i],
                           "is the third equal time (a jump is a pair)");
    }
    for (size_t i = 0; i < k; i++) {
        /* a discontinuity (an end key, a jump) gets flat tangents */
        int flat = i == 0 || i + 1 == k || times[i] == times[i - 1] || times[i] == times[i + 1];
        for (size_t ch = 0; ch < c; ch++) {
            double slope = 0.0;
            if (!flat) {
                double s0 = (values[i * c + ch] - values[(i - 1) * c + ch]) /
                            (times[i] - times[i - 1]);
                double s1 = (values[(i + 1) * c + ch] - values[i * c + ch]) /
                            (times[i + 1] - times[i]);
                if (!ac_finite(s0) || !ac_finite(s1))
                    return ac_fail(err, AC_ERR_OVERFLOW, i * c + ch, AC_ARG_SLOPES,
                                   ac_finite(s0) ? s1 : s0,
                                   "the slope to a neighbouring key is not representable");
                if (s0 * s1 > 0.0) {
                    /* the ease cubic g(f) weights the nearer neighbour's slope more */
                    double f = (times[i] - times[i - 1]) / (times[i + 1] - times[i - 1]);
                    double u = f - 0.5, g = 0.5 + u * (0.5 + 2.0 * u * u);
                    slope = (1.0 - g) * s0 + g * s1;
                    if (s1 > 0.0) {
                        slope = fmin(slope, fmin(3.0 * s1, 3.0 * s0));
                    } else {
                        slope = fmax(slope, fmax(3.0 * s1, 3.0 * s0));
                    }
                }
            }
            slopes[i * c + ch] = slope;
        }
    }
    return AC_OK;
}

/* ------------------------------------------------------------------ FBX */

/* KeyAttrFlags bits (FBX SDK's FbxAnimCurveDef) */
#define FBX_CONSTANT 0x2
#define FBX_CUBIC 0x8
#define FBX_TCB 0x200
#define FBX_USER 0x400
#define FBX_CLAMP 0x1000
#define FBX_TIME_INDEPENDENT 0x2000
#define FBX_CLAMP_PROGRESSIVE 0x4000
#define FBX_CLAMP_THRESHOLD 1e-6

/* Python's min(a, b) for a test a <= threshold: NaN when either is NaN. */
static double min_nan(double a, double b)
{
    return (a != a || b != b) ? (a != a ? a : b) : (a < b ? a : b);
}

/* An interior auto key's slope from its neighbours (see animcore.h). */
static double fbx_auto_slope(double tp, double t, double tn, double vp, double v, double vn,
                             double wl, double wr, double bias, int64_t flags)
{
    double slope = (vn - vp) / (tn - tp);
    double left = (v - vp) / (t - tp), right = (vn - v) / (tn - t);
    double d = (t - tp) / (tn - tp);
    double blended = 0.5 * slope + 0.5 * (left * (1.0 - d) + right * d);
    double bias_weight = fabs(bias) / 100.0;
    double target = bias > 0 ? right : left;
    double change = target - blended;
    double biased = blended * (1.0 - bias_weight) + target * bias_weight;
    double extra = bias_weight - 5.0;
    double sign = ((fabs(change) > 0.00001 ? change : bias) > 0) ? 1.0 : -1.0;
    double span_left, span_right, limit_left, limit_right, size;
    if (extra > 0.0)
        biased = biased + extra * extra * sign * 40.0;
    if (bias_weight > 0.0001)
        blended = biased;
    if (!(flags & FBX_TIME_INDEPENDENT))
        slope = blended;
    sign = slope >= 0.0 ? 1.0 : -1.0;
    span_left = wl * (t - tp);
    span_right = wr * (tn - t);
    limit_left = span_left > 0 ? sign * (v - vp) / span_left : 0.0;
    limit_right = span_right > 0 ? sign * (vn - v) / span_right : 0.0;
    /* min(size, max(limit_left, 0), max(limit_right, 0)), NaN kept as Python's min keeps it */
    size = sign * slope;
    if (0.0 > limit_left)
        limit_left = 0.0;
    if (limit_left < size)
        size = limit_left;
    if (0.0 > limit_right)
        limit_right = 0.0;
    if (limit_right < size)
        size = limit_right;
    if (flags & FBX_CLAMP_PROGRESSIVE)
        slope = sign * size;
    if ((flags & FBX_CLAMP) && min_nan(fabs(vp - v), fabs(vn - v)) <= FBX_CLAMP_THRESHOLD)
        return 0.0;
    return slope;
}

/* An auto key with one neighbour: the chord to it (0 when clamped). */
static double fbx_end_slope(double t0, double t1, double v0, double v1, double bias,
                            int64_t flags)
{
    double slope = (v1 - v0) / (t1 - t0);
    double extra = fabs(bias) / 100.0 - 5.0;
    double biased = slope + extra * extra * (bias > 0 ? 1.0 : -1.0) * 40.0;
    if (!(flags & FBX_TIME_INDEPENDENT) && extra > 0.0)
        slope = biased;
    if ((flags & FBX_CLAMP_PROGRESSIVE) ||
        ((flags & FBX_CLAMP) && fabs(v1 - v0) <= FBX_CLAMP_THRESHOLD))
        return 0.0;
    return slope;
}

static double fbx_chord(const double *times, const double *values, size_t i)
{
    return (values[i + 1] - values[i]) / (times[i + 1] - times[i]);
}

/* The slope stored for the left side of key i (the next-left slope of the
   key before it), as the key kinds use it. */
static double fbx_next_left(const double *times, const double *values, const int64_t *flags,
                            const double *data, const unsigned char *first, size_t k, size_t i)
{
    int64_t f = flags[i];
    int last = i + 1 == k || first[i + 1];
    if (f & FBX_CONSTANT)
        return 0.0;
    if (!(f & FBX_CUBIC))                           /* linear */
        return last ? 0.0 : fbx_chord(times, values, i);
    if (f & FBX_TCB)
        return 0.0;
    return data[3 * i + 1];
}

ac_status ac_tangents_fbx(const double *times, const double *values, const int64_t *flags,
                          const double *data, const double *right_weights,
                          const double *next_left_weights, const unsigned char *first,
                          size_t k, double *in_slopes, double *out_slopes, ac_error *err)
{
    (void)err;
    for (size_t i = 0; i < k; i++) {
        int64_t f = flags[i];
        int has_prev = i > 0 && !first[i];
        int has_next = i + 1 < k && !first[i + 1];
        double chord_before = has_prev ? fbx_chord(times, values, i - 1) : 0.0;
        double chord_after = has_next ? fbx_chord(times, values, i) : 0.0;
        double left = has_prev ? fbx_next_left(times, values, flags, data, first, k, i - 1)
                               : 0.0;
        double right = data[3 * i];
        double in_s, out_s;
        if (f & FBX_CONSTANT)
            right = 0.0;
        else if (!(f & FBX_CUBIC))
            right = chord_after;
        in_s = left;
        out_s = right;
        if (!(f & FBX_CONSTANT) && (f & FBX_CUBIC)) {
            if (f & FBX_TCB) { /* Kochanek-Bartels */
                double tension = data[3 * i], continuity = data[3 * i + 1];
                double bias = data[3 * i + 2];
                double base = (has_prev && has_next ? 0.5 : 1.0) * (1.0 - tension);
                in_s = base * ((1 + bias) * (1 - continuity) * chord_before +
                               (1 - bias) * (1 + continuity) * chord_after);
                out_s = base * ((1 + bias) * (1 + continuity) * chord_before +
                                (1 - bias) * (1 - continuity) * chord_after);
            } else if (!(f & FBX_USER)) { /* auto: the stored slopes are the bias */
                if (has_prev && has_next) {
                    double tp = times[i - 1], t = times[i], tn = times[i + 1];
                    double vp = values[i - 1], v = values[i], vn = values[i + 1];
                    double wl = next_left_weights[i - 1], wr = right_weights[i];
                    out_s = fbx_auto_slope(tp, t, tn, vp, v, vn, wl, wr, right, f);
                    in_s = fabs(left + right) <= 0.0001
                               ? out_s
                               : fbx_auto_slope(tp, t, tn, vp, v, vn, wl, wr, -left, f);
                } else if (has_next) {
                    in_s = out_s = fbx_end_slope(times[i], times[i + 1], values[i],
                                                 values[i + 1], right, f);
                } else if (has_prev) {
                    in_s = out_s = fbx_end_slope(times[i - 1], times[i], values[i - 1],
                                                 values[i], -left, f);
                } else {
                    in_s = out_s = 0.0;
                }
            }
        }
        in_slopes[i] = in_s;
        out_slopes[i] = out_s;
    }
    return AC_OK;
}
