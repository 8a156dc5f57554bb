package io.idmint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.Assumptions;

/** Shared by the multi-process tests: test servers, worker processes, duplicate counts. */
final class Processes {
    private Processes() {}

    /**
     * The URL of a test server from {@code env} (set by tests/run.sh). Missing: the test fails
     * under {@code IDMINT_REQUIRE_SERVERS=1}, else it is skipped.
     */
    static String server(String env) {
        String url = System.getenv(env);
        if (url == null || url.isEmpty()) {
            if ("1".equals(System.getenv("IDMINT_REQUIRE_SERVERS"))) {
                fail(env + " is not set, and IDMINT_REQUIRE_SERVERS=1 (tests/run.sh starts the servers)");
            }
            Assumptions.abort(env + " not set: start the test servers (tests/servers.sh)");
        }
        return url;
    }

    /**
     * A new directory for SQLite files under {@code target/test-scratch} (removed by
     * {@code mvn clean}), not a JUnit {@code @TempDir}: a store's connections may still be
     * closing (and deleting their {@code -wal} file) when a test returns, which would fail the
     * temporary directory's removal.
     */
    static Path scratch(String stem) throws IOException {
        Path root = Path.of("target", "test-scratch");
        Files.createDirectories(root);
        return Files.createTempDirectory(root, stem).toAbsolutePath();
    }

    /**
     * The URL of segment store {@code store} (sqlite, postgres, mariadb, redis, etcd, zookeeper)
     * for one test: a new SQLite file, or the test server (see {@link #server}).
     */
    static String segmentStore(String store) throws IOException {
        return switch (store) {
            case "sqlite" -> "sqlite:" + scratch("segments").resolve("segments.db");
            case "postgres" -> server("IDMINT_TEST_POSTGRES_URL");
            case "mariadb" -> server("IDMINT_TEST_MYSQL_URL");
            case "redis" -> server("IDMINT_TEST_REDIS_URL");
            case "etcd" -> server("IDMINT_TEST_ETCD_URL");
            case "zookeeper" -> server("IDMINT_TEST_ZK_URL");
            default -> throw new IllegalArgumentException("no segment store " + store);
        };
    }

    /**
     * The URL of lease store {@code store} (sqlite, postgres, etcd, zookeeper) for one test: a
     * new SQLite file, or the test server with a table (SQL) or key prefix of its own, as the
     * servers keep their data between runs.
     */
    static String leaseStore(String store) throws IOException {
        return switch (store) {
            case "sqlite" -> "sqlite:" + scratch("lease").resolve("leases.db");
            case "postgres" -> withParam(server("IDMINT_TEST_POSTGRES_URL"), "table=" + unique("jvm_lease"));
            case "etcd" -> withParam(server("IDMINT_TEST_ETCD_URL"), "prefix=" + unique("jvm_lease"));
            case "zookeeper" -> withParam(server("IDMINT_TEST_ZK_URL"), "prefix=" + unique("jvm_lease"));
            default -> throw new IllegalArgumentException("no lease store " + store);
        };
    }

    /** {@code url} with a query parameter added. */
    static String withParam(String url, String param) {
        return url + (url.contains("?") ? "&" : "?") + param;
    }

    /** A name no earlier run used, for tags, tables and key prefixes. */
    static String unique(String stem) {
        return stem + "_" + ProcessHandle.current().pid() + "_" + Long.toHexString(System.nanoTime());
    }

    /**
     * {@code count} worker processes of {@code mainClass}, started in {@code dir}: worker
     * {@code i} gets the arguments {@code args.apply(outfile)}, writes its IDs to
     * {@code dir/ids-i.txt}, says it is ready in {@code ids-i.txt.ready} and draws once
     * {@link #go()} is called.
     */
    record Workers(List<Process> procs, List<Path> outs, List<Path> logs, Path goFile) {
        static Workers start(Path dir, int count, String mainClass, Function<Path, List<String>> args)
                throws IOException {
            Workers w = new Workers(new ArrayList<>(), new ArrayList<>(), new ArrayList<>(), dir.resolve("go"));
            for (int i = 0; i < count; i++) {
                Path out = dir.resolve("ids-" + i + ".txt");
                Path log = dir.resolve("worker-" + i + ".log");
                w.outs.add(out);
                w.logs.add(log);
                w.procs.add(java(mainClass, w.goFile, log, args.apply(out).toArray(String[]::new)));
            }
            return w;
        }

        /** Each worker's ready file, once all exist. */
        List<Path> awaitReady() throws Exception {
            List<Path> ready = outs.stream().map(o -> Path.of(o + ".ready")).toList();
            awaitFiles(ready, procs, logs);
            return ready;
        }

        /** Let the workers draw, wait for them to finish, and read every ID they wrote, sorted. */
        long[] go() throws Exception {
            Files.writeString(goFile, "go\n");
            awaitExit(procs, logs);
            return readSorted(outs);
        }
    }

    /** Start {@code java -cp <test classpath> mainClass args…}, its output to {@code log}. */
    static Process java(String mainClass, Path go, Path log, String... args) throws IOException {
        String cp = Files.readString(Path.of(System.getProperty("idmint.testClasspath",
                "target/test-classpath.txt"))).trim();
        List<String> cmd = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp", cp, mainClass));
        cmd.addAll(Arrays.asList(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().put("IDMINT_WORKER_GO", go.toString());
        return pb.start();
    }

    /** Run {@code sql} on the SQLite file {@code db} from another process ({@link SqliteEdit}); the rows it changed. */
    static int sqlite(Path db, String sql) throws Exception {
        String cp = Files.readString(Path.of(System.getProperty("idmint.testClasspath",
                "target/test-classpath.txt"))).trim();
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp", cp,
                "io.idmint.SqliteEdit", db.toString(), sql).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes()).trim();
        assertEquals(0, p.waitFor(), out);
        return Integer.parseInt(out.substring(out.lastIndexOf('\n') + 1).trim());
    }

    /** Wait until each of {@code files} exists (the workers are ready), or fail naming the logs. */
    static void awaitFiles(List<Path> files, List<Process> procs, List<Path> logs) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        for (Path f : files) {
            while (!Files.exists(f)) {
                for (int i = 0; i < procs.size(); i++) {
                    if (!procs.get(i).isAlive() && !Files.exists(files.get(i))) {
                        fail("worker " + i + " exited with " + procs.get(i).exitValue() + ": "
                                + Files.readString(logs.get(i)));
                    }
                }
                if (System.nanoTime() > deadline) {
                    fail("workers not ready after 120 s");
                }
                Thread.sleep(10);
            }
        }
    }

    /** Wait for every worker; each must exit 0. */
    static void awaitExit(List<Process> procs, List<Path> logs) throws Exception {
        for (int i = 0; i < procs.size(); i++) {
            Process p = procs.get(i);
            if (!p.waitFor(300, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                fail("worker " + i + " did not finish in 300 s");
            }
            assertEquals(0, p.exitValue(), "worker " + i + ": " + Files.readString(logs.get(i)));
        }
    }

    /** Every ID of {@code files} (one decimal a line), sorted. */
    static long[] readSorted(List<Path> files) throws IOException {
        long[] all = new long[0];
        int n = 0;
        for (Path f : files) {
            for (String line : Files.readAllLines(f)) {
                if (n == all.length) {
                    all = Arrays.copyOf(all, Math.max(1024, all.length * 2));
                }
                all[n++] = Long.parseLong(line);
            }
        }
        all = Arrays.copyOf(all, n);
        Arrays.sort(all);
        return all;
    }

    /** How many IDs of a sorted array equal the one before them. */
    static long duplicates(long[] sorted) {
        long d = 0;
        for (int i = 1; i < sorted.length; i++) {
            if (sorted[i] == sorted[i - 1]) {
                d++;
            }
        }
        return d;
    }

    static void assertPositive(long[] sorted) {
        assertTrue(sorted.length == 0 || sorted[0] > 0, "IDs are positive");
    }
}
