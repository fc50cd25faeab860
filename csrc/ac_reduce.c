/* Compressed clips: validation and sampling of the byte layout that
   animcore.compress writes (the layout is documented in animcore.h). */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "ac_internal.h"

#define HEADER_SIZE 32u
#define TRACK_SIZE 4u
#define MAX_NODES (1u << 20)
#define MAX_SAMPLES (1u << 28)
#define MAX_BITS 24u

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

/* Components a track stores: a constant rotation keeps all four, an
   animated one x, y, z (w >= 0 rebuilt). */
static size_t stored(int path, int kind)
{
    if (kind == AC_TRACK_CONSTANT)
        return path == 1 ? 4u : 3u;
    return 3u;
}

static size_t track_bytes(int path, int kind, unsigned bits, uint64_t samples)
{
    size_t comps = stored(path, kind);
    if (kind == AC_TRACK_DEFAULT)
        return 0;
    if (kind == AC_TRACK_CONSTANT)
        return 4u * comps;
    /* samples <= 2^28, comps * bits <= 72: the bit count fits in 64 bits */
    return 8u * comps + (size_t)((samples * comps * bits + 7u) / 8u);
}

static ac_status bad(ac_error *err, size_t offset, double value, const char *what)
{
    return ac_fail(err, AC_ERR_VALUE, offset, AC_ARG_VALUE, value, "%s", what);
}

ac_status ac_reduce_compressed_info(const uint8_t *data, size_t size, ac_compressed_info *info,
                                    ac_error *err)
{
    size_t offset;
    if (size < HEADER_SIZE)
        return bad(err, size, (double)size, "too short for the 32-byte header");
    if (memcmp(data, "ACCC", 4) != 0)
        return bad(err, 0, data[0], "not a compressed clip (magic 'ACCC')");
    if (read_u16(data + 4) != AC_COMPRESSED_VERSION)
        return bad(err, 4, read_u16(data + 4), "unsupported version (this build reads 1)");
    if (read_u16(data + 6) != 0)
        return bad(err, 6, read_u16(data + 6), "reserved field must be 0");
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
    offset = HEADER_SIZE + TRACK_SIZE * 3u * (size_t)info->nodes; /* <= 32 + 12 * 2^20 */
    if (offset > size)
        return bad(err, size, (double)size, "too short for the track table");
    /* each track's entry, then its data: in bounds, floats finite, extents
       >= 0, a constant rotation non-zero */
    for (size_t k = 0; k < 3u * info->nodes; k++) {
        const size_t at = HEADER_SIZE + TRACK_SIZE * k;
        const int path = (int)(k % 3), kind = data[at];
        const unsigned bits = data[at + 1];
        size_t bytes, comps, floats;
        double norm = 0.0;
        if (kind > AC_TRACK_ANIMATED)
            return bad(err, at, kind, "track kind must be 0, 1 or 2");
        if (kind == AC_TRACK_ANIMATED ? bits < 1 || bits > MAX_BITS : bits != 0)
            return bad(err, at + 1, bits, "bits must lie in [1, 24] (animated) or be 0");
        if (data[at + 2] > (kind == AC_TRACK_ANIMATED && path == 1 ? 3 : 0))
            return bad(err, at + 2, data[at + 2],
                       "rebuilt component must be 0 (w) to 3 (z) on an animated rotation, "
                       "else 0");
        if (data[at + 3] != 0)
            return bad(err, at + 3, data[at + 3], "reserved field must be 0");
        bytes = track_bytes(path, kind, bits, info->samples);
        if (bytes > size - offset)
            return bad(err, size, (double)size, "too short for the track data");
        comps = stored(path, kind);
        floats = kind == AC_TRACK_ANIMATED ? 2 * comps : kind == AC_TRACK_CONSTANT ? comps : 0;
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
        offset += bytes;
    }
    if (offset != size)
        return bad(err, offset, (double)size, "trailing bytes after the track data");
    return AC_OK;
}

/* The value of component c of sample s of an animated track at p. */
static double quantized(const uint8_t *p, size_t comps, unsigned bits, size_t s, size_t c)
{
    const uint8_t *packed = p + 8 * comps;
    const uint64_t bit = ((uint64_t)s * comps + c) * bits;
    const size_t first = (size_t)(bit >> 3);
    const unsigned shift = (unsigned)(bit & 7u), used = (shift + bits + 7u) / 8u; /* <= 4 */
    uint32_t word = 0, q;
    for (unsigned k = 0; k < used; k++) /* the bytes holding the value, all in the data */
        word |= (uint32_t)packed[first + k] << (8u * k);
    q = (word >> shift) & ((1u << bits) - 1u);
    return read_f32(p + 8 * c) +
           read_f32(p + 8 * c + 4) * ((double)q / (double)((1u << bits) - 1u));
}

/* Sample s of an animated track at p; a rotation's `rebuilt` component
   (0: w, 1: x, 2: y, 3: z) is sqrt(1 - the others' squares), the others
   stored in x, y, z, w order. */
static void animated_sample(const uint8_t *p, int path, unsigned rebuilt, unsigned bits,
                            size_t s, double *v)
{
    double c[3], sum = 0.0;
    size_t skip, at = 0;
    for (size_t k = 0; k < 3; k++)
        c[k] = quantized(p, 3, bits, s, k);
    if (path != 1) {
        memcpy(v, c, sizeof c);
        return;
    }
    skip = rebuilt == 0 ? 3u : rebuilt - 1u;
    for (size_t k = 0; k < 4; k++) {
        if (k == skip)
            continue;
        v[k] = c[at++];
        sum += v[k] * v[k];
    }
    v[skip] = sum < 1.0 ? sqrt(1.0 - sum) : 0.0;
}

static const double IDENTITY[3][4] = {{0, 0, 0, 0}, {0, 0, 0, 1}, {1, 1, 1, 0}};

/* Rotations waiting for their slerp: a block of them is interpolated in one
   loop, whose iterations are independent (the slerp is long and branch-free:
   one at a time, its latency dominated the decoding of a pose). */
#define SLERP_BLOCK 32

typedef struct slerp_block {
    double a[SLERP_BLOCK][4], b[SLERP_BLOCK][4];
    double *out[SLERP_BLOCK];
    size_t count;
} slerp_block;

static void flush(slerp_block *block, double u)
{
    double result[SLERP_BLOCK][4];
    for (size_t k = 0; k < block->count; k++) /* the core's one slerp, shorter arc */
        ac_quat_slerp_any(block->a[k], block->b[k], u, result[k]);
    for (size_t k = 0; k < block->count; k++)
        memcpy(block->out[k], result[k], sizeof result[k]);
    block->count = 0;
}

ac_status ac_reduce_compressed_sample(const uint8_t *data, size_t size, const double *t,
                                      size_t n, double *translation, double *rotation,
                                      double *scale, ac_error *err)
{
    ac_compressed_info info;
    ac_status st = ac_reduce_compressed_info(data, size, &info, err);
    size_t last;
    slerp_block block;
    if (st)
        return st;
    last = (size_t)info.samples - 1u;
    for (size_t i = 0; i < n; i++)
        if ((st = ac_check_finite(AC_ARG_T, t + i, 1, i, err)))
            return st;
    block.count = 0;
    for (size_t i = 0; i < n; i++) {
        size_t offset = HEADER_SIZE + TRACK_SIZE * 3u * info.nodes;
        /* the sample pair and the fraction between them, clamped to the samples */
        double x = (t[i] - info.start) * info.rate, u = 0.0;
        size_t s0 = 0, s1 = 0;
        if (x >= (double)last) {
            s0 = s1 = last;
        } else if (x > 0.0) {
            s0 = (size_t)x;
            s1 = s0 + 1;
            u = x - (double)s0;
        }
        for (size_t k = 0; k < 3u * info.nodes; k++) {
            const uint8_t *track = data + HEADER_SIZE + TRACK_SIZE * k;
            int path = (int)(k % 3), kind = track[0];
            size_t node = k / 3, width = path == 1 ? 4u : 3u;
            double *out = (path == 0 ? translation : path == 1 ? rotation : scale) +
                          (i * info.nodes + node) * width;
            if (kind == AC_TRACK_DEFAULT) {
                for (size_t c = 0; c < width; c++)
                    out[c] = IDENTITY[path][c];
            } else if (kind == AC_TRACK_CONSTANT) {
                for (size_t c = 0; c < width; c++)
                    out[c] = read_f32(data + offset + 4 * c);
                if (path == 1 && !ac_normalize(out, 4, out))
                    out[3] = 1.0; /* validated non-zero: not reached */
            } else if (path == 1) {
                /* the samples have |q| >= 1 (one component rebuilt), never zero */
                animated_sample(data + offset, path, track[2], track[1], s0, block.a[block.count]);
                animated_sample(data + offset, path, track[2], track[1], s1, block.b[block.count]);
                block.out[block.count++] = out;
                if (block.count == SLERP_BLOCK)
                    flush(&block, u);
            } else {
                double a[4], b[4];
                animated_sample(data + offset, path, track[2], track[1], s0, a);
                animated_sample(data + offset, path, track[2], track[1], s1, b);
                for (size_t c = 0; c < 3; c++)
                    out[c] = a[c] + u * (b[c] - a[c]);
            }
            offset += track_bytes(path, kind, track[1], info.samples);
        }
        flush(&block, u);
    }
    return AC_OK;
}
