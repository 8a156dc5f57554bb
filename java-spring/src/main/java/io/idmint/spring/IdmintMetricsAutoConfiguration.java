package io.idmint.spring;

import io.idmint.SegmentClient;
import io.idmint.Snowflake;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;

/**
 * Micrometer meters for the context's generator beans ({@link IdmintMeters}); Spring Boot binds
 * every MeterBinder bean to the application's registries.
 */
@AutoConfiguration(after = IdmintAutoConfiguration.class)
@ConditionalOnClass(MeterRegistry.class)
public class IdmintMetricsAutoConfiguration {
    /** The meters of the {@link Snowflake} and {@link SegmentClient} beans (each when the context has one, or one primary). */
    @Bean
    @ConditionalOnMissingBean
    public IdmintMeters idmintMeters(ObjectProvider<Snowflake> snowflake, ObjectProvider<SegmentClient> segments) {
        IdmintMeters meters = new IdmintMeters();
        snowflake.ifUnique(g -> meters.source("snowflake", g::observe));
        segments.ifUnique(c -> meters.source("segment", c::observe));
        return meters;
    }

    /**
     * Meters for the segment tags loaded since the registry was bound: at once when the
     * application is ready (Hibernate has loaded the tags of its {@code @IdmintId} fields), then
     * every minute on a daemon thread, stopped with the context.
     */
    @Bean
    public IdmintMetersRefresh idmintMetersRefresh(IdmintMeters meters) {
        return new IdmintMetersRefresh(meters);
    }

    /** See {@link #idmintMetersRefresh}. */
    static final class IdmintMetersRefresh implements ApplicationListener<ApplicationReadyEvent>, DisposableBean {
        private final IdmintMeters meters;
        private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "idmint-meters");
            t.setDaemon(true);
            return t;
        });

        IdmintMetersRefresh(IdmintMeters meters) {
            this.meters = meters;
        }

        @Override
        public void onApplicationEvent(ApplicationReadyEvent event) {
            meters.refresh();
            timer.scheduleWithFixedDelay(meters::refresh, 1, 1, TimeUnit.MINUTES);
        }

        @Override
        public void destroy() {
            timer.shutdownNow();
        }
    }
}
