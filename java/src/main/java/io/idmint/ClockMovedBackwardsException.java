package io.idmint;

/** The clock reads earlier than the last issued time and the rollback policy does not allow going on (core kind {@code clock_moved_backwards}). */
public final class ClockMovedBackwardsException extends IdmintException {
    private static final long serialVersionUID = 1L;
    static final String KIND = "clock_moved_backwards";

    ClockMovedBackwardsException(String message) {
        super(KIND, message);
    }
}
