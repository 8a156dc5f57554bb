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

    /** The exception for a core error: the subclass of its kind. */
    static IdmintException of(String kind, String message) {
        switch (kind) {
            case InvalidLayoutException.KIND: return new InvalidLayoutException(message);
            case ValueOutOfRangeException.KIND: return new ValueOutOfRangeException(message);
            case UnknownFieldException.KIND: return new UnknownFieldException(message);
            case MissingFieldException.KIND: return new MissingFieldException(message);
            case TimeOutOfRangeException.KIND: return new TimeOutOfRangeException(message);
            case EpochInFutureException.KIND: return new EpochInFutureException(message);
            case LayoutExhaustedException.KIND: return new LayoutExhaustedException(message);
            case ClockMovedBackwardsException.KIND: return new ClockMovedBackwardsException(message);
            case InvalidIdException.KIND: return new InvalidIdException(message);
            case InvalidObjectIdException.KIND: return new InvalidObjectIdException(message);
            case InvalidArgumentException.KIND: return new InvalidArgumentException(message);
            case StoreUnavailableException.KIND: return new StoreUnavailableException(message);
            case UnknownTagException.KIND: return new UnknownTagException(message);
            case InvalidTagException.KIND: return new InvalidTagException(message);
            case RangeBelowIssuedException.KIND: return new RangeBelowIssuedException(message);
            case TagExhaustedException.KIND: return new TagExhaustedException(message);
            case NoFreeLeaseException.KIND: return new NoFreeLeaseException(message);
            case LeaseLostException.KIND: return new LeaseLostException(message);
            case InvalidKeyException.KIND: return new InvalidKeyException(message);
            case InvalidEncodingException.KIND: return new InvalidEncodingException(message);
            case InvalidTemplateException.KIND: return new InvalidTemplateException(message);
            case CounterOverflowException.KIND: return new CounterOverflowException(message);
            case InvalidUuidException.KIND: return new InvalidUuidException(message);
            case CheckDigitMismatchException.KIND: return new CheckDigitMismatchException(message);
            default: return new IdmintException(kind, message);
        }
    }
}
