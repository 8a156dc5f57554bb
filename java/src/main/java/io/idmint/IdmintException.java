package io.idmint;

/**
 * The base of every error idmint reports: unchecked, one subclass per error kind of the core.
 *
 * <p>{@link #getMessage()} is the core's message, which names the bad value and the valid range;
 * {@link #kind()} is the core's stable kind string (the one used in {@code tests/vectors/}), e.g.
 * {@code "invalid_layout"}. A kind that a newer core adds before this package knows it arrives as
 * a plain {@code IdmintException} with that kind.
 */
public class IdmintException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final String kind;

    IdmintException(String kind, String message) {
        super(message);
        this.kind = kind;
    }

    /** The core's stable kind string, e.g. {@code "invalid_id"}. */
    public String kind() {
        return kind;
    }

    /**
     * The exception for a core error: the subclass of its kind. The subclasses and the
     * {@code ErrorKinds} switch are generated from the core's table of error kinds by
     * {@code java/build-native.sh}.
     */
    static IdmintException of(String kind, String message) {
        IdmintException e = ErrorKinds.of(kind, message);
        return e != null ? e : new IdmintException(kind, message);
    }
}
