package io.idmint;

import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Objects;

/**
 * An order-number template: date parts, a node label, a zero-padded sequence and literal text,
 * with optional check digits, formatted and parsed back (mooon-uniq-id compatible:
 * {@code %L%Y%M%D%m%5S}). Directives: {@code %Y} {@code %y} {@code %M} {@code %D} {@code %H}
 * {@code %m} {@code %s}, {@code %L} / {@code %NL} (label), {@code %NS} (sequence, N = 1..19,
 * exactly one), {@code %%}; everything else is literal (docs/formats.md). Date parts are read
 * at a fixed UTC offset. Immutable and thread-safe.
 *
 * <pre>{@code
 * Template t = Template.builder("%L%Y%M%D%m%5S").label("7").offset("+08:00").build();
 * t.format(Instant.parse("2024-05-21T16:30:00Z"), 42);    // "7202405223000042"
 * t.parse("7202405223000042").sequence();                   // 42
 *
 * Template checked = Template.builder("SO-%y%M%D-%6S").check(CheckDigit.LUHN).build();
 * }</pre>
 *
 * <p>Sequences are {@code long}s: a {@code %19S} template holds numbers up to 10^19-1, above
 * {@link Long#MAX_VALUE}; parsing such a number throws {@link InvalidIdException}.
 */
public final class Template {
    static {
        NativeLibrary.ensureLoaded();
    }

    final io.idmint.ffi.Template inner;
    private final String pattern;

    private Template(io.idmint.ffi.Template inner) {
        this.inner = inner;
        this.pattern = inner.pattern();
    }

    /** A template in UTC, without label or check digits; {@link InvalidTemplateException} if it is not valid. */
    public static Template of(String pattern) {
        return builder(pattern).build();
    }

    /** Start configuring a template. */
    public static Builder builder(String pattern) {
        return new Builder(Objects.requireNonNull(pattern, "pattern"));
    }

    /**
     * The order number for {@code time} and {@code sequence}. Errors:
     * {@link ValueOutOfRangeException} for a sequence that is negative or wider than the
     * template's, {@link InvalidArgumentException} for {@code %L} without a label,
     * {@link TimeOutOfRangeException} before 1970 or past year 9999.
     */
    public String format(Instant time, long sequence) {
        return format(time.toEpochMilli(), sequence);
    }

    /** {@link #format(Instant, long)} from unix milliseconds. */
    public String format(long timeMs, long sequence) {
        return Layout.call(() -> inner.format(timeMs, sequence));
    }

    /**
     * The order number of snowflake ID {@code id} of {@code layout}: the ID's own time, and the
     * whole ID as the sequence, which never repeats; {@link InvalidTemplateException} unless the
     * sequence is wide enough for the layout's largest ID (63 bits: {@code %19S}).
     */
    public String formatSnowflake(long id, Layout layout) {
        Objects.requireNonNull(layout, "layout");
        return Layout.call(() -> inner.formatSnowflake(layout.inner, id));
    }

    /**
     * Read an order number back into its parts, verifying its check digits
     * ({@link CheckDigitMismatchException}) and its shape ({@link InvalidIdException}, naming the
     * position and the part expected there).
     */
    public TemplateParts parse(String text) {
        Objects.requireNonNull(text, "text");
        io.idmint.ffi.TemplateParts p = Layout.call(() -> inner.parse(text));
        return new TemplateParts(p.year(), p.month(), p.day(), p.hour(), p.minute(), p.second(), p.label(),
                p.sequence(), p.check());
    }

    /** The day of {@code time} at the template's offset, as {@code yyyymmdd}: a daily counter's key. */
    public int dayOf(Instant time) {
        return dayOf(time.toEpochMilli());
    }

    /** {@link #dayOf(Instant)} from unix milliseconds. */
    public int dayOf(long timeMs) {
        return Layout.call(() -> inner.dayOf(timeMs));
    }

    /** The template as given. */
    public String pattern() {
        return pattern;
    }

    /** The UTC offset of the date parts. */
    public ZoneOffset offset() {
        return ZoneOffset.ofTotalSeconds(inner.offsetSeconds());
    }

    /** The check digits appended. */
    public CheckDigit check() {
        return CheckDigit.ofText(inner.check());
    }

    /** The sequence's width in digits. */
    public int sequenceWidth() {
        return inner.sequenceWidth();
    }

    /** The largest sequence that fits, 10^width - 1; {@link Long#MAX_VALUE} for width 19, where every {@code long} fits. */
    public long capacity() {
        return inner.capacity();
    }

    /** Whether the template tells days apart ({@code %Y} or {@code %y}, {@code %M} and {@code %D}), as {@link OrderNumbers} needs. */
    public boolean hasFullDate() {
        return inner.hasFullDate();
    }

    @Override
    public String toString() {
        return "Template(" + pattern + ", " + offset() + ", " + check() + ")";
    }

    /** Configures a {@link Template}; every value is checked by {@link #build()}. */
    public static final class Builder {
        private final String pattern;
        private String offset;
        private CheckDigit check;
        private String label;

        private Builder(String pattern) {
            this.pattern = pattern;
        }

        /** The UTC offset of the date parts: {@code Z}, {@code UTC}, {@code +08}, {@code +08:00}, {@code -0530} (default UTC). */
        public Builder offset(String offset) {
            this.offset = Objects.requireNonNull(offset, "offset");
            return this;
        }

        /** The UTC offset of the date parts, in whole minutes within ±23:59. */
        public Builder offset(ZoneOffset offset) {
            return offset(offset.getId());
        }

        /** Check digits to append (default none). */
        public Builder check(CheckDigit check) {
            this.check = Objects.requireNonNull(check, "check");
            return this;
        }

        /** The node label for {@code %L} (ASCII letters and digits; at most N for {@code %NL}). */
        public Builder label(String label) {
            this.label = Objects.requireNonNull(label, "label");
            return this;
        }

        /**
         * Build. Errors: {@link InvalidTemplateException} (the pattern),
         * {@link InvalidArgumentException} (the offset or the label).
         */
        public Template build() {
            return new Template(Layout.call(() -> new io.idmint.ffi.Template(pattern, offset,
                    check == null ? null : check.text(), label)));
        }
    }
}
