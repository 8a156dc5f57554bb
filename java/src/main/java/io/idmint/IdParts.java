package io.idmint;

import java.time.Instant;
import java.util.Map;

/**
 * An ID taken apart by its layout.
 *
 * @param timeMs   the start of the ID's tick, unix milliseconds
 * @param timeText the same as RFC 3339 UTC with milliseconds, e.g. {@code 2015-03-13T02:00:00.000Z}
 * @param nodes    each node field's value, in layout order (unmodifiable)
 * @param sequence the sequence number within the tick
 */
public record IdParts(long timeMs, String timeText, Map<String, Long> nodes, long sequence) {
    /** The ID's time as an {@link Instant}. */
    public Instant time() {
        return Instant.ofEpochMilli(timeMs);
    }
}
