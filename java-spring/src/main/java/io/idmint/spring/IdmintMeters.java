package io.idmint.spring;

import io.idmint.MetricDefinition;
import io.idmint.Metrics;
import io.idmint.Observation;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * Micrometer meters for the metrics the core defines ({@link Metrics#definitions()}, listed in
 * {@code docs/metrics.md}): a function counter per counter and a gauge per gauge, for each set
 * of attributes a source reports, reading the source's {@code observe()} when the registry is
 * scraped. Nothing is counted here and no name is made up: names, units, meanings and values
 * are the core's.
 *
 * <pre>{@code
 * IdmintMeters meters = new IdmintMeters();
 * meters.source("snowflake", snowflake::observe);
 * meters.source("segment", segmentClient::observe);
 * meters.bindTo(registry);   // idmint.ids.issued{kind=snowflake,tag=}, ...
 * }</pre>
 *
 * <p>A segment tag first used after {@link #bindTo} gets its meters at the next
 * {@link #refresh()}: the starter refreshes when the application is ready (the tags of
 * {@code @IdmintId} fields are loaded by then) and then once a minute.
 */
public final class IdmintMeters implements MeterBinder {
    private final Map<String, MetricDefinition> definitions = new LinkedHashMap<>();
    private final Map<String, Supplier<List<Observation>>> sources = new LinkedHashMap<>();
    /** Meters registered so far, by source, metric and attributes. */
    private final Set<List<Object>> registered = ConcurrentHashMap.newKeySet();
    private volatile MeterRegistry registry;

    /** Meters for no source yet: add them with {@link #source}. */
    public IdmintMeters() {
        for (MetricDefinition d : Metrics.definitions()) {
            definitions.put(d.name(), d);
        }
    }

    /** Publish the values {@code observe} reports ({@code Snowflake::observe}, {@code SegmentClient::observe}). */
    public IdmintMeters source(String name, Supplier<List<Observation>> observe) {
        sources.put(name, observe);
        return this;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        this.registry = registry;
        refresh();
    }

    /** Register meters for attributes the sources report now and did not before (a segment tag used since). */
    public void refresh() {
        MeterRegistry r = registry;
        if (r == null) {
            return;
        }
        for (Map.Entry<String, Supplier<List<Observation>>> source : sources.entrySet()) {
            for (Observation o : source.getValue().get()) {
                if (registered.add(List.of(source.getKey(), o.metric(), o.attributes()))) {
                    register(r, source.getValue(), o);
                }
            }
        }
    }

    private void register(MeterRegistry r, Supplier<List<Observation>> source, Observation o) {
        MetricDefinition d = definitions.get(o.metric());
        List<Tag> tags = new ArrayList<>();
        // Every attribute the definition names, empty where this source has none (a snowflake's
        // IDs have no tag): Prometheus requires one set of label names per metric, and reads an
        // empty label as an absent one.
        for (String a : d.attributes()) {
            tags.add(Tag.of(a, o.attributes().getOrDefault(a, "")));
        }
        String metric = o.metric();
        Map<String, String> attributes = o.attributes();
        if (d.isCounter()) {
            FunctionCounter.builder(metric, source, s -> read(s, metric, attributes))
                    .description(d.description()).baseUnit(baseUnit(d.unit())).tags(tags).register(r);
        } else {
            Gauge.builder(metric, source, s -> read(s, metric, attributes))
                    .description(d.description()).baseUnit(baseUnit(d.unit())).tags(tags).register(r);
        }
    }

    /** The value of {@code metric} with {@code attributes} now; NaN once the source stops reporting it (closed). */
    private static double read(Supplier<List<Observation>> source, String metric, Map<String, String> attributes) {
        try {
            for (Observation o : source.get()) {
                if (o.metric().equals(metric) && o.attributes().equals(attributes)) {
                    return o.value();
                }
            }
        } catch (RuntimeException closed) {
            // A generator closed at shutdown while the registry is still being read.
        }
        return Double.NaN;
    }

    /**
     * The core's UCUM unit as Micrometer's base unit: {@code s} is {@code seconds} (Prometheus
     * then names it {@code _seconds}); {@code 1} and annotations such as {@code {id}} are counts,
     * which carry no unit in a meter's name.
     */
    static String baseUnit(String ucum) {
        return "s".equals(ucum) ? "seconds" : null;
    }
}
