package io.idmint;

import io.idmint.ffi.Uuid7Info;
import java.time.Instant;
import java.util.Objects;
import java.util.UUID;

/**
 * A version-7 UUID (RFC 9562): 48-bit unix milliseconds, a 12-bit counter ({@code rand_a}) and
 * 62 random bits ({@code rand_b}), sortable by time; with its ULID text form (the same 128 bits
 * in 26 Crockford base32 characters, which sort the same way). Immutable; equal when the 128 bits
 * are; ordered by them, which is time order.
 *
 * <pre>{@code
 * UUID id = Uuid7.generate();                       // strictly increasing within the process
 * Uuid7 u = Uuid7.parse("017f22e2-79b0-7cc3-98c4-dc0c0c07398f");
 * u.time();                                         // 2022-02-22T19:22:22Z
 * u.toUlid();                                       // 01FWHE4YDGFK1SHH6W1G60EECF
 * }</pre>
 */
public final class Uuid7 implements Comparable<Uuid7> {
    static {
        NativeLibrary.ensureLoaded();
    }

    /** The process-wide generator behind {@link #generate()}, made on first use. */
    private static final class Default {
        static final Uuid7Generator GENERATOR = new Uuid7Generator();
    }

    private final long msb;
    private final long lsb;
    private final long timeMs;
    private final String timeText;
    private final int randA;
    private final long randB;
    private final String text;
    private final String ulid;

    private Uuid7(Uuid7Info i) {
        this.msb = i.msb();
        this.lsb = i.lsb();
        this.timeMs = i.timeMs();
        this.timeText = i.time();
        this.randA = i.randA();
        this.randB = i.randB();
        this.text = i.text();
        this.ulid = i.ulid();
    }

    static Uuid7 of(Uuid7Info info) {
        return new Uuid7(info);
    }

    /**
     * A new UUIDv7 from one generator per process (on the monotonic clock): every one is greater
     * than every earlier one, on any thread.
     */
    public static UUID generate() {
        return Default.GENERATOR.next();
    }

    /**
     * Read a UUIDv7: hyphenated ({@code 8-4-4-4-12}) or 32 hex digits, either case.
     * {@link InvalidUuidException} for anything else, or a UUID of another version or variant.
     */
    public static Uuid7 parse(String text) {
        Objects.requireNonNull(text, "text");
        return new Uuid7(Layout.call(() -> io.idmint.ffi.IdmintJvm.uuid7Parse(text)));
    }

    /**
     * Read the 26-character ULID text of a UUIDv7 (Crockford base32, either case).
     * {@link InvalidUuidException} for a ULID whose bits are not a UUIDv7 (one from another ULID
     * generator).
     */
    public static Uuid7 parseUlid(String ulid) {
        Objects.requireNonNull(ulid, "ulid");
        return new Uuid7(Layout.call(() -> io.idmint.ffi.IdmintJvm.uuid7ParseUlid(ulid)));
    }

    /** The UUIDv7 of a {@link UUID}; {@link InvalidUuidException} unless it is version 7, variant {@code 10}. */
    public static Uuid7 of(UUID uuid) {
        Objects.requireNonNull(uuid, "uuid");
        return new Uuid7(Layout.call(() -> io.idmint.ffi.IdmintJvm.uuid7FromBits(
                uuid.getMostSignificantBits(), uuid.getLeastSignificantBits())));
    }

    /** The same 128 bits as a {@link UUID}. */
    public UUID toUuid() {
        return new UUID(msb, lsb);
    }

    /** The timestamp, unix milliseconds (below 2^48). */
    public long timeMs() {
        return timeMs;
    }

    /** The timestamp. */
    public Instant time() {
        return Instant.ofEpochMilli(timeMs);
    }

    /** The timestamp in RFC 3339 with milliseconds, e.g. {@code 2022-02-22T19:22:22.000Z} (capped at year 9999). */
    public String timeText() {
        return timeText;
    }

    /** The 12 bits after the version: the counter, for UUIDs from a {@link Uuid7Generator}. */
    public int randA() {
        return randA;
    }

    /** The 62 bits after the variant. */
    public long randB() {
        return randB;
    }

    /** The ULID text: 26 Crockford base32 characters, upper case. */
    public String toUlid() {
        return ulid;
    }

    /** Hyphenated, lower case, as {@link UUID#toString()}. */
    @Override
    public String toString() {
        return text;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Uuid7 u && u.msb == msb && u.lsb == lsb;
    }

    @Override
    public int hashCode() {
        return toUuid().hashCode();
    }

    /** By the unsigned 128-bit value: time order. */
    @Override
    public int compareTo(Uuid7 o) {
        int c = Long.compareUnsigned(msb, o.msb);
        return c != 0 ? c : Long.compareUnsigned(lsb, o.lsb);
    }
}
