package io.idmint;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One metric's value at one moment, as the core computes it.
 *
 * @param metric the metric's name, one of {@link Metrics#definitions()}
 * @param value a count, seconds, or 0/1
 * @param attributes attribute names and values, in the order the definition names them
 */
public record Observation(String metric, double value, Map<String, String> attributes) {
    static List<Observation> of(List<io.idmint.ffi.Observation> all) {
        Observation[] out = new Observation[all.size()];
        for (int i = 0; i < out.length; i++) {
            io.idmint.ffi.Observation o = all.get(i);
            Map<String, String> attrs = new LinkedHashMap<>();
            for (io.idmint.ffi.MetricAttribute a : o.attributes()) {
                attrs.put(a.name(), a.value());
            }
            out[i] = new Observation(o.metric(), o.value(), Collections.unmodifiableMap(attrs));
        }
        return List.of(out);
    }
}
