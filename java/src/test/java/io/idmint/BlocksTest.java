package io.idmint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The per-thread blocks of {@link Snowflake#nextId()} and {@code new ObjectId()}: no duplicates
 * across threads and processes, increasing on each thread, dropped once stale, refused once closed.
 */
class BlocksTest {
    static final int THREADS = SnowflakeTest.THREADS;
    /** A layout whose tick holds 2^21 IDs: the core grants blocks of 256. */
    static final String WIDE = "time:41@1ms,worker:1,sequence:21";

    @Test
    void wideLayoutBlocksAreUniqueAcrossThreadsAndIncreasingOnEach() throws Exception {
        Snowflake g = Snowflake.builder(WIDE).node("worker", 1).build();
        int perThread = 400_000;
        List<long[]> results = SnowflakeTest.onThreads(() -> {
            long[] ids = new long[perThread];
            for (int i = 0; i < perThread; i++) {
                ids[i] = g.nextId();
                if (i % 50_000 == 0) {
                    Thread.sleep(2); // let some blocks go stale mid-way
                }
            }
            return ids;
        });
        long[] all = SnowflakeTest.increasingOnEach(results);
        assertEquals(THREADS * perThread, all.length);
        assertEquals(0, SnowflakeTest.countDuplicates(all), "duplicate IDs across 8 threads");
    }

    @Test
    void aStaleSnowflakeBlockIsDropped() throws Exception {
        Snowflake g = new Snowflake(1, 1); // twitter: blocks of 4
        g.nextId();
        long before = System.currentTimeMillis();
        Thread.sleep(50);
        long t = g.parse(g.nextId()).time().toEpochMilli();
        // The first ID's block had 3 more, all from before the sleep: the one after it is new.
        assertTrue(t >= before + 40, "an ID taken after 50 ms carries a time of then: " + (t - before) + " ms");
    }

    @Test
    void aStaleObjectIdBlockIsDropped() throws Exception {
        ObjectId a = new ObjectId();
        // Into the next second of the system clock, with a margin for the ticker thread.
        long next = (a.getTimestamp() + 1) * 1000;
        Thread.sleep(Math.max(0, next - System.currentTimeMillis()) + 100);
        ObjectId b = new ObjectId();
        assertTrue(b.getTimestamp() > a.getTimestamp(), "the block of " + a + " was dropped: " + b);
    }

    @Test
    void closedGeneratorRefusesWithABlockInHand() {
        Snowflake g = Snowflake.builder(WIDE).node("worker", 0).build();
        g.nextId();
        g.close();
        assertThrows(ClosedException.class, g::nextId);
    }

    @Test
    void objectIdsFromTwoProcessesNeverRepeat() throws Exception {
        Path dir = Processes.scratch("objectids");
        List<Process> procs = new ArrayList<>();
        List<Path> outs = new ArrayList<>();
        List<Path> logs = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            Path out = dir.resolve("oids-" + i + ".txt");
            Path log = dir.resolve("worker-" + i + ".log");
            outs.add(out);
            logs.add(log);
            procs.add(Processes.java("io.idmint.ObjectIdWorker", dir.resolve("go"), log, out.toString(), "200000"));
        }
        Processes.awaitExit(procs, logs);
        Set<String> seen = new HashSet<>();
        long dups = 0;
        for (Path out : outs) {
            List<String> lines = Files.readAllLines(out);
            assertEquals(200_000, lines.size());
            for (String hex : lines) {
                dups += seen.add(hex) ? 0 : 1;
            }
        }
        assertEquals(0, dups, "duplicate ObjectIds across two processes");
    }
}
