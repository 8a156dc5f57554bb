package io.idmint;

import java.util.function.LongSupplier;

/**
 * For the bench (in this package to reach the internal entry points): {@code nextId()} of one
 * generator through each call path, a core call per ID, so the difference between the rows is
 * the cost of the crossing.
 */
public final class CallCost {
    private CallCost() {}

    /** One core {@code next_id} per call through JNA direct mapping ({@link Fast}). */
    public static LongSupplier jna(Snowflake gen) {
        long h = gen.fastHandle();
        return () -> Fast.idmint_jvm_fast_next_id(h);
    }

    /** One core {@code next_id} per call through JNI ({@link Jni}). */
    public static LongSupplier jni(Snowflake gen) {
        long h = gen.fastHandle();
        return () -> Jni.nextId(h);
    }
}
