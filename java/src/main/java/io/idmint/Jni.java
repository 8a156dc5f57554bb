package io.idmint;

import com.sun.jna.Library;
import java.io.File;
import java.util.Collections;

/**
 * The hottest calls through JNI: {@code Snowflake.nextId()} and {@code nextIds}, and blocks of
 * new ObjectIds. A JNI call costs far less than a JNA direct-mapped one ({@link Fast}; the JVM
 * bench times one core call through each). Same core and failure protocol as {@link Fast}: a
 * negative return means the call failed and {@link Fast#fail(long)} throws the core's error;
 * results go into arrays the caller owns.
 */
final class Jni {
    static {
        // JNA has loaded the library (a file of the classpath, the file NativeLibrary extracted
        // from the jar, or one of jna.library.path): load the very same file for the JVM too, so
        // the Java_io_idmint_Jni_* symbols resolve against the copy whose statics the generated
        // layer's handles share. Looked up the way Native.register(Class, name) caches it (Fast,
        // the generated UniffiLib), so this finds the instance already loaded.
        NativeLibrary.ensureLoaded();
        String name = System.getProperty(NativeLibrary.OVERRIDE, NativeLibrary.NAME);
        File file = com.sun.jna.NativeLibrary.getInstance(name,
                Collections.singletonMap(Library.OPTION_CLASSLOADER, Jni.class.getClassLoader())).getFile();
        System.load(file.getAbsolutePath());
    }

    private Jni() {}

    static native long nextId(long handle);

    static native long nextIds(long handle, long[] out, int n);

    /** New ObjectIds of one second into the front of {@code out}: how many, or a failure code. */
    static native long objectIds(byte[] out);
}
