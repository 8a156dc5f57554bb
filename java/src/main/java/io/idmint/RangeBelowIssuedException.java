package io.idmint;

/** A store returned a range at or below IDs already handed out: the store lost its state (core kind {@code range_below_issued}). */
public final class RangeBelowIssuedException extends IdmintException {
    private static final long serialVersionUID = 1L;
    static final String KIND = "range_below_issued";

    RangeBelowIssuedException(String message) {
        super(KIND, message);
    }
}
