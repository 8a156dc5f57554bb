package io.idmint;

/** Parts or node values name a field the layout does not have (core kind {@code unknown_field}). */
public final class UnknownFieldException extends IdmintException {
    private static final long serialVersionUID = 1L;
    static final String KIND = "unknown_field";

    UnknownFieldException(String message) {
        super(KIND, message);
    }
}
