package io.idmint;

import java.time.Duration;

/**
 * Counters of one segment tag in a {@link SegmentClient}, as the core keeps them.
 *
 * @param tag the tag as stored (the default tag's name when this tag falls back to it)
 * @param remaining IDs left in memory: the rest of the core's current range and the next one
 *     if fetched, plus (from {@link SegmentTag#metrics()}) the block the calling thread holds
 * @param step the step of the last range fetched (grows and shrinks with the rate of use)
 * @param refills ranges fetched from the store
 * @param lastRefillLatency the last successful refill, from request to answer
 * @param maxRefillLatency the slowest successful refill
 * @param meanRefillLatency the mean successful refill
 * @param storeErrors failed store calls (each retry counts)
 * @param lastError the last store error, or {@code null}
 */
public record TagMetrics(String tag, long remaining, long step, long refills, Duration lastRefillLatency,
        Duration maxRefillLatency, Duration meanRefillLatency, long storeErrors, String lastError) {

    static TagMetrics of(io.idmint.ffi.TagMetrics m, long heldHere) {
        return new TagMetrics(m.tag(), m.remaining() + heldHere, m.step(), m.refills(),
                Duration.ofNanos(m.lastRefillUs() * 1000), Duration.ofNanos(m.maxRefillUs() * 1000),
                Duration.ofNanos(m.meanRefillUs() * 1000), m.storeErrors(), m.lastError());
    }
}
