package io.idmint.spring.app;

import java.io.File;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.web.context.WebServerPortFileWriter;

/**
 * The test application: a Spring Boot web app on PostgreSQL whose entities get their keys from
 * {@code @IdmintId}, configured by {@code idmint.*} properties only (application.properties
 * and the command line). {@code SpringAppProcessesTest} runs two of them as processes, each on
 * {@code server.port=0}: the OS picks the port, and Spring Boot's own
 * {@link WebServerPortFileWriter} writes the port Tomcat got to the file {@code IT_PORT_FILE}
 * names, where the test reads it (no port is picked by the test and released for another
 * process to take).
 */
@SpringBootApplication
public class OrdersApp {
    public static void main(String[] args) {
        SpringApplication app = new SpringApplication(OrdersApp.class);
        String portFile = System.getenv("IT_PORT_FILE");
        if (portFile != null && !portFile.isEmpty()) {
            app.addListeners(new WebServerPortFileWriter(new File(portFile)));
        }
        app.run(args);
    }
}
