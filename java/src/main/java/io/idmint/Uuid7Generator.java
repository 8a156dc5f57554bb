package io.idmint;

import java.lang.ref.Reference;
import java.util.UUID;

/**
 * A UUIDv7 generator: thread-safe and lock-free; every UUID it returns is greater than every one
 * it returned before, on any thread (RFC 9562 §6.2 method 1: a 12-bit counter seeded randomly
 * each millisecond, carrying into the timestamp under more than ~2 M UUIDs per second, and riding
 * out a clock that steps back). {@link Uuid7#generate()} uses one per process.
 *
 * <pre>{@code
 * Uuid7Generator gen = new Uuid7Generator();
 * UUID id = gen.next();
 * String ulid = gen.nextUlid();    // 26 characters, e.g. 01HY8Z...
 * }</pre>
 */
public final class Uuid7Generator {
    static {
        NativeLibrary.ensureLoaded();
    }

    private final io.idmint.ffi.Uuid7Generator inner;
    /** The Rust generator inside {@code inner}; valid while {@code inner} is reachable. */
    private final long handle;

    /** A generator on the monotonic clock. */
    public Uuid7Generator() {
        this(null);
    }

    /** A generator on a {@link ManualClock} (for tests), or the monotonic clock if {@code null}. */
    public Uuid7Generator(ManualClock clock) {
        this.inner = new io.idmint.ffi.Uuid7Generator(clock == null ? null : clock.inner);
        this.handle = inner.fastHandle();
    }

    /** The next UUID. Fails ({@link TimeOutOfRangeException}) only past the year 10889. */
    public UUID next() {
        long[] out = new long[2];
        try {
            long rc = Fast.idmint_jvm_fast_uuid7_next(handle, out);
            if (rc < 0) {
                throw Fast.fail(rc);
            }
            return new UUID(out[0], out[1]);
        } finally {
            Reference.reachabilityFence(inner);
        }
    }

    /** The next UUID as a {@link Uuid7}, with its time and fields. */
    public Uuid7 nextUuid7() {
        return Uuid7.of(Layout.call(inner::next));
    }

    /** The next UUID's ULID text: 26 Crockford base32 characters. */
    public String nextUlid() {
        return Layout.call(inner::nextUlid);
    }
}
