package io.idmint;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/** Every case of tests/vectors/, the cross-language vectors written by an independent oracle. */
class VectorsTest {
    static final Map<String, Class<? extends IdmintException>> CLASS_OF_KIND = Map.ofEntries(
            Map.entry("invalid_layout", InvalidLayoutException.class),
            Map.entry("value_out_of_range", ValueOutOfRangeException.class),
            Map.entry("unknown_field", UnknownFieldException.class),
            Map.entry("missing_field", MissingFieldException.class),
            Map.entry("time_out_of_range", TimeOutOfRangeException.class),
            Map.entry("epoch_in_future", EpochInFutureException.class),
            Map.entry("layout_exhausted", LayoutExhaustedException.class),
            Map.entry("clock_moved_backwards", ClockMovedBackwardsException.class),
            Map.entry("invalid_id", InvalidIdException.class),
            Map.entry("invalid_object_id", InvalidObjectIdException.class),
            Map.entry("invalid_argument", InvalidArgumentException.class),
            Map.entry("store_unavailable", StoreUnavailableException.class),
            Map.entry("unknown_tag", UnknownTagException.class),
            Map.entry("invalid_tag", InvalidTagException.class),
            Map.entry("range_below_issued", RangeBelowIssuedException.class),
            Map.entry("tag_exhausted", TagExhaustedException.class),
            Map.entry("no_free_lease", NoFreeLeaseException.class),
            Map.entry("lease_lost", LeaseLostException.class),
            Map.entry("forked", ForkedException.class),
            Map.entry("closed", ClosedException.class),
            Map.entry("would_block", WouldBlockException.class),
            Map.entry("invalid_key", InvalidKeyException.class),
            Map.entry("invalid_encoding", InvalidEncodingException.class),
            Map.entry("invalid_template", InvalidTemplateException.class),
            Map.entry("counter_overflow", CounterOverflowException.class),
            Map.entry("invalid_uuid", InvalidUuidException.class),
            Map.entry("check_digit_mismatch", CheckDigitMismatchException.class),
            Map.entry("not_authorized", NotAuthorizedException.class),
            Map.entry("stores_not_installed", StoresNotInstalledException.class));

    static JsonNode load(String file) throws IOException {
        String dir = System.getProperty("idmint.vectors", "../tests/vectors");
        return new ObjectMapper().readTree(Path.of(dir, file).toFile());
    }

    static List<JsonNode> list(JsonNode n) {
        List<JsonNode> out = new ArrayList<>();
        n.forEach(out::add);
        assertTrue(out.size() > 0, "vector group is empty");
        return out;
    }

    static Map<String, Long> fields(JsonNode n) {
        Map<String, Long> out = new LinkedHashMap<>();
        Iterator<Map.Entry<String, JsonNode>> it = n.fields();
        while (it.hasNext()) {
            Map.Entry<String, JsonNode> e = it.next();
            assertTrue(e.getValue().canConvertToLong(), "vector value fits a long");
            out.put(e.getKey(), e.getValue().asLong());
        }
        return out;
    }

    static <T extends IdmintException> T expectKind(String kind, org.junit.jupiter.api.function.Executable run) {
        Class<? extends IdmintException> cls = CLASS_OF_KIND.get(kind);
        assertTrue(cls != null, "no exception class for kind " + kind);
        IdmintException e = assertThrows(cls, run);
        assertEquals(kind, e.kind());
        assertTrue(e.getMessage() != null && !e.getMessage().isEmpty());
        @SuppressWarnings("unchecked")
        T t = (T) e;
        return t;
    }

    @TestFactory
    Stream<DynamicTest> validIdsDecomposeAndCompose() throws IOException {
        return list(load("snowflake.json").get("valid")).stream().map(c -> dynamicTest(c.get("name").asText(), () -> {
            Layout layout = Layout.of(c.get("layout").asText());
            long id = Long.parseLong(c.get("id").asText());
            for (IdParts p : List.of(layout.parse(id), layout.parse(c.get("id").asText()))) {
                assertEquals(c.get("time_ms").asLong(), p.timeMs());
                assertEquals(c.get("time").asText(), p.timeText());
                assertEquals(Instant.parse(c.get("time").asText()), p.time());
                assertEquals(fields(c.get("fields")), p.nodes());
                assertEquals(List.copyOf(fields(c.get("fields")).keySet()), List.copyOf(p.nodes().keySet()),
                        "node fields in layout order");
                assertEquals(c.get("sequence").asLong(), p.sequence());
            }
            assertEquals(id, layout.compose(c.get("time_ms").asLong(), fields(c.get("fields")), c.get("sequence").asLong()));
            assertEquals(id, layout.compose(Instant.parse(c.get("time").asText()), fields(c.get("fields")),
                    c.get("sequence").asLong()));
        }));
    }

    @TestFactory
    Stream<DynamicTest> invalidIds() throws IOException {
        return list(load("snowflake.json").get("invalid_ids")).stream().map(c -> dynamicTest(c.get("name").asText(), () -> {
            Layout layout = Layout.of(c.get("layout").asText());
            String id = c.get("id").asText();
            String kind = c.get("error").asText();
            expectKind(kind, () -> layout.parse(id));
            BigInteger big;
            try {
                big = new BigInteger(id);
            } catch (NumberFormatException notANumber) {
                return;
            }
            if (big.bitLength() < 64) { // fits a Java long: the long entry point rejects it too, never wraps
                long asLong = big.longValueExact();
                expectKind(kind, () -> layout.parse(asLong));
            }
        }));
    }

    @TestFactory
    Stream<DynamicTest> invalidParts() throws IOException {
        return list(load("snowflake.json").get("invalid_parts")).stream().map(c -> dynamicTest(c.get("name").asText(), () -> {
            Layout layout = Layout.of(c.get("layout").asText());
            JsonNode p = c.get("parts");
            expectKind(c.get("error").asText(),
                    () -> layout.compose(p.get("time_ms").asLong(), fields(p.get("fields")), p.get("sequence").asLong()));
        }));
    }

    @TestFactory
    Stream<DynamicTest> invalidLayouts() throws IOException {
        return list(load("snowflake.json").get("invalid_layouts")).stream().map(c -> dynamicTest(c.get("name").asText(), () ->
                expectKind(c.get("error").asText(), () -> Layout.of(c.get("layout").asText()))));
    }

    @TestFactory
    Stream<DynamicTest> exhaustsAt() throws IOException {
        return list(load("snowflake.json").get("exhausts_at")).stream().map(c -> dynamicTest(c.get("layout").asText(), () -> {
            Layout layout = Layout.of(c.get("layout").asText());
            assertEquals(c.get("exhausts_at_ms").asLong(), layout.exhaustsAtMs());
            assertEquals(c.get("exhausts_at").asText(), layout.exhaustsAt());
        }));
    }

    @TestFactory
    Stream<DynamicTest> objectIdValid() throws IOException {
        return list(load("objectid.json").get("valid")).stream().map(c -> dynamicTest(c.get("hex").asText(), () -> {
            String hex = c.get("hex").asText();
            ObjectId oid = new ObjectId(hex);
            assertEquals(hex, oid.toHexString());
            assertEquals(hex, oid.toString());
            assertEquals(c.get("time_s").asLong(), oid.getTimestamp());
            assertEquals(Instant.parse(c.get("time").asText()), oid.getDate());
            assertEquals(c.get("time").asText(), oid.timeText());
            assertEquals(c.get("random").asText(), HexFormat.of().formatHex(oid.random()));
            assertEquals(c.get("counter").asInt(), oid.counter());
            byte[] bytes = HexFormat.of().parseHex(hex);
            assertArrayEquals(bytes, oid.toByteArray());
            ObjectId fromBytes = new ObjectId(bytes);
            assertEquals(oid, fromBytes);
            assertEquals(oid.hashCode(), fromBytes.hashCode());
            assertEquals(0, oid.compareTo(fromBytes));
            assertTrue(ObjectId.isValid(hex));
        }));
    }

    @TestFactory
    Stream<DynamicTest> objectIdUppercase() throws IOException {
        return list(load("objectid.json").get("uppercase_input")).stream().map(c -> dynamicTest(c.get("hex").asText(), () -> {
            ObjectId oid = ObjectId.parse(c.get("hex").asText());
            assertEquals(c.get("canonical").asText(), oid.toHexString());
            assertEquals(new ObjectId(c.get("canonical").asText()), oid);
        }));
    }

    @TestFactory
    Stream<DynamicTest> objectIdInvalid() throws IOException {
        return list(load("objectid.json").get("invalid")).stream().map(c -> dynamicTest(c.get("name").asText(), () -> {
            String hex = c.get("hex").asText();
            expectKind(c.get("error").asText(), () -> new ObjectId(hex));
            assertTrue(!ObjectId.isValid(hex));
        }));
    }

    @Test
    void everyKindInTheVectorsHasAClass() throws IOException {
        List<String> kinds = new ArrayList<>();
        for (String group : List.of("invalid_ids", "invalid_parts", "invalid_layouts")) {
            load("snowflake.json").get(group).forEach(c -> kinds.add(c.get("error").asText()));
        }
        load("objectid.json").get("invalid").forEach(c -> kinds.add(c.get("error").asText()));
        for (String k : kinds) {
            assertTrue(CLASS_OF_KIND.containsKey(k), k);
        }
    }
}
