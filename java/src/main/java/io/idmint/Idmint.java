package io.idmint;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/** Package-wide helpers. */
public final class Idmint {
    static {
        NativeLibrary.ensureLoaded();
    }

    private Idmint() {}

    /** The preset layout names: twitter, sonyflake, redis-lua, baidu. */
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
