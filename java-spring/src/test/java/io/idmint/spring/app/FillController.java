package io.idmint.spring.app;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import org.springframework.data.domain.PageRequest;
import org.springframework.transaction.support.TransactionTemplate;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/** What the test drives over HTTP: save entities from many threads, show some as JSON. */
@RestController
public class FillController {
    private final OrderRepository orders;
    private final InvoiceRepository invoices;
    private final CustomerRepository customers;
    private final TransactionTemplate tx;

    public FillController(OrderRepository orders, InvoiceRepository invoices, CustomerRepository customers,
            TransactionTemplate tx) {
        this.orders = orders;
        this.invoices = invoices;
        this.customers = customers;
        this.tx = tx;
    }

    /**
     * Save {@code perThread} entities from each of {@code threads} threads, in transactions of
     * {@code batch}: thread {@code i} saves orders (snowflake keys) when {@code i % 3 == 0},
     * invoices (segment keys) when 1, customers (String keys) when 2. Answers how many of each.
     */
    @PostMapping("/fill")
    public Map<String, Long> fill(@RequestParam int threads, @RequestParam int perThread,
            @RequestParam(defaultValue = "500") int batch) throws Exception {
        AtomicLong[] saved = {new AtomicLong(), new AtomicLong(), new AtomicLong()};
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        long started = System.nanoTime();
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int kind = t % 3;
                done.add(pool.submit(() -> {
                    for (int left = perThread; left > 0; left -= batch) {
                        int n = Math.min(batch, left);
                        tx.executeWithoutResult(s -> save(kind, n));
                        saved[kind].addAndGet(n);
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
        return Map.of("orders", saved[0].get(), "invoices", saved[1].get(), "customers", saved[2].get(),
                "ms", (System.nanoTime() - started) / 1_000_000);
    }

    private void save(int kind, int n) {
        switch (kind) {
            case 0 -> {
                List<Order> batch = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    batch.add(new Order("item-" + i));
                }
                orders.saveAll(batch);
            }
            case 1 -> {
                List<Invoice> batch = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    batch.add(new Invoice(i));
                }
                invoices.saveAll(batch);
            }
            default -> {
                List<Customer> batch = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    batch.add(new Customer((long) i));
                }
                customers.saveAll(batch);
            }
        }
    }

    /** One saved entity of each kind, as the application's ObjectMapper writes them. */
    @GetMapping("/sample")
    public Map<String, Object> sample() {
        return Map.of("order", orders.findAll(PageRequest.of(0, 1)).getContent().get(0),
                "invoice", invoices.findAll(PageRequest.of(0, 1)).getContent().get(0),
                "customer", customers.findAll(PageRequest.of(0, 1)).getContent().get(0));
    }
}
