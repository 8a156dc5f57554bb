package io.idmint;

/** A period's counter passed what its fixed-width field can hold (core kind {@code counter_overflow}). */
public final class CounterOverflowException extends IdmintException {
    private static final long serialVersionUID = 1L;
    static final String KIND = "counter_overflow";

    CounterOverflowException(String message) {
        super(KIND, message);
    }
}
