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
        if (!ac_finite(distance)) { /* squares beyond the range: in units of max |d| */
            double m = 0.0;
            for (int k = 0; k < 12; k++)
                m = fabs(d[k]) > m ? fabs(d[k]) : m;
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

static double read_f64(const uint8_t *p)
{
    uint64_t bits = 0;
    double x;
    for (int i = 7; i >= 0; i--)
        bits = (bits << 8) | p[i];
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

/* `bits` (1..24) bits of a stream packed least significant bit first, from
   bit `at`; every byte holding them lies in the stream. */
static uint32_t read_bits(const uint8_t *stream, uint64_t at, unsigned bits)
{
    const size_t first = (size_t)(at >> 3);
    const unsigned shift = (unsigned)(at & 7u), used = (shift + bits + 7u) / 8u; /* <= 4 */
    uint32_t word = 0;
    for (unsigned k = 0; k < used; k++)
        word |= (uint32_t)stream[first + k] << (8u * k);
    return (word >> shift) & ((1u << bits) - 1u);
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

/* Samples in segment g. */
static size_t segment_samples(const layout *l, size_t g)
{
    size_t first = g * l->length, rest = (size_t)l->info.samples - first;
    return rest < l->length ? rest : l->length;
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
    need = head + (segment_samples(l, g) * bits + 7u) / 8u;
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

ac_status ac_reduce_compressed_header(const uint8_t *data, size_t size,
                                      ac_compressed_info *info, ac_error *err)
{
    layout l;
    ac_status st = parse(data, size, &l, err);
    if (st)
        return st;
    *info = l.info;
    return AC_OK;
}

ac_status ac_reduce_compressed_info(const uint8_t *data, size_t size, ac_compressed_info *info,
                                    ac_error *err)
{
    layout l;
    ac_status st = parse(data, size, &l, err);
    if (st)
        return st;
    if (l.version == 2)
        for (size_t g = 0; g < l.segments; g++)
            if ((st = check_segment(&l, data, size, g, err)))
                return st;
    *info = l.info;
    return AC_OK;
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

/* Version 1: the components of sample s of an animated track at p. */
static void v1_sample(const uint8_t *p, unsigned bits, size_t s, double c[3])
{
    const uint8_t *packed = p + 24;
    for (size_t k = 0; k < 3; k++) {
        uint32_t q = read_bits(packed, ((uint64_t)s * 3u + k) * bits, bits);
        c[k] = read_f32(p + 8 * k) +
               read_f32(p + 8 * k + 4) * ((double)q / (double)((1u << bits) - 1u));
    }
}

/* Version 2: one sample's place in a segment, walking its animated tracks. */
typedef struct cursor {
    const uint8_t *head;   /* the current track's 8 bytes: bit counts, then (min, extent) */
    const uint8_t *stream; /* the segment's packed samples */
    uint64_t bit;          /* where the current track's samples start */
    size_t count, local;   /* samples in the segment, the sample's index there */
} cursor;

static void cursor_at(const layout *l, const uint8_t *data, size_t s, cursor *cur)
{
    const size_t g = s / l->length;
    cur->head = data + l->area + read_u32(data + l->offsets + 4u * g);
    cur->stream = cur->head + SEGMENT_HEAD * l->animated;
    cur->bit = 0;
    cur->count = segment_samples(l, g);
    cur->local = s - g * l->length;
}

/* The components of the cursor's sample of the current track, whose clip
   ranges (three f32 (minimum, extent) pairs) are at `range`; then on to
   the next track. */
static void cursor_sample(cursor *cur, const uint8_t *range, double c[3])
{
    const uint8_t *h = cur->head;
    const unsigned packed = read_u16(h);
    const unsigned b[3] = {packed & 31u, packed >> 5 & 31u, packed >> 10 & 31u};
    const unsigned width = b[0] + b[1] + b[2];
    uint64_t at = cur->bit + (uint64_t)cur->local * width;
    for (size_t k = 0; k < 3; k++) {
        const unsigned bits = b[k];
        const uint32_t q = bits ? read_bits(cur->stream, at, bits) : 0u;
        const double x = ((double)h[2 + 2 * k] +
                          (double)h[3 + 2 * k] * (((double)q + 0.5) / (double)(1u << bits))) /
                         255.0;
        c[k] = read_f32(range + 8 * k) + read_f32(range + 8 * k + 4) * x;
        at += bits;
    }
    cur->bit += (uint64_t)cur->count * width;
    cur->head += SEGMENT_HEAD;
}

static const double IDENTITY[3][4] = {{0, 0, 0, 0}, {0, 0, 0, 1}, {1, 1, 1, 0}};

/* Rotations waiting for their slerp: a block of them is interpolated in one
   loop, whose iterations are independent (the slerp is long and branch-free:
   one at a time, its latency dominated the decoding of a pose). */
#define SLERP_BLOCK 32

typedef struct slerp_block {
    double a[4][SLERP_BLOCK], b[4][SLERP_BLOCK]; /* by component: loads fill lanes */
    double *out[SLERP_BLOCK];
    size_t count;
} slerp_block;

AC_VECTORIZED_WIDE
static void flush(slerp_block *block, double u)
{
    double result[4][SLERP_BLOCK];
    for (size_t k = 0; k < block->count; k++) { /* the core's one slerp, shorter arc */
        const double x[4] = {block->a[0][k], block->a[1][k], block->a[2][k], block->a[3][k]};
        const double y[4] = {block->b[0][k], block->b[1][k], block->b[2][k], block->b[3][k]};
        double r[4];
        ac_quat_slerp_any(x, y, u, r);
        for (int c = 0; c < 4; c++)
            result[c][k] = r[c];
    }
    for (size_t k = 0; k < block->count; k++)
        for (int c = 0; c < 4; c++)
            block->out[k][c] = result[c][k];
    block->count = 0;
}

ac_status ac_reduce_compressed_sample(const uint8_t *data, size_t size, const double *t,
                                      size_t n, double *translation, double *rotation,
                                      double *scale, ac_error *err)
{
    layout l;
    ac_status st = parse(data, size, &l, err);
    size_t last, checked[2] = {SIZE_MAX, SIZE_MAX}; /* the segments checked last */
    slerp_block block;
    if (st)
        return st;
    last = (size_t)l.info.samples - 1u;
    for (size_t i = 0; i < n; i++)
        if ((st = ac_check_finite(AC_ARG_T, t + i, 1, i, err)))
            return st;
    block.count = 0;
    for (size_t i = 0; i < n; i++) {
        size_t offset = l.data;
        /* the sample pair and the fraction between them, clamped to the samples */
        double x = (t[i] - l.info.start) * l.info.rate, u = 0.0;
        size_t s0 = 0, s1 = 0;
        cursor c0, c1;
        if (x >= (double)last) {
            s0 = s1 = last;
        } else if (x > 0.0) {
            s0 = (size_t)x;
            s1 = s0 + 1;
            u = x - (double)s0;
        }
        if (l.version == 2) {
            /* the segments read are checked first (ac_reduce_compressed_info
               checks them all) */
            const size_t g[2] = {s0 / l.length, s1 / l.length};
            for (size_t k = 0; k < 2; k++) {
                if (g[k] == checked[0] || g[k] == checked[1])
                    continue;
                if ((st = check_segment(&l, data, size, g[k], err)))
                    return st;
                checked[1] = checked[0];
                checked[0] = g[k];
            }
            cursor_at(&l, data, s0, &c0);
            cursor_at(&l, data, s1, &c1);
        }
        for (size_t k = 0; k < 3u * l.info.nodes; k++) {
            const uint8_t *entry = data + HEADER_SIZE + l.entry * k;
            const int path = (int)(k % 3), kind = kind_of(&l, data, k);
            const unsigned bits = l.version == 1 ? entry[1] : 0u;
            size_t node = k / 3, width = path == 1 ? 4u : 3u;
            double *out = (path == 0 ? translation : path == 1 ? rotation : scale) +
                          (i * l.info.nodes + node) * width;
            if (kind == AC_TRACK_DEFAULT) {
                for (size_t c = 0; c < width; c++)
                    out[c] = IDENTITY[path][c];
            } else if (kind == AC_TRACK_CONSTANT) {
                for (size_t c = 0; c < width; c++)
                    out[c] = read_f32(data + offset + 4 * c);
                if (path == 1) /* (parse checked that it is non-zero) */
                    (void)ac_normalize(out, 4, out);
            } else {
                double a[3], b[3];
                if (l.version == 1) {
                    v1_sample(data + offset, bits, s0, a);
                    v1_sample(data + offset, bits, s1, b);
                } else {
                    cursor_sample(&c0, data + offset, a);
                    cursor_sample(&c1, data + offset, b);
                }
                if (path == 1) {
                    /* the samples have |q| >= 1 (one component rebuilt), never zero */
                    double qa[4], qb[4];
                    rebuild(a, rebuilt_of(&l, data, k), qa);
                    rebuild(b, rebuilt_of(&l, data, k), qb);
                    for (int c = 0; c < 4; c++) {
                        block.a[c][block.count] = qa[c];
                        block.b[c][block.count] = qb[c];
                    }
                    block.out[block.count++] = out;
                    if (block.count == SLERP_BLOCK)
                        flush(&block, u);
                } else {
                    for (size_t c = 0; c < 3; c++)
                        out[c] = a[c] + u * (b[c] - a[c]);
                }
            }
            offset += track_bytes(&l, path, kind, bits);
        }
        flush(&block, u);
    }
    return AC_OK;
}
