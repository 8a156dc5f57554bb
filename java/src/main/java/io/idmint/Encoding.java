package io.idmint;

/**
 * The short-string encodings of {@link ShortId}: the core's {@code base62}, {@code base62-fixed},
 * {@code base32} and {@code base32-fixed} (docs/formats.md).
 *
 * <table>
 * <caption>encodings</caption>
 * <tr><th>constant</th><th>alphabet</th><th>length</th><th>sorts like the number</th></tr>
 * <tr><td>{@link #BASE62}</td><td>{@code 0-9A-Za-z} (case-sensitive)</td><td>1-11</td><td>no</td></tr>
 * <tr><td>{@link #BASE62_FIXED}</td><td>{@code 0-9A-Za-z}</td><td>11</td><td>yes</td></tr>
 * <tr><td>{@link #BASE32}</td><td>Crockford (either case; I, L read as 1, O as 0)</td><td>1-13</td><td>no</td></tr>
 * <tr><td>{@link #BASE32_FIXED}</td><td>Crockford</td><td>13</td><td>yes (as printed, upper case)</td></tr>
 * </table>
 */
public enum Encoding {
    /** {@code base62}: shortest text, no leading zeros. */
    BASE62("base62"),
    /** {@code base62-fixed}: 11 characters, zero-padded, so text order is numeric order. */
    BASE62_FIXED("base62-fixed"),
    /** {@code base32}: Crockford base32, shortest text. */
    BASE32("base32"),
    /** {@code base32-fixed}: 13 Crockford characters, zero-padded, order-preserving. */
    BASE32_FIXED("base32-fixed");

    private final String text;

    Encoding(String text) {
        this.text = text;
    }

    /** The core's name, e.g. {@code base62-fixed} (as in the CLI and tests/vectors/shortid.json). */
    public String text() {
        return text;
    }

    @Override
    public String toString() {
        return text;
    }
}
