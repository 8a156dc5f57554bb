package io.idmint.spring;

import io.idmint.Idmint;
import io.idmint.RedisSnowflake;
import io.idmint.SegmentClient;
import io.idmint.Snowflake;
import io.idmint.TagSpec;
import java.util.Map;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * The generator beans of an application, from its {@code idmint.*} properties
 * ({@link IdmintProperties}): one {@link Snowflake}, one {@link SegmentClient} and one
 * {@link RedisSnowflake}, each only when configured and only when the application has no bean
 * of that type of its own. Spring closes them at shutdown ({@code close()}, inferred): a leased
 * node value is released for the next process at once, and the segment client's refills stop.
 *
 * <p>The properties are handed to the package's builders as they are; the core checks them
 * and holds every default, so an unset property is the core's default and a wrong one fails
 * startup with the core's error.
 */
@AutoConfiguration
@EnableConfigurationProperties(IdmintProperties.class)
public class IdmintAutoConfiguration {

    /** The snowflake generator, when any {@code idmint.snowflake.*} property is set. */
    @Bean
    @ConditionalOnMissingBean
    @Conditional(SnowflakeConfigured.class)
    public Snowflake idmintSnowflake(IdmintProperties properties) {
        IdmintProperties.Snowflake p = properties.getSnowflake();
        Snowflake.Builder b = Snowflake.builder(p.getLayout() != null ? p.getLayout() : Idmint.defaultPreset());
        if (p.getEpoch() != null) {
            b.epoch(p.getEpoch());
        }
        b.nodes(p.getNodes());
        if (Boolean.TRUE.equals(p.getRandomNodes())) {
            b.randomNodes();
        }
        if (p.getOnExhausted() != null) {
            b.onExhausted(p.getOnExhausted());
        }
        if (p.getOnRollback() != null) {
            b.onRollback(p.getOnRollback());
        }
        IdmintProperties.Lease lease = p.getLease();
        if (lease.getUrl() != null) {
            b.lease(lease.getUrl());
            if (lease.getRange() != null) {
                b.leaseRange(lease.getRange());
            }
            if (lease.getTtl() != null) {
                b.leaseTtl(lease.getTtl());
            }
            if (lease.getFreeze() != null) {
                b.leaseFreeze(lease.getFreeze());
            }
            if (lease.getHolder() != null) {
                b.leaseHolder(lease.getHolder());
            }
        }
        return b.build();
    }

    /**
     * The segment client, when {@code idmint.segment.url} is set; the tags under
     * {@code idmint.segment.tags} are created in the store if it lacks them.
     */
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnProperty(prefix = "idmint.segment", name = "url")
    public SegmentClient idmintSegmentClient(IdmintProperties properties) {
        IdmintProperties.Segment p = properties.getSegment();
        SegmentClient.Builder b = SegmentClient.builder(p.getUrl());
        if (p.getRefillAt() != null) {
            b.refillAt(p.getRefillAt());
        }
        if (p.getMaxStep() != null) {
            b.maxStep(p.getMaxStep());
        }
        if (p.getDefaultStep() != null) {
            b.defaultStep(p.getDefaultStep());
        }
        if (p.getAutoCreate() != null) {
            b.autoCreate(p.getAutoCreate());
        }
        if (p.getDefaultTag() != null) {
            b.defaultTag(p.getDefaultTag());
        }
        if (p.getMaxWait() != null) {
            b.maxWait(p.getMaxWait());
        }
        if (p.getOpTimeout() != null) {
            b.opTimeout(p.getOpTimeout());
        }
        SegmentClient client = b.connect();
        try {
            for (Map.Entry<String, IdmintProperties.Tag> e : p.getTags().entrySet()) {
                IdmintProperties.Tag t = e.getValue();
                TagSpec spec = TagSpec.of(e.getKey());
                if (t.getStart() != null) {
                    spec = spec.start(t.getStart());
                }
                if (t.getStep() != null) {
                    spec = spec.step(t.getStep());
                }
                if (t.getDescription() != null) {
                    spec = spec.description(t.getDescription());
                }
                client.createTag(spec);
            }
        } catch (RuntimeException e) {
            client.close();
            throw e;
        }
        return client;
    }

    /** Snowflakes minted on Redis, when {@code idmint.redis-snowflake.urls} is set. */
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnProperty(prefix = "idmint.redis-snowflake", name = "urls")
    public RedisSnowflake idmintRedisSnowflake(IdmintProperties properties) {
        IdmintProperties.RedisSnowflake p = properties.getRedisSnowflake();
        RedisSnowflake.Builder b = RedisSnowflake.builder(p.getUrls());
        if (p.getTag() != null) {
            b.tag(p.getTag());
        }
        if (p.getShard() != null) {
            b.shard(p.getShard());
        }
        if (p.getLayout() != null) {
            b.layout(p.getLayout());
        }
        if (p.getBatch() != null) {
            b.batch(p.getBatch());
        }
        if (p.getOpTimeout() != null) {
            b.opTimeout(p.getOpTimeout());
        }
        if (p.getMaxWait() != null) {
            b.maxWait(p.getMaxWait());
        }
        return b.connect();
    }

    /**
     * Where {@link IdmintId} fields get their IDs: this application's generator beans, looked up
     * once per field when Hibernate builds its generators.
     */
    @Bean
    @ConditionalOnMissingBean
    public IdmintIdSource idmintIdSource(ObjectProvider<Snowflake> snowflake, ObjectProvider<SegmentClient> segments) {
        return new IdmintIdSource(snowflake, segments);
    }

    /**
     * Whether any {@code idmint.snowflake.*} property is set: a generator needs a node value
     * from somewhere, so an application that configures none (segment IDs only) gets none.
     */
    static final class SnowflakeConfigured extends SpringBootCondition {
        @Override
        public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
            boolean set = Binder.get(context.getEnvironment())
                    .bind("idmint.snowflake", Bindable.of(IdmintProperties.Snowflake.class))
                    .isBound();
            return set ? ConditionOutcome.match("idmint.snowflake.* is set")
                    : ConditionOutcome.noMatch("no idmint.snowflake.* property is set");
        }
    }
}
