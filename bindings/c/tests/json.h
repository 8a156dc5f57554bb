/*
 * A small JSON reader for the C tests: enough for the JSON files of tests/vectors (objects, arrays,
 * strings with \u escapes, integers, true/false/null), with no dependency beyond libc. Numbers
 * keep their text, so 64-bit values are read exactly (strtoll/strtoull). Not for untrusted
 * input: it trusts the vectors' shape and exits on malformed text, unless the parser has a
 * `recover` point (j_parse_line, for the conformance driver's requests: a malformed one is
 * answered, not fatal). And a tiny writer (jbuf): a growing buffer and JSON string escaping.
 * Every function is `static inline`, so a program may use any part of the file without
 * -Wunused-function.
 */
#ifndef IDMINT_TEST_JSON_H
#define IDMINT_TEST_JSON_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ } jtype;

typedef struct jval {
    jtype type;
    int boolean;
    char *text; /* J_NUM: its digits; J_STR: the decoded UTF-8 (NUL-terminated) */
    size_t len; /* J_STR: bytes of text */
    size_t n;   /* J_ARR, J_OBJ: items */
    char **keys;
    struct jval **items;
} jval;

typedef struct {
    const char *s;
    const char *file;
    /* When set, malformed text jumps here (with `why` set) instead of exiting. */
    jmp_buf *recover;
    const char *why;
} jparser;

static inline void j_fail(jparser *p, const char *what) {
    if (p->recover) {
        p->why = what;
        longjmp(*p->recover, 1);
    }
    fprintf(stderr, "%s: bad JSON (%s) at: %.30s\n", p->file, what, p->s);
    exit(2);
}

static inline void j_ws(jparser *p) {
    while (*p->s == ' ' || *p->s == '\n' || *p->s == '\r' || *p->s == '\t') p->s++;
}

static inline jval *j_new(jtype t) {
    jval *v = calloc(1, sizeof *v);
    if (!v) exit(3);
    v->type = t;
    return v;
}

static inline void j_utf8(char **o, unsigned long c) {
    unsigned char *u = (unsigned char *)*o;
    if (c < 0x80) {
        *u++ = (unsigned char)c;
    } else if (c < 0x800) {
        *u++ = (unsigned char)(0xc0 | (c >> 6));
        *u++ = (unsigned char)(0x80 | (c & 0x3f));
    } else if (c < 0x10000) {
        *u++ = (unsigned char)(0xe0 | (c >> 12));
        *u++ = (unsigned char)(0x80 | ((c >> 6) & 0x3f));
        *u++ = (unsigned char)(0x80 | (c & 0x3f));
    } else {
        *u++ = (unsigned char)(0xf0 | (c >> 18));
        *u++ = (unsigned char)(0x80 | ((c >> 12) & 0x3f));
        *u++ = (unsigned char)(0x80 | ((c >> 6) & 0x3f));
        *u++ = (unsigned char)(0x80 | (c & 0x3f));
    }
    *o = (char *)u;
}

static inline unsigned long j_hex4(jparser *p) {
    char buf[5] = {0};
    memcpy(buf, p->s, 4);
    for (int i = 0; i < 4; i++)
        if (!buf[i]) j_fail(p, "short \\u escape");
    p->s += 4;
    return strtoul(buf, NULL, 16);
}

static inline char *j_string(jparser *p, size_t *len) {
    if (*p->s != '"') j_fail(p, "expected a string");
    p->s++;
    /* The decoded text is never longer than the escaped one. */
    const char *end = p->s;
    while (*end && *end != '"') end += (*end == '\\' && end[1]) ? 2 : 1;
    char *out = malloc((size_t)(end - p->s) + 1), *o = out;
    if (!out) exit(3);
    while (*p->s != '"') {
        if (!*p->s) j_fail(p, "unterminated string");
        if (*p->s != '\\') {
            *o++ = *p->s++;
            continue;
        }
        p->s++;
        char e = *p->s++;
        switch (e) {
        case 'n': *o++ = '\n'; break;
        case 't': *o++ = '\t'; break;
        case 'r': *o++ = '\r'; break;
        case 'b': *o++ = '\b'; break;
        case 'f': *o++ = '\f'; break;
        case 'u': {
            unsigned long c = j_hex4(p);
            if (c >= 0xd800 && c < 0xdc00 && p->s[0] == '\\' && p->s[1] == 'u') {
                p->s += 2;
                unsigned long lo = j_hex4(p);
                c = 0x10000 + ((c - 0xd800) << 10) + (lo - 0xdc00);
            }
            j_utf8(&o, c);
            break;
        }
        default: *o++ = e;
        }
    }
    p->s++;
    *o = 0;
    *len = (size_t)(o - out);
    return out;
}

static inline jval *j_value(jparser *p);

static inline void j_push(jval *v, char *key, jval *item) {
    v->items = realloc(v->items, (v->n + 1) * sizeof *v->items);
    v->keys = realloc(v->keys, (v->n + 1) * sizeof *v->keys);
    if (!v->items || !v->keys) exit(3);
    v->items[v->n] = item;
    v->keys[v->n] = key;
    v->n++;
}

static inline jval *j_value(jparser *p) {
    j_ws(p);
    jval *v;
    if (*p->s == '{' || *p->s == '[') {
        int obj = *p->s == '{';
        char close = obj ? '}' : ']';
        v = j_new(obj ? J_OBJ : J_ARR);
        p->s++;
        j_ws(p);
        if (*p->s == close) {
            p->s++;
            return v;
        }
        for (;;) {
            char *key = NULL;
            if (obj) {
                j_ws(p);
                size_t klen;
                key = j_string(p, &klen);
                j_ws(p);
                if (*p->s++ != ':') j_fail(p, "expected ':'");
            }
            j_push(v, key, j_value(p));
            j_ws(p);
            if (*p->s == ',') {
                p->s++;
                continue;
            }
            if (*p->s++ != close) j_fail(p, "expected ',' or a closing bracket");
            return v;
        }
    }
    if (*p->s == '"') {
        v = j_new(J_STR);
        v->text = j_string(p, &v->len);
        return v;
    }
    if (!strncmp(p->s, "true", 4) || !strncmp(p->s, "false", 5)) {
        v = j_new(J_BOOL);
        v->boolean = *p->s == 't';
        p->s += v->boolean ? 4 : 5;
        return v;
    }
    if (!strncmp(p->s, "null", 4)) {
        p->s += 4;
        return j_new(J_NULL);
    }
    const char *start = p->s;
    while (*p->s == '-' || *p->s == '+' || *p->s == '.' || *p->s == 'e' || *p->s == 'E' ||
           (*p->s >= '0' && *p->s <= '9'))
        p->s++;
    if (p->s == start) j_fail(p, "unexpected character");
    v = j_new(J_NUM);
    v->text = strndup(start, (size_t)(p->s - start));
    return v;
}

/* The JSON document in `path`, or exit. */
static inline jval *j_load(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        exit(2);
    }
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = malloc((size_t)size + 1);
    if (!text || fread(text, 1, (size_t)size, f) != (size_t)size) exit(3);
    text[size] = 0;
    fclose(f);
    jparser p = {text, path, NULL, NULL};
    jval *v = j_value(&p);
    free(text);
    return v;
}

/* The member `key` of an object, or NULL. */
static inline jval *j_get(const jval *obj, const char *key) {
    if (!obj || obj->type != J_OBJ) return NULL;
    for (size_t i = 0; i < obj->n; i++)
        if (!strcmp(obj->keys[i], key)) return obj->items[i];
    return NULL;
}

/* The string member `key` (NULL when absent or null). */
static inline const char *j_str(const jval *obj, const char *key) {
    jval *v = j_get(obj, key);
    return v && v->type == J_STR ? v->text : NULL;
}

static inline long long j_int(const jval *v) { return v && v->type == J_NUM ? strtoll(v->text, NULL, 10) : 0; }

/* Frees a value and everything in it (NULL is fine). */
static inline void j_free(jval *v) {
    if (!v) return;
    for (size_t i = 0; i < v->n; i++) {
        free(v->keys[i]);
        j_free(v->items[i]);
    }
    free(v->keys);
    free(v->items);
    free(v->text);
    free(v);
}

/*
 * One JSON value that must fill `line` (whitespace around it allowed): the value, or NULL with
 * `*why` saying what is wrong. What is parsed before a failure is not freed (a request line is
 * short, and a malformed one rare).
 */
static inline jval *j_parse_line(const char *line, const char **why) {
    /* Static, so what j_fail writes before it jumps is still there after (C11 7.13.2.1). */
    static jmp_buf recover;
    static jparser p;
    p = (jparser){line, "request", &recover, NULL};
    if (setjmp(recover)) {
        *why = p.why;
        return NULL;
    }
    jval *v = j_value(&p);
    j_ws(&p);
    if (*p.s) {
        j_free(v);
        *why = "text after the value";
        return NULL;
    }
    return v;
}

/* A growing text buffer, for JSON written piece by piece. */
typedef struct {
    char *s;
    size_t len, cap;
} jbuf;

static inline void jb_put(jbuf *b, const char *s, size_t n) {
    if (b->len + n + 1 > b->cap) {
        b->cap = (b->len + n + 1) * 2;
        b->s = realloc(b->s, b->cap);
        if (!b->s) exit(3);
    }
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = 0;
}

static inline void jb_puts(jbuf *b, const char *s) { jb_put(b, s, strlen(s)); }

static inline void jb_printf(jbuf *b, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) exit(3);
    jb_put(b, "", 0);
    if (b->len + (size_t)n + 1 > b->cap) {
        b->cap = (b->len + (size_t)n + 1) * 2;
        b->s = realloc(b->s, b->cap);
        if (!b->s) exit(3);
    }
    va_start(ap, fmt);
    vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

/* `s` (UTF-8, `n` bytes) as a JSON string: quotes, backslashes and control characters escaped,
 * the rest written as it is (JSON text is UTF-8). */
static inline void jb_str(jbuf *b, const char *s, size_t n) {
    jb_put(b, "\"", 1);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') {
            char e[2] = {'\\', (char)c};
            jb_put(b, e, 2);
        } else if (c < 0x20) {
            jb_printf(b, "\\u%04x", c);
        } else {
            jb_put(b, (const char *)&c, 1);
        }
    }
    jb_put(b, "\"", 1);
}

#endif
