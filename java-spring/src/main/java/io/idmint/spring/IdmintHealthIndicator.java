package io.idmint.spring;

import io.idmint.Health;
import io.idmint.Metrics;
import io.idmint.Observation;
import io.idmint.SegmentClient;
import io.idmint.Snowflake;
import io.idmint.TagMetrics;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.actuate.health.AbstractHealthIndicator;

/**
 * Actuator health of the generator beans ({@code /actuator/health}, component {@code idmint}):
 * the core's health of their observations ({@link Metrics#health(List)}, the rule every idmint
 * package and {@code idmint serve}'s {@code /readyz} apply): DOWN while the snowflake generator
 * does not hold its node value's lease (it refuses to mint until it holds one again), and while
 * a segment tag has no buffered IDs left and the store's calls failed (callers then wait on a
 * store that does not answer); DEGRADED ({@link #DEGRADED}) while its layout is within a year of
 * its end (it still mints). The details show the core's reasons when DOWN, the node values
 * and the lease, and each tag's buffer and store errors; this class only lays them out.
 */
public final class IdmintHealthIndicator extends AbstractHealthIndicator {
    /**
     * The status of a layout within a year of its end: it still mints. Spring Boot's aggregate
     * leaves a status out of its order list, so list it there to have it rise to the top:
     * {@code management.endpoint.health.status.order=down,out-of-service,degraded,up,unknown};
     * HTTP 200 unless mapped otherwise.
     */
    public static final org.springframework.boot.actuate.health.Status DEGRADED =
            new org.springframework.boot.actuate.health.Status("DEGRADED", "a snowflake layout is within a year of its end");

    private final Snowflake snowflake;
    private final SegmentClient segments;

    /** Over either bean, or both; {@code null} for one the context has not. */
    public IdmintHealthIndicator(Snowflake snowflake, SegmentClient segments) {
        super("idmint health check failed");
        this.snowflake = snowflake;
        this.segments = segments;
    }

    @Override
    protected void doHealthCheck(org.springframework.boot.actuate.health.Health.Builder builder) {
        List<Observation> observed = new ArrayList<>();
        if (snowflake != null) {
            observed.addAll(snowflake.observe());
        }
        if (segments != null) {
            observed.addAll(segments.observe());
        }
        Health health = Metrics.health(observed);
        if (!health.reasons().isEmpty()) {
            builder.withDetail("reasons", health.reasons());
        }
        if (snowflake != null) {
            Map<String, Object> details = new LinkedHashMap<>();
            details.put("layout", snowflake.layout().toString());
            details.put("nodes", snowflake.nodes());
            Health.Lease l = health.lease();
            if (l != null) {
                Map<String, Object> lease = new LinkedHashMap<>();
                lease.put("held", l.held());
                if (l.fenceSeconds() != null) {
                    lease.put("fenceSeconds", l.fenceSeconds().longValue());
                }
                if (l.renewFailures() != null) {
                    lease.put("renewFailures", l.renewFailures());
                }
                details.put("lease", lease);
            }
            builder.withDetail("snowflake", details);
        }
        if (segments != null) {
            // The last store error is a detail the observations do not carry: from the client's metrics.
            Map<String, String> lastErrors = new LinkedHashMap<>();
            for (TagMetrics m : segments.metrics()) {
                if (m.lastError() != null) {
                    lastErrors.put(m.tag(), m.lastError());
                }
            }
            Map<String, Object> tags = new LinkedHashMap<>();
            for (Health.Tag t : health.tags()) {
                Map<String, Object> tag = new LinkedHashMap<>();
                tag.put("remaining", t.remaining());
                tag.put("storeErrors", t.storeErrors());
                tag.put("starved", t.starved());
                if (lastErrors.containsKey(t.tag())) {
                    tag.put("lastError", lastErrors.get(t.tag()));
                }
                tags.put(t.tag(), tag);
            }
            builder.withDetail("segment", Map.of("store", segments.store(), "tags", tags));
        }
        switch (health.status()) {
            case UP -> builder.up();
            // Still serving: a status of its own, which the application orders among the others
            // (management.endpoint.health.status.order=down,out-of-service,degraded,up,unknown).
            case DEGRADED -> builder.status(DEGRADED);
            case DOWN -> builder.down();
        }
    }
}
