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

#endif /* AC_TRACK_H */
