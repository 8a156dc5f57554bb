package io.idmint;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/** SegmentClient and SegmentTag in one process: memory and SQLite stores, sharded Redis. */
class SegmentTest {
    @Test
    void idsGrowAndRunsAreContiguous() {
        try (SegmentClient client = SegmentClient.connect("memory:")) {
            SegmentTag orders = client.tag("orders");
            assertSame(orders, client.tag("orders"), "handles are cached");
            assertEquals("orders", orders.name());
            long prev = 0;
            for (int i = 0; i < 5000; i++) {
                long id = orders.nextId();
                assertTrue(id > prev, id + " after " + prev);
                prev = id;
            }
            LongRange run = orders.nextIds(100);
            assertEquals(100, run.size());
            assertEquals(run.start() + 99, run.last());
            assertTrue(run.start() > prev);
            long[] ids = run.toArray();
            assertEquals(100, ids.length);
            assertArrayEquals(run.stream().toArray(), ids);
            long sum = 0;
            for (long id : run) {
                sum += id;
            }
            assertEquals(Arrays.stream(ids).sum(), sum);
            assertTrue(run.contains(run.start()) && !run.contains(run.end()));
            assertTrue(orders.nextId() > run.last());
            assertEquals(1L, client.nextId("invoices"), "a new tag starts at 1");
            assertEquals("memory:", client.store());
            assertThrows(InvalidArgumentException.class, () -> orders.nextIds(0));
            assertThrows(InvalidArgumentException.class, () -> orders.nextIds(-3));
        }
    }

    @Test
    void createTagSetsStartAndStep() {
        try (SegmentClient client = SegmentClient.builder("memory:").autoCreate(false).connect()) {
            assertTrue(client.createTag(TagSpec.of("legacy").start(5_000_001).step(50).description("moved")));
            assertFalse(client.createTag("legacy", 7, 10, "again"), "an existing tag is left alone");
            SegmentTag legacy = client.tag("legacy");
            assertEquals(5_000_001L, legacy.nextId());
            TagMetrics m = legacy.metrics();
            assertEquals("legacy", m.tag());
            assertTrue(m.step() >= 50, "the tag's step, or grown from it: " + m);
            assertTrue(m.refills() >= 1, "the first range, and maybe the next one in the background: " + m);
            assertTrue(m.remaining() >= 49, m.toString());
            assertEquals(0, m.storeErrors());
            assertEquals(List.of("legacy"), client.metrics().stream().map(TagMetrics::tag).toList());
            UnknownTagException e = assertThrows(UnknownTagException.class, () -> client.tag("missing"));
            assertTrue(e.getMessage().contains("missing"), e.getMessage());
            assertThrows(InvalidTagException.class, () -> client.tag("no spaces"));
            assertThrows(InvalidArgumentException.class, () -> client.createTag(TagSpec.of("neg").start(-5)));
            assertThrows(InvalidArgumentException.class, () -> client.createTag(TagSpec.of("zero").step(0)));
        }
    }

    @Test
    void defaultTagTakesUnknownTags() {
        try (SegmentClient client = SegmentClient.builder("memory:").autoCreate(false).defaultTag("shared").connect()) {
            client.createTag(TagSpec.of("shared"));
            assertEquals("shared", client.tag("rare_table").name());
            long a = client.nextId("rare_table");
            long b = client.nextId("shared");
            assertTrue(b > a);
        }
    }

    @Test
    void builderValuesAreCheckedByTheCore() {
        InvalidArgumentException e = assertThrows(InvalidArgumentException.class,
                () -> SegmentClient.builder("memory:").refillAt(150).connect());
        assertTrue(e.getMessage().contains("150") && e.getMessage().contains("0..=99"), e.getMessage());
        e = assertThrows(InvalidArgumentException.class, () -> SegmentClient.builder("memory:").refillAt(-1).connect());
        assertTrue(e.getMessage().contains("-1"), e.getMessage());
        e = assertThrows(InvalidArgumentException.class, () -> SegmentClient.builder("memory:").maxStep(-5).connect());
        assertTrue(e.getMessage().contains("-5"), e.getMessage());
        e = assertThrows(InvalidArgumentException.class, () -> SegmentClient.builder("memory:").defaultStep(0).connect());
        assertTrue(e.getMessage().contains("default_step"), e.getMessage());
        e = assertThrows(InvalidArgumentException.class,
                () -> SegmentClient.builder("memory:").maxWait(Duration.ofMillis(-1)).connect());
        assertTrue(e.getMessage().contains("-1 ms"), e.getMessage());
        assertThrows(InvalidArgumentException.class, () -> SegmentClient.builder("memory:").opTimeout(Duration.ZERO).connect());
        assertThrows(InvalidTagException.class, () -> SegmentClient.builder("memory:").defaultTag("a b").connect());
        assertThrows(InvalidArgumentException.class, () -> SegmentClient.connect("ftp://x"));
        assertThrows(StoreUnavailableException.class,
                () -> SegmentClient.builder("redis://127.0.0.1:1").opTimeout(Duration.ofMillis(300)).connect());
    }

    @Test
    void closeStopsEverything() {
        SegmentClient client = SegmentClient.connect("memory:");
        SegmentTag t = client.tag("t");
        t.nextId();
        client.close();
        client.close();
        ClosedException e = assertThrows(ClosedException.class, t::nextId);
        assertTrue(e.getMessage().contains("closed"), e.getMessage());
        assertThrows(ClosedException.class, t::tryNextId);
        assertThrows(ClosedException.class, () -> t.nextIds(5));
        assertThrows(ClosedException.class, () -> client.tag("other"));
        assertThrows(ClosedException.class, () -> client.createTag(TagSpec.of("x")));
        CompletionException c = assertThrows(CompletionException.class, () -> t.nextIdAsync().join());
        assertInstanceOf(ClosedException.class, c.getCause());
    }

    @Test
    void tryNextIdNeverWaits() {
        try (SegmentClient client = SegmentClient.connect("memory:")) {
            SegmentTag t = client.tag("t");
            assertThrows(WouldBlockException.class, t::tryNextId, "nothing fetched yet");
            long id = 0;
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (id == 0 && System.nanoTime() < deadline) {
                try {
                    id = t.tryNextId();
                } catch (WouldBlockException e) {
                    Thread.onSpinWait();
                }
            }
            assertEquals(1L, id, "the refill it started arrived");
            assertEquals(2L, t.tryNextId());
        }
    }

    @Test
    void asyncVariants() throws Exception {
        try (SegmentClient client = SegmentClient.connectAsync("memory:").get()) {
            assertTrue(client.createTagAsync(TagSpec.of("a").start(10)).get());
            SegmentTag a = client.tagAsync("a").get();
            assertSame(a, client.tagAsync("a").get());
            assertEquals(10L, a.nextIdAsync().get(), "the tag's first ID, drawn on a pool thread");
            long here = a.nextId();
            CompletableFuture<Long> next = a.nextIdAsync();
            assertTrue(next.isDone(), "from this thread's block: completed at once");
            assertEquals(here + 1, next.get());
            LongRange r = a.nextIdsAsync(5).get();
            assertEquals(5, r.size());
            CompletionException e = assertThrows(CompletionException.class,
                    () -> SegmentClient.builder("memory:").refillAt(101).connectAsync().join());
            assertInstanceOf(InvalidArgumentException.class, e.getCause());
        }
    }

    @Test
    void threadsNeverShareAnId() throws Exception {
        try (SegmentClient client = SegmentClient.builder("memory:").defaultStep(100).connect()) {
            SegmentTag t = client.tag("t");
            ExecutorService pool = Executors.newFixedThreadPool(8);
            List<Future<long[]>> futures = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                futures.add(pool.submit(() -> {
                    long[] out = new long[50_000];
                    for (int j = 0; j < out.length; j++) {
                        out[j] = t.nextId();
                    }
                    return out;
                }));
            }
            List<long[]> all = new ArrayList<>();
            for (Future<long[]> f : futures) {
                long[] ids = f.get();
                for (int j = 1; j < ids.length; j++) {
                    assertTrue(ids[j] > ids[j - 1], "increasing within a thread");
                }
                all.add(ids);
            }
            pool.shutdown();
            long[] sorted = all.stream().flatMapToLong(Arrays::stream).sorted().toArray();
            assertEquals(400_000, sorted.length);
            assertEquals(0, Processes.duplicates(sorted));
        }
    }

    @Test
    void sqliteClientsShareATag() throws Exception {
        Path dir = Processes.scratch("segment");
        String url = "sqlite:" + dir.resolve("ids.db");
        try (SegmentClient a = SegmentClient.builder(url).defaultStep(10).connect();
                SegmentClient b = SegmentClient.connect(url)) {
            long[] ids = new long[400];
            for (int i = 0; i < ids.length; i++) {
                ids[i] = (i % 2 == 0 ? a : b).nextId("orders");
            }
            Arrays.sort(ids);
            assertEquals(0, Processes.duplicates(ids));
        }
    }

    /**
     * close() closes the SQLite file the client opened, while the client and its handles are
     * still reachable: Windows refuses to delete an open file (a temp folder, an app's data).
     * Linux does not, so this reads the JVM's open files instead.
     */
    @Test
    void closeClosesTheSqliteFile() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(java.nio.file.Files.isDirectory(Path.of("/proc/self/fd")),
                "reads /proc/self/fd (Linux)");
        Path db = Processes.scratch("segment").resolve("ids.db");
        SegmentClient client = SegmentClient.connect("sqlite:" + db);
        SegmentTag tag = client.tag("orders");
        assertEquals(1L, tag.nextId());
        assertFalse(openOn(db).isEmpty(), "the check sees the file while it is open");
        client.close();
        assertEquals(List.of(), openOn(db), "still open after close()");
        assertThrows(ClosedException.class, tag::nextId);
        try (SegmentClient again = SegmentClient.connect("sqlite:" + db)) {
            // (above the block the first client's handle took from the core, which is skipped)
            long next = again.nextId("orders");
            assertTrue(next > 1, "the store remembers: " + next);
        }
    }

    /** This process's open descriptors on {@code file} or its -wal/-shm companions. */
    private static List<String> openOn(Path file) throws Exception {
        List<String> open = new ArrayList<>();
        try (var fds = java.nio.file.Files.list(Path.of("/proc/self/fd"))) {
            for (Path fd : (Iterable<Path>) fds::iterator) {
                try {
                    String target = java.nio.file.Files.readSymbolicLink(fd).toString();
                    if (target.startsWith(file.toString())) {
                        open.add(target);
                    }
                } catch (java.io.IOException gone) {
                    // closed since listed (the listing's own descriptor among them)
                }
            }
        }
        return open;
    }

    /** A store whose counter moved back (a restored backup) is refused, never served twice. */
    @Test
    void aCounterMovedBackIsRangeBelowIssued() throws Exception {
        Path dir = Processes.scratch("segment");
        Path db = dir.resolve("ids.db");
        try (SegmentClient client = SegmentClient.builder("sqlite:" + db).defaultStep(10).connect()) {
            SegmentTag t = client.tag("orders");
            for (int i = 0; i < 25; i++) {
                t.nextId();
            }
            assertEquals(1, Processes.sqlite(db, "UPDATE idmint_segments SET max_id = 0 WHERE tag = 'orders'"));
            RangeBelowIssuedException e = assertThrows(RangeBelowIssuedException.class, () -> t.nextIds(500));
            assertTrue(e.getMessage().contains("orders"), e.getMessage());
        }
    }

    @Test
    void aTagPastLongMaxIsExhausted() {
        try (SegmentClient client = SegmentClient.connect("memory:")) {
            client.createTag(TagSpec.of("end").start(Long.MAX_VALUE - 5).step(100));
            TagExhaustedException e = assertThrows(TagExhaustedException.class, () -> client.nextId("end"));
            assertTrue(e.getMessage().contains("end"), e.getMessage());
        }
    }

    @Test
    void shardedRedis() throws Exception {
        String url = Processes.withParam(Processes.server("IDMINT_TEST_REDIS_URL"), "shards=4");
        String tag = Processes.unique("jvm_sharded");
        try (SegmentClient a = SegmentClient.connect(url); SegmentClient b = SegmentClient.connect(url)) {
            long[] ids = new long[20_000];
            for (int i = 0; i < ids.length; i++) {
                ids[i] = (i % 2 == 0 ? a : b).nextId(tag);
            }
            Arrays.sort(ids);
            assertEquals(0, Processes.duplicates(ids));
        }
    }
}
