package io.idmint;

/** A segment tag name or table name that is not allowed (core kind {@code invalid_tag}). */
public final class InvalidTagException extends IdmintException {
    private static final long serialVersionUID = 1L;
    static final String KIND = "invalid_tag";

    InvalidTagException(String message) {
        super(KIND, message);
    }
}
