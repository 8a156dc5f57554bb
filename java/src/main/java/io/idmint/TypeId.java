package io.idmint;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;

/**
 * A TypeID (spec v0.3): a type prefix and a UUID, written {@code prefix_} and the UUID in 26
 * characters of base32, e.g. {@code user_01h455vb4pex5vsknk084sn02q}. Immutable; equal when
 * their texts are; ordered by prefix, then UUID (so the TypeIDs of one prefix from a
 * {@link TypeIdGenerator} sort by time).
 *
 * <pre>{@code
 * TypeId t = TypeId.parse("user_01h455vb4pex5vsknk084sn02q");
 * t.prefix();                   // user
 * t.uuid();                     // 01890a5d-ac96-774b-bcce-b302099a8057
 * t.time();                     // Optional[2023-06-29T21:39:57.974Z] (a UUIDv7 inside)
 * TypeId.fromUuid("user", t.uuid()).equals(t);   // true
 * }</pre>
 */
public final class TypeId implements Comparable<TypeId> {
    static {
        NativeLibrary.ensureLoaded();
    }

    private final String text;
    private final String prefix;
    private final String suffix;
    private final long msb;
    private final long lsb;
    private final Long timeMs;

    private TypeId(io.idmint.ffi.TypeIdInfo t) {
        this.text = t.text();
        this.prefix = t.prefix();
        this.suffix = t.suffix();
        this.msb = t.msb();
        this.lsb = t.lsb();
        this.timeMs = t.timeMs();
    }

    static TypeId of(io.idmint.ffi.TypeIdInfo t) {
        return new TypeId(t);
    }

    /**
     * Read a TypeID's text. {@link InvalidIdException} for anything the TypeID spec refuses (an
     * upper-case or too long prefix, a suffix that is not 26 base32 characters or overflows 128
     * bits, ...), naming what is wrong.
     */
    public static TypeId parse(String text) {
        return new TypeId(Layout.call(() -> io.idmint.ffi.IdmintJvm.typeidParse(Objects.requireNonNull(text, "text"))));
    }

    /**
     * The TypeID of {@code prefix} (0 to 63 of {@code a-z} and {@code _}, not first or last;
     * {@code ""} for none) and {@code uuid} (any version). {@link InvalidArgumentException} for a
     * prefix the spec refuses, naming the character and its position.
     */
    public static TypeId fromUuid(String prefix, UUID uuid) {
        Objects.requireNonNull(prefix, "prefix");
        Objects.requireNonNull(uuid, "uuid");
        return new TypeId(Layout.call(() -> io.idmint.ffi.IdmintJvm.typeidFromUuid(
                prefix, uuid.getMostSignificantBits(), uuid.getLeastSignificantBits())));
    }

    /** The type prefix ({@code ""} for none). */
    public String prefix() {
        return prefix;
    }

    /** The 26-character base32 suffix. */
    public String suffix() {
        return suffix;
    }

    /** The UUID. */
    public UUID uuid() {
        return new UUID(msb, lsb);
    }

    /** The time of a UUIDv7 inside; empty for a UUID of another version. */
    public Optional<Instant> time() {
        return timeMs == null ? Optional.empty() : Optional.of(Instant.ofEpochMilli(timeMs));
    }

    /** The TypeID's text, {@code prefix_suffix} (the suffix alone for no prefix). */
    @Override
    public String toString() {
        return text;
    }

    /** TypeIDs are equal when their texts are (the same prefix and UUID). */
    @Override
    public boolean equals(Object o) {
        return o instanceof TypeId t && t.text.equals(text);
    }

    /** The hash of its text, consistent with {@link #equals(Object)}. */
    @Override
    public int hashCode() {
        return text.hashCode();
    }

    /** By prefix, then by UUID as an unsigned 128-bit number. */
    @Override
    public int compareTo(TypeId o) {
        int c = prefix.compareTo(o.prefix);
        if (c != 0) {
            return c;
        }
        c = Long.compareUnsigned(msb, o.msb);
        return c != 0 ? c : Long.compareUnsigned(lsb, o.lsb);
    }
}
