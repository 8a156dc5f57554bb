package io.idmint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The loader's choice between this jar's library and the stores add-on's (docs/packages.md):
 * on class paths made of folders laid out as the two jars are, without loading anything; and
 * the choice this JVM made, whose class path has the add-on (java/pom.xml).
 */
class AddOnLoaderTest {
    static final String LIB = "linux-x86-64/libidmint_jvm.so";

    /** A folder laid out as a jar: {@code files} are path, content pairs. */
    static Path jar(Path dir, String... files) throws Exception {
        for (int i = 0; i < files.length; i += 2) {
            Path f = dir.resolve(files[i]);
            Files.createDirectories(f.getParent());
            Files.writeString(f, files[i + 1]);
        }
        return dir;
    }

    static ClassLoader classPath(Path... jars) throws Exception {
        URL[] urls = new URL[jars.length];
        for (int i = 0; i < jars.length; i++) {
            urls[i] = jars[i].toUri().toURL();
        }
        return new URLClassLoader(urls, null);
    }

    static Path idmint(Path dir) throws Exception {
        return jar(dir.resolve("idmint"), LIB, "slim", NativeLibrary.VERSION, "version=0.1.0\n");
    }

    static Path stores(Path dir, String version) throws Exception {
        return jar(dir.resolve("stores-" + version), NativeLibrary.STORES + LIB, "stores",
                NativeLibrary.STORES_VERSION, "version=" + version + "\n");
    }

    @Test
    void withoutTheAddOnItsOwnLibrary(@TempDir Path dir) throws Exception {
        assertEquals(LIB, NativeLibrary.choose("linux-x86-64", classPath(idmint(dir))));
    }

    @Test
    void theAddOnOfTheSameVersionIsChosen(@TempDir Path dir) throws Exception {
        // Either order on the class path: the add-on's resource lives under its own folder.
        assertEquals(NativeLibrary.STORES + LIB,
                NativeLibrary.choose("linux-x86-64", classPath(idmint(dir), stores(dir, "0.1.0"))));
        assertEquals(NativeLibrary.STORES + LIB,
                NativeLibrary.choose("linux-x86-64", classPath(stores(dir, "0.1.0"), idmint(dir))));
    }

    @Test
    void anAddOnOfAnotherVersionIsRefusedNamingBoth(@TempDir Path dir) throws Exception {
        ClassLoader cp = classPath(idmint(dir), stores(dir, "0.2.0"));
        UnsatisfiedLinkError e = assertThrows(UnsatisfiedLinkError.class,
                () -> NativeLibrary.choose("linux-x86-64", cp));
        assertEquals("idmint: io.idmint:idmint 0.1.0 and its stores add-on io.idmint:idmint-stores 0.2.0 on the "
                + "class path differ: depend on the same version of both (io.idmint:idmint-stores:0.1.0)",
                e.getMessage());
        // An add-on jar without its version file is no add-on this loader can vouch for.
        Path bare = jar(dir.resolve("bare"), NativeLibrary.STORES + LIB, "stores");
        e = assertThrows(UnsatisfiedLinkError.class,
                () -> NativeLibrary.choose("linux-x86-64", classPath(idmint(dir), bare)));
        assertTrue(e.getMessage().contains("io.idmint:idmint-stores (no version)"), e.getMessage());
    }

    @Test
    void theAddOnAloneServesAPlatformAndMuslIsStillRefused(@TempDir Path dir) throws Exception {
        // The add-on has the platform where this jar has none: its library is taken.
        Path own = jar(dir.resolve("own"), NativeLibrary.VERSION, "version=0.1.0\n");
        assertEquals(NativeLibrary.STORES + LIB,
                NativeLibrary.choose("linux-x86-64", classPath(own, stores(dir, "0.1.0"))));
        UnsatisfiedLinkError e = assertThrows(UnsatisfiedLinkError.class,
                () -> NativeLibrary.choose("linux-x86-64-musl", classPath(idmint(dir), stores(dir, "0.1.0"))));
        assertTrue(e.getMessage().startsWith("idmint: this jar has no native library for platform linux-x86-64-musl"),
                e.getMessage());
    }

    @Test
    void thisJvmLoadedTheAddOnsLibrary() {
        // Surefire's class path here has the add-on (its library and version file): the loader
        // named that file to JNA, and the library has the stores.
        assertTrue(NativeLibrary.hasStores(), "the add-on's library is loaded");
        String loaded = System.getProperty(NativeLibrary.OVERRIDE);
        assertTrue(loaded != null && loaded.endsWith("/io/idmint/stores/" + LIB), loaded);
    }
}
