package io.idmint;

import static io.idmint.VectorsTest.expectKind;
import static io.idmint.VectorsTest.list;
import static io.idmint.VectorsTest.load;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.math.BigInteger;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Every case of tests/vectors/{obfuscate,shortid,uuid7,template}.json (issue 9's display IDs).
 *
 * <p>The vectors' values run to 2^64-1; Java IDs are {@code long}s in {@code 0..2^63-1}. A value
 * above 2^63-1 is checked the Java way: decoding it throws {@link InvalidIdException}, and its
 * bits as a {@code long} (negative) are refused by every entry point that takes an ID.
 */
class DisplayVectorsTest {
    static final BigInteger LONG_MAX = BigInteger.valueOf(Long.MAX_VALUE);

    static boolean fitsLong(BigInteger v) {
        return v.signum() >= 0 && v.compareTo(LONG_MAX) <= 0;
    }

    static Encoding encoding(String name) {
        for (Encoding e : Encoding.values()) {
            if (e.text().equals(name)) {
                return e;
            }
        }
        throw new AssertionError("no Encoding for " + name);
    }

    static CheckDigit check(String name) {
        return CheckDigit.ofText(name);
    }

    static Template template(JsonNode c) {
        Template.Builder b = Template.builder(c.get("template").asText());
        if (!c.get("offset").isNull()) {
            b.offset(c.get("offset").asText());
        }
        b.check(check(c.get("check").asText()));
        if (!c.get("label").isNull()) {
            b.label(c.get("label").asText());
        }
        return b.build();
    }

    // ---- obfuscate.json

    @TestFactory
    Stream<DynamicTest> obfuscateValid() throws IOException {
        return list(load("obfuscate.json").get("valid")).stream().map(c -> dynamicTest(
                c.get("key").asText().substring(0, 14) + " " + c.get("id").asText(), () -> {
            Keyring ring = Keyring.fromText(c.get("key").asText());
            long id = Long.parseLong(c.get("id").asText());
            long shown = Long.parseLong(c.get("obfuscated").asText());
            assertEquals(shown, ring.obfuscate(id));
            assertEquals(id, ring.reveal(shown));
            assertEquals(id, ring.reveal(ring.activeVersion(), shown));
            assertEquals(c.get("tagged").asText(), ring.obfuscateTagged(id));
            assertEquals(id, ring.revealTagged(c.get("tagged").asText()));
        }));
    }

    @TestFactory
    Stream<DynamicTest> obfuscateInvalidIds() throws IOException {
        Keyring ring = Keyring.fromText("idmint-key-v1:000102030405060708090a0b0c0d0e0f");
        return list(load("obfuscate.json").get("invalid_ids")).stream().map(c -> dynamicTest(c.get("name").asText(), () -> {
            BigInteger v = new BigInteger(c.get("id").asText());
            assertTrue(!fitsLong(v), "every invalid ID of the vectors is above 2^63-1, beyond a long");
            long bits = v.longValue(); // the same 64 bits: a negative long
            expectKind(c.get("error").asText(), () -> ring.obfuscate(bits));
            expectKind(c.get("error").asText(), () -> ring.reveal(bits));
            expectKind(c.get("error").asText(), () -> ring.obfuscateTagged(bits));
        }));
    }

    @TestFactory
    Stream<DynamicTest> obfuscateInvalidKeys() throws IOException {
        return list(load("obfuscate.json").get("invalid_keys")).stream().map(c -> dynamicTest(c.get("name").asText(), () -> {
            InvalidKeyException e = expectKind(c.get("error").asText(), () -> Keyring.fromText(c.get("key").asText()));
            String key = c.get("key").asText();
            int colon = key.indexOf(':');
            if (colon >= 0 && key.length() - colon > 8) {
                assertTrue(!e.getMessage().contains(key.substring(colon + 1)), "the secret is never shown");
            }
        }));
    }

    @TestFactory
    Stream<DynamicTest> obfuscateInvalidTagged() throws IOException {
        return list(load("obfuscate.json").get("invalid_tagged")).stream().map(c -> dynamicTest(c.get("name").asText(), () -> {
            Keyring ring = Keyring.fromText(c.get("keyring").asText());
            expectKind(c.get("error").asText(), () -> ring.revealTagged(c.get("tagged").asText()));
        }));
    }

    // ---- shortid.json

    @TestFactory
    Stream<DynamicTest> shortIdValid() throws IOException {
        return list(load("shortid.json").get("valid")).stream().map(c -> dynamicTest(c.get("value").asText(), () -> {
            BigInteger v = new BigInteger(c.get("value").asText());
            for (Encoding enc : Encoding.values()) {
                String text = c.get(enc.text()).asText();
                if (fitsLong(v)) {
                    assertEquals(text, ShortId.encode(v.longValueExact(), enc), enc.text());
                    assertEquals(v.longValueExact(), ShortId.decode(text, enc), enc.text());
                } else {
                    InvalidIdException e = expectKind("invalid_id", () -> ShortId.decode(text, enc));
                    assertTrue(e.getMessage().contains(v.toString()), e.getMessage());
                    expectKind("invalid_id", () -> ShortId.encode(v.longValue(), enc));
                }
            }
        }));
    }

    @TestFactory
    Stream<DynamicTest> shortIdAliases() throws IOException {
        return list(load("shortid.json").get("aliases")).stream().map(c -> dynamicTest(
                c.get("encoding").asText() + " " + c.get("text").asText(), () -> {
            Encoding enc = encoding(c.get("encoding").asText());
            BigInteger v = new BigInteger(c.get("value").asText());
            if (fitsLong(v)) {
                assertEquals(v.longValueExact(), ShortId.decode(c.get("text").asText(), enc));
            } else {
                expectKind("invalid_id", () -> ShortId.decode(c.get("text").asText(), enc));
            }
        }));
    }

    @TestFactory
    Stream<DynamicTest> shortIdInvalid() throws IOException {
        return list(load("shortid.json").get("invalid")).stream().map(c -> dynamicTest(
                c.get("encoding").asText() + " " + c.get("text").asText(), () ->
                expectKind(c.get("error").asText(),
                        () -> ShortId.decode(c.get("text").asText(), encoding(c.get("encoding").asText())))));
    }

    // ---- uuid7.json

    @TestFactory
    Stream<DynamicTest> uuid7Valid() throws IOException {
        return list(load("uuid7.json").get("valid")).stream().map(c -> dynamicTest(c.get("name").asText(), () -> {
            String text = c.get("uuid").asText();
            Uuid7 u = Uuid7.parse(text);
            assertEquals(c.get("time_ms").asLong(), u.timeMs());
            assertEquals(Instant.ofEpochMilli(c.get("time_ms").asLong()), u.time());
            assertEquals(c.get("time").asText(), u.timeText());
            assertEquals(c.get("rand_a").asInt(), u.randA());
            assertEquals(Long.parseUnsignedLong(c.get("rand_b").asText(), 16), u.randB());
            assertEquals(c.get("ulid").asText(), u.toUlid());
            assertEquals(text, u.toString());
            assertEquals(UUID.fromString(text), u.toUuid());
            assertEquals(text, u.toUuid().toString());
            assertEquals(u, Uuid7.parseUlid(c.get("ulid").asText()));
            assertEquals(u, Uuid7.of(UUID.fromString(text)));
            assertEquals(u.hashCode(), Uuid7.of(u.toUuid()).hashCode());
            assertEquals(0, u.compareTo(Uuid7.parse(text.toUpperCase())));
        }));
    }

    @TestFactory
    Stream<DynamicTest> uuid7Forms() throws IOException {
        return list(load("uuid7.json").get("forms")).stream().map(c -> dynamicTest(c.get("text").asText(), () -> {
            String text = c.get("text").asText();
            Uuid7 u = c.path("ulid").asBoolean(false) ? Uuid7.parseUlid(text) : Uuid7.parse(text);
            assertEquals(c.get("uuid").asText(), u.toString());
        }));
    }

    @TestFactory
    Stream<DynamicTest> uuid7Invalid() throws IOException {
        return list(load("uuid7.json").get("invalid")).stream().map(c -> dynamicTest(c.get("name").asText(), () ->
                expectKind(c.get("error").asText(), () -> Uuid7.parse(c.get("text").asText()))));
    }

    @TestFactory
    Stream<DynamicTest> uuid7InvalidUlids() throws IOException {
        return list(load("uuid7.json").get("invalid_ulids")).stream().map(c -> dynamicTest(c.get("name").asText(), () ->
                expectKind(c.get("error").asText(), () -> Uuid7.parseUlid(c.get("text").asText()))));
    }

    // ---- template.json

    @TestFactory
    Stream<DynamicTest> templateValid() throws IOException {
        return list(load("template.json").get("valid")).stream().map(c -> dynamicTest(c.get("name").asText(), () -> {
            Template t = template(c);
            long seq = Long.parseLong(c.get("sequence").asText());
            long timeMs = c.get("time_ms").asLong();
            String formatted = c.get("formatted").asText();
            assertEquals(formatted, t.format(timeMs, seq));
            assertEquals(formatted, t.format(Instant.ofEpochMilli(timeMs), seq));
            JsonNode p = c.get("parts");
            TemplateParts parts = t.parse(formatted);
            assertEquals(intOrNull(p, "year"), parts.year());
            assertEquals(intOrNull(p, "month"), parts.month());
            assertEquals(intOrNull(p, "day"), parts.day());
            assertEquals(intOrNull(p, "hour"), parts.hour());
            assertEquals(intOrNull(p, "minute"), parts.minute());
            assertEquals(intOrNull(p, "second"), parts.second());
            assertEquals(p.has("label") ? p.get("label").asText() : null, parts.label());
            assertEquals(p.has("check") ? p.get("check").asText() : null, parts.check());
            assertEquals(Long.parseLong(p.get("sequence").asText()), parts.sequence());
            assertEquals(c.get("template").asText(), t.pattern());
            assertEquals(check(c.get("check").asText()), t.check());
        }));
    }

    static Integer intOrNull(JsonNode parts, String key) {
        return parts.has(key) ? parts.get(key).asInt() : null;
    }

    @TestFactory
    Stream<DynamicTest> templateInvalidTemplates() throws IOException {
        return list(load("template.json").get("invalid_templates")).stream().map(c -> dynamicTest(c.get("name").asText(), () ->
                expectKind(c.get("error").asText(), () -> Template.of(c.get("template").asText()))));
    }

    @TestFactory
    Stream<DynamicTest> templateInvalidParse() throws IOException {
        return list(load("template.json").get("invalid_parse")).stream().map(c -> dynamicTest(c.get("name").asText(), () -> {
            Template t = template(c);
            expectKind(c.get("error").asText(), () -> t.parse(c.get("text").asText()));
        }));
    }

    @TestFactory
    Stream<DynamicTest> templateInvalidFormat() throws IOException {
        return list(load("template.json").get("invalid_format")).stream().map(c -> dynamicTest(c.get("name").asText(), () -> {
            Template t = template(c);
            long seq = Long.parseLong(c.get("sequence").asText());
            expectKind(c.get("error").asText(), () -> t.format(c.get("time_ms").asLong(), seq));
        }));
    }

    @TestFactory
    Stream<DynamicTest> templateDaily() throws IOException {
        return list(load("template.json").get("daily")).stream().map(c -> dynamicTest(c.get("name").asText(), () -> {
            Template t = template(c);
            JsonNode times = c.get("times_ms");
            ManualClock clock = new ManualClock(times.get(0).asLong());
            OrderNumbers orders = new OrderNumbers(t, clock);
            List<String> got = new ArrayList<>();
            for (JsonNode ms : times) {
                clock.setMs(ms.asLong());
                got.add(orders.next());
            }
            List<String> want = new ArrayList<>();
            c.get("formatted").forEach(f -> want.add(f.asText()));
            assertEquals(want, got);
        }));
    }

    @Test
    void everyKindInTheNewVectorsHasAClass() throws IOException {
        List<String> kinds = new ArrayList<>();
        for (String group : List.of("invalid_ids", "invalid_keys", "invalid_tagged")) {
            load("obfuscate.json").get(group).forEach(c -> kinds.add(c.get("error").asText()));
        }
        load("shortid.json").get("invalid").forEach(c -> kinds.add(c.get("error").asText()));
        for (String group : List.of("invalid", "invalid_ulids")) {
            load("uuid7.json").get(group).forEach(c -> kinds.add(c.get("error").asText()));
        }
        for (String group : List.of("invalid_templates", "invalid_parse", "invalid_format")) {
            load("template.json").get(group).forEach(c -> kinds.add(c.get("error").asText()));
        }
        assertTrue(kinds.size() > 50);
        for (String k : Set.copyOf(kinds)) {
            assertTrue(VectorsTest.CLASS_OF_KIND.containsKey(k), k);
        }
    }
}
