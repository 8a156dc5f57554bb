package io.idmint;

import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.PrimitiveIterator;
import java.util.stream.LongStream;

/**
 * A run of contiguous IDs, {@code start} (included) to {@code end} (excluded), as
 * {@link SegmentTag#nextIds(int)} returns it. Immutable.
 *
 * <pre>{@code
 * LongRange run = orders.nextIds(100);
 * for (long id : run) { ... }                 // or run.stream(), run.toArray()
 * }</pre>
 *
 * @param start the first ID
 * @param end one past the last ID
 */
public record LongRange(long start, long end) implements Iterable<Long> {
    /** How many IDs. */
    public long size() {
        return end - start;
    }

    /** The first ID. */
    public long first() {
        return start;
    }

    /** The last ID. */
    public long last() {
        return end - 1;
    }

    /** Whether {@code id} is in the run. */
    public boolean contains(long id) {
        return id >= start && id < end;
    }

    /** The IDs in order. */
    public LongStream stream() {
        return LongStream.range(start, end);
    }

    /** The IDs in order, as an array. */
    public long[] toArray() {
        return stream().toArray();
    }

    /** The IDs in order, without boxing through {@link PrimitiveIterator.OfLong#nextLong()}. */
    @Override
    public PrimitiveIterator.OfLong iterator() {
        return new PrimitiveIterator.OfLong() {
            private long next = start;

            @Override
            public boolean hasNext() {
                return next < end;
            }

            @Override
            public long nextLong() {
                if (next >= end) {
                    throw new NoSuchElementException();
                }
                return next++;
            }
        };
    }

    @Override
    public String toString() {
        return start + ".." + end;
    }
}
