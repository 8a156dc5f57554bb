package io.idmint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/** tests/vectors/health.json: the core's health rule through {@link Metrics#health(List)}, as every package runs it. */
class HealthTest {
    static List<Observation> observations(JsonNode c) {
        List<Observation> out = new ArrayList<>();
        for (JsonNode o : c.get("observations")) {
            Map<String, String> attrs = new LinkedHashMap<>();
            for (Iterator<Map.Entry<String, JsonNode>> it = o.get("attributes").fields(); it.hasNext();) {
                Map.Entry<String, JsonNode> a = it.next();
                attrs.put(a.getKey(), a.getValue().asText());
            }
            out.add(new Observation(o.get("metric").asText(), o.get("value").asDouble(), attrs));
        }
        return out;
    }

    static void check(Health h, JsonNode want, String name) {
        assertEquals(want.get("status").asText(), h.status().name().toLowerCase(), name);
        List<String> reasons = new ArrayList<>();
        want.get("reasons").forEach(r -> reasons.add(r.asText()));
        assertEquals(reasons, h.reasons(), name);
        JsonNode lease = want.get("lease");
        if (lease.isNull()) {
            assertNull(h.lease(), name);
        } else {
            assertEquals(lease.get("held").asBoolean(), h.lease().held(), name);
            JsonNode fence = lease.get("fence_s");
            assertEquals(fence.isNull() ? null : fence.asDouble(), h.lease().fenceSeconds(), name);
            JsonNode renew = lease.get("renew_failures");
            assertEquals(renew.isNull() ? null : renew.asLong(), h.lease().renewFailures(), name);
        }
        List<Health.Tag> tags = new ArrayList<>();
        for (JsonNode t : want.get("tags")) {
            tags.add(new Health.Tag(t.get("tag").asText(), t.get("remaining").asLong(),
                    t.get("store_errors").asLong(), t.get("starved").asBoolean()));
        }
        assertEquals(tags, h.tags(), name);
        assertEquals(h.status() == Health.Status.UP, h.reasons().isEmpty(), name);
        assertEquals(h.isUp(), h.status() != Health.Status.DOWN, name);
    }

    @TestFactory
    Stream<DynamicTest> vectors() throws Exception {
        JsonNode v = VectorsTest.load("health.json");
        List<DynamicTest> out = new ArrayList<>();
        for (JsonNode c : v.get("valid")) {
            String name = c.get("name").asText();
            out.add(dynamicTest("valid: " + name, () -> check(Metrics.health(observations(c)), c.get("expected"), name)));
        }
        for (JsonNode c : v.get("invalid")) {
            String name = c.get("name").asText();
            Class<? extends IdmintException> type = VectorsTest.CLASS_OF_KIND.get(c.get("error").asText());
            out.add(dynamicTest("invalid: " + name, () -> assertThrows(type, () -> Metrics.health(observations(c)), name)));
        }
        assertTrue(out.size() >= 20);
        return out.stream();
    }

    /** tests/vectors/health.json's layout_remaining: the time left a generator on a manual clock observes, and its health. */
    @TestFactory
    Stream<DynamicTest> layoutRemaining() throws Exception {
        List<DynamicTest> out = new ArrayList<>();
        for (JsonNode c : VectorsTest.load("health.json").get("layout_remaining")) {
            String name = c.get("name").asText();
            out.add(dynamicTest(name, () -> {
                Snowflake.Builder b = Snowflake.builder(c.get("layout").asText()).clock(new ManualClock(c.get("clock_ms").asLong()));
                c.get("nodes").fields().forEachRemaining(e -> b.node(e.getKey(), e.getValue().asLong()));
                try (Snowflake g = b.build()) {
                    Observation left = g.observe().stream()
                            .filter(o -> o.metric().equals("idmint.layout.remaining")).findFirst().orElseThrow();
                    assertEquals(c.get("remaining_s").asDouble(), left.value(), name);
                    assertEquals(c.get("status").asText(), Metrics.health(g.observe()).status().name().toLowerCase(), name);
                }
            }));
        }
        assertTrue(out.size() >= 4);
        return out.stream();
    }

    /** A generator and a client serving from memory are up; their observations read back as they are. */
    @Test
    void liveGeneratorsAreUp() {
        try (Snowflake g = Snowflake.builder("sonyflake").node("machine", 3).build();
                SegmentClient c = SegmentClient.connect("memory:")) {
            c.tag("orders").nextId();
            List<Observation> all = new ArrayList<>(g.observe());
            all.addAll(c.observe());
            Health h = Metrics.health(all);
            assertTrue(h.isUp(), h.toString());
            assertNull(h.lease());
            assertEquals("orders", h.tags().get(0).tag());
            assertTrue(h.tags().get(0).remaining() > 0);
        }
    }
}
