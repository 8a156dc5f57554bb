package io.idmint;

import io.idmint.ffi.IdmintJvm;
import io.idmint.ffi.ObjectIdInfo;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;

/**
 * A 12-byte ID byte-compatible with MongoDB's ObjectId: 4-byte big-endian unix seconds, 5-byte
 * per-process random value, 3-byte counter. IDs made in one process never repeat. Immutable;
 * ordered by bytes (so by time first), as MongoDB orders them.
 *
 * <pre>{@code
 * ObjectId oid = new ObjectId();
 * String hex = oid.toHexString();                       // 24 lowercase hex characters
 * ObjectId same = new ObjectId(hex);                    // or ObjectId.parse(hex)
 * long seconds = oid.getTimestamp();
 * }</pre>
 */
public final class ObjectId implements Comparable<ObjectId>, Serializable {
    private static final long serialVersionUID = 1L;

    static {
        NativeLibrary.ensureLoaded();
    }

    private final byte[] bytes;
    private transient String hex;

    /** How many ObjectIds a thread takes from the core in one call (the core's {@code ObjectId::BLOCK_LEN}). */
    private static final int BLOCK = IdmintJvm.objectIdBlockLen();

    /** Each thread's block of new ObjectIds, made by the core's process-wide generator in one call. */
    private static final ThreadLocal<Block> BLOCKS = ThreadLocal.withInitial(Block::new);

    /** A run of ObjectIds for one thread, and when it goes stale. */
    private static final class Block {
        final byte[] bytes = new byte[12 * BLOCK];
        /** The end of the IDs the core wrote (a block stops at the end of its second's counters). */
        int end;
        int next;
        /** {@link Ticker#seconds} before the block was made: it is dropped once that moved on. */
        long second = Long.MIN_VALUE;
    }

    /**
     * A new ObjectId from the process-wide generator. Each thread takes them from the core
     * 128 at a time and drops the rest of a block when the system clock's second has passed
     * (a daemon thread, {@code idmint-ticker}, watches it), so the time in an ObjectId is that
     * of the call (to the second, give or take how late the system wakes that thread); the ones
     * dropped are never issued. On one thread they come in counter order; across threads, not in call
     * order (MongoDB's own drivers give no such order either).
     */
    public ObjectId() {
        Block b = BLOCKS.get();
        int at = b.next;
        if (at == b.end || b.second != Ticker.seconds) {
            refill(b);
            at = 0;
        }
        b.next = at + 12;
        this.bytes = Arrays.copyOfRange(b.bytes, at, at + 12);
    }

    private static void refill(Block b) {
        b.next = b.end = 0;
        long second = Ticker.seconds;
        long rc = Jni.objectIds(b.bytes);
        if (rc < 0) {
            throw Fast.fail(rc);
        }
        b.end = 12 * (int) rc;
        b.second = second;
        Ticker.used();
        b.next = 0;
    }

    /** Read 24 hex characters (either case); {@link InvalidObjectIdException} if not. */
    public ObjectId(String hex) {
        this.bytes = Layout.call(() -> IdmintJvm.objectIdParse(hex));
    }

    /** The ObjectId in these 12 bytes (copied); {@link InvalidObjectIdException} if not 12. */
    public ObjectId(byte[] bytes) {
        this.bytes = Layout.call(() -> IdmintJvm.objectIdCheck(bytes.clone()));
    }

    /** A new ObjectId, as {@code new ObjectId()}. */
    public static ObjectId get() {
        return new ObjectId();
    }

    /** Read 24 hex characters (either case); {@link InvalidObjectIdException} if not. */
    public static ObjectId parse(String hex) {
        return new ObjectId(hex);
    }

    /** Whether {@code hex} is 24 hex characters. */
    public static boolean isValid(String hex) {
        try {
            IdmintJvm.objectIdParse(hex);
            return true;
        } catch (io.idmint.ffi.FfiException e) {
            return false;
        }
    }

    /** 24 lowercase hex characters. */
    public String toHexString() {
        String h = hex;
        if (h == null) {
            byte[] out = new byte[24];
            long rc = Fast.idmint_jvm_fast_object_id_hex(bytes, out);
            if (rc < 0) {
                throw Fast.fail(rc);
            }
            h = new String(out, StandardCharsets.US_ASCII);
            hex = h;
        }
        return h;
    }

    /** The 12 bytes (a copy). */
    public byte[] toByteArray() {
        return bytes.clone();
    }

    /**
     * Seconds since the Unix epoch when it was made: unsigned 32 bits, so {@code 0..4294967295}
     * (MongoDB's Java driver returns the same bits as a signed {@code int}).
     */
    public long getTimestamp() {
        return info().timestamp();
    }

    /** {@link #getTimestamp()} as an {@link Instant}. */
    public Instant getDate() {
        return Instant.ofEpochSecond(getTimestamp());
    }

    /** {@link #getTimestamp()} as RFC 3339 UTC, e.g. {@code 2012-10-17T21:13:27Z}. */
    public String timeText() {
        return info().time();
    }

    /** The 5-byte per-process random value. */
    public byte[] random() {
        return info().random();
    }

    /** The 3-byte counter, {@code 0..16777215}. */
    public int counter() {
        return info().counter();
    }

    private ObjectIdInfo info() {
        return Layout.call(() -> IdmintJvm.objectIdInfo(bytes));
    }

    /** Unsigned byte order: earlier seconds first, as MongoDB sorts. */
    @Override
    public int compareTo(ObjectId o) {
        return Arrays.compareUnsigned(bytes, o.bytes);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ObjectId other && Arrays.equals(bytes, other.bytes);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(bytes);
    }

    /** Checks a deserialized ObjectId like any other: 12 bytes. */
    private Object readResolve() {
        return new ObjectId(bytes);
    }

    /** The hex form, as {@link #toHexString()}. */
    @Override
    public String toString() {
        return toHexString();
    }
}
