package io.idmint.spring.app;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * The test application: a Spring Boot web app on PostgreSQL whose entities get their keys from
 * {@code @IdmintId}, configured by {@code idmint.*} properties only (application.properties
 * and the command line). {@code SpringAppProcessesTest} runs two of them as processes.
 */
@SpringBootApplication
public class OrdersApp {
    public static void main(String[] args) {
        SpringApplication.run(OrdersApp.class, args);
    }
}
