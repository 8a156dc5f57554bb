package io.idmint;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * Where the {@code CompletableFuture} variants of calls that may wait on a store run: a small
 * pool of daemon threads (never the common pool), idle threads ending after 30 s. Every such call
 * is bounded by the client's {@code maxWait} / {@code opTimeout}, so none holds a thread for
 * ever.
 */
final class Async {
    private static final AtomicInteger THREADS = new AtomicInteger();
    static final ExecutorService EXECUTOR;

    static {
        ThreadPoolExecutor pool = new ThreadPoolExecutor(4, 4, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
            Thread t = new Thread(r, "idmint-async-" + THREADS.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        pool.allowCoreThreadTimeOut(true);
        EXECUTOR = pool;
    }

    private Async() {}

    /** {@code call} on the pool; its exception (an {@link IdmintException}) completes the future. */
    static <T> CompletableFuture<T> run(Supplier<T> call) {
        return CompletableFuture.supplyAsync(call, EXECUTOR);
    }
}
