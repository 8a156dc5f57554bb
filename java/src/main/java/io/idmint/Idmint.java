package io.idmint;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

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
        Long ms = timeout == null ? null : timeout.toMillis();
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
}
