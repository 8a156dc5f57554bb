/*
 * tests/vectors/ through the C API, as every other package reads them: snowflake.json (parse,
 * decompose, compose, invalid IDs, parts and layouts, exhausts_at), objectid.json and
 * formats.json (idmint_parse of every format). Each failing case is printed; the last line is
 * "N passed, N failed".
 *
 *   vectors VECTORS_DIR
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "idmint.h"
#include "json.h"

static int passed, failed;

#define CHECK(cond, ...)                                                                         \
    do {                                                                                         \
        if (cond) {                                                                              \
            passed++;                                                                            \
        } else {                                                                                 \
            failed++;                                                                            \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                                 \
            fprintf(stderr, __VA_ARGS__);                                                        \
            fputc('\n', stderr);                                                                 \
        }                                                                                        \
    } while (0)

/* The kind string of a failed call's error ("ok" when it did not fail), and the error freed. */
static const char *kind_of(IdmintStatus status, IdmintError *err) {
    const char *kind = idmint_status_kind(status);
    if (err) {
        if (strcmp(idmint_error_kind(err), kind) != 0) kind = "error kind differs from status";
        size_t len = 0;
        const char *m = idmint_error_message(err, &len);
        if (status != IDMINT_STATUS_OK && (len == 0 || strlen(m) != len)) kind = "bad message";
        idmint_error_free(err);
    }
    return kind;
}

static IdmintLayout *layout(const char *spec) {
    IdmintLayout *l = NULL;
    IdmintError *err = NULL;
    IdmintStatus s = idmint_layout_new(spec, strlen(spec), NULL, 0, &l, &err);
    if (s != IDMINT_STATUS_OK) {
        fprintf(stderr, "layout %s: %s\n", spec, idmint_error_message(err, NULL));
        exit(1);
    }
    return l;
}

/* The node pairs of a vector's `fields` object, in its order. */
static size_t nodes_of(const jval *fields, IdmintNode *out, size_t cap) {
    size_t n = 0;
    for (size_t i = 0; fields && i < fields->n && n < cap; i++, n++) {
        out[n].name = fields->keys[i];
        out[n].name_len = strlen(fields->keys[i]);
        out[n].value = (int64_t)j_int(fields->items[i]);
    }
    return n;
}

static void snowflake_valid(const jval *c) {
    const char *name = j_str(c, "name"), *id_text = j_str(c, "id");
    IdmintLayout *l = layout(j_str(c, "layout"));
    uint64_t id = 0;
    IdmintError *err = NULL;
    IdmintStatus s = idmint_layout_parse_id(l, id_text, strlen(id_text), &id, &err);
    CHECK(s == IDMINT_STATUS_OK, "%s: parse_id: %s", name, kind_of(s, err));
    CHECK(id == strtoull(id_text, NULL, 10), "%s: parse_id gave %" PRIu64, name, id);

    size_t count = 0;
    idmint_layout_node_count(l, &count, NULL);
    uint64_t nodes[16] = {0};
    IdmintParts parts = {0};
    s = idmint_layout_decompose(l, id, &parts, nodes, count, NULL);
    CHECK(s == IDMINT_STATUS_OK, "%s: decompose", name);
    CHECK(parts.time_ms == (uint64_t)j_int(j_get(c, "time_ms")), "%s: time_ms %" PRIu64, name, parts.time_ms);
    CHECK(parts.sequence == (uint64_t)j_int(j_get(c, "sequence")), "%s: sequence", name);
    const jval *fields = j_get(c, "fields");
    CHECK(fields && fields->n == count, "%s: node count %zu", name, count);
    for (size_t i = 0; fields && i < count && i < fields->n; i++) {
        const char *field = NULL;
        size_t len = 0;
        idmint_layout_node_name(l, i, &field, &len, NULL);
        CHECK(!strcmp(field, fields->keys[i]) && len == strlen(field), "%s: field %zu is %s", name, i, field);
        CHECK(nodes[i] == (uint64_t)j_int(fields->items[i]), "%s: %s = %" PRIu64, name, field, nodes[i]);
    }

    IdmintNode pairs[16];
    size_t n = nodes_of(fields, pairs, 16);
    uint64_t composed = 0;
    s = idmint_layout_compose(l, j_int(j_get(c, "time_ms")), pairs, n, j_int(j_get(c, "sequence")), &composed, NULL);
    CHECK(s == IDMINT_STATUS_OK && composed == id, "%s: compose gave %" PRIu64, name, composed);

    /* The one parser of every format reads it the same, time as text too. */
    IdmintDecoded *d = NULL;
    s = idmint_parse(id_text, strlen(id_text), l, &d, NULL);
    CHECK(s == IDMINT_STATUS_OK, "%s: idmint_parse", name);
    if (d) {
        size_t len = 0;
        const char *time = idmint_decoded_time(d, &len);
        CHECK(time && !strcmp(time, j_str(c, "time")), "%s: time %s", name, time ? time : "(none)");
        CHECK(!strcmp(idmint_decoded_format(d, NULL), "snowflake"), "%s: format", name);
        uint64_t value = 0;
        CHECK(idmint_decoded_value(d, &value) && value == id, "%s: value", name);
        idmint_decoded_free(d);
    }
    idmint_layout_free(l);
}

static void snowflake_invalid_id(const jval *c) {
    const char *name = j_str(c, "name"), *id_text = j_str(c, "id");
    IdmintLayout *l = layout(j_str(c, "layout"));
    uint64_t id = 0;
    IdmintError *err = NULL;
    IdmintStatus s = idmint_layout_parse_id(l, id_text, strlen(id_text), &id, &err);
    const char *kind = kind_of(s, err);
    CHECK(!strcmp(kind, j_str(c, "error")), "%s: %s, not %s", name, kind, j_str(c, "error"));
    idmint_layout_free(l);
}

static void snowflake_invalid_parts(const jval *c) {
    const char *name = j_str(c, "name");
    const jval *parts = j_get(c, "parts");
    IdmintLayout *l = layout(j_str(c, "layout"));
    IdmintNode pairs[16];
    size_t n = nodes_of(j_get(parts, "fields"), pairs, 16);
    uint64_t id = 0;
    IdmintError *err = NULL;
    IdmintStatus s = idmint_layout_compose(l, j_int(j_get(parts, "time_ms")), pairs, n,
                                           j_int(j_get(parts, "sequence")), &id, &err);
    const char *kind = kind_of(s, err);
    CHECK(!strcmp(kind, j_str(c, "error")), "%s: %s, not %s", name, kind, j_str(c, "error"));
    idmint_layout_free(l);
}

static void snowflake_invalid_layout(const jval *c) {
    const char *name = j_str(c, "name");
    const jval *spec = j_get(c, "layout");
    IdmintLayout *l = NULL;
    IdmintError *err = NULL;
    IdmintStatus s = idmint_layout_new(spec->text, spec->len, NULL, 0, &l, &err);
    const char *kind = kind_of(s, err);
    CHECK(!strcmp(kind, j_str(c, "error")) && l == NULL, "%s: %s, not %s", name, kind, j_str(c, "error"));
}

static void snowflake_exhausts_at(const jval *c) {
    IdmintLayout *l = layout(j_str(c, "layout"));
    uint64_t ms = 0;
    idmint_layout_exhausts_at_ms(l, &ms, NULL);
    CHECK(ms == (uint64_t)j_int(j_get(c, "exhausts_at_ms")), "%s: exhausts at %" PRIu64, j_str(c, "layout"), ms);
    idmint_layout_free(l);
}

static void objectid_valid(const jval *c) {
    const char *hex = j_str(c, "hex");
    uint8_t id[12];
    char back[24];
    IdmintStatus s = idmint_objectid_parse(hex, strlen(hex), id, NULL);
    CHECK(s == IDMINT_STATUS_OK, "objectid %s: parse", hex);
    s = idmint_objectid_to_hex(id, back, sizeof back, NULL);
    CHECK(s == IDMINT_STATUS_OK && !memcmp(back, hex, 24), "objectid %s: hex %.24s", hex, back);
    IdmintDecoded *d = NULL;
    s = idmint_parse(hex, strlen(hex), NULL, &d, NULL);
    int64_t ms = 0;
    CHECK(s == IDMINT_STATUS_OK && idmint_decoded_time_ms(d, &ms) && ms == j_int(j_get(c, "time_s")) * 1000,
          "objectid %s: time", hex);
    const char *time = idmint_decoded_time(d, NULL);
    CHECK(time && !strcmp(time, j_str(c, "time")), "objectid %s: time %s", hex, time);
    idmint_decoded_free(d);
}

static void objectid_invalid(const jval *c) {
    const jval *hex = j_get(c, "hex");
    uint8_t id[12];
    IdmintError *err = NULL;
    IdmintStatus s = idmint_objectid_parse(hex->text, hex->len, id, &err);
    const char *kind = kind_of(s, err);
    CHECK(!strcmp(kind, j_str(c, "error")), "objectid %s: %s, not %s", j_str(c, "name"), kind, j_str(c, "error"));
}

/* A part's value as text, numbers in decimal, as the vectors write them. */
static int part_matches(IdmintDecoded *d, size_t i, const char *key, const jval *want) {
    const char *name = NULL, *text = NULL;
    size_t name_len = 0, text_len = 0;
    uint64_t number = 0;
    if (idmint_decoded_part(d, i, &name, &name_len, &number, &text, &text_len, NULL) != IDMINT_STATUS_OK) return 0;
    if (strcmp(name, key) != 0) return 0;
    if (text) return want->type == J_STR && text_len == want->len && !memcmp(text, want->text, text_len);
    char digits[24];
    snprintf(digits, sizeof digits, "%" PRIu64, number);
    return !strcmp(digits, want->text); /* a number, or a big one as a decimal string */
}

static void formats_decode(const jval *c) {
    const char *name = j_str(c, "name");
    const jval *text = j_get(c, "text");
    const char *spec = j_str(c, "layout");
    IdmintLayout *l = spec ? layout(spec) : NULL;
    IdmintDecoded *d = NULL;
    IdmintError *err = NULL;
    IdmintStatus s = idmint_parse(text->text, text->len, l, &d, &err);
    const char *kind = kind_of(s, err);
    CHECK(s == IDMINT_STATUS_OK, "decode %s: %s", name, kind);
    if (d) {
        CHECK(!strcmp(idmint_decoded_format(d, NULL), j_str(c, "format")), "decode %s: format", name);
        CHECK(!strcmp(idmint_decoded_id(d, NULL), j_str(c, "id")), "decode %s: id %s", name, idmint_decoded_id(d, NULL));
        const char *value = j_str(c, "value");
        uint64_t v = 0;
        int has = idmint_decoded_value(d, &v);
        CHECK(value ? has && v == strtoull(value, NULL, 10) : !has, "decode %s: value", name);
        const jval *time_ms = j_get(c, "time_ms");
        int64_t ms = 0;
        has = idmint_decoded_time_ms(d, &ms);
        CHECK(time_ms->type == J_NUM ? has && ms == j_int(time_ms) : !has, "decode %s: time_ms", name);
        const char *time = j_str(c, "time"), *got = idmint_decoded_time(d, NULL);
        CHECK(time ? got && !strcmp(got, time) : !got, "decode %s: time %s", name, got ? got : "(none)");
        const jval *parts = j_get(c, "parts");
        CHECK(parts && parts->n == idmint_decoded_part_count(d), "decode %s: part count", name);
        for (size_t i = 0; parts && i < parts->n; i++)
            CHECK(part_matches(d, i, parts->keys[i], parts->items[i]), "decode %s: part %s", name, parts->keys[i]);
        idmint_decoded_free(d);
    }
    idmint_layout_free(l);
}

static void formats_invalid(const jval *c) {
    const jval *text = j_get(c, "text");
    const char *spec = j_str(c, "layout");
    IdmintLayout *l = spec ? layout(spec) : NULL;
    IdmintDecoded *d = NULL;
    IdmintError *err = NULL;
    IdmintStatus s = idmint_parse(text->text, text->len, l, &d, &err);
    const char *kind = kind_of(s, err);
    CHECK(!strcmp(kind, j_str(c, "error")) && !d, "invalid %s: %s, not %s", j_str(c, "name"), kind, j_str(c, "error"));
    idmint_layout_free(l);
}

static void each(const jval *doc, const char *key, void (*f)(const jval *)) {
    const jval *cases = j_get(doc, key);
    if (!cases || cases->n == 0) {
        fprintf(stderr, "FAIL: no cases under %s\n", key);
        failed++;
        return;
    }
    for (size_t i = 0; i < cases->n; i++) f(cases->items[i]);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s VECTORS_DIR\n", argv[0]);
        return 2;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/snowflake.json", argv[1]);
    jval *sf = j_load(path);
    each(sf, "valid", snowflake_valid);
    each(sf, "invalid_ids", snowflake_invalid_id);
    each(sf, "invalid_parts", snowflake_invalid_parts);
    each(sf, "invalid_layouts", snowflake_invalid_layout);
    each(sf, "exhausts_at", snowflake_exhausts_at);
    snprintf(path, sizeof path, "%s/objectid.json", argv[1]);
    jval *oid = j_load(path);
    each(oid, "valid", objectid_valid);
    each(oid, "invalid", objectid_invalid);
    snprintf(path, sizeof path, "%s/formats.json", argv[1]);
    jval *fm = j_load(path);
    each(fm, "snowflakes", snowflake_valid);
    each(fm, "invalid_snowflakes", snowflake_invalid_id);
    each(fm, "invalid_layouts", snowflake_invalid_layout);
    each(fm, "decode", formats_decode);
    each(fm, "invalid", formats_invalid);
    printf("vectors: %d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
