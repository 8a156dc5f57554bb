package io.idmint;

import com.sun.jna.Platform;

/**
 * Finds the native library before the generated layer loads it, so a platform this jar has no
 * build for gets an error that names the platform instead of JNA's search log.
 */
final class NativeLibrary {
    static final String NAME = "idmint_jvm";
    /**
     * Frees the native half of a facade object once the facade is unreachable. The generated
     * objects of uniffi-bindgen-java 0.3.1 register their own cleanup with an inner (non-static)
     * class, which holds the object itself, so it never runs: a facade whose native half holds
     * something (a lease, a store connection) registers here, with an action that holds only the
     * generated object.
     */
    static final java.lang.ref.Cleaner CLEANER = java.lang.ref.Cleaner.create();
    private static volatile boolean checked;

    private NativeLibrary() {}

    /** Called from the static initializer of every class that reaches native code. */
    static void ensureLoaded() {
        if (checked) {
            return;
        }
        synchronized (NativeLibrary.class) {
            if (checked) {
                return;
            }
            String override = System.getProperty("uniffi.component." + NAME + ".libraryOverride");
            if (override == null && System.getProperty("jna.library.path") == null) {
                check(Platform.RESOURCE_PREFIX, NativeLibrary.class.getClassLoader());
            }
            try {
                io.idmint.ffi.IdmintJvm.presets();
            } catch (UnsatisfiedLinkError | ExceptionInInitializerError | NoClassDefFoundError e) {
                UnsatisfiedLinkError err = new UnsatisfiedLinkError(
                        "idmint: could not load the native library " + System.mapLibraryName(NAME)
                                + " for platform " + Platform.RESOURCE_PREFIX + ": " + e);
                err.initCause(e);
                throw err;
            }
            checked = true;
        }
    }

    /** The classpath resource JNA loads on {@code platform}, e.g. {@code linux-x86-64/libidmint_jvm.so}. */
    static String resourcePath(String platform) {
        String file = platform.startsWith("darwin") ? "lib" + NAME + ".dylib"
                : platform.startsWith("win32") ? NAME + ".dll"
                : "lib" + NAME + ".so";
        return platform + "/" + file;
    }

    /** Throws an error naming {@code platform} when the jar carries no library for it. */
    static void check(String platform, ClassLoader loader) {
        if (loader.getResource(resourcePath(platform)) == null) {
            throw new UnsatisfiedLinkError(
                    "idmint: this jar has no native library for platform " + platform
                            + " (os.name=" + System.getProperty("os.name") + ", os.arch="
                            + System.getProperty("os.arch") + "); it carries linux-x86-64. "
                            + "Build idmint from source on this platform (java/README.md), or point "
                            + "-Djna.library.path at a directory holding " + resourcePath(platform)
                                    .substring(platform.length() + 1));
        }
    }

    /** A core error from the generated layer as the unchecked exception of its kind. */
    static IdmintException rethrow(io.idmint.ffi.FfiException e) {
        try {
            return IdmintException.of(e.kind(), e.message());
        } finally {
            e.close();
        }
    }
}
