package io.idmint;

import java.util.List;

/**
 * One metric every idmint package publishes, as the core defines it (the table is in
 * {@code docs/metrics.md}): {@link Metrics#definitions()} lists them all. A metrics library
 * builds one instrument per definition and reads its values from {@link Snowflake#observe()}
 * and {@link SegmentClient#observe()} when it collects.
 *
 * @param name the OpenTelemetry name, dotted ({@code idmint.segment.refills})
 * @param instrument {@code counter} (a total that only grows) or {@code gauge}
 * @param unit the UCUM unit ({@code s}, {@code 1}, or an annotation such as {@code {id}})
 * @param description what it counts, one sentence
 * @param attributes the attributes its values carry ({@code kind}, {@code tag})
 */
public record MetricDefinition(String name, String instrument, String unit, String description, List<String> attributes) {
    /** Whether it is a counter (a total that only grows) rather than a gauge. */
    public boolean isCounter() {
        return "counter".equals(instrument);
    }
}
