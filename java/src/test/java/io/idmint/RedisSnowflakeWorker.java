package io.idmint;

import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * One OS process drawing snowflake IDs minted on Redis (shard 7), for
 * {@link RedisSnowflakeTest}:
 *
 * <pre>
 * java -cp "$(cat java/target/test-classpath.txt)" io.idmint.RedisSnowflakeWorker URL[,URL...] TAG COUNT THREADS OUTFILE
 * </pre>
 *
 * <p>Connects one {@link RedisSnowflake}, starts {@code THREADS} threads that each draw
 * {@code COUNT} IDs (half by {@link RedisSnowflake#nextId()}, half by runs of
 * {@link RedisSnowflake#nextIds(int) nextIds(100)}), and writes every ID, one decimal a line, to
 * {@code OUTFILE}; with {@code IDMINT_WORKER_GO} set, draws once that path exists (as
 * {@link SegmentWorker}). Exit 0, or 1 with the error on stderr (2: bad arguments).
 */
public final class RedisSnowflakeWorker {
    static final long SHARD = 7;

    private RedisSnowflakeWorker() {}

    public static void main(String[] args) {
        SegmentWorker.run("RedisSnowflakeWorker", "URL[,URL...]", args, (urls, tag, count, threads) -> {
            try (RedisSnowflake gen = RedisSnowflake.builder(urls).tag(tag).shard(SHARD).connect()) {
                List<LongSupplier> sources = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    sources.add(mixed(gen, count));
                }
                return SegmentWorker.drawWhenGo(args, sources, count);
            }
        });
    }

    /** The first half of {@code count} IDs one by one, the rest from runs of up to 100. */
    private static LongSupplier mixed(RedisSnowflake gen, int count) {
        return new LongSupplier() {
            private int drawn;
            private long[] run = new long[0];
            private int next;

            @Override
            public long getAsLong() {
                if (drawn++ < count / 2) {
                    return gen.nextId();
                }
                if (next == run.length) {
                    run = gen.nextIds(100);
                    next = 0;
                }
                return run[next++];
            }
        };
    }
}
