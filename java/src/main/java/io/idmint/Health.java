package io.idmint;

import java.util.ArrayList;
import java.util.List;

/**
 * Whether a process's generators can hand out IDs, as the core decides it from their
 * observations ({@link Metrics#health(List)}; the rule is {@code idmint_core::health}, the one
 * the Python and Node packages and {@code idmint serve}'s {@code /readyz} apply): down while a
 * snowflake generator does not hold its node value's lease, or while a segment tag has no IDs
 * buffered and failed store calls; degraded while a snowflake layout has less than a year left
 * before its time field runs out (it still mints).
 *
 * @param status up, degraded or down
 * @param reasons why it is not up, one sentence per cause (empty when up)
 * @param lease the snowflake lease, or {@code null} when no generator observed has one
 * @param tags each segment tag, in the order observed
 */
public record Health(Status status, List<String> reasons, Lease lease, List<Tag> tags) {
    /** Up, degraded or down. */
    public enum Status {
        /** Every generator observed can hand out IDs. */
        UP,
        /** Every generator can hand out IDs, but a layout is within a year of its end. */
        DEGRADED,
        /** One cannot: {@link Health#reasons()} says which and why. */
        DOWN
    }

    /**
     * The snowflake lease as observed (several generators: the lowest {@code held}, the fence that
     * ends first, renewal failures added up).
     *
     * @param held true while the lease is held
     * @param fenceSeconds the lease's fence in the store, unix seconds, or {@code null} when not observed
     * @param renewFailures renewals that failed so far, or {@code null} when not observed
     */
    public record Lease(boolean held, Double fenceSeconds, Long renewFailures) {}

    /**
     * One segment tag as observed (several clients: IDs buffered and store errors added up).
     *
     * @param tag the tag
     * @param remaining IDs buffered in memory
     * @param storeErrors failed store calls
     * @param starved nothing buffered and store calls failed: this tag makes the health down
     */
    public record Tag(String tag, long remaining, long storeErrors, boolean starved) {}

    /** Whether the generators can hand out IDs: {@link Status#UP} or {@link Status#DEGRADED}. */
    public boolean isUp() {
        return status != Status.DOWN;
    }

    static Health of(io.idmint.ffi.Health h) {
        io.idmint.ffi.LeaseHealth l = h.lease();
        Lease lease = l == null ? null : new Lease(l.held(), l.fenceS(), l.renewFailures());
        List<Tag> tags = new ArrayList<>();
        for (io.idmint.ffi.TagHealth t : h.tags()) {
            tags.add(new Tag(t.tag(), t.remaining(), t.storeErrors(), t.starved()));
        }
        Status status = Status.valueOf(h.status().toUpperCase(java.util.Locale.ROOT));
        return new Health(status, List.copyOf(h.reasons()), lease, List.copyOf(tags));
    }
}
