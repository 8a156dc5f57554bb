package io.idmint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Worker leases and the high-water mark in one process: renewal and release by close() and by
 * the garbage collector on every lease store (SQLite, PostgreSQL, etcd, ZooKeeper), the rest on
 * SQLite files.
 */
class LeaseTest {
    static Snowflake.Builder leased(String url, long value) {
        return Snowflake.builder("twitter").lease(url).leaseRange(value, value).leaseTtl(Duration.ofSeconds(5));
    }

    static LeaseInfo info(String url, long value) {
        return Idmint.leaseList(url).stream().filter(i -> i.value() == value).findFirst().orElseThrow();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"sqlite", "postgres", "etcd", "zookeeper"})
    void closeReleasesTheLease(String store) throws Exception {
        String url = Processes.leaseStore(store);
        Snowflake a = leased(url, 3).leaseHolder("holder-a").build();
        assertEquals(Map.of("datacenter", 0L, "worker", 3L), a.nodes());
        long id = a.nextId();
        assertEquals(3L, a.parse(id).nodes().get("worker"));
        LeaseInfo held = info(url, 3);
        assertEquals("held", held.state());
        assertEquals("holder-a", held.holder());
        assertTrue(held.expiresInMs() > 0 && held.lastTimeMs() > 0, held.toString());
        NoFreeLeaseException e = assertThrows(NoFreeLeaseException.class, () -> leased(url, 3).build());
        assertTrue(e.getMessage().contains("3..=3"), e.getMessage());

        a.close();
        a.close();
        assertTrue(a.isClosed());
        assertEquals("free", info(url, 3).state());
        assertThrows(ClosedException.class, a::nextId);
        assertThrows(ClosedException.class, () -> a.nextIds(3));
        assertThrows(ClosedException.class, a::nodes);
        try (Snowflake b = leased(url, 3).build()) {
            assertTrue(b.nextId() > id, "the next holder's IDs come after the last one's");
        }
        assertEquals("free", info(url, 3).state(), "try-with-resources released it");
    }

    /**
     * Without renewals a lease's expiresInMs only falls; the background renewal (every TTL/3)
     * moves its end forward, seen as a reading above the one before. The verdict waits on that
     * event, not on a clock: a lease left unrenewed lapses and fails the state check first.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"sqlite", "postgres", "etcd", "zookeeper"})
    void aHeldLeaseIsRenewed(String store) throws Exception {
        String url = Processes.leaseStore(store);
        try (Snowflake g = Snowflake.builder("twitter").lease(url).leaseRange(2, 2).leaseHolder("renewed").build()) {
            long deadline = System.nanoTime() + 120_000_000_000L;
            Long before = null;
            while (true) {
                LeaseInfo i = info(url, 2);
                assertEquals("held", i.state(), i.toString());
                assertEquals("renewed", i.holder(), i.toString());
                if (before != null && i.expiresInMs() > before) {
                    break;
                }
                assertTrue(System.nanoTime() < deadline, "no renewal seen: " + i);
                before = i.expiresInMs();
                Thread.sleep(50);
            }
            assertTrue(g.nextId() > 0);
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"sqlite", "postgres", "etcd", "zookeeper"})
    void garbageCollectionReleasesTheLease(String store) throws Exception {
        String url = Processes.leaseStore(store);
        mintAndDrop(url);
        assertEquals("held", info(url, 5).state());
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (!info(url, 5).state().equals("free")) {
            assertTrue(System.nanoTime() < deadline, "the lease of a dropped generator is released after GC");
            System.gc();
            Thread.sleep(50);
        }
        try (Snowflake again = leased(url, 5).build()) {
            assertEquals(5L, again.nodes().get("worker"));
        }
    }

    /**
     * The generated layer's own cleanup (java/build-native.sh makes it a static class, which the
     * generator does not): a generated object dropped without close() is freed after GC, which
     * for a leased generator releases the lease.
     */
    @Test
    void generatedObjectsAreFreedByTheGarbageCollector() throws Exception {
        String url = "sqlite:" + Processes.scratch("lease").resolve("leases.db");
        dropGenerated(url);
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (!info(url, 6).state().equals("free")) {
            assertTrue(System.nanoTime() < deadline, "a dropped generated object is freed after GC");
            System.gc();
            Thread.sleep(50);
        }
    }

    private static void dropGenerated(String url) throws Exception {
        new io.idmint.ffi.Snowflake(Layout.of("twitter").inner, java.util.List.of(), false, null, null, null, null, null,
                new io.idmint.ffi.LeaseSpec(url, new io.idmint.ffi.LeaseRange(6, 6), null, null, null), null, false);
    }

    private static void mintAndDrop(String url) {
        Snowflake g = leased(url, 5).build();
        g.nextId();
    }

    @Test
    void aTakenLeaseIsLost() throws Exception {
        Path dir = Processes.scratch("lease");
        Path db = dir.resolve("leases.db");
        String url = "sqlite:" + db;
        try (Snowflake g = Snowflake.builder("twitter").lease(url).leaseRange(0, 0).leaseTtl(Duration.ofMillis(600)).build()) {
            g.nextId();
            assertEquals(1, Processes.sqlite(db,
                    "UPDATE idmint_workers SET token = 'stolen', holder = 'thief', expires_at = expires_at + 60000"));
            long deadline = System.nanoTime() + 10_000_000_000L;
            LeaseLostException lost = null;
            while (lost == null) {
                assertTrue(System.nanoTime() < deadline, () -> "renewals of a taken lease fail, and the generator stops: "
                        + Idmint.leaseList(url) + " " + g.nodes() + " " + g.stats());
                try {
                    g.nextId();
                    Thread.sleep(10);
                } catch (LeaseLostException e) {
                    lost = e;
                }
            }
            assertTrue(lost.getMessage().contains("lost"), lost.getMessage());
        }
    }

    @Test
    void leaseOptionsAreCheckedByTheCore() throws Exception {
        Path dir = Processes.scratch("lease");
        String url = "sqlite:" + dir.resolve("leases.db");
        InvalidArgumentException e = assertThrows(InvalidArgumentException.class,
                () -> Snowflake.builder("twitter").lease(url).leaseRange(-1, 7).build());
        assertTrue(e.getMessage().contains("-1"), e.getMessage());
        e = assertThrows(InvalidArgumentException.class, () -> Snowflake.builder("twitter").lease(url).leaseRange(0, 5000).build());
        assertTrue(e.getMessage().contains("1023"), e.getMessage());
        e = assertThrows(InvalidArgumentException.class,
                () -> Snowflake.builder("twitter").lease(url).leaseTtl(Duration.ofMillis(100)).build());
        assertTrue(e.getMessage().contains("ttl"), e.getMessage());
        assertThrows(InvalidArgumentException.class,
                () -> Snowflake.builder("twitter").lease(url).leaseFreeze(Duration.ofMillis(-5)).build());
        assertThrows(InvalidArgumentException.class,
                () -> Snowflake.builder("twitter").lease(url).node("worker", 1).build(), "node values and a lease");
        assertThrows(InvalidArgumentException.class,
                () -> Snowflake.builder("twitter").lease(url).highWaterMark(dir.resolve("hwm")).build());
        assertThrows(MissingFieldException.class, () -> Snowflake.builder("twitter").build(), "no node values, no default");
        assertThrows(InvalidArgumentException.class, () -> Idmint.leaseList("ftp://x"));
        assertTrue(Idmint.leaseList(url, Duration.ofSeconds(5)).isEmpty(), "nothing leased from it");
    }

    @Test
    void highWaterMarkSurvivesARestartWithTheClockBehind() throws Exception {
        Path dir = Processes.scratch("lease");
        Path mark = dir.resolve("node-1.hwm");
        long t = 1_700_000_000_000L;
        ManualClock clock = new ManualClock(t);
        long last;
        try (Snowflake g = Snowflake.builder("twitter").node("datacenter", 1).node("worker", 1).clock(clock)
                .highWaterMark(mark).build()) {
            last = g.nextId();
        }
        assertTrue(Files.exists(mark));
        clock.setMs(t - 5_000);
        try (Snowflake g = Snowflake.builder("twitter").node("datacenter", 1).node("worker", 1).clock(clock)
                .highWaterMark(mark).build()) {
            assertThrows(ClockMovedBackwardsException.class, g::nextId, "restarted 5 s behind its last ID");
            clock.setMs(t + 1);
            assertTrue(g.nextId() > last);
        }
        try (Snowflake g = Snowflake.builder("twitter").node("datacenter", 1).node("worker", 1).clock(clock)
                .highWaterMark(mark).onRollback("continue").resumeAfter(last).build()) {
            assertTrue(g.nextId() > last);
        }
    }

    @Test
    void aPlainGeneratorClosesToo() {
        Snowflake g = new Snowflake(1, 2);
        g.nextId();
        g.close();
        assertThrows(ClosedException.class, g::nextId);
        assertThrows(ClosedException.class, () -> g.nextIds(2));
        assertTrue(g.toString().contains("closed"), g.toString());
    }
}
