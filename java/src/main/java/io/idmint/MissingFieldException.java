package io.idmint;

/** Parts or node values lack a node field of the layout (core kind {@code missing_field}). */
public final class MissingFieldException extends IdmintException {
    private static final long serialVersionUID = 1L;
    static final String KIND = "missing_field";

    MissingFieldException(String message) {
        super(KIND, message);
    }
}
