package io.idmint;

/**
 * Counters of a {@link Snowflake}, read with {@link Snowflake#stats()}.
 *
 * @param issued    IDs issued by the core, including those reserved for a thread's block of
 *                  {@link Snowflake#nextId()} and not (yet) handed out
 * @param waits     times a caller waited (next tick, borrowed lead, clock catching up)
 * @param rollbacks clock rollback events seen
 * @param leadMs    how far the last issued time is ahead of the clock now, ms
 * @param maxLeadMs the largest lead seen, ms
 */
public record Stats(long issued, long waits, long rollbacks, long leadMs, long maxLeadMs) {}
