package io.idmint;

/** An ID that does not fit the layout: negative, above the layout's bits, or not a decimal number (core kind {@code invalid_id}). */
public final class InvalidIdException extends IdmintException {
    private static final long serialVersionUID = 1L;
    static final String KIND = "invalid_id";

    InvalidIdException(String message) {
        super(KIND, message);
    }
}
