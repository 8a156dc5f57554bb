package io.idmint;

import static io.idmint.SnowflakeTest.THREADS;
import static io.idmint.SnowflakeTest.onThreads;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The display IDs (issue 9) through the Java API: what the vectors do not cover. */
class DisplayIdsTest {
    static final String KEY1 = "idmint-key-v1:000102030405060708090a0b0c0d0e0f";
    static final String KEY2 = "idmint-key-v2:f0e0d0c0b0a090807060504030201000";

    @Test
    void shortIdsCoverNonNegativeLongsOnly() {
        for (Encoding enc : Encoding.values()) {
            assertEquals(Long.MAX_VALUE, ShortId.decode(ShortId.encode(Long.MAX_VALUE, enc), enc));
            assertEquals(0L, ShortId.decode(ShortId.encode(0L, enc), enc));
            InvalidIdException neg = assertThrows(InvalidIdException.class, () -> ShortId.encode(-1L, enc));
            assertTrue(neg.getMessage().contains("-1") && neg.getMessage().contains("negative"), neg.getMessage());
        }
        // 2^63 is a valid base62 text, but no long holds it.
        InvalidIdException e = assertThrows(InvalidIdException.class, () -> ShortId.decode("AzL8n0Y58m8", Encoding.BASE62));
        assertTrue(e.getMessage().contains("9223372036854775808"), e.getMessage());
        assertEquals("1ptWyK4WgZU", ShortId.encode(1541815603606036480L, Encoding.BASE62)); // the javadoc's
        assertEquals("00000000001", ShortId.encode(1, Encoding.BASE62_FIXED));
        assertEquals("0000000000001", ShortId.encode(1, Encoding.BASE32_FIXED));
        assertEquals(1L, ShortId.decode("l", Encoding.BASE32), "Crockford reads l as 1");
        assertEquals("base62-fixed", Encoding.BASE62_FIXED.toString());
    }

    @Test
    void fixedWidthTextSortsLikeTheIds() {
        Snowflake g = new Snowflake(1, 1);
        long[] ids = g.nextIds(1000);
        for (Encoding enc : List.of(Encoding.BASE62_FIXED, Encoding.BASE32_FIXED)) {
            for (int i = 1; i < ids.length; i++) {
                assertTrue(ShortId.encode(ids[i - 1], enc).compareTo(ShortId.encode(ids[i], enc)) < 0, enc.text());
            }
        }
    }

    @Test
    void keyringRotatesAndNeverShowsSecrets() {
        Keyring ring = Keyring.fromText("# keys\n" + KEY1 + "\n\n" + KEY2 + "\n");
        assertEquals(List.of(1, 2), ring.versions());
        assertEquals(2, ring.activeVersion());
        Keyring old = Keyring.fromText(KEY1);
        long shownOld = old.obfuscate(42);
        assertEquals(42, ring.reveal(1, shownOld), "old outputs reveal with the old key");
        assertNotEquals(shownOld, ring.obfuscate(42), "the highest version obfuscates");
        assertEquals(42, ring.revealTagged(old.obfuscateTagged(42)), "tagged text names its key");
        assertTrue(ring.obfuscateTagged(42).startsWith("2"));
        long shown = ring.obfuscate(Long.MAX_VALUE);
        assertTrue(shown >= 0);
        assertEquals(Long.MAX_VALUE, ring.reveal(shown));
        assertEquals("Keyring(versions=[1, 2], active=2)", ring.toString());

        InvalidKeyException unknown = assertThrows(InvalidKeyException.class, () -> ring.reveal(5, shown));
        assertTrue(unknown.getMessage().contains("v5"), unknown.getMessage());
        for (int v : new int[] {-1, 300, Integer.MIN_VALUE}) {
            InvalidKeyException e = assertThrows(InvalidKeyException.class, () -> ring.reveal(v, shown));
            assertTrue(e.getMessage().contains("v" + v), e.getMessage());
            assertThrows(InvalidKeyException.class, () -> Keyring.generate(v));
        }
        assertThrows(InvalidKeyException.class, () -> Keyring.generate(62));
        assertThrows(InvalidIdException.class, () -> ring.obfuscate(-42));
        assertThrows(InvalidIdException.class, () -> ring.reveal(Long.MIN_VALUE));
        InvalidKeyException dup = assertThrows(InvalidKeyException.class, () -> Keyring.fromText(KEY1 + "\n" + KEY1));
        assertFalse(dup.getMessage().contains("0102030405"), "no secret in " + dup.getMessage());
        InvalidKeyException line = assertThrows(InvalidKeyException.class, () -> Keyring.fromText(KEY1 + "\nidmint-key-v2:00"));
        assertTrue(line.getMessage().contains("line 2"), line.getMessage());
    }

    @Test
    void generatedKeysAreFreshAndUsable() {
        String text = Keyring.generateKeyText(7);
        assertTrue(text.matches("idmint-key-v7:[0-9a-f]{32}"), text);
        assertNotEquals(text, Keyring.generateKeyText(7));
        Keyring ring = Keyring.fromText(text);
        assertEquals(123456789L, ring.reveal(ring.obfuscate(123456789L)));
        Keyring ephemeral = Keyring.generate(61);
        assertEquals(61, ephemeral.activeVersion());
        assertEquals(5L, ephemeral.revealTagged(ephemeral.obfuscateTagged(5L)));
        assertTrue(ephemeral.obfuscateTagged(5L).startsWith("z"), "version 61 is base62 'z'");
    }

    @Test
    void uuid7GenerateIsVersion7AndIncreasing() {
        Instant before = Instant.now().minusSeconds(5);
        UUID a = Uuid7.generate();
        UUID b = Uuid7.generate();
        assertEquals(7, a.version());
        assertEquals(2, a.variant());
        Uuid7 ua = Uuid7.of(a);
        Uuid7 ub = Uuid7.of(b);
        assertTrue(ub.compareTo(ua) > 0, "strictly increasing");
        assertTrue(ua.time().isAfter(before) && ua.time().isBefore(Instant.now().plusSeconds(5)), ua.time().toString());
        assertEquals(a.toString(), ua.toString());
        assertThrows(InvalidUuidException.class, () -> Uuid7.of(UUID.randomUUID()), "a version-4 UUID");
    }

    @Test
    void uuid7GeneratorOnAManualClock() {
        ManualClock clock = new ManualClock(0x017F22E279B0L);
        Uuid7Generator gen = new Uuid7Generator(clock);
        Uuid7 a = Uuid7.of(gen.next());
        Uuid7 b = gen.nextUuid7();
        assertEquals(Instant.parse("2022-02-22T19:22:22Z"), a.time());
        assertEquals(a.randA() + 1, b.randA(), "same millisecond: the counter counts");
        assertTrue(a.randA() < 2048, "seeded with the top bit clear");
        String ulid = gen.nextUlid();
        assertEquals(26, ulid.length());
        Uuid7 c = Uuid7.parseUlid(ulid);
        assertTrue(c.compareTo(b) > 0);
        assertEquals(ulid, c.toUlid());
        clock.setMs(0x017F22E279B0L - 10_000); // back 10 s: ridden out, never a repeat
        assertTrue(Uuid7.of(gen.next()).compareTo(c) > 0);
    }

    @Test
    void uuid7UniqueAndIncreasingAcrossEightThreads() throws Exception {
        Uuid7Generator gen = new Uuid7Generator();
        int perThread = 50_000;
        List<List<UUID>> results = onThreads(() -> {
            List<UUID> out = new ArrayList<>(perThread);
            UUID last = null;
            for (int i = 0; i < perThread; i++) {
                UUID u = (i % 1000 == 999) ? Uuid7.parseUlid(gen.nextUlid()).toUuid() : gen.next();
                if (last != null && unsignedCompare(u, last) <= 0) {
                    throw new AssertionError("not increasing on one thread: " + last + " then " + u);
                }
                last = u;
                out.add(u);
            }
            return out;
        });
        Set<UUID> seen = new HashSet<>();
        long dups = 0;
        for (List<UUID> r : results) {
            for (UUID u : r) {
                if (!seen.add(u)) {
                    dups++;
                }
            }
        }
        assertEquals(0, dups, "duplicate UUIDs across 8 threads");
        assertEquals(THREADS * perThread, seen.size());
        for (List<UUID> r : results) {
            assertEquals(7, r.get(0).version());
            assertEquals(Uuid7.of(r.get(0)).toUuid(), r.get(0), "the core reads back what the fast path wrote");
        }
    }

    /** The 128-bit unsigned order, which is time order for UUIDv7. */
    static int unsignedCompare(UUID a, UUID b) {
        int c = Long.compareUnsigned(a.getMostSignificantBits(), b.getMostSignificantBits());
        return c != 0 ? c : Long.compareUnsigned(a.getLeastSignificantBits(), b.getLeastSignificantBits());
    }

    @Test
    void templateConversionsAndErrors() {
        Template t = Template.builder("%L%Y%M%D%m%5S").label("7").offset(ZoneOffset.ofHours(8)).build();
        assertEquals("7202405223000042", t.format(Instant.parse("2024-05-21T16:30:00Z"), 42));
        assertEquals(ZoneOffset.ofHours(8), t.offset());
        assertEquals(5, t.sequenceWidth());
        assertEquals(99_999L, t.capacity());
        assertEquals(CheckDigit.NONE, t.check());
        assertTrue(t.hasFullDate());
        assertEquals(20240522, t.dayOf(Instant.parse("2024-05-21T16:30:00Z")));
        assertEquals(new TemplateParts(2024, 5, 22, null, 30, null, "7", 42L, null), t.parse("7202405223000042"));

        ValueOutOfRangeException seq = assertThrows(ValueOutOfRangeException.class, () -> t.format(0L, -1));
        assertTrue(seq.getMessage().contains("-1"), seq.getMessage());
        assertThrows(ValueOutOfRangeException.class, () -> t.format(0L, 100_000));
        TimeOutOfRangeException time = assertThrows(TimeOutOfRangeException.class, () -> t.format(-5L, 1));
        assertTrue(time.getMessage().contains("-5"), time.getMessage());
        assertThrows(TimeOutOfRangeException.class, () -> t.dayOf(-1L));
        assertThrows(InvalidArgumentException.class, () -> Template.builder("%L%5S").build().format(0L, 1), "no label");
        assertThrows(InvalidArgumentException.class, () -> Template.builder("%5S").offset("Asia/Shanghai").build());
        assertThrows(InvalidArgumentException.class, () -> Template.builder("%5S").offset(ZoneOffset.ofHoursMinutesSeconds(1, 0, 30)).build());
        assertThrows(InvalidArgumentException.class, () -> Template.builder("%2L%5S").label("123").build());

        Template wide = Template.of("%19S");
        assertEquals(Long.MAX_VALUE, wide.capacity(), "every long fits a 19-digit sequence");
        assertEquals(Long.MAX_VALUE, wide.parse("9223372036854775807").sequence());
        assertThrows(InvalidIdException.class, () -> wide.parse("9223372036854775808"), "above a long");

        Layout twitter = Layout.of("twitter");
        assertEquals("20220628-1541815603606036480",
                Template.of("%Y%M%D-%19S").formatSnowflake(1541815603606036480L, twitter));
        assertThrows(InvalidTemplateException.class, () -> Template.of("%Y%M%D-%12S").formatSnowflake(1L, twitter));
        assertThrows(InvalidIdException.class, () -> Template.of("%Y%M%D-%19S").formatSnowflake(-1L, twitter));
    }

    @Test
    void orderNumbersCountPerDayAndResume() {
        ManualClock clock = new ManualClock(1_716_309_000_000L); // 2024-05-22 00:30 at +08:00
        Template t = Template.builder("%Y%M%D%3S").offset("+08:00").build();
        OrderNumbers orders = new OrderNumbers(t, clock);
        assertEquals("20240522001", orders.next());
        assertEquals("20240522002", orders.next());
        clock.advanceMs(86_400_000);
        assertEquals("20240523001", orders.next());
        assertEquals(t, orders.template());

        OrderNumbers resumed = OrderNumbers.builder(t).clock(clock).startingAt(20240523, 500).build();
        assertEquals("20240523500", resumed.next());
        assertThrows(InvalidArgumentException.class, () -> OrderNumbers.builder(t).startingAt(20240523, 0).build());
        InvalidArgumentException neg = assertThrows(InvalidArgumentException.class,
                () -> OrderNumbers.builder(t).startingAt(20240523, -3).build());
        assertTrue(neg.getMessage().contains("-3"), neg.getMessage());
        assertThrows(InvalidArgumentException.class, () -> OrderNumbers.builder(t).startingAt(-1, 1).build());
        assertThrows(InvalidTemplateException.class, () -> new OrderNumbers(Template.of("%H%m%5S")));

        CounterOverflowException full = assertThrows(CounterOverflowException.class, () -> {
            OrderNumbers o = OrderNumbers.builder(t).clock(clock).startingAt(20240523, 999).build();
            assertEquals("20240523999", o.next());
            o.next();
        });
        assertTrue(full.getMessage().contains("2024-05-23 (+08:00)"), full.getMessage());
        assertTrue(new OrderNumbers(t).next().matches("\\d{11}"));
    }

    @Test
    void orderNumbersUniqueAcrossEightThreads() throws Exception {
        OrderNumbers orders = new OrderNumbers(Template.of("%Y%M%D%7S"), new ManualClock(1_716_309_000_000L));
        List<List<String>> results = onThreads(() -> {
            List<String> out = new ArrayList<>();
            for (int i = 0; i < 5_000; i++) {
                out.add(orders.next());
            }
            return out;
        });
        Set<String> seen = new HashSet<>();
        long dups = 0;
        for (List<String> r : results) {
            for (String s : r) {
                if (!seen.add(s)) {
                    dups++;
                }
            }
        }
        assertEquals(0, dups, "duplicate order numbers across 8 threads");
        assertTrue(seen.contains("202405210040000"), "8 x 5000 numbers: 1..40000");
    }

    // ---- restart safety: Snowflake.builder(...).resumeAfter(lastId)

    static final long NOW = 1_700_000_000_000L;

    static long idTenSecondsAhead() {
        return Layout.of("twitter").compose(NOW + 10_000, Map.of("datacenter", 1L, "worker", 2L), 9);
    }

    @Test
    void resumeAfterWithErrorPolicyRefusesUntilTheClockCatchesUp() {
        ManualClock clock = new ManualClock(NOW);
        long last = idTenSecondsAhead();
        Snowflake g = Snowflake.builder("twitter").node("datacenter", 1).node("worker", 2)
                .resumeAfter(last).clock(clock).build(); // onRollback("error") is the default
        assertEquals("error", g.onRollback());
        ClockMovedBackwardsException e = assertThrows(ClockMovedBackwardsException.class, g::nextId);
        assertEquals("clock_moved_backwards", e.kind());
        assertTrue(e.getMessage().contains("10000"), e.getMessage());
        assertThrows(ClockMovedBackwardsException.class, () -> g.nextIds(3));
        clock.setMs(NOW + 10_000);
        long next = g.nextId();
        assertTrue(next > last, "never reissues");
        assertEquals(10, g.parse(next).sequence(), "continues in the same tick after the last ID");
    }

    @Test
    void resumeAfterWithContinuePolicyMintsGreaterIds() {
        ManualClock clock = new ManualClock(NOW);
        long last = idTenSecondsAhead();
        Snowflake g = Snowflake.builder("twitter").node("datacenter", 1).node("worker", 2)
                .onRollback("continue").resumeAfter(last).clock(clock).build();
        long prev = last;
        for (long id : g.nextIds(5000)) {
            assertTrue(id > prev, "every ID greater than the last one before the restart");
            prev = id;
        }
        long one = g.nextId();
        assertTrue(one > prev);
        assertTrue(g.parse(one).timeMs() >= NOW + 10_000, "runs ahead of the clock");
        assertTrue(g.stats().rollbacks() >= 1, "the rollback is counted");
    }

    @Test
    void resumeAfterWithWaitPolicy() {
        ManualClock clock = new ManualClock(NOW);
        long last = idTenSecondsAhead();
        Snowflake tooShort = Snowflake.builder("twitter").node("datacenter", 1).node("worker", 2)
                .onRollback("wait:500").resumeAfter(last).clock(clock).build();
        assertThrows(ClockMovedBackwardsException.class, tooShort::nextId, "10 s behind, waits 500 ms at most");
        Snowflake longEnough = Snowflake.builder("twitter").node("datacenter", 1).node("worker", 2)
                .onRollback("wait:20000").resumeAfter(last).clock(clock).build();
        assertTrue(longEnough.nextId() > last, "a manual clock moves itself forward while waited on");
    }

    @Test
    void resumeAfterIsChecked() {
        assertThrows(InvalidIdException.class, () -> Snowflake.builder("twitter").node("datacenter", 1)
                .node("worker", 2).resumeAfter(-1L).build());
        assertThrows(InvalidIdException.class, () -> Snowflake.builder("time:41,worker:4,sequence:8").node("worker", 1)
                .resumeAfter(Long.MAX_VALUE).build(), "uses bits above the layout's 53");
        Snowflake g = Snowflake.builder("twitter").node("datacenter", 1).node("worker", 2).resumeAfter(0L).build();
        assertTrue(g.nextId() > 0);
    }
}
