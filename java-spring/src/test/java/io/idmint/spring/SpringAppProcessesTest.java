package io.idmint.spring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.idmint.Idmint;
import io.idmint.LeaseInfo;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The starter in a real Spring Boot application on PostgreSQL: two JVMs of
 * {@code io.idmint.spring.app.OrdersApp}, each saving 50,000 entities from 8 threads through
 * Spring Data JPA with {@code @IdmintId} keys (snowflake {@code Long}, segment {@code long},
 * snowflake {@code String}), configured by {@code idmint.*} properties only. Then: no key
 * twice, both node values in the snowflake keys, the properties bound, the health and the
 * Prometheus meters with the real values, a stolen lease turning the health DOWN, and SIGTERM
 * releasing the lease in the store. Each JVM's web server binds port 0 (the OS picks it) and
 * the app writes the port it got to a file (Spring Boot's {@code WebServerPortFileWriter}, see
 * {@code OrdersApp}), read here.
 */
class SpringAppProcessesTest {
    private static final int JVMS = 2;
    private static final int THREADS = 8;
    private static final int PER_THREAD = 6250;
    private static final List<String> TABLES = List.of("spring_it_orders", "spring_it_invoices", "spring_it_customers");

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final ObjectMapper json = new ObjectMapper();
    private final List<Process> workers = new ArrayList<>();

    @AfterEach
    void stop() throws InterruptedException {
        for (Process p : workers) {
            p.destroyForcibly();
            p.waitFor(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void twoJvmsOfEightThreadsSaveUniqueKeys() throws Exception {
        String store = postgresUrl();
        URI u = URI.create(store);
        String user = u.getUserInfo();
        String jdbc = "jdbc:postgresql://" + u.getHost() + ":" + u.getPort() + u.getPath() + "?reWriteBatchedInserts=true";
        try (Connection c = DriverManager.getConnection(jdbc, user, null); Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS spring_it_orders, spring_it_invoices, spring_it_customers, "
                    + "spring_it_leases, spring_it_segments");
            s.execute("CREATE TABLE spring_it_orders (id BIGINT PRIMARY KEY, item TEXT)");
            s.execute("CREATE TABLE spring_it_invoices (id BIGINT PRIMARY KEY, order_id BIGINT NOT NULL)");
            s.execute("CREATE TABLE spring_it_customers (id VARCHAR(20) PRIMARY KEY, last_order_id BIGINT)");
        }

        Path logs = Files.createDirectories(Path.of("target", "spring-it"));
        Files.deleteIfExists(logs.resolve("summary.txt"));
        int[] ports = new int[JVMS];
        Path[] portFiles = new Path[JVMS];
        for (int i = 0; i < JVMS; i++) {
            portFiles[i] = logs.resolve("worker-" + i + ".port").toAbsolutePath();
            Files.deleteIfExists(portFiles[i]);
            ProcessBuilder pb = new ProcessBuilder(javaBin(), "-Xmx512m", "-cp", testClasspath(),
                    "io.idmint.spring.app.OrdersApp", "--server.port=0");
            pb.environment().put("IT_PORT_FILE", portFiles[i].toString());
            pb.environment().put("IT_STORE", store);
            pb.environment().put("IT_JDBC", jdbc);
            pb.environment().put("IT_DB_USER", user);
            pb.environment().put("IT_HOLDER", holder(i));
            pb.redirectErrorStream(true).redirectOutput(logs.resolve("worker-" + i + ".log").toFile());
            workers.add(pb.start());
        }
        for (int i = 0; i < JVMS; i++) {
            ports[i] = awaitPort(i, portFiles[i], logs);
            awaitUp(i, ports[i], logs);
        }

        // Both JVMs at once: 2 x 8 threads x 6250 entities.
        List<CompletableFuture<HttpResponse<String>>> fills = new ArrayList<>();
        for (int port : ports) {
            fills.add(http.sendAsync(post(port, "/fill?threads=" + THREADS + "&perThread=" + PER_THREAD),
                    HttpResponse.BodyHandlers.ofString()));
        }
        StringBuilder summary = new StringBuilder("spring-boot app (2 JVMs, tests/run.sh jvm):\n");
        long[] snowflakesSaved = new long[JVMS];
        long[] invoicesSaved = new long[JVMS];
        for (int i = 0; i < JVMS; i++) {
            HttpResponse<String> r = fills.get(i).get(300, TimeUnit.SECONDS);
            assertEquals(200, r.statusCode(), r.body());
            JsonNode saved = json.readTree(r.body());
            assertEquals((long) THREADS * PER_THREAD,
                    saved.get("orders").asLong() + saved.get("invoices").asLong() + saved.get("customers").asLong());
            snowflakesSaved[i] = saved.get("orders").asLong() + saved.get("customers").asLong();
            invoicesSaved[i] = saved.get("invoices").asLong();
            summary.append("JVM ").append(i + 1).append(": ").append(saved).append(" (ms: its 8 threads' time)\n");
        }

        long rows = 0;
        try (Connection c = DriverManager.getConnection(jdbc, user, null); Statement s = c.createStatement()) {
            for (String table : TABLES) {
                long[] n = longs(s, "SELECT count(*), count(DISTINCT id) FROM " + table);
                assertEquals(n[0], n[1], table + ": a key twice");
                assertTrue(n[0] > 0, table + " is empty");
                rows += n[0];
            }
            // The snowflake keys carry both JVMs' leased node values (twitter: bits 12..21).
            assertEquals(2, longs(s, "SELECT count(DISTINCT (id >> 12) & 1023) FROM spring_it_orders")[0]);
            // idmint.segment.tags.invoices.start=1000 was bound and applied.
            assertTrue(longs(s, "SELECT min(id) FROM spring_it_invoices")[0] >= 1000);
            assertEquals(0, longs(s, "SELECT count(*) FROM spring_it_customers WHERE id !~ '^[0-9]+$'")[0]);
            assertEquals(0, longs(s, "SELECT count(*) FROM spring_it_customers c JOIN spring_it_orders o ON c.id = o.id::text")[0],
                    "a String key and a Long key from one generator are the same ID");
        }
        assertEquals((long) JVMS * THREADS * PER_THREAD, rows);
        summary.append(rows).append(" entities saved by ").append(JVMS).append(" JVMs x ").append(THREADS)
                .append(" threads into PostgreSQL through @IdmintId keys, 0 duplicate keys\n");

        for (int i = 0; i < JVMS; i++) {
            int port = ports[i];
            // The properties bound (as actuator's configprops shows them).
            JsonNode props = json.readTree(get(port, "/actuator/configprops").body());
            JsonNode idmint = props.findValue("idmint-io.idmint.spring.IdmintProperties").get("properties");
            assertEquals("0..1", idmint.at("/snowflake/lease/range").asText());
            assertEquals("PT5S", idmint.at("/snowflake/lease/ttl").asText());
            assertEquals(holder(i), idmint.at("/snowflake/lease/holder").asText());
            assertEquals(2000, idmint.at("/segment/tags/invoices/step").asLong());
            assertTrue(idmint.at("/jackson/idsAsStrings").asBoolean());

            // Health: UP, with the lease and the node values it fills.
            HttpResponse<String> health = get(port, "/actuator/health");
            assertEquals(200, health.statusCode(), health.body());
            JsonNode component = json.readTree(health.body()).at("/components/idmint");
            assertEquals("UP", component.get("status").asText(), health.body());
            assertTrue(component.at("/details/snowflake/lease/held").asBoolean(), health.body());
            assertTrue(component.at("/details/snowflake/nodes").has("worker"), health.body());
            assertTrue(component.at("/details/segment/tags/invoices/remaining").asLong() >= 0, health.body());

            // The meters, as Prometheus reads them: the core's counts.
            String prom = get(port, "/actuator/prometheus").body();
            assertEquals(snowflakesSaved[i], (long) metric(prom, "idmint_ids_issued_total", "kind=\"snowflake\""),
                    "snowflake IDs issued: one per entity saved");
            double segmentIssued = metric(prom, "idmint_ids_issued_total", "kind=\"segment\",tag=\"invoices\"");
            assertTrue(segmentIssued >= invoicesSaved[i], "segment IDs issued " + segmentIssued + " < " + invoicesSaved[i]);
            assertEquals(1.0, metric(prom, "idmint_lease_held", ""));
            assertTrue(metric(prom, "idmint_lease_fence_seconds", "") > 1.7e9);
            assertTrue(metric(prom, "idmint_segment_refills_total", "tag=\"invoices\"") > 0);
            assertTrue(metric(prom, "idmint_segment_refill_time_seconds_total", "tag=\"invoices\"") > 0);
            assertTrue(metric(prom, "idmint_segment_refill_max_seconds", "tag=\"invoices\"") > 0);
            assertTrue(prom.contains("# HELP idmint_segment_refills_total Ranges fetched from the store"), prom);
        }

        // JSON: @IdmintId keys as strings (idmint.jackson.ids-as-strings), @IdAsString too, other
        // longs as numbers.
        JsonNode sample = json.readTree(get(ports[0], "/sample").body());
        assertTrue(sample.at("/order/id").isTextual(), sample.toString());
        assertTrue(sample.at("/invoice/id").isTextual(), sample.toString());
        assertTrue(sample.at("/customer/lastOrderId").isTextual(), sample.toString());
        assertTrue(sample.at("/invoice/orderId").isNumber(), sample.toString());

        // A lease taken behind the second JVM's back: the next renewal finds it gone, no other
        // value of 0..1 is free, and the health goes DOWN.
        String leases = store + "?table=spring_it_leases";
        long stolen = heldBy(leases, holder(1));
        try (Connection c = DriverManager.getConnection(jdbc, user, null); Statement s = c.createStatement()) {
            assertEquals(1, s.executeUpdate("UPDATE spring_it_leases SET token = 'test', holder = 'test',"
                    + " expires_at = expires_at + 600000 WHERE value = " + stolen));
        }
        awaitDown(ports[1]);

        // SIGTERM: Spring closes the beans; the first JVM's lease is released at once (free, not
        // frozen until it would have expired).
        long released = heldBy(leases, holder(0));
        for (Process p : workers) {
            p.destroy();
        }
        for (int i = 0; i < JVMS; i++) {
            assertTrue(workers.get(i).waitFor(60, TimeUnit.SECONDS), "worker " + i + " did not stop on SIGTERM");
        }
        for (LeaseInfo l : Idmint.leaseList(leases)) {
            assertFalse(l.holder().startsWith("spring-it-"), "still held after SIGTERM: " + l);
            if (l.value() == released) {
                assertEquals("free", l.state(), "the lease released at shutdown: " + l);
            }
        }
        summary.append("health UP with the lease held, DOWN once it was taken away; meters in /actuator/prometheus;"
                + " lease ").append(released).append(" free after SIGTERM\n");
        Files.writeString(logs.resolve("summary.txt"), summary);
    }

    private static String holder(int i) {
        return "spring-it-" + (i + 1);
    }

    /** The value {@code holder} holds now (exactly one). */
    private static long heldBy(String leases, String holder) {
        List<Long> values = new ArrayList<>();
        for (LeaseInfo l : Idmint.leaseList(leases)) {
            if (l.holder().equals(holder) && l.state().equals("held")) {
                values.add(l.value());
            }
        }
        assertEquals(1, values.size(), holder + " holds " + values);
        return values.get(0);
    }

    /**
     * The port worker {@code i}'s web server bound, from the file the app writes once Tomcat
     * listens (Spring Boot writes it in place: an empty or partly written file is read again).
     * Generous limits: two JVMs start at once on a loaded 2-core machine.
     */
    private int awaitPort(int i, Path portFile, Path logs) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(300);
        while (System.nanoTime() < deadline) {
            if (Files.exists(portFile)) {
                String text = Files.readString(portFile).trim();
                if (text.matches("[1-9][0-9]{0,4}")) {
                    return Integer.parseInt(text);
                }
            }
            if (!workers.get(i).isAlive()) {
                fail("worker " + i + " exited:\n" + Files.readString(logs.resolve("worker-" + i + ".log")));
            }
            Thread.sleep(100);
        }
        fail("worker " + i + " wrote no port file in 300 s:\n" + Files.readString(logs.resolve("worker-" + i + ".log")));
        return 0;
    }

    private void awaitUp(int i, int port, Path logs) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(300);
        while (System.nanoTime() < deadline) {
            if (!workers.get(i).isAlive()) {
                fail("worker " + i + " exited:\n" + Files.readString(logs.resolve("worker-" + i + ".log")));
            }
            try {
                if (get(port, "/actuator/health").statusCode() == 200) {
                    return;
                }
            } catch (IOException notYet) {
                // Not listening yet.
            }
            Thread.sleep(200);
        }
        fail("worker " + i + " not up in 300 s:\n" + Files.readString(logs.resolve("worker-" + i + ".log")));
    }

    private void awaitDown(int port) throws Exception {
        String last = "";
        // Generous: the next renewal (well within the 5 s TTL) finds the lease gone, however
        // loaded the machine.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (System.nanoTime() < deadline) {
            HttpResponse<String> r = get(port, "/actuator/health");
            last = r.body();
            JsonNode component = json.readTree(last).at("/components/idmint");
            if (r.statusCode() == 503 && "DOWN".equals(component.get("status").asText())) {
                assertFalse(component.at("/details/snowflake/lease/held").asBoolean(), last);
                return;
            }
            Thread.sleep(100);
        }
        fail("the health did not go DOWN after the lease was taken away: " + last);
    }

    /** The value of the Prometheus sample {@code name{labels}} (labels: a part of the label set, in order). */
    private static double metric(String prometheus, String name, String labels) {
        Pattern line = Pattern.compile("^" + Pattern.quote(name) + "(\\{[^}]*\\})? (\\S+)$", Pattern.MULTILINE);
        Matcher m = line.matcher(prometheus);
        while (m.find()) {
            String set = m.group(1) == null ? "" : m.group(1);
            if (set.contains(labels)) {
                return Double.parseDouble(m.group(2));
            }
        }
        fail("no " + name + "{" + labels + "} in\n" + prometheus);
        return 0;
    }

    private static long[] longs(Statement s, String sql) throws Exception {
        try (ResultSet r = s.executeQuery(sql)) {
            r.next();
            long[] out = new long[r.getMetaData().getColumnCount()];
            for (int i = 0; i < out.length; i++) {
                out[i] = r.getLong(i + 1);
            }
            return out;
        }
    }

    private HttpResponse<String> get(int port, String path) throws Exception {
        HttpRequest r = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(30)).build();
        return http.send(r, HttpResponse.BodyHandlers.ofString());
    }

    private static HttpRequest post(int port, String path) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(300)).POST(HttpRequest.BodyPublishers.noBody()).build();
    }

    private static String javaBin() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /** The test classpath (Surefire's), for the worker JVMs. */
    private static String testClasspath() {
        String cp = System.getProperty("surefire.test.class.path");
        return cp != null && !cp.isEmpty() ? cp : System.getProperty("java.class.path");
    }

    /**
     * The PostgreSQL test server's URL (tests/run.sh sets it). Missing: the test fails under
     * IDMINT_REQUIRE_SERVERS=1, else it is skipped.
     */
    private static String postgresUrl() {
        String url = System.getenv("IDMINT_TEST_POSTGRES_URL");
        if (url == null || url.isEmpty()) {
            if ("1".equals(System.getenv("IDMINT_REQUIRE_SERVERS"))) {
                fail("IDMINT_TEST_POSTGRES_URL is not set, and IDMINT_REQUIRE_SERVERS=1 (tests/run.sh starts the servers)");
            }
            Assumptions.abort("IDMINT_TEST_POSTGRES_URL not set: start the test servers (tests/servers.sh)");
        }
        return url;
    }
}
