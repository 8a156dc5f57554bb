package io.idmint.spring;

import io.idmint.Observation;
import io.idmint.SegmentClient;
import io.idmint.Snowflake;
import io.idmint.TagMetrics;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.actuate.health.AbstractHealthIndicator;
import org.springframework.boot.actuate.health.Health;

/**
 * Actuator health of the generator beans ({@code /actuator/health}, component {@code idmint}):
 * DOWN while the snowflake generator does not hold its node value's lease (the core reports
 * {@code idmint.lease.held} 0: it refuses to mint until it holds one again), and while a segment
 * tag has no buffered IDs left and the store's last call failed (callers then wait on a store
 * that does not answer). The details show the node values and the lease, and each tag's
 * buffer and store errors.
 */
public final class IdmintHealthIndicator extends AbstractHealthIndicator {
    private final Snowflake snowflake;
    private final SegmentClient segments;

    /** Over either bean, or both; {@code null} for one the context has not. */
    public IdmintHealthIndicator(Snowflake snowflake, SegmentClient segments) {
        super("idmint health check failed");
        this.snowflake = snowflake;
        this.segments = segments;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        boolean up = true;
        if (snowflake != null) {
            Map<String, Object> details = new LinkedHashMap<>();
            details.put("layout", snowflake.layout().toString());
            details.put("nodes", snowflake.nodes());
            Map<String, Object> lease = new LinkedHashMap<>();
            for (Observation o : snowflake.observe()) {
                switch (o.metric()) {
                    case "idmint.lease.held" -> {
                        lease.put("held", o.value() == 1);
                        up &= o.value() == 1;
                    }
                    case "idmint.lease.fence" -> lease.put("fenceSeconds", (long) o.value());
                    case "idmint.lease.renew.failures" -> lease.put("renewFailures", (long) o.value());
                    default -> { }
                }
            }
            if (!lease.isEmpty()) {
                details.put("lease", lease);
            }
            builder.withDetail("snowflake", details);
        }
        if (segments != null) {
            Map<String, Object> tags = new LinkedHashMap<>();
            for (TagMetrics m : segments.metrics()) {
                Map<String, Object> tag = new LinkedHashMap<>();
                tag.put("remaining", m.remaining());
                tag.put("storeErrors", m.storeErrors());
                if (m.lastError() != null) {
                    tag.put("lastError", m.lastError());
                }
                boolean starved = m.remaining() == 0 && m.lastError() != null;
                up &= !starved;
                tags.put(m.tag(), tag);
            }
            builder.withDetail("segment", Map.of("store", segments.store(), "tags", tags));
        }
        if (up) {
            builder.up();
        } else {
            builder.down();
        }
    }
}
