package io.idmint;

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

    /** Read an ID written in decimal (digits only, 0..Long.MAX_VALUE); {@link InvalidIdException} if not. */
    public static long parseId(String text) {
        return Layout.call(() -> io.idmint.ffi.IdmintJvm.parseId(text));
    }
}
