package io.idmint;

import com.sun.jna.Platform;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Finds the native library before the generated layer loads it, so a platform this jar has no
 * build for gets an error that names the platform instead of JNA's search log.
 */
final class NativeLibrary {
    static final String NAME = "idmint_jvm";
    /** The system property naming the library file (or name) JNA loads, as uniffi spells it. */
    static final String OVERRIDE = "uniffi.component." + NAME + ".libraryOverride";
    /**
     * Frees the native half of a facade object once the facade is unreachable. The generated
     * objects of uniffi-bindgen-java 0.3.1 register their own cleanup with an inner (non-static)
     * class, which holds the object itself, so it never runs: a facade whose native half holds
     * something (a lease, a store connection) registers here, with an action that holds only the
     * generated object.
     */
    static final java.lang.ref.Cleaner CLEANER = java.lang.ref.Cleaner.create();
    private static volatile boolean checked;
    private static volatile boolean stores;
    /**
     * Where the stores add-on ({@code io.idmint:idmint-stores}) keeps its libraries: the same
     * paths under this folder. Its library has the whole API, stores included; when that jar
     * is on the class path it is loaded instead of this jar's, so a JVM holds one idmint library
     * (docs/packages.md, "Slim and stores").
     */
    static final String STORES = "io/idmint/stores/";
    /** This jar's version ({@code version=}), written by Maven (src/main/resources). */
    static final String VERSION = "io/idmint/idmint.properties";
    /** The add-on jar's version, written by its Maven build (java/stores/src/main/resources). */
    static final String STORES_VERSION = STORES + "idmint-stores.properties";

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
            String override = System.getProperty(OVERRIDE);
            String platform = platform();
            if (override == null && System.getProperty("jna.library.path") == null) {
                ClassLoader loader = NativeLibrary.class.getClassLoader();
                String path = choose(platform, loader);
                URL url = loader.getResource(path);
                if (!"file".equals(url.getProtocol())) {
                    // In a jar, JNA would extract the library to a temporary file and delete that
                    // file once loaded (on Linux and macOS), where the JVM's System.load (Jni)
                    // cannot load it too. Extract it here instead, kept until the JVM exits, and
                    // point JNA (the generated layer, Fast) at that file: both then load one copy.
                    System.setProperty(OVERRIDE, extract(url).toString());
                } else if (!platform.equals(Platform.RESOURCE_PREFIX) || path.startsWith(STORES)) {
                    // A folder JNA does not look in by itself (linux-x86-64-musl/, a build from
                    // source on Alpine, the add-on's io/idmint/stores/): name the file.
                    try {
                        System.setProperty(OVERRIDE, Path.of(url.toURI()).toString());
                    } catch (java.net.URISyntaxException e) {
                        throw new IllegalStateException(e);
                    }
                }
            }
            try {
                // Also records, for the core's messages, that the JVM package loaded it.
                stores = io.idmint.ffi.IdmintJvm.libraryLoaded();
            } catch (UnsatisfiedLinkError | ExceptionInInitializerError | NoClassDefFoundError e) {
                UnsatisfiedLinkError err = new UnsatisfiedLinkError(
                        "idmint: could not load the native library " + System.mapLibraryName(NAME)
                                + " for platform " + platform + " (this jar carries " + carried(
                                        NativeLibrary.class.getClassLoader()) + "): " + e);
                err.initCause(e);
                throw err;
            }
            checked = true;
        }
    }

    /** The library at {@code url} copied to a new temporary directory, both deleted at exit. */
    private static Path extract(URL url) {
        try {
            Path dir = Files.createTempDirectory("idmint-jvm");
            dir.toFile().deleteOnExit();
            Path file = dir.resolve(System.mapLibraryName(NAME));
            try (InputStream in = url.openStream()) {
                Files.copy(in, file);
            }
            file.toFile().deleteOnExit();
            return file.toAbsolutePath();
        } catch (IOException e) {
            throw new UncheckedIOException("idmint: could not extract the native library " + url
                    + " to a temporary directory (java.io.tmpdir=" + System.getProperty("java.io.tmpdir") + ")", e);
        }
    }

    /** Whether the library loaded has the stores (the add-on's). */
    static boolean hasStores() {
        ensureLoaded();
        return stores;
    }

    /**
     * The library resource to load on {@code platform}: the add-on's when its jar is on the class
     * path (refused when its version is not this jar's), else this jar's; refused by name when
     * neither jar has one for the platform.
     */
    static String choose(String platform, ClassLoader loader) {
        check(platform, loader);
        String path = chosen(platform, loader);
        if (path.startsWith(STORES)) {
            checkAddOnVersion(version(loader, VERSION), version(loader, STORES_VERSION));
        }
        return path;
    }

    /** The add-on's library for {@code platform} when its jar is on the class path, else this jar's. */
    static String chosen(String platform, ClassLoader loader) {
        String addOn = STORES + resourcePath(platform);
        return loader.getResource(addOn) != null ? addOn : resourcePath(platform);
    }

    /**
     * Refuses an add-on of another version than this jar: the add-on's library is the whole API,
     * which the Java layer in this jar (generated from the library of its own version, checked
     * function by function when it loads) must match. Refused before anything is loaded, so the
     * JVM never holds a library this jar cannot call; an {@link UnsatisfiedLinkError} as the
     * loader's other refusals (the core's messages need the library loaded first).
     */
    static void checkAddOnVersion(String idmint, String stores) {
        if (idmint == null || !idmint.equals(stores)) {
            throw new UnsatisfiedLinkError("idmint: io.idmint:idmint " + idmint
                    + " and its stores add-on io.idmint:idmint-stores " + (stores == null ? "(no version)" : stores)
                    + " on the class path differ: depend on the same version of both (io.idmint:idmint-stores:"
                    + idmint + ")");
        }
    }

    /** The {@code version} in the properties resource {@code path}, or null when there is none. */
    static String version(ClassLoader loader, String path) {
        try (InputStream in = loader.getResourceAsStream(path)) {
            if (in == null) {
                return null;
            }
            java.util.Properties p = new java.util.Properties();
            p.load(in);
            return p.getProperty("version");
        } catch (IOException e) {
            throw new UncheckedIOException("idmint: could not read " + path + " from the class path", e);
        }
    }

    /** The classpath resource JNA loads on {@code platform}, e.g. {@code linux-x86-64/libidmint_jvm.so}. */
    static String resourcePath(String platform) {
        String file = platform.startsWith("darwin") ? "lib" + NAME + ".dylib"
                : platform.startsWith("win32") ? NAME + ".dll"
                : "lib" + NAME + ".so";
        return platform + "/" + file;
    }

    /**
     * The platforms a release jar is built with (tests/packages.sh), by JNA's resource prefix.
     * None is for musl: JNA (5.14) names glibc and musl Linux alike (linux-x86-64), and the jar's
     * Linux libraries need glibc; on musl the platform is {@code linux-x86-64-musl}, which no jar
     * carries, so the loader refuses it by name instead of failing in the glibc library.
     */
    static final java.util.List<String> BUILT = java.util.List.of("linux-x86-64", "linux-aarch64",
            "win32-x86-64", "darwin-x86-64", "darwin-aarch64");

    /** This JVM's platform: JNA's resource prefix, with {@code -musl} on a musl Linux. */
    static String platform() {
        return Platform.RESOURCE_PREFIX + (Platform.isLinux() && isMusl(mappedFiles()) ? "-musl" : "");
    }

    /** Whether a process's mapped files ({@code /proc/self/maps}) are musl's (its loader is its libc). */
    static boolean isMusl(String maps) {
        return maps.contains("/ld-musl-") || maps.contains("/libc.musl-");
    }

    private static String mappedFiles() {
        try {
            return Files.readString(Path.of("/proc/self/maps"));
        } catch (IOException | RuntimeException e) {
            return "";
        }
    }

    private static String carried(ClassLoader loader) {
        String carried = String.join(", ", BUILT.stream()
                .filter(p -> loader.getResource(resourcePath(p)) != null).toList());
        return carried.isEmpty() ? "none" : carried;
    }

    /** Throws an error naming {@code platform} when the jar carries no library for it. */
    static void check(String platform, ClassLoader loader) {
        if (loader.getResource(chosen(platform, loader)) == null) {
            throw new UnsatisfiedLinkError(
                    "idmint: this jar has no native library for platform " + platform
                            + " (os.name=" + System.getProperty("os.name") + ", os.arch="
                            + System.getProperty("os.arch") + "); it carries "
                            + carried(loader) + ". "
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
