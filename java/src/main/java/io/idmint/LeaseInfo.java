package io.idmint;

/**
 * One value of a worker-lease store, as {@link Idmint#leaseList(String)} lists it.
 *
 * @param value the node value
 * @param state {@code held}, {@code frozen} (expired, not yet free) or {@code free}
 * @param holder the holder's name ({@code host:pid} unless set), empty when released
 * @param expiresInMs ms until the holder's lease ends (negative: ended that long ago)
 * @param freeInMs ms until others may take the value (0 when they may now)
 * @param lastTimeMs the fence: IDs of this value so far carry times up to this (unix ms)
 */
public record LeaseInfo(long value, String state, String holder, long expiresInMs, long freeInMs, long lastTimeMs) {
    static LeaseInfo of(io.idmint.ffi.LeaseInfo i) {
        return new LeaseInfo(i.value(), i.state(), i.holder(), i.expiresInMs(), i.freeInMs(), i.lastTimeMs());
    }
}
