package io.idmint.bench;

import com.github.f4b6a3.tsid.TsidFactory;
import io.idmint.CallCost;
import io.idmint.ObjectId;
import io.idmint.SegmentClient;
import io.idmint.SegmentTag;
import io.idmint.Snowflake;
import me.ahoo.cosid.segment.IdSegmentDistributor;
import me.ahoo.cosid.segment.SegmentChainId;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * idmint against hutool's Snowflake and ObjectId, tsid-creator, CosId's SegmentChainId and the
 * MongoDB Java driver's ObjectId ({@code org.bson.types.ObjectId}), in one JVM,
 * single-threaded. Each row:
 * warm up, then several timed rounds of calls; the median rate is printed as a Markdown table
 * and written to {@code docs/bench/jvm.md} with the date, machine and command on top
 * ({@code IDMINT_BENCH_WRITE=0}: print only). Each row's IDs are then checked for duplicates;
 * the two MongoDB-layout ObjectId rows (idmint, bson) also for repeats in a longer run drawn
 * back to back ({@link #repeats}).
 *
 * <p>Run: {@code cd java && mvn -q -Pbench test-compile exec:java} (-Dbench.seconds=1 -Dbench.rounds=5).
 */
public final class Bench {
    static final double SECONDS = Double.parseDouble(System.getProperty("bench.seconds", "1"));
    static final int ROUNDS = Integer.getInteger("bench.rounds", 5);
    static long sink;
    /** Where the ObjectId rows put each object, so neither side's allocation is optimized away. */
    static Object sinkObject;

    /**
     * A row: its rate, the layout cap it is measured against, duplicates among {@link #CHECKED} IDs,
     * and repeats in {@link #BACK_TO_BACK} IDs drawn back to back (null where that is not run).
     */
    record Row(String name, double idsPerSecond, Double cap, long duplicates, Long repeats) {
        Row(String name, double idsPerSecond, Double cap, Supplier<?> ids) {
            this(name, idsPerSecond, cap, Bench.duplicates(ids), null);
        }

        Row(String name, double idsPerSecond, Double cap, LongSupplier ids) {
            this(name, idsPerSecond, cap, Bench.duplicates(ids), null);
        }

        /**
         * A MongoDB-layout ObjectId row: {@code ids} (values with equals/hashCode) for the
         * duplicates column, {@code bytes} (the 12 bytes of a new ObjectId) for {@link #repeats}.
         */
        static Row mongoLayout(String name, double idsPerSecond, Supplier<?> ids, Supplier<byte[]> bytes) {
            long duplicates = Bench.duplicates(ids);
            return new Row(name, idsPerSecond, null, duplicates, Bench.repeats(bytes));
        }
    }

    /** How many IDs of each row are checked for duplicates, after its timed rounds. */
    static final int CHECKED = 1 << 20;

    /** Repeats among {@link #CHECKED} IDs of {@code ids}. */
    static long duplicates(LongSupplier ids) {
        long[] a = new long[CHECKED];
        for (int i = 0; i < a.length; i++) {
            a[i] = ids.getAsLong();
        }
        Arrays.sort(a);
        long d = 0;
        for (int i = 1; i < a.length; i++) {
            d += a[i] == a[i - 1] ? 1 : 0;
        }
        return d;
    }

    /** Repeats among {@link #CHECKED} IDs of {@code ids} (values with equals/hashCode). */
    static long duplicates(Supplier<?> ids) {
        Set<Object> seen = new HashSet<>(2 * CHECKED);
        long d = 0;
        for (int i = 0; i < CHECKED; i++) {
            d += seen.add(ids.get()) ? 0 : 1;
        }
        return d;
    }

    /**
     * How many ObjectIds the back-to-back check draws: three seconds' worth of 3-byte counters.
     * {@link #CHECKED} (2^20) fits in one second's 2^24 counters, so that check cannot show a
     * counter that comes round within a second; a run longer than 2^24 drawn as fast as the
     * generator goes can.
     */
    static final int BACK_TO_BACK = 3 << 24;

    /** An ObjectId's 4-byte seconds and 5-byte random value: whose counters one {@link BitSet} holds. */
    record SecondAndRandom(long seconds, long random) {}

    /**
     * Repeats in {@link #BACK_TO_BACK} ObjectIds drawn back to back, each given as its 12 bytes
     * (MongoDB's layout: 4-byte seconds, 5-byte random, 3-byte counter): the IDs whose
     * (seconds, random, counter) was seen before in the run. Both generators keep one random
     * value a process, so only a few (seconds, random) pairs occur: each gets a bit for each of
     * the 2^24 counters (2 MiB), which holds the run in memory where a set of 50 M IDs would not.
     */
    static long repeats(Supplier<byte[]> ids) {
        Map<SecondAndRandom, BitSet> seen = new HashMap<>();
        long seconds = -1;
        long random = -1;
        BitSet counters = null;
        long r = 0;
        for (int i = 0; i < BACK_TO_BACK; i++) {
            byte[] b = ids.get();
            long s = unsigned(b, 0, 4);
            long x = unsigned(b, 4, 5);
            int counter = (int) unsigned(b, 9, 3);
            // The map only when the second or the random value changes, not once an ID.
            if (s != seconds || x != random) {
                seconds = s;
                random = x;
                counters = seen.computeIfAbsent(new SecondAndRandom(s, x), k -> new BitSet(1 << 24));
            }
            if (counters.get(counter)) {
                r++;
            } else {
                counters.set(counter);
            }
        }
        return r;
    }

    /** The big-endian unsigned number in {@code len} bytes of {@code b} from {@code at}. */
    static long unsigned(byte[] b, int at, int len) {
        long v = 0;
        for (int i = at; i < at + len; i++) {
            v = v << 8 | (b[i] & 0xFF);
        }
        return v;
    }

    /** Median IDs per second of {@code step}, which mints {@code idsPerCall} IDs per call. */
    static double measure(LongSupplier step, int idsPerCall) {
        long warmEnd = System.nanoTime() + (long) (SECONDS * 1e9);
        while (System.nanoTime() < warmEnd) {
            sink ^= step.getAsLong();
        }
        double[] rates = new double[ROUNDS];
        for (int r = 0; r < ROUNDS; r++) {
            long calls = 0;
            long start = System.nanoTime();
            long end = start + (long) (SECONDS * 1e9);
            long now;
            do {
                for (int i = 0; i < 64; i++) {
                    sink ^= step.getAsLong();
                }
                calls += 64;
                now = System.nanoTime();
            } while (now < end);
            rates[r] = calls * (double) idsPerCall / ((now - start) / 1e9);
        }
        Arrays.sort(rates);
        return rates[ROUNDS / 2];
    }

    /**
     * ObjectIds one process may make in a second: the 3-byte counter's 2^24 values, after which
     * idmint's core waits for the next second rather than let the counter come round to a value
     * that second already used (core/src/objectid.rs).
     */
    static final double OBJECT_IDS_PER_SECOND = 1 << 24;

    /** The step of both segment generators: idmint's default, given to CosId's distributor too. */
    static final long SEGMENT_STEP = 1000;

    public static void main(String[] args) {
        Snowflake idmint = new Snowflake(1, 1);
        double cap = idmint.layout().idsPerSecondCap();
        cn.hutool.core.lang.Snowflake hutool = new cn.hutool.core.lang.Snowflake(1, 1);
        TsidFactory tsid = TsidFactory.newInstance1024(1);

        List<Row> rows = new ArrayList<>();
        rows.add(new Row("idmint `Snowflake.nextId()` (twitter)", measure(idmint::nextId, 1), cap, idmint::nextId));
        rows.add(new Row("hutool `Snowflake.nextId()`", measure(hutool::nextId, 1), cap, hutool::nextId));
        rows.add(new Row("tsid-creator `TsidFactory.create()` (1024 nodes)", measure(() -> tsid.create().toLong(), 1), cap,
                () -> tsid.create().toLong()));
        rows.add(new Row("idmint `Snowflake.nextIds(1000)`", measure(() -> idmint.nextIds(1000)[999], 1000), cap, fromBatches(idmint)));
        // A layout whose cap (2^21 per ms) no caller reaches: the cost of the call itself.
        Snowflake wide = Snowflake.builder("time:41@1ms,worker:1,sequence:21").node("worker", 0).build();
        rows.add(new Row("idmint `nextId()`, 21-bit sequence (call cost: cap out of reach)", measure(wide::nextId, 1), null, wide::nextId));
        // The same generator, a core call per ID through each path: the crossing's cost.
        rows.add(new Row("idmint 21-bit core `next_id` per call through JNI", measure(CallCost.jni(wide), 1), null, CallCost.jni(wide)));
        rows.add(new Row("idmint 21-bit core `next_id` per call through JNA direct mapping", measure(CallCost.jna(wide), 1), null,
                CallCost.jna(wide)));
        rows.add(Row.mongoLayout("idmint `new ObjectId()`", measure(() -> (sinkObject = new ObjectId()) == null ? 1 : 0, 1),
                ObjectId::new, () -> new ObjectId().toByteArray()));
        rows.add(new Row("idmint `new ObjectId().toHexString()`", measure(() -> new ObjectId().toHexString().length(), 1), null,
                (Supplier<?>) () -> new ObjectId().toHexString()));
        // The MongoDB Java driver's ObjectId: idmint's layout, its counter wrapping past 2^24 a second.
        rows.add(Row.mongoLayout("bson `new ObjectId()` (MongoDB Java driver)",
                measure(() -> (sinkObject = new org.bson.types.ObjectId()) == null ? 1 : 0, 1),
                org.bson.types.ObjectId::new, () -> new org.bson.types.ObjectId().toByteArray()));
        rows.add(new Row("hutool `ObjectId.nextBytes()`", measure(() -> (sinkObject = cn.hutool.core.lang.ObjectId.nextBytes()) == null ? 1 : 0, 1), null,
                (Supplier<?>) () -> java.nio.ByteBuffer.wrap(cn.hutool.core.lang.ObjectId.nextBytes())));
        SegmentClient segments = SegmentClient.builder("memory:").defaultStep(SEGMENT_STEP).connect();
        SegmentTag orders = segments.tag("orders");
        rows.add(new Row("idmint `SegmentTag.nextId()` (`memory:`, step " + SEGMENT_STEP + ")", measure(orders::nextId, 1), null, orders::nextId));
        SegmentChainId cosid = new SegmentChainId(new IdSegmentDistributor.Atomic(SEGMENT_STEP));
        rows.add(new Row("CosId `SegmentChainId.generate()` (`IdSegmentDistributor.Atomic`, step " + SEGMENT_STEP + ")",
                measure(cosid::generate, 1), null, cosid::generate));
        segments.close();

        double idmintSingle = rate(rows, "idmint `Snowflake.nextId()` (twitter)");
        double hutoolSingle = rate(rows, "hutool `Snowflake.nextId()`");
        double idmintWide = rate(rows, "idmint `nextId()`, 21-bit");
        double tsidRate = rate(rows, "tsid-creator");
        double jni = rate(rows, "idmint 21-bit core `next_id` per call through JNI");
        double jna = rate(rows, "idmint 21-bit core `next_id` per call through JNA");
        double idmintOid = rate(rows, "idmint `new ObjectId()`");
        double hutoolOid = rate(rows, "hutool `ObjectId.nextBytes()`");
        double bsonOid = rate(rows, "bson `new ObjectId()`");
        long idmintRepeats = row(rows, "idmint `new ObjectId()`").repeats();
        long bsonRepeats = row(rows, "bson `new ObjectId()`").repeats();
        double idmintSegment = rate(rows, "idmint `SegmentTag.nextId()`");
        double cosidSegment = rate(rows, "CosId");
        List<String> lines = new ArrayList<>();
        lines.add(String.format("%s, %s %s, %d cores, %d rounds x %.1f s, median",
                System.getProperty("java.vm.name"), System.getProperty("java.version"), System.getProperty("os.arch"),
                Runtime.getRuntime().availableProcessors(), ROUNDS, SECONDS));
        lines.add("");
        lines.add("| benchmark | IDs/s | of layout cap (4.096 M/s) | idmint / this | duplicates in " + CHECKED
                + " | repeats in " + BACK_TO_BACK + " back to back |");
        lines.add("|---|---:|---:|---:|---:|---:|");
        for (Row r : rows) {
            double base = r.name().contains("ObjectId") ? idmintOid
                    : r.name().contains("Segment") ? idmintSegment
                    : r.name().contains("21-bit") || r.name().contains("tsid") ? idmintWide : idmintSingle;
            lines.add(String.format("| %s | %.3f M | %s | %.2f | %d | %s |", r.name(), r.idsPerSecond() / 1e6,
                    r.cap() == null ? "n/a" : String.format("%.1f %%", 100 * r.idsPerSecond() / r.cap()),
                    base / r.idsPerSecond(), r.duplicates(), r.repeats() == null ? "n/a" : r.repeats().toString()));
        }
        lines.add("");
        lines.add("The last column is the idmint row of the same kind over the row: twitter `Snowflake.nextId()` for");
        lines.add("the capped snowflake rows, the 21-bit `nextId()` for tsid-creator and the per-call rows,");
        lines.add("`new ObjectId()` for the ObjectId rows, `SegmentTag.nextId()` for the segment rows.");
        lines.add("The repeats column is run for the two MongoDB-layout `new ObjectId()` rows (idmint, bson):");
        lines.add("IDs drawn back to back, three seconds' worth of 3-byte counters, counted as repeats when their");
        lines.add("(seconds, random, counter) came before. The " + CHECKED + " of the duplicates column fit in one second's");
        lines.add("2^24 counters, so they cannot show a counter that comes round.");
        lines.add("");
        lines.add(String.format("- `new ObjectId()`, idmint / hutool `ObjectId.nextBytes()`: **%.2f**; idmint at %.1f %% of the"
                + " 2^24 a second one process may make (then the core waits for the next second; hutool's ObjectId, 4 bytes"
                + " of machine and process then a 4-byte counter, has no such limit)",
                idmintOid / hutoolOid, 100 * idmintOid / OBJECT_IDS_PER_SECOND));
        lines.add(String.format("- `new ObjectId()`, idmint / bson (MongoDB Java driver, the same layout): **%.2f**; repeats in %d"
                + " drawn back to back: bson **%d**, idmint **%d** (bson's 3-byte counter wraps, so past 2^24 IDs in a second"
                + " it reissues IDs of that second; idmint's core waits for the next second instead)",
                idmintOid / bsonOid, BACK_TO_BACK, bsonRepeats, idmintRepeats));
        lines.add(String.format("- twitter `nextId()`: idmint **%.1f %%** of the cap, hutool %.1f %%",
                100 * idmintSingle / cap, 100 * hutoolSingle / cap));
        lines.add(String.format("- uncapped `nextId()` (21-bit sequence): **%.1f M/s**, idmint / tsid-creator `create()`: **%.2f**",
                idmintWide / 1e6, idmintWide / tsidRate));
        lines.add(String.format("- one core `next_id` per call (21-bit layout): JNI **%.1f ns**, JNA direct mapping **%.1f ns** a call",
                1e9 / jni, 1e9 / jna));
        lines.add(String.format("- segment `nextId()` from memory, idmint / CosId `SegmentChainId`: **%.2f**", idmintSegment / cosidSegment));
        System.out.println();
        lines.forEach(System.out::println);
        if (sink == 42) {
            System.out.println();
        }
        if (!"0".equals(System.getenv("IDMINT_BENCH_WRITE"))) {
            writeReport(lines);
        }
    }

    /** One ID after another from batches of {@code gen.nextIds(1000)}. */
    static LongSupplier fromBatches(Snowflake gen) {
        long[][] batch = {new long[0]};
        int[] at = {0};
        return () -> {
            if (at[0] == batch[0].length) {
                batch[0] = gen.nextIds(1000);
                at[0] = 0;
            }
            return batch[0][at[0]++];
        };
    }

    /** The rate of the one row whose name starts with {@code prefix}. */
    static double rate(List<Row> rows, String prefix) {
        return row(rows, prefix).idsPerSecond();
    }

    /** The first row whose name starts with {@code prefix}. */
    static Row row(List<Row> rows, String prefix) {
        return rows.stream().filter(r -> r.name().startsWith(prefix)).findFirst()
                .orElseThrow(() -> new IllegalStateException("no bench row " + prefix));
    }

    /** docs/bench/jvm.md: the printed table under the date, machine and command of this run. */
    static void writeReport(List<String> lines) {
        // mvn runs the bench in java/; the repository root is its parent.
        Path root = Path.of(System.getProperty("user.dir")).toAbsolutePath();
        if (!Files.isDirectory(root.resolve("docs/bench"))) {
            root = root.getParent();
        }
        Path file = root.resolve("docs/bench/jvm.md");
        // The cargo profile of the native library, when not the default (release).
        String profile = System.getenv("IDMINT_CARGO_PROFILE");
        StringBuilder command = new StringBuilder("cd java && ");
        if (profile != null && !profile.isEmpty()) {
            command.append("IDMINT_CARGO_PROFILE=").append(profile).append(' ');
        }
        command.append("mvn -q -Pbench test-compile exec:java");
        for (String prop : List.of("bench.seconds", "bench.rounds")) {
            if (System.getProperty(prop) != null) {
                command.append(" -D").append(prop).append('=').append(System.getProperty(prop));
            }
        }
        List<String> out = new ArrayList<>(List.of(
                "# JVM package benchmark",
                "",
                "- date: " + DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'").withZone(ZoneOffset.UTC).format(Instant.now()),
                String.format("- machine: %s %s, %s × %d CPUs, load average %s", System.getProperty("os.name").toLowerCase(),
                        System.getProperty("os.arch"), procLine("/proc/cpuinfo", "model name"),
                        Runtime.getRuntime().availableProcessors(), procLine("/proc/loadavg", "")),
                String.format("- runtime: %s %s, hutool 5.8.26, tsid-creator 5.2.6, CosId (cosid-core) 2.13.3,"
                        + " MongoDB Java driver (bson) 5.8.1 (java/pom.xml)",
                        System.getProperty("java.vm.name"), System.getProperty("java.version")),
                "- command: `" + command + "` (from the repository root)",
                "",
                "Written by the bench; running the command again replaces this file.",
                ""));
        out.addAll(lines);
        try {
            Files.writeString(file, String.join("\n", out) + "\n");
            System.out.println();
            System.out.println("wrote " + file);
        } catch (IOException e) {
            System.err.println("could not write " + file + ": " + e);
        }
    }

    /**
     * The value of the first line of a /proc file starting with {@code key} (the text after ':'),
     * or for an empty key its first three words; "unknown" where there is no such file.
     */
    static String procLine(String path, String key) {
        try {
            for (String line : Files.readAllLines(Path.of(path))) {
                if (key.isEmpty()) {
                    return String.join(" ", Arrays.asList(line.trim().split("\\s+")).subList(0, 3));
                }
                if (line.startsWith(key)) {
                    return line.substring(line.indexOf(':') + 1).trim();
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux: say so below
        }
        return "unknown";
    }
}
