package io.idmint;

import io.idmint.ffi.CounterStart;
import io.idmint.ffi.SharedCounter;
import java.util.Objects;

/**
 * Daily order numbers: a {@link Template} filled from the clock and a daily counter that
 * restarts at 1 each day (at 00:00 at the template's offset). Thread-safe.
 *
 * <p>By default the counter lives in this object (in memory, lock-free): two processes (or a
 * restarted one) each counting from 1 repeat numbers, unless their templates carry different
 * labels or a restarted one resumes with {@link Builder#startingAt(int, long)}. A shared counter
 * ({@link Builder#counter(String)}) is counted in a store by every process that opens it with the
 * same {@link Builder#name(String) name}: {@code sqlite:PATH}, {@code postgres://…} and
 * {@code mysql://…} keep a segment tag per day, of which each process holds {@link
 * Builder#step(long) step} numbers at a time (unique across processes, not consecutive across
 * them; the numbers a process holds at midnight or exit are skipped); {@code redis://…} counts
 * 1, 2, 3, … with one {@code INCR} per number. Past the template's sequence width a day's numbers
 * run out: {@link CounterOverflowException}, never a truncated number.
 *
 * <pre>{@code
 * OrderNumbers orders = new OrderNumbers(Template.builder("%Y%M%D%5S").offset("+08:00").build());
 * orders.next();   // "2024052200001", "2024052200002", ... 99,999 a day
 * OrderNumbers shared = OrderNumbers.builder(template).counter("postgres://db/shop").name("orders").build();
 * }</pre>
 */
public final class OrderNumbers {
    static {
        NativeLibrary.ensureLoaded();
    }

    private final io.idmint.ffi.OrderNumbers inner;
    private final Template template;

    private OrderNumbers(Template template, ManualClock clock, CounterStart start, SharedCounter shared) {
        this.template = Objects.requireNonNull(template, "template");
        this.inner = Layout.call(() -> new io.idmint.ffi.OrderNumbers(template.inner,
                clock == null ? null : clock.inner, start, shared));
    }

    /**
     * Order numbers of {@code template} on the monotonic clock; {@link InvalidTemplateException}
     * unless it tells days apart ({@code %Y} or {@code %y}, {@code %M}, {@code %D}).
     */
    public OrderNumbers(Template template) {
        this(template, null, null, null);
    }

    /** Order numbers on a {@link ManualClock} (for tests). */
    public OrderNumbers(Template template, ManualClock clock) {
        this(template, Objects.requireNonNull(clock, "clock"), null, null);
    }

    /** Start configuring order numbers of {@code template}. */
    public static Builder builder(Template template) {
        return new Builder(Objects.requireNonNull(template, "template"));
    }

    /**
     * The next order number. Errors: {@link CounterOverflowException} once the day's count passes
     * the template's capacity; {@link TimeOutOfRangeException} past year 9999; with a shared
     * counter, {@link StoreUnavailableException} when its store does not answer in time (the call
     * blocks for a store round trip whenever it needs a new range, or in Redis for every number).
     */
    public String next() {
        return Layout.call(inner::next);
    }

    /** The template. */
    public Template template() {
        return template;
    }

    @Override
    public String toString() {
        return "OrderNumbers(" + template + ")";
    }

    /** Configures {@link OrderNumbers}. */
    public static final class Builder {
        private final Template template;
        private ManualClock clock;
        private CounterStart start;
        private String counter;
        private String name;
        private Long step;

        private Builder(Template template) {
            this.template = template;
        }

        /** Use a {@link ManualClock} instead of the monotonic clock. */
        public Builder clock(ManualClock clock) {
            this.clock = clock;
            return this;
        }

        /**
         * Resume counting: the next number on {@code day} ({@code yyyymmdd} at the template's
         * offset, see {@link Template#dayOf}) has sequence {@code first} (1 or more), e.g. one past
         * the last number stored before a restart. {@link InvalidArgumentException} otherwise.
         */
        public Builder startingAt(int day, long first) {
            this.start = new CounterStart(day, first);
            return this;
        }

        /**
         * Count in a shared daily counter: {@code memory:} (this object only), {@code sqlite:PATH},
         * {@code postgres://…}, {@code mysql://…} or {@code redis://…}. {@link #build()} opens it:
         * {@link InvalidArgumentException} for another URL or with {@link #startingAt(int, long)}
         * (the store holds where each day's counter is), {@link StoreUnavailableException} when the
         * store does not answer.
         */
        public Builder counter(String url) {
            this.counter = Objects.requireNonNull(url, "url");
            return this;
        }

        /**
         * The shared counter's name (default {@code orders}): each day's tag or key is
         * {@code name:yyyymmdd}; {@link InvalidTagException} if that is not a valid tag, {@link
         * InvalidArgumentException} without {@link #counter(String)}.
         */
        public Builder name(String name) {
            this.name = Objects.requireNonNull(name, "name");
            return this;
        }

        /**
         * How many numbers of a day each process takes from a SQL store at once (default 100,
         * 1 to 2^40; 1 skips the fewest at one round trip a number); {@link
         * InvalidArgumentException} otherwise or without {@link #counter(String)}.
         */
        public Builder step(long step) {
            this.step = step;
            return this;
        }

        /**
         * Build; {@link InvalidTemplateException} unless the template tells days apart, and the
         * errors of {@link #counter(String)}.
         */
        public OrderNumbers build() {
            SharedCounter shared = counter == null && name == null && step == null
                    ? null : new SharedCounter(counter, name, step);
            return new OrderNumbers(template, clock, start, shared);
        }
    }
}
