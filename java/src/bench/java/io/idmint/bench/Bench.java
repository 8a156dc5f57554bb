package io.idmint.bench;

import com.github.f4b6a3.tsid.TsidFactory;
import io.idmint.ObjectId;
import io.idmint.Snowflake;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * idmint against hutool's Snowflake and tsid-creator, in one JVM, single-threaded. Each row:
 * warm up, then several timed rounds of calls; the median rate is printed as a Markdown table.
 *
 * <p>Run: {@code cd java && mvn -q -Pbench test-compile exec:java} (-Dbench.seconds=1 -Dbench.rounds=5).
 */
public final class Bench {
    static final double SECONDS = Double.parseDouble(System.getProperty("bench.seconds", "1"));
    static final int ROUNDS = Integer.getInteger("bench.rounds", 5);
    static long sink;

    record Row(String name, double idsPerSecond, Double cap) {}

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

    public static void main(String[] args) {
        Snowflake idmint = new Snowflake(1, 1);
        double cap = idmint.layout().idsPerSecondCap();
        cn.hutool.core.lang.Snowflake hutool = new cn.hutool.core.lang.Snowflake(1, 1);
        TsidFactory tsid = TsidFactory.newInstance1024(1);

        List<Row> rows = new ArrayList<>();
        rows.add(new Row("idmint `Snowflake.nextId()` (twitter)", measure(idmint::nextId, 1), cap));
        rows.add(new Row("hutool `Snowflake.nextId()`", measure(hutool::nextId, 1), cap));
        rows.add(new Row("tsid-creator `TsidFactory.create()` (1024 nodes)", measure(() -> tsid.create().toLong(), 1), cap));
        rows.add(new Row("idmint `Snowflake.nextIds(1000)`", measure(() -> idmint.nextIds(1000)[999], 1000), cap));
        // A layout whose cap (2^21 per ms) no caller reaches: the cost of the call itself.
        Snowflake wide = Snowflake.builder("time:41@1ms,worker:1,sequence:21").node("worker", 0).build();
        rows.add(new Row("idmint `nextId()`, 21-bit sequence (call cost: cap out of reach)", measure(wide::nextId, 1), null));
        rows.add(new Row("idmint `new ObjectId()`", measure(() -> new ObjectId().hashCode(), 1), null));
        rows.add(new Row("idmint `new ObjectId().toHexString()`", measure(() -> new ObjectId().toHexString().length(), 1), null));
        rows.add(new Row("hutool `ObjectId.nextBytes()`", measure(() -> cn.hutool.core.lang.ObjectId.nextBytes()[11], 1), null));

        double idmintSingle = rows.get(0).idsPerSecond();
        double idmintOid = rows.get(5).idsPerSecond();
        System.out.printf("%n%s, %s %s, %d cores, %d rounds x %.1f s, median%n%n",
                System.getProperty("java.vm.name"), System.getProperty("java.version"), System.getProperty("os.arch"),
                Runtime.getRuntime().availableProcessors(), ROUNDS, SECONDS);
        System.out.println("| benchmark | IDs/s | of layout cap (4.096 M/s) | idmint / this |");
        System.out.println("|---|---:|---:|---:|");
        for (Row r : rows) {
            double base = r.name().contains("ObjectId") ? idmintOid : idmintSingle;
            System.out.printf("| %s | %.3f M | %s | %.2f |%n", r.name(), r.idsPerSecond() / 1e6,
                    r.cap() == null ? "n/a" : String.format("%.1f %%", 100 * r.idsPerSecond() / r.cap()),
                    base / r.idsPerSecond());
        }
        if (sink == 42) {
            System.out.println();
        }
    }
}
