package io.idmint;

/** An obfuscation key, key text or key file that cannot be used (core kind {@code invalid_key}). */
public final class InvalidKeyException extends IdmintException {
    private static final long serialVersionUID = 1L;
    static final String KIND = "invalid_key";

    InvalidKeyException(String message) {
        super(KIND, message);
    }
}
