package io.idmint;

import java.util.List;
import java.util.Objects;

/**
 * Mints TypeIDs of one prefix from UUIDv7s: thread-safe; every TypeID it returns is greater
 * than every one it returned before, on any thread.
 *
 * <pre>{@code
 * TypeIdGenerator users = new TypeIdGenerator("user");
 * TypeId id = users.next();             // user_01jd…
 * String text = users.nextText();
 * }</pre>
 */
public final class TypeIdGenerator {
    static {
        NativeLibrary.ensureLoaded();
    }

    private final io.idmint.ffi.TypeIdGenerator inner;

    /**
     * A generator of {@code prefix} (0 to 63 of {@code a-z} and {@code _}, not first or last;
     * {@code ""} for none) on the monotonic clock. {@link InvalidArgumentException} for a prefix
     * the TypeID spec refuses.
     */
    public TypeIdGenerator(String prefix) {
        this(prefix, null);
    }

    /** {@link #TypeIdGenerator(String)} on a {@link ManualClock} (for tests), or the monotonic clock if {@code null}. */
    public TypeIdGenerator(String prefix, ManualClock clock) {
        Objects.requireNonNull(prefix, "prefix");
        this.inner = Layout.call(() -> new io.idmint.ffi.TypeIdGenerator(prefix, clock == null ? null : clock.inner));
    }

    /** The next TypeID. Fails ({@link TimeOutOfRangeException}) only past the year 10889. */
    public TypeId next() {
        return TypeId.of(Layout.call(inner::next));
    }

    /** The next TypeID's text. */
    public String nextText() {
        return Layout.call(inner::nextText);
    }

    /** {@code n} increasing TypeIDs' texts; {@link InvalidArgumentException} if {@code n} is negative. */
    public List<String> nextTexts(int n) {
        return List.copyOf(Layout.call(() -> inner.nextTexts(n)));
    }

    /** The prefix ({@code ""} for none). */
    public String prefix() {
        return inner.prefix();
    }

    /** {@code TypeIdGenerator(prefix)}. */
    @Override
    public String toString() {
        return "TypeIdGenerator(" + prefix() + ")";
    }
}
