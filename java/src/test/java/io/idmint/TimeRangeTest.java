package io.idmint;

import static io.idmint.VectorsTest.CLASS_OF_KIND;
import static io.idmint.VectorsTest.list;
import static io.idmint.VectorsTest.load;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.time.Instant;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link Layout#minIdAt(long)} / {@link Layout#maxIdAt(long)}, the bounds of a time-range query
 * on an ID column: every case of tests/vectors/time_range.json (shared with the other languages
 * and the PostgreSQL tests). IDs of 2^63 and more (unsigned layouts) are compared as their 64 bits.
 */
class TimeRangeTest {
    static Stream<Arguments> cases(String group) throws IOException {
        return list(load("time_range.json").get(group)).stream().map(c -> Arguments.of(c.get("name").asText(), c));
    }

    static Stream<Arguments> valid() throws IOException {
        return cases("valid");
    }

    static Stream<Arguments> invalid() throws IOException {
        return cases("invalid");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("valid")
    void theTicksFirstAndLastIdAsCoreComputesThem(String name, JsonNode c) {
        Layout layout = Layout.of(c.get("layout").asText());
        long timeMs = c.get("time_ms").asLong();
        long lo = layout.minIdAt(timeMs);
        long hi = layout.maxIdAt(timeMs);
        assertEquals(c.get("min_id").asText(), layout.idText(lo));
        assertEquals(c.get("max_id").asText(), layout.idText(hi));
        assertEquals(lo, layout.minIdAt(Instant.ofEpochMilli(timeMs)));
        assertEquals(hi, layout.maxIdAt(Instant.ofEpochMilli(timeMs)));
        long tick = c.get("tick_ms").asLong();
        assertEquals(tick, layout.parse(layout.idText(lo)).timeMs());
        assertEquals(tick, layout.parse(layout.idText(hi)).timeMs());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("invalid")
    void aTimeOutsideTheLayoutIsRefusedNamingTheRange(String name, JsonNode c) {
        Layout layout = Layout.of(c.get("layout").asText());
        long timeMs = c.get("time_ms").asLong();
        String range = c.get("min_ms").asText() + ".." + c.get("end_ms").asText();
        for (IdmintException e : new IdmintException[] {
            assertThrows(CLASS_OF_KIND.get(c.get("error").asText()), () -> layout.minIdAt(timeMs)),
            assertThrows(CLASS_OF_KIND.get(c.get("error").asText()), () -> layout.maxIdAt(timeMs)),
        }) {
            assertTrue(e instanceof TimeOutOfRangeException, e.toString());
            assertTrue(e.getMessage().contains(Long.toString(timeMs)), e.getMessage());
            assertTrue(e.getMessage().contains(range), e.getMessage());
        }
    }

    @Test
    void theVectorsAreThere() throws IOException {
        assertTrue(list(load("time_range.json").get("valid")).size() >= 20);
    }
}
