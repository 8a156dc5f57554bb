package io.idmint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** OrderNumbers over a shared daily counter ({@code counter(url)}): a SQLite file needs no server. */
class SharedCounterTest {
    /** 2024-05-21T16:30:00Z, which is 2024-05-22 00:30 at +08:00. */
    static final long T = 1_716_309_000_000L;

    static Template template() {
        return Template.builder("SO%Y%M%D%6S").offset("+08:00").build();
    }

    @Test
    void twoOrderNumbersOnOneSqliteFileFromThreadsNeverRepeat(@TempDir Path dir) throws Exception {
        String url = "sqlite:" + dir.resolve("orders.db");
        ManualClock clock = new ManualClock(T);
        OrderNumbers a = OrderNumbers.builder(template()).counter(url).name("orders").step(10).clock(clock).build();
        OrderNumbers b = OrderNumbers.builder(template()).counter(url).name("orders").step(10).clock(clock).build();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        List<Future<List<String>>> futures = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            OrderNumbers orders = i % 2 == 0 ? a : b;
            futures.add(pool.submit(() -> {
                List<String> out = new ArrayList<>();
                for (int j = 0; j < 300; j++) {
                    out.add(orders.next());
                }
                return out;
            }));
        }
        Set<String> every = new HashSet<>();
        int count = 0;
        for (Future<List<String>> f : futures) {
            for (String n : f.get()) {
                assertTrue(n.matches("SO20240522\\d{6}"), n);
                every.add(n);
                count++;
            }
        }
        pool.shutdown();
        assertEquals(8 * 300, count);
        assertEquals(count, every.size(), "duplicates");
        clock.advanceMs(86_400_000L);
        assertEquals("SO20240523000001", a.next(), "another day starts at 1");
        OrderNumbers other = OrderNumbers.builder(template()).counter(url).name("invoices").clock(clock).build();
        assertEquals("SO20240523000001", other.next(), "another name is another counter");
    }

    @Test
    void aDayPastTheSequenceWidthOverflows(@TempDir Path dir) {
        OrderNumbers orders = OrderNumbers.builder(Template.builder("%Y%M%D%1S").offset("+08:00").build())
                .counter("sqlite:" + dir.resolve("orders.db")).step(1).clock(new ManualClock(T)).build();
        for (int i = 1; i <= 9; i++) {
            assertEquals("20240522" + i, orders.next());
        }
        assertThrows(CounterOverflowException.class, orders::next);
    }

    @Test
    void memoryUrlCountsInThisObject() {
        OrderNumbers orders = OrderNumbers.builder(Template.of("%Y%M%D%3S")).counter("memory:")
                .clock(new ManualClock(T)).build();
        assertEquals("20240521001", orders.next());
        assertEquals("20240521002", orders.next());
    }

    @Test
    void badArgumentsAreInvalidArgument() {
        Template t = Template.of("%Y%M%D%5S");
        assertThrows(InvalidArgumentException.class, () -> OrderNumbers.builder(t).counter("ftp://x").build());
        assertThrows(InvalidArgumentException.class, () -> OrderNumbers.builder(t).counter("x").build());
        assertThrows(InvalidArgumentException.class, () -> OrderNumbers.builder(t).counter("memory:").step(0).build());
        InvalidArgumentException negative = assertThrows(InvalidArgumentException.class,
                () -> OrderNumbers.builder(t).counter("memory:").step(-1).build());
        assertTrue(negative.getMessage().contains("-1"), negative.getMessage());
        InvalidArgumentException start = assertThrows(InvalidArgumentException.class,
                () -> OrderNumbers.builder(t).counter("memory:").startingAt(20240522, 5).build());
        assertTrue(start.getMessage().contains("start"), start.getMessage());
        assertThrows(InvalidArgumentException.class, () -> OrderNumbers.builder(t).name("orders").build());
        assertThrows(InvalidArgumentException.class, () -> OrderNumbers.builder(t).step(10).build());
        assertThrows(InvalidTagException.class,
                () -> OrderNumbers.builder(t).counter("memory:").name("bad name").build());
        StoreUnavailableException down = assertThrows(StoreUnavailableException.class,
                () -> OrderNumbers.builder(t).counter("redis://:secret@127.0.0.1:1").build());
        assertFalse(down.getMessage().contains("secret"), down.getMessage());
    }
}
