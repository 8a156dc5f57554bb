package io.idmint;

import io.idmint.ffi.FfiException;
import io.idmint.ffi.NodeValue;
import java.lang.ref.Reference;
import java.math.BigInteger;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A snowflake ID generator for one node: thread-safe and lock-free; IDs are non-negative
 * {@code long}s, each one issued once, and on each thread every ID is greater than the ones
 * that thread got before.
 *
 * <pre>{@code
 * Snowflake gen = new Snowflake(1, 7);                 // twitter layout, datacenter 1, worker 7
 * long id = gen.nextId();
 * long[] ids = gen.nextIds(1000);
 * Instant t = gen.parse(id).time();
 *
 * Snowflake sony = Snowflake.builder("sonyflake")
 *         .node("machine", 513)
 *         .onExhausted("borrow:50")                    // or "wait" (default)
 *         .onRollback("wait:500")                      // or "error" (default), "continue"
 *         .build();
 *
 * try (Snowflake leased = Snowflake.builder("twitter")  // node value leased from a store,
 *         .lease("postgres://app@db/shop")            // renewed in the background,
 *         .leaseRange(0, 31)                          // released by close()
 *         .build()) {
 *     leased.nextId();
 * }
 * }</pre>
 *
 * <p>Node values come from exactly one of: values set with {@link Builder#node}, a
 * {@link Builder#lease(String) lease}, or {@link Builder#randomNodes()}; the core refuses a
 * missing field ({@link MissingFieldException}) and a mix.
 *
 * <p>Across threads IDs are not in call order: where the core grants it (layouts whose tick
 * holds 2048 IDs or more, e.g. twitter, on the system clock, without a lease or high-water mark)
 * {@link #nextId()} serves each thread from a block of up to 256 IDs the core reserved in one
 * call, and drops the block's rest about a millisecond after it was taken (a daemon thread,
 * {@code idmint-ticker}, counts the milliseconds), so an ID's time is about a millisecond older
 * than the call at most, give or take how late the system wakes that thread (a dropped rest is
 * never issued; it costs under 0.1% of the layout's cap per thread). A call on another thread in between can get
 * a smaller ID. {@link #nextIds(int)} takes its IDs directly from the core (and drops the
 * calling thread's block, so its IDs stay increasing on that thread).
 *
 * <p>{@link #close()} releases the lease (and lowers a high-water mark to the last ID issued);
 * a generator dropped without it releases them when it is garbage-collected. Every later call
 * throws {@link ClosedException}.
 */
public final class Snowflake implements AutoCloseable {
    static {
        NativeLibrary.ensureLoaded();
    }

    private final io.idmint.ffi.Snowflake inner;
    /** The Rust generator inside {@code inner}; valid while {@code inner} is reachable. */
    private final long handle;
    private final Layout layout;
    /**
     * For a generator holding a lease or a high-water mark, whose native half {@link #close()}
     * frees (that is what releases them): calls in flight, plus {@link #CLOSED} once closed, so
     * the free waits for them. {@code null} otherwise: close() only marks it closed, and the
     * native half goes with the garbage collector, so the hot path pays no count.
     */
    private final AtomicLong calls;
    /** Whether IDs may use all 64 bits: then {@link #nextId()} reads them through {@code nextIds}. */
    private final boolean unsigned;
    private volatile boolean closed;
    private static final long CLOSED = 1L << 62;

    /** Frees the native generator (releasing a lease) at close() or once this is unreachable. */
    private final java.lang.ref.Cleaner.Cleanable free;

    /**
     * Each thread's block of IDs taken from the core in one call, when the core grants blocks
     * for this generator ({@code blockLen() > 1}: not with a lease, a high-water mark or a
     * ManualClock); {@code null}: a call into the core for each ID.
     */
    private final ThreadLocal<Block> blocks;

    /** A run of increasing IDs the core reserved for one thread, and when they were taken. */
    private static final class Block {
        final long[] ids;
        int next;
        /** {@link Ticker#millis} before they were taken: the block is dropped once it moved on. */
        long tick = Long.MIN_VALUE;

        Block(int n) {
            ids = new long[n];
            next = n;
        }
    }

    private Snowflake(io.idmint.ffi.Snowflake inner, boolean guarded) {
        this.inner = inner;
        this.handle = inner.fastHandle();
        this.layout = new Layout(inner.layout());
        this.unsigned = layout.isUnsigned();
        this.calls = guarded ? new AtomicLong() : null;
        int blockLen = inner.blockLen();
        this.blocks = blockLen > 1 ? ThreadLocal.withInitial(() -> new Block(blockLen)) : null;
        this.free = NativeLibrary.CLEANER.register(this, inner::close);
    }

    private Snowflake(io.idmint.ffi.Snowflake inner) {
        this(inner, false);
    }

    /** A generator of the {@code twitter} layout (41-bit ms time, datacenter 5, worker 5, sequence 12). */
    public Snowflake(long datacenterId, long workerId) {
        this(builder(Idmint.defaultPreset()).node("datacenter", datacenterId).node("worker", workerId).buildInner());
    }

    /** A generator of {@code layout} (a preset name or spec) with a value for each node field. */
    public Snowflake(String layout, Map<String, Long> nodes) {
        this(builder(layout).nodes(nodes).buildInner());
    }

    /** Start configuring a generator of {@code layout}, a preset name or spec. */
    public static Builder builder(String layout) {
        return new Builder(Objects.requireNonNull(layout, "layout"), null);
    }

    /** Start configuring a generator of {@code layout}. */
    public static Builder builder(Layout layout) {
        return new Builder(null, Objects.requireNonNull(layout, "layout"));
    }

    /**
     * The next ID. Errors: {@link ClockMovedBackwardsException} under the {@code error} rollback
     * policy (or a too long {@code wait:MS}); {@link LayoutExhaustedException} once the time field
     * has run out.
     */
    public long nextId() {
        if (blocks != null) {
            if (closed) {
                throw closedError();
            }
            Block b = blocks.get();
            if (b.next < b.ids.length && b.tick == Ticker.millis) {
                return b.ids[b.next++];
            }
            return refill(b);
        }
        enter();
        try {
            if (unsigned) {
                // Any 64 bits are an ID here: the status comes apart from the ID.
                long[] one = new long[1];
                long rc = Jni.nextIds(handle, one, 1);
                if (rc < 0) {
                    throw Fast.fail(rc);
                }
                return one[0];
            }
            long id = Jni.nextId(handle);
            if (id < 0) {
                throw Fast.fail(id);
            }
            return id;
        } finally {
            exit();
            Reference.reachabilityFence(inner);
        }
    }

    /** A new block for this thread (the rest of the old one is never issued); its first ID. */
    private long refill(Block b) {
        b.next = b.ids.length;
        long tick = Ticker.millis;
        long rc = Jni.nextIds(handle, b.ids, b.ids.length);
        Reference.reachabilityFence(inner);
        if (rc < 0) {
            throw Fast.fail(rc);
        }
        b.tick = tick;
        Ticker.used();
        b.next = 1;
        return b.ids[0];
    }

    /** The address of the native generator, for the bench's call-cost rows (same package). */
    long fastHandle() {
        return handle;
    }

    /** {@code n} increasing IDs, reserved a run at a time; {@link InvalidArgumentException} if {@code n < 0}. */
    public long[] nextIds(int n) {
        long[] out = new long[Math.max(n, 0)];
        if (blocks != null) {
            // These come after the rest of this thread's block: drop it, so the thread's next
            // nextId() is greater still.
            Block b = blocks.get();
            b.next = b.ids.length;
        }
        enter();
        try {
            long rc = Jni.nextIds(handle, out, n);
            if (rc < 0) {
                throw Fast.fail(rc);
            }
            return out;
        } finally {
            exit();
            Reference.reachabilityFence(inner);
        }
    }

    /** Take an ID of this generator's layout apart. */
    public IdParts parse(long id) {
        return layout.parse(id);
    }

    /** The layout. */
    public Layout layout() {
        return layout;
    }

    /** The node values in use, in layout order (a leased value can change after a lost lease). */
    public Map<String, Long> nodes() {
        enter();
        try {
            Map<String, Long> out = new LinkedHashMap<>();
            for (NodeValue n : Layout.call(inner::nodes)) {
                out.put(n.name(), n.value());
            }
            return Collections.unmodifiableMap(out);
        } finally {
            exit();
        }
    }

    /** The sequence-exhaustion policy: {@code wait} or {@code borrow:MS}. */
    public String onExhausted() {
        return inner.onExhausted();
    }

    /** The clock-rollback policy: {@code error}, {@code wait:MS} or {@code continue}. */
    public String onRollback() {
        return inner.onRollback();
    }

    /** The generator's counters. */
    public Stats stats() {
        enter();
        try {
            io.idmint.ffi.Stats s = inner.stats();
            return new Stats(s.issued(), s.waits(), s.rollbacks(), s.leadMs(), s.maxLeadMs());
        } finally {
            exit();
        }
    }

    /**
     * The generator's metric values now ({@link Metrics#definitions()} names them): IDs issued,
     * clock rollbacks and waits, and, for a leased generator, {@code idmint.lease.held} (1 while
     * it holds its lease, 0 while it refuses to mint), {@code idmint.lease.fence} and
     * {@code idmint.lease.renew.failures}.
     */
    public List<Observation> observe() {
        enter();
        try {
            return Observation.of(inner.observe());
        } finally {
            exit();
        }
    }

    /**
     * Release the lease (at once, for the next holder) and lower a high-water mark to the last
     * ID issued; waits for calls in flight on other threads. Every later call throws
     * {@link ClosedException}. Idempotent.
     */
    @Override
    public void close() {
        closed = true;
        if (calls == null) {
            return;
        }
        long seen = calls.get();
        while ((seen & CLOSED) == 0) {
            if (calls.compareAndSet(seen, seen | CLOSED)) {
                while (calls.get() != CLOSED) {
                    Thread.onSpinWait();
                }
                free.clean();
                return;
            }
            seen = calls.get();
        }
    }

    /** Whether {@link #close()} was called. */
    public boolean isClosed() {
        return closed;
    }

    private void enter() {
        if (calls == null) {
            if (closed) {
                throw closedError();
            }
        } else if ((calls.getAndIncrement() & CLOSED) != 0) {
            calls.getAndDecrement();
            throw closedError();
        }
    }

    private void exit() {
        if (calls != null) {
            calls.getAndDecrement();
        }
    }

    private static IdmintException closedError() {
        try {
            io.idmint.ffi.IdmintJvm.closedError("snowflake generator");
        } catch (FfiException e) {
            return NativeLibrary.rethrow(e);
        }
        return new IdmintException("closed", "this snowflake generator is closed");
    }

    @Override
    public String toString() {
        return closed ? "Snowflake(" + layout + ", closed)" : "Snowflake(" + layout + ", " + nodes() + ")";
    }

    /** Configures a {@link Snowflake}; every value is checked by {@link #build()}. */
    public static final class Builder {
        private final String spec;
        private final Layout layout;
        private String epoch;
        private final Map<String, Long> nodes = new LinkedHashMap<>();
        private boolean randomNodes;
        // null: the core's default policies.
        private String onExhausted;
        private String onRollback;
        private ManualClock clock;
        private Long resumeAfter;
        // One of the two: a long's bits (read as the layout reads IDs, at build) or decimal text.
        private Long startAboveBits;
        private String startAboveText;
        private String leaseUrl;
        private io.idmint.ffi.LeaseRange leaseRange;
        private Long leaseTtlMs;
        private Long leaseFreezeMs;
        private String leaseHolder;
        private Path highWaterMark;
        private boolean unsigned;

        private Builder(String spec, Layout layout) {
            this.spec = spec;
            this.layout = layout;
        }

        /** Set node field {@code name} (e.g. {@code worker}) to {@code value}. */
        public Builder node(String name, long value) {
            nodes.put(Objects.requireNonNull(name, "name"), value);
            return this;
        }

        /** Set several node fields. */
        public Builder nodes(Map<String, Long> values) {
            for (Map.Entry<String, Long> e : values.entrySet()) {
                node(e.getKey(), Objects.requireNonNull(e.getValue(), "node value"));
            }
            return this;
        }

        /**
         * Give every node field not set a random value (for places with no stable machine
         * identity; two generators then collide with probability 2^-nodeBits per shared tick).
         */
        public Builder randomNodes() {
            this.randomNodes = true;
            return this;
        }

        /** Another epoch for a layout given by name or spec: unix ms (digits) or RFC 3339. */
        public Builder epoch(String epoch) {
            if (layout != null) {
                throw new IllegalStateException("epoch() applies to a layout given as text; use Layout.of(spec, epoch)");
            }
            this.epoch = epoch;
            return this;
        }

        /** What to do when a tick's sequence is used up: {@code wait} (default) or {@code borrow:MS}. */
        public Builder onExhausted(String policy) {
            this.onExhausted = Objects.requireNonNull(policy, "policy");
            return this;
        }

        /** What to do when the clock reads earlier than the last ID: {@code error} (default), {@code wait:MS}, {@code continue}. */
        public Builder onRollback(String policy) {
            this.onRollback = Objects.requireNonNull(policy, "policy");
            return this;
        }

        /**
         * Continue after {@code lastId}, an ID this node issued before a restart (kept by the
         * caller, e.g. the largest ID in its table): every new ID is greater than it, even if the
         * machine's clock now reads earlier. A clock behind {@code lastId}'s time is a rollback,
         * handled by the {@link #onRollback(String) rollback policy}: {@code error} throws
         * {@link ClockMovedBackwardsException} from {@code nextId()} until the clock catches up,
         * {@code wait:MS} waits that long at most, {@code continue} goes on counting after it.
         * {@link InvalidIdException} from {@link #build()} if it is negative or not an ID of the
         * layout.
         */
        public Builder resumeAfter(long lastId) {
            this.resumeAfter = lastId;
            return this;
        }

        /**
         * Start strictly above {@code id}, the largest ID of a layout this one replaces (e.g. the
         * largest ID in the table): the generator starts at the first tick whose IDs are all
         * above it, the instant {@link Idmint#checkMigration(Layout, Layout, Long, Instant)} names
         * as {@code safeFrom}, so keys stay unique and ordered across a change of layout or epoch.
         * For an unsigned layout {@code id} is a {@code long}'s 64 bits (negative from 2^63 on);
         * {@link #startAbove(BigInteger)} takes any ID up to 2^64-1.
         *
         * <p>A clock already past that tick mints at once. A clock before it is handled by the
         * {@link #onRollback(String) rollback policy}: {@code error} (the default) makes
         * {@link #build()} throw {@link InvalidArgumentException} naming {@code id}, the time and
         * the clock's reading; {@code wait:MS} waits on the first call if the time is at most that
         * far off (and throws that otherwise); {@code continue} mints from that tick at once,
         * ahead of the clock. {@link InvalidArgumentException} too for an {@code id} this layout's
         * IDs never pass; {@link InvalidIdException} for a negative {@code id} of a signed layout.
         *
         * <pre>{@code
         * Snowflake gen = Snowflake.builder("time:41@1ms,worker:10,sequence:12,epoch=2024-01-01T00:00:00Z")
         *         .node("worker", 1)
         *         .startAbove(1541815603606036480L)   // the largest twitter ID in the table
         *         .onRollback("continue")             // mint ahead of the clock until it catches up
         *         .build();
         * }</pre>
         */
        public Builder startAbove(long id) {
            this.startAboveBits = id;
            this.startAboveText = null;
            return this;
        }

        /**
         * {@link #startAbove(long)} of an ID as a number, up to 2^64-1 whatever the layout:
         * {@link InvalidIdException} from {@link #build()} for a negative one or one above 2^64-1.
         */
        public Builder startAbove(BigInteger id) {
            this.startAboveText = Objects.requireNonNull(id, "id").toString();
            this.startAboveBits = null;
            return this;
        }

        /**
         * Lease the node value from the store at {@code url} ({@code sqlite:PATH},
         * {@code postgres://…}, {@code mysql://…}, {@code redis://…}; {@code memory:} is this
         * generator's own) instead of setting it: the leased value fills every node field, is
         * renewed in the background while the generator lives and released by {@link #close()}
         * (or when it is garbage-collected). {@link #build()} throws {@link NoFreeLeaseException}
         * when every value of the range is held or frozen; a generator whose renewals fail throws
         * {@link LeaseLostException} from {@code nextId()} before its lease can have ended for
         * others. A previous holder's IDs are never repeated: the store keeps the last time
         * each value issued.
         */
        public Builder lease(String url) {
            this.leaseUrl = Objects.requireNonNull(url, "url");
            return this;
        }

        /** Lease a value in {@code first..=last} (default: every value the layout's node bits hold). */
        public Builder leaseRange(long first, long last) {
            this.leaseRange = new io.idmint.ffi.LeaseRange(first, last);
            return this;
        }

        /**
         * Lease a value in a range written {@code FIRST..LAST} (both included; {@code FIRST..=LAST}
         * too), as the CLI's {@code --lease-range} takes it; {@link InvalidArgumentException} if
         * it is not such a range.
         */
        public Builder leaseRange(String range) {
            try {
                this.leaseRange = io.idmint.ffi.IdmintJvm.leaseRangeParse(Objects.requireNonNull(range, "range"));
            } catch (FfiException e) {
                throw NativeLibrary.rethrow(e);
            }
            return this;
        }

        /** How long a lease lasts without renewal (core default 10 s, 300 ms to 1 day); renewed every third of it. */
        public Builder leaseTtl(Duration ttl) {
            this.leaseTtlMs = Idmint.millis(ttl);
            return this;
        }

        /** How long a value stays frozen after its lease expired before anyone may take it (core default: the TTL). */
        public Builder leaseFreeze(Duration freeze) {
            this.leaseFreezeMs = Idmint.millis(freeze);
            return this;
        }

        /** The holder's name shown in the store (core default {@code host:pid}). */
        public Builder leaseHolder(String holder) {
            this.leaseHolder = Objects.requireNonNull(holder, "holder");
            return this;
        }

        /**
         * Keep a high-water mark in the file at {@code path}: the time up to which this generator
         * may have issued IDs, written ahead and synced before an ID past it is handed out. After
         * a restart with a clock that went back, IDs stay above the mark and the rollback policy
         * decides (wait, continue, or {@link ClockMovedBackwardsException}). One file per node
         * value and process; {@link #close()} lowers it to the last ID issued. Not with a lease
         * (which keeps its fence in the lease store): {@link InvalidArgumentException}.
         */
        public Builder highWaterMark(Path path) {
            this.highWaterMark = Objects.requireNonNull(path, "path");
            return this;
        }

        /**
         * Allow minting with a 64-bit layout ({@link Layout#isUnsigned()}, such as {@code discord}):
         * its IDs are {@code long}s holding 64 unsigned bits, negative from 2^63 on (show them with
         * {@link Long#toUnsignedString(long)}); they no longer fit SQL {@code BIGINT} as positive
         * numbers. Without it {@link #build()} throws {@link InvalidLayoutException} for such a layout.
         */
        public Builder unsigned() {
            this.unsigned = true;
            return this;
        }

        /** Use a {@link ManualClock} instead of the default monotonic clock (for tests). */
        public Builder clock(ManualClock clock) {
            this.clock = clock;
            return this;
        }

        /**
         * Build. Errors: {@link InvalidLayoutException}, {@link MissingFieldException},
         * {@link UnknownFieldException}, {@link ValueOutOfRangeException},
         * {@link InvalidArgumentException} (a policy, a lease option, node values mixed with a
         * lease, a start-above ID the clock or the layout does not reach), {@link EpochInFutureException}, {@link LayoutExhaustedException},
         * {@link InvalidIdException} (the ID to resume after or start above), {@link NoFreeLeaseException},
         * {@link StoreUnavailableException} (the lease store).
         */
        public Snowflake build() {
            io.idmint.ffi.Snowflake inner = buildInner();
            // The core's warning for a layout within five years of its end, through the
            // platform logger (System.Logger: SLF4J or JUL, whichever the application routes it to).
            String warning = inner.lifetimeWarning();
            if (warning != null) {
                System.getLogger("io.idmint").log(System.Logger.Level.WARNING, warning);
            }
            return new Snowflake(inner, leaseUrl != null || highWaterMark != null);
        }

        private io.idmint.ffi.Snowflake buildInner() {
            Layout l = layout != null ? layout : Layout.of(spec, epoch);
            try {
                io.idmint.ffi.LeaseSpec lease = leaseUrl == null
                        ? null : new io.idmint.ffi.LeaseSpec(leaseUrl, leaseRange, leaseTtlMs, leaseFreezeMs, leaseHolder);
                // A long is read as the layout reads IDs: its 64 bits when unsigned, else signed
                // (so a negative one reaches the core, which refuses it as no ID).
                String above = startAboveBits == null ? startAboveText
                        : l.isUnsigned() ? Long.toUnsignedString(startAboveBits) : Long.toString(startAboveBits);
                return new io.idmint.ffi.Snowflake(l.inner, Layout.nodeValues(nodes), randomNodes,
                        onExhausted, onRollback, clock == null ? null : clock.inner, resumeAfter, above, lease,
                        highWaterMark == null ? null : highWaterMark.toString(), unsigned);
            } catch (FfiException e) {
                throw NativeLibrary.rethrow(e);
            }
        }
    }
}
