package io.idmint;

/** A segment tag the store does not hold, with auto-creation off (core kind {@code unknown_tag}). */
public final class UnknownTagException extends IdmintException {
    private static final long serialVersionUID = 1L;
    static final String KIND = "unknown_tag";

    UnknownTagException(String message) {
        super(KIND, message);
    }
}
