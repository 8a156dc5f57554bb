package io.idmint;

import com.sun.jna.Native;

/**
 * Hot paths (UUIDv7 next, ObjectId hex, a segment tag's block; nextId per call for the bench's
 * JNA-against-JNI row) through JNA direct mapping with primitive arguments only; the hottest
 * ({@code nextId}, {@code new ObjectId()}) go through {@link Jni}. The generated uniffi layer passes a JNA {@code Structure} with every call, which
 * JNA builds by reflection: microseconds per call, far above the 244 ns a twitter-layout ID may
 * take at the cap. Same conversions, same core; a negative return means the call failed, and
 * {@link #fail(long)} throws the core's error through the generated layer.
 */
final class Fast {
    static {
        NativeLibrary.ensureLoaded();
        // The same call the generated layer makes (io.idmint.ffi.UniffiLib): JNA caches a library
        // by its name and options, so this finds the instance already loaded. With other options
        // (NativeLibrary.getInstance(name)) JNA extracted a second copy from the jar, whose own
        // statics (the tokio runtime's context among them) the first copy's handles do not
        // share: a segment tag's first refill panicked. tests/packages.sh (the Maven consumer,
        // loading from the jar) is the test of this; in-tree tests load from a directory.
        Native.register(Fast.class, System.getProperty(NativeLibrary.OVERRIDE, NativeLibrary.NAME));
    }

    private Fast() {}

    static native long idmint_jvm_fast_next_id(long handle);

    static native long idmint_jvm_fast_uuid7_next(long handle, long[] out);

    static native long idmint_jvm_fast_object_id_hex(byte[] bytes, byte[] out);

    static native long idmint_jvm_fast_segment_block(long handle, int wait, long[] out);

    /** Throws the error of this thread's failed fast call. */
    static IdmintException fail(long code) {
        if (code == -2) {
            return new IdmintException("internal", "idmint: internal error (a panic in the native library)");
        }
        try {
            io.idmint.ffi.IdmintJvm.takeFastError();
        } catch (io.idmint.ffi.FfiException e) {
            return NativeLibrary.rethrow(e);
        }
        return new IdmintException("internal", "idmint: a fast call failed without an error");
    }
}
