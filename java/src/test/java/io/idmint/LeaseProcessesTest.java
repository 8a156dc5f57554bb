package io.idmint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The lease test: 16 generators in 4 OS processes ({@link LeaseWorker}) lease from a
 * range of 8 values in one store (SQLite, PostgreSQL, etcd, ZooKeeper): exactly 8 lease, the
 * other 8 get {@link NoFreeLeaseException}, the 8 mint 2,000,000 IDs with 0 duplicates, and
 * closing them releases every value.
 */
class LeaseProcessesTest {
    static final int PROCESSES = 4;
    static final int PER_PROCESS = 4;
    static final int VALUES = 8;
    static final int PER_GENERATOR = 250_000;

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"sqlite", "postgres", "etcd", "zookeeper"})
    void sixteenGeneratorsEightValues(String store, @TempDir Path dir) throws Exception {
        run(Processes.leaseStore(store), dir);
    }

    static void run(String url, Path dir) throws Exception {
        Processes.Workers workers = Processes.Workers.start(dir, PROCESSES, "io.idmint.LeaseWorker",
                out -> List.of(url, "0", Integer.toString(VALUES - 1), Integer.toString(PER_PROCESS),
                        Integer.toString(PER_GENERATOR), out.toString()));
        List<Path> ready = workers.awaitReady();
        int leased = 0;
        int noFree = 0;
        for (Path r : ready) {
            String[] parts = Files.readString(r).trim().split(" ");  // written whole: see LeaseWorker
            leased += Integer.parseInt(parts[0].substring("leased=".length()));
            noFree += Integer.parseInt(parts[1].substring("nofree=".length()));
        }
        assertEquals(VALUES, leased, "generators that leased a value");
        assertEquals(PROCESSES * PER_PROCESS - VALUES, noFree, "generators refused with NoFreeLease");
        List<LeaseInfo> held = Idmint.leaseList(url);
        assertEquals(VALUES, held.stream().filter(i -> i.state().equals("held")).count(), held.toString());
        assertTrue(held.stream().allMatch(i -> i.holder().startsWith("jvm-worker-")), held.toString());

        long[] all = workers.go();
        assertEquals((long) VALUES * PER_GENERATOR, all.length, "every ID written");
        assertEquals(0, Processes.duplicates(all), "duplicates among " + all.length + " IDs");
        Processes.assertPositive(all);
        // Every 997th ID taken apart (parsing all 2 M through the generated layer takes seconds).
        Layout twitter = Layout.of("twitter");
        Set<Long> values = new HashSet<>();
        for (int i = 0; i < all.length; i += 997) {
            values.add(twitter.parse(all[i]).nodes().get("worker"));
        }
        assertEquals(VALUES, values.size(), "IDs of 8 distinct leased values: " + values);

        List<LeaseInfo> after = Idmint.leaseList(url);
        assertEquals(VALUES, after.size(), after.toString());
        assertTrue(after.stream().allMatch(i -> i.state().equals("free")), "close() released every value: " + after);
    }
}
