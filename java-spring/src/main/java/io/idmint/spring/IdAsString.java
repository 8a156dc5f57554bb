package io.idmint.spring;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Write this {@code Long}/{@code long} property to JSON as a string ({@code "1869425731467264000"}),
 * for readers in JavaScript, whose numbers are exact only up to 2^53 (a snowflake ID goes past
 * it and would come back rounded). For a key and for every property that holds an ID of
 * another entity. Reading accepts the string and the number alike. Needs
 * {@link IdmintJacksonModule}, which the starter registers.
 *
 * <pre>{@code
 * class OrderView {
 *     @IdAsString long id;          // "id":"1869425731467264000"
 *     @IdAsString Long customerId;
 * }
 * }</pre>
 */
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.FIELD, ElementType.METHOD})
public @interface IdAsString {}
