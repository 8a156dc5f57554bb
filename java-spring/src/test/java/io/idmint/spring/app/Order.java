package io.idmint.spring.app;

import io.idmint.spring.IdmintId;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** A snowflake key: {@code Long}, from the application's leased snowflake generator. */
@Entity(name = "ShopOrder")
@Table(name = "spring_it_orders")
public class Order {
    @Id
    @IdmintId
    private Long id;

    private String item;

    protected Order() {}

    public Order(String item) {
        this.item = item;
    }

    public Long getId() {
        return id;
    }

    public String getItem() {
        return item;
    }
}
