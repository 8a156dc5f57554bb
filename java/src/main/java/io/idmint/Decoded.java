package io.idmint;

import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * An ID of any format taken apart by {@link Idmint#parse(String)}: its format, canonical text,
 * time and named parts.
 *
 * <pre>{@code
 * Decoded d = Idmint.parse("175928847299117063", "discord");
 * d.format();                 // "snowflake"
 * d.time();                   // Optional[2016-04-30T11:18:25.796Z]
 * d.number("worker");         // OptionalLong[1]
 * Idmint.parse("01ARZ3NDEKTSV4RRFFQ69G5FAV").text("random");   // Optional[d6764c61efb99302bd5b]
 * }</pre>
 *
 * @param format   {@code snowflake}, {@code integer}, {@code objectid}, {@code uuid}, {@code ulid},
 *                 {@code ksuid}, {@code xid} or {@code tsid}
 * @param id       the ID in its canonical text
 * @param value    the ID's 64 bits, for the formats that are a 64-bit integer (snowflake, integer,
 *                 tsid): unsigned, so negative from 2^63 on ({@link #valueText()} shows it)
 * @param timeMs   the time the ID carries, unix milliseconds (floored), if it has one
 * @param timeText that time as RFC 3339 UTC at the format's precision (seconds, milliseconds or
 *                 100 ns); empty without a time or outside the years 1 to 9999
 * @param parts    the named parts, most significant first: {@code Long}s, or {@code String}s for
 *                 hex bytes and names (unmodifiable)
 * @param layout   the layout a snowflake was read with: its preset name or spec
 */
public record Decoded(
        String format,
        String id,
        OptionalLong value,
        OptionalLong timeMs,
        Optional<String> timeText,
        Map<String, Object> parts,
        Optional<String> layout) {

    static Decoded of(io.idmint.ffi.DecodedId d) {
        Map<String, Object> parts = new LinkedHashMap<>();
        for (io.idmint.ffi.DecodedPart p : d.parts()) {
            parts.put(p.name(), p.number() != null ? (Object) p.number() : p.text());
        }
        return new Decoded(
                d.format(),
                d.id(),
                d.value() == null ? OptionalLong.empty() : OptionalLong.of(d.value()),
                d.timeMs() == null ? OptionalLong.empty() : OptionalLong.of(d.timeMs()),
                Optional.ofNullable(d.time()),
                Collections.unmodifiableMap(parts),
                Optional.ofNullable(d.layout()));
    }

    /** The time as an {@link Instant} (millisecond precision), when {@link #timeText()} has one. */
    public Optional<Instant> time() {
        return timeText.isPresent() && timeMs.isPresent()
                ? Optional.of(Instant.ofEpochMilli(timeMs.getAsLong()))
                : Optional.empty();
    }

    /** {@link #value()} as unsigned decimal text ({@link Long#toUnsignedString(long)}). */
    public Optional<String> valueText() {
        return value.isPresent() ? Optional.of(Long.toUnsignedString(value.getAsLong())) : Optional.empty();
    }

    /** The part called {@code name} if it is a number. */
    public OptionalLong number(String name) {
        return parts.get(name) instanceof Long n ? OptionalLong.of(n) : OptionalLong.empty();
    }

    /** The part called {@code name} if it is text. */
    public Optional<String> text(String name) {
        return parts.get(name) instanceof String s ? Optional.of(s) : Optional.empty();
    }

    @Override
    public String toString() {
        return format + " " + id + timeText.map(t -> " " + t).orElse("") + " " + parts
                + layout.map(l -> " (" + l + ")").orElse("");
    }
}
