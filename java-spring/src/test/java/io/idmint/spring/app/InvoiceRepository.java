package io.idmint.spring.app;

import org.springframework.data.jpa.repository.JpaRepository;

/** Spring Data's repository of {@link Invoice}. */
public interface InvoiceRepository extends JpaRepository<Invoice, Long> {}
