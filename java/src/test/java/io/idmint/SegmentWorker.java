package io.idmint;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.function.LongSupplier;

/**
 * One OS process drawing segment IDs, for the multi-process tests (and the mixed-language test
 * run from a shell):
 *
 * <pre>
 * java -cp "$(cat java/target/test-classpath.txt)" io.idmint.SegmentWorker URL TAG COUNT THREADS OUTFILE
 * </pre>
 *
 * <p>Opens a {@link SegmentClient} on {@code URL}, starts {@code THREADS} threads that each draw
 * {@code COUNT} IDs of {@code TAG} with {@link SegmentTag#nextId()}, and writes every ID, one
 * decimal a line, to {@code OUTFILE}. With the environment variable {@code IDMINT_WORKER_GO} set
 * to a path, it connects and loads the tag, writes {@code OUTFILE.ready}, and draws only once
 * that path exists, so several processes draw at the same time. Exit 0, or 1 with the error on
 * stderr (2: bad arguments).
 */
public final class SegmentWorker {
    private SegmentWorker() {}

    public static void main(String[] args) {
        run("SegmentWorker", "URL", args, (url, tag, count, threads) -> {
            try (SegmentClient client = SegmentClient.connect(url)) {
                SegmentTag handle = client.tag(tag);
                return drawWhenGo(args, Collections.nCopies(threads, handle::nextId), count);
            }
        });
    }

    /** What a worker process does with its arguments: return every thread's IDs. */
    interface Job {
        long[][] draw(String url, String tag, int count, int threads) throws Throwable;
    }

    /**
     * The command line every worker shares, {@code URL TAG COUNT THREADS OUTFILE}: runs the job,
     * writes its IDs to OUTFILE and exits (1 with the error on stderr, 2 on bad arguments).
     */
    static void run(String name, String urlArg, String[] args, Job job) {
        if (args.length != 5) {
            System.err.println("usage: " + name + " " + urlArg + " TAG COUNT THREADS OUTFILE");
            System.exit(2);
        }
        try {
            long[][] ids = job.draw(args[0], args[1], Integer.parseInt(args[2]), Integer.parseInt(args[3]));
            writeIds(Path.of(args[4]), ids);
        } catch (Throwable e) {
            System.err.println(name + ": " + e);
            System.exit(1);
        }
    }

    /** {@link #awaitGo} for this worker's OUTFILE, then {@link #draw}. */
    static long[][] drawWhenGo(String[] args, List<LongSupplier> sources, int count) throws Throwable {
        awaitGo(Path.of(args[4]));
        return draw(sources, count);
    }

    /** {@code count} IDs from each source, each on a thread of its own, all started together. */
    static long[][] draw(List<LongSupplier> sources, int count) throws Throwable {
        long[][] ids = new long[sources.size()][];
        Throwable[] failed = new Throwable[sources.size()];
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> running = new ArrayList<>();
        for (int t = 0; t < sources.size(); t++) {
            int me = t;
            LongSupplier source = sources.get(t);
            Thread th = new Thread(() -> {
                long[] mine = new long[count];
                try {
                    start.await();
                    for (int i = 0; i < count; i++) {
                        mine[i] = source.getAsLong();
                    }
                    ids[me] = mine;
                } catch (Throwable e) {
                    failed[me] = e;
                }
            });
            th.start();
            running.add(th);
        }
        start.countDown();
        for (Thread th : running) {
            th.join();
        }
        for (Throwable e : failed) {
            if (e != null) {
                throw e;
            }
        }
        return ids;
    }

    /** With {@code IDMINT_WORKER_GO} set: say ready ({@code OUTFILE.ready}), then wait for the go file. */
    static void awaitGo(Path out) throws IOException, InterruptedException {
        String go = System.getenv("IDMINT_WORKER_GO");
        if (go == null || go.isEmpty()) {
            return;
        }
        ready(out, "ready\n");
        while (!Files.exists(Path.of(go))) {
            Thread.sleep(5);
        }
    }

    /** Write {@code OUTFILE.ready} whole (a rename), so a reader never sees it half written. */
    static void ready(Path out, String text) throws IOException {
        Path tmp = Path.of(out + ".ready.tmp");
        Files.writeString(tmp, text);
        Files.move(tmp, Path.of(out + ".ready"), java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    }

    static void writeIds(Path out, long[][] ids) throws IOException {
        try (BufferedWriter w = Files.newBufferedWriter(out)) {
            for (long[] run : ids) {
                for (long id : run) {
                    w.write(Long.toString(id));
                    w.write('\n');
                }
            }
        }
    }
}
