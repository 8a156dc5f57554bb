package io.idmint;

/** Text that is not a valid value of a short-string encoding (base62, base32, ULID) (core kind {@code invalid_encoding}). */
public final class InvalidEncodingException extends IdmintException {
    private static final long serialVersionUID = 1L;
    static final String KIND = "invalid_encoding";

    InvalidEncodingException(String message) {
        super(KIND, message);
    }
}
