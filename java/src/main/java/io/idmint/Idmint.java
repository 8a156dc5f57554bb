package io.idmint;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/** Package-wide helpers. */
public final class Idmint {
    static {
        NativeLibrary.ensureLoaded();
    }

    private Idmint() {}

    /** The preset layout names: twitter, sonyflake, redis-lua, baidu, leaf. */
    public static List<String> presets() {
        return List.copyOf(io.idmint.ffi.IdmintJvm.presets());
    }

    /** The presets of 64-bit IDs other systems mint: discord, instagram, mastodon, tsid. */
    public static List<String> unsignedPresets() {
        return List.copyOf(io.idmint.ffi.IdmintJvm.unsignedPresets());
    }

    /** The preset of a generator given no layout: twitter. */
    public static String defaultPreset() {
        return io.idmint.ffi.IdmintJvm.defaultPreset();
    }

    /** Every error kind the core reports; each has its own {@link IdmintException} subclass. */
    public static List<String> errorKinds() {
        return List.copyOf(io.idmint.ffi.IdmintJvm.errorKinds());
    }

    /**
     * The values of the worker-lease store at {@code url} ({@code sqlite:PATH},
     * {@code postgres://…}, {@code mysql://…}, {@code redis://…}), in order, within the core's
     * default bound. {@link StoreUnavailableException} when the store does not answer in time.
     */
    public static List<LeaseInfo> leaseList(String url) {
        return leaseList(url, null);
    }

    /** {@link #leaseList(String)} within {@code timeout} ({@code null}: the core's default). */
    public static List<LeaseInfo> leaseList(String url, Duration timeout) {
        Long ms = timeout == null ? null : millis(timeout);
        List<LeaseInfo> out = new ArrayList<>();
        for (io.idmint.ffi.LeaseInfo i : Layout.call(() -> io.idmint.ffi.IdmintJvm.leaseList(url, ms))) {
            out.add(LeaseInfo.of(i));
        }
        return List.copyOf(out);
    }

    /** Read an ID written in decimal (digits only, 0..Long.MAX_VALUE); {@link InvalidIdException} if not. */
    public static long parseId(String text) {
        return Layout.call(() -> io.idmint.ffi.IdmintJvm.parseId(text));
    }

    /**
     * Read an ID written in decimal up to 18446744073709551615 as its 64 bits (as
     * {@link Long#parseUnsignedLong(String)}, with the core's errors): {@link InvalidIdException}
     * if it is not one.
     */
    public static long parseUnsignedId(String text) {
        return Layout.call(() -> io.idmint.ffi.IdmintJvm.parseUnsignedId(text));
    }

    /**
     * Recognise and take apart an ID of any format: an ObjectId, a UUID, a ULID, a KSUID, an xid,
     * a TSID, or a decimal, which without a layout is only a 64-bit {@code integer} (see
     * {@link #guess(long)}). {@link InvalidIdException} lists the formats tried
     * ({@link InvalidObjectIdException} for 24 characters).
     */
    public static Decoded parse(String text) {
        return parse(text, (Layout) null);
    }

    /** {@link #parse(String)}, a decimal being a snowflake of {@code layout} (a preset name or spec). */
    public static Decoded parse(String text, String layout) {
        return parse(text, layout == null ? null : Layout.of(layout));
    }

    /** {@link #parse(String)}, a decimal being a snowflake of {@code layout} ({@code null}: none). */
    public static Decoded parse(String text, Layout layout) {
        return Decoded.of(Layout.call(() -> io.idmint.ffi.IdmintJvm.decode(
                Objects.requireNonNull(text, "text"), layout == null ? null : layout.inner)));
    }

    /** A snowflake ID of {@code layout} as a {@link Decoded} (for an unsigned layout, the {@code long}'s 64 bits). */
    public static Decoded parse(long id, Layout layout) {
        return parse(layout.idText(id), Objects.requireNonNull(layout, "layout"));
    }

    /**
     * Read {@code text} as {@code format} only ({@code snowflake}, {@code integer}, {@code objectid},
     * {@code uuid}, {@code ulid}, {@code ksuid}, {@code xid}, {@code tsid}): for text another format
     * would claim, such as a TSID of digits only. {@code layout} is for {@code snowflake}.
     */
    public static Decoded parseAs(String text, String format, Layout layout) {
        return Decoded.of(Layout.call(() -> io.idmint.ffi.IdmintJvm.decodeAs(
                Objects.requireNonNull(text, "text"), Objects.requireNonNull(format, "format"),
                layout == null ? null : layout.inner)));
    }

    /**
     * What each preset layout makes of a 64-bit ID (a {@code long}'s 64 bits, unsigned): one reading
     * per preset that can hold it.
     */
    public static List<Decoded> guess(long id) {
        List<Decoded> out = new ArrayList<>();
        for (io.idmint.ffi.DecodedId d : Layout.call(() -> io.idmint.ffi.IdmintJvm.guess(id))) {
            out.add(Decoded.of(d));
        }
        return List.copyOf(out);
    }

    /** {@link #guess(long)} of an ID written in decimal, up to 18446744073709551615. */
    public static List<Decoded> guess(String id) {
        return guess(parseUnsignedId(id));
    }

    /**
     * The layouts that meet a need, finest tick first: {@code nodes} nodes each minting
     * {@code rate} IDs a second for {@code years} years from today (00:00 UTC), in 63 bits (a
     * {@code long}, SQL {@code BIGINT}). {@link InvalidArgumentException} for a need no layout
     * meets, showing the arithmetic ({@code ... = 64.8 bits > 63}), or a value out of range
     * (each at least 1; nodes and rate at most 2^40, years at most 8000).
     *
     * <pre>{@code
     * List<PlannedLayout> twitterLike = Idmint.plan(1024, 4_000_000, 69);
     * }</pre>
     */
    public static List<PlannedLayout> plan(long nodes, long rate, long years) {
        return plan(nodes, rate, years, null, null);
    }

    /**
     * {@link #plan(long, long, long)} from {@code start} (the IDs' epoch; {@code null}: the Unix
     * epoch) in {@code width} bits: {@code "bigint"} (63, the default for {@code null}),
     * {@code "unsigned"} (64: the layouts are marked unsigned) or {@code "js-safe"} (53: exact in
     * a JavaScript number). {@link InvalidArgumentException} for another width.
     */
    public static List<PlannedLayout> plan(long nodes, long rate, long years, Instant start, String width) {
        Long startMs = start == null ? null : epochMillis(start);
        List<PlannedLayout> out = new ArrayList<>();
        for (io.idmint.ffi.PlannedLayout p : Layout.call(
                () -> io.idmint.ffi.IdmintJvm.plan(nodes, rate, years, startMs, width))) {
            out.add(PlannedLayout.of(p));
        }
        return List.copyOf(out);
    }

    /**
     * {@link #plan(long, long, long, Instant, String)} with the rate as people write it:
     * {@code "4000000"}, {@code "4M"}, {@code "4M/s"}, {@code "25.6k/s"} (see {@link #parseRate(String)}).
     */
    public static List<PlannedLayout> plan(long nodes, String rate, long years, Instant start, String width) {
        return plan(nodes, parseRate(rate), years, start, width);
    }

    /**
     * A rate as people write it ({@code 4000000}, {@code 4M}, {@code 4M/s}, {@code 25.6k/s}; k, M,
     * G: thousands, millions, billions) as IDs a second. {@link InvalidArgumentException} unless
     * it is a whole number 1..2^40.
     */
    public static long parseRate(String rate) {
        return Layout.call(() -> io.idmint.ffi.IdmintJvm.planParseRate(Objects.requireNonNull(rate, "rate")));
    }

    /**
     * Whether switching from layout {@code from} to layout {@code to} now keeps keys unique and
     * ordered, with no ID to go by: every ID {@code to} mints from now on must be above the
     * largest {@code from} can have minted (see {@link #checkMigration(Layout, Layout, Long, Instant)}).
     */
    public static Migration checkMigration(Layout from, Layout to) {
        return checkMigration(from, to, null, null);
    }

    /**
     * Whether switching from layout {@code from} to layout {@code to} at {@code at} ({@code null}:
     * now) keeps keys unique and ordered: every ID {@code to} mints from then on sorts above
     * {@code above} (the largest ID in the table, the best proof: an ID of {@code from}, its 64
     * bits for an unsigned layout; {@code null}: the largest {@code from} can have minted before
     * the switch). The answer says from when it is safe; a generator of {@code to} built with
     * {@link Snowflake.Builder#startAbove(long) startAbove(above)} starts then.
     * {@link InvalidIdException} for an {@code above} that is no ID of {@code from} (negative for a
     * signed layout); {@link TimeOutOfRangeException} when {@code to} cannot mint at {@code at}
     * (before its epoch, or after its end).
     *
     * <pre>{@code
     * Layout later = Layout.of("time:41@1ms,worker:10,sequence:12,epoch=2024-01-01T00:00:00Z");
     * Migration m = Idmint.checkMigration(Layout.of("twitter"), later, 1541815603606036480L,
     *         Instant.parse("2026-01-01T00:00:00Z"));
     * m.safe();            // false: later's IDs start below twitter's
     * m.safeFrom();        // Optional[2035-08-25T14:24:45.449Z]
     * }</pre>
     */
    public static Migration checkMigration(Layout from, Layout to, Long above, Instant at) {
        Objects.requireNonNull(from, "from");
        Objects.requireNonNull(to, "to");
        Long atMs = at == null ? null : epochMillis(at);
        return Migration.of(Layout.call(
                () -> io.idmint.ffi.IdmintJvm.checkMigration(from.inner, to.inner, above, atMs)));
    }

    /**
     * {@link #checkMigration(Layout, Layout, Long, Instant)} of layouts given as preset names or
     * specs ({@link InvalidLayoutException} if one is not valid).
     */
    public static Migration checkMigration(String from, String to, Long above, Instant at) {
        return checkMigration(Layout.of(from), Layout.of(to), above, at);
    }

    /**
     * An instant as unix ms for the core, which checks its range: one beyond a long of ms is the
     * nearest long, which the core refuses with a typed error instead of {@code toEpochMilli()}
     * throwing {@link ArithmeticException}.
     */
    static long epochMillis(Instant t) {
        try {
            return t.toEpochMilli();
        } catch (ArithmeticException overflow) {
            return t.isBefore(Instant.EPOCH) ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
    }

    /**
     * A duration in whole ms for the core, which checks its range: a duration beyond a long of
     * ms is the nearest long (its sign kept), so the core refuses it with a typed error instead
     * of {@code toMillis()} throwing {@link ArithmeticException}.
     */
    static long millis(Duration d) {
        try {
            return d.toMillis();
        } catch (ArithmeticException overflow) {
            return d.isNegative() ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
    }
}
