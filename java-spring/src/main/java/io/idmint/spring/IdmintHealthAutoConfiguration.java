package io.idmint.spring;

import io.idmint.SegmentClient;
import io.idmint.Snowflake;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.health.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.AnyNestedCondition;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;

/** The {@code idmint} health component ({@link IdmintHealthIndicator}), with Actuator on the classpath. */
@AutoConfiguration(after = IdmintAutoConfiguration.class)
@ConditionalOnClass(HealthIndicator.class)
@ConditionalOnEnabledHealthIndicator("idmint")
public class IdmintHealthAutoConfiguration {
    /** Over the {@link Snowflake} and {@link SegmentClient} beans there are (none: no component). */
    @Bean
    @ConditionalOnMissingBean(name = "idmintHealthIndicator")
    @Conditional(AnyGenerator.class)
    public HealthIndicator idmintHealthIndicator(ObjectProvider<Snowflake> snowflake, ObjectProvider<SegmentClient> segments) {
        return new IdmintHealthIndicator(snowflake.getIfUnique(), segments.getIfUnique());
    }

    /** Whether the context has a {@link Snowflake} or a {@link SegmentClient} bean. */
    static final class AnyGenerator extends AnyNestedCondition {
        AnyGenerator() {
            super(ConfigurationPhase.REGISTER_BEAN);
        }

        @ConditionalOnBean(Snowflake.class)
        static final class SnowflakeBean {}

        @ConditionalOnBean(SegmentClient.class)
        static final class SegmentClientBean {}
    }
}
