package io.idmint;

import java.time.Instant;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * A layout {@link Idmint#plan(long, long, long) the planner} chose for a need: its shape, what
 * it can mint and until when.
 *
 * <pre>{@code
 * PlannedLayout p = Idmint.plan(1024, 4_000_000, 69, Instant.parse("2010-11-04T01:42:54.657Z"), null).get(0);
 * p.spec();          // time:41@1ms,worker:10,sequence:12,epoch=1288834974657
 * p.end();           // 2080-07-10T17:30:30.209Z
 * Snowflake gen = Snowflake.builder(p.layout()).node("worker", 7).build();
 * }</pre>
 *
 * @param spec          the layout's spec ({@link Layout#of(String)} reads it; {@link #layout()})
 * @param tickMs        the tick of its time field, ms
 * @param timeBits      bits of time
 * @param nodeBits      bits of its node field {@code worker} (0: none)
 * @param sequenceBits  bits of sequence
 * @param nodes         how many nodes it tells apart
 * @param capPerSecond  how many IDs one node can mint a second
 * @param endMs         the first instant its time field cannot hold, unix ms: minting stops there
 * @param endText       the same as RFC 3339, e.g. {@code 2080-07-10T17:30:30.209Z}
 * @param beyond2p53Ms  the first instant its IDs can pass 2^53 (where a JavaScript number or a
 *                      {@code double} stops holding them exactly), unix ms; empty when they never do
 */
public record PlannedLayout(String spec, long tickMs, int timeBits, int nodeBits, int sequenceBits, long nodes,
        long capPerSecond, long endMs, String endText, OptionalLong beyond2p53Ms) {

    static PlannedLayout of(io.idmint.ffi.PlannedLayout p) {
        Long beyond = p.beyond253Ms();
        return new PlannedLayout(p.spec(), p.tickMs(), p.timeBits(), p.nodeBits(), p.sequenceBits(), p.nodes(),
                p.capPerSecond(), p.endMs(), p.end(), beyond == null ? OptionalLong.empty() : OptionalLong.of(beyond));
    }

    /** The layout itself. */
    public Layout layout() {
        return Layout.of(spec);
    }

    /** {@link #endMs()} as an {@link Instant}. */
    public Instant end() {
        return Instant.ofEpochMilli(endMs);
    }

    /** {@link #beyond2p53Ms()} as an {@link Instant}; empty when its IDs never pass 2^53. */
    public Optional<Instant> beyond2p53() {
        return beyond2p53Ms.isPresent() ? Optional.of(Instant.ofEpochMilli(beyond2p53Ms.getAsLong())) : Optional.empty();
    }
}
