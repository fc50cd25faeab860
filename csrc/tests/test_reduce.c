/* Reduction kernels against re-derivations (the six shell points moved by
   both matrices; Hermite segments as Bezier curves; slerps about one axis),
   and compressed clip layouts: hand-built buffers of versions 1 and 2 read
   back, and hostile bytes (every truncation, bad fields) refused with the
   byte offset. */
#include <stdlib.h>
#include <string.h>

#include "ac_internal.h"
#include "ac_test.h"

static void put_f64(uint8_t *p, double x)
{
    uint64_t b;
    memcpy(&b, &x, 8);
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(b >> (8 * i));
}

static void put_f32(uint8_t *p, float x)
{
    uint32_t b;
    memcpy(&b, &x, 4);
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(b >> (8 * i));
}

static void put_u32(uint8_t *p, uint32_t x)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(x >> (8 * i));
}

/* Version 2: one node, 3 samples at 1 Hz in segments of 2: translation
   constant (1, 2, 3), rotation animated (x rebuilt; y, z, w stored with
   clip ranges (0, 1), (0, 0.5), (0, 0.1)), scale default. Segment 0: bits
   (3, 0, 2), ranges (0, 255), (10, 20), (0, 255); segment 1: 1 bit each,
   ranges (0, 255). */
#define V2_SIZE (32 + 3 + 12 + 24 + 8 + 10 + 9)
static void version2(uint8_t *buf)
{
    static const uint8_t first[10] = {3 | 0 << 5, 2 << 2, 0, 255, 10, 20, 0, 255,
                                      0xB9, 0x02}; /* q: (1, -, 3), (5, -, 2) */
    static const uint8_t second[9] = {1 | 1 << 5, 1 << 2, 0, 255, 0, 255, 0, 255, 0x05};
    const float clip[9] = {1, 2, 3, 0, 1, 0, 0.5f, 0, 0.1f};
    memset(buf, 0, V2_SIZE);
    memcpy(buf, "ACCC", 4);
    buf[4] = 2;
    buf[6] = 2; /* samples per segment */
    buf[8] = 1;
    buf[12] = 3;
    put_f64(buf + 16, 0.0);
    put_f64(buf + 24, 1.0);
    buf[32] = AC_TRACK_CONSTANT;
    buf[33] = AC_TRACK_ANIMATED | 1 << 2;
    buf[34] = AC_TRACK_DEFAULT;
    for (int c = 0; c < 9; c++)
        put_f32(buf + 35 + 4 * c, clip[c]);
    put_u32(buf + 71, 0);
    put_u32(buf + 75, 10);
    memcpy(buf + 79, first, sizeof first);
    memcpy(buf + 89, second, sizeof second);
}

/* Version 2 with many nodes, every one animated (rotation and translation),
   so that a pose fills more than one block of lanes and part of another:
   NODES nodes, 3 samples at 4 Hz from t = 1 in one segment. Track k's
   component c has b = (k + 3 c) % 9 bits, segment range (m, e) =
   (7 k % 50, 200 - 2 k), clip range (-0.4 + 0.01 k, 0.7) (rotations) or
   (-2 + k, 3.5) (translations), and sample s the integer q = (5 s + 11 k +
   3 c) mod 2^b. */
#define MANY_NODES 37
#define MANY_TRACKS (2 * MANY_NODES)
#define MANY_SIZE (32 + 3 * MANY_NODES + 24 * MANY_TRACKS + 4 + 8 * MANY_TRACKS + 9 * MANY_TRACKS)

static unsigned many_bits(size_t k, int c) { return (unsigned)((k + 3u * (unsigned)c) % 9u); }
static uint32_t many_q(size_t s, size_t k, int c)
{
    return (uint32_t)((5 * s + 11 * k + 3 * (size_t)c) & ((1u << many_bits(k, c)) - 1u));
}
static double many_lo(size_t k) { return k % 2 ? -0.4 + 0.01 * (double)k : -2.0 + (double)k; }
static double many_extent(size_t k) { return k % 2 ? 0.7 : 3.5; }

/* the layout's bytes (tracks in table order: node j's translation is
   animated track 2 j, its rotation 2 j + 1, rebuilt component j % 4) in
   buf (MANY_SIZE bytes, at least the layout's); its size */
static size_t many(uint8_t *buf)
{
    size_t at = 32 + 3 * MANY_NODES, bit = 0;
    uint8_t *stream;
    memset(buf, 0, MANY_SIZE);
    memcpy(buf, "ACCC", 4);
    buf[4] = 2;
    buf[6] = 3;
    buf[8] = MANY_NODES;
    buf[12] = 3;
    put_f64(buf + 16, 1.0);
    put_f64(buf + 24, 4.0);
    for (size_t j = 0; j < MANY_NODES; j++) {
        buf[32 + 3 * j] = AC_TRACK_ANIMATED;
        buf[33 + 3 * j] = (uint8_t)(AC_TRACK_ANIMATED | (j % 4) << 2);
    }
    for (size_t k = 0; k < MANY_TRACKS; k++, at += 24)
        for (int c = 0; c < 3; c++) {
            put_f32(buf + at + 8 * c, (float)many_lo(k));
            put_f32(buf + at + 8 * c + 4, (float)many_extent(k));
        }
    put_u32(buf + at, 0); /* one segment */
    at += 4;
    stream = buf + at + 8 * MANY_TRACKS;
    for (size_t k = 0; k < MANY_TRACKS; k++) {
        uint8_t *h = buf + at + 8 * k;
        unsigned packed = many_bits(k, 0) | many_bits(k, 1) << 5 | many_bits(k, 2) << 10;
        h[0] = (uint8_t)packed;
        h[1] = (uint8_t)(packed >> 8);
        for (int c = 0; c < 3; c++) {
            h[2 + 2 * c] = (uint8_t)(7 * k % 50);
            h[3 + 2 * c] = (uint8_t)(200 - 2 * k);
        }
        for (size_t s = 0; s < 3; s++)
            for (int c = 0; c < 3; c++)
                for (unsigned b = 0; b < many_bits(k, c); b++, bit++)
                    if (many_q(s, k, c) >> b & 1u)
                        stream[bit / 8] |= (uint8_t)(1u << (bit % 8));
    }
    return (size_t)(stream - buf) + (bit + 7) / 8;
}

/* Component c of track k at sample s, by the layout's formula. */
static double many_value(size_t s, size_t k, int c)
{
    const double m = (double)(7 * k % 50), e = (double)(200 - 2 * k);
    const double x = (m + e * (((double)many_q(s, k, c) + 0.5) / (double)(1u << many_bits(k, c)))) /
                     255.0;
    return (double)(float)many_lo(k) + (double)(float)many_extent(k) * x;
}

/* Rotation of node j at sample s: the stored components in x, y, z, w
   order around the rebuilt one, which is sqrt(1 - their squares) or 0. */
static void many_rotation(size_t s, size_t j, double q[4])
{
    const size_t k = 2 * j + 1, skip = j % 4 == 0 ? 3 : j % 4 - 1;
    double sum = 0.0;
    for (size_t i = 0, c = 0; i < 4; i++)
        if (i != skip) {
            q[i] = many_value(s, k, (int)c++);
            sum += q[i] * q[i];
        }
    q[skip] = sum < 1.0 ? sqrt(1.0 - sum) : 0.0;
}

/* Many animated tracks decode to the re-derived values bit for bit: the
   blocks of lanes (where the CPU has them) give the scalar slerp's bits. */
static void test_many_tracks(void)
{
    static uint8_t buf[MANY_SIZE];
    const double t[5] = {0.5, 1.0, 1.1, 1.3125, 2.0};
    double tr[5 * MANY_NODES * 3], rot[5 * MANY_NODES * 4], sc[5 * MANY_NODES * 3];
    ac_compressed_track tracks[3 * MANY_NODES];
    ac_compressed_clip clip;
    ac_compressed_info info;
    ac_error err;
    double rest[10 * MANY_NODES];
    size_t size = many(buf);
    CHECK(ac_reduce_compressed_info(buf, size, &info, &err) == AC_OK);
    CHECK(ac_reduce_compressed_open(buf, size, tracks, rest, &clip, &err) == AC_OK);
    CHECK(info.animated == MANY_TRACKS && clip.info.animated == MANY_TRACKS);
    CHECK(ac_reduce_compressed_decode(&clip, t, 5, tr, rot, sc, &err) == AC_OK);
    for (size_t i = 0; i < 5; i++) {
        double x = (t[i] - 1.0) * 4.0, u = 0.0;
        size_t s0 = 0, s1 = 0;
        if (x >= 2.0)
            s0 = s1 = 2;
        else if (x > 0.0)
            s0 = (size_t)x, s1 = s0 + 1, u = x - (double)s0;
        for (size_t j = 0; j < MANY_NODES; j++) {
            double qa[4], qb[4], want[4];
            many_rotation(s0, j, qa);
            many_rotation(s1, j, qb);
            ac_quat_slerp_any(qa, qb, u, want);
            CHECK(memcmp(rot + 4 * (i * MANY_NODES + j), want, sizeof want) == 0);
            for (int c = 0; c < 3; c++) {
                double a = many_value(s0, 2 * j, c), b = many_value(s1, 2 * j, c);
                CHECK(tr[3 * (i * MANY_NODES + j) + (size_t)c] == a + u * (b - a));
                CHECK(sc[3 * (i * MANY_NODES + j) + (size_t)c] == 1.0);
            }
        }
    }
}

/* Poses of a layout of at most 4 nodes: opened, then decoded. */
static ac_status sample_layout(const uint8_t *data, size_t size, const double *t, size_t n,
                               double *tr, double *rot, double *sc, ac_error *err)
{
    ac_compressed_track tracks[12];
    ac_compressed_info info;
    ac_compressed_clip clip;
    double rest[40];
    ac_status st = ac_reduce_compressed_info(data, size, &info, err);
    if (!st && info.nodes > 4)
        return AC_ERR_VALUE;
    if (!st)
        st = ac_reduce_compressed_open(data, size, tracks, rest, &clip, err);
    return st ? st : ac_reduce_compressed_decode(&clip, t, n, tr, rot, sc, err);
}

/* The rotation of sample 0 of version2, re-derived from the layout's formula. */
static void version2_sample0(double q[4])
{
    q[1] = 0.0 + 1.0 * ((0.0 + 255.0 * (1.5 / 8.0)) / 255.0);
    q[2] = 0.0 + (double)0.5f * ((10.0 + 20.0 * 0.5) / 255.0);
    q[3] = 0.0 + (double)0.1f * ((0.0 + 255.0 * (3.5 / 4.0)) / 255.0);
    q[0] = sqrt(1.0 - q[1] * q[1] - q[2] * q[2] - q[3] * q[3]);
}

static void test_version2(void)
{
    uint8_t buf[V2_SIZE];
    double t[4] = {0.0, 0.5, 2.0, 9.0}, tr[12], rot[16], sc[12], q0[4], q1[4];
    ac_compressed_info info;
    ac_error err;
    version2(buf);
    CHECK(ac_reduce_compressed_info(buf, sizeof buf, &info, &err) == AC_OK);
    CHECK(info.nodes == 1 && info.samples == 3 && info.animated == 1 && info.rate == 1.0);
    CHECK(sample_layout(buf, sizeof buf, t, 4, tr, rot, sc, &err) == AC_OK);
    version2_sample0(q0);
    for (int c = 0; c < 4; c++)
        CHECK_NEAR(rot[c], q0[c], 1e-15);
    CHECK(tr[0] == 1.0 && tr[1] == 2.0 && tr[2] == 3.0 && sc[3] == 1.0 && sc[5] == 1.0);
    /* sample 2 (segment 1, 1 bit each, q = 1, 0, 1) */
    q1[1] = 1.0 * (255.0 * 0.75 / 255.0);
    q1[2] = (double)0.5f * (255.0 * 0.25 / 255.0);
    q1[3] = (double)0.1f * (255.0 * 0.75 / 255.0);
    q1[0] = sqrt(1.0 - q1[1] * q1[1] - q1[2] * q1[2] - q1[3] * q1[3]);
    for (int c = 0; c < 4; c++) {
        CHECK_NEAR(rot[8 + c], q1[c], 1e-15);
        CHECK_NEAR(rot[12 + c], q1[c], 1e-15); /* clamped after the last sample */
    }
    CHECK_NEAR(rot[4] * rot[4] + rot[5] * rot[5] + rot[6] * rot[6] + rot[7] * rot[7], 1.0,
               1e-15);
    for (size_t n = 0; n < sizeof buf; n++) /* every truncation is refused */
        CHECK(ac_reduce_compressed_info(buf, n, &info, &err) == AC_ERR_VALUE);
    buf[4] = 3;
    CHECK(ac_reduce_compressed_info(buf, sizeof buf, &info, &err) == AC_ERR_VALUE &&
          err.index == 4);
    buf[4] = 2;
    buf[6] = 0;
    CHECK(ac_reduce_compressed_info(buf, sizeof buf, &info, &err) == AC_ERR_VALUE &&
          err.index == 6);
    buf[6] = 2;
    buf[33] |= 1 << 4;
    CHECK(ac_reduce_compressed_info(buf, sizeof buf, &info, &err) == AC_ERR_VALUE &&
          err.index == 33);
    buf[33] = AC_TRACK_ANIMATED | 1 << 2;
    buf[34] = 1 << 2; /* a rebuilt component on a default track */
    CHECK(ac_reduce_compressed_info(buf, sizeof buf, &info, &err) == AC_ERR_VALUE &&
          err.index == 34);
    buf[34] = AC_TRACK_DEFAULT;
    buf[71] = 1; /* the first offset */
    CHECK(ac_reduce_compressed_info(buf, sizeof buf, &info, &err) == AC_ERR_VALUE &&
          err.index == 71);
    buf[71] = 0;
    buf[75] = 11; /* the second segment's offset: not the first's end */
    CHECK(ac_reduce_compressed_info(buf, sizeof buf, &info, &err) == AC_ERR_VALUE &&
          err.index == 75);
    buf[75] = 10;
    /* bits 25 in segment 1: the layout is refused at that byte, by opening too */
    buf[89] = 25;
    CHECK(ac_reduce_compressed_info(buf, sizeof buf, &info, &err) == AC_ERR_VALUE &&
          err.index == 89);
    CHECK(sample_layout(buf, sizeof buf, t, 1, tr, rot, sc, &err) == AC_ERR_VALUE &&
          err.index == 89);
    buf[89] = 1 | 1 << 5;
    buf[90] = 1 << 2 | 0x80; /* bit 15 of the bit counts */
    CHECK(ac_reduce_compressed_info(buf, sizeof buf, &info, &err) == AC_ERR_VALUE &&
          err.index == 89);
    buf[90] = 1 << 2;
    CHECK(ac_reduce_compressed_info(buf, sizeof buf, &info, &err) == AC_OK);
}

/* The largest distance between the six points +-shell on the axes moved by
   the affine matrices a and b (row-major 4x4). */
static double six_points(const double *a, const double *b, double shell)
{
    double worst = 0.0;
    for (int p = 0; p < 6; p++) {
        double point[3] = {0, 0, 0}, sum = 0.0;
        point[p % 3] = p < 3 ? shell : -shell;
        for (int r = 0; r < 3; r++) {
            double x = a[4 * r + 3], y = b[4 * r + 3];
            for (int c = 0; c < 3; c++) {
                x += a[4 * r + c] * point[c];
                y += b[4 * r + c] * point[c];
            }
            sum += (x - y) * (x - y);
        }
        worst = sqrt(sum) > worst ? sqrt(sum) : worst;
    }
    return worst;
}

static void test_shell_error(void)
{
    /* a: the identity; b: a turn about z by 0.3 rad, scaled by 1.5, moved */
    double a[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}, b[32], shell[2] = {0.03, 2},
           out[2];
    const size_t shared_a[3] = {0, 1, 1};
    ac_error err;
    memset(b, 0, sizeof b);
    b[0] = b[5] = 1.5 * cos(0.3);
    b[1] = -1.5 * sin(0.3);
    b[4] = 1.5 * sin(0.3);
    b[10] = 1.5;
    b[3] = 0.1, b[7] = -0.2, b[11] = 0.05, b[15] = 1.0;
    memcpy(b + 16, a, sizeof a);
    b[16 + 3] = 1e-3; /* the second: a pure translation */
    CHECK(ac_reduce_shell_error(a, b, shell, shared_a, out, 2, &err) == AC_OK);
    CHECK_NEAR(out[0], six_points(a, b, 0.03), 1e-15);
    CHECK_NEAR(out[1], 1e-3, 1e-18);
    /* squares beyond the double range: the same in units of the difference */
    b[3] = -1e300, a[3] = 1e300;
    CHECK(ac_reduce_shell_error(a, b, shell, NULL, out, 1, &err) == AC_OK);
    CHECK_NEAR(out[0] / 2e300, 1.0, 1e-15);
    /* a difference beyond the double range: +inf */
    b[3] = -1.5e308, a[3] = 1.5e308;
    CHECK(ac_reduce_shell_error(a, b, shell, NULL, out, 1, &err) == AC_OK);
    CHECK(out[0] == INFINITY);
    a[3] = 0.0;
    b[16 + 6] = NAN;
    CHECK(ac_reduce_shell_error(a, b, shell, shared_a, out, 2, &err) == AC_ERR_VALUE &&
          err.arg == AC_ARG_B && err.index == 1);
    shell[0] = INFINITY;
    CHECK(ac_reduce_shell_error(a, b, shell, NULL, out, 1, &err) == AC_ERR_VALUE &&
          err.arg == AC_ARG_SHELL && err.index == 0);
}

/* A Hermite segment from p0 to p1 with per-second velocities v0, v1 over
   duration h at elapsed e, as the cubic Bezier (p0, p0 + h v0 / 3, p1 -
   h v1 / 3, p1) by de Casteljau. */
static double bezier(double p0, double p1, double v0, double v1, double h, double e)
{
    double q[4] = {p0, p0 + h * v0 / 3.0, p1 - h * v1 / 3.0, p1}, u = e / h;
    for (int level = 3; level > 0; level--)
        for (int k = 0; k < level; k++)
            q[k] = (1.0 - u) * q[k] + u * q[k + 1];
    return q[0];
}

static void test_segment_error(void)
{
    /* two channels, keys at t0 = 1 and t1 = 3; the points share the keys */
    const double t[4] = {1.0, 1.5, 3.0, 4.0}, t0 = 1.0, t1 = 3.0;
    const double p0[2] = {0.0, 2.0}, p1[2] = {4.0, -2.0}, v0[2] = {1.0, 0.5},
                 v1[2] = {-1.0, 3.0};
    const size_t steps[8] = {1, 1, 0, 0, 0, 0, 0, 0};
    double target[8] = {0.1, 2.0, 1.0, 1.0, 4.0, -2.5, 4.0, -2.0}, out[4];
    ac_error err;
    CHECK(ac_reduce_segment_error(AC_CURVE_STEP, 2, t, target, &t0, &t1, p0, p1, v0, v1, steps,
                                  out, 4, &err) == AC_OK);
    CHECK(out[0] == 0.1 && out[1] == 1.0 && out[2] == 4.5 && out[3] == 4.0);
    CHECK(ac_reduce_segment_error(AC_CURVE_LINEAR, 2, t, target, &t0, &t1, p0, p1, v0, v1,
                                  steps, out, 4, &err) == AC_OK);
    /* at 1.5: (1, 1) against (1, 1); at 4 the line goes on: (6, -4) */
    CHECK_NEAR(out[0], 0.1, 1e-15);
    CHECK(out[1] == 0.0 && out[2] == 0.5);
    CHECK_NEAR(out[3], 2.0, 1e-15);
    CHECK(ac_reduce_segment_error(AC_CURVE_CUBIC, 2, t, target, &t0, &t1, p0, p1, v0, v1,
                                  steps, out, 4, &err) == AC_OK);
    for (int i = 0; i < 4; i++) {
        double e = (t[i] < t1 ? t[i] : t1) - t0, worst = 0.0; /* past t1: at t1 */
        for (int c = 0; c < 2; c++) {
            double d = fabs(bezier(p0[c], p1[c], v0[c], v1[c], 2.0, e) - target[2 * i + c]);
            worst = d > worst ? d : worst;
        }
        CHECK_NEAR(out[i], worst, 1e-14);
    }
    {
        const double huge[2] = {1e308, 1e308};
        CHECK(ac_reduce_segment_error(AC_CURVE_CUBIC, 2, t, target, &t0, &t1, p0, p1, huge,
                                      v1, steps, out, 4, &err) == AC_OK);
        CHECK(out[1] == INFINITY); /* a tangent beyond the double range fits nothing */
    }
    CHECK(ac_reduce_segment_error(AC_CURVE_BEZIER, 2, t, target, &t0, &t1, p0, p1, v0, v1,
                                  steps, out, 4, &err) == AC_ERR_VALUE &&
          err.arg == AC_ARG_KIND);
    target[5] = NAN;
    CHECK(ac_reduce_segment_error(AC_CURVE_LINEAR, 2, t, target, &t0, &t1, p0, p1, v0, v1,
                                  steps, out, 4, &err) == AC_ERR_VALUE &&
          err.arg == AC_ARG_TARGET && err.index == 2);
}

static void test_rotation_error(void)
{
    /* turns about z: the slerp from 0 to 1 rad over [0, 2] is a turn by t / 2 */
    const double start[4] = {0, 0, 0, 1}, end[4] = {0, 0, sin(0.5), cos(0.5)};
    const double t[3] = {0.0, 1.0, 2.0}, t0 = 0.0, t1 = 2.0;
    const size_t steps[6] = {1, 1, 0, 0, 0, 0};
    double target[12] = {0, 0, sin(0.05), cos(0.05), 0, 0, -sin(0.35), -cos(0.35),
                         0, 0, sin(0.5), cos(0.5)}, out[3];
    ac_error err;
    CHECK(ac_reduce_rotation_error(t, target, &t0, &t1, start, end, steps, out, 3, &err) ==
          AC_OK);
    CHECK_NEAR(out[0], 0.1, 1e-12);
    CHECK_NEAR(out[1], 0.2, 1e-12); /* -q is the same rotation */
    CHECK_NEAR(out[2], 0.0, 1e-7);  /* (2 acos near 1) */
    target[4] = NAN;
    CHECK(ac_reduce_rotation_error(t, target, &t0, &t1, start, end, steps, out, 3, &err) ==
              AC_ERR_VALUE && err.arg == AC_ARG_TARGET && err.index == 1);
}

int main(void)
{
    test_shell_error();
    test_segment_error();
    test_rotation_error();
    /* one node, two samples at 1 Hz: translation animated (x 0 -> 1, 1 bit),
       rotation default, scale constant (2, 2, 2) */
    uint8_t buf[32 + 12 + 24 + 1 + 12];
    double t[3] = {-1.0, 0.25, 5.0}, tr[9], rot[12], sc[9];
    ac_compressed_info info;
    ac_error err;
    memset(buf, 0, sizeof buf);
    memcpy(buf, "ACCC", 4);
    buf[4] = 1;
    buf[8] = 1;
    buf[12] = 2;
    put_f64(buf + 16, 0.0);
    put_f64(buf + 24, 1.0);
    buf[32] = AC_TRACK_ANIMATED;
    buf[33] = 1;
    buf[36] = AC_TRACK_DEFAULT;
    buf[40] = AC_TRACK_CONSTANT;
    put_f32(buf + 44, 0.0f); /* x: min 0, extent 1 */
    put_f32(buf + 48, 1.0f);
    buf[68] = 0x08; /* sample 0: x 0, y 0, z 0; sample 1: x 1 (bit 3) */
    for (int c = 0; c < 3; c++)
        put_f32(buf + 69 + 4 * c, 2.0f);
    CHECK(ac_reduce_compressed_info(buf, sizeof buf, &info, &err) == AC_OK);
    CHECK(info.nodes == 1 && info.samples == 2);
    CHECK(sample_layout(buf, sizeof buf, t, 3, tr, rot, sc, &err) == AC_OK);
    CHECK(tr[0] == 0.0 && tr[3] == 0.25 && tr[6] == 1.0);
    CHECK(rot[3] == 1.0 && sc[4] == 2.0);
    for (size_t n = 0; n < sizeof buf; n++) /* every truncation is refused */
        CHECK(ac_reduce_compressed_info(buf, n, &info, &err) == AC_ERR_VALUE);
    buf[0] = 'X';
    CHECK(ac_reduce_compressed_info(buf, sizeof buf, &info, &err) == AC_ERR_VALUE &&
          err.index == 0);
    buf[0] = 'A';
    buf[33] = 25;
    CHECK(ac_reduce_compressed_info(buf, sizeof buf, &info, &err) == AC_ERR_VALUE &&
          err.index == 33);
    buf[33] = 1;
    put_f32(buf + 48, -1.0f);
    CHECK(ac_reduce_compressed_info(buf, sizeof buf, &info, &err) == AC_ERR_VALUE &&
          err.index == 48);
    put_f32(buf + 48, 1.0f);
    t[1] = NAN;
    CHECK(sample_layout(buf, sizeof buf, t, 3, tr, rot, sc, &err) ==
              AC_ERR_VALUE && err.index == 1 && err.arg == AC_ARG_T);
    test_version2();
    test_many_tracks();
    TEST_DONE("test_reduce");
}
