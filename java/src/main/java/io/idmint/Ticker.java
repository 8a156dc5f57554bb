package io.idmint;

import java.util.concurrent.locks.LockSupport;

/**
 * The clock check of the per-thread blocks ({@link Snowflake#nextId()}, {@code new ObjectId()}):
 * a daemon thread bumps {@link #millis} about every millisecond and {@link #seconds} when the
 * system clock's second changes. A block remembers the counts from before it was taken and is
 * dropped once they moved on, so an ID is never handed out more than about a millisecond (a
 * second, for ObjectIds) after the core made it. Reading a volatile costs ~1 ns where
 * {@code System.currentTimeMillis()} costs ~25 ns, as much as the rest of the call.
 *
 * <p>The thread goes idle after a second in which no block was taken (bumping both counts once
 * more, which drops every block taken before) and is woken by the next block taken.
 */
final class Ticker {
    /** Bumped about every millisecond while blocks are being taken. */
    static volatile long millis;
    /** Bumped when the system clock's second changes (and when the thread goes idle). */
    static volatile long seconds;
    /** A block was taken since the thread last looked. */
    private static volatile boolean used;
    /** The thread is idle, or about to be: the next block taken wakes it. */
    private static volatile boolean idle;
    private static final Thread THREAD = new Thread(Ticker::run, "idmint-ticker");

    static {
        THREAD.setDaemon(true);
        // Holds no application's class loader (a web container's redeploy can let it go).
        THREAD.setContextClassLoader(null);
        THREAD.start();
    }

    private Ticker() {}

    /** Called after a block was taken (its counts read before it): keeps the thread ticking. */
    static void used() {
        if (!used) {
            used = true;
        }
        if (idle) {
            idle = false;
            LockSupport.unpark(THREAD);
        }
    }

    private static void run() {
        long second = System.currentTimeMillis() / 1000;
        int quiet = 0;
        while (true) {
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                // Nothing stops the ticker: the blocks rely on it.
            }
            millis++;
            long now = System.currentTimeMillis() / 1000;
            if (now != second) {
                second = now;
                seconds++;
            }
            if (used) {
                used = false;
                quiet = 0;
            } else if (++quiet >= 1000) {
                // Idle first, then the bump: a block whose counts were read after the bump sees
                // idle and wakes the thread, which bumps again a millisecond later.
                idle = true;
                millis++;
                seconds++;
                while (idle) {
                    LockSupport.park(Ticker.class);
                }
                quiet = 0;
            }
        }
    }
}
