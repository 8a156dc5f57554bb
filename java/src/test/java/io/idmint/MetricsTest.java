package io.idmint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The core's metric table and observations as the facade carries them, and lease ranges as text. */
class MetricsTest {
    private static Observation find(List<Observation> all, String metric) {
        return all.stream().filter(o -> o.metric().equals(metric)).findFirst().orElseThrow(() -> new AssertionError(metric + " in " + all));
    }

    @Test
    void definitionsAreDocsTable() throws Exception {
        List<MetricDefinition> defs = Metrics.definitions();
        String doc = Files.readString(Path.of("..", "docs", "metrics.md"));
        for (MetricDefinition d : defs) {
            String row = "| `" + d.name() + "` | " + d.instrument() + " | `" + d.unit() + "` | " + d.description() + " |";
            assertTrue(doc.contains(row), "docs/metrics.md lacks " + row);
        }
        MetricDefinition issued = defs.get(0);
        assertEquals("idmint.ids.issued", issued.name());
        assertTrue(issued.isCounter());
        assertEquals(List.of("kind", "tag"), issued.attributes());
        assertTrue(defs.stream().anyMatch(d -> d.name().equals("idmint.lease.held") && !d.isCounter()));
    }

    @Test
    void snowflakeObservations() {
        try (Snowflake g = Snowflake.builder("sonyflake").node("machine", 9).build()) {
            g.nextIds(5);
            g.nextId();
            List<Observation> all = g.observe();
            Observation issued = find(all, "idmint.ids.issued");
            assertEquals(6.0, issued.value());
            assertEquals(Map.of("kind", "snowflake"), issued.attributes());
            // No lease: no lease state.
            assertEquals(List.of("idmint.ids.issued", "idmint.clock.rollbacks", "idmint.clock.waits", "idmint.clock.behind", "idmint.layout.remaining"),
                    all.stream().map(Observation::metric).collect(Collectors.toList()));
            g.close();
            assertThrows(ClosedException.class, g::observe);
        }
    }

    @Test
    void leasedSnowflakeObservations() throws Exception {
        String url = "sqlite:" + Processes.scratch("metrics").resolve("leases.db");
        try (Snowflake g = Snowflake.builder("twitter").lease(url).leaseRange("4..=5").leaseTtl(Duration.ofSeconds(5)).build()) {
            assertEquals(4L, g.nodes().get("worker"));
            g.nextId();
            List<Observation> all = g.observe();
            assertEquals(1.0, find(all, "idmint.lease.held").value());
            assertTrue(find(all, "idmint.lease.fence").value() > 1.7e9);
            assertEquals(0.0, find(all, "idmint.lease.renew.failures").value());
        }
        InvalidArgumentException e = assertThrows(InvalidArgumentException.class,
                () -> Snowflake.builder("twitter").lease(url).leaseRange("5..4"));
        assertTrue(e.getMessage().contains("5..4"), e.getMessage());
    }

    @Test
    void segmentObservations() {
        try (SegmentClient c = SegmentClient.connect("memory:")) {
            c.createTag(TagSpec.of("orders").step(100));
            for (int i = 0; i < 250; i++) {
                c.nextId("orders");
            }
            List<Observation> all = c.observe();
            Observation issued = find(all, "idmint.ids.issued");
            assertEquals(Map.of("kind", "segment", "tag", "orders"), issued.attributes());
            // Counted per range: at least what was handed out, at most what was fetched.
            assertTrue(issued.value() >= 250, issued.toString());
            Observation refills = find(all, "idmint.segment.refills");
            assertTrue(refills.value() >= 1, refills.toString());
            assertEquals(Map.of("tag", "orders"), refills.attributes());
            assertTrue(find(all, "idmint.segment.refill.time").value() > 0);
        }
    }
}
