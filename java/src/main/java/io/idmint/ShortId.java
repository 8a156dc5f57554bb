package io.idmint;

import java.util.Objects;

/**
 * IDs as short strings for URLs and people: base62 or Crockford base32, variable or fixed width
 * (see {@link Encoding}).
 *
 * <p>The encodings cover 64-bit values, but a Java ID is a {@code long} in
 * {@code 0..Long.MAX_VALUE} (every snowflake layout is at most 63 bits): {@link #encode} refuses
 * a negative {@code long} ({@link InvalidIdException}), and {@link #decode} of a text whose value
 * is above {@code 2^63-1} (e.g. base62 {@code LygHa16AHYF}, 2^64-1) throws
 * {@link InvalidIdException} rather than return a negative number.
 *
 * <pre>{@code
 * String s = ShortId.encode(1541815603606036480L, Encoding.BASE62);   // "1ptWyK4WgZU"
 * long id = ShortId.decode(s, Encoding.BASE62);
 * }</pre>
 */
public final class ShortId {
    static {
        NativeLibrary.ensureLoaded();
    }

    private ShortId() {}

    /** {@code id} (0 or more) as text; {@link InvalidIdException} if it is negative. */
    public static String encode(long id, Encoding encoding) {
        Objects.requireNonNull(encoding, "encoding");
        return Layout.call(() -> io.idmint.ffi.IdmintJvm.shortIdEncode(id, encoding.text()));
    }

    /**
     * Read a text back, strictly: {@link InvalidEncodingException} (naming the character and its
     * position) for a character outside the alphabet, a wrong length, a leading zero in the
     * variable-width forms, or a value above 2^64-1; {@link InvalidIdException} for a value in
     * {@code 2^63..2^64-1}, which no {@code long} holds.
     */
    public static long decode(String text, Encoding encoding) {
        Objects.requireNonNull(text, "text");
        Objects.requireNonNull(encoding, "encoding");
        return Layout.call(() -> io.idmint.ffi.IdmintJvm.shortIdDecode(text, encoding.text()));
    }
}
