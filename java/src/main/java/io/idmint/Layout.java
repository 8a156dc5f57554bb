package io.idmint;

import io.idmint.ffi.FfiException;
import io.idmint.ffi.NodeValue;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A snowflake bit layout: a time field, node fields and a sequence, from an epoch.
 *
 * <p>Written as a preset name ({@code twitter}, {@code sonyflake}, {@code redis-lua}, {@code baidu})
 * or a spec such as {@code time:41@1ms,datacenter:5,worker:5,sequence:12,epoch=1288834974657}. At
 * most 63 bits, so every ID is a non-negative {@code long}, unless the spec says {@code unsigned}
 * (the presets {@code discord}, {@code instagram}, {@code mastodon}, {@code tsid}): then a
 * {@code long} holds the ID's 64 bits, negative from 2^63 on (see {@link #isUnsigned()}).
 * Immutable and thread-safe.
 *
 * <pre>{@code
 * Layout twitter = Layout.of("twitter");
 * IdParts p = twitter.parse(1541815603606036480L);
 * p.time();            // 2022-06-28T16:07:40.105Z
 * p.nodes();           // {datacenter=11, worker=26}
 * }</pre>
 */
public final class Layout {
    static {
        NativeLibrary.ensureLoaded();
    }

    final io.idmint.ffi.Layout inner;
    private final String spec;

    Layout(io.idmint.ffi.Layout inner) {
        this.inner = inner;
        this.spec = inner.spec();
    }

    /** A preset name or a layout spec; {@link InvalidLayoutException} if it is not valid. */
    public static Layout of(String spec) {
        return of(spec, null);
    }

    /**
     * A preset name or spec from another epoch: {@code epoch} is unix milliseconds (digits) or an
     * RFC 3339 date-time, or {@code null} to keep the layout's own.
     */
    public static Layout of(String spec, String epoch) {
        try {
            return new Layout(io.idmint.ffi.Layout.parse(spec, epoch));
        } catch (FfiException e) {
            throw NativeLibrary.rethrow(e);
        }
    }

    /** The names of the preset layouts. */
    public static List<String> presets() {
        return Idmint.presets();
    }

    /** The presets of 64-bit IDs other systems mint: discord, instagram, mastodon, tsid. */
    public static List<String> unsignedPresets() {
        return Idmint.unsignedPresets();
    }

    /** The canonical spec, even for a preset. */
    public String spec() {
        return spec;
    }

    /** The preset this layout is, if it came from one unchanged. */
    public Optional<String> presetName() {
        return Optional.ofNullable(inner.presetName());
    }

    /**
     * Whether IDs may use all 64 bits (the spec's {@code unsigned}, the {@link #unsignedPresets()}):
     * a {@code long} then holds an ID's 64 bits, negative from 2^63 on; {@link #idText(long)} shows
     * it, {@link #parse(String)} and {@link #parseId(String)} read IDs up to 18446744073709551615.
     */
    public boolean isUnsigned() {
        return inner.isUnsigned();
    }

    /** Bits used in all (at most 63, or 64 for an {@link #isUnsigned() unsigned} layout). */
    public int totalBits() {
        return inner.totalBits();
    }

    /** Bits of the time field. */
    public int timeBits() {
        return inner.timeBits();
    }

    /** Length of one tick of the time field, ms. */
    public long tickMs() {
        return call(inner::tickMs);
    }

    /** The epoch, unix ms. */
    public long epochMs() {
        return call(inner::epochMs);
    }

    /** The largest ID this layout can hold (its 64 bits for an unsigned layout: -1 when all 64 are used). */
    public long maxId() {
        return call(inner::maxId);
    }

    /** The fields below the time field, most significant first. */
    public List<Field> fields() {
        List<Field> out = new ArrayList<>();
        for (io.idmint.ffi.FieldInfo f : call(inner::fields)) {
            out.add(new Field(f.name(), f.bits(), f.shift(), f.sequence(), f.max()));
        }
        return Collections.unmodifiableList(out);
    }

    /** The first instant (unix ms) the time field cannot hold: minting stops there. */
    public long exhaustsAtMs() {
        return call(inner::exhaustsAtMs);
    }

    /** {@link #exhaustsAtMs()} as RFC 3339, e.g. {@code 2080-07-10T17:30:30.208Z}. */
    public String exhaustsAt() {
        return inner.exhaustsAt();
    }

    /** How many IDs one generator can mint per second at most (twitter: 4,096,000). */
    public double idsPerSecondCap() {
        return inner.idsPerSecondCap();
    }

    /**
     * Take an ID apart; {@link InvalidIdException} if it is negative (for an unsigned layout a
     * negative {@code long} is an ID of 2^63 or more) or uses bits above the layout's.
     */
    public IdParts parse(long id) {
        try {
            return parts(inner.decompose(id));
        } catch (FfiException e) {
            throw NativeLibrary.rethrow(e);
        }
    }

    /**
     * Take an ID written in decimal apart (up to 18446744073709551615 for an unsigned layout);
     * {@link InvalidIdException} if it is not one.
     */
    public IdParts parse(String id) {
        try {
            return parts(inner.decomposeStr(id));
        } catch (FfiException e) {
            throw NativeLibrary.rethrow(e);
        }
    }

    /**
     * Put an ID together from a time (unix ms; floored to its tick), a value for every node field,
     * and a sequence. Errors: {@link TimeOutOfRangeException}, {@link ValueOutOfRangeException},
     * {@link UnknownFieldException}, {@link MissingFieldException}.
     */
    public long compose(long timeMs, Map<String, Long> nodes, long sequence) {
        try {
            return inner.compose(timeMs, nodeValues(nodes), sequence);
        } catch (FfiException e) {
            throw NativeLibrary.rethrow(e);
        }
    }

    /**
     * Read an ID of this layout written in decimal: up to 2^63-1, or for an unsigned layout up
     * to 18446744073709551615, returned as its 64 bits. {@link InvalidIdException} if not one.
     */
    public long parseId(String text) {
        return isUnsigned() ? Idmint.parseUnsignedId(text) : Idmint.parseId(text);
    }

    /** An ID of this layout as decimal text: {@link Long#toUnsignedString(long)} (the same as {@code Long.toString} below 2^63). */
    public String idText(long id) {
        return Long.toUnsignedString(id);
    }

    /** {@link #compose(long, Map, long)} from an {@link Instant}. */
    public long compose(Instant time, Map<String, Long> nodes, long sequence) {
        return compose(time.toEpochMilli(), nodes, sequence);
    }

    /**
     * The smallest ID of the tick holding {@code timeMs} (unix ms): with {@link #maxIdAt(long)},
     * the bounds of a time-range query on an ID column,
     * {@code id BETWEEN layout.minIdAt(from) AND layout.maxIdAt(to)}. For an unsigned layout
     * the ID's 64 bits ({@link #idText(long)}). {@link TimeOutOfRangeException} outside the
     * layout's range.
     */
    public long minIdAt(long timeMs) {
        try {
            return inner.minIdAt(timeMs);
        } catch (FfiException e) {
            throw NativeLibrary.rethrow(e);
        }
    }

    /** {@link #minIdAt(long)} from an {@link Instant}. */
    public long minIdAt(Instant time) {
        return minIdAt(time.toEpochMilli());
    }

    /** The largest ID of the tick holding {@code timeMs}; see {@link #minIdAt(long)}. */
    public long maxIdAt(long timeMs) {
        try {
            return inner.maxIdAt(timeMs);
        } catch (FfiException e) {
            throw NativeLibrary.rethrow(e);
        }
    }

    /** {@link #maxIdAt(long)} from an {@link Instant}. */
    public long maxIdAt(Instant time) {
        return maxIdAt(time.toEpochMilli());
    }

    /** The layout's spec, or its preset name. */
    @Override
    public String toString() {
        return presetName().orElse(spec);
    }

    /** Layouts are equal when their canonical specs are. */
    @Override
    public boolean equals(Object o) {
        return o instanceof Layout l && l.spec.equals(spec);
    }

    @Override
    public int hashCode() {
        return spec.hashCode();
    }

    static IdParts parts(io.idmint.ffi.Parts p) {
        Map<String, Long> nodes = new LinkedHashMap<>();
        for (NodeValue n : p.nodes()) {
            nodes.put(n.name(), n.value());
        }
        return new IdParts(p.timeMs(), p.time(), Collections.unmodifiableMap(nodes), p.sequence());
    }

    static List<NodeValue> nodeValues(Map<String, Long> nodes) {
        List<NodeValue> out = new ArrayList<>(nodes.size());
        for (Map.Entry<String, Long> e : nodes.entrySet()) {
            if (e.getKey() == null || e.getValue() == null) {
                throw new NullPointerException("node names and values must not be null");
            }
            out.add(new NodeValue(e.getKey(), e.getValue()));
        }
        return out;
    }

    interface FfiCall<T> {
        T call() throws FfiException;
    }

    static <T> T call(FfiCall<T> f) {
        try {
            return f.call();
        } catch (FfiException e) {
            throw NativeLibrary.rethrow(e);
        }
    }
}
