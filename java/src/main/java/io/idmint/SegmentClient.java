package io.idmint;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Segment IDs: numbers that only grow, per tag, leased in ranges from a store shared by every
 * process ({@code sqlite:PATH}, {@code postgres://…}, {@code mysql://…}, {@code redis://…}
 * plain or {@code ?shards=N}, {@code memory:}). The core keeps two ranges per tag in memory and
 * refills the next one in the background, so a caller waits on the store only when both are
 * used up. Thread-safe; IDs are {@code long}s; unused IDs are skipped at close, never reissued.
 *
 * <pre>{@code
 * try (SegmentClient client = SegmentClient.connect("postgres://app@db/shop")) {
 *     SegmentTag orders = client.tag("orders");      // cached: keep it
 *     long id = orders.nextId();
 *     LongRange run = orders.nextIds(100);            // 100 contiguous IDs
 * }
 * }</pre>
 *
 * <p>Every rule (defaults, ranges, refills, errors) is the core's: this class converts. The
 * handles serve IDs from a block the core granted ({@link SegmentTag}), so the hot path never
 * crosses into native code.
 */
public final class SegmentClient implements AutoCloseable {
    static {
        NativeLibrary.ensureLoaded();
    }

    private final io.idmint.ffi.SegmentClient inner;
    private final ConcurrentHashMap<String, SegmentTag> tags = new ConcurrentHashMap<>();

    private SegmentClient(io.idmint.ffi.SegmentClient inner) {
        this.inner = inner;
        // Unreachable (with all its tags): the refills stop and the native client goes too.
        NativeLibrary.CLEANER.register(this, () -> {
            inner.shutdown();
            inner.close();
        });
    }

    /** Open the store at {@code url} with the core's defaults (a blocking call: one store round trip). */
    public static SegmentClient connect(String url) {
        return builder(url).connect();
    }

    /** {@link #connect(String)} on idmint's daemon threads. */
    public static CompletableFuture<SegmentClient> connectAsync(String url) {
        return builder(url).connectAsync();
    }

    /** Start configuring a client of the store at {@code url}. */
    public static Builder builder(String url) {
        return new Builder(Objects.requireNonNull(url, "url"));
    }

    /**
     * The handle of {@code tag}, loaded from the store on first use (a blocking round trip, then
     * cached here). Errors: {@link InvalidTagException}; {@link UnknownTagException} when
     * auto-creation is off and the store lacks it; {@link StoreUnavailableException};
     * {@link ClosedException}.
     */
    public SegmentTag tag(String tag) {
        Objects.requireNonNull(tag, "tag");
        SegmentTag cached = tags.get(tag);
        if (cached != null) {
            return cached;
        }
        // Loading waits on the store: not under the map's lock. Two threads loading the same tag
        // get two handles over the core's one tag state, which hands out no ID twice.
        SegmentTag loaded = new SegmentTag(this, Layout.call(() -> inner.tag(tag)));
        SegmentTag raced = tags.putIfAbsent(tag, loaded);
        return raced != null ? raced : loaded;
    }

    /** {@link #tag(String)} on idmint's daemon threads. */
    public CompletableFuture<SegmentTag> tagAsync(String tag) {
        SegmentTag cached = tags.get(tag);
        return cached != null ? CompletableFuture.completedFuture(cached) : Async.run(() -> tag(tag));
    }

    /** The next ID of {@code tag}: {@code tag(tag).nextId()}. */
    public long nextId(String tag) {
        return tag(tag).nextId();
    }

    /**
     * Create {@code spec}'s tag; {@code true} if created, {@code false} if it existed (then
     * nothing changes). Errors: {@link InvalidTagException}, {@link InvalidArgumentException} (a
     * start or step out of range, a description too long), {@link StoreUnavailableException}.
     */
    public boolean createTag(TagSpec spec) {
        io.idmint.ffi.TagSpecInfo info = spec.info();
        return Layout.call(() -> inner.createTag(info));
    }

    /** {@code createTag(TagSpec.of(tag).start(start).step(step).description(description))}. */
    public boolean createTag(String tag, long start, long step, String description) {
        return createTag(TagSpec.of(tag).start(start).step(step).description(description));
    }

    /** {@link #createTag(TagSpec)} on idmint's daemon threads. */
    public CompletableFuture<Boolean> createTagAsync(TagSpec spec) {
        return Async.run(() -> createTag(spec));
    }

    /** Metrics of every tag this client has loaded, sorted by tag (IDs held in the core's memory). */
    public List<TagMetrics> metrics() {
        List<TagMetrics> out = new ArrayList<>();
        for (io.idmint.ffi.TagMetrics m : inner.metrics()) {
            out.add(TagMetrics.of(m, 0));
        }
        return out;
    }

    /**
     * The client's metric values now, per tag it has loaded ({@link Metrics#definitions()} names
     * them): IDs issued, IDs buffered, refills and their time, store errors, waits.
     */
    public List<Observation> observe() {
        return Observation.of(inner.observe());
    }

    /** The store, as kind and address (never credentials). */
    public String store() {
        return inner.store();
    }

    /**
     * Stop the background refills, give the unused tails of the buffered ranges back to the
     * store where nobody allocated after them (waits at most the op timeout; the core does it,
     * docs/segments.md), and release the store's connections. Other IDs left in memory are
     * never handed out by anyone; every later call throws {@link ClosedException}. Idempotent.
     */
    @Override
    public void close() {
        // Every handle given out is in the map (one that lost a race to load was dropped).
        for (SegmentTag t : tags.values()) {
            t.closed = true;
        }
        inner.shutdown();
    }

    io.idmint.ffi.SegmentClient inner() {
        return inner;
    }

    @Override
    public String toString() {
        return "SegmentClient(" + store() + ")";
    }

    /** Configures a {@link SegmentClient}; the core checks every value when it connects. */
    public static final class Builder {
        private final String url;
        private Integer refillAt;
        private Long maxStep;
        private Long defaultStep;
        private Boolean autoCreate;
        private String defaultTag;
        private Long maxWaitMs;
        private Long opTimeoutMs;

        private Builder(String url) {
            this.url = url;
        }

        /** Fetch the next range when this share of the current one (percent, 0..=99) is used. */
        public Builder refillAt(int percent) {
            this.refillAt = percent;
            return this;
        }

        /** The largest step the dynamic step may grow to (1..=2^40). */
        public Builder maxStep(long maxStep) {
            this.maxStep = maxStep;
            return this;
        }

        /** The step of tags this client creates (1..=2^40). */
        public Builder defaultStep(long step) {
            this.defaultStep = step;
            return this;
        }

        /** Create unknown tags on first use, or fail with {@link UnknownTagException}. */
        public Builder autoCreate(boolean on) {
            this.autoCreate = on;
            return this;
        }

        /** The tag that tags unknown to the store draw from (one shared sequence for rare tags). */
        public Builder defaultTag(String tag) {
            this.defaultTag = Objects.requireNonNull(tag, "tag");
            return this;
        }

        /** The longest a caller waits when both ranges are used up, then {@link StoreUnavailableException}. */
        public Builder maxWait(Duration wait) {
            this.maxWaitMs = Idmint.millis(wait);
            return this;
        }

        /** The longest one store call may take before it counts as failed. */
        public Builder opTimeout(Duration timeout) {
            this.opTimeoutMs = Idmint.millis(timeout);
            return this;
        }

        /**
         * Open the store and build the client (blocking). Errors: {@link InvalidArgumentException}
         * (an option or URL), {@link InvalidTagException} (the default tag),
         * {@link StoreUnavailableException}.
         */
        public SegmentClient connect() {
            io.idmint.ffi.SegmentOptions options = new io.idmint.ffi.SegmentOptions(url, refillAt, maxStep,
                    defaultStep, autoCreate, defaultTag, maxWaitMs, opTimeoutMs);
            return new SegmentClient(Layout.call(() -> io.idmint.ffi.SegmentClient.connect(options)));
        }

        /** {@link #connect()} on idmint's daemon threads. */
        public CompletableFuture<SegmentClient> connectAsync() {
            return Async.run(this::connect);
        }
    }
}
