package io.idmint.spring;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.hibernate.annotations.IdGeneratorType;

/**
 * A Hibernate 6 key (or any generated property) filled by idmint on insert: a snowflake ID
 * from the application's {@link io.idmint.Snowflake} bean, or with {@code segment} a segment ID
 * of that tag from its {@link io.idmint.SegmentClient} bean. On {@code Long}/{@code long}
 * fields the ID itself, on {@code String} fields its decimal digits.
 *
 * <pre>{@code
 * @Entity
 * class Order {
 *     @Id @IdmintId                      // snowflake (idmint.snowflake.*)
 *     Long id;
 * }
 *
 * @Entity
 * class Invoice {
 *     @Id @IdmintId(segment = "invoices") // 1, 2, 3, ... shared by every process (idmint.segment.url)
 *     long id;
 * }
 * }</pre>
 *
 * <p>With {@code idmint.jackson.ids-as-strings=true} these properties are written to JSON as
 * strings, which JavaScript reads without rounding.
 */
@IdGeneratorType(IdmintIdGenerator.class)
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.FIELD, ElementType.METHOD})
public @interface IdmintId {
    /** The segment tag to draw from; empty (the default): a snowflake ID. */
    String segment() default "";
}
