package io.idmint;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The metrics every idmint package publishes, defined once in the core: names, instruments,
 * units and meanings. Their values come from {@link Snowflake#observe()} and
 * {@link SegmentClient#observe()}, counters the core keeps anyway, so reading them costs
 * nothing on the minting path. {@link #health(List)} gives the core's health of such values.
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

    /**
     * The core's health of the generators and clients whose observations these are (those of
     * {@link Snowflake#observe()} and {@link SegmentClient#observe()}, of one or several):
     * down while a snowflake lease is not held, or while a segment tag has no IDs buffered and
     * failed store calls.
     *
     * <pre>{@code
     * List<Observation> all = new ArrayList<>(snowflake.observe());
     * all.addAll(segments.observe());
     * Health h = Metrics.health(all);
     * if (!h.isUp()) System.err.println("idmint down: " + h.reasons());
     * }</pre>
     *
     * @throws InvalidArgumentException for an unknown metric or attribute, a per-tag value
     *     without its tag, or a negative value
     */
    public static Health health(List<Observation> observations) {
        List<io.idmint.ffi.Observation> ffi = new ArrayList<>(observations.size());
        for (Observation o : observations) {
            List<io.idmint.ffi.MetricAttribute> attrs = new ArrayList<>(o.attributes().size());
            for (Map.Entry<String, String> a : o.attributes().entrySet()) {
                attrs.add(new io.idmint.ffi.MetricAttribute(a.getKey(), a.getValue()));
            }
            ffi.add(new io.idmint.ffi.Observation(o.metric(), o.value(), attrs));
        }
        return Health.of(Layout.call(() -> io.idmint.ffi.IdmintJvm.health(ffi)));
    }
}
