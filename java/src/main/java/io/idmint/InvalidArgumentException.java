package io.idmint;

/** An argument outside the values an operation accepts (a policy, an epoch, a negative count) (core kind {@code invalid_argument}). */
public final class InvalidArgumentException extends IdmintException {
    private static final long serialVersionUID = 1L;
    static final String KIND = "invalid_argument";

    InvalidArgumentException(String message) {
        super(KIND, message);
    }
}
