package io.idmint;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * One OS process of generators with worker leases, for the multi-process lease test:
 *
 * <pre>
 * java -cp "$(cat java/target/test-classpath.txt)" io.idmint.LeaseWorker URL FIRST LAST GENERATORS COUNT OUTFILE
 * </pre>
 *
 * <p>Builds {@code GENERATORS} twitter-layout generators leasing from {@code URL} in
 * {@code FIRST..=LAST} (holder {@code jvm-worker-PID}), keeping those that got a lease and
 * counting the {@link NoFreeLeaseException}s, and writes {@code OUTFILE.ready} with
 * {@code leased=L nofree=N}. With {@code IDMINT_WORKER_GO} set to a path it then waits for that
 * path to exist (so every process holds its leases while the others try). Then each leased
 * generator mints {@code COUNT} IDs on its own thread, all are written to {@code OUTFILE} (one
 * decimal a line), and every generator is closed, releasing its lease. Exit 0, or 1 with the
 * error on stderr (2: bad arguments).
 */
public final class LeaseWorker {
    private LeaseWorker() {}

    public static void main(String[] args) throws Exception {
        if (args.length != 6) {
            System.err.println("usage: LeaseWorker URL FIRST LAST GENERATORS COUNT OUTFILE");
            System.exit(2);
        }
        String url = args[0];
        long first = Long.parseLong(args[1]);
        long last = Long.parseLong(args[2]);
        int generators = Integer.parseInt(args[3]);
        int count = Integer.parseInt(args[4]);
        Path out = Path.of(args[5]);
        List<Snowflake> leased = new ArrayList<>();
        try {
            int noFree = 0;
            for (int g = 0; g < generators; g++) {
                try {
                    leased.add(Snowflake.builder("twitter").lease(url).leaseRange(first, last)
                            .leaseHolder("jvm-worker-" + ProcessHandle.current().pid()).build());
                } catch (NoFreeLeaseException e) {
                    noFree++;
                }
            }
            SegmentWorker.ready(out, "leased=" + leased.size() + " nofree=" + noFree + "\n");
            String go = System.getenv("IDMINT_WORKER_GO");
            while (go != null && !go.isEmpty() && !Files.exists(Path.of(go))) {
                Thread.sleep(5);
            }
            List<LongSupplier> sources = new ArrayList<>();
            for (Snowflake gen : leased) {
                sources.add(gen::nextId);
            }
            long[][] ids = SegmentWorker.draw(sources, count);
            SegmentWorker.writeIds(out, ids);
        } catch (Throwable e) {
            System.err.println("LeaseWorker: " + e);
            System.exit(1);
        } finally {
            for (Snowflake gen : leased) {
                gen.close();
            }
        }
    }
}
