package io.idmint.spring.app;

import org.springframework.data.jpa.repository.JpaRepository;

/** Spring Data's repository of {@link Order}. */
public interface OrderRepository extends JpaRepository<Order, Long> {}
