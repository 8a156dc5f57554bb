package smoke;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.idmint.IdParts;
import io.idmint.Idmint;
import io.idmint.InvalidIdException;
import io.idmint.Layout;
import io.idmint.ObjectId;
import io.idmint.SegmentClient;
import io.idmint.SegmentTag;
import io.idmint.Snowflake;
import io.idmint.StoresNotInstalledException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

/**
 * io.idmint:idmint and its stores add-on io.idmint:idmint-stores as dependencies: the jars from the
 * local repository, their native libraries inside. With {@code -Didmint.slim=true} the project
 * depends on io.idmint:idmint alone (pom.xml), and each store call must be refused naming the
 * add-on.
 */
class SmokeTest {
    static final boolean SLIM = Boolean.getBoolean("idmint.slim");

    /** {@code call} in a package with the stores; without them, refused naming the add-on. */
    static void withStores(String what, Executable call) throws Throwable {
        if (!SLIM) {
            call.execute();
            return;
        }
        StoresNotInstalledException e = assertThrows(StoresNotInstalledException.class, call, what);
        assertEquals("stores_not_installed", e.kind());
        assertEquals(what + " needs idmint's stores, which this package does not include: add the dependency "
                + "io.idmint:idmint-stores:0.1.0 beside io.idmint:idmint", e.getMessage());
    }

    static JsonNode vectors(String file) throws Exception {
        return new ObjectMapper().readTree(Path.of(System.getProperty("idmint.vectors"), file).toFile());
    }

    @Test
    void theClassesComeFromTheInstalledJar() {
        String jar = Snowflake.class.getProtectionDomain().getCodeSource().getLocation().getPath();
        assertTrue(jar.startsWith(Path.of(System.getProperty("idmint.repo")).toUri().getPath()), jar);
        assertTrue(jar.endsWith("/io/idmint/idmint/0.1.0/idmint-0.1.0.jar"), jar);
        // The add-on's library and version file come from its own jar, when it is a dependency.
        java.net.URL addOn = Snowflake.class.getClassLoader().getResource("io/idmint/stores/idmint-stores.properties");
        if (SLIM) {
            assertEquals(null, addOn);
        } else {
            assertTrue(addOn.getPath().endsWith("/io/idmint/idmint-stores/0.1.0/idmint-stores-0.1.0.jar!/io/idmint/stores/idmint-stores.properties"),
                    addOn.toString());
        }
    }

    @Test
    void mintsAndParsesTheVectors() throws Exception {
        try (Snowflake gen = new Snowflake(1, 7)) {
            long a = gen.nextId();
            long b = gen.nextId();
            assertTrue(0 < a && a < b, a + " " + b);
            assertEquals(7L, gen.parse(b).nodes().get("worker"));
            // Through JNI, whose library the facade loads from the file it extracted from the jar.
            long[] more = gen.nextIds(2);
            assertTrue(b < more[0] && more[0] < more[1]);
        }
        ObjectId o1 = new ObjectId();
        ObjectId o2 = new ObjectId();
        assertTrue(o1.compareTo(o2) != 0 && o1.getTimestamp() > 1_700_000_000L, o1 + " " + o2);
        JsonNode valid = vectors("snowflake.json").get("valid");
        assertTrue(valid.size() > 10);
        for (JsonNode c : valid) {
            IdParts p = Layout.of(c.get("layout").asText()).parse(Long.parseLong(c.get("id").asText()));
            assertEquals(c.get("time_ms").asLong(), p.timeMs(), c.get("name").asText());
            assertEquals(c.get("sequence").asLong(), p.sequence(), c.get("name").asText());
            Map<String, Long> fields = new LinkedHashMap<>();
            for (Iterator<Map.Entry<String, JsonNode>> it = c.get("fields").fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                fields.put(e.getKey(), e.getValue().asLong());
            }
            assertEquals(fields, p.nodes(), c.get("name").asText());
        }
        for (JsonNode c : vectors("snowflake.json").get("invalid_ids")) {
            assertThrows(InvalidIdException.class,
                    () -> Layout.of(c.get("layout").asText()).parse(c.get("id").asText()), c.get("name").asText());
        }
        for (JsonNode c : vectors("objectid.json").get("valid")) {
            assertEquals(c.get("hex").asText(), ObjectId.parse(c.get("hex").asText()).toHexString());
        }
    }

    @Test
    void drawsFromASqliteSegmentStore(@TempDir Path dir) throws Throwable {
        withStores("SegmentClient.connect", () -> drawFromASqliteSegmentStore(dir));
    }

    static void drawFromASqliteSegmentStore(Path dir) {
        String url = "sqlite:" + dir.resolve("ids.db");
        long last;
        try (SegmentClient client = SegmentClient.connect(url)) {
            SegmentTag tag = client.tag("orders");
            long a = tag.nextId();
            last = tag.nextId();
            assertTrue(a < last, a + " " + last);
        }
        assertTrue(Files.exists(dir.resolve("ids.db")));
        try (SegmentClient client = SegmentClient.connect(url)) { // the store remembers
            long later = client.tag("orders").nextId();
            assertTrue(later > last, last + " then " + later);
        }
    }

    @Test
    void takesAWorkerLeaseFromSqlite(@TempDir Path dir) throws Throwable {
        withStores("Snowflake.Builder.lease", () -> takeAWorkerLeaseFromSqlite(dir));
        withStores("Idmint.leaseList", () -> Idmint.leaseList("sqlite:" + dir.resolve("leases.db")));
    }

    static void takeAWorkerLeaseFromSqlite(Path dir) {
        String url = "sqlite:" + dir.resolve("leases.db");
        try (Snowflake g = Snowflake.builder("twitter").lease(url).leaseRange(5, 5).leaseHolder("smoke").build()) {
            assertEquals(5L, g.nodes().get("worker"));
            assertEquals(5L, g.parse(g.nextId()).nodes().get("worker"));
            assertEquals("[5:held:smoke]", Idmint.leaseList(url).stream()
                    .map(l -> l.value() + ":" + l.state() + ":" + l.holder()).toList().toString());
        }
        assertTrue(Idmint.leaseList(url).stream().noneMatch(l -> l.state().equals("held")), "close() released it");
    }
}
