package io.idmint.spring.app;

import io.idmint.spring.IdAsString;
import io.idmint.spring.IdmintId;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** A {@code String} key: a snowflake ID's digits. */
@Entity
@Table(name = "spring_it_customers")
public class Customer {
    @Id
    @IdmintId
    private String id;

    /** Another entity's snowflake ID, written to JSON as a string by {@code @IdAsString}. */
    @IdAsString
    private Long lastOrderId;

    protected Customer() {}

    public Customer(Long lastOrderId) {
        this.lastOrderId = lastOrderId;
    }

    public String getId() {
        return id;
    }

    public Long getLastOrderId() {
        return lastOrderId;
    }
}
