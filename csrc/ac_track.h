/* The one key track of the core: what curves (ac_curve.c), rotation curves
   (ac_quat.c) and the local track of a looping clip (ac_rootmotion.c) share.
   Key times, the segment search (binary search with a cursor hint, sorted
   runs), the side of a query at keys, jumps and cycle seams, and the
   extrapolation before and after the keys with the exact cycle fold. It
   knows nothing of the values: each file evaluates its own value kind (C
   scalar channels, unit quaternions) at the (segment, local time) the track
   gives. Private to the core; every function is static inline. */
#ifndef AC_TRACK_H
#define AC_TRACK_H

#include "ac_internal.h"

/* A view of the key times and the extrapolation modes; the owner keeps the
   memory. k >= 1 nondecreasing finite times (a pair of equal times is a
   jump). */
typedef struct ac_track {
    size_t k;
    const double *times;
    ac_curve_extrapolation before, after;
} ac_track;

/* Last i in [0, k-2] with times[i] < t, for times[0] < t: the segment
   ending at or after t, as the left side needs. */
static inline size_t ac_track_find_left(const double *times, size_t k, double t, size_t hint)
{
    size_t lo = 0, hi = k - 1; /* answer in [lo, hi) */
    if (hint < k - 1 && times[hint] < t && (hint + 1 >= k - 1 || times[hint + 1] >= t))
        return hint;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (times[mid] < t)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* The segment of t on a side (k >= 2): on the right the last i with
   times[i] <= t (ac_segment_find), on the left the last with times[i] < t. */
static inline size_t ac_track_find(const double *times, size_t k, double t, int side,
                                   size_t hint)
{
    return side == AC_SIDE_LEFT ? ac_track_find_left(times, k, t, hint)
                                : ac_segment_find(times, k, t, hint);
}

/* Last i in [0, k-2] with times[i] <= t, for times[0] <= t: a branch-free
   binary search (the comparison becomes a conditional move), for queries
   that do not come in order. */
static inline size_t ac_track_bsearch(const double *times, size_t k, double t)
{
    const double *base = times;
    size_t len = k - 1;
    while (len > 1) {
        size_t half = len / 2;
        base = base[half] <= t ? base + half : base;
        len -= half;
    }
    return (size_t)(base - times);
}

/* First index in [i, n) of sorted tq whose value is >= end (tq[i] < end):
   galloping, then bisection, so a sweep costs O(log run) per segment. */
static inline size_t ac_track_run_end(const double *tq, size_t i, size_t n, double end)
{
    size_t lo = i, step = 1, hi;
    while (lo + step < n && tq[lo + step] < end)
        lo += step, step *= 2;
    hi = lo + step < n ? lo + step : n;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (tq[mid] < end)
            lo = mid;
        else
            hi = mid;
    }
    return hi;
}

/* 1 when tq is non-decreasing (a NaN anywhere makes it 0 unless n == 1). */
static inline int ac_track_sorted(const double *tq, size_t n)
{
    int64_t ok = 1;
    for (size_t i = 1; i < n; i++)
        ok &= tq[i] >= tq[i - 1];
    return (int)ok;
}

/* 1 when the key times t[0..k) (k >= 1) are finite and strictly increasing,
   in one branch-free pass: the check of valid keys, whose callers then loop
   to name the first failure only when it fails. */
AC_VECTORIZED
static inline int ac_track_increasing(const double *t, size_t k)
{
    int64_t ok = ac_finite(t[0]);
    for (size_t i = 1; i < k; i++)
        ok &= (t[i] > t[i - 1]) & ac_finite(t[i]);
    return (int)ok;
}

/* The shortest interval t[i] - t[i - 1] of non-decreasing finite key times
   (k >= 2), in one vectorized pass: the intervals are >= +0, whose bit
   patterns order as the numbers do. */
AC_VECTORIZED
static inline double ac_track_shortest(const double *t, size_t k)
{
    uint64_t low = UINT64_MAX;
    double r;
    for (size_t i = 1; i < k; i++) {
        const double dt = t[i] - t[i - 1];
        uint64_t bits;
        memcpy(&bits, &dt, sizeof bits);
        low = bits < low ? bits : low;
    }
    memcpy(&r, &low, sizeof r);
    return r;
}

/* Whether every segments[i] is the one of t[i] inside the keys: j + 1 < k
   and times[j] <= t[i] < times[j + 1] (as ac_curve_eval_located and
   ac_quat_curve_eval_located take them); else 0 with *bad the first i that
   is not. */
static inline int ac_track_located(const double *times, size_t k, const double *t,
                                   const size_t *segments, size_t n, size_t *bad)
{
    for (size_t i = 0; i < n; i++) {
        const size_t j = segments[i];
        if (!(j + 1 < k && times[j] <= t[i] && t[i] < times[j + 1])) {
            *bad = i;
            return 0;
        }
    }
    return 1;
}

/* The three consecutive runs of sorted finite queries: [0, *i0) before the
   first key, [*i0, *i1) inside [first, last), [*i1, n) at or after the
   last key. */
static inline void ac_track_runs(const ac_track *tr, const double *tq, size_t n, size_t *i0,
                                 size_t *i1)
{
    const double lo = tr->times[0], hi = tr->times[tr->k - 1];
    *i0 = n == 0 || tq[0] >= lo ? 0 : ac_track_run_end(tq, 0, n, lo);
    *i1 = *i0 < n && tq[*i0] < hi ? ac_track_run_end(tq, *i0, n, hi) : *i0;
}

/* ------------------------------------------------------------ locating */

/* Where a query lands. */
enum {
    AC_TRACK_INSIDE, /* segment `segment` at local time `time` (possibly folded) */
    AC_TRACK_HOLD,   /* the end key `key` held (clamp; one key; zero span) */
    AC_TRACK_LINE,   /* along the outer side of end key `key` (linear, sloped) */
    AC_TRACK_END     /* "error" mode exactly at end key `key`: the side outside does
                        not exist, so the one inside is used */
};

typedef struct ac_track_point {
    int where;      /* AC_TRACK_* */
    int mode;       /* the extrapolation mode that applied (inside: -1) */
    int after;      /* 1 after the keys, 0 before (inside: 0) */
    int mirrored;   /* a mirrored cycle of oscillate: local time runs backwards, so
                       first derivatives change sign */
    int odd;        /* an odd cycle, exactly (any cycling mode) */
    int side;       /* INSIDE: the side in local time (the other one when mirrored) */
    size_t segment; /* INSIDE: the segment, on the local side */
    size_t key;     /* HOLD, LINE, END: 0 or k - 1 */
    double time;    /* INSIDE: the local time in [first, last] */
    double cycles;  /* cycles from the keys' span to the query (0 inside) */
} ac_track_point;

/* 1 when t lies inside the keys on its side: [first, last) on the right,
   (first, last] on the left. */
static inline int ac_track_inside(const ac_track *tr, double t, int side)
{
    const double lo = tr->times[0], hi = tr->times[tr->k - 1];
    return tr->k > 1 && (side == AC_SIDE_LEFT ? t > lo && t <= hi : t >= lo && t < hi);
}

/* Locates query i at time t on a side: inside the keys its segment, outside
   them by the extrapolation mode of that end. Cycles fold t into the keys
   exactly (ac_cycle_fold); on the left side a seam (t on a cycle boundary)
   is the end of the previous cycle; in a mirrored cycle of "oscillate" the
   local side is the other one, so the rule is the same in every cycle (the
   side is taken in the query's time). `hint` is the cursor, updated. Errors:
   a non-finite t; t outside the keys where the mode is "error" (reason
   AC_REASON_BEFORE_ERROR / AFTER_ERROR with the keys' span). */
static inline ac_status ac_track_locate(const ac_track *tr, double t, int side, size_t i,
                                        size_t *hint, ac_track_point *p, ac_error *err)
{
    const size_t k = tr->k;
    const double lo = tr->times[0], hi = tr->times[k - 1];
    int after = side == AC_SIDE_LEFT ? t > lo : t >= hi, local;
    double tm, sign, parity;
    memset(p, 0, sizeof *p);
    p->mode = -1;
    if (!ac_finite(t))
        return ac_fail(err, AC_ERR_VALUE, i, AC_ARG_T, t, "must be finite");
    if (ac_track_inside(tr, t, side)) {
        p->where = AC_TRACK_INSIDE, p->time = t, p->side = side;
        p->segment = *hint = ac_track_find(tr->times, k, t, side, *hint);
        return AC_OK;
    }
    p->mode = after ? tr->after : tr->before;
    p->after = after;
    p->key = after ? k - 1 : 0;
    switch (p->mode) {
    case AC_EXTRAP_ERROR:
        if (t != (after ? hi : lo))
            return ac_because(err, after ? AC_REASON_AFTER_ERROR : AC_REASON_BEFORE_ERROR, lo,
                              hi, ac_fail(err, AC_ERR_VALUE, i, AC_ARG_T, t,
                                          "must lie in [%.15g, %.15g] (%s is AC_EXTRAP_ERROR)",
                                          lo, hi, after ? "after" : "before"));
        p->where = k == 1 ? AC_TRACK_HOLD : AC_TRACK_END;
        return AC_OK;
    case AC_EXTRAP_LINEAR:
    case AC_EXTRAP_SLOPED:
        p->where = AC_TRACK_LINE;
        return AC_OK;
    case AC_EXTRAP_CYCLE:
    case AC_EXTRAP_CYCLE_OFFSET:
    case AC_EXTRAP_OSCILLATE:
        if (k > 1 && hi - lo > 0.0)
            break;
        p->where = AC_TRACK_HOLD; /* one key or no span to repeat */
        return AC_OK;
    default:
        p->where = AC_TRACK_HOLD;
        return AC_OK;
    }
    /* t = lo + cycles * (hi - lo) + r, r in [0, hi - lo); the parity from the
       mirrored fold, exact for any t */
    tm = ac_cycle_fold(t, lo, hi, p->mode == AC_EXTRAP_OSCILLATE, &p->cycles, &sign);
    ac_cycle_fold(t, lo, hi, 1, &p->cycles, &parity);
    p->odd = parity < 0.0;
    p->mirrored = sign < 0.0;
    if (side == AC_SIDE_LEFT && tm == (p->mirrored ? hi : lo)) {
        p->cycles -= 1.0, p->odd = !p->odd;
        if (p->mode == AC_EXTRAP_OSCILLATE)
            p->mirrored = !p->mirrored;
        tm = p->mirrored ? lo : hi;
    }
    local = p->mirrored ? !side : side;
    if (local == AC_SIDE_LEFT && !(tm > lo)) /* rounded onto an end: stay inside */
        local = AC_SIDE_RIGHT;
    else if (local == AC_SIDE_RIGHT && !(tm < hi))
        local = AC_SIDE_LEFT;
    p->where = AC_TRACK_INSIDE, p->time = tm, p->side = local;
    p->segment = *hint = ac_track_find(tr->times, k, tm, local, *hint);
    return AC_OK;
}

#endif /* AC_TRACK_H */
