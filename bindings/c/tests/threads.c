/*
 * Uniqueness through the C API: one snowflake generator shared by THREADS threads (single
 * calls and batches mixed), ObjectIds from THREADS threads, and, in a library with stores,
 * one SQLite segment tag drawn by THREADS threads and by a forked child process with a client
 * of its own: 0 duplicates, and each thread's IDs increasing. Then the fork rules: in a child,
 * a generator with node values given and a segment client of the parent refuse with
 * IDMINT_STATUS_FORKED, a random-node generator goes on.
 *
 *   threads [SEGMENTS_SQLITE_PATH LEASES_SQLITE_PATH]
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "idmint.h"

#define THREADS 4
#define PER_THREAD 200000
#define BATCH 1000

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

typedef struct {
    IdmintSnowflake *gen;
    IdmintTag *tag;
    uint64_t *ids;
    size_t n;
    int errors;
    int unordered;
} work;

static void *mint(void *arg) {
    work *w = arg;
    size_t i = 0;
    while (i < w->n) {
        /* Every other round a batch, else single IDs: both paths share the one atomic state. */
        if ((i / BATCH) % 2 == 0 && w->n - i >= BATCH) {
            if (idmint_snowflake_next_ids(w->gen, w->ids + i, BATCH, NULL) != IDMINT_STATUS_OK) w->errors++;
            i += BATCH;
        } else {
            if (idmint_snowflake_next_id(w->gen, w->ids + i, NULL) != IDMINT_STATUS_OK) w->errors++;
            i++;
        }
    }
    for (size_t k = 1; k < w->n; k++)
        if (w->ids[k] <= w->ids[k - 1]) w->unordered++;
    return NULL;
}

static void *draw(void *arg) {
    work *w = arg;
    for (size_t i = 0; i < w->n; i++)
        if (idmint_tag_next_id(w->tag, w->ids + i, NULL) != IDMINT_STATUS_OK) w->errors++;
    for (size_t k = 1; k < w->n; k++)
        if (w->ids[k] <= w->ids[k - 1]) w->unordered++;
    return NULL;
}

static int cmp(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static size_t duplicates(uint64_t *ids, size_t n) {
    qsort(ids, n, sizeof *ids, cmp);
    size_t d = 0;
    for (size_t i = 1; i < n; i++) d += ids[i] == ids[i - 1];
    return d;
}

static void run_threads(void *(*f)(void *), work *w) {
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++) pthread_create(&t[i], NULL, f, &w[i]);
    for (int i = 0; i < THREADS; i++) pthread_join(t[i], NULL);
}

static void snowflakes(void) {
    IdmintSnowflakeOptions o = {0};
    o.random_nodes = true;
    IdmintSnowflake *gen = NULL;
    CHECK(idmint_snowflake_new(&o, &gen, NULL) == IDMINT_STATUS_OK, "snowflake_new");
    uint64_t *all = malloc(sizeof *all * THREADS * PER_THREAD);
    work w[THREADS];
    for (int i = 0; i < THREADS; i++) w[i] = (work){gen, NULL, all + (size_t)i * PER_THREAD, PER_THREAD, 0, 0};
    run_threads(mint, w);
    for (int i = 0; i < THREADS; i++) {
        CHECK(w[i].errors == 0, "thread %d: %d errors", i, w[i].errors);
        CHECK(w[i].unordered == 0, "thread %d: %d IDs not above the one before", i, w[i].unordered);
    }
    size_t d = duplicates(all, (size_t)THREADS * PER_THREAD);
    CHECK(d == 0, "snowflake: %zu duplicates", d);
    printf("snowflake: %d threads x %d IDs, %zu duplicates\n", THREADS, PER_THREAD, d);
    free(all);
    idmint_snowflake_free(gen);
}

typedef struct {
    uint8_t *bytes;
    size_t n;
    int errors;
} oid_work;

static void *objectids(void *arg) {
    oid_work *w = arg;
    /* In batches, as a caller refilling a buffer would. */
    for (size_t i = 0; i < w->n; i += 1000)
        if (idmint_objectid_fill(NULL, w->bytes + 12 * i, w->n - i < 1000 ? w->n - i : 1000, NULL) != IDMINT_STATUS_OK)
            w->errors++;
    return NULL;
}

static int cmp12(const void *a, const void *b) { return memcmp(a, b, 12); }

static void objectid_uniqueness(void) {
    enum { N = 100000 };
    uint8_t *all = malloc((size_t)12 * THREADS * N);
    oid_work w[THREADS];
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++) {
        w[i] = (oid_work){all + (size_t)12 * i * N, N, 0};
        pthread_create(&t[i], NULL, objectids, &w[i]);
    }
    for (int i = 0; i < THREADS; i++) pthread_join(t[i], NULL);
    for (int i = 0; i < THREADS; i++) CHECK(w[i].errors == 0, "objectid thread %d", i);
    qsort(all, (size_t)THREADS * N, 12, cmp12);
    size_t d = 0;
    for (size_t i = 1; i < (size_t)THREADS * N; i++) d += !memcmp(all + 12 * i, all + 12 * (i - 1), 12);
    CHECK(d == 0, "objectid: %zu duplicates", d);
    printf("objectid: %d threads x %d IDs, %zu duplicates\n", THREADS, N, d);
    free(all);
}

static IdmintSegmentClient *open_client(const char *url) {
    IdmintSegmentClient *c = NULL;
    IdmintError *err = NULL;
    if (idmint_segment_client_connect(url, strlen(url), &c, &err) != IDMINT_STATUS_OK) {
        fprintf(stderr, "connect %s: %s\n", url, idmint_error_message(err, NULL));
        exit(1);
    }
    return c;
}

static void segments(const char *path) {
    enum { N = 50000, CHILD = 50000 };
    char url[4200];
    snprintf(url, sizeof url, "sqlite:%s", path);
    IdmintSegmentClient *c = open_client(url);
    IdmintTag *tag = NULL;
    CHECK(idmint_segment_client_tag(c, "orders", 6, &tag, NULL) == IDMINT_STATUS_OK, "tag");
    uint64_t first = 0;
    idmint_tag_next_id(tag, &first, NULL);

    /* A child process draws the same tag through a client of its own, through a pipe back. */
    int fds[2];
    if (pipe(fds) != 0) exit(1);
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        uint64_t id = 0;
        /* The parent's client belongs to the parent: refused here. */
        IdmintStatus s = idmint_tag_next_id(tag, &id, NULL);
        int forked = s == IDMINT_STATUS_FORKED;
        IdmintSegmentClient *own = open_client(url);
        IdmintTag *t = NULL;
        idmint_segment_client_tag(own, "orders", 6, &t, NULL);
        uint64_t *ids = malloc(sizeof *ids * CHILD);
        int errors = 0;
        for (size_t i = 0; i < CHILD; i++) errors += idmint_tag_next_id(t, ids + i, NULL) != IDMINT_STATUS_OK;
        ssize_t wrote = write(fds[1], ids, sizeof *ids * CHILD);
        idmint_tag_free(t);
        idmint_segment_client_free(own);
        _exit(!forked ? 3 : errors || wrote != (ssize_t)(sizeof *ids * CHILD) ? 4 : 0);
    }
    close(fds[1]);

    uint64_t *all = malloc(sizeof *all * (THREADS * N + CHILD + 1));
    work w[THREADS];
    for (int i = 0; i < THREADS; i++) w[i] = (work){NULL, tag, all + (size_t)i * N, N, 0, 0};
    run_threads(draw, w);
    for (int i = 0; i < THREADS; i++) {
        CHECK(w[i].errors == 0, "segment thread %d: %d errors", i, w[i].errors);
        CHECK(w[i].unordered == 0, "segment thread %d: unordered", i);
    }
    size_t got = 0, want = sizeof(uint64_t) * CHILD;
    uint8_t *child = (uint8_t *)(all + THREADS * N);
    while (got < want) {
        ssize_t r = read(fds[0], child + got, want - got);
        if (r <= 0) break;
        got += (size_t)r;
    }
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "segment child exited with %d (3: no FORKED)", WEXITSTATUS(status));
    CHECK(got == want, "segment child sent %zu bytes", got);
    all[THREADS * N + CHILD] = first;
    size_t d = duplicates(all, THREADS * N + CHILD + 1);
    CHECK(d == 0, "segment: %zu duplicates", d);
    printf("segment: %d threads x %d and a child process x %d IDs of one SQLite tag, %zu duplicates\n", THREADS, N,
           CHILD, d);
    free(all);
    idmint_tag_free(tag);
    CHECK(idmint_segment_client_close(c, NULL) == IDMINT_STATUS_OK, "close");
    uint64_t id;
    CHECK(idmint_segment_client_next_id(c, "orders", 6, &id, NULL) == IDMINT_STATUS_CLOSED, "closed client refuses");
    idmint_segment_client_free(c);
}

static void fork_rules(void) {
    IdmintNode nodes[] = {{"datacenter", 10, 1}, {"worker", 6, 2}};
    IdmintSnowflakeOptions given = {0}, random = {0};
    given.nodes = nodes;
    given.nodes_len = 2;
    random.random_nodes = true;
    IdmintSnowflake *g = NULL, *r = NULL;
    idmint_snowflake_new(&given, &g, NULL);
    idmint_snowflake_new(&random, &r, NULL);
    uint64_t id;
    idmint_snowflake_next_id(g, &id, NULL);
    pid_t pid = fork();
    if (pid == 0) {
        IdmintError *err = NULL;
        IdmintStatus s = idmint_snowflake_next_id(g, &id, &err);
        int ok = s == IDMINT_STATUS_FORKED && err && !strcmp(idmint_error_kind(err), "forked");
        idmint_error_free(err);
        ok = ok && idmint_snowflake_next_id(r, &id, NULL) == IDMINT_STATUS_OK;
        /* Freeing the parent's handles in the child is allowed. */
        idmint_snowflake_free(g);
        idmint_snowflake_free(r);
        _exit(ok ? 0 : 1);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "fork rules in the child");
    CHECK(idmint_snowflake_next_id(g, &id, NULL) == IDMINT_STATUS_OK, "the parent's generator goes on");
    idmint_snowflake_free(g);
    idmint_snowflake_free(r);
}

/* Two generators leasing from one SQLite store, range 0..=1: each holds a value of its own,
 * a third finds none free, and the first one's value is free again once it is freed. */
static void leases(const char *path) {
    char url[4200];
    snprintf(url, sizeof url, "sqlite:%s", path);
    IdmintSnowflakeOptions o = {0};
    o.lease_url = url;
    o.lease_url_len = strlen(url);
    o.lease_range = true;
    o.lease_first = 0;
    o.lease_last = 1;
    IdmintSnowflake *a = NULL, *b = NULL, *c = NULL;
    CHECK(idmint_snowflake_new(&o, &a, NULL) == IDMINT_STATUS_OK, "lease a");
    CHECK(idmint_snowflake_new(&o, &b, NULL) == IDMINT_STATUS_OK, "lease b");
    IdmintError *err = NULL;
    IdmintStatus s = idmint_snowflake_new(&o, &c, &err);
    CHECK(s == IDMINT_STATUS_NO_FREE_LEASE && !c, "a third lease: %s", idmint_status_kind(s));
    idmint_error_free(err);
    uint64_t wa = 9, wb = 9, ia = 0, ib = 0;
    idmint_snowflake_node(a, "worker", 6, &wa, NULL);
    idmint_snowflake_node(b, "worker", 6, &wb, NULL);
    CHECK(wa != wb && wa <= 1 && wb <= 1, "leased workers %" PRIu64 " and %" PRIu64, wa, wb);
    CHECK(idmint_snowflake_next_id(a, &ia, NULL) == IDMINT_STATUS_OK && idmint_snowflake_next_id(b, &ib, NULL) == IDMINT_STATUS_OK && ia != ib,
          "leased IDs");
    idmint_snowflake_free(a);
    printf("leases: two generators hold workers %" PRIu64 " and %" PRIu64 ", a third is refused\n", wa, wb);
    idmint_snowflake_free(b);
}

int main(int argc, char **argv) {
    snowflakes();
    objectid_uniqueness();
    fork_rules();
    if (idmint_has_stores() && argc > 2) {
        segments(argv[1]);
        leases(argv[2]);
    } else
        printf("segment: skipped (%s)\n", idmint_has_stores() ? "no SQLite path given" : "library without stores");
    printf("threads: %d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
