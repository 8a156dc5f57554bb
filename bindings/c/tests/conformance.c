/*
 * The conformance protocol of docs/spec.md ("The conformance protocol") answered through the
 * public C API alone: one JSON request a line on stdin, one answer a line on stdout,
 * {"ok": RESULT} or {"error": KIND, "message": TEXT}. Every value comes from a call of
 * include/idmint.h; this file only converts JSON to arguments and results to JSON, so what
 * tests/conformance/run.py checks through it is the C library.
 *
 *   python3 tests/conformance/run.py --only snowflake.json ... -- ./conformance
 *
 * It answers the ops the C API offers (layout, decompose, compose, decode, objectid, uuid7,
 * typeid_parse, typeid_encode, time_range, and ops); any other op of the protocol is
 * {"error": "invalid_argument", "message": "op NAME is not in the C API"}. docs/c.md
 * ("Conformance") lists the vector files that leaves out.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "idmint.h"
#include "json.h"

/* The ops answered here, in the order of docs/spec.md's table ("ops" lists them). */
static const char *const OPS[] = {"ops",    "layout",       "decompose",     "compose",   "decode",
                                  "objectid", "uuid7",      "typeid_parse",  "typeid_encode",
                                  "time_range"};

/* The protocol's other ops: known, but not in the C API. */
static const char *const NOT_IN_C[] = {
    "shortid_encode", "shortid_decode", "plan",          "health",          "layout_remaining",
    "start_above",    "obfuscate_key",  "obfuscate",     "reveal",          "reveal_tagged",
    "template",       "template_format", "template_parse", "template_daily"};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* The failure of the request being answered: its kind and message. */
static jbuf failure;
static const char *failure_kind;

/* A failed C call: its kind and message from the IdmintError (freed here). Returns -1. */
static int fail(IdmintStatus status, IdmintError *err) {
    failure.len = 0;
    jb_puts(&failure, "");
    failure_kind = err ? idmint_error_kind(err) : idmint_status_kind(status);
    if (!failure_kind) failure_kind = "internal";
    size_t len = 0;
    const char *m = idmint_error_message(err, &len);
    jb_put(&failure, m, len);
    idmint_error_free(err);
    return -1;
}

/* A request this driver cannot read: invalid_argument, as the protocol says. Returns -1. */
static int bad_request(const char *field, const char *what) {
    failure.len = 0;
    failure_kind = "invalid_argument";
    jb_puts(&failure, "request field `");
    jb_puts(&failure, field);
    jb_puts(&failure, "`: ");
    jb_puts(&failure, what);
    return -1;
}

/* Calls that return a status: on failure, record it and leave the op with -1. The error
 * pointer must be NULL before each call (the C API's rule). */
#define TRY(call)                                                                                \
    do {                                                                                         \
        IdmintError *err_ = NULL;                                                                \
        IdmintError **err = &err_;                                                               \
        IdmintStatus s_ = (call);                                                                \
        if (s_ != IDMINT_STATUS_OK) {                                                            \
            rc = fail(s_, err_);                                                                 \
            goto done;                                                                           \
        }                                                                                        \
    } while (0)

/* Request fields. */
static const jval *field(const jval *req, const char *name, jtype type, const char *what) {
    const jval *v = j_get(req, name);
    if (!v) {
        bad_request(name, "missing");
        return NULL;
    }
    if (v->type != type) {
        bad_request(name, what);
        return NULL;
    }
    return v;
}

static const jval *text_field(const jval *req, const char *name) {
    return field(req, name, J_STR, "not a string");
}

/* A whole JSON number that fits an int64_t (every number of the C API's arguments does). */
static int int_of(const char *name, const jval *v, int64_t *out) {
    if (!v || v->type != J_NUM) return bad_request(name, "not a number");
    char *end = NULL;
    errno = 0;
    long long n = strtoll(v->text, &end, 10);
    if (errno || *end) return bad_request(name, "not a whole number within int64_t");
    *out = (int64_t)n;
    return 0;
}

static int int_field(const jval *req, const char *name, int64_t *out) {
    const jval *v = j_get(req, name);
    if (!v) return bad_request(name, "missing");
    return int_of(name, v, out);
}

/* A layout handle of the request's `layout` text. */
#define LAYOUT(req, l)                                                                           \
    do {                                                                                         \
        const jval *spec_ = text_field(req, "layout");                                           \
        if (!spec_) {                                                                            \
            rc = -1;                                                                             \
            goto done;                                                                           \
        }                                                                                        \
        TRY(idmint_layout_new(spec_->text, spec_->len, NULL, 0, &(l), err));                    \
    } while (0)

/* Writes a string the library handed out, and frees it. */
static void put_owned(jbuf *b, char *s, size_t len) {
    jb_str(b, s, len);
    idmint_string_free(s);
}

/* "key":"text" of a borrowed string, or "key":null. */
static void put_borrowed(jbuf *b, const char *s, size_t len) {
    if (s)
        jb_str(b, s, len);
    else
        jb_puts(b, "null");
}

/* The parts of a decoded ID as a JSON object, numbers as JSON numbers (exact up to 2^64-1). */
static int put_parts(jbuf *b, const IdmintDecoded *d) {
    int rc = 0;
    jb_puts(b, "{");
    size_t n = idmint_decoded_part_count(d);
    for (size_t i = 0; i < n; i++) {
        const char *name = NULL, *text = NULL;
        size_t name_len = 0, text_len = 0;
        uint64_t number = 0;
        TRY(idmint_decoded_part(d, i, &name, &name_len, &number, &text, &text_len, err));
        if (i) jb_puts(b, ",");
        jb_str(b, name, name_len);
        jb_puts(b, ":");
        if (text)
            jb_str(b, text, text_len);
        else
            jb_printf(b, "%" PRIu64, number);
    }
    jb_puts(b, "}");
done:
    return rc;
}

/* A named part of a decoded ID: its number (`*text` NULL) or text. -1 when there is none. */
static int find_part(const IdmintDecoded *d, const char *key, uint64_t *number, const char **text,
                     size_t *text_len) {
    size_t n = idmint_decoded_part_count(d);
    for (size_t i = 0; i < n; i++) {
        const char *name = NULL;
        size_t name_len = 0;
        if (idmint_decoded_part(d, i, &name, &name_len, number, text, text_len, NULL) ==
                IDMINT_STATUS_OK &&
            name_len == strlen(key) && !memcmp(name, key, name_len))
            return 0;
    }
    failure.len = 0;
    failure_kind = "internal";
    jb_puts(&failure, "the decoded ID has no part ");
    jb_puts(&failure, key);
    return -1;
}

static int op_layout(const jval *req, jbuf *b) {
    int rc = 0;
    IdmintLayout *l = NULL;
    LAYOUT(req, l);
    char *s = NULL;
    size_t len = 0;
    TRY(idmint_layout_canonical_spec(l, &s, &len, err));
    jb_puts(b, "{\"spec\":");
    put_owned(b, s, len);
    TRY(idmint_layout_preset(l, &s, &len, err));
    jb_puts(b, ",\"preset\":");
    if (s)
        put_owned(b, s, len);
    else
        jb_puts(b, "null");
    uint32_t bits = 0;
    TRY(idmint_layout_total_bits(l, &bits, err));
    jb_printf(b, ",\"total_bits\":%" PRIu32, bits);
    bool is_unsigned = false;
    TRY(idmint_layout_is_unsigned(l, &is_unsigned, err));
    jb_puts(b, is_unsigned ? ",\"unsigned\":true" : ",\"unsigned\":false");
    uint64_t ms = 0;
    TRY(idmint_layout_exhausts_at_ms(l, &ms, err));
    jb_printf(b, ",\"exhausts_at_ms\":%" PRIu64, ms);
    TRY(idmint_layout_exhausts_at(l, &s, &len, err));
    jb_puts(b, ",\"exhausts_at\":");
    put_owned(b, s, len);
    jb_puts(b, "}");
done:
    idmint_layout_free(l);
    return rc;
}

static int op_decompose(const jval *req, jbuf *b) {
    int rc = 0;
    IdmintLayout *l = NULL;
    IdmintDecoded *d = NULL;
    uint64_t *nodes = NULL;
    LAYOUT(req, l);
    const jval *id_text = text_field(req, "id");
    if (!id_text) {
        rc = -1;
        goto done;
    }
    uint64_t id = 0;
    TRY(idmint_layout_parse_id(l, id_text->text, id_text->len, &id, err));
    size_t count = 0;
    TRY(idmint_layout_node_count(l, &count, err));
    nodes = calloc(count + 1, sizeof *nodes);
    if (!nodes) exit(3);
    IdmintParts parts = {0};
    TRY(idmint_layout_decompose(l, id, &parts, nodes, count, err));
    /* The time as text: the same ID read by the parser as a snowflake of this layout. */
    TRY(idmint_parse_as(id_text->text, id_text->len, "snowflake", 9, l, &d, err));
    size_t len = 0;
    const char *time = idmint_decoded_time(d, &len);
    jb_printf(b, "{\"time_ms\":%" PRIu64 ",\"time\":", parts.time_ms);
    put_borrowed(b, time, len);
    jb_puts(b, ",\"fields\":{");
    for (size_t i = 0; i < count; i++) {
        const char *name = NULL;
        TRY(idmint_layout_node_name(l, i, &name, &len, err));
        if (i) jb_puts(b, ",");
        jb_str(b, name, len);
        jb_printf(b, ":%" PRIu64, nodes[i]);
    }
    jb_printf(b, "},\"sequence\":%" PRIu64 "}", parts.sequence);
done:
    free(nodes);
    idmint_decoded_free(d);
    idmint_layout_free(l);
    return rc;
}

static int op_compose(const jval *req, jbuf *b) {
    int rc = 0;
    IdmintLayout *l = NULL;
    IdmintNode *nodes = NULL;
    int64_t time_ms = 0, sequence = 0;
    const jval *fields = field(req, "fields", J_OBJ, "not an object");
    if (!fields || int_field(req, "time_ms", &time_ms) || int_field(req, "sequence", &sequence))
        return -1;
    nodes = calloc(fields->n + 1, sizeof *nodes);
    if (!nodes) exit(3);
    for (size_t i = 0; i < fields->n; i++) {
        nodes[i].name = fields->keys[i];
        nodes[i].name_len = strlen(fields->keys[i]);
        if (int_of(fields->keys[i], fields->items[i], &nodes[i].value)) {
            rc = -1;
            goto done;
        }
    }
    LAYOUT(req, l);
    uint64_t id = 0;
    TRY(idmint_layout_compose(l, time_ms, nodes, fields->n, sequence, &id, err));
    jb_printf(b, "{\"id\":\"%" PRIu64 "\"}", id);
done:
    free(nodes);
    idmint_layout_free(l);
    return rc;
}

/* A decoded ID in the shape of the `decode` op (docs/spec.md 5). */
static int put_decoded(jbuf *b, const IdmintDecoded *d) {
    size_t len = 0;
    const char *s = idmint_decoded_format(d, &len);
    jb_puts(b, "{\"format\":");
    put_borrowed(b, s, len);
    s = idmint_decoded_id(d, &len);
    jb_puts(b, ",\"id\":");
    put_borrowed(b, s, len);
    uint64_t value = 0;
    if (idmint_decoded_value(d, &value))
        jb_printf(b, ",\"value\":\"%" PRIu64 "\"", value);
    else
        jb_puts(b, ",\"value\":null");
    int64_t ms = 0;
    if (idmint_decoded_time_ms(d, &ms))
        jb_printf(b, ",\"time_ms\":%" PRId64, ms);
    else
        jb_puts(b, ",\"time_ms\":null");
    s = idmint_decoded_time(d, &len);
    jb_puts(b, ",\"time\":");
    put_borrowed(b, s, len);
    s = idmint_decoded_layout(d, &len);
    jb_puts(b, ",\"layout\":");
    put_borrowed(b, s, len);
    jb_puts(b, ",\"parts\":");
    if (put_parts(b, d)) return -1;
    jb_puts(b, "}");
    return 0;
}

static int op_decode(const jval *req, jbuf *b) {
    int rc = 0;
    IdmintLayout *l = NULL;
    IdmintDecoded *d = NULL;
    const jval *text = text_field(req, "text");
    if (!text) return -1;
    const jval *spec = j_get(req, "layout"), *format = j_get(req, "format");
    if (spec && spec->type != J_NULL) LAYOUT(req, l);
    if (format && format->type != J_NULL) {
        if (format->type != J_STR) {
            rc = bad_request("format", "not a string");
            goto done;
        }
        TRY(idmint_parse_as(text->text, text->len, format->text, format->len, l, &d, err));
    } else {
        TRY(idmint_parse(text->text, text->len, l, &d, err));
    }
    rc = put_decoded(b, d);
done:
    idmint_decoded_free(d);
    idmint_layout_free(l);
    return rc;
}

static int op_objectid(const jval *req, jbuf *b) {
    int rc = 0;
    IdmintDecoded *d = NULL;
    const jval *text = text_field(req, "text");
    if (!text) return -1;
    uint8_t id[12];
    char hex[24];
    TRY(idmint_objectid_parse(text->text, text->len, id, err));
    TRY(idmint_objectid_to_hex(id, hex, sizeof hex, err));
    /* Its time and parts: the canonical hex read by the parser as an ObjectId. */
    TRY(idmint_parse_as(hex, sizeof hex, "objectid", 8, NULL, &d, err));
    uint64_t time_s = 0, counter = 0, unused = 0;
    const char *random = NULL, *none = NULL;
    size_t random_len = 0, len = 0;
    if (find_part(d, "time_s", &time_s, &none, &len) || find_part(d, "random", &unused, &random, &random_len) ||
        find_part(d, "counter", &counter, &none, &len)) {
        rc = -1;
        goto done;
    }
    jb_puts(b, "{\"hex\":");
    jb_str(b, hex, sizeof hex);
    jb_printf(b, ",\"time_s\":%" PRIu64 ",\"time\":", time_s);
    const char *time = idmint_decoded_time(d, &len);
    put_borrowed(b, time, len);
    jb_puts(b, ",\"random\":");
    put_borrowed(b, random, random_len);
    jb_printf(b, ",\"counter\":%" PRIu64 "}", counter);
done:
    idmint_decoded_free(d);
    return rc;
}

static int op_uuid7(const jval *req, jbuf *b) {
    int rc = 0;
    IdmintDecoded *d = NULL;
    const jval *text = text_field(req, "text"), *ulid = j_get(req, "ulid");
    if (!text) return -1;
    if (ulid && ulid->type != J_BOOL && ulid->type != J_NULL) return bad_request("ulid", "not a boolean");
    uint8_t u[16];
    char canonical[36], ulid_text[26];
    TRY(idmint_uuid7_parse(text->text, text->len, ulid && ulid->type == J_BOOL && ulid->boolean, u, err));
    TRY(idmint_uuid7_text(u, false, canonical, sizeof canonical, err));
    TRY(idmint_uuid7_text(u, true, ulid_text, sizeof ulid_text, err));
    char *time = NULL;
    size_t time_len = 0;
    TRY(idmint_uuid7_time(u, &time, &time_len, err));
    /* Its fields: the canonical text read by the parser as a UUID. */
    IdmintStatus s = idmint_parse_as(canonical, sizeof canonical, "uuid", 4, NULL, &d, NULL);
    uint64_t time_ms = 0, rand_a = 0, unused = 0;
    const char *rand_b = NULL, *none = NULL;
    size_t rand_b_len = 0, len = 0;
    if (s != IDMINT_STATUS_OK || find_part(d, "unix_ts_ms", &time_ms, &none, &len) ||
        find_part(d, "rand_a", &rand_a, &none, &len) || find_part(d, "rand_b", &unused, &rand_b, &rand_b_len)) {
        if (s != IDMINT_STATUS_OK) fail(s, NULL);
        idmint_string_free(time);
        rc = -1;
        goto done;
    }
    jb_puts(b, "{\"uuid\":");
    jb_str(b, canonical, sizeof canonical);
    jb_printf(b, ",\"time_ms\":%" PRIu64 ",\"time\":", time_ms);
    put_owned(b, time, time_len);
    jb_printf(b, ",\"rand_a\":%" PRIu64 ",\"rand_b\":", rand_a);
    put_borrowed(b, rand_b, rand_b_len);
    jb_puts(b, ",\"ulid\":");
    jb_str(b, ulid_text, sizeof ulid_text);
    jb_puts(b, "}");
done:
    idmint_decoded_free(d);
    return rc;
}

static int op_typeid_parse(const jval *req, jbuf *b) {
    int rc = 0;
    IdmintDecoded *d = NULL;
    const jval *text = text_field(req, "text");
    if (!text) return -1;
    TRY(idmint_parse_as(text->text, text->len, "typeid", 6, NULL, &d, err));
    uint64_t unused = 0;
    const char *prefix = NULL, *uuid = NULL;
    size_t prefix_len = 0, uuid_len = 0, len = 0;
    if (find_part(d, "prefix", &unused, &prefix, &prefix_len) || find_part(d, "uuid", &unused, &uuid, &uuid_len)) {
        rc = -1;
        goto done;
    }
    const char *typeid = idmint_decoded_id(d, &len);
    jb_puts(b, "{\"typeid\":");
    put_borrowed(b, typeid, len);
    jb_puts(b, ",\"prefix\":");
    put_borrowed(b, prefix, prefix_len);
    jb_puts(b, ",\"uuid\":");
    put_borrowed(b, uuid, uuid_len);
    jb_puts(b, "}");
done:
    idmint_decoded_free(d);
    return rc;
}

static int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static int op_typeid_encode(const jval *req, jbuf *b) {
    int rc = 0;
    const jval *prefix = text_field(req, "prefix");
    const jval *uuid = prefix ? text_field(req, "uuid") : NULL;
    if (!uuid) return -1;
    /* The protocol gives the UUID as text (any version, hyphens or not); the C API takes its
     * 16 bytes, so the text is read here, as the CLI's adapter reads it. */
    uint8_t bytes[16];
    size_t digits = 0;
    for (size_t i = 0; i < uuid->len; i++) {
        if (uuid->text[i] == '-') continue;
        int v = hex_digit(uuid->text[i]);
        if (v < 0 || digits >= 32) return bad_request("uuid", "not 32 hex digits (hyphens allowed)");
        if (digits % 2 == 0)
            bytes[digits / 2] = (uint8_t)(v << 4);
        else
            bytes[digits / 2] |= (uint8_t)v;
        digits++;
    }
    if (digits != 32) return bad_request("uuid", "not 32 hex digits (hyphens allowed)");
    char *s = NULL;
    size_t len = 0;
    TRY(idmint_typeid_encode(prefix->text, prefix->len, bytes, &s, &len, err));
    jb_puts(b, "{\"typeid\":");
    put_owned(b, s, len);
    jb_puts(b, "}");
done:
    return rc;
}

static int op_time_range(const jval *req, jbuf *b) {
    int rc = 0;
    IdmintLayout *l = NULL;
    int64_t time_ms = 0;
    if (int_field(req, "time_ms", &time_ms)) return -1;
    LAYOUT(req, l);
    uint64_t min = 0, max = 0;
    TRY(idmint_layout_id_at(l, time_ms, false, &min, err));
    TRY(idmint_layout_id_at(l, time_ms, true, &max, err));
    jb_printf(b, "{\"min_id\":\"%" PRIu64 "\",\"max_id\":\"%" PRIu64 "\"}", min, max);
done:
    idmint_layout_free(l);
    return rc;
}

static int op_ops(jbuf *b) {
    jb_puts(b, "[");
    for (size_t i = 0; i < COUNT(OPS); i++) {
        if (i) jb_puts(b, ",");
        jb_str(b, OPS[i], strlen(OPS[i]));
    }
    jb_puts(b, "]");
    return 0;
}

/* The result of one request into `b`, or -1 with the failure recorded. */
static int respond(const jval *req, jbuf *b) {
    if (req->type != J_OBJ) return bad_request("(request)", "not a JSON object");
    const jval *op = text_field(req, "op");
    if (!op) return -1;
    const char *o = op->text;
    if (!strcmp(o, "ops")) return op_ops(b);
    if (!strcmp(o, "layout")) return op_layout(req, b);
    if (!strcmp(o, "decompose")) return op_decompose(req, b);
    if (!strcmp(o, "compose")) return op_compose(req, b);
    if (!strcmp(o, "decode")) return op_decode(req, b);
    if (!strcmp(o, "objectid")) return op_objectid(req, b);
    if (!strcmp(o, "uuid7")) return op_uuid7(req, b);
    if (!strcmp(o, "typeid_parse")) return op_typeid_parse(req, b);
    if (!strcmp(o, "typeid_encode")) return op_typeid_encode(req, b);
    if (!strcmp(o, "time_range")) return op_time_range(req, b);
    failure.len = 0;
    failure_kind = "invalid_argument";
    jb_puts(&failure, "op ");
    jb_puts(&failure, o);
    for (size_t i = 0; i < COUNT(NOT_IN_C); i++)
        if (!strcmp(o, NOT_IN_C[i])) {
            jb_puts(&failure, " is not in the C API");
            return -1;
        }
    jb_puts(&failure, " is not an op of the protocol (docs/spec.md 15)");
    return -1;
}

int main(void) {
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    jbuf result = {0}, answer = {0};
    while ((n = getline(&line, &cap, stdin)) >= 0) {
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r')) line[--n] = 0;
        if (strspn(line, " \t") == (size_t)n) continue;
        result.len = answer.len = 0;
        jb_puts(&result, "");
        const char *why = NULL;
        jval *req = j_parse_line(line, &why);
        int rc = req ? respond(req, &result) : bad_request("(request)", why ? why : "not JSON");
        j_free(req);
        if (rc == 0) {
            jb_puts(&answer, "{\"ok\":");
            jb_put(&answer, result.s, result.len);
            jb_puts(&answer, "}");
        } else {
            jb_puts(&answer, "{\"error\":");
            jb_str(&answer, failure_kind, strlen(failure_kind));
            jb_puts(&answer, ",\"message\":");
            jb_put(&failure, "", 0);
            jb_str(&answer, failure.s ? failure.s : "", failure.len);
            jb_puts(&answer, "}");
        }
        /* The runner waits for each answer before it sends the next request. */
        fputs(answer.s, stdout);
        fputc('\n', stdout);
        fflush(stdout);
    }
    free(line);
    free(result.s);
    free(answer.s);
    free(failure.s);
    return ferror(stdin) ? 1 : 0;
}
