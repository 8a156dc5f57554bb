package io.idmint;

import io.idmint.ffi.CounterStart;
import java.util.Objects;

/**
 * Daily order numbers: a {@link Template} filled from the clock and an in-memory daily counter
 * that restarts at 1 each day (at 00:00 at the template's offset). Thread-safe and lock-free.
 *
 * <p>The counter lives in this object: two processes (or a restarted one) each counting from 1
 * repeat numbers, unless their templates carry different labels or a restarted one resumes with
 * {@link Builder#startingAt(int, long)}. Past the template's sequence width a day's numbers run
 * out: {@link CounterOverflowException}, never a truncated number.
 *
 * <pre>{@code
 * OrderNumbers orders = new OrderNumbers(Template.builder("%Y%M%D%5S").offset("+08:00").build());
 * orders.next();   // "2024052200001", "2024052200002", ... 99,999 a day
 * }</pre>
 */
public final class OrderNumbers {
    static {
        NativeLibrary.ensureLoaded();
    }

    private final io.idmint.ffi.OrderNumbers inner;
    private final Template template;

    private OrderNumbers(Template template, ManualClock clock, CounterStart start) {
        this.template = Objects.requireNonNull(template, "template");
        this.inner = Layout.call(() -> new io.idmint.ffi.OrderNumbers(template.inner,
                clock == null ? null : clock.inner, start));
    }

    /**
     * Order numbers of {@code template} on the monotonic clock; {@link InvalidTemplateException}
     * unless it tells days apart ({@code %Y} or {@code %y}, {@code %M}, {@code %D}).
     */
    public OrderNumbers(Template template) {
        this(template, null, null);
    }

    /** Order numbers on a {@link ManualClock} (for tests). */
    public OrderNumbers(Template template, ManualClock clock) {
        this(template, Objects.requireNonNull(clock, "clock"), null);
    }

    /** Start configuring order numbers of {@code template}. */
    public static Builder builder(Template template) {
        return new Builder(Objects.requireNonNull(template, "template"));
    }

    /**
     * The next order number. Errors: {@link CounterOverflowException} once the day's count passes
     * the template's capacity; {@link TimeOutOfRangeException} past year 9999.
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

        /** Build; {@link InvalidTemplateException} unless the template tells days apart. */
        public OrderNumbers build() {
            return new OrderNumbers(template, clock, start);
        }
    }
}
