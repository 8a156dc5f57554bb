package io.idmint;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The test: 4 OS processes x 2 threads draw 250,000 IDs each from one tag, through
 * SQLite, PostgreSQL, MariaDB, Redis, etcd and ZooKeeper (servers from tests/run.sh): 0
 * duplicates among the 2,000,000. The workers ({@link SegmentWorker}) connect first and draw
 * together once all are ready.
 */
class SegmentProcessesTest {
    static final int PROCESSES = 4;
    static final int THREADS = 2;
    static final int PER_THREAD = 250_000;

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"sqlite", "postgres", "mariadb", "redis", "etcd", "zookeeper"})
    void processesAndThreadsNeverShareAnId(String store, @TempDir Path dir) throws Exception {
        run(Processes.segmentStore(store), dir);
    }

    static void run(String url, Path dir) throws Exception {
        String tag = Processes.unique("jvm_mp");
        Processes.Workers workers = Processes.Workers.start(dir, PROCESSES, "io.idmint.SegmentWorker",
                out -> List.of(url, tag, Integer.toString(PER_THREAD), Integer.toString(THREADS), out.toString()));
        workers.awaitReady();
        long[] all = workers.go();
        assertEquals((long) PROCESSES * THREADS * PER_THREAD, all.length, "every ID written");
        assertEquals(0, Processes.duplicates(all), "duplicates among " + all.length + " IDs from " + url);
        Processes.assertPositive(all);
    }
}
