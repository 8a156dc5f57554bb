package io.idmint.spring.app;

import io.idmint.spring.IdmintId;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** A segment key: {@code long}, from tag {@code invoices} of the application's segment client. */
@Entity
@Table(name = "spring_it_invoices")
public class Invoice {
    @Id
    @IdmintId(segment = "invoices")
    private long id;

    private long orderId;

    protected Invoice() {}

    public Invoice(long orderId) {
        this.orderId = orderId;
    }

    public long getId() {
        return id;
    }

    public long getOrderId() {
        return orderId;
    }
}
