package io.idmint;

/** A segment tag whose counter cannot grow by the requested count without passing 2^63-1 (core kind {@code tag_exhausted}). */
public final class TagExhaustedException extends IdmintException {
    private static final long serialVersionUID = 1L;
    static final String KIND = "tag_exhausted";

    TagExhaustedException(String message) {
        super(KIND, message);
    }
}
