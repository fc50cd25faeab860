/* Keyframe reduction and compression: ACL's object-space metric, the error
   of a candidate segment, and the validation and sampling of the byte
   layouts that animcore.compress writes (version 2) and wrote (version 1);
   all are documented in animcore.h. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "ac_internal.h"

/* ------------------------------------------------------------ the metric */

static const size_t all_items[8] = {1, 1, 1, 1, 1, 1, 1, 1};

/* The shell distance from the differences d (3 rows of 4: the local axes'
   images in columns 0-2, the translation in column 3). */
static double shell_distance(const double d[12], double shell)
{
    double origin = 0.0, widest = 0.0;
    for (int r = 0; r < 3; r++)
        origin += d[4 * r + 3] * d[4 * r + 3];
    for (int k = 0; k < 3; k++) {
        double square = 0.0, across = 0.0;
        for (int r = 0; r < 3; r++) {
            const double axis = shell * d[4 * r + k];
            across += d[4 * r + 3] * axis;
            square += axis * axis;
        }
        /* |o +- a|^2 = |o|^2 + |a|^2 +- 2 o.a: the larger sign adds 2 |o.a| */
        square += 2.0 * fabs(across);
        widest = square > widest || isnan(square) ? square : widest; /* NaN: overflow */
    }
    return sqrt(origin + widest);
}

ac_status ac_reduce_shell_error(const double *a, const double *b, const double *shell,
                                const size_t steps[3], double *error, size_t n, ac_error *err)
{
    const size_t *s = steps ? steps : all_items;
    ac_status st;
    for (size_t i = 0; i < n; i++) {
        const double *x = a + 16 * i * s[0], *y = b + 16 * i * s[1], h = shell[i * s[2]];
        double d[12], distance;
        if ((st = ac_check_finite(AC_ARG_A, x, 12, i, err)) ||
            (st = ac_check_finite(AC_ARG_B, y, 12, i, err)) ||
            (st = ac_check_finite(AC_ARG_SHELL, &h, 1, i, err)))
            return st;
        for (int k = 0; k < 12; k++)
            d[k] = x[k] - y[k];
        distance = shell_distance(d, h);
        if (!ac_finite(distance)) {
            /* squares beyond the range: in units of the largest of |d|, with the
               axes' columns weighed by a shell above 1 (their points' offsets) */
            const double weight = h > 1.0 ? h : 1.0;
            double m = 0.0;
            for (int k = 0; k < 12; k++) {
                const double v = fabs(d[k]) * (k % 4 == 3 ? 1.0 : weight);
                m = v > m ? v : m;
            }
            if (ac_finite(m)) {
                for (int k = 0; k < 12; k++)
                    d[k] /= m;
                distance = shell_distance(d, h) * m;
            }
            if (!ac_finite(distance)) /* (a difference or the result beyond the range) */
                distance = INFINITY;
        }
        error[i] = distance;
    }
    return AC_OK;
}

ac_status ac_reduce_segment_error(ac_curve_interpolation kind, size_t channels,
                                  const double *t, const double *target, const double *t0,
                                  const double *t1, const double *start, const double *end,
                                  const double *start_velocity, const double *end_velocity,
                                  const size_t steps[8], double *error, size_t n,
                                  ac_error *err)
{
    const size_t *s = steps ? steps : all_items, c = channels;
    if (kind != AC_CURVE_STEP && kind != AC_CURVE_LINEAR && kind != AC_CURVE_CUBIC)
        return ac_fail(err, AC_ERR_VALUE, 0, AC_ARG_KIND, (double)kind,
                       "must be AC_CURVE_STEP, AC_CURVE_LINEAR or AC_CURVE_CUBIC");
    for (size_t i = 0; i < n; i++) {
        const double ti = t[i * s[0]], a = t0[i * s[2]], b = t1[i * s[3]];
        const double *y = target + c * i * s[1], *p0 = start + c * i * s[4],
                     *p1 = end + c * i * s[5], *v0 = start_velocity + c * i * s[6],
                     *v1 = end_velocity + c * i * s[7];
        const double h = b - a, elapsed = ti - a;
        double worst = 0.0;
        ac_status st;
        if ((st = ac_check_finite(AC_ARG_T, &ti, 1, i, err)) ||
            (st = ac_check_finite(AC_ARG_TARGET, y, c, i, err)) ||
            (st = ac_check_finite(AC_ARG_T0, &a, 1, i, err)) ||
            (st = ac_check_finite(AC_ARG_T1, &b, 1, i, err)) ||
            (st = ac_check_finite(AC_ARG_START, p0, c, i, err)) ||
            (st = ac_check_finite(AC_ARG_END, p1, c, i, err)) ||
            (st = ac_check_finite(AC_ARG_START_VELOCITY, v0, c, i, err)) ||
            (st = ac_check_finite(AC_ARG_END_VELOCITY, v1, c, i, err)))
            return st;
        for (size_t k = 0; k < c; k++) {
            double x = p0[k], dxdu, d;
            if (kind == AC_CURVE_LINEAR)
                x = p0[k] + (elapsed / h) * (p1[k] - p0[k]);
            else if (kind == AC_CURVE_CUBIC) /* the core's one Hermite, as ac_hermite_eval */
                ac_hermite_unit((elapsed < h ? elapsed : h) / h, p0[k], h * v0[k], p1[k],
                                h * v1[k], &x, &dxdu);
            d = fabs(x - y[k]);
            if (!ac_finite(d)) {
                worst = INFINITY;
                break;
            }
            worst = d > worst ? d : worst;
        }
        error[i] = worst;
    }
    return AC_OK;
}

ac_status ac_reduce_rotation_error(const double *t, const double *target, const double *t0,
                                   const double *t1, const double *start, const double *end,
                                   const size_t steps[6], double *error, size_t n,
                                   ac_error *err)
{
    enum { BLOCK = 256 };
    const size_t *s = steps ? steps : all_items;
    const size_t slerp_steps[3] = {s[4], s[5], 1};
    double u[BLOCK], rotation[4 * BLOCK];
    for (size_t first = 0; first < n; first += BLOCK) {
        const size_t m = n - first < BLOCK ? n - first : BLOCK;
        ac_status st;
        for (size_t k = 0; k < m; k++) {
            const size_t i = first + k;
            const double ti = t[i * s[0]], a = t0[i * s[2]], b = t1[i * s[3]];
            if ((st = ac_check_finite(AC_ARG_T, &ti, 1, i, err)) ||
                (st = ac_check_finite(AC_ARG_TARGET, target + 4 * i * s[1], 4, i, err)) ||
                (st = ac_check_finite(AC_ARG_T0, &a, 1, i, err)) ||
                (st = ac_check_finite(AC_ARG_T1, &b, 1, i, err)))
                return st;
            u[k] = (ti - a) / (b - a);
        }
        /* the core's one slerp (of the quaternion kernels, bit for bit) */
        if ((st = ac_quat_batch_slerp(start + 4 * first * s[4], end + 4 * first * s[5], u,
                                      slerp_steps, rotation, m, err))) {
            if (err)
                err->index += first;
            return st;
        }
        for (size_t k = 0; k < m; k++) {
            const double *q = rotation + 4 * k, *y = target + 4 * (first + k) * s[1];
            const double dot = fabs(q[0] * y[0] + q[1] * y[1] + q[2] * y[2] + q[3] * y[3]);
            error[first + k] = 2.0 * acos(dot < 1.0 ? dot : 1.0);
        }
    }
    return AC_OK;
}

/* ------------------------------------------------------ compressed clips */

#define HEADER_SIZE 32u
#define MAX_NODES (1u << 20)
#define MAX_SAMPLES (1u << 28)
#define MAX_BITS 24u
#define SEGMENT_HEAD 8u /* per animated track in a segment: u16 bit counts, 3 (min, extent) */

static uint16_t read_u16(const uint8_t *p) { return (uint16_t)(p[0] | (p[1] << 8)); }

static uint32_t read_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
           ((uint32_t)p[3] << 24);
}

static uint64_t read_u64(const uint8_t *p)
{
    return (uint64_t)read_u32(p) | (uint64_t)read_u32(p + 4) << 32;
}

static double read_f64(const uint8_t *p)
{
    uint64_t bits = read_u64(p);
    double x;
    memcpy(&x, &bits, sizeof x);
    return x;
}

static double read_f32(const uint8_t *p)
{
    uint32_t bits = read_u32(p);
    float x;
    memcpy(&x, &bits, sizeof x);
    return (double)x;
}

/* `bits` (0..24) bits of a stream packed least significant bit first, from
   bit `at`; every byte holding them lies before `end`. One little-endian
   word where 4 bytes lie there (a shift <= 7 and 24 bits fit in it). */
static uint32_t read_bits(const uint8_t *stream, const uint8_t *end, uint64_t at,
                          unsigned bits)
{
    const uint8_t *p = stream + (size_t)(at >> 3);
    uint32_t word = 0;
    if (end - p >= 4)
        word = read_u32(p);
    else
        for (ptrdiff_t k = 0; k < end - p; k++)
            word |= (uint32_t)p[k] << (8 * k);
    return (word >> (at & 7u)) & ((1u << bits) - 1u);
}

/* What the header and the track table say, and where the parts lie. */
typedef struct layout {
    ac_compressed_info info;
    unsigned version;
    size_t entry;    /* bytes per track-table entry: 4 (version 1), 1 (version 2) */
    size_t data;     /* the first track's data (version 2: its clip data) */
    size_t length;   /* version 2: samples per segment */
    size_t segments; /* version 2: the segment count */
    size_t offsets;  /* version 2: the segment offset table */
    size_t area;     /* version 2: the first segment (offsets count from here) */
    size_t animated; /* version 2: animated tracks */
} layout;

static int kind_of(const layout *l, const uint8_t *data, size_t k)
{
    uint8_t b = data[HEADER_SIZE + l->entry * k];
    return l->version == 1 ? b : b & 3;
}

static unsigned rebuilt_of(const layout *l, const uint8_t *data, size_t k)
{
    const uint8_t *entry = data + HEADER_SIZE + l->entry * k;
    return l->version == 1 ? entry[2] : (entry[0] >> 2) & 3u;
}

/* Bytes of a track's data after the table: version 1 its samples too,
   version 2 its clip part (the samples are in the segments). */
static size_t track_bytes(const layout *l, int path, int kind, unsigned bits)
{
    if (kind == AC_TRACK_DEFAULT)
        return 0;
    if (kind == AC_TRACK_CONSTANT)
        return path == 1 ? 16u : 12u;
    if (l->version == 1) /* samples <= 2^28, 3 * bits <= 72: the bit count fits 64 bits */
        return 24u + (size_t)(((uint64_t)l->info.samples * 3u * bits + 7u) / 8u);
    return 24u; /* three (minimum, extent) pairs */
}

static ac_status bad(ac_error *err, size_t offset, double value, const char *what)
{
    return ac_fail(err, AC_ERR_VALUE, offset, AC_ARG_VALUE, value, "%s", what);
}

/* The header, the track table and the tracks' data (version 2: up to the
   segment offset table), every read checked against size first. */
static ac_status parse(const uint8_t *data, size_t size, layout *l, ac_error *err)
{
    ac_compressed_info *info = &l->info;
    size_t offset;
    if (size < HEADER_SIZE)
        return bad(err, size, (double)size, "too short for the 32-byte header");
    if (memcmp(data, "ACCC", 4) != 0)
        return bad(err, 0, data[0], "not a compressed clip (magic 'ACCC')");
    l->version = read_u16(data + 4);
    if (l->version != 1 && l->version != AC_COMPRESSED_VERSION)
        return bad(err, 4, l->version, "unsupported version (this build reads 1 and 2)");
    l->length = read_u16(data + 6);
    if (l->version == 1 && l->length != 0)
        return bad(err, 6, (double)l->length, "reserved field must be 0");
    if (l->version == 2 && l->length == 0)
        return bad(err, 6, 0.0, "samples per segment must be >= 1");
    info->nodes = read_u32(data + 8);
    info->samples = read_u32(data + 12);
    info->start = read_f64(data + 16);
    info->rate = read_f64(data + 24);
    if (info->nodes > MAX_NODES)
        return bad(err, 8, (double)info->nodes, "node count above 2^20");
    if (info->samples < 1 || info->samples > MAX_SAMPLES)
        return bad(err, 12, (double)info->samples, "sample count must lie in [1, 2^28]");
    if (!ac_finite(info->start))
        return bad(err, 16, info->start, "start time must be finite");
    if (!(info->rate > 0.0 && ac_finite(info->rate)))
        return bad(err, 24, info->rate, "sample rate must be finite and > 0");
    l->entry = l->version == 1 ? 4u : 1u;
    offset = HEADER_SIZE + l->entry * 3u * (size_t)info->nodes; /* <= 32 + 12 * 2^20 */
    if (offset > size)
        return bad(err, size, (double)size, "too short for the track table");
    l->data = offset;
    l->animated = 0;
    /* each track's entry, then its data: in bounds, floats finite, extents
       >= 0, a constant rotation non-zero */
    for (size_t k = 0; k < 3u * info->nodes; k++) {
        const size_t at = HEADER_SIZE + l->entry * k;
        const int path = (int)(k % 3), kind = kind_of(l, data, k);
        const unsigned rebuilt = rebuilt_of(l, data, k);
        unsigned bits = 0;
        size_t bytes, floats;
        double norm = 0.0;
        if (kind > AC_TRACK_ANIMATED)
            return bad(err, at, data[at], "track kind must be 0, 1 or 2");
        if (l->version == 1) {
            bits = data[at + 1];
            if (kind == AC_TRACK_ANIMATED ? bits < 1 || bits > MAX_BITS : bits != 0)
                return bad(err, at + 1, bits, "bits must lie in [1, 24] (animated) or be 0");
            if (data[at + 3] != 0)
                return bad(err, at + 3, data[at + 3], "reserved field must be 0");
        } else if (data[at] >> 4) {
            return bad(err, at, data[at], "the entry's bits 4 to 7 must be 0");
        }
        if (rebuilt > (kind == AC_TRACK_ANIMATED && path == 1 ? 3u : 0u))
            return bad(err, l->version == 1 ? at + 2 : at, l->version == 1 ? rebuilt : data[at],
                       "rebuilt component must be 0 (w) to 3 (z) on an animated rotation, "
                       "else 0");
        bytes = track_bytes(l, path, kind, bits);
        if (bytes > size - offset)
            return bad(err, size, (double)size, "too short for the track data");
        floats = kind == AC_TRACK_ANIMATED ? 6u : kind == AC_TRACK_CONSTANT ? bytes / 4u : 0u;
        for (size_t c = 0; c < floats; c++) {
            double x = read_f32(data + offset + 4 * c);
            if (!ac_finite(x))
                return bad(err, offset + 4 * c, x, "must be finite");
            if (kind == AC_TRACK_ANIMATED && c % 2 == 1 && !(x >= 0.0))
                return bad(err, offset + 4 * c, x, "a range extent must be >= 0");
            norm += x * x;
        }
        if (kind == AC_TRACK_CONSTANT && path == 1 && !(norm > 0.0))
            return bad(err, offset, norm, "a constant rotation must be non-zero");
        l->animated += kind == AC_TRACK_ANIMATED;
        offset += bytes;
    }
    info->animated = (uint32_t)l->animated; /* <= 3 * 2^20 */
    if (l->version == 1) {
        if (offset != size)
            return bad(err, offset, (double)size, "trailing bytes after the track data");
        return AC_OK;
    }
    l->segments = ((size_t)info->samples + l->length - 1u) / l->length;
    if (4u * l->segments > size - offset)
        return bad(err, size, (double)size, "too short for the segment offset table");
    l->offsets = offset;
    l->area = offset + 4u * l->segments;
    return AC_OK;
}

/* Samples in segment g of `samples` in segments of `length`. */
static size_t segment_samples(size_t samples, size_t length, size_t g)
{
    size_t rest = samples - g * length;
    return rest < length ? rest : length;
}

/* Segment g of a version 2 layout: it starts at its offset (0 for the first)
   and ends exactly where the next one starts (the last at the end of the
   data), its bit counts lie in [0, 24] and its size is what they say. The
   whole layout is valid when parse and this check of every segment pass;
   sampling checks the segments it reads. */
static ac_status check_segment(const layout *l, const uint8_t *data, size_t size, size_t g,
                               ac_error *err)
{
    const size_t field = l->offsets + 4u * g, room = size - l->area;
    const size_t start = read_u32(data + field);
    size_t end = room, head = SEGMENT_HEAD * l->animated; /* <= 9 * 3 * 2^20 */
    const uint8_t *p;
    uint64_t bits = 0, need;
    if (g == 0 && start != 0)
        return bad(err, field, (double)start, "the first segment's offset must be 0");
    if (g + 1 < l->segments) {
        end = read_u32(data + field + 4);
        if (end > room)
            return bad(err, field + 4, (double)end, "segment offset beyond the data");
        if (end < start)
            return bad(err, field + 4, (double)end, "segment offsets must not decrease");
    } else if (start > room) {
        return bad(err, field, (double)start, "segment offset beyond the data");
    }
    if (end - start < head)
        return bad(err, l->area + end, (double)(end - start),
                   "too short for the segment's track headers");
    p = data + l->area + start;
    for (size_t a = 0; a < l->animated; a++) {
        const unsigned packed = read_u16(p + SEGMENT_HEAD * a);
        if (packed >> 15 || (packed & 31u) > MAX_BITS || (packed >> 5 & 31u) > MAX_BITS ||
            (packed >> 10 & 31u) > MAX_BITS)
            return bad(err, l->area + start + SEGMENT_HEAD * a, packed,
                       "bit counts must lie in [0, 24] (5 bits each, bit 15 zero)");
        bits += (packed & 31u) + (packed >> 5 & 31u) + (packed >> 10 & 31u);
    }
    /* <= 2^16 samples * 72 bits * 3 * 2^20 tracks: no overflow */
    need = head + (segment_samples(l->info.samples, l->length, g) * bits + 7u) / 8u;
    if ((uint64_t)(end - start) < need)
        return bad(err, l->area + end, (double)(end - start),
                   "too short for the segment's samples");
    if ((uint64_t)(end - start) > need) {
        if (g + 1 == l->segments)
            return bad(err, l->area + start + (size_t)need, (double)size,
                       "trailing bytes after the last segment");
        return bad(err, field + 4, (double)end, "segment offset is not the previous "
                                                "segment's end");
    }
    return AC_OK;
}

/* parse and every segment's check: the whole layout. */
static ac_status parse_whole(const uint8_t *data, size_t size, layout *l, ac_error *err)
{
    ac_status st = parse(data, size, l, err);
    if (!st && l->version == 2)
        for (size_t g = 0; g < l->segments && !st; g++)
            st = check_segment(l, data, size, g, err);
    return st;
}

ac_status ac_reduce_compressed_info(const uint8_t *data, size_t size, ac_compressed_info *info,
                                    ac_error *err)
{
    layout l;
    ac_status st = parse_whole(data, size, &l, err);
    if (!st)
        *info = l.info;
    return st;
}

/* A rotation from three stored components: the `rebuilt` one (0: w, 1: x,
   2: y, 3: z) is sqrt(1 - the others' squares), or 0, the others taken in
   x, y, z, w order. */
static void rebuild(const double c[3], unsigned rebuilt, double v[4])
{
    const size_t skip = rebuilt == 0 ? 3u : rebuilt - 1u;
    double sum = 0.0;
    size_t at = 0;
    for (size_t k = 0; k < 4; k++) {
        if (k == skip)
            continue;
        v[k] = c[at++];
        sum += v[k] * v[k];
    }
    v[skip] = sum < 1.0 ? sqrt(1.0 - sum) : 0.0;
}

/* Version 1: the components of sample s of animated track `tr` (its
   samples follow its clip ranges) as fractions of its ranges. */
static void v1_sample(const ac_compressed_clip *clip, const ac_compressed_track *tr, size_t s,
                      double x[3])
{
    const uint8_t *packed = clip->data + tr->data + 24;
    for (size_t k = 0; k < 3; k++) {
        uint32_t q = read_bits(packed, clip->data + clip->size,
                               ((uint64_t)s * 3u + k) * tr->bits, tr->bits);
        x[k] = (double)q / (double)((1u << tr->bits) - 1u);
    }
}

/* Version 2: one sample's place in a segment, walking its animated tracks. */
typedef struct cursor {
    const uint8_t *head;   /* the current track's 8 bytes: bit counts, then (min, extent) */
    const uint8_t *stream; /* the segment's packed samples */
    const uint8_t *end;    /* the end of the layout: reads of whole words stop before it */
    uint64_t bit;          /* where the current track's samples start */
    size_t count, local;   /* samples in the segment, the sample's index there */
} cursor;

static void cursor_at(const ac_compressed_clip *clip, size_t s, cursor *cur)
{
    const size_t g = s / clip->length;
    cur->head = clip->data + clip->area + read_u32(clip->data + clip->offsets + 4u * g);
    cur->stream = cur->head + SEGMENT_HEAD * clip->info.animated;
    cur->end = clip->data + clip->size;
    cur->bit = 0;
    cur->count = segment_samples(clip->info.samples, clip->length, g);
    cur->local = s - g * clip->length;
}

/* 2^-(b + 1) for the bit counts b = 0..24 */
static const double HALF_INVERSE_POWER[MAX_BITS + 1] = {
    0x1p-1,  0x1p-2,  0x1p-3,  0x1p-4,  0x1p-5,  0x1p-6,  0x1p-7,  0x1p-8,  0x1p-9,
    0x1p-10, 0x1p-11, 0x1p-12, 0x1p-13, 0x1p-14, 0x1p-15, 0x1p-16, 0x1p-17, 0x1p-18,
    0x1p-19, 0x1p-20, 0x1p-21, 0x1p-22, 0x1p-23, 0x1p-24, 0x1p-25};

/* The components of sample `local` of the cursor's current track (bit
   counts b, `width` their sum) as the numerators m + e ((q + 0.5) / 2^b) of
   their fractions (of 255) of the clip ranges. Every step of that formula
   is exact in double (m, e <= 255, q < 2^24), so it equals the integer
   (m 2^(b+1) + e (2q + 1)) < 2^34 scaled by 2^-(b+1): one conversion. */
static AC_FORCE_INLINE void track_sample(const cursor *cur, const unsigned b[3], unsigned width,
                                         size_t local, double num[3])
{
    const uint8_t *h = cur->head;
    const uint64_t at = cur->bit + (uint64_t)local * width;
    const uint8_t *p = cur->stream + (size_t)(at >> 3);
    unsigned shift = (unsigned)(at & 7u);
    uint64_t word = 0;
    const int whole = shift + width <= 64 && cur->end - p >= 8;
    if (whole) /* the sample in one word */
        word = read_u64(p);
    for (size_t k = 0; k < 3; k++) {
        const uint64_t q = whole ? (word >> shift) & ((1u << b[k]) - 1u)
                                 : read_bits(p, cur->end, shift, b[k]);
        const uint64_t m = h[2 + 2 * k], e = h[3 + 2 * k];
        num[k] = (double)(int64_t)((m << (b[k] + 1)) + e * (2 * q + 1)) * HALF_INVERSE_POWER[b[k]];
        shift += b[k];
    }
}

/* The current track's bit counts and their sum; then on to the next track. */
static AC_FORCE_INLINE unsigned track_bits(const cursor *cur, unsigned b[3])
{
    const unsigned packed = read_u16(cur->head);
    b[0] = packed & 31u;
    b[1] = packed >> 5 & 31u;
    b[2] = packed >> 10 & 31u;
    return b[0] + b[1] + b[2];
}

static AC_FORCE_INLINE void next_track(cursor *cur, unsigned width)
{
    cur->bit += (uint64_t)cur->count * width;
    cur->head += SEGMENT_HEAD;
}

/* The two cursors' samples of the current track as numerators (see
   track_sample); then both on to the next track. Cursors in one segment
   share its head. */
static AC_FORCE_INLINE void cursor_samples(cursor *c0, cursor *c1, double a[3], double b[3])
{
    unsigned bits0[3], bits1[3];
    const unsigned width0 = track_bits(c0, bits0);
    track_sample(c0, bits0, width0, c0->local, a);
    if (c1->head == c0->head) {
        track_sample(c0, bits0, width0, c1->local, b);
        next_track(c1, width0);
    } else {
        const unsigned width1 = track_bits(c1, bits1);
        track_sample(c1, bits1, width1, c1->local, b);
        next_track(c1, width1);
    }
    next_track(c0, width0);
}

static const double IDENTITY[3][4] = {{0, 0, 0, 0}, {0, 0, 0, 1}, {1, 1, 1, 0}};

ac_status ac_reduce_compressed_open(const uint8_t *data, size_t size,
                                    ac_compressed_track *tracks, double *rest,
                                    ac_compressed_clip *clip, ac_error *err)
{
    layout l;
    size_t offset, animated = 0;
    ac_status st = parse_whole(data, size, &l, err);
    if (st)
        return st;
    offset = l.data;
    for (size_t k = 0; k < 3u * l.info.nodes; k++) {
        const int path = (int)(k % 3), kind = kind_of(&l, data, k);
        const unsigned bits = l.version == 1 ? data[HEADER_SIZE + l.entry * k + 1] : 0u;
        const size_t width = path == 1 ? 4u : 3u, node = k / 3;
        static const size_t first[3] = {0, 3, 7}; /* each path's part of rest, per node */
        double *out = rest + first[path] * l.info.nodes + node * width;
        if (kind == AC_TRACK_ANIMATED) {
            ac_compressed_track *tr = tracks + animated++;
            for (size_t c = 0; c < 6; c++)
                tr->range[c] = read_f32(data + offset + 4 * c);
            tr->data = offset;
            tr->out = node * width;
            tr->path = (uint8_t)path;
            tr->rebuilt = (uint8_t)rebuilt_of(&l, data, k);
            tr->bits = (uint8_t)bits;
        }
        for (size_t c = 0; c < width; c++) /* what an animated track leaves is never read */
            out[c] = kind == AC_TRACK_CONSTANT ? read_f32(data + offset + 4 * c)
                                               : IDENTITY[path][c];
        if (kind == AC_TRACK_CONSTANT && path == 1) /* (parse checked that it is non-zero) */
            (void)ac_normalize(out, 4, out);
        offset += track_bytes(&l, path, kind, bits);
    }
    clip->info = l.info;
    clip->data = data;
    clip->size = size;
    clip->version = l.version;
    clip->length = l.length;
    clip->offsets = l.offsets;
    clip->area = l.area;
    clip->tracks = tracks;
    clip->rest = rest;
    return AC_OK;
}

/* Up to POSE_BLOCK animated tracks of one pose, finished together (the
   slerp is a long branch-free chain: one track at a time, its latency
   dominated the decoding of a pose): the samples either side of the time
   as numerators of fractions of a common denominator (255, or 1 for
   version 1's fractions), the clip ranges, the rebuilt component of a
   rotation (-1: a vector), and where each value goes. */
#ifdef AC_SIMD
#define POSE_BLOCK (AC_GROUPS * AC_LANES)
#else
#define POSE_BLOCK 32
#endif

typedef struct pose_block {
    double num[2][3][POSE_BLOCK]; /* by sample, component, track: loads fill lanes */
    double lo[3][POSE_BLOCK], extent[3][POSE_BLOCK], rebuilt[POSE_BLOCK];
    double value[4][POSE_BLOCK]; /* the results */
    double *out[POSE_BLOCK];
    size_t count;
} pose_block;

/* Track k's values at u: each component minimum + extent * (num / den),
   then a rotation rebuilt at both samples and slerped, a vector lerped. */
AC_VECTORIZED_WIDE
static void finish_items(pose_block *b, double den, double u)
{
    for (size_t k = 0; k < b->count; k++) {
        double v[2][3], r[4];
        for (int j = 0; j < 2; j++)
            for (int c = 0; c < 3; c++)
                v[j][c] = b->lo[c][k] + b->extent[c][k] * (b->num[j][c][k] / den);
        if (b->rebuilt[k] >= 0.0) {
            double qa[4], qb[4];
            rebuild(v[0], (unsigned)b->rebuilt[k], qa);
            rebuild(v[1], (unsigned)b->rebuilt[k], qb);
            ac_quat_slerp_any(qa, qb, u, r); /* the core's one slerp, shorter arc */
        } else {
            for (int c = 0; c < 3; c++)
                r[c] = v[0][c] + u * (v[1][c] - v[0][c]);
            r[3] = 0.0;
        }
        for (int c = 0; c < 4; c++)
            b->value[c][k] = r[c];
    }
}

#ifdef AC_SIMD
/* finish_items in lanes, `groups` groups of them. The division by a
   correctly rounded reciprocal and two corrections (the numerators are 0 or
   >= 2^-25, the fractions normal), sqrt and the slerp are the scalar path's
   IEEE operations, so the results are its bits. */
AC_SIMD_FN void finish_groups(pose_block *b, double den, double u, int groups)
{
    const ac_vd d = ac_vd_splat(den), y = ac_vd_splat(1.0 / den), w = ac_vd_splat(u);
    ac_vd qa[AC_GROUPS][4], qb[AC_GROUPS][4], r[AC_GROUPS][4], lerp[AC_GROUPS][3], uu[AC_GROUPS];
    ac_vm ok[AC_GROUPS], vector[AC_GROUPS];
    AC_EACH {
        const size_t at = (size_t)g * AC_LANES;
        /* the group's tracks; lanes beyond the block's count load zeros */
        const int live = at >= b->count ? 0 : (int)(b->count - at < AC_LANES ? b->count - at
                                                                               : AC_LANES);
        const ac_vd rebuilt = ac_vd_load_first(b->rebuilt + at, live);
        const ac_vd skip = ac_vd_pick((ac_vm)(rebuilt == 0.0), ac_vd_splat(3.0), rebuilt - 1.0);
        ac_vd v[2][3];
        for (int j = 0; j < 2; j++) {
            ac_vd sum = ac_vd_splat(0.0), last;
            ac_vd *q = j ? qb[g] : qa[g];
            for (int c = 0; c < 3; c++) {
                v[j][c] = ac_vd_load_first(b->lo[c] + at, live) +
                          ac_vd_load_first(b->extent[c] + at, live) *
                              ac_vd_div_by(ac_vd_load_first(b->num[j][c] + at, live), d, y);
                sum = sum + v[j][c] * v[j][c];
            }
            last = ac_vd_sqrt(ac_vd_pick((ac_vm)(sum < 1.0), 1.0 - sum, ac_vd_splat(0.0)));
            /* component k is v[k] before the rebuilt one, v[k - 1] after */
            for (int k = 0; k < 4; k++) {
                const ac_vd before = k < 3 ? v[j][k] : last, after = k > 0 ? v[j][k - 1] : last;
                q[k] = ac_vd_pick((ac_vm)(skip == (double)k), last,
                                  ac_vd_pick((ac_vm)(skip > (double)k), before, after));
            }
        }
        vector[g] = (ac_vm)(rebuilt < 0.0);
        for (int c = 0; c < 3; c++)
            lerp[g][c] = v[0][c] + w * (v[1][c] - v[0][c]);
        uu[g] = w;
    }
    ac_vd_quat_slerp_any(qa, qb, uu, r, ok, AC_GROUPS);
    AC_EACH for (int c = 0; c < 4; c++) {
        const ac_vd vec = c < 3 ? lerp[g][c] : ac_vd_splat(0.0);
        _mm512_storeu_pd(b->value[c] + (size_t)g * AC_LANES,
                         (__m512d)ac_vd_pick(vector[g], vec, r[g][c]));
    }
}

/* finish_groups on as few groups as hold the block's tracks (a clip often
   has fewer animated tracks than a block holds). */
AC_SIMD_KERNEL void finish_lanes(pose_block *b, double den, double u)
{
    if (b->count <= AC_LANES)
        finish_groups(b, den, u, 1);
    else if (b->count <= 2 * AC_LANES)
        finish_groups(b, den, u, 2);
    else
        finish_groups(b, den, u, AC_GROUPS);
}

/* cursor_samples for `live` (1..AC_LANES) tracks at once, both cursors in
   one segment: the numerators into the block's slots from `at`, the
   cursors on past the tracks. The tracks'
   heads are one load, their first bits a running sum in the lanes, each
   sample's word a gather; the numerators are track_sample's integers,
   converted exactly (below 2^52) and scaled by 2^-(b + 1), so their bits
   are track_sample's. 0, with nothing done, where a sample is not in one
   whole word of the data (track_sample reads it by parts). */
AC_SIMD_KERNEL int samples_lanes(cursor *c0, cursor *c1, int live, pose_block *b, size_t at)
{
    const __mmask8 k = (__mmask8)((1u << live) - 1u);
    const __m512i low5 = _mm512_set1_epi64(31), zero = _mm512_setzero_si512();
    const __m512i head = _mm512_maskz_loadu_epi64(k, c0->head);
    const __m512i bits[3] = {_mm512_and_si512(head, low5),
                             _mm512_and_si512(_mm512_srli_epi64(head, 5), low5),
                             _mm512_and_si512(_mm512_srli_epi64(head, 10), low5)};
    const __m512i width = _mm512_add_epi64(_mm512_add_epi64(bits[0], bits[1]), bits[2]);
    const __m512i span = _mm512_mul_epu32(width, _mm512_set1_epi64((long long)c0->count));
    const __m512i room = _mm512_set1_epi64((long long)(c0->end - c0->stream) - 8);
    __m512i sum = span, first, at_bits[2];
    /* the tracks' first bits: the cursor's, then a running sum of the spans */
    for (int shift = 1; shift < AC_LANES; shift *= 2)
        sum = _mm512_add_epi64(sum, _mm512_maskz_permutexvar_epi64(
                                        (__mmask8)(0xFFu << shift),
                                        _mm512_sub_epi64(_mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0),
                                                         _mm512_set1_epi64(shift)),
                                        sum));
    first = _mm512_add_epi64(_mm512_sub_epi64(sum, span), _mm512_set1_epi64((long long)c0->bit));
    for (int j = 0; j < 2; j++) {
        const size_t local = j ? c1->local : c0->local;
        at_bits[j] = _mm512_add_epi64(first, _mm512_mul_epu32(width,
                                                              _mm512_set1_epi64((long long)local)));
        /* whole words only: shift + width <= 64 and 8 bytes inside the data */
        if (_mm512_mask_cmpgt_epi64_mask(
                k, _mm512_add_epi64(_mm512_and_si512(at_bits[j], _mm512_set1_epi64(7)), width),
                _mm512_set1_epi64(64)) ||
            _mm512_mask_cmpgt_epi64_mask(k, _mm512_srli_epi64(at_bits[j], 3), room))
            return 0;
    }
    for (int j = 0; j < 2; j++) {
        const __m512i bytes = _mm512_srli_epi64(at_bits[j], 3);
        __m512i word = _mm512_mask_i64gather_epi64(zero, k, bytes, c0->stream, 1);
        word = _mm512_srlv_epi64(word, _mm512_and_si512(at_bits[j], _mm512_set1_epi64(7)));
        for (int c = 0; c < 3; c++) {
            const __m512i one = _mm512_set1_epi64(1);
            const __m512i q = _mm512_and_si512(
                word, _mm512_sub_epi64(_mm512_sllv_epi64(one, bits[c]), one));
            const __m512i m = _mm512_and_si512(_mm512_srli_epi64(head, 16 + 16 * c),
                                               _mm512_set1_epi64(255));
            const __m512i e = _mm512_and_si512(_mm512_srli_epi64(head, 24 + 16 * c),
                                               _mm512_set1_epi64(255));
            const __m512i integer = _mm512_add_epi64(
                _mm512_sllv_epi64(m, _mm512_add_epi64(bits[c], one)),
                _mm512_mul_epu32(e, _mm512_add_epi64(_mm512_add_epi64(q, q), one)));
            /* (double)integer, exact below 2^52, times 2^-(b + 1) (its exponent field) */
            const __m512i magic = _mm512_set1_epi64(0x4330000000000000);
            const __m512d value = _mm512_sub_pd(
                _mm512_castsi512_pd(_mm512_or_si512(integer, magic)), _mm512_set1_pd(0x1p52));
            const __m512d scale = _mm512_castsi512_pd(_mm512_slli_epi64(
                _mm512_sub_epi64(_mm512_set1_epi64(1022), bits[c]), 52));
            _mm512_mask_storeu_pd(b->num[j][c] + at, k, _mm512_mul_pd(value, scale));
            word = _mm512_srlv_epi64(word, bits[c]);
        }
    }
    {
        const uint64_t total = (uint64_t)_mm512_reduce_add_epi64(_mm512_maskz_mov_epi64(k, span));
        c0->bit += total, c1->bit += total;
        c0->head += SEGMENT_HEAD * (size_t)live, c1->head += SEGMENT_HEAD * (size_t)live;
    }
    return 1;
}
#endif

/* The block's values, each written to its place. */
static void finish(pose_block *b, double den, double u, int lanes)
{
    if (!b->count)
        return;
#ifdef AC_SIMD
    if (lanes)
        finish_lanes(b, den, u);
    else
#endif
        finish_items(b, den, u);
    (void)lanes;
    for (size_t k = 0; k < b->count; k++)
        for (int c = 0; c < (b->rebuilt[k] >= 0.0 ? 4 : 3); c++)
            b->out[k][c] = b->value[c][k];
    b->count = 0;
}

ac_status ac_reduce_compressed_decode(const ac_compressed_clip *clip, const double *t, size_t n,
                                      double *translation, double *rotation, double *scale,
                                      ac_error *err)
{
    const size_t nodes = clip->info.nodes, last = (size_t)clip->info.samples - 1u;
    const double den = clip->version == 1 ? 1.0 : 255.0; /* version 1 stores the fractions */
    pose_block block;
    int lanes = 0;
    ac_status st;
    for (size_t i = 0; i < n; i++)
        if ((st = ac_check_finite(AC_ARG_T, t + i, 1, i, err)))
            return st;
#ifdef AC_SIMD
    lanes = ac_simd_available();
#endif
    block.count = 0;
    for (size_t i = 0; i < n; i++) {
        double *const out[3] = {translation + i * nodes * 3, rotation + i * nodes * 4,
                                scale + i * nodes * 3};
        /* the sample pair and the fraction between them, clamped to the samples */
        double x = (t[i] - clip->info.start) * clip->info.rate, u = 0.0;
        size_t s0 = 0, s1 = 0;
        cursor c0 = {0}, c1 = {0}; /* (read for version 2 only) */
        if (x >= (double)last) {
            s0 = s1 = last;
        } else if (x > 0.0) {
            s0 = (size_t)x;
            s1 = s0 + 1;
            u = x - (double)s0;
        }
        memcpy(out[0], clip->rest, 3 * nodes * sizeof(double));
        memcpy(out[1], clip->rest + 3 * nodes, 4 * nodes * sizeof(double));
        memcpy(out[2], clip->rest + 7 * nodes, 3 * nodes * sizeof(double));
        if (clip->version == 2) {
            cursor_at(clip, s0, &c0);
            cursor_at(clip, s1, &c1);
        }
        for (size_t k = 0; k < clip->info.animated;) {
            /* the next tracks (up to a group of lanes) whose numerators the
               lanes read, or one track by the scalar path */
            size_t many = 0;
#ifdef AC_SIMD
            if (lanes && clip->version == 2 && c0.head == c1.head) {
                const size_t room = POSE_BLOCK - block.count, left = clip->info.animated - k;
                many = left < room ? left : room;
                many = many < AC_LANES ? many : AC_LANES;
                if (!samples_lanes(&c0, &c1, (int)many, &block, block.count))
                    many = 0;
            }
#endif
            if (!many) {
                double a[3], b[3];
                if (clip->version == 1) {
                    v1_sample(clip, clip->tracks + k, s0, a);
                    v1_sample(clip, clip->tracks + k, s1, b);
                } else {
                    cursor_samples(&c0, &c1, a, b);
                }
                for (int c = 0; c < 3; c++) {
                    block.num[0][c][block.count] = a[c];
                    block.num[1][c][block.count] = b[c];
                }
                many = 1;
            }
            for (size_t end = k + many; k < end; k++) {
                const ac_compressed_track *tr = clip->tracks + k;
                const size_t at = block.count++;
                for (int c = 0; c < 3; c++) {
                    block.lo[c][at] = tr->range[2 * c];
                    block.extent[c][at] = tr->range[2 * c + 1];
                }
                block.rebuilt[at] = tr->path == 1 ? (double)tr->rebuilt : -1.0;
                block.out[at] = out[tr->path] + tr->out;
            }
            if (block.count == POSE_BLOCK)
                finish(&block, den, u, lanes);
        }
        finish(&block, den, u, lanes);
    }
    return AC_OK;
}
