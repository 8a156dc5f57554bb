package io.idmint;

import java.lang.ref.Reference;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A cached segment tag of a {@link SegmentClient} ({@link SegmentClient#tag(String)}): its IDs
 * only grow, and no process drawing from the same store and tag gets one of them. Thread-safe.
 *
 * <p>{@link #nextId()} serves IDs from a block that the core granted this handle (a quarter of
 * the tag's step, at most 1024 IDs, taken from the core's buffered ranges): one atomic
 * increment, no native call, until the block is used up. The block's unused IDs are skipped when
 * the client closes or the handle is dropped, never handed out again.
 */
public final class SegmentTag {
    private final SegmentClient client;
    private final io.idmint.ffi.SegmentTag inner;
    /** The Rust handle inside {@code inner}; valid while {@code inner} is reachable. */
    private final long handle;
    private final String name;
    /** The block being served: its counter is the next ID to hand out. */
    private volatile Block block = new Block(0, 0);
    private final Object refill = new Object();
    private final long[] granted = new long[2];

    /** IDs {@code get()..end} of a block the core granted; the counter runs past {@code end} harmlessly. */
    @SuppressWarnings("serial")
    private static final class Block extends AtomicLong {
        final long end;

        Block(long next, long end) {
            super(next);
            this.end = end;
        }
    }

    SegmentTag(SegmentClient client, io.idmint.ffi.SegmentTag inner) {
        this.client = client;
        this.inner = inner;
        this.handle = inner.fastHandle();
        this.name = inner.name();
        NativeLibrary.CLEANER.register(this, inner::close);
    }

    /**
     * The next ID. Waits on the store only when the core's two ranges are used up, for at most
     * the client's {@code maxWait}. Errors: {@link StoreUnavailableException} (the wait ran
     * out), {@link UnknownTagException}, {@link TagExhaustedException},
     * {@link RangeBelowIssuedException}, {@link ClosedException}.
     */
    public long nextId() {
        Block b = block;
        long id = b.getAndIncrement();
        if (id < b.end && !client.closed) {
            return id;
        }
        return refill(b, true);
    }

    /**
     * The next ID if one is in memory, never waiting on the store: otherwise the refill starts
     * and this throws {@link WouldBlockException} (for event loops that must not block; then
     * use {@link #nextIdAsync()}).
     */
    public long tryNextId() {
        Block b = block;
        long id = b.getAndIncrement();
        if (id < b.end && !client.closed) {
            return id;
        }
        return refill(b, false);
    }

    /**
     * {@code n} contiguous IDs (1..=2^40), straight from the core: up to the tag's step from its
     * buffered ranges, above it in one store round trip. {@link InvalidArgumentException} for
     * {@code n < 1}, and the errors of {@link #nextId()}.
     */
    public LongRange nextIds(int n) {
        try {
            io.idmint.ffi.IdRun run = Layout.call(() -> inner.nextIds(n));
            return new LongRange(run.start(), run.end());
        } finally {
            Reference.reachabilityFence(client);
        }
    }

    /** {@link #nextId()}: completed at once while the block has IDs, else on idmint's daemon threads. */
    public CompletableFuture<Long> nextIdAsync() {
        Block b = block;
        long id = b.getAndIncrement();
        if (id < b.end && !client.closed) {
            return CompletableFuture.completedFuture(id);
        }
        return Async.run(() -> refill(b, true));
    }

    /** {@link #nextIds(int)} on idmint's daemon threads. */
    public CompletableFuture<LongRange> nextIdsAsync(int n) {
        return Async.run(() -> nextIds(n));
    }

    /** The tag as stored (the default tag's name when this tag falls back to it). */
    public String name() {
        return name;
    }

    /** The tag's counters; {@code remaining} counts the IDs of this handle's block too. */
    public TagMetrics metrics() {
        Block b = block;
        long held = Math.max(0, b.end - b.get());
        return TagMetrics.of(inner.metrics(), held);
    }

    /** The client this handle belongs to. */
    public SegmentClient client() {
        return client;
    }

    @Override
    public String toString() {
        return "SegmentTag(" + name + ")";
    }

    /** The block {@code seen} is used up: the first ID of a new one the core grants. */
    private long refill(Block seen, boolean wait) {
        synchronized (refill) {
            if (client.closed) {
                // The core says why (closed), in its words; an ID it still gives is a valid one.
                return Layout.call(inner::nextId);
            }
            Block b = block;
            if (b != seen) {
                long id = b.getAndIncrement();
                if (id < b.end) {
                    return id;
                }
            }
            try {
                long rc = Fast.idmint_jvm_fast_segment_block(handle, wait ? 1 : 0, granted);
                if (rc < 0) {
                    throw Fast.fail(rc);
                }
            } finally {
                Reference.reachabilityFence(inner);
            }
            block = new Block(granted[0] + 1, granted[1]);
            return granted[0];
        }
    }
}
