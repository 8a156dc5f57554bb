package io.idmint;

import static io.idmint.VectorsTest.expectKind;
import static io.idmint.VectorsTest.fields;
import static io.idmint.VectorsTest.list;
import static io.idmint.VectorsTest.load;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import com.fasterxml.jackson.databind.JsonNode;
import com.github.f4b6a3.tsid.Tsid;
import java.io.IOException;
import java.time.Instant;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/** tests/vectors/formats.json: 64-bit layouts and {@link Idmint#parse} of every format, then each format's own library. */
class FormatsTest {
    static Map<String, Object> parts(JsonNode n) {
        Map<String, Object> out = new LinkedHashMap<>();
        Iterator<Map.Entry<String, JsonNode>> it = n.fields();
        while (it.hasNext()) {
            Map.Entry<String, JsonNode> e = it.next();
            out.put(e.getKey(), e.getValue().isTextual() ? e.getValue().asText() : (Object) e.getValue().asLong());
        }
        return out;
    }

    static String textOrNull(JsonNode n) {
        return n == null || n.isNull() ? null : n.asText();
    }

    @TestFactory
    Stream<DynamicTest> unsignedPresets() throws IOException {
        return list(load("formats.json").get("presets")).stream().map(c -> dynamicTest(c.get("layout").asText(), () -> {
            Layout l = Layout.of(c.get("layout").asText());
            assertEquals(c.get("spec").asText(), l.spec());
            assertEquals(64, l.totalBits());
            assertTrue(l.isUnsigned());
            assertTrue(Layout.unsignedPresets().contains(c.get("layout").asText()));
            assertEquals(-1L, l.maxId(), "all 64 bits: 2^64-1 as a long");
        }));
    }

    @TestFactory
    Stream<DynamicTest> snowflakesOf64Bits() throws IOException {
        return list(load("formats.json").get("snowflakes")).stream().map(c -> dynamicTest(c.get("name").asText(), () -> {
            Layout l = Layout.of(c.get("layout").asText());
            String text = c.get("id").asText();
            long id = Long.parseUnsignedLong(text);
            assertEquals(id, l.parseId(text));
            assertEquals(text, l.idText(id));
            for (IdParts p : List.of(l.parse(id), l.parse(text))) {
                assertEquals(c.get("time_ms").asLong(), p.timeMs());
                assertEquals(c.get("time").asText(), p.timeText());
                assertEquals(fields(c.get("fields")), p.nodes());
                assertEquals(c.get("sequence").asLong(), p.sequence());
            }
            assertEquals(id, l.compose(c.get("time_ms").asLong(), fields(c.get("fields")), c.get("sequence").asLong()));
            Decoded d = Idmint.parse(id, l);
            assertEquals("snowflake", d.format());
            assertEquals(text, d.id());
            assertEquals(id, d.value().getAsLong());
            assertEquals(text, d.valueText().orElseThrow());
        }));
    }

    @TestFactory
    Stream<DynamicTest> invalidSnowflakes() throws IOException {
        return list(load("formats.json").get("invalid_snowflakes")).stream().map(c -> dynamicTest(c.get("name").asText(), () -> {
            Layout l = Layout.of(c.get("layout").asText());
            expectKind(c.get("error").asText(), () -> l.parse(c.get("id").asText()));
            expectKind(c.get("error").asText(), () -> Idmint.parse(c.get("id").asText(), l));
        }));
    }

    @TestFactory
    Stream<DynamicTest> invalidLayouts() throws IOException {
        return list(load("formats.json").get("invalid_layouts")).stream().map(c -> dynamicTest(c.get("name").asText(),
                () -> expectKind(c.get("error").asText(), () -> Layout.of(c.get("layout").asText()))));
    }

    @TestFactory
    Stream<DynamicTest> decode() throws IOException {
        return list(load("formats.json").get("decode")).stream().map(c -> dynamicTest(c.get("name").asText(), () -> {
            String layout = textOrNull(c.get("layout"));
            Decoded d = Idmint.parse(c.get("text").asText(), layout);
            assertEquals(c.get("format").asText(), d.format());
            assertEquals(c.get("id").asText(), d.id());
            String value = textOrNull(c.get("value"));
            assertEquals(value, d.valueText().orElse(null));
            if (value != null) {
                assertEquals(Long.parseUnsignedLong(value), d.value().getAsLong());
            }
            JsonNode timeMs = c.get("time_ms");
            assertEquals(timeMs.isNull() ? null : timeMs.asLong(), d.timeMs().isPresent() ? d.timeMs().getAsLong() : null);
            assertEquals(textOrNull(c.get("time")), d.timeText().orElse(null));
            assertEquals(d.timeText().isPresent(), d.time().isPresent());
            d.time().ifPresent(t -> assertEquals(timeMs.asLong(), t.toEpochMilli()));
            assertEquals(parts(c.get("parts")), d.parts());
            assertEquals(List.copyOf(parts(c.get("parts")).keySet()), List.copyOf(d.parts().keySet()), "parts in order");
            assertEquals("snowflake".equals(d.format()) ? layout : null, d.layout().orElse(null));
            assertEquals(d, Idmint.parse(c.get("text").asText(), layout));
        }));
    }

    @TestFactory
    Stream<DynamicTest> invalid() throws IOException {
        return list(load("formats.json").get("invalid")).stream().map(c -> dynamicTest(c.get("name").asText(),
                () -> expectKind(c.get("error").asText(), () -> Idmint.parse(c.get("text").asText()))));
    }

    @Test
    void discordsDocumentedExample() {
        Decoded d = Idmint.parse("175928847299117063", "discord");
        assertEquals(Instant.parse("2016-04-30T11:18:25.796Z"), d.time().orElseThrow());
        assertEquals(1, d.number("worker").getAsLong());
        assertEquals(0, d.number("process").getAsLong());
        assertEquals(7, d.number("sequence").getAsLong());
        IdParts p = Layout.of("discord").parse(175928847299117063L);
        assertEquals(Map.of("worker", 1L, "process", 0L), p.nodes());
        assertEquals(7, p.sequence());
    }

    @Test
    void aDecimalWithoutALayoutIsAnIntegerAndGuessGivesThePresets() {
        Decoded d = Idmint.parse("175928847299117063");
        assertEquals("integer", d.format());
        assertFalse(d.time().isPresent());
        List<Decoded> readings = Idmint.guess("175928847299117063");
        Decoded discord = readings.stream().filter(r -> r.layout().orElse("").equals("discord")).findFirst().orElseThrow();
        assertEquals(Idmint.parse("175928847299117063", "discord"), discord);
        List<Decoded> top = Idmint.guess(Long.MIN_VALUE); // 2^63
        assertFalse(top.isEmpty());
        assertTrue(top.stream().allMatch(r -> Layout.unsignedPresets().contains(r.layout().orElseThrow())));
        expectKind("invalid_id", () -> Idmint.guess("18446744073709551616"));
        IdmintException e = expectKind("invalid_id", () -> Idmint.parse("hello"));
        assertTrue(e.getMessage().contains("formats tried") && e.getMessage().contains("KSUID"), e.getMessage());
        assertEquals("tsid", Idmint.parseAs("0123456789012", "tsid", null).format());
        expectKind("invalid_argument", () -> Idmint.parseAs("1", "guid", null));
    }

    @Test
    void theTopBitRoundTrips() {
        Layout discord = Layout.of("discord");
        long id = discord.compose(Instant.parse("2100-01-01T00:00:00Z"), Map.of("worker", 31L, "process", 17L), 4095);
        assertTrue(id < 0, "an ID of 2^63 or more reads as a negative long");
        IdParts p = discord.parse(id);
        assertEquals(Instant.parse("2100-01-01T00:00:00Z"), p.time());
        assertEquals(Map.of("worker", 31L, "process", 17L), p.nodes());
        assertEquals(4095, p.sequence());
        assertEquals(id, discord.compose(p.timeMs(), p.nodes(), p.sequence()));
        assertEquals(id, discord.parseId(discord.idText(id)));
        assertEquals(p, discord.parse(discord.idText(id)));
        assertEquals(id, Idmint.parse(id, discord).value().getAsLong());
        // A signed layout still refuses a negative long.
        expectKind("invalid_id", () -> Layout.of("twitter").parse(-1L));
        expectKind("invalid_id", () -> Layout.of("twitter").parse("9223372036854775808"));
    }

    @Test
    void mintingWith64BitsNeedsTheOptIn() throws Exception {
        IdmintException e = expectKind("invalid_layout",
                () -> Snowflake.builder("discord").node("worker", 1).node("process", 0).build());
        assertTrue(e.getMessage().contains("unsigned"), e.getMessage());
        ManualClock clock = new ManualClock(Instant.parse("2100-01-01T00:00:00Z").toEpochMilli());
        Snowflake gen = Snowflake.builder("discord").unsigned().node("worker", 1).node("process", 2).clock(clock).build();
        long a = gen.nextId();
        long b = gen.nextId();
        assertTrue(a < 0 && b < 0 && Long.compareUnsigned(a, b) < 0);
        assertEquals(1, gen.parse(b).sequence());
        assertEquals(2L, gen.parse(b).nodes().get("process"));
        long[] more = gen.nextIds(3);
        assertTrue(Long.compareUnsigned(b, more[0]) < 0);
        Snowflake again = Snowflake.builder("discord").unsigned().node("worker", 1).node("process", 2).clock(clock)
                .resumeAfter(more[2]).build();
        assertTrue(Long.compareUnsigned(more[2], again.nextId()) < 0);
    }

    @Test
    void aMillion64BitIdsFrom4ThreadsAreUnique() throws Exception {
        Snowflake gen = Snowflake.builder("discord").unsigned().node("worker", 3).node("process", 4).build();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<long[]>> parts = new java.util.ArrayList<>();
            for (int t = 0; t < 4; t++) {
                parts.add(pool.submit(() -> {
                    long[] out = new long[250_000];
                    for (int i = 0; i < out.length; i++) {
                        out[i] = gen.nextId();
                    }
                    return out;
                }));
            }
            Set<Long> all = new HashSet<>(2_000_000);
            for (Future<long[]> f : parts) {
                for (long id : f.get()) {
                    all.add(id);
                }
            }
            assertEquals(1_000_000, all.size());
        } finally {
            pool.shutdown();
        }
    }

    // The second check: java.util.UUID and tsid-creator read the same values.

    @TestFactory
    Stream<DynamicTest> uuidMatchesJavaUtilUuid() throws IOException {
        return list(load("formats.json").get("decode")).stream()
                .filter(c -> c.get("format").asText().equals("uuid") && c.get("text").asText().length() == 36)
                .map(c -> dynamicTest(c.get("name").asText(), () -> {
                    UUID u = UUID.fromString(c.get("text").asText());
                    Decoded d = Idmint.parse(c.get("text").asText());
                    assertEquals(u.toString(), d.id());
                    if (u.variant() == 2) {
                        assertEquals(u.version(), d.number("version").getAsLong());
                        assertEquals("rfc9562", d.text("variant").orElseThrow());
                    }
                    if (u.variant() == 2 && u.version() == 1) {
                        assertEquals(u.timestamp(), d.number("timestamp").getAsLong());
                        assertEquals(u.clockSequence(), d.number("clock_seq").getAsLong());
                        assertEquals(u.node(), Long.parseLong(d.text("node").orElseThrow(), 16));
                    }
                }));
    }

    @TestFactory
    Stream<DynamicTest> tsidMatchesTsidCreator() throws IOException {
        return list(load("formats.json").get("decode")).stream()
                .filter(c -> c.get("format").asText().equals("tsid"))
                .map(c -> dynamicTest(c.get("name").asText(), () -> {
                    Tsid t = Tsid.from(c.get("text").asText());
                    Decoded d = Idmint.parse(c.get("text").asText());
                    assertEquals(t.toString(), d.id());
                    assertEquals(t.toLong(), d.value().getAsLong());
                    assertEquals(t.getInstant(), d.time().orElseThrow());
                    // The `tsid` layout reads the number form the same way.
                    IdParts p = Layout.of("tsid").parse(t.toLong());
                    assertEquals(t.getInstant(), p.time());
                }));
    }
}
