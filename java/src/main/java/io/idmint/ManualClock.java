package io.idmint;

import io.idmint.ffi.FfiException;

/**
 * A clock that moves only when told, for tests: a {@link Snowflake} built on it
 * ({@link Snowflake.Builder#clock(ManualClock)}) mints deterministic IDs, and setting it back
 * shows the rollback policy at work. When a generator waits on it, it moves itself forward.
 */
public final class ManualClock {
    static {
        NativeLibrary.ensureLoaded();
    }

    final io.idmint.ffi.ManualClock inner;

    /** A clock reading {@code nowMs} (unix ms). */
    public ManualClock(long nowMs) {
        this.inner = Layout.call(() -> new io.idmint.ffi.ManualClock(nowMs));
    }

    /** The time it reads, unix ms. */
    public long nowMs() {
        return Layout.call(inner::nowMs);
    }

    /** Set it to {@code nowMs}, forwards or backwards. */
    public void setMs(long nowMs) {
        try {
            inner.setMs(nowMs);
        } catch (FfiException e) {
            throw NativeLibrary.rethrow(e);
        }
    }

    /** Move it forwards by {@code ms}. */
    public void advanceMs(long ms) {
        try {
            inner.advanceMs(ms);
        } catch (FfiException e) {
            throw NativeLibrary.rethrow(e);
        }
    }
}
