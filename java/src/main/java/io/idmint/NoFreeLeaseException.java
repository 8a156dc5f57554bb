package io.idmint;

/** No worker value of the range could be leased: every one is held, or frozen after its lease expired (core kind {@code no_free_lease}). */
public final class NoFreeLeaseException extends IdmintException {
    private static final long serialVersionUID = 1L;
    static final String KIND = "no_free_lease";

    NoFreeLeaseException(String message) {
        super(KIND, message);
    }
}
