package io.idmint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

class SnowflakeTest {
    static final int THREADS = 8;

    @Test
    void nextIdParsesBackToItsNodesAndNow() {
        Snowflake gen = new Snowflake(3, 17);
        Instant before = Instant.now().minusSeconds(5);
        long id = gen.nextId();
        assertTrue(id > 0);
        IdParts p = gen.parse(id);
        assertEquals(Map.of("datacenter", 3L, "worker", 17L), p.nodes());
        assertTrue(p.time().isAfter(before) && p.time().isBefore(Instant.now().plusSeconds(5)), p.time().toString());
        assertEquals(p, gen.layout().parse(id));
        assertEquals(id, gen.layout().compose(p.timeMs(), p.nodes(), p.sequence()));
        assertEquals(Map.of("datacenter", 3L, "worker", 17L), gen.nodes());
        assertEquals(Layout.of("twitter"), gen.layout());
        assertEquals("twitter", gen.layout().toString());
    }

    @Test
    void manualClockGivesDeterministicIds() {
        ManualClock clock = new ManualClock(1426212000000L);
        Snowflake g = Snowflake.builder("redis-lua").node("shard", 53).clock(clock).build();
        Layout l = Layout.of("redis-lua");
        long first = g.nextId();
        assertEquals(l.compose(1426212000000L, Map.of("shard", 53L), 0), first);
        assertEquals(new IdParts(1426212000000L, "2015-03-13T02:00:00.000Z", Map.of("shard", 53L), 1), g.parse(g.nextId()));
        clock.advanceMs(10);
        assertEquals(1426212000010L, clock.nowMs());
        assertEquals(0, g.parse(g.nextId()).sequence());
    }

    @Test
    void nextIdsIncreaseAndCount() {
        Snowflake g = Snowflake.builder(Layout.of("sonyflake")).node("machine", 513).onExhausted("borrow:50").build();
        assertEquals(0, g.nextIds(0).length);
        long[] ids = g.nextIds(10_000);
        assertEquals(10_000, ids.length);
        for (int i = 1; i < ids.length; i++) {
            assertTrue(ids[i] > ids[i - 1], "strictly increasing at " + i);
        }
        long next = g.nextId();
        assertTrue(next > ids[ids.length - 1]);
        assertEquals(10_001, g.stats().issued());
        assertEquals("borrow:50", g.onExhausted());
        assertEquals("error", g.onRollback());
        assertEquals(513L, g.parse(next).nodes().get("machine"));
    }

    @Test
    void layoutAccessors() {
        Layout l = Layout.of("twitter");
        assertEquals("time:41@1ms,datacenter:5,worker:5,sequence:12,epoch=1288834974657", l.spec());
        assertEquals("twitter", l.presetName().orElseThrow());
        assertEquals(63, l.totalBits());
        assertEquals(41, l.timeBits());
        assertEquals(1, l.tickMs());
        assertEquals(1288834974657L, l.epochMs());
        assertEquals(Long.MAX_VALUE, l.maxId());
        assertEquals(4_096_000.0, l.idsPerSecondCap());
        assertEquals(List.of(new Field("datacenter", 5, 17, false, 31), new Field("worker", 5, 12, false, 31),
                new Field("sequence", 12, 0, true, 4095)), l.fields());
        Layout custom = Layout.of("baidu", "2025-01-01T00:00:00Z");
        assertFalse(custom.presetName().isPresent());
        assertEquals(1735689600000L, custom.epochMs());
        assertEquals(Layout.of(custom.spec()), custom);
        assertEquals(Layout.of(custom.spec()).hashCode(), custom.hashCode());
        assertEquals(List.of("twitter", "sonyflake", "redis-lua", "baidu", "leaf"), Layout.presets());
        Snowflake g = Snowflake.builder("baidu").epoch("2025-01-01T00:00:00Z").node("worker", 9).build();
        assertEquals(custom, g.layout());
    }

    @Test
    void randomNodesStayInRange() {
        Snowflake g = Snowflake.builder("twitter").node("datacenter", 7).randomNodes().build();
        assertEquals(7L, g.nodes().get("datacenter"));
        long w = g.nodes().get("worker");
        assertTrue(w >= 0 && w <= 31);
        assertEquals(w, g.parse(g.nextId()).nodes().get("worker"));
    }

    /** Every thread's IDs in one array, after checking they increase on each thread. */
    static long[] increasingOnEach(List<long[]> results) {
        for (long[] ids : results) {
            for (int i = 1; i < ids.length; i++) {
                assertTrue(ids[i] > ids[i - 1], "each thread sees increasing IDs");
            }
        }
        return results.stream().flatMapToLong(Arrays::stream).toArray();
    }

    static long countDuplicates(long[] all) {
        long[] sorted = all.clone();
        Arrays.sort(sorted);
        long dups = 0;
        for (int i = 1; i < sorted.length; i++) {
            if (sorted[i] == sorted[i - 1]) {
                dups++;
            }
        }
        return dups;
    }

    /** Runs {@code task} on 8 threads started together; returns each thread's result. */
    static <T> List<T> onThreads(Callable<T> task) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        CyclicBarrier start = new CyclicBarrier(THREADS);
        try {
            List<Future<T>> fs = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                fs.add(pool.submit(() -> {
                    start.await();
                    return task.call();
                }));
            }
            List<T> out = new ArrayList<>();
            for (Future<T> f : fs) {
                out.add(f.get());
            }
            return out;
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void uniqueAndIncreasingAcrossEightThreads() throws Exception {
        Snowflake g = new Snowflake(1, 1);
        int perThread = 100_000;
        List<long[]> results = onThreads(() -> {
            long[] ids = new long[perThread];
            for (int i = 0; i < perThread; i += 2) {
                ids[i] = g.nextId();
                long[] two = (i % 1000 == 0) ? g.nextIds(1) : new long[] {g.nextId()};
                ids[i + 1] = two[0];
            }
            return ids;
        });
        long[] all = increasingOnEach(results);
        assertEquals(0, countDuplicates(all), "duplicate IDs across 8 threads");
        // The core counts what it reserved: here also the rest of each thread's block (4 IDs
        // at a time on twitter), handed out later or dropped once stale.
        assertTrue(g.stats().issued() >= all.length, "issued counts every ID handed out");
    }

    @Test
    void batchesUniqueAcrossEightThreads() throws Exception {
        Snowflake g = Snowflake.builder("twitter").node("datacenter", 2).node("worker", 3).onExhausted("borrow:20").build();
        List<long[]> results = onThreads(() -> {
            long[] ids = new long[50 * 1000];
            for (int b = 0; b < 50; b++) {
                System.arraycopy(g.nextIds(1000), 0, ids, b * 1000, 1000);
            }
            return ids;
        });
        long[] all = results.stream().flatMapToLong(Arrays::stream).toArray();
        assertEquals(THREADS * 50_000, all.length);
        assertEquals(0, countDuplicates(all));
    }

    @Test
    void objectIdsUniqueAcrossEightThreads() throws Exception {
        List<List<ObjectId>> results = onThreads(() -> {
            List<ObjectId> out = new ArrayList<>();
            for (int i = 0; i < 25_000; i++) {
                out.add(new ObjectId());
            }
            return out;
        });
        Set<ObjectId> seen = new HashSet<>();
        long dups = 0;
        for (List<ObjectId> r : results) {
            for (ObjectId o : r) {
                if (!seen.add(o)) {
                    dups++;
                }
            }
        }
        assertEquals(0, dups, "duplicate ObjectIds across 8 threads");
        assertEquals(THREADS * 25_000, seen.size());
    }

    @Test
    void objectIdApi() {
        ObjectId a = ObjectId.get();
        ObjectId b = new ObjectId();
        assertNotEquals(a, b);
        assertEquals(24, a.toHexString().length());
        assertEquals(a, new ObjectId(a.toHexString()));
        assertEquals(a, new ObjectId(a.toByteArray()));
        long now = Instant.now().getEpochSecond();
        assertTrue(Math.abs(a.getTimestamp() - now) < 60, "timestamp is now");
        ObjectId low = new ObjectId("000000000000000000000000");
        ObjectId high = new ObjectId("ffffffffffffffffffffffff");
        assertTrue(low.compareTo(high) < 0, "unsigned byte order");
        assertEquals(4294967295L, high.getTimestamp(), "never negative");
        try {
            java.io.ByteArrayOutputStream buf = new java.io.ByteArrayOutputStream();
            new java.io.ObjectOutputStream(buf).writeObject(a);
            Object back = new java.io.ObjectInputStream(new java.io.ByteArrayInputStream(buf.toByteArray())).readObject();
            assertEquals(a, back);
            assertEquals(a.toHexString(), back.toString());
        } catch (java.io.IOException | ClassNotFoundException e) {
            throw new AssertionError(e);
        }
        byte[] copy = a.toByteArray();
        copy[0] ^= 1;
        assertEquals(a, new ObjectId(a.toHexString()), "toByteArray is a copy");
    }

    @Test
    void nativeLibraryComesFromTheClasspathAndAMissingPlatformIsNamed() {
        assertEquals(null, System.getProperty("jna.library.path"), "no -Djna.library.path");
        assertTrue(getClass().getClassLoader().getResource("linux-x86-64/libidmint_jvm.so") != null);
        UnsatisfiedLinkError e = assertThrows(UnsatisfiedLinkError.class,
                () -> NativeLibrary.check("darwin-aarch64", getClass().getClassLoader()));
        assertTrue(e.getMessage().contains("darwin-aarch64"), e.getMessage());
        assertTrue(e.getMessage().contains("libidmint_jvm.dylib"), e.getMessage());
        assertTrue(e.getMessage().contains("it carries linux-x86-64"), e.getMessage());
        // musl: JNA names it linux-x86-64 too; the loader tells it apart and refuses the glibc
        // library by name.
        assertEquals("linux-x86-64", NativeLibrary.platform(), "this JVM runs on glibc");
        assertTrue(NativeLibrary.isMusl("7f00-7f01 r-xp 0 08:01 1 /lib/ld-musl-x86_64.so.1\n"));
        assertTrue(NativeLibrary.isMusl("7f00-7f01 r-xp 0 08:01 1 /usr/glibc-compat/x /lib/libc.musl-x86_64.so.1\n"));
        assertFalse(NativeLibrary.isMusl("7f00-7f01 r-xp 0 08:01 1 /usr/lib/x86_64-linux-gnu/libc.so.6\n"));
        e = assertThrows(UnsatisfiedLinkError.class,
                () -> NativeLibrary.check("linux-x86-64-musl", getClass().getClassLoader()));
        assertTrue(e.getMessage().startsWith("idmint: this jar has no native library for platform linux-x86-64-musl"),
                e.getMessage());
        assertTrue(e.getMessage().contains("it carries linux-x86-64"), e.getMessage());
    }
}
