package io.idmint.spring;

import java.lang.reflect.Field;
import java.lang.reflect.Member;
import java.lang.reflect.Method;
import java.util.EnumSet;
import java.util.function.LongSupplier;
import org.hibernate.engine.spi.SharedSessionContractImplementor;
import org.hibernate.generator.AnnotationBasedGenerator;
import org.hibernate.generator.BeforeExecutionGenerator;
import org.hibernate.generator.EventType;
import org.hibernate.generator.EventTypeSets;
import org.hibernate.generator.GeneratorCreationContext;

/**
 * The generator behind {@link IdmintId}. Hibernate builds one per annotated property when it
 * builds its session factory, through Spring's bean container (Spring Boot hands Hibernate
 * one), so Spring passes in the context's {@link IdmintIdSource}; Hibernate then
 * {@linkplain #initialize initializes} it with the property's annotation. Every generator
 * draws from the context's shared beans.
 */
public final class IdmintIdGenerator implements BeforeExecutionGenerator, AnnotationBasedGenerator<IdmintId> {
    private final IdmintIdSource source;
    private LongSupplier ids;
    private boolean asString;

    /** Spring's constructor (autowired through Hibernate's bean container). */
    public IdmintIdGenerator(IdmintIdSource source) {
        this.source = source;
    }

    /**
     * The property's generator: snowflake or the segment tag named, as a number or a string. A
     * segment tag's handle is loaded here, once.
     */
    @Override
    public void initialize(IdmintId config, Member member, GeneratorCreationContext context) {
        Class<?> type = member instanceof Field f ? f.getType() : ((Method) member).getReturnType();
        if (type == String.class) {
            asString = true;
        } else if (type == Long.class || type == long.class) {
            asString = false;
        } else {
            throw new IllegalArgumentException("@IdmintId on " + member.getDeclaringClass().getName() + "."
                    + member.getName() + ": the property is a " + type.getName() + "; IDs go into Long, long or String");
        }
        ids = config.segment().isEmpty() ? source.snowflake() : source.segment(config.segment());
    }

    @Override
    public Object generate(SharedSessionContractImplementor session, Object owner, Object currentValue, EventType eventType) {
        long id = ids.getAsLong();
        return asString ? Long.toString(id) : id;
    }

    @Override
    public EnumSet<EventType> getEventTypes() {
        return EventTypeSets.INSERT_ONLY;
    }
}
