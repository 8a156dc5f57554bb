package io.idmint;

/** A time the layout's time field cannot represent (core kind {@code time_out_of_range}). */
public final class TimeOutOfRangeException extends IdmintException {
    private static final long serialVersionUID = 1L;
    static final String KIND = "time_out_of_range";

    TimeOutOfRangeException(String message) {
        super(KIND, message);
    }
}
