package io.idmint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link RedisSnowflake} against the real Redis of tests/run.sh ({@code IDMINT_TEST_REDIS_URL}):
 * 4 processes x 4 threads draw 80,000 IDs ({@link RedisSnowflakeWorker}): 0 duplicates, every one
 * of the worker's shard under the {@code redis-lua} layout; runs, shards, typed errors, close and
 * the async variants.
 */
class RedisSnowflakeTest {
    static final int PROCESSES = 4;
    static final int THREADS = 4;
    static final int PER_THREAD = 5_000;
    static final Layout REDIS_LUA = Layout.of("redis-lua");

    static long shardOf(long id) {
        return REDIS_LUA.parse(id).nodes().get("shard");
    }

    static String url() {
        return Processes.server("IDMINT_TEST_REDIS_URL");
    }

    @Test
    void processesAndThreadsNeverShareAnId(@TempDir Path dir) throws Exception {
        String url = url();
        String tag = Processes.unique("jvm_rsf");
        Processes.Workers workers = Processes.Workers.start(dir, PROCESSES, "io.idmint.RedisSnowflakeWorker",
                out -> List.of(url, tag, Integer.toString(PER_THREAD), Integer.toString(THREADS), out.toString()));
        workers.awaitReady();
        long[] all = workers.go();
        assertEquals((long) PROCESSES * THREADS * PER_THREAD, all.length, "every ID written");
        assertEquals(0, Processes.duplicates(all), "duplicates among " + all.length);
        for (long id : all) {
            assertEquals(RedisSnowflakeWorker.SHARD, shardOf(id), () -> id + ": its shard");
        }
    }

    @Test
    void runsShardsAndOneRoundTrip() throws Exception {
        String url = url();
        try (RedisSnowflake gen = RedisSnowflake.builder(url).tag(Processes.unique("rsf")).shard(53).connect()) {
            assertEquals(java.util.Optional.of("redis-lua"), gen.layout().presetName());
            assertEquals(List.of(url), gen.servers());
            long before = gen.roundTrips();
            long[] run = gen.nextIds(100);
            assertEquals(before + 1, gen.roundTrips(), "one round trip for 100");
            assertEquals(100, run.length);
            for (int i = 1; i < run.length; i++) {
                assertTrue(run[i] > run[i - 1]);
            }
            for (long id : run) {
                assertEquals(53, shardOf(id));
            }
            assertEquals(53, shardOf(gen.nextId()));
            long user = 123_456_789 % 4096;
            assertEquals(user, shardOf(gen.nextIdFor(user)));
            for (long id : gen.nextIdsFor(9, 10)) {
                assertEquals(9, shardOf(id));
            }
            assertEquals(53, shardOf(gen.nextIdAsync().get()));
            assertEquals(5, gen.nextIdsAsync(5).get().length);
            assertEquals(3, shardOf(gen.nextIdForAsync(3).get()));
            assertEquals(4, shardOf(gen.nextIdsForAsync(4, 2).get()[1]));
        }
        // a list of URLs; any layout with one node field
        try (RedisSnowflake gen = RedisSnowflake.builder(List.of(url)).tag(Processes.unique("rsf"))
                .layout("time:41,shard:10,sequence:12").batch(10).connect()) {
            assertEquals(1023L, gen.layout().parse(gen.nextIdFor(1023)).nodes().get("shard"));
        }
        RedisSnowflake viaAsync = RedisSnowflake.connectAsync(url).get();
        viaAsync.close();
    }

    @Test
    void badArgumentsAreTypedErrors() {
        String url = url();
        assertTrue(assertThrows(ValueOutOfRangeException.class,
                () -> RedisSnowflake.builder(url).shard(4096).connect()).getMessage().contains("4096"));
        assertTrue(assertThrows(ValueOutOfRangeException.class,
                () -> RedisSnowflake.builder(url).shard(-1).connect()).getMessage().contains("-1"));
        assertTrue(assertThrows(InvalidArgumentException.class,
                () -> RedisSnowflake.builder(url).batch(0).connect()).getMessage().contains("batch"));
        assertTrue(assertThrows(InvalidArgumentException.class,
                () -> RedisSnowflake.builder(url).batch(-5).connect()).getMessage().contains("-5"));
        assertThrows(InvalidArgumentException.class, () -> RedisSnowflake.builder(url).counterTtlSecs(1).connect());
        assertThrows(InvalidArgumentException.class, () -> RedisSnowflake.builder(url).resumeAfterMs(-1).connect());
        assertThrows(InvalidArgumentException.class,
                () -> RedisSnowflake.builder(url).opTimeout(Duration.ZERO).connect());
        assertThrows(InvalidTagException.class, () -> RedisSnowflake.builder(url).tag("no spaces").connect());
        assertThrows(InvalidLayoutException.class, () -> RedisSnowflake.builder(url).layout("twitter").connect());
        assertThrows(InvalidArgumentException.class, () -> RedisSnowflake.connect(""));
        assertThrows(StoreUnavailableException.class, () -> RedisSnowflake.builder("redis://127.0.0.1:1")
                .opTimeout(Duration.ofMillis(200)).maxWait(Duration.ofMillis(300)).connect());
        ExecutionException async = assertThrows(ExecutionException.class,
                () -> RedisSnowflake.builder(url).batch(0).connectAsync().get());
        assertTrue(async.getCause() instanceof InvalidArgumentException, async.getCause().toString());
        try (RedisSnowflake gen = RedisSnowflake.builder(url).tag(Processes.unique("rsf")).connect()) {
            assertThrows(MissingFieldException.class, gen::nextId);
            assertThrows(MissingFieldException.class, () -> gen.nextIds(3));
            assertTrue(assertThrows(ValueOutOfRangeException.class, () -> gen.nextIdFor(4096))
                    .getMessage().contains("4096"));
            assertTrue(assertThrows(ValueOutOfRangeException.class, () -> gen.nextIdFor(-3))
                    .getMessage().contains("-3"));
            assertThrows(InvalidArgumentException.class, () -> gen.nextIdsFor(1, 0));
            assertTrue(assertThrows(InvalidArgumentException.class, () -> gen.nextIdsFor(1, -2))
                    .getMessage().contains("-2"));
        }
    }

    @Test
    void closeMakesLaterCallsClosed() {
        RedisSnowflake gen = RedisSnowflake.builder(url()).tag(Processes.unique("rsf")).shard(1).connect();
        gen.nextId();
        gen.close();
        assertThrows(ClosedException.class, gen::nextId);
        assertThrows(ClosedException.class, () -> gen.nextIds(3));
        assertThrows(ClosedException.class, gen::servers);
        gen.close(); // idempotent
        assertEquals("RedisSnowflake(closed)", gen.toString());
    }
}
