package io.idmint;

import java.util.ArrayList;
import java.util.List;

/**
 * The metrics every idmint package publishes, defined once in the core: names, instruments,
 * units and meanings. Their values come from {@link Snowflake#observe()} and
 * {@link SegmentClient#observe()}, counters the core keeps anyway, so reading them costs
 * nothing on the minting path.
 *
 * <pre>{@code
 * for (MetricDefinition d : Metrics.definitions()) {
 *     System.out.println(d.name() + " (" + d.instrument() + ", " + d.unit() + "): " + d.description());
 * }
 * }</pre>
 */
public final class Metrics {
    static {
        NativeLibrary.ensureLoaded();
    }

    private static final List<MetricDefinition> DEFINITIONS = load();

    private Metrics() {}

    private static List<MetricDefinition> load() {
        List<MetricDefinition> out = new ArrayList<>();
        for (io.idmint.ffi.MetricDefinition d : io.idmint.ffi.IdmintJvm.metricDefinitions()) {
            out.add(new MetricDefinition(d.name(), d.instrument(), d.unit(), d.description(), List.copyOf(d.attributes())));
        }
        return List.copyOf(out);
    }

    /** Every metric, in the order {@code docs/metrics.md} lists them. */
    public static List<MetricDefinition> definitions() {
        return DEFINITIONS;
    }
}
