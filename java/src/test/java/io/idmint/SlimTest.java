package io.idmint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * The slim jar alone (io.idmint:idmint without io.idmint:idmint-stores): its own library, which
 * mints and parses, and refuses each call that needs a store with the core's
 * {@link StoresNotInstalledException} naming the add-on. Surefire runs it in a JVM of its own
 * without the add-on on the class path (java/pom.xml, execution {@code slim}), with the suites that
 * need no store (the vectors, the formats) run once more on this library; the other tests run
 * with the add-on's.
 */
class SlimTest {
    static String install() {
        String version = NativeLibrary.version(SlimTest.class.getClassLoader(), NativeLibrary.VERSION);
        return "add the dependency io.idmint:idmint-stores:" + version + " beside io.idmint:idmint";
    }

    @Test
    void theSlimLibraryIsTheOneLoaded() {
        ClassLoader loader = getClass().getClassLoader();
        assertNull(loader.getResource(NativeLibrary.STORES_VERSION), "the add-on is not on this class path");
        assertEquals("linux-x86-64/libidmint_jvm.so", NativeLibrary.choose(NativeLibrary.platform(), loader));
        assertFalse(NativeLibrary.hasStores(), "the library loaded has no stores");
    }

    @Test
    void mintsAndParsesWithoutTheStores() {
        try (Snowflake gen = new Snowflake(1, 7)) {
            long a = gen.nextId();
            long b = gen.nextId();
            assertTrue(0 < a && a < b, a + " " + b);
            assertEquals(7L, gen.parse(b).nodes().get("worker"));
        }
        Layout twitter = Layout.of("twitter");
        long id = twitter.compose(1_700_000_000_000L, Map.of("datacenter", 1L, "worker", 2L), 3);
        assertEquals(Map.of("datacenter", 1L, "worker", 2L), twitter.parse(id).nodes());
        assertEquals("snowflake", Idmint.parse(Long.toString(id), twitter).format());
        ObjectId o = new ObjectId();
        assertEquals(o, ObjectId.parse(o.toHexString()));
        assertEquals("objectid", Idmint.parse(o.toHexString()).format());
        OrderNumbers orders = OrderNumbers.builder(Template.of("%Y%M%D%4S")).build();
        assertTrue(orders.next().endsWith("0001"));
        assertThrows(InvalidIdException.class, () -> twitter.parse(-1L));
    }

    /** Every entry point to a store, by the name the core's message gives it. */
    static Map<String, Executable> storeCalls() {
        Map<String, Executable> c = new LinkedHashMap<>();
        c.put("SegmentClient.connect", () -> SegmentClient.connect("sqlite::memory:"));
        c.put("SegmentClient.connect ", () -> SegmentClient.builder("memory:").maxStep(10).connect());
        c.put("Snowflake.Builder.lease",
                () -> Snowflake.builder("twitter").lease("postgres://app:s3cret@db/ids").build());
        c.put("LeaseRange.parse", () -> Snowflake.builder("twitter").leaseRange("0..7"));
        c.put("Idmint.leaseList", () -> Idmint.leaseList("memory:"));
        c.put("RedisSnowflake.connect", () -> RedisSnowflake.connect("redis://127.0.0.1"));
        c.put("RedisSnowflake.connect ", () -> RedisSnowflake.builder(List.of("redis://a", "redis://b")).connect());
        c.put("a shared daily counter (a counter URL)",
                () -> OrderNumbers.builder(Template.of("%Y%M%D%4S")).counter("memory:").build());
        return c;
    }

    @Test
    void eachStoreCallIsRefusedNamingTheAddOn() {
        for (Map.Entry<String, Executable> call : storeCalls().entrySet()) {
            String what = call.getKey().trim();
            StoresNotInstalledException e = assertThrows(StoresNotInstalledException.class, call.getValue(), what);
            assertEquals("stores_not_installed", e.kind());
            assertEquals(what + " needs idmint's stores, which this package does not include: " + install(),
                    e.getMessage());
            assertInstanceOf(IdmintException.class, e);
            assertFalse(e.getMessage().contains("s3cret"), e.getMessage());
        }
        // The asynchronous forms fail their future with the same exception.
        CompletionException ce = assertThrows(CompletionException.class,
                () -> SegmentClient.connectAsync("memory:").join());
        assertInstanceOf(StoresNotInstalledException.class, ce.getCause());
        ce = assertThrows(CompletionException.class, () -> RedisSnowflake.connectAsync("redis://127.0.0.1").join());
        assertInstanceOf(StoresNotInstalledException.class, ce.getCause());
    }

    @Test
    void theChecksThatNeedNoStoreStay() {
        // A counter's name without a counter URL is refused as before, not as a missing add-on.
        assertThrows(InvalidArgumentException.class,
                () -> OrderNumbers.builder(Template.of("%Y%M%D%4S")).name("shop").build());
        assertThrows(InvalidArgumentException.class, () -> Snowflake.builder("twitter")
                .node("datacenter", 0).node("worker", 0).onExhausted("spin").build());
    }
}
