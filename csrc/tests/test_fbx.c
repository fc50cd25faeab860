/* FBX record trees: hand-built binary (32- and 64-bit headers) and ASCII
   buffers, and corrupt ones that must fail with a location. */
#include <string.h>

#include "ac_test.h"

typedef struct builder {
    unsigned char b[1024];
    size_t n;
} builder;

static void put(builder *w, const void *data, size_t n)
{
    memcpy(w->b + w->n, data, n);
    w->n += n;
}

static void put_u32(builder *w, uint64_t v)
{
    for (int i = 0; i < 4; i++)
        w->b[w->n++] = (unsigned char)(v >> (8 * i));
}

static void put_uint(builder *w, uint64_t v, int wide)
{
    put_u32(w, v & 0xffffffffu);
    if (wide)
        put_u32(w, v >> 32);
}

static void header(builder *w, uint32_t version)
{
    w->n = 0;
    put(w, "Kaydara FBX Binary  \0\x1a\0", 23);
    put_u32(w, version);
}

/* Record "Obj" with properties I 7, S "ab", d[2] raw, and one child "K" with
   L -5; the child list ends with a null record. Returns offset of the record's end field. */
static void sample_binary(builder *w, int wide)
{
    size_t h = wide ? 25 : 13, start, child, plen;
    header(w, wide ? 7500 : 7100);
    start = w->n;
    plen = 5 + 7 + (13 + 16);
    put_uint(w, 0, wide); /* patched below */
    put_uint(w, 3, wide);
    put_uint(w, plen, wide);
    w->b[w->n++] = 3;
    put(w, "Obj", 3);
    w->b[w->n++] = 'I';
    put_u32(w, 7);
    w->b[w->n++] = 'S';
    put_u32(w, 2);
    put(w, "ab", 2);
    w->b[w->n++] = 'd';
    put_u32(w, 2);
    put_u32(w, 0);
    put_u32(w, 16);
    {
        double v[2] = {1.5, -2.0};
        put(w, v, 16); /* little-endian hosts only: the test machine's */
    }
    child = w->n;
    put_uint(w, child + h + 1 + 9, wide);
    put_uint(w, 1, wide);
    put_uint(w, 9, wide);
    w->b[w->n++] = 1;
    put(w, "K", 1);
    w->b[w->n++] = 'L';
    put_uint(w, (uint64_t)-5, 1);
    memset(w->b + w->n, 0, h); /* null record closing Obj's children */
    w->n += h;
    {
        size_t end = w->n;
        builder tmp = *w;
        tmp.n = start;
        put_uint(&tmp, end, wide);
        memcpy(w->b + start, tmp.b + start, wide ? 8 : 4);
    }
    memset(w->b + w->n, 0, h); /* top-level null record */
    w->n += h;
}

static ac_status parse(const unsigned char *data, size_t n, ac_fbx_table *t,
                       ac_fbx_record *r, ac_fbx_property *p, double *num, ac_fbx_failure *f)
{
    memset(t, 0, sizeof *t);
    if (ac_fbx_parse(data, n, t, f, NULL) != AC_OK)
        return AC_ERR_VALUE;
    t->records = r;
    t->properties = p;
    t->numbers = num;
    t->record_capacity = t->property_capacity = t->number_capacity = 16;
    return ac_fbx_parse(data, n, t, f, NULL);
}

static void binary(int wide)
{
    builder w;
    ac_fbx_table t;
    ac_fbx_record r[16];
    ac_fbx_property p[16];
    double num[16];
    ac_fbx_failure f;
    double v;
    sample_binary(&w, wide);
    CHECK(parse(w.b, w.n, &t, r, p, num, &f) == AC_OK);
    CHECK(t.version == (wide ? 7500u : 7100u) && !t.ascii);
    CHECK(t.records_used == 2 && t.properties_used == 4);
    CHECK(r[0].parent == -1 && r[0].name_length == 3 && memcmp(w.b + r[0].name_offset, "Obj", 3) == 0);
    CHECK(r[0].property_count == 3 && r[0].location == 27);
    CHECK(p[0].type == 'I' && p[0].ivalue == 7);
    CHECK(p[1].type == 'S' && p[1].length == 2 && memcmp(w.b + p[1].offset, "ab", 2) == 0);
    CHECK(p[2].type == 'd' && p[2].count == 2 && p[2].encoding == 0);
    memcpy(&v, w.b + p[2].offset + 8, 8);
    CHECK(v == -2.0);
    CHECK(r[1].parent == 0 && r[1].first_property == 3 && p[3].type == 'L' && p[3].ivalue == -5);

    { /* the raw array's bytes, twice over, in one call; refusals write nothing */
        unsigned char out[33];
        int64_t twice[2] = {2, 2}, scalar[1] = {0}, outside[1] = {4};
        ac_error err;
        double back[4];
        memset(out, 0xAB, sizeof out);
        CHECK(ac_fbx_gather(w.b, w.n, p, t.properties_used, twice, 2, out, 32, &err) == AC_OK);
        memcpy(back, out, 32);
        CHECK(back[0] == 1.5 && back[1] == -2.0 && back[2] == 1.5 && back[3] == -2.0);
        CHECK(out[32] == 0xAB);
        memset(out, 0xAB, sizeof out);
        CHECK(ac_fbx_gather(w.b, w.n, p, t.properties_used, scalar, 1, out, 4, &err) ==
              AC_ERR_VALUE && err.index == 0 && strstr(err.detail, "raw binary array") != NULL);
        CHECK(ac_fbx_gather(w.b, w.n, p, t.properties_used, outside, 1, out, 16, &err) ==
              AC_ERR_VALUE && err.index == 0);
        CHECK(ac_fbx_gather(w.b, w.n, p, t.properties_used, twice, 2, out, 31, &err) ==
              AC_ERR_VALUE);
        CHECK(ac_fbx_gather(w.b, 40, p, t.properties_used, twice, 1, out, 16, &err) ==
              AC_ERR_VALUE && strstr(err.detail, "lie in the data") != NULL);
        CHECK(out[0] == 0xAB && out[31] == 0xAB);
    }

    /* every truncation fails with a location inside the buffer, never reads past it */
    for (size_t n = 0; n < w.n - (wide ? 25 : 13); n++) {
        unsigned char *copy = malloc(n ? n : 1);
        memcpy(copy, w.b, n);
        memset(&t, 0, sizeof t);
        if (ac_fbx_parse(copy, n, &t, &f, NULL) == AC_OK)
            CHECK(n < 27 + (wide ? 25u : 13u) || t.records_used <= 2); /* stops at a list end */
        else
            CHECK(f.offset <= n && f.message[0] != '\0');
        free(copy);
    }
    /* a raw array whose byte count disagrees with its element count */
    {
        builder bad = w;
        size_t at = 27 + (wide ? 25 : 13) + 3 + 5 + 7 + 1 + 8;
        bad.b[at] = 15;
        CHECK(parse(bad.b, bad.n, &t, r, p, num, &f) == AC_ERR_VALUE);
        CHECK(strstr(f.message, "raw array") != NULL && strcmp(f.path, "Obj") == 0);
    }
    /* a deflated array declaring more than deflate can expand to */
    {
        builder bad = w;
        size_t at = 27 + (wide ? 25 : 13) + 3 + 5 + 7 + 1;
        bad.b[at + 3] = 0x7f; /* count ~ 2^31 */
        bad.b[at + 4] = 1;    /* encoding 1 */
        CHECK(parse(bad.b, bad.n, &t, r, p, num, &f) == AC_ERR_VALUE);
        CHECK(strstr(f.message, "deflate") != NULL);
    }
    /* an unknown property type names the child's path */
    {
        builder bad = w;
        size_t child = 27 + (wide ? 25 : 13) + 3 + 5 + 7 + 13 + 16;
        bad.b[child + (wide ? 25 : 13) + 1] = 'Q';
        CHECK(parse(bad.b, bad.n, &t, r, p, num, &f) == AC_ERR_VALUE);
        CHECK(strcmp(f.path, "Obj/K") == 0 && strstr(f.message, "unknown property") != NULL);
        CHECK(f.offset == child + (wide ? 25u : 13u) + 1);
    }
    /* a record whose end lies beyond the file */
    {
        builder bad = w;
        bad.b[27 + 1] = 0x40;
        CHECK(parse(bad.b, bad.n, &t, r, p, num, &f) == AC_ERR_VALUE);
        CHECK(f.offset == 27 && strstr(f.message, "record ends") != NULL && strcmp(f.path, "Obj") == 0);
    }
    /* tables shorter than the file needs are an error, not an overflow */
    memset(&t, 0, sizeof t);
    t.records = r;
    t.properties = p;
    t.numbers = num;
    t.record_capacity = 1;
    t.property_capacity = 16;
    CHECK(ac_fbx_parse(w.b, w.n, &t, &f, NULL) == AC_ERR_VALUE && strstr(f.message, "full") != NULL);
}

/* records nested deeper than AC_FBX_MAX_DEPTH fail instead of recursing on */
static void deep(void)
{
    static unsigned char b[27 + 13 * 200 + 2 * 200];
    size_t n, levels = 100;
    ac_fbx_table t;
    ac_fbx_failure f;
    builder w;
    header(&w, 7100);
    memcpy(b, w.b, 27);
    n = 27;
    for (size_t i = 0; i < levels; i++) {
        size_t end = sizeof b; /* every record claims the rest of the buffer */
        b[n] = (unsigned char)end;
        b[n + 1] = (unsigned char)(end >> 8);
        memset(b + n + 2, 0, 10);
        b[n + 12] = 1;
        b[n + 13] = 'N';
        n += 14;
    }
    memset(&t, 0, sizeof t);
    CHECK(ac_fbx_parse(b, sizeof b, &t, &f, NULL) == AC_ERR_VALUE);
    CHECK(strstr(f.message, "nested") != NULL);
}

static void ascii(void)
{
    const char *text =
        "; FBX 7.5.0 project file\n"
        "Objects:  {\n"
        "\tModel: 123, \"Model::hip\", \"LimbNode\" {\n"
        "\t\tVertices: *3 {\n\t\t\ta: 1.5,-2,3e1\n\t\t}\n"
        "\t\tKey: 0,1.25,U,s\n\t\t\t,7,L\n"
        "\t}\n"
        "}\n";
    ac_fbx_table t;
    ac_fbx_record r[16];
    ac_fbx_property p[16];
    double num[16];
    ac_fbx_failure f;
    CHECK(parse((const unsigned char *)text, strlen(text), &t, r, p, num, &f) == AC_OK);
    CHECK(t.ascii && t.records_used == 4 && t.numbers_used == 3);
    CHECK(r[1].parent == 0 && r[1].location == 3 && r[1].property_count == 3);
    CHECK(p[0].type == 'L' && p[0].ivalue == 123);
    CHECK(p[1].type == 'S' && p[1].length == 10);
    CHECK(p[3].type == 'd' && p[3].encoding == 2 && p[3].count == 3 && num[2] == 30.0);
    CHECK(r[3].property_count == 6); /* the list continues on the next line */
    CHECK(p[5].type == 'D' && p[5].dvalue == 1.25 && p[6].type == 'W' && p[8].ivalue == 7);

    {
        const char *bad = "Objects:  {\n\tModel: 1, \"x {\n";
        CHECK(parse((const unsigned char *)bad, strlen(bad), &t, r, p, num, &f) == AC_ERR_VALUE);
        CHECK(f.line == 2 && strcmp(f.path, "Objects/Model") == 0);
    }
    {
        const char *bad = "Objects:  {\n\tV: *4 {\n\t\ta: 1,2\n\t}\n}\n";
        CHECK(parse((const unsigned char *)bad, strlen(bad), &t, r, p, num, &f) == AC_ERR_VALUE);
        CHECK(strstr(f.message, "*4 holds 2") != NULL);
    }
    {
        const char *bad = "Objects:  {\n\tV: 1.2.3x\n}\n";
        CHECK(parse((const unsigned char *)bad, strlen(bad), &t, r, p, num, &f) == AC_ERR_VALUE);
        CHECK(f.line == 2 && strstr(f.message, "number") != NULL);
    }
    {
        const char *bad = "Objects:  {\n}\n}\n";
        CHECK(parse((const unsigned char *)bad, strlen(bad), &t, r, p, num, &f) == AC_ERR_VALUE);
        CHECK(f.line == 3);
    }
    {
        const char *bad = "Objects:  {\n\tV: 1\n";
        CHECK(parse((const unsigned char *)bad, strlen(bad), &t, r, p, num, &f) == AC_ERR_VALUE);
        CHECK(strstr(f.message, "without its '}'") != NULL);
    }
}

/* Per-key attributes from attribute groups: each group's floats and decoded
   weights repeated over its keys (weights worked out by hand: 0x0D05 = 3333,
   0x1A0A = 6666). */
static void key_attributes(void)
{
    int64_t flags[2] = {0x08 | 0x01000000 | 0x02000000, 0x04};
    float data[8] = {1.5f, -2.0f, 0.0f, 0.0f, 0.25f, 4.0f, 7.0f, 0.0f};
    int64_t counts[2] = {2, 1}, bad[2] = {2, 2};
    int64_t kf[3];
    double r[3], l[3], wr[3], wl[3], at[9];
    uint32_t packed = (0x1A0Au << 16) | 0x0D05u;
    ac_error err;
    memcpy(&data[2], &packed, sizeof packed);
    CHECK(ac_fbx_key_attributes(flags, data, counts, 2, 3, kf, r, l, wr, wl, at, &err) == AC_OK);
    CHECK(kf[0] == flags[0] && kf[1] == flags[0] && kf[2] == 0x04);
    CHECK(r[0] == 1.5 && r[1] == 1.5 && l[1] == -2.0 && r[2] == 0.25 && l[2] == 4.0);
    CHECK(wr[0] == 3333 * 0.0001 && wl[1] == 6666 * 0.0001);
    CHECK(wr[2] == 1.0 / 3.0 && wl[2] == 1.0 / 3.0);
    CHECK(at[0] == 1.5 && at[4] == -2.0 && at[6] == 0.25 && at[7] == 4.0 && at[8] == 7.0);
    kf[2] = -1;
    CHECK(ac_fbx_key_attributes(flags, data, bad, 2, 3, kf, r, l, wr, wl, at, &err) ==
          AC_ERR_VALUE);
    CHECK(err.index == 1 && kf[2] == -1); /* nothing written */
}

int main(void)
{
    key_attributes();
    binary(0);
    binary(1);
    deep();
    ascii();
    TEST_DONE("test_fbx");
}
