package io.idmint;

/** A generator's worker lease is no longer known to be held, so it issues no IDs until it leases again (core kind {@code lease_lost}). */
public final class LeaseLostException extends IdmintException {
    private static final long serialVersionUID = 1L;
    static final String KIND = "lease_lost";

    LeaseLostException(String message) {
        super(KIND, message);
    }
}
