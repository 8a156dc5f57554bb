package io.idmint;

import java.lang.ref.Reference;
import java.util.concurrent.CompletableFuture;

/**
 * A cached segment tag of a {@link SegmentClient} ({@link SegmentClient#tag(String)}): its IDs
 * only grow, and no process drawing from the same store and tag gets one of them. Thread-safe.
 *
 * <p>{@link #nextId()} serves IDs from a block that the core granted the calling thread (a
 * quarter of the tag's step, at most 1024 IDs, taken from the core's buffered ranges): a compare
 * and an add on that thread's own block, no native call, until the block is used up. So IDs grow
 * on each thread, and across threads they are unique but not in call order. A block's unused
 * IDs are skipped when the client closes or the thread ends, never handed out again.
 */
public final class SegmentTag {
    private final SegmentClient client;
    private final io.idmint.ffi.SegmentTag inner;
    /** The Rust handle inside {@code inner}; valid while {@code inner} is reachable. */
    private final long handle;
    private final String name;
    /** Set by {@link SegmentClient#close()}: no block is served any more. */
    volatile boolean closed;
    /**
     * Each thread's block: IDs {@code next..end} the core granted to that thread. Plain fields,
     * read and written by their thread only: the hot path is a compare and an add, no atomic
     * instruction and no sharing between threads.
     */
    private final ThreadLocal<Block> blocks = ThreadLocal.withInitial(Block::new);

    private static final class Block {
        long next;
        long end;
        final long[] granted = new long[2];
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
        Block b = blocks.get();
        long id = b.next;
        if (id < b.end && !closed) {
            b.next = id + 1;
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
        Block b = blocks.get();
        long id = b.next;
        if (id < b.end && !closed) {
            b.next = id + 1;
            return id;
        }
        return refill(b, false);
    }

    /**
     * {@code n} contiguous IDs (1..=2^40): from the calling thread's block when it holds that
     * many, else from the core (up to the tag's step from its buffered ranges, above it in one
     * store round trip), leaving the rest of the block unused so that this thread's IDs keep
     * growing. {@link InvalidArgumentException} for {@code n < 1}, and the errors of
     * {@link #nextId()}.
     */
    public LongRange nextIds(int n) {
        Block b = blocks.get();
        long first = b.next;
        if (n > 0 && n <= b.end - first && !closed) {
            b.next = first + n;
            return new LongRange(first, first + n);
        }
        io.idmint.ffi.IdRun run = Layout.call(() -> inner.nextIds(n));
        b.next = b.end;
        return new LongRange(run.start(), run.end());
    }

    /**
     * {@link #nextId()}: completed at once while the calling thread's block has IDs, else run on
     * idmint's daemon threads.
     */
    public CompletableFuture<Long> nextIdAsync() {
        Block b = blocks.get();
        long id = b.next;
        if (id < b.end && !closed) {
            b.next = id + 1;
            return CompletableFuture.completedFuture(id);
        }
        return Async.run(this::nextId);
    }

    /** {@link #nextIds(int)} on idmint's daemon threads. */
    public CompletableFuture<LongRange> nextIdsAsync(int n) {
        return Async.run(() -> nextIds(n));
    }

    /** The tag as stored (the default tag's name when this tag falls back to it). */
    public String name() {
        return name;
    }

    /** The tag's counters; {@code remaining} counts the calling thread's block too. */
    public TagMetrics metrics() {
        Block b = blocks.get();
        return TagMetrics.of(inner.metrics(), Math.max(0, b.end - b.next));
    }

    /** The client this handle belongs to. */
    public SegmentClient client() {
        return client;
    }

    @Override
    public String toString() {
        return "SegmentTag(" + name + ")";
    }

    /** This thread's block is used up: the first ID of a new one the core grants. */
    private long refill(Block b, boolean wait) {
        if (closed) {
            // The core says why (closed), in its words; an ID it still gives is a valid one.
            return Layout.call(inner::nextId);
        }
        long[] granted = b.granted;
        try {
            long rc = Fast.idmint_jvm_fast_segment_block(handle, wait ? 1 : 0, granted);
            if (rc < 0) {
                throw Fast.fail(rc);
            }
        } finally {
            Reference.reachabilityFence(inner);
        }
        b.next = granted[0] + 1;
        b.end = granted[1];
        return granted[0];
    }
}
