package io.idmint.spring.app;

import org.springframework.data.jpa.repository.JpaRepository;

/** Spring Data's repository of {@link Customer}. */
public interface CustomerRepository extends JpaRepository<Customer, String> {}
