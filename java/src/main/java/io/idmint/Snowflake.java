package io.idmint;

import io.idmint.ffi.FfiException;
import io.idmint.ffi.NodeValue;
import java.lang.ref.Reference;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A snowflake ID generator for one node: thread-safe and lock-free; every ID it returns is greater
 * than every ID it returned before, on any thread. IDs are non-negative {@code long}s.
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
 * }</pre>
 */
public final class Snowflake {
    static {
        NativeLibrary.ensureLoaded();
    }

    private final io.idmint.ffi.Snowflake inner;
    /** The Rust generator inside {@code inner}; valid while {@code inner} is reachable. */
    private final long handle;
    private final Layout layout;

    private Snowflake(io.idmint.ffi.Snowflake inner) {
        this.inner = inner;
        this.handle = inner.fastHandle();
        this.layout = new Layout(inner.layout());
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
        try {
            long id = Fast.idmint_jvm_fast_next_id(handle);
            if (id < 0) {
                throw Fast.fail(id);
            }
            return id;
        } finally {
            Reference.reachabilityFence(inner);
        }
    }

    /** {@code n} increasing IDs, reserved a run at a time; {@link InvalidArgumentException} if {@code n < 0}. */
    public long[] nextIds(int n) {
        long[] out = new long[Math.max(n, 0)];
        try {
            long rc = Fast.idmint_jvm_fast_next_ids(handle, out, n);
            if (rc < 0) {
                throw Fast.fail(rc);
            }
            return out;
        } finally {
            Reference.reachabilityFence(inner);
        }
    }

    /** Take an ID of this generator's layout apart. */
    public IdParts parse(long id) {
        try {
            return Layout.parts(inner.decompose(id));
        } catch (FfiException e) {
            throw NativeLibrary.rethrow(e);
        }
    }

    /** The layout. */
    public Layout layout() {
        return layout;
    }

    /** The node values, in layout order. */
    public Map<String, Long> nodes() {
        Map<String, Long> out = new LinkedHashMap<>();
        for (NodeValue n : Layout.call(inner::nodes)) {
            out.put(n.name(), n.value());
        }
        return Collections.unmodifiableMap(out);
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
        io.idmint.ffi.Stats s = inner.stats();
        return new Stats(s.issued(), s.waits(), s.rollbacks(), s.leadMs(), s.maxLeadMs());
    }

    @Override
    public String toString() {
        return "Snowflake(" + layout + ", " + nodes() + ")";
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

        /** Use a {@link ManualClock} instead of the default monotonic clock (for tests). */
        public Builder clock(ManualClock clock) {
            this.clock = clock;
            return this;
        }

        /**
         * Build. Errors: {@link InvalidLayoutException}, {@link MissingFieldException},
         * {@link UnknownFieldException}, {@link ValueOutOfRangeException},
         * {@link InvalidArgumentException} (a policy), {@link EpochInFutureException},
         * {@link LayoutExhaustedException}, {@link InvalidIdException} (the ID to resume after).
         */
        public Snowflake build() {
            return new Snowflake(buildInner());
        }

        private io.idmint.ffi.Snowflake buildInner() {
            Layout l = layout != null ? layout : Layout.of(spec, epoch);
            try {
                return new io.idmint.ffi.Snowflake(l.inner, Layout.nodeValues(nodes), randomNodes,
                        onExhausted, onRollback, clock == null ? null : clock.inner, resumeAfter);
            } catch (FfiException e) {
                throw NativeLibrary.rethrow(e);
            }
        }
    }
}
