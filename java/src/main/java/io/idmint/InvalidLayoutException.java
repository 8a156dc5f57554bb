package io.idmint;

/** A layout spec or preset name that does not describe a valid layout (core kind {@code invalid_layout}). */
public final class InvalidLayoutException extends IdmintException {
    private static final long serialVersionUID = 1L;
    static final String KIND = "invalid_layout";

    InvalidLayoutException(String message) {
        super(KIND, message);
    }
}
