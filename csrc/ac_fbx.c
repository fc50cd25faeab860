/* FBX record trees, binary and ASCII, into a flat table (see animcore.h).
   The parser only locates records and values; meaning is the caller's. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "animcore.h"
#include "ac_internal.h"

#define BINARY_MAGIC "Kaydara FBX Binary  "
#define BINARY_HEADER 27
/* deflate cannot expand more than about 1032:1 (258-byte matches of 2 bits) */
#define DEFLATE_MAX_RATIO 1032u

typedef struct parser {
    const unsigned char *data;
    size_t size;
    ac_fbx_table *table;
    ac_fbx_failure *failure;
    int wide;          /* 64-bit record headers */
    size_t line;       /* ASCII: current line, from 1 */
    size_t pos;        /* ASCII: cursor */
    int depth;
    uint64_t stack_name[AC_FBX_MAX_DEPTH + 1];
    uint64_t stack_length[AC_FBX_MAX_DEPTH + 1];
} parser;

static ac_status fail(parser *p, uint64_t offset, const char *format, ...)
{
    ac_fbx_failure *f = p->failure;
    va_list args;
    size_t used = 0;
    if (!f)
        return AC_ERR_VALUE;
    f->offset = offset;
    f->line = p->table->ascii ? p->line : 0;
    f->path[0] = '\0';
    for (int d = 0; d < p->depth && d <= AC_FBX_MAX_DEPTH; d++) {
        size_t n = (size_t)p->stack_length[d];
        if (used + n + 2 >= sizeof f->path)
            break;
        if (d)
            f->path[used++] = '/';
        memcpy(f->path + used, p->data + p->stack_name[d], n);
        used += n;
        f->path[used] = '\0';
    }
    va_start(args, format);
    vsnprintf(f->message, sizeof f->message, format, args);
    va_end(args);
    return AC_ERR_VALUE;
}

static int push_name(parser *p, uint64_t offset, uint64_t length)
{
    if (p->depth > AC_FBX_MAX_DEPTH)
        return 0;
    p->stack_name[p->depth] = offset;
    p->stack_length[p->depth] = length;
    p->depth++;
    return 1;
}

static uint64_t read_u32(const unsigned char *b)
{
    return (uint64_t)b[0] | (uint64_t)b[1] << 8 | (uint64_t)b[2] << 16 | (uint64_t)b[3] << 24;
}

static uint64_t read_u64(const unsigned char *b)
{
    return read_u32(b) | read_u32(b + 4) << 32;
}

static double read_f64(const unsigned char *b)
{
    uint64_t bits = read_u64(b);
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
}

static float read_f32(const unsigned char *b)
{
    uint32_t bits = (uint32_t)read_u32(b);
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

/* Appends a record (or only counts it); returns its index. */
static ac_status add_record(parser *p, int64_t parent, uint64_t name_offset,
                            uint64_t name_length, uint64_t location, size_t *index)
{
    ac_fbx_table *t = p->table;
    if (t->records) {
        ac_fbx_record *r;
        if (t->records_used >= t->record_capacity)
            return fail(p, location, "record table full (%zu records)", t->record_capacity);
        r = &t->records[t->records_used];
        r->parent = parent;
        r->name_offset = name_offset;
        r->name_length = name_length;
        r->first_property = t->properties_used;
        r->property_count = 0;
        r->location = location;
    }
    *index = t->records_used++;
    return AC_OK;
}

static ac_status add_property(parser *p, size_t record, const ac_fbx_property *value,
                              uint64_t location)
{
    ac_fbx_table *t = p->table;
    if (t->properties) {
        if (t->properties_used >= t->property_capacity)
            return fail(p, location, "property table full (%zu properties)",
                        t->property_capacity);
        t->properties[t->properties_used] = *value;
    }
    if (t->records)
        t->records[record].property_count++;
    t->properties_used++;
    return AC_OK;
}

/* ------------------------------------------------------------------ binary */

static ac_status binary_property(parser *p, size_t *pos, size_t end, size_t record)
{
    ac_fbx_property v;
    const unsigned char *d = p->data;
    size_t at = *pos, need = 0, element = 0;
    memset(&v, 0, sizeof v);
    if (at >= end)
        return fail(p, at, "property runs past the end of its list");
    v.type = (char)d[at++];
    switch (v.type) {
    case 'Y': need = 2; break;
    case 'C': need = 1; break;
    case 'I': case 'F': need = 4; break;
    case 'D': case 'L': need = 8; break;
    case 'S': case 'R': need = 4; break;
    case 'f': case 'i': element = 4; need = 12; break;
    case 'd': case 'l': element = 8; need = 12; break;
    case 'b': element = 1; need = 12; break;
    default:
        return fail(p, at - 1, "unknown property type 0x%02x", (unsigned)d[at - 1]);
    }
    if (end - at < need)
        return fail(p, at - 1, "property of type '%c' runs past the end of its list", v.type);
    switch (v.type) {
    case 'Y': v.ivalue = (int16_t)(uint16_t)(d[at] | d[at + 1] << 8); v.dvalue = (double)v.ivalue; break;
    case 'C': v.ivalue = d[at]; v.dvalue = (double)v.ivalue; break;
    case 'I': v.ivalue = (int32_t)(uint32_t)read_u32(d + at); v.dvalue = (double)v.ivalue; break;
    case 'F': v.dvalue = read_f32(d + at); break;
    case 'D': v.dvalue = read_f64(d + at); break;
    case 'L': v.ivalue = (int64_t)read_u64(d + at); v.dvalue = (double)v.ivalue; break;
    case 'S': case 'R':
        v.length = read_u32(d + at);
        if (v.length > end - at - 4)
            return fail(p, at - 1, "%s of %llu bytes runs past the end of its list",
                        v.type == 'S' ? "string" : "raw data", (unsigned long long)v.length);
        v.offset = at + 4;
        need = 4 + (size_t)v.length;
        break;
    default: /* arrays */
        v.count = read_u32(d + at);
        v.encoding = (uint32_t)read_u32(d + at + 4);
        v.length = read_u32(d + at + 8);
        v.offset = at + 12;
        if (v.length > end - at - 12)
            return fail(p, at - 1, "array of %llu stored bytes runs past the end of its list",
                        (unsigned long long)v.length);
        if (v.encoding == 0 && v.length != v.count * element)
            return fail(p, at - 1, "raw array of %llu elements of type '%c' holds %llu bytes "
                        "(must be %llu)", (unsigned long long)v.count, v.type,
                        (unsigned long long)v.length, (unsigned long long)(v.count * element));
        if (v.encoding == 1 && v.count * element > v.length * DEFLATE_MAX_RATIO + 64)
            return fail(p, at - 1, "deflated array declares %llu elements in %llu bytes "
                        "(more than deflate can hold)", (unsigned long long)v.count,
                        (unsigned long long)v.length);
        if (v.encoding > 1)
            return fail(p, at - 1, "array encoding %u (must be 0 raw or 1 deflate)",
                        (unsigned)v.encoding);
        need = 12 + (size_t)v.length;
        break;
    }
    *pos = at + need;
    return add_property(p, record, &v, at - 1);
}

/* Records from *pos until a null record or `end`; *pos ends after the list. */
static ac_status binary_list(parser *p, size_t *pos, size_t end, int64_t parent, int top);

static ac_status binary_record(parser *p, size_t *pos, size_t end, int64_t parent, int *done)
{
    const unsigned char *d = p->data;
    size_t at = *pos, header = p->wide ? 25 : 13, record = 0;
    uint64_t record_end, count, list_length, name_length;
    size_t props, props_end;
    ac_status st;
    *done = 0;
    if (end - at < header)
        return fail(p, at, "record header of %zu bytes runs past the end of its list", header);
    if (p->wide) {
        record_end = read_u64(d + at);
        count = read_u64(d + at + 8);
        list_length = read_u64(d + at + 16);
    } else {
        record_end = read_u32(d + at);
        count = read_u32(d + at + 4);
        list_length = read_u32(d + at + 8);
    }
    name_length = d[at + header - 1];
    if (record_end == 0 && count == 0 && list_length == 0 && name_length == 0) {
        *pos = at + header;
        *done = 1;
        return AC_OK;
    }
    props = at + header + (size_t)name_length;
    if (name_length > end - at - header)
        return fail(p, at, "record name of %u bytes runs past the end of its list",
                    (unsigned)name_length);
    if (!push_name(p, at + header, name_length))
        return fail(p, at, "records nested more than %d deep", AC_FBX_MAX_DEPTH);
    if (record_end > end || record_end < props) {
        st = fail(p, at, "record ends at %llu, outside [%zu, %zu]",
                  (unsigned long long)record_end, props, end);
        goto out;
    }
    if (list_length > record_end - props) {
        st = fail(p, at, "property list of %llu bytes runs past the record's end %llu",
                  (unsigned long long)list_length, (unsigned long long)record_end);
        goto out;
    }
    props_end = props + (size_t)list_length;
    st = add_record(p, parent, at + header, name_length, at, &record);
    for (uint64_t i = 0; st == AC_OK && i < count; i++)
        st = binary_property(p, &props, props_end, record);
    if (st)
        goto out;
    if (props != props_end) {
        st = fail(p, props, "%llu properties fill %zu of the list's %llu bytes",
                  (unsigned long long)count, props - (props_end - (size_t)list_length),
                  (unsigned long long)list_length);
        goto out;
    }
    if (props_end < record_end) {
        size_t child = props_end;
        st = binary_list(p, &child, (size_t)record_end, (int64_t)record, 0);
        if (st)
            goto out;
    }
    *pos = (size_t)record_end;
out:
    p->depth--;
    return st;
}

static ac_status binary_list(parser *p, size_t *pos, size_t end, int64_t parent, int top)
{
    int done = 0;
    size_t header = p->wide ? 25 : 13;
    while (!done) {
        ac_status st;
        /* the top-level list ends with its null record, before the footer: a
           file cut at a record's end would otherwise read as a whole one
           without what followed (its objects, connections or takes) */
        if (top && end - *pos < header)
            return fail(p, *pos, "the file ends before the top-level list's null record "
                                 "(it is cut short)");
        if (*pos >= end)
            return AC_OK;
        st = binary_record(p, pos, end, parent, &done);
        if (st)
            return st;
    }
    return AC_OK;
}

static ac_status parse_binary(parser *p)
{
    size_t pos = BINARY_HEADER;
    if (p->size < BINARY_HEADER)
        return fail(p, 0, "binary header of %d bytes truncated to %zu", BINARY_HEADER, p->size);
    p->table->version = (uint32_t)read_u32(p->data + 23);
    if (p->table->version < 6000 || p->table->version >= 10000)
        return fail(p, 23, "FBX version %u (must be 6000 to 9999)", p->table->version);
    p->wide = p->table->version >= 7500;
    return binary_list(p, &pos, p->size, -1, 1);
}

/* ------------------------------------------------------------------ ASCII */

static int at_end(const parser *p) { return p->pos >= p->size; }
static int peek(const parser *p) { return p->pos < p->size ? p->data[p->pos] : -1; }

/* Skips spaces, tabs and comments; with `lines` also line breaks. */
static void skip_space(parser *p, int lines)
{
    while (!at_end(p)) {
        int c = p->data[p->pos];
        if (c == ' ' || c == '\t' || c == '\r')
            p->pos++;
        else if (c == '\n' && lines) {
            p->pos++;
            p->line++;
        } else if (c == ';') {
            while (!at_end(p) && p->data[p->pos] != '\n')
                p->pos++;
        } else
            break;
    }
}

static int is_name_char(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '|' || c == '-' || c == '.';
}

/* A number token at p->pos: integer into *i (and *d), or real into *d. */
static ac_status ascii_number(parser *p, int *is_real, int64_t *i, double *d)
{
    char text[72];
    size_t start = p->pos, n;
    char *stop;
    while (!at_end(p)) {
        int c = p->data[p->pos];
        if ((c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E')
            p->pos++;
        else
            break;
    }
    n = p->pos - start;
    if (n == 0 || n >= sizeof text)
        return fail(p, start, "malformed number");
    memcpy(text, p->data + start, n);
    text[n] = '\0';
    *is_real = strpbrk(text, ".eE") != NULL;
    if (*is_real) {
        *d = strtod(text, &stop);
        *i = 0;
    } else {
        long long v = strtoll(text, &stop, 10);
        if (text[0] != '-' && v == 0x7fffffffffffffffLL) /* ids above 2^63 wrap as in binary */
            v = (long long)strtoull(text, &stop, 10);
        *i = v;
        *d = (double)v;
    }
    if (*stop != '\0')
        return fail(p, start, "malformed number '%s'", text);
    return AC_OK;
}

static ac_status ascii_array(parser *p, size_t record)
{
    ac_fbx_property v;
    ac_fbx_table *t = p->table;
    size_t start = p->pos;
    uint64_t declared = 0;
    ac_status st;
    memset(&v, 0, sizeof v);
    p->pos++; /* '*' */
    while (!at_end(p) && peek(p) >= '0' && peek(p) <= '9' && declared < ((uint64_t)1 << 40))
        declared = declared * 10 + (uint64_t)(p->data[p->pos++] - '0');
    skip_space(p, 1);
    if (peek(p) != '{')
        return fail(p, start, "array *%llu without '{'", (unsigned long long)declared);
    p->pos++;
    skip_space(p, 1);
    if (peek(p) == 'a') {
        p->pos++;
        skip_space(p, 0);
        if (peek(p) != ':')
            return fail(p, p->pos, "array values without 'a:'");
        p->pos++;
    }
    v.type = 'd';
    v.encoding = 2;
    v.offset = t->numbers_used;
    for (;;) {
        int is_real;
        int64_t i;
        double d;
        skip_space(p, 1);
        if (peek(p) == '}')
            break;
        if ((st = ascii_number(p, &is_real, &i, &d)) != AC_OK)
            return st;
        if (t->numbers) {
            if (t->numbers_used >= t->number_capacity)
                return fail(p, p->pos, "number table full (%zu numbers)", t->number_capacity);
            t->numbers[t->numbers_used] = d;
        }
        t->numbers_used++;
        v.count++;
        skip_space(p, 1);
        if (peek(p) == ',')
            p->pos++;
        else if (peek(p) != '}')
            return fail(p, p->pos, "array value followed by neither ',' nor '}'");
    }
    p->pos++; /* '}' */
    if (v.count != declared)
        return fail(p, start, "array *%llu holds %llu values", (unsigned long long)declared,
                    (unsigned long long)v.count);
    return add_property(p, record, &v, start);
}

static ac_status ascii_value(parser *p, size_t record)
{
    ac_fbx_property v;
    size_t start = p->pos, start_line = p->line;
    int c = peek(p);
    memset(&v, 0, sizeof v);
    if (c == '"') {
        p->pos++;
        v.type = 'S';
        v.offset = p->pos;
        while (!at_end(p) && p->data[p->pos] != '"') {
            if (p->data[p->pos] == '\n')
                p->line++;
            p->pos++;
        }
        if (at_end(p)) {
            p->line = start_line;
            return fail(p, start, "string without its closing quote");
        }
        v.length = p->pos - v.offset;
        p->pos++;
    } else if (c == '*') {
        return ascii_array(p, record);
    } else if ((c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.') {
        int is_real;
        ac_status st = ascii_number(p, &is_real, &v.ivalue, &v.dvalue);
        if (st)
            return st;
        v.type = is_real ? 'D' : 'L';
    } else if (c >= 0 && is_name_char(c)) {
        v.type = 'W';
        v.offset = p->pos;
        while (!at_end(p) && is_name_char(p->data[p->pos]))
            p->pos++;
        v.length = p->pos - v.offset;
    } else {
        return fail(p, start, "unexpected %s in a value list",
                    c < 0 ? "end of file" : "character");
    }
    return add_property(p, record, &v, start);
}

static ac_status ascii_list(parser *p, int64_t parent);

static ac_status ascii_record(parser *p, int64_t parent)
{
    size_t start = p->pos, name_end, record = 0;
    ac_status st;
    while (!at_end(p) && is_name_char(p->data[p->pos]))
        p->pos++;
    name_end = p->pos;
    if (name_end == start)
        return fail(p, start, "expected a record name");
    skip_space(p, 0);
    if (peek(p) != ':')
        return fail(p, p->pos, "record name without ':'");
    p->pos++;
    if (!push_name(p, start, name_end - start))
        return fail(p, start, "records nested more than %d deep", AC_FBX_MAX_DEPTH);
    st = add_record(p, parent, start, name_end - start, p->line, &record);
    skip_space(p, 0);
    /* values: comma separated; a list continues on a line that starts with ',' */
    if (st == AC_OK && peek(p) != '\n' && peek(p) != '{' && !at_end(p)) {
        for (;;) {
            size_t save_pos, save_line;
            if ((st = ascii_value(p, record)) != AC_OK)
                break;
            skip_space(p, 0);
            if (peek(p) == ',') {
                p->pos++;
                skip_space(p, 1);
                continue;
            }
            save_pos = p->pos;
            save_line = p->line;
            skip_space(p, 1);
            if (peek(p) == ',') {
                p->pos++;
                skip_space(p, 1);
                continue;
            }
            p->pos = save_pos;
            p->line = save_line;
            break;
        }
    }
    if (st == AC_OK) {
        skip_space(p, 0);
        if (peek(p) == '{') {
            p->pos++;
            st = ascii_list(p, (int64_t)record);
            if (st == AC_OK) {
                if (peek(p) != '}')
                    st = fail(p, p->pos, "record's '{' without its '}'");
                else
                    p->pos++;
            }
        }
    }
    p->depth--;
    return st;
}

/* Records until '}' (left unread) or the end of the file. */
static ac_status ascii_list(parser *p, int64_t parent)
{
    for (;;) {
        ac_status st;
        skip_space(p, 1);
        if (at_end(p) || peek(p) == '}')
            return AC_OK;
        if ((st = ascii_record(p, parent)) != AC_OK)
            return st;
    }
}

static ac_status parse_ascii(parser *p)
{
    ac_status st;
    p->table->ascii = 1;
    p->line = 1;
    p->pos = 0;
    if (p->size >= 3 && memcmp(p->data, "\xef\xbb\xbf", 3) == 0)
        p->pos = 3;
    st = ascii_list(p, -1);
    if (st == AC_OK && !at_end(p))
        st = fail(p, p->pos, "'}' without a record to close");
    if (st == AC_OK && p->table->records_used == 0)
        st = fail(p, p->pos, "no records (an empty file)");
    return st;
}

ac_status ac_fbx_parse(const unsigned char *data, size_t size, ac_fbx_table *table,
                       ac_fbx_failure *failure, ac_error *err)
{
    parser p;
    ac_fbx_failure local;
    ac_status st;
    memset(&p, 0, sizeof p);
    p.data = data;
    p.size = size;
    p.table = table;
    p.failure = failure ? failure : &local;
    table->records_used = table->properties_used = table->numbers_used = 0;
    table->version = 0;
    table->ascii = 0;
    if (size >= sizeof BINARY_MAGIC - 1 && memcmp(data, BINARY_MAGIC, sizeof BINARY_MAGIC - 1) == 0)
        st = parse_binary(&p);
    else
        st = parse_ascii(&p);
    if (st != AC_OK && err) {
        memset(err, 0, sizeof *err);
        err->status = st;
        err->arg = AC_ARG_NONE;
        err->index = (size_t)(table->ascii ? p.failure->line : p.failure->offset);
        err->value = (double)err->index;
        {
            size_t n = strlen(p.failure->message);
            n = n < sizeof err->detail - 1 ? n : sizeof err->detail - 1;
            memcpy(err->detail, p.failure->message, n);
            err->detail[n] = '\0';
        }
    }
    return st;
}

ac_status ac_fbx_gather(const unsigned char *data, size_t size,
                        const ac_fbx_property *properties, size_t count,
                        const int64_t *indices, size_t n, unsigned char *out,
                        size_t out_size, ac_error *err)
{
    size_t total = 0;
    for (size_t i = 0; i < n; i++) { /* every span checked before a byte is written */
        const ac_fbx_property *q;
        if (indices[i] < 0 || (uint64_t)indices[i] >= count)
            return ac_fail(err, AC_ERR_VALUE, i, AC_ARG_NONE, (double)indices[i],
                           "property index must lie in [0, %zu)", count);
        q = &properties[indices[i]];
        if (!strchr("fdlib", q->type) || q->type == '\0' || q->encoding != 0)
            return ac_fail(err, AC_ERR_VALUE, i, AC_ARG_NONE, (double)indices[i],
                           "property must be a raw binary array");
        if (q->offset > size || q->length > size - q->offset || q->length > out_size - total)
            return ac_fail(err, AC_ERR_VALUE, i, AC_ARG_NONE, (double)indices[i],
                           "the array's bytes must lie in the data and the output");
        total += (size_t)q->length;
    }
    if (total != out_size)
        return ac_fail(err, AC_ERR_VALUE, n, AC_ARG_NONE, (double)total,
                       "the arrays' lengths must sum to the output's %zu bytes", out_size);
    for (size_t i = 0; i < n; i++) {
        const ac_fbx_property *q = &properties[indices[i]];
        if (q->length) {
            memcpy(out, data + q->offset, (size_t)q->length);
            out += q->length;
        }
    }
    return AC_OK;
}

ac_status ac_fbx_key_attributes(const int64_t *flags, const float *data,
                                const int64_t *counts, size_t groups, size_t keys,
                                int64_t *key_flags, double *right_slopes,
                                double *next_left_slopes, double *right_weights,
                                double *next_left_weights, double *attributes, ac_error *err)
{
    size_t total = 0, k = 0;
    for (size_t g = 0; g < groups; g++) { /* every count checked before a key is written */
        if (counts[g] < 0 || (uint64_t)counts[g] > keys - total)
            return ac_fail(err, AC_ERR_VALUE, g, AC_ARG_NONE, (double)counts[g],
                           "the attribute groups' key counts must be >= 0 and sum to the "
                           "%zu keys", keys);
        total += (size_t)counts[g];
    }
    if (total != keys)
        return ac_fail(err, AC_ERR_VALUE, groups, AC_ARG_NONE, (double)total,
                       "the attribute groups' key counts must sum to the %zu keys", keys);
    for (size_t g = 0; g < groups; g++) {
        const float *d = data + 4 * g;
        int64_t f = flags[g];
        uint32_t packed;
        double right, left;
        memcpy(&packed, &d[2], sizeof packed); /* (the third float's bits) */
        right = (f & 0x01000000) ? (double)(packed & 0xFFFFu) * 0.0001 : 1.0 / 3.0;
        left = (f & 0x02000000) ? (double)(packed >> 16) * 0.0001 : 1.0 / 3.0;
        for (int64_t n = 0; n < counts[g]; n++, k++) {
            key_flags[k] = f;
            right_slopes[k] = (double)d[0];
            next_left_slopes[k] = (double)d[1];
            right_weights[k] = right;
            next_left_weights[k] = left;
            attributes[3 * k] = (double)d[0];
            attributes[3 * k + 1] = (double)d[1];
            attributes[3 * k + 2] = (double)d[2];
        }
    }
    return AC_OK;
}
