package io.idmint.spring;

import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.SerializationConfig;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.ser.BeanPropertyWriter;
import com.fasterxml.jackson.databind.ser.BeanSerializerModifier;
import com.fasterxml.jackson.databind.ser.std.ToStringSerializer;
import java.util.List;

/**
 * Jackson: {@code long} IDs written as strings where the reader is JavaScript. Opt-in, per
 * property ({@link IdAsString}) or for every {@link IdmintId} property at once (constructed with
 * {@code allIdmintIds}, which {@code idmint.jackson.ids-as-strings=true} sets). Other numbers are
 * left as they are; reading takes a string or a number either way.
 *
 * <pre>{@code
 * ObjectMapper json = new ObjectMapper().registerModule(new IdmintJacksonModule(true));
 * }</pre>
 */
public final class IdmintJacksonModule extends SimpleModule {
    /** {@code allIdmintIds}: write every {@link IdmintId} property as a string too. */
    public IdmintJacksonModule(boolean allIdmintIds) {
        super("idmint");
        setSerializerModifier(new BeanSerializerModifier() {
            @Override
            public List<BeanPropertyWriter> changeProperties(SerializationConfig config, BeanDescription bean,
                    List<BeanPropertyWriter> properties) {
                for (BeanPropertyWriter p : properties) {
                    Class<?> type = p.getType().getRawClass();
                    boolean idType = type == Long.class || type == long.class;
                    boolean asked = p.getAnnotation(IdAsString.class) != null
                            || (allIdmintIds && p.getAnnotation(IdmintId.class) != null);
                    if (idType && asked) {
                        p.assignSerializer(ToStringSerializer.instance);
                    }
                }
                return properties;
            }
        });
    }
}
