package io.idmint;

import java.time.Instant;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The answer of {@link Idmint#checkMigration(Layout, Layout, Long, Instant)}: whether every ID
 * the new layout mints from the switch on sorts above every ID the old one minted (so keys stay
 * unique and in order), and from when that holds.
 *
 * <p>{@link #oldMax()} and {@link #newFirst()} are IDs: for an unsigned layout a {@code long}
 * holds their 64 bits and is negative from 2^63 on, as everywhere in this package;
 * {@link #oldMaxText()} and {@link #newFirstText()} show them in decimal.
 *
 * @param safe          whether every ID the new layout mints from the switch on is above {@code oldMax}
 * @param switchMs      the switch: the first instant the new layout mints, unix ms
 * @param oldMax        the largest ID of the old layout: the one given, or else the largest it can
 *                      have minted before the switch (every node and sequence bit set)
 * @param newFirst      the smallest ID the new layout can mint at the switch (node and sequence 0)
 * @param safeFromMs    the first instant the new layout mints only IDs above {@code oldMax}, unix ms
 *                      (a generator built with {@link Snowflake.Builder#startAbove(long)} starts
 *                      there); empty when its time field runs out first
 * @param safeFromText  the same as RFC 3339
 */
public record Migration(boolean safe, long switchMs, long oldMax, long newFirst, OptionalLong safeFromMs,
        Optional<String> safeFromText) {

    static Migration of(io.idmint.ffi.Migration m) {
        Long from = m.safeFromMs();
        return new Migration(m.safe(), m.switchMs(), m.oldMax(), m.newFirst(),
                from == null ? OptionalLong.empty() : OptionalLong.of(from), Optional.ofNullable(m.safeFrom()));
    }

    /** {@link #switchMs()} as an {@link Instant}. */
    public Instant switchTime() {
        return Instant.ofEpochMilli(switchMs);
    }

    /** {@link #safeFromMs()} as an {@link Instant}; empty when the new layout never passes {@code oldMax}. */
    public Optional<Instant> safeFrom() {
        return safeFromMs.isPresent() ? Optional.of(Instant.ofEpochMilli(safeFromMs.getAsLong())) : Optional.empty();
    }

    /** {@link #oldMax()} in decimal, read as unsigned (up to 18446744073709551615). */
    public String oldMaxText() {
        return Long.toUnsignedString(oldMax);
    }

    /** {@link #newFirst()} in decimal, read as unsigned (up to 18446744073709551615). */
    public String newFirstText() {
        return Long.toUnsignedString(newFirst);
    }
}
