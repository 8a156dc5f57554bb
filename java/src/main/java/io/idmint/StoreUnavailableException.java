package io.idmint;

/** A segment store that could not be reached or answered with an error, with no buffered IDs left (core kind {@code store_unavailable}). */
public final class StoreUnavailableException extends IdmintException {
    private static final long serialVersionUID = 1L;
    static final String KIND = "store_unavailable";

    StoreUnavailableException(String message) {
        super(KIND, message);
    }
}
