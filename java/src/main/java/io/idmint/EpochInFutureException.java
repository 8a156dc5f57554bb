package io.idmint;

/** A generator whose epoch lies ahead of the clock (core kind {@code epoch_in_future}). */
public final class EpochInFutureException extends IdmintException {
    private static final long serialVersionUID = 1L;
    static final String KIND = "epoch_in_future";

    EpochInFutureException(String message) {
        super(KIND, message);
    }
}
