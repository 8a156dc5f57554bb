package io.idmint;

import static io.idmint.VectorsTest.CLASS_OF_KIND;
import static io.idmint.VectorsTest.fields;
import static io.idmint.VectorsTest.list;
import static io.idmint.VectorsTest.load;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.math.BigInteger;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The planner, the migration check, TypeIDs and start-above: every case of
 * tests/vectors/plan.json, typeid.json and start_above.json (shared with the other languages).
 */
class PlanTypeIdTest {
    static final Instant NEW_YEAR_2026 = Instant.parse("2026-01-01T00:00:00Z");
    static final String LATER = "time:41@1ms,worker:10,sequence:12,epoch=2024-01-01T00:00:00Z";
    static final long LAST_TWITTER_ID = 1541815603606036480L;

    /** Each case of a vector group, named by its {@code name}. */
    static Stream<Arguments> cases(String file, String group) throws IOException {
        return list(load(file).get(group)).stream().map(c -> Arguments.of(c.get("name").asText(), c));
    }

    static Stream<Arguments> planValid() throws IOException {
        return cases("plan.json", "valid");
    }

    static Stream<Arguments> planImpossible() throws IOException {
        return cases("plan.json", "impossible");
    }

    static Stream<Arguments> typeidValid() throws IOException {
        return cases("typeid.json", "valid");
    }

    static Stream<Arguments> typeidInvalid() throws IOException {
        return cases("typeid.json", "invalid");
    }

    static Stream<Arguments> startAbove() throws IOException {
        return cases("start_above.json", "cases");
    }

    static List<PlannedLayout> plan(JsonNode need) {
        return Idmint.plan(need.get("nodes").asLong(), need.get("rate").asLong(), need.get("years").asLong(),
                Instant.ofEpochMilli(need.get("start_ms").asLong()), need.get("width").asText());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("planValid")
    void planMeetsEachNeedAsTheOracleDoes(String name, JsonNode c) {
        List<PlannedLayout> got = plan(c.get("need"));
        List<JsonNode> want = list(c.get("layouts"));
        assertEquals(want.size(), got.size(), "how many layouts");
        for (int i = 0; i < want.size(); i++) {
            JsonNode w = want.get(i);
            PlannedLayout p = got.get(i);
            assertEquals(w.get("spec").asText(), p.spec());
            assertEquals(w.get("tick_ms").asLong(), p.tickMs());
            assertEquals(w.get("time_bits").asInt(), p.timeBits());
            assertEquals(w.get("node_bits").asInt(), p.nodeBits());
            assertEquals(w.get("sequence_bits").asInt(), p.sequenceBits());
            assertEquals(w.get("nodes").asLong(), p.nodes());
            assertEquals(w.get("cap_per_second").asLong(), p.capPerSecond());
            assertEquals(w.get("end_ms").asLong(), p.endMs());
            assertEquals(w.get("end").asText(), p.endText());
            assertEquals(Instant.parse(w.get("end").asText()), p.end());
            JsonNode beyond = w.get("beyond_2_53_ms");
            assertEquals(beyond.isNull() ? OptionalLong.empty() : OptionalLong.of(beyond.asLong()), p.beyond2p53Ms());
            assertEquals(beyond.isNull() ? Optional.empty() : Optional.of(Instant.ofEpochMilli(beyond.asLong())),
                    p.beyond2p53());
            // The spec is one Layout reads back, with the shape the planner reports.
            Layout l = p.layout();
            assertEquals(p.spec(), l.spec());
            assertEquals(p.tickMs(), l.tickMs());
            assertEquals(p.timeBits(), l.timeBits());
            assertEquals(p.endMs(), l.exhaustsAtMs());
            assertEquals(c.get("need").get("width").asText().equals("unsigned"), l.isUnsigned());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("planImpossible")
    void planRefusesAnImpossibleNeedWithTheArithmetic(String name, JsonNode c) {
        IdmintException e = assertThrows(CLASS_OF_KIND.get(c.get("error").asText()), () -> plan(c.get("need")));
        assertEquals(c.get("error").asText(), e.kind());
        assertTrue(e.getMessage().contains("= " + c.get("bound_bits").asText() + " bits"), e.getMessage());
    }

    @Test
    void planReadsRatesAsTextAndRefusesBadArguments() {
        List<PlannedLayout> twitter = Idmint.plan(1024, "4M/s", 69, Instant.parse("2010-11-04T01:42:54.657Z"), null);
        assertEquals("time:41@1ms,worker:10,sequence:12,epoch=1288834974657", twitter.get(0).spec());
        assertEquals(4_000_000L, Idmint.parseRate("4M"));
        assertEquals(25_600L, Idmint.parseRate("25.6k/s"));
        // No width: 63 bits (no start: today, planStartsTodayByDefault).
        for (PlannedLayout p : Idmint.plan(2, 1, 1, Instant.EPOCH, null)) {
            assertEquals(63, p.timeBits() + p.nodeBits() + p.sequenceBits(), p.spec());
        }
        assertEquals(Idmint.plan(2, 1, 1, Instant.EPOCH, "bigint"), Idmint.plan(2, 1, 1, Instant.EPOCH, null));

        InvalidArgumentException width = assertThrows(InvalidArgumentException.class,
                () -> Idmint.plan(1, 1, 1, null, "53"));
        assertTrue(width.getMessage().contains("bigint"), width.getMessage());
        InvalidArgumentException zero = assertThrows(InvalidArgumentException.class, () -> Idmint.plan(0, 1, 1));
        assertTrue(zero.getMessage().contains("`nodes` = 0"), zero.getMessage());
        // A negative long is named as given, not as the number its bits would be.
        InvalidArgumentException negative = assertThrows(InvalidArgumentException.class, () -> Idmint.plan(1, -5, 1));
        assertTrue(negative.getMessage().contains("`rate` = -5"), negative.getMessage());
        InvalidArgumentException years = assertThrows(InvalidArgumentException.class, () -> Idmint.plan(1, 1, 8001));
        assertTrue(years.getMessage().contains("years"), years.getMessage());
        InvalidArgumentException rate = assertThrows(InvalidArgumentException.class,
                () -> Idmint.plan(1, "1.5", 1, null, null));
        assertTrue(rate.getMessage().contains("rate"), rate.getMessage());
        InvalidArgumentException before = assertThrows(InvalidArgumentException.class,
                () -> Idmint.plan(1, 1, 1, Instant.parse("1969-12-31T23:59:59Z"), null));
        assertTrue(before.getMessage().contains("start"), before.getMessage());
    }

    @Test
    void planStartsTodayByDefault() {
        // today, 00:00 UTC (read before and after, in case the call crosses midnight)
        long day = 86_400_000L;
        long before = System.currentTimeMillis() / day * day;
        String spec = Idmint.plan(1, 1, 1).get(0).spec();
        long after = System.currentTimeMillis() / day * day;
        long epoch = Long.parseLong(spec.substring(spec.lastIndexOf("epoch=") + 6));
        assertTrue(epoch == before || epoch == after, spec);
        assertTrue(spec.contains(",worker:1,"), spec); // one node still gets a node field
    }

    @Test
    void checkMigrationNamesWhenALaterEpochBecomesSafe() {
        Layout twitter = Layout.of("twitter");
        Layout later = Layout.of(LATER);
        // Same shape, later epoch: its IDs start below the table's last ID, so it overlaps.
        Migration m = Idmint.checkMigration(twitter, later, LAST_TWITTER_ID, NEW_YEAR_2026);
        assertFalse(m.safe());
        assertEquals(NEW_YEAR_2026, m.switchTime());
        assertEquals(LAST_TWITTER_ID, m.oldMax());
        assertTrue(m.newFirst() < m.oldMax());
        assertEquals(OptionalLong.of(2071664685449L), m.safeFromMs());
        assertEquals(Optional.of(Instant.parse("2035-08-25T14:24:45.449Z")), m.safeFrom());
        assertEquals(Optional.of("2035-08-25T14:24:45.449Z"), m.safeFromText());
        // Switching at that time is accepted: it starts above the last ID.
        Migration then = Idmint.checkMigration(twitter, later, LAST_TWITTER_ID, m.safeFrom().get());
        assertTrue(then.safe());
        assertTrue(then.newFirst() > LAST_TWITTER_ID);
        Migration justBefore = Idmint.checkMigration(twitter, later, LAST_TWITTER_ID,
                m.safeFrom().get().minusMillis(1));
        assertFalse(justBefore.safe());

        // More bits below time: its IDs start above anything twitter can have minted.
        Migration wider = Idmint.checkMigration("twitter", "time:38@1ms,worker:12,sequence:13,epoch=1700000000000",
                null, NEW_YEAR_2026);
        assertTrue(wider.safe());
        assertTrue(wider.newFirst() > wider.oldMax());
        // With no time given, the switch is now.
        Migration now = Idmint.checkMigration(twitter, later);
        assertTrue(Math.abs(now.switchMs() - System.currentTimeMillis()) < 3_600_000L, now.toString());
    }

    @Test
    void checkMigrationCarriesIdsAbove2To63WithoutWrapping() {
        // An unsigned layout's ID of 2^64-1 crosses as a long's 64 bits and reads back unsigned.
        Layout unsigned = Layout.of("discord");
        Migration m = Idmint.checkMigration(unsigned, Layout.of(LATER), -1L, NEW_YEAR_2026);
        assertEquals(-1L, m.oldMax());
        assertEquals("18446744073709551615", m.oldMaxText());
        assertFalse(m.safe());
        assertEquals(Optional.empty(), m.safeFrom());
        // A negative long is no ID of a signed layout: refused, never read as 2^64-1.
        InvalidIdException e = assertThrows(InvalidIdException.class,
                () -> Idmint.checkMigration(Layout.of("twitter"), Layout.of(LATER), -1L, NEW_YEAR_2026));
        assertTrue(e.getMessage().contains("-1"), e.getMessage());
        // An unsigned new layout late in its life mints IDs above 2^63: newFirst shows them.
        Instant late = Instant.parse("2090-01-01T00:00:00Z");
        Migration lateOne = Idmint.checkMigration(unsigned, unsigned, null, late);
        assertTrue(lateOne.newFirst() < 0, "2^63 or more as a long's bits");
        assertEquals(new BigInteger(lateOne.newFirstText()), new BigInteger(Long.toUnsignedString(lateOne.newFirst())));
        assertTrue(new BigInteger(lateOne.newFirstText()).compareTo(BigInteger.ONE.shiftLeft(63)) > 0);
        // A switch time the new layout cannot mint at is the core's typed error.
        assertThrows(TimeOutOfRangeException.class,
                () -> Idmint.checkMigration(Layout.of("twitter"), Layout.of(LATER), null, Instant.parse("2020-01-01T00:00:00Z")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("typeidValid")
    void typeidValidVectorsRoundTrip(String name, JsonNode c) {
        TypeId t = TypeId.parse(c.get("typeid").asText());
        assertEquals(c.get("prefix").asText(), t.prefix());
        assertEquals(c.get("uuid").asText(), t.uuid().toString());
        assertEquals(c.get("typeid").asText(), t.toString());
        String text = c.get("typeid").asText();
        assertEquals(text.substring(text.length() - 26), t.suffix());
        TypeId back = TypeId.fromUuid(c.get("prefix").asText(), UUID.fromString(c.get("uuid").asText()));
        assertEquals(t, back);
        assertEquals(t.hashCode(), back.hashCode());
        assertEquals(0, t.compareTo(back));
        assertEquals(t.uuid().version() == 7, t.time().isPresent());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("typeidInvalid")
    void typeidInvalidVectorsAreRefused(String name, JsonNode c) {
        assertEquals("invalid_id", c.get("error").asText());
        InvalidIdException e = assertThrows(InvalidIdException.class, () -> TypeId.parse(c.get("typeid").asText()));
        assertEquals("invalid_id", e.kind());
        assertFalse(e.getMessage().isEmpty());
    }

    @Test
    void typeidGeneratorMintsIncreasingTypeidsOfItsPrefix() {
        ManualClock clock = new ManualClock(0x01890A5DAC96L);
        TypeIdGenerator gen = new TypeIdGenerator("user", clock);
        assertEquals("user", gen.prefix());
        TypeId a = gen.next();
        TypeId b = gen.next();
        assertTrue(a.compareTo(b) < 0);
        assertNotEquals(a, b);
        assertEquals("user", a.prefix());
        assertTrue(a.toString().startsWith("user_01h455vb4p"), a.toString());
        assertEquals(Optional.of(Instant.ofEpochMilli(0x01890A5DAC96L)), a.time());
        assertEquals(a, TypeId.parse(a.toString()));
        List<String> many = gen.nextTexts(100);
        List<String> sorted = new ArrayList<>(many);
        sorted.sort(null);
        assertEquals(sorted, many);
        assertEquals(100, new HashSet<>(many).size());
        assertTrue(many.get(0).compareTo(gen.nextText()) < 0);
        assertTrue("01234567".indexOf(new TypeIdGenerator("").nextText().charAt(0)) >= 0);
        InvalidArgumentException e = assertThrows(InvalidArgumentException.class, () -> new TypeIdGenerator("User"));
        assertTrue(e.getMessage().contains("prefix"), e.getMessage());
        assertThrows(InvalidArgumentException.class, () -> gen.nextTexts(-1));
        assertThrows(InvalidArgumentException.class, () -> TypeId.fromUuid("User", UUID.randomUUID()));
    }

    static final BigInteger LONG_MAX = BigInteger.valueOf(Long.MAX_VALUE);

    @ParameterizedTest(name = "{0}")
    @MethodSource("startAbove")
    void startAboveStartsAboveOrRefusesNamingWhen(String name, JsonNode c) {
        BigInteger above = new BigInteger(c.get("above").asText());
        List<Function<Snowflake.Builder, Snowflake.Builder>> ways = new ArrayList<>();
        ways.add(b -> b.startAbove(above));
        if (above.compareTo(LONG_MAX) <= 0) {
            ways.add(b -> b.startAbove(above.longValueExact()));
        }
        for (Function<Snowflake.Builder, Snowflake.Builder> way : ways) {
            ManualClock clock = new ManualClock(c.get("clock_ms").asLong());
            Snowflake.Builder b = way.apply(Snowflake.builder(c.get("layout").asText())
                    .nodes(fields(c.get("nodes")))
                    .onRollback(c.get("on_rollback").asText())
                    .clock(clock));
            if (c.has("first_id")) {
                try (Snowflake gen = b.build()) {
                    long first = gen.nextId();
                    assertEquals(c.get("first_id").asText(), Long.toUnsignedString(first));
                    assertTrue(Long.compareUnsigned(first, above.longValue()) > 0);
                    assertTrue(Long.compareUnsigned(gen.nextId(), first) > 0);
                }
            } else {
                IdmintException e = assertThrows(CLASS_OF_KIND.get(c.get("error").asText()), b::build);
                assertEquals(c.get("error").asText(), e.kind());
                assertTrue(e.getMessage().contains(c.get("above").asText()), e.getMessage());
                String when = c.get("from").isNull() ? "never pass it" : c.get("from").asText();
                assertTrue(e.getMessage().contains(when), e.getMessage());
            }
        }
    }

    @Test
    void startAboveRefusesWhatIsNoId() {
        Snowflake.Builder twitter = Snowflake.builder("twitter").node("datacenter", 0).node("worker", 0);
        assertThrows(InvalidIdException.class, () -> twitter.startAbove(-1L).build());
        assertThrows(InvalidIdException.class, () -> twitter.startAbove(BigInteger.valueOf(-1)).build());
        assertThrows(InvalidIdException.class, () -> twitter.startAbove(BigInteger.ONE.shiftLeft(64)).build());
    }

    @Test
    void startAboveTakesAnUnsignedLayoutsIdsAbove2To63() {
        // 2^63 as a long's bits on a 64-bit layout: the generator starts above it, ahead of the clock.
        for (Function<Snowflake.Builder, Snowflake.Builder> way : List.<Function<Snowflake.Builder, Snowflake.Builder>>of(
                b -> b.startAbove(Long.MIN_VALUE), b -> b.startAbove(BigInteger.ONE.shiftLeft(63)))) {
            Snowflake.Builder b = way.apply(Snowflake.builder("discord").unsigned()
                    .node("worker", 1).node("process", 2)
                    .onRollback("continue")
                    .clock(new ManualClock(NEW_YEAR_2026.toEpochMilli())));
            try (Snowflake gen = b.build()) {
                long first = gen.nextId();
                assertTrue(first < 0, "above 2^63: a long's 64 bits");
                assertTrue(Long.compareUnsigned(first, Long.MIN_VALUE) > 0, Long.toUnsignedString(first));
            }
        }
    }
}
