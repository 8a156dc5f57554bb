package io.idmint;

/** A node field, the sequence or an ObjectId counter given a value that does not fit its bits (core kind {@code value_out_of_range}). */
public final class ValueOutOfRangeException extends IdmintException {
    private static final long serialVersionUID = 1L;
    static final String KIND = "value_out_of_range";

    ValueOutOfRangeException(String message) {
        super(KIND, message);
    }
}
