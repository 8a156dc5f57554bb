package io.idmint;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * Snowflake IDs minted on Redis by idmint's Lua script (the scheme of redis-id-generator,
 * without its duplicates): layout {@code redis-lua} by default ({@code time 41 | shard 12 |
 * sequence 10}, Unix epoch). Clients need no worker ID and share the servers' clock; IDs of a
 * tag are unique across every client, process and server of the set. List the servers in the
 * same order on every client (server {@code i} of {@code N} issues the sequence numbers
 * {@code ≡ i mod N}; a client configured otherwise is refused). Thread-safe.
 *
 * <pre>{@code
 * try (RedisSnowflake gen = RedisSnowflake.builder("redis://10.0.0.1:6379,redis://10.0.0.2:6379")
 *         .tag("orders").shard(53).connect()) {
 *     long id = gen.nextId();                           // from a buffer: a round trip per 100
 *     long[] run = gen.nextIds(100);                    // one round trip
 *     long forUser = gen.nextIdFor(123_456_789 % 4096); // the caller's shard
 * }
 * }</pre>
 *
 * <p>Every rule (the script, residues, defaults, ranges, errors) is the core's: this class
 * converts. Calls block the calling thread on a server when the buffer is empty; the
 * {@code *Async} variants run on idmint's daemon threads.
 */
public final class RedisSnowflake implements AutoCloseable {
    static {
        NativeLibrary.ensureLoaded();
    }

    private final io.idmint.ffi.RedisSnowflake inner;
    private final Layout layout;

    private RedisSnowflake(io.idmint.ffi.RedisSnowflake inner) {
        this.inner = inner;
        this.layout = Layout.of(Layout.call(inner::layoutSpec));
        // Unreachable: the connections go, and the native object too.
        NativeLibrary.CLEANER.register(this, () -> {
            inner.shutdown();
            inner.close();
        });
    }

    /** Connect to {@code urls} (comma separated, in order) with the core's defaults (blocking). */
    public static RedisSnowflake connect(String urls) {
        return builder(urls).connect();
    }

    /** Connect to the servers {@code urls}, in order, with the core's defaults (blocking). */
    public static RedisSnowflake connect(List<String> urls) {
        return builder(urls).connect();
    }

    /** {@link #connect(String)} on idmint's daemon threads. */
    public static CompletableFuture<RedisSnowflake> connectAsync(String urls) {
        return builder(urls).connectAsync();
    }

    /** Start configuring a generator on {@code urls} (comma separated, in order). */
    public static Builder builder(String urls) {
        return new Builder(Objects.requireNonNull(urls, "urls"));
    }

    /** Start configuring a generator on the servers {@code urls}, in order. */
    public static Builder builder(List<String> urls) {
        return new Builder(String.join(",", Objects.requireNonNull(urls, "urls")));
    }

    /**
     * The next ID of the generator's shard, from its buffer (a round trip per {@code batch}
     * IDs). Errors: {@link MissingFieldException} (no shard configured),
     * {@link StoreUnavailableException}, {@link ClockMovedBackwardsException},
     * {@link ClosedException}.
     */
    public long nextId() {
        return Layout.call(inner::nextId);
    }

    /** The next ID of {@code shard} (e.g. {@code userId % 4096}); {@link ValueOutOfRangeException} beyond the layout's shard field. */
    public long nextIdFor(long shard) {
        return Layout.call(() -> inner.nextIdFor(shard));
    }

    /** {@code k} increasing IDs (1..=2^20) of the generator's shard, in one round trip. */
    public long[] nextIds(int k) {
        return Layout.call(() -> inner.nextIds(null, (long) k));
    }

    /** {@code k} increasing IDs of {@code shard}, in one round trip. */
    public long[] nextIdsFor(long shard, int k) {
        return Layout.call(() -> inner.nextIds(shard, (long) k));
    }

    /** {@link #nextId()} on idmint's daemon threads. */
    public CompletableFuture<Long> nextIdAsync() {
        return Async.run(this::nextId);
    }

    /** {@link #nextIdFor(long)} on idmint's daemon threads. */
    public CompletableFuture<Long> nextIdForAsync(long shard) {
        return Async.run(() -> nextIdFor(shard));
    }

    /** {@link #nextIds(int)} on idmint's daemon threads. */
    public CompletableFuture<long[]> nextIdsAsync(int k) {
        return Async.run(() -> nextIds(k));
    }

    /** {@link #nextIdsFor(long, int)} on idmint's daemon threads. */
    public CompletableFuture<long[]> nextIdsForAsync(long shard, int k) {
        return Async.run(() -> nextIdsFor(shard, k));
    }

    /** The layout of the IDs ({@code layout().parse(id).nodes().get("shard")}). */
    public Layout layout() {
        return layout;
    }

    /** The servers, in order, without credentials. */
    public List<String> servers() {
        return Layout.call(inner::servers);
    }

    /** Mint calls answered so far. */
    public long roundTrips() {
        return Layout.call(inner::stats).roundTrips();
    }

    /** Server calls that failed so far. */
    public long nodeFailures() {
        return Layout.call(inner::stats).nodeFailures();
    }

    /** Drop the connections and the buffered IDs; every later call throws {@link ClosedException}. Idempotent. */
    @Override
    public void close() {
        inner.shutdown();
    }

    @Override
    public String toString() {
        try {
            return "RedisSnowflake(" + String.join(",", servers()) + ")";
        } catch (ClosedException e) {
            return "RedisSnowflake(closed)";
        }
    }

    /** Configures a {@link RedisSnowflake}; the core checks every value when it connects. */
    public static final class Builder {
        private final String urls;
        private String tag;
        private Long shard;
        private String layout;
        private String prefix;
        private Long batch;
        private Long opTimeoutMs;
        private Long maxWaitMs;
        private Long retryAfterMs;
        private Long maxAheadMs;
        private Long counterTtlSecs;
        private Long resumeAfterMs;
        private String testClockKey;

        private Builder(String urls) {
            this.urls = urls;
        }

        /** The ID space (default {@code default}; {@code A-Z a-z 0-9 _ . : -}, 1-128). */
        public Builder tag(String tag) {
            this.tag = Objects.requireNonNull(tag, "tag");
            return this;
        }

        /** The shard of {@link #nextId()} and {@link #nextIds(int)}; without it, pass one per call. */
        public Builder shard(long shard) {
            this.shard = shard;
            return this;
        }

        /** A layout with exactly one node field, the shard (default {@code redis-lua}). */
        public Builder layout(Layout layout) {
            this.layout = layout.spec();
            return this;
        }

        /** A preset name or spec with exactly one node field, the shard. */
        public Builder layout(String spec) {
            this.layout = Objects.requireNonNull(spec, "spec");
            return this;
        }

        /** The key prefix (default {@code idmint:sf}). */
        public Builder prefix(String prefix) {
            this.prefix = Objects.requireNonNull(prefix, "prefix");
            return this;
        }

        /** IDs per round trip behind {@link #nextId()} (default 100; 1..=2^20). */
        public Builder batch(long batch) {
            this.batch = batch;
            return this;
        }

        /** The bound of one call to one server (default 1 s). */
        public Builder opTimeout(Duration timeout) {
            this.opTimeoutMs = timeout.toMillis();
            return this;
        }

        /** The bound of one call over every server and retry (default 3 s). */
        public Builder maxWait(Duration wait) {
            this.maxWaitMs = wait.toMillis();
            return this;
        }

        /** How long a failed server is skipped (default 1 s). */
        public Builder retryAfter(Duration after) {
            this.retryAfterMs = after.toMillis();
            return this;
        }

        /** How far past the server's clock IDs may carry (default 1 s). */
        public Builder maxAhead(Duration ahead) {
            this.maxAheadMs = ahead.toMillis();
            return this;
        }

        /** No longer used; still checked (2..=3600) so existing configurations build (docs/redis-snowflake.md). */
        public Builder counterTtlSecs(long secs) {
            this.counterTtlSecs = secs;
            return this;
        }

        /** Never issue an ID of this unix millisecond or an earlier one (moving in from another generator). */
        public Builder resumeAfterMs(long ms) {
            this.resumeAfterMs = ms;
            return this;
        }

        /** <b>Tests only</b>: the script reads its time (unix ms) from this key when it holds one. */
        public Builder testClockKey(String key) {
            this.testClockKey = Objects.requireNonNull(key, "key");
            return this;
        }

        /**
         * Connect (blocking): meets every server and checks its place in the set. Errors:
         * {@link InvalidArgumentException} (servers, options, a server recorded in another
         * place), {@link InvalidTagException}, {@link InvalidLayoutException},
         * {@link ValueOutOfRangeException} (shard), {@link StoreUnavailableException}.
         */
        public RedisSnowflake connect() {
            io.idmint.ffi.RedisSnowflakeOptions options = new io.idmint.ffi.RedisSnowflakeOptions(urls, tag, shard,
                    layout, prefix, batch, opTimeoutMs, maxWaitMs, retryAfterMs, maxAheadMs, counterTtlSecs,
                    resumeAfterMs, testClockKey);
            return new RedisSnowflake(Layout.call(() -> io.idmint.ffi.RedisSnowflake.connect(options)));
        }

        /** {@link #connect()} on idmint's daemon threads. */
        public CompletableFuture<RedisSnowflake> connectAsync() {
            return Async.run(this::connect);
        }
    }
}
