/* Poses sampled from a clip in one call: every track of the clip (curves
   for translations and scales, rotation curves) at a block of times, as
   ozz-animation's SamplingJob samples all of an animation's tracks. Sorted
   times are located on each distinct set of key times once per block (the
   segment of every time, by the shared track's search), and each track then
   evaluates its values at those segments (ac_curve_eval_located,
   ac_quat_curve_eval_located), with its own evaluation's expressions, so
   the values are those of the track's own evaluation to the bit. Times
   outside the keys, and unsorted times, are evaluated by the track's own
   evaluation into a block of scratch and copied to their places. */
#include <string.h>

#include "ac_internal.h"
#include "ac_track.h"

enum {
    BLOCK = 256,    /* times per block: each track's keys are read in runs */
    GROUPS = 4,     /* sets of key times located per block at a time */
    SCRATCH = 1024, /* doubles of scratch for the public evaluation */
    MEMO = 1024     /* tracks whose group is remembered from one block to the next */
};

/* A set of key times shared by tracks, and the times of the current block
   located on it: [i0, i1) lie inside the keys (in [first, last)), time i
   in segment seg[i]. */
typedef struct located {
    const double *times;
    size_t k;
    size_t hint;  /* the cursor: the last segment found */
    size_t block; /* the block located (SIZE_MAX: none yet) */
    size_t i0, i1;
    size_t seg[BLOCK];
} located;

static const double *track_times(const ac_pose_track *tr, size_t *k)
{
    if (tr->curve) {
        *k = ac_curve_keys(tr->curve);
        return ac_curve_times(tr->curve);
    }
    *k = ac_quat_curve_keys(tr->rotation);
    return ac_quat_curve_times(tr->rotation);
}

static size_t track_width(const ac_pose_track *tr)
{
    return tr->curve ? ac_curve_channels(tr->curve) : 4;
}

/* Times [a, b) of the call by the track's public evaluation, copied to
   their places. */
static ac_status evaluate(const ac_pose_track *tr, const double *t, size_t a, size_t b,
                          ac_error *err)
{
    double scratch[SCRATCH];
    const size_t width = track_width(tr), chunk = SCRATCH / width;
    for (size_t i = a; i < b; i += chunk) {
        const size_t m = b - i < chunk ? b - i : chunk;
        ac_status st = tr->curve
                           ? ac_curve_eval(tr->curve, t + i, m, 0, scratch, err)
                           : ac_quat_curve_eval(tr->rotation, NULL, t + i, m, AC_SIDE_RIGHT,
                                                scratch, NULL, err);
        if (st) {
            if (err)
                err->index += i;
            return st;
        }
        for (size_t r = 0; r < m; r++)
            memcpy(tr->out + (i + r) * tr->stride, scratch + r * width, width * sizeof(double));
    }
    return AC_OK;
}

/* The block's times tq[0..m) (sorted, finite) located on g's key times. */
static void locate(located *g, const double *tq, size_t m)
{
    const ac_track tr = {g->k, g->times, AC_EXTRAP_CLAMP, AC_EXTRAP_CLAMP};
    size_t j = g->hint;
    ac_track_runs(&tr, tq, m, &g->i0, &g->i1);
    for (size_t i = g->i0; i < g->i1; i++)
        g->seg[i] = j = ac_segment_find(g->times, g->k, tq[i], j);
    g->hint = j;
}

/* The located times of key times (times, k): the group that has them (the
   same array, or the same values), else a group taken over in turn. */
static located *group_of(located *groups, size_t *next, const double *times, size_t k)
{
    located *g;
    for (int i = 0; i < GROUPS; i++) /* the same array and keys: the common case */
        if (groups[i].times == times && groups[i].k == k)
            return &groups[i];
    for (int i = 0; i < GROUPS; i++) {
        g = &groups[i];
        if (g->times && g->k == k && g->times[0] == times[0] &&
            g->times[k - 1] == times[k - 1] &&
            memcmp(g->times, times, k * sizeof(double)) == 0)
            return g;
    }
    g = &groups[*next];
    *next = (*next + 1) % GROUPS;
    g->times = times, g->k = k, g->hint = 0, g->block = SIZE_MAX;
    return g;
}

/* Block [b, b + m) of one track whose key times were located in g: the
   times inside the keys at their segments, the others by the track's
   public evaluation. */
static ac_status sample_block(const ac_pose_track *tr, const located *g, const double *t,
                              size_t b, size_t m, ac_error *err)
{
    const size_t a0 = b + g->i0, a1 = b + g->i1;
    ac_status st = AC_OK;
    if (a1 > a0)
        st = tr->curve ? ac_curve_eval_located(tr->curve, t + a0, g->seg + g->i0, a1 - a0,
                                               tr->out + a0 * tr->stride, tr->stride, err)
                       : ac_quat_curve_eval_located(tr->rotation, t + a0, g->seg + g->i0,
                                                    a1 - a0, tr->out + a0 * tr->stride,
                                                    tr->stride, err);
    if (st) {
        if (err)
            err->index += a0;
        return st;
    }
    if ((st = evaluate(tr, t, b, a0, err)) || (st = evaluate(tr, t, a1, b + m, err)))
        return st;
    return AC_OK;
}

ac_status ac_pose_sample(const ac_pose_track *tracks, size_t count, const double *t,
                         size_t n, ac_error *err)
{
    located groups[GROUPS];
    /* track i's group in the last block and the key times that group then had:
       while it has the same array (so the same values), the track's key times
       need not be compared again (a 500-key track's are 4 KB a block) */
    const double *memo_times[MEMO];
    unsigned char memo_group[MEMO];
    size_t next = 0;
    int sorted;
    for (size_t i = 0; i < count; i++) {
        const ac_pose_track *tr = &tracks[i];
        if ((tr->curve == NULL) == (tr->rotation == NULL) || tr->out == NULL)
            return ac_fail(err, AC_ERR_VALUE, i, AC_ARG_TRACKS, (double)i,
                           "must have one curve or rotation curve and an output");
        if (tr->curve && ac_curve_channels(tr->curve) > AC_POSE_MAX_CHANNELS)
            return ac_fail(err, AC_ERR_VALUE, i, AC_ARG_TRACKS,
                           (double)ac_curve_channels(tr->curve),
                           "has a curve of more than %d channels", AC_POSE_MAX_CHANNELS);
    }
    for (int i = 0; i < GROUPS; i++)
        groups[i].times = NULL;
    for (size_t i = 0; i < count && i < MEMO; i++)
        memo_times[i] = NULL;
    sorted = n > 0 && ac_finite(t[0]) && ac_finite(t[n - 1]) && ac_track_sorted(t, n);
    for (size_t b = 0; b < n; b += BLOCK) {
        const size_t m = n - b < BLOCK ? n - b : BLOCK;
        for (size_t i = 0; i < count; i++) {
            const ac_pose_track *tr = &tracks[i];
            size_t k;
            const double *times = track_times(tr, &k);
            located *g = NULL;
            ac_status st;
            if (sorted && k > 1) {
                const located *known = i < MEMO && memo_times[i] ? &groups[memo_group[i]] : NULL;
                g = known && known->times == memo_times[i] && known->k == k
                        ? &groups[memo_group[i]]
                        : group_of(groups, &next, times, k);
                if (i < MEMO)
                    memo_times[i] = g->times, memo_group[i] = (unsigned char)(g - groups);
                if (g->block != b) {
                    locate(g, t + b, m);
                    g->block = b;
                }
            }
            st = g ? sample_block(tr, g, t, b, m, err) : evaluate(tr, t, b, b + m, err);
            if (st) {
                if (err)
                    err->index += i * n;
                return st;
            }
        }
    }
    return AC_OK;
}
