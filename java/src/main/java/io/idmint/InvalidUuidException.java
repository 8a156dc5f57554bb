package io.idmint;

/** Text or bytes that are not a version-7 UUID (core kind {@code invalid_uuid}). */
public final class InvalidUuidException extends IdmintException {
    private static final long serialVersionUID = 1L;
    static final String KIND = "invalid_uuid";

    InvalidUuidException(String message) {
        super(KIND, message);
    }
}
