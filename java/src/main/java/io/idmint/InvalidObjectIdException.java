package io.idmint;

/** An ObjectId in text or bytes that is not 12 bytes / 24 hex characters (core kind {@code invalid_object_id}). */
public final class InvalidObjectIdException extends IdmintException {
    private static final long serialVersionUID = 1L;
    static final String KIND = "invalid_object_id";

    InvalidObjectIdException(String message) {
        super(KIND, message);
    }
}
