package io.idmint;

/** A formatted ID whose check digits do not match the rest of it (core kind {@code check_digit_mismatch}). */
public final class CheckDigitMismatchException extends IdmintException {
    private static final long serialVersionUID = 1L;
    static final String KIND = "check_digit_mismatch";

    CheckDigitMismatchException(String message) {
        super(KIND, message);
    }
}
