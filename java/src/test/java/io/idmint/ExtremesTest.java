package io.idmint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every public method and constructor of the package that takes a number ({@code int}, {@code
 * long}, {@code double}, {@code Duration}), found by reflection over the compiled classes, called
 * with the smallest and largest values of that parameter: each returns, or throws an {@link
 * IdmintException}, an {@link IllegalArgumentException} or the JVM's own {@link OutOfMemoryError};
 * never a JVM crash, and the package works after each call.
 *
 * <p>A class with such a method whose receiver {@link #RECEIVERS} cannot make fails {@link
 * #everyNumericMethodIsCovered}, so a new class gets its extremes too.
 */
class ExtremesTest {
    static final long[] LONGS = {Long.MIN_VALUE, Integer.MIN_VALUE - 1L, -1, 0, Integer.MAX_VALUE + 1L,
        1L << 53, Long.MAX_VALUE};
    static final int[] INTS = {Integer.MIN_VALUE, -1, 0, (1 << 24) + 1, Integer.MAX_VALUE};
    static final double[] DOUBLES = {-Double.MAX_VALUE, -1, 0, Double.MIN_VALUE, Double.MAX_VALUE,
        Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY};
    static final Duration[] DURATIONS = {Duration.ofSeconds(Long.MIN_VALUE), Duration.ofMillis(-1),
        Duration.ZERO, Duration.ofNanos(1), Duration.ofDays(365L * 1000), Duration.ofSeconds(Long.MAX_VALUE, 999_999_999)};

    /** A fresh receiver per class with numeric instance methods. */
    static final Map<Class<?>, Supplier<Object>> RECEIVERS = Map.ofEntries(
        Map.entry(Snowflake.class, () -> new Snowflake(1, 7)),
        Map.entry(Snowflake.Builder.class, () -> Snowflake.builder("twitter")),
        Map.entry(Layout.class, () -> Layout.of("twitter")),
        Map.entry(Keyring.class, () -> Keyring.generate(1)),
        Map.entry(ManualClock.class, () -> new ManualClock(0)),
        Map.entry(Template.class, () -> Template.of("%Y%M%D%5S")),
        Map.entry(Template.Builder.class, () -> Template.builder("%Y%M%D%5S")),
        Map.entry(OrderNumbers.Builder.class, () -> OrderNumbers.builder(Template.of("%Y%M%D%5S"))),
        Map.entry(SegmentClient.class, () -> SegmentClient.connect("memory:")),
        Map.entry(SegmentClient.Builder.class, () -> SegmentClient.builder("memory:")),
        Map.entry(SegmentTag.class, () -> SegmentClient.connect("memory:").tag("extremes")),
        Map.entry(TagSpec.class, () -> TagSpec.of("extremes")),
        Map.entry(TypeIdGenerator.class, () -> new TypeIdGenerator("extremes")),
        Map.entry(LongRange.class, () -> SegmentClient.connect("memory:").tag("extremes").nextIds(3)));

    /** A typical value of a parameter type, for the parameters not under test. */
    static Object typical(Class<?> type) {
        if (type == long.class || type == Long.class) {
            return 1L;
        }
        if (type == int.class || type == Integer.class) {
            return 1;
        }
        if (type == double.class) {
            return 1.0;
        }
        if (type == Duration.class) {
            return Duration.ofSeconds(1);
        }
        if (type == String.class) {
            return "twitter";
        }
        if (type == Instant.class) {
            return Instant.ofEpochMilli(1_700_000_000_000L);
        }
        if (type == Layout.class) {
            return Layout.of("twitter");
        }
        if (type == Encoding.class) {
            return Encoding.values()[0];
        }
        if (type == Map.class) {
            return Map.of("datacenter", 1L, "worker", 1L);
        }
        if (type == Template.class) {
            return Template.of("%Y%M%D%5S");
        }
        if (type == ManualClock.class) {
            return new ManualClock(0);
        }
        return null;
    }

    static List<Object> extremes(Class<?> type) {
        List<Object> out = new ArrayList<>();
        if (type == long.class || type == Long.class) {
            for (long v : LONGS) {
                out.add(v);
            }
        } else if (type == int.class || type == Integer.class) {
            for (int v : INTS) {
                out.add(v);
            }
        } else if (type == double.class) {
            for (double v : DOUBLES) {
                out.add(v);
            }
        } else if (type == Duration.class) {
            out.addAll(List.of((Object[]) DURATIONS));
        }
        return out;
    }

    static boolean numeric(Class<?> t) {
        return !extremes(t).isEmpty();
    }

    /** The public classes of io.idmint, from the compiled classes. */
    static List<Class<?>> classes() throws Exception {
        Path dir = Path.of(Snowflake.class.getProtectionDomain().getCodeSource().getLocation().toURI())
            .resolve("io/idmint");
        List<Class<?>> out = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                String name = f.getFileName().toString();
                if (!name.endsWith(".class")) {
                    continue;
                }
                // RedisSnowflake's every call talks to a live Redis, where an extreme timeout
                // may wait that long: its arguments are covered by its own tests.
                if (name.startsWith("RedisSnowflake")) {
                    continue;
                }
                Class<?> c = Class.forName("io.idmint." + name.substring(0, name.length() - 6));
                // Records (IdParts, Stats, Field, ...) only hold values the package made.
                if (Modifier.isPublic(c.getModifiers()) && !c.isRecord()) {
                    out.add(c);
                }
            }
        }
        return out;
    }

    static List<Executable> numericExecutables(Class<?> c) {
        List<Executable> out = new ArrayList<>();
        for (Constructor<?> k : c.getConstructors()) {
            if (Stream.of(k.getParameterTypes()).anyMatch(ExtremesTest::numeric)) {
                out.add(k);
            }
        }
        for (Method m : c.getDeclaredMethods()) {
            if (Modifier.isPublic(m.getModifiers()) && Stream.of(m.getParameterTypes()).anyMatch(ExtremesTest::numeric)) {
                out.add(m);
            }
        }
        return out;
    }

    @Test
    void everyNumericMethodIsCovered() throws Exception {
        List<String> missing = new ArrayList<>();
        int found = 0;
        for (Class<?> c : classes()) {
            for (Executable e : numericExecutables(c)) {
                found++;
                if (e instanceof Method m && !Modifier.isStatic(m.getModifiers()) && !RECEIVERS.containsKey(c)) {
                    missing.add(c.getName() + "." + m.getName() + ": no receiver in RECEIVERS");
                }
                for (Class<?> t : e.getParameterTypes()) {
                    if (!numeric(t) && typical(t) == null) {
                        missing.add(c.getName() + "." + e.getName() + ": no typical " + t.getName());
                    }
                }
            }
        }
        assertEquals(List.of(), missing);
        assertTrue(found > 30, found + " numeric methods");
    }

    @Test
    void numericArgumentsAtTheirExtremes() throws Exception {
        int calls = 0;
        for (Class<?> c : classes()) {
            for (Executable e : numericExecutables(c)) {
                Class<?>[] types = e.getParameterTypes();
                for (int i = 0; i < types.length; i++) {
                    for (Object v : extremes(types[i])) {
                        Object[] args = new Object[types.length];
                        for (int j = 0; j < types.length; j++) {
                            args[j] = j == i ? v : typical(types[j]);
                        }
                        String what = c.getSimpleName() + "." + e.getName() + " arg " + i + " = " + v;
                        invoke(c, e, args, what);
                        calls++;
                        stillWorks(what);
                    }
                }
            }
        }
        assertTrue(calls > 200, calls + " calls");
    }

    static void invoke(Class<?> c, Executable e, Object[] args, String what) throws Exception {
        try {
            Object result;
            if (e instanceof Constructor<?> k) {
                result = k.newInstance(args);
            } else {
                Method m = (Method) e;
                result = m.invoke(Modifier.isStatic(m.getModifiers()) ? null : RECEIVERS.get(c).get(), args);
            }
            if (result instanceof CompletableFuture<?> f) {
                try {
                    f.get(10, TimeUnit.SECONDS);
                } catch (ExecutionException | CompletionException x) {
                    typed(x.getCause(), what);
                }
            }
            if (result instanceof AutoCloseable a) {
                a.close();
            }
        } catch (InvocationTargetException x) {
            typed(x.getCause(), what);
        }
    }

    static void typed(Throwable t, String what) {
        if (!(t instanceof IdmintException || t instanceof IllegalArgumentException || t instanceof OutOfMemoryError)) {
            fail(what + ": " + t, t);
        }
    }

    static void stillWorks(String what) {
        try (Snowflake g = new Snowflake(1, 7)) {
            assertEquals(3, g.nextIds(3).length, what + ": the package works afterwards");
        }
    }

    @Test
    void nextIdsAboveTheCoreLimitIsInvalidArgument() {
        try (Snowflake g = new Snowflake(1, 7)) {
            // Java allocates the array first: a count it cannot hold is its own OutOfMemoryError.
            IdmintException e = assertThrows(IdmintException.class, () -> g.nextIds((1 << 24) + 1));
            assertEquals("invalid_argument", e.kind(), e.getMessage());
            assertThrows(OutOfMemoryError.class, () -> g.nextIds(Integer.MAX_VALUE));
            assertEquals(3, g.nextIds(3).length);
        }
    }
}
