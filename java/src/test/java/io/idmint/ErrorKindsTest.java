package io.idmint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/** Every error kind the core reports, caused for real, arrives as its own unchecked class. */
class ErrorKindsTest {
    /** One real way to cause each kind. */
    static Map<String, Executable> causes() {
        Map<String, Executable> c = new LinkedHashMap<>();
        c.put("invalid_layout", () -> Layout.of("time:41,worker:30,sequence:12"));
        c.put("value_out_of_range", () -> new Snowflake(32, 0));
        c.put("unknown_field", () -> new Snowflake("twitter", Map.of("datacenter", 1L, "worker", 1L, "rack", 1L)));
        c.put("missing_field", () -> new Snowflake("twitter", Map.of("datacenter", 1L)));
        c.put("time_out_of_range", () -> Layout.of("twitter").compose(0L, Map.of("datacenter", 0L, "worker", 0L), 0));
        c.put("epoch_in_future", () -> Snowflake.builder("twitter").epoch("9000-01-01T00:00:00Z")
                .node("datacenter", 0).node("worker", 0).build());
        c.put("layout_exhausted", () -> new Snowflake("baidu", Map.of("worker", 1L)));
        c.put("clock_moved_backwards", () -> {
            ManualClock clock = new ManualClock(1_700_000_000_000L);
            Snowflake g = Snowflake.builder("twitter").node("datacenter", 0).node("worker", 0).clock(clock).build();
            g.nextId();
            clock.setMs(1_699_999_999_000L);
            g.nextId();
        });
        c.put("invalid_id", () -> Layout.of("twitter").parse(-1L));
        c.put("invalid_object_id", () -> new ObjectId("xyz"));
        c.put("invalid_argument", () -> Snowflake.builder("twitter").node("datacenter", 0).node("worker", 0)
                .onExhausted("spin").build());
        c.put("invalid_key", () -> Keyring.fromText("idmint-key-v1:0011"));
        c.put("invalid_encoding", () -> ShortId.decode("0-1", Encoding.BASE62));
        c.put("invalid_template", () -> Template.of("%Y%M%D"));
        c.put("counter_overflow", () -> {
            OrderNumbers orders = new OrderNumbers(Template.of("%Y%M%D%1S"), new ManualClock(1_716_309_000_000L));
            for (int i = 0; i < 10; i++) {
                orders.next();
            }
        });
        c.put("invalid_tag", () -> OrderNumbers.builder(Template.of("%Y%M%D%3S")).counter("memory:")
                .name("bad name").build());
        c.put("store_unavailable", () -> OrderNumbers.builder(Template.of("%Y%M%D%3S"))
                .counter("redis://127.0.0.1:1").build());
        c.put("unknown_tag", () -> {
            try (SegmentClient client = SegmentClient.builder("memory:").autoCreate(false).connect()) {
                client.tag("orders");
            }
        });
        c.put("range_below_issued", () -> {
            Path db = Processes.scratch("kinds").resolve("ids.db");
            try (SegmentClient client = SegmentClient.builder("sqlite:" + db).defaultStep(10).connect()) {
                client.nextId("orders");
                Processes.sqlite(db, "UPDATE idmint_segments SET max_id = 0");
                client.tag("orders").nextIds(100);
            }
        });
        c.put("tag_exhausted", () -> {
            try (SegmentClient client = SegmentClient.connect("memory:")) {
                client.createTag(TagSpec.of("end").start(Long.MAX_VALUE - 5).step(100));
                client.nextId("end");
            }
        });
        c.put("no_free_lease", () -> {
            String url = "sqlite:" + Processes.scratch("kinds").resolve("leases.db");
            try (Snowflake held = Snowflake.builder("twitter").lease(url).leaseRange(0, 0).build()) {
                Snowflake.builder("twitter").lease(url).leaseRange(0, 0).build();
            }
        });
        c.put("lease_lost", () -> {
            Path db = Processes.scratch("kinds").resolve("leases.db");
            try (Snowflake g = Snowflake.builder("twitter").lease("sqlite:" + db).leaseRange(0, 0)
                    .leaseTtl(Duration.ofMillis(300)).build()) {
                Processes.sqlite(db, "UPDATE idmint_workers SET token = 'stolen', expires_at = expires_at + 60000");
                for (long end = System.nanoTime() + 10_000_000_000L; System.nanoTime() < end; Thread.sleep(5)) {
                    g.nextId();
                }
            }
        });
        c.put("closed", () -> {
            SegmentClient client = SegmentClient.connect("memory:");
            client.close();
            client.nextId("orders");
        });
        c.put("would_block", () -> {
            try (SegmentClient client = SegmentClient.connect("memory:")) {
                client.tag("orders").tryNextId();
            }
        });
        c.put("invalid_uuid", () -> Uuid7.parse("6ba7b810-9dad-41d1-80b4-00c04fd430c8"));
        c.put("check_digit_mismatch", () -> {
            Template t = Template.builder("SO-%y%M%D-%6S").check(CheckDigit.LUHN).build();
            String n = t.format(1_716_309_000_000L, 7);
            t.parse(n.replace("-000007", "-000008"));
        });
        c.put("not_authorized", () -> {
            // An http:// store whose server refuses the request as idmint serve refuses one
            // without a token: 401 and the API's error body (cli/tests/serve_store.rs runs the
            // real server).
            HttpServer http = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
            http.createContext("/", ex -> {
                byte[] body = "{\"error\":{\"kind\":\"unauthorized\",\"message\":\"no bearer token\"}}"
                        .getBytes(StandardCharsets.UTF_8);
                ex.getResponseHeaders().add("Content-Type", "application/json");
                ex.sendResponseHeaders(401, body.length);
                ex.getResponseBody().write(body);
                ex.close();
            });
            http.start();
            try (SegmentClient client = SegmentClient.connect("http://127.0.0.1:" + http.getAddress().getPort())) {
                client.tag("orders");
            } finally {
                http.stop(0);
            }
        });
        return c;
    }

    /**
     * Kinds no Java program can cause: {@code forked} is raised in the child of a {@code fork()},
     * which the JVM never does (it starts processes with fork+exec, and a new JVM builds new
     * objects).
     */
    static final Set<String> NOT_REACHABLE_FROM_JAVA = Set.of("forked");

    /**
     * Kinds caused for real in another test: {@code stores_not_installed} needs the slim library,
     * which SlimTest has in a JVM of its own (this one has the add-on's).
     */
    static final Set<String> CAUSED_IN_SLIM_TEST = Set.of("stores_not_installed");

    @Test
    void everyCoreKindHasItsOwnUncheckedClass() {
        Set<Class<?>> classes = new HashSet<>();
        for (String kind : Idmint.errorKinds()) {
            IdmintException ex = IdmintException.of(kind, "message of " + kind);
            assertEquals(VectorsTest.CLASS_OF_KIND.get(kind), ex.getClass(), kind);
            assertNotEquals(IdmintException.class, ex.getClass(), "a subclass for " + kind);
            assertEquals(kind, ex.kind());
            assertEquals("message of " + kind, ex.getMessage());
            assertTrue(causes().containsKey(kind) || NOT_REACHABLE_FROM_JAVA.contains(kind)
                    || CAUSED_IN_SLIM_TEST.contains(kind), "no test causes " + kind);
            classes.add(ex.getClass());
        }
        assertEquals(Idmint.errorKinds().size(), classes.size(), "one class per kind");
        IdmintException future = IdmintException.of("some_future_kind", "m");
        assertEquals(IdmintException.class, future.getClass());
        assertEquals("some_future_kind", future.kind());
    }

    @Test
    void everyReachableKindIsCausedForReal() {
        for (Map.Entry<String, Executable> e : causes().entrySet()) {
            assertTrue(Idmint.errorKinds().contains(e.getKey()), e.getKey());
            Class<? extends IdmintException> cls = VectorsTest.CLASS_OF_KIND.get(e.getKey());
            IdmintException ex = assertThrows(cls, e.getValue(), e.getKey());
            assertEquals(e.getKey(), ex.kind());
            assertEquals(cls, ex.getClass(), "exactly the kind's class");
            assertInstanceOf(RuntimeException.class, ex, "unchecked");
            assertTrue(ex.getMessage().length() > 10, ex.getMessage());
        }
    }

    @Test
    void messagesAreTheCores() {
        ValueOutOfRangeException e = assertThrows(ValueOutOfRangeException.class,
                () -> Layout.of("redis-lua").compose(1426212000000L, Map.of("shard", 4096L), 4));
        assertEquals("shard value 4096 is out of range: valid values are 0..=4095", e.getMessage());
        InvalidObjectIdException o = assertThrows(InvalidObjectIdException.class,
                () -> new ObjectId("507f1f77bcf86cd79943901g"));
        assertEquals("invalid ObjectId `507f1f77bcf86cd79943901g`: character 'g' at position 23 is not hex (0-9, a-f)",
                o.getMessage());
    }

    @Test
    void negativeValuesAreTypedErrorsNotWraps() {
        Layout twitter = Layout.of("twitter");
        for (long id : new long[] {-1L, Long.MIN_VALUE, -4096L}) {
            InvalidIdException e = assertThrows(InvalidIdException.class, () -> twitter.parse(id));
            assertTrue(e.getMessage().contains("negative"), e.getMessage());
            assertThrows(InvalidIdException.class, () -> new Snowflake(0, 0).parse(id));
        }
        assertThrows(InvalidArgumentException.class, () -> new Snowflake(1, 1).nextIds(-1));
        assertThrows(InvalidArgumentException.class, () -> new Snowflake(1, 1).nextIds(Integer.MIN_VALUE));
        assertThrows(ValueOutOfRangeException.class, () -> new Snowflake(-1, 0));
        assertThrows(ValueOutOfRangeException.class, () -> new Snowflake(0, Long.MIN_VALUE));
        assertThrows(TimeOutOfRangeException.class,
                () -> twitter.compose(-1L, Map.of("datacenter", 0L, "worker", 0L), 0));
        assertThrows(ValueOutOfRangeException.class,
                () -> twitter.compose(1426212000000L, Map.of("datacenter", 0L, "worker", 0L), -1));
        assertThrows(InvalidArgumentException.class, () -> new ManualClock(-5));
        assertThrows(InvalidObjectIdException.class, () -> new ObjectId(new byte[11]));
    }

    @Test
    void parseIdReadsDecimalLongsOnly() {
        assertEquals(Long.MAX_VALUE, Idmint.parseId("9223372036854775807"));
        assertEquals(0L, Idmint.parseId("0"));
        for (String bad : new String[] {"9223372036854775808", "-1", "12a", "", " 1", "0x10"}) {
            assertThrows(InvalidIdException.class, () -> Idmint.parseId(bad), bad);
        }
    }

    @Test
    void rollbackPoliciesFromText() {
        ManualClock clock = new ManualClock(1_700_000_000_000L);
        Snowflake cont = Snowflake.builder("twitter").node("datacenter", 1).node("worker", 1)
                .onRollback("continue").clock(clock).build();
        long a = cont.nextId();
        clock.setMs(1_699_999_990_000L);
        long b = cont.nextId();
        assertTrue(b > a, "continue never reissues");
        assertTrue(cont.stats().rollbacks() >= 1, "rollback counted");
        assertEquals("continue", cont.onRollback());
        assertNotEquals(cont.onExhausted(), "");
    }
}
