package io.idmint.spring;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.jackson.JacksonAutoConfiguration;
import org.springframework.context.annotation.Bean;

/** Registers {@link IdmintJacksonModule} with the application's ObjectMapper (Spring Boot adds every Module bean). */
@AutoConfiguration(before = JacksonAutoConfiguration.class)
@ConditionalOnClass(ObjectMapper.class)
public class IdmintJacksonAutoConfiguration {
    /** The module, writing every {@code @IdmintId} property as a string under {@code idmint.jackson.ids-as-strings}. */
    @Bean
    @ConditionalOnMissingBean
    public IdmintJacksonModule idmintJacksonModule(IdmintProperties properties) {
        return new IdmintJacksonModule(properties.getJackson().isIdsAsStrings());
    }
}
