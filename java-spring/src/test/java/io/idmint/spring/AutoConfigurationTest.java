package io.idmint.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.idmint.Idmint;
import io.idmint.InvalidLayoutException;
import io.idmint.LeaseInfo;
import io.idmint.RedisSnowflake;
import io.idmint.SegmentClient;
import io.idmint.Snowflake;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.actuate.health.Status;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.jackson.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The auto-configuration in-process: what each property does, which beans exist, what they publish. */
class AutoConfigurationTest {
    private final ApplicationContextRunner runner = new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(
            IdmintAutoConfiguration.class, IdmintJacksonAutoConfiguration.class, JacksonAutoConfiguration.class,
            IdmintMetricsAutoConfiguration.class, IdmintHealthAutoConfiguration.class));

    @Test
    void explicitNodesBindAndMint() {
        runner.withPropertyValues("idmint.snowflake.layout=sonyflake", "idmint.snowflake.nodes.machine=513",
                "idmint.snowflake.on-rollback=wait:50").run(ctx -> {
                    Snowflake g = ctx.getBean(Snowflake.class);
                    assertThat(g.nodes()).isEqualTo(Map.of("machine", 513L));
                    assertThat(g.onRollback()).isEqualTo("wait:50");
                    assertThat(g.parse(g.nextId()).nodes()).containsEntry("machine", 513L);
                    assertThat(ctx).doesNotHaveBean(SegmentClient.class);
                });
    }

    @Test
    void nothingConfiguredNoGenerators() {
        runner.run(ctx -> {
            assertThat(ctx).doesNotHaveBean(Snowflake.class).doesNotHaveBean(SegmentClient.class);
            assertThat(ctx).doesNotHaveBean("idmintHealthIndicator").hasSingleBean(IdmintMeters.class);
        });
    }

    @Test
    void theCoreChecksTheValues() {
        runner.withPropertyValues("idmint.snowflake.layout=nope", "idmint.snowflake.random-nodes=true").run(ctx ->
                assertThat(ctx).getFailure().hasRootCauseInstanceOf(InvalidLayoutException.class));
        // A field with no value is the core's missing_field, never a silent 0.
        runner.withPropertyValues("idmint.snowflake.nodes.worker=1").run(ctx ->
                assertThat(ctx).getFailure().rootCause().hasMessageContaining("datacenter"));
    }

    @Test
    void aUsersBeanWins() {
        runner.withPropertyValues("idmint.snowflake.random-nodes=true", "idmint.segment.url=memory:")
                .withUserConfiguration(OwnBeans.class).run(ctx -> {
                    assertThat(ctx.getBean(Snowflake.class).nodes()).isEqualTo(Map.of("datacenter", 3L, "worker", 4L));
                    assertThat(ctx).hasSingleBean(Snowflake.class).hasSingleBean(SegmentClient.class);
                });
    }

    @Configuration
    static class OwnBeans {
        @Bean
        Snowflake mine() {
            return new Snowflake(3, 4);
        }
    }

    @Test
    void segmentTagsAreCreatedFromProperties() {
        runner.withPropertyValues("idmint.segment.url=memory:", "idmint.segment.tags.orders.start=5000",
                "idmint.segment.tags.orders.step=10").run(ctx -> {
                    SegmentClient c = ctx.getBean(SegmentClient.class);
                    assertThat(c.nextId("orders")).isEqualTo(5000);
                    assertThat(c.nextId("orders")).isEqualTo(5001);
                });
    }

    @Test
    void redisSnowflakeFromProperties() {
        String redis = System.getenv("IDMINT_TEST_REDIS_URL");
        if (redis == null || redis.isEmpty()) {
            if ("1".equals(System.getenv("IDMINT_REQUIRE_SERVERS"))) {
                Assertions.fail("IDMINT_TEST_REDIS_URL is not set, and IDMINT_REQUIRE_SERVERS=1 (tests/run.sh starts the servers)");
            }
            Assumptions.abort("IDMINT_TEST_REDIS_URL not set: start the test servers (tests/servers.sh)");
        }
        runner.withPropertyValues("idmint.redis-snowflake.urls=" + redis, "idmint.redis-snowflake.tag=spring-test",
                "idmint.redis-snowflake.shard=53", "idmint.redis-snowflake.batch=10").run(ctx -> {
                    RedisSnowflake g = ctx.getBean(RedisSnowflake.class);
                    long a = g.nextId();
                    long b = g.nextId();
                    assertThat(b).isGreaterThan(a);
                    assertThat(g.layout().parse(a).nodes()).containsEntry("shard", 53L);
                });
    }

    @Test
    void leaseReleasedWhenTheContextCloses() throws Exception {
        Path dir = Files.createDirectories(Path.of("target", "test-scratch"));
        Path db = Files.createTempFile(dir, "leases", ".db").toAbsolutePath();
        Files.delete(db);
        String url = "sqlite:" + db;
        runner.withPropertyValues("idmint.snowflake.lease.url=" + url, "idmint.snowflake.lease.range=6..=7",
                "idmint.snowflake.lease.holder=context-test").run(ctx -> {
                    Snowflake g = ctx.getBean(Snowflake.class);
                    g.nextId();
                    LeaseInfo held = Idmint.leaseList(url).stream().filter(l -> l.state().equals("held")).findFirst().orElseThrow();
                    assertThat(held.value()).isEqualTo(6);
                    assertThat(held.holder()).isEqualTo("context-test");
                    Health h = ((HealthIndicator) ctx.getBean("idmintHealthIndicator")).health();
                    assertThat(h.getStatus()).isEqualTo(Status.UP);
                    assertThat(h.getDetails().toString()).contains("held=true");
                });
        assertThat(Idmint.leaseList(url)).allSatisfy(l -> assertThat(l.state()).isEqualTo("free"));
    }

    /**
     * tests/vectors/health.json's layout_remaining through Micrometer and the Actuator health: the
     * time left a generator on a manual clock publishes (the value the Python and Node packages'
     * OpenTelemetry publish), and DEGRADED within a year of the end.
     */
    @Test
    void layoutTimeLeftInMicrometerAndDegradedHealth() throws Exception {
        JsonNode cases = new ObjectMapper().readTree(Path.of("../tests/vectors/health.json").toFile()).get("layout_remaining");
        int degraded = 0;
        for (JsonNode c : cases) {
            Snowflake.Builder b = Snowflake.builder(c.get("layout").asText()).clock(new io.idmint.ManualClock(c.get("clock_ms").asLong()));
            c.get("nodes").fields().forEachRemaining(e -> b.node(e.getKey(), e.getValue().asLong()));
            try (Snowflake g = b.build()) {
                SimpleMeterRegistry registry = new SimpleMeterRegistry();
                IdmintMeters meters = new IdmintMeters();
                meters.source("snowflake", g::observe);
                meters.bindTo(registry);
                Gauge left = registry.get("idmint.layout.remaining").gauge();
                assertThat(left.value()).as(c.get("name").asText()).isEqualTo(c.get("remaining_s").asDouble());
                assertThat(left.getId().getBaseUnit()).isEqualTo("seconds");
                Health h = new IdmintHealthIndicator(g, null).health();
                Status want = c.get("status").asText().equals("degraded") ? IdmintHealthIndicator.DEGRADED : Status.UP;
                assertThat(h.getStatus()).as(c.get("name").asText()).isEqualTo(want);
                if (want == IdmintHealthIndicator.DEGRADED) {
                    degraded++;
                    assertThat(h.getDetails().get("reasons").toString()).contains("the snowflake layout runs out in");
                }
            }
        }
        assertThat(degraded).isPositive();
    }

    @Test
    void metersReadTheCoresValues() {
        runner.withPropertyValues("idmint.snowflake.random-nodes=true", "idmint.segment.url=memory:").run(ctx -> {
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            IdmintMeters meters = ctx.getBean(IdmintMeters.class);
            meters.bindTo(registry);
            ctx.getBean(Snowflake.class).nextIds(7);
            FunctionCounter issued = registry.get("idmint.ids.issued").tag("kind", "snowflake").functionCounter();
            assertThat(issued.count()).isEqualTo(7);
            assertThat(issued.getId().getTag("tag")).isEqualTo("");
            assertThat(issued.getId().getDescription()).startsWith("IDs handed out");

            // A tag used after binding gets its meters at the next refresh.
            ctx.getBean(SegmentClient.class).tag("users").nextId();
            assertThat(registry.find("idmint.segment.remaining").gauges()).isEmpty();
            meters.refresh();
            Gauge remaining = registry.get("idmint.segment.remaining").tag("tag", "users").gauge();
            assertThat(remaining.value()).isPositive();
            assertThat(registry.get("idmint.segment.refill.time").functionCounter().getId().getBaseUnit()).isEqualTo("seconds");
            // Every definition of the core has its meter (no lease here: no lease meters).
            for (io.idmint.MetricDefinition d : io.idmint.Metrics.definitions()) {
                if (!d.name().startsWith("idmint.lease.")) {
                    assertThat(registry.find(d.name()).meters()).as(d.name()).isNotEmpty();
                }
            }
        });
    }

    @Test
    void idsAsStringsInJson() {
        runner.withPropertyValues("idmint.jackson.ids-as-strings=true").run(ctx -> {
            ObjectMapper mapper = ctx.getBean(ObjectMapper.class);
            JsonNode tree = mapper.readTree(mapper.writeValueAsString(new View(1869425731467264001L, 9007199254740993L, 5)));
            assertThat(tree.get("id").isTextual()).isTrue();
            assertThat(tree.get("id").asText()).isEqualTo("1869425731467264001");
            assertThat(tree.get("other").asText()).isEqualTo("9007199254740993");
            assertThat(tree.get("count").isNumber()).isTrue();
            View back = mapper.readValue(mapper.writeValueAsString(new View(2, 3, 4)), View.class);
            assertThat(back.id).isEqualTo(2);
        });
        // Off (the default): @IdmintId stays a number, @IdAsString is still a string.
        runner.run(ctx -> {
            JsonNode tree = ctx.getBean(ObjectMapper.class).valueToTree(new View(1, 2, 3));
            assertThat(tree.get("id").isNumber()).isTrue();
            assertThat(tree.get("other").isTextual()).isTrue();
        });
    }

    /** A JSON view with an {@code @IdmintId} key, an {@code @IdAsString} reference and a plain count. */
    public static final class View {
        @IdmintId
        public long id;
        @IdAsString
        public Long other;
        public long count;

        public View() {}

        View(long id, long other, long count) {
            this.id = id;
            this.other = other;
            this.count = count;
        }
    }
}
