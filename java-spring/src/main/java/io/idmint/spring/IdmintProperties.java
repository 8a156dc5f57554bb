package io.idmint.spring;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code idmint.*} properties. Every generator value left unset is left to the core, which holds the
 * defaults and checks every value when the beans are built (its error names the value as
 * given): no generator setting here has a default of its own.
 *
 * <pre>
 * idmint.snowflake.layout=twitter
 * idmint.snowflake.lease.url=postgres://app@db/shop     # or nodes.worker=7, or random-nodes=true
 * idmint.segment.url=postgres://app@db/shop
 * idmint.segment.tags.orders.step=1000
 * idmint.jackson.ids-as-strings=true
 * </pre>
 */
@ConfigurationProperties("idmint")
public class IdmintProperties {
    private final Snowflake snowflake = new Snowflake();
    private final Segment segment = new Segment();
    private final RedisSnowflake redisSnowflake = new RedisSnowflake();
    private final Jackson jackson = new Jackson();

    /** The snowflake generator bean, built when any {@code idmint.snowflake.*} property is set. */
    public Snowflake getSnowflake() {
        return snowflake;
    }

    /** The segment client bean, built when {@code idmint.segment.url} is set. */
    public Segment getSegment() {
        return segment;
    }

    /** The bean of snowflakes minted on Redis, built when {@code idmint.redis-snowflake.urls} is set. */
    public RedisSnowflake getRedisSnowflake() {
        return redisSnowflake;
    }

    /** How IDs are written to JSON. */
    public Jackson getJackson() {
        return jackson;
    }

    /**
     * The application's snowflake generator: its layout and where its node value comes from,
     * exactly one of a lease, explicit node values, or random node values.
     */
    public static class Snowflake {
        /** Preset name (twitter, sonyflake, redis-lua, baidu) or layout spec; unset: the core's default preset. */
        private String layout;
        /** Another epoch for the layout: unix ms or RFC 3339. */
        private String epoch;
        /** Explicit node values by field name (e.g. datacenter=1, worker=7). */
        private Map<String, Long> nodes = new LinkedHashMap<>();
        /** Give every node field not set a random value. */
        private Boolean randomNodes;
        /** What to do when a tick's sequence is used up: wait or borrow:MS. */
        private String onExhausted;
        /** What to do when the clock reads earlier than the last ID: error, wait:MS or continue. */
        private String onRollback;
        private final Lease lease = new Lease();

        public String getLayout() {
            return layout;
        }

        public void setLayout(String layout) {
            this.layout = layout;
        }

        public String getEpoch() {
            return epoch;
        }

        public void setEpoch(String epoch) {
            this.epoch = epoch;
        }

        public Map<String, Long> getNodes() {
            return nodes;
        }

        public void setNodes(Map<String, Long> nodes) {
            this.nodes = nodes;
        }

        public Boolean getRandomNodes() {
            return randomNodes;
        }

        public void setRandomNodes(Boolean randomNodes) {
            this.randomNodes = randomNodes;
        }

        public String getOnExhausted() {
            return onExhausted;
        }

        public void setOnExhausted(String onExhausted) {
            this.onExhausted = onExhausted;
        }

        public String getOnRollback() {
            return onRollback;
        }

        public void setOnRollback(String onRollback) {
            this.onRollback = onRollback;
        }

        /** The node value leased from a store, renewed in the background, released at shutdown. */
        public Lease getLease() {
            return lease;
        }
    }

    /** A worker lease: the node value of this process, from a store every process shares. */
    public static class Lease {
        /** The lease store: sqlite:PATH, postgres://…, mysql://…, redis://…, http(s):// (idmint serve). */
        private String url;
        /** The values to lease from, FIRST..LAST (both included); unset: every value the layout's node bits hold. */
        private String range;
        /** How long a lease lasts unrenewed (renewed every third of it). */
        private Duration ttl;
        /** How long an expired value stays frozen before anyone may take it. */
        private Duration freeze;
        /** The holder's name shown in the store (the core's default: host:pid). */
        private String holder;

        public String getUrl() {
            return url;
        }

        public void setUrl(String url) {
            this.url = url;
        }

        public String getRange() {
            return range;
        }

        public void setRange(String range) {
            this.range = range;
        }

        public Duration getTtl() {
            return ttl;
        }

        public void setTtl(Duration ttl) {
            this.ttl = ttl;
        }

        public Duration getFreeze() {
            return freeze;
        }

        public void setFreeze(Duration freeze) {
            this.freeze = freeze;
        }

        public String getHolder() {
            return holder;
        }

        public void setHolder(String holder) {
            this.holder = holder;
        }
    }

    /** The application's segment client: one store, any number of tags. */
    public static class Segment {
        /** The store: sqlite:PATH, postgres://…, mysql://…, redis://…, http(s)://, memory:. */
        private String url;
        /** Fetch the next range when this share of the current one (percent) is used. */
        private Integer refillAt;
        /** The largest step the dynamic step may grow to. */
        private Long maxStep;
        /** The step of tags this client creates. */
        private Long defaultStep;
        /** Create unknown tags on first use. */
        private Boolean autoCreate;
        /** The tag that tags unknown to the store draw from. */
        private String defaultTag;
        /** The longest a caller waits when both buffered ranges are used up. */
        private Duration maxWait;
        /** The longest one store call may take. */
        private Duration opTimeout;
        /** Tags created at startup when the store lacks them (an existing tag is left as it is). */
        private Map<String, Tag> tags = new LinkedHashMap<>();

        public String getUrl() {
            return url;
        }

        public void setUrl(String url) {
            this.url = url;
        }

        public Integer getRefillAt() {
            return refillAt;
        }

        public void setRefillAt(Integer refillAt) {
            this.refillAt = refillAt;
        }

        public Long getMaxStep() {
            return maxStep;
        }

        public void setMaxStep(Long maxStep) {
            this.maxStep = maxStep;
        }

        public Long getDefaultStep() {
            return defaultStep;
        }

        public void setDefaultStep(Long defaultStep) {
            this.defaultStep = defaultStep;
        }

        public Boolean getAutoCreate() {
            return autoCreate;
        }

        public void setAutoCreate(Boolean autoCreate) {
            this.autoCreate = autoCreate;
        }

        public String getDefaultTag() {
            return defaultTag;
        }

        public void setDefaultTag(String defaultTag) {
            this.defaultTag = defaultTag;
        }

        public Duration getMaxWait() {
            return maxWait;
        }

        public void setMaxWait(Duration maxWait) {
            this.maxWait = maxWait;
        }

        public Duration getOpTimeout() {
            return opTimeout;
        }

        public void setOpTimeout(Duration opTimeout) {
            this.opTimeout = opTimeout;
        }

        public Map<String, Tag> getTags() {
            return tags;
        }

        public void setTags(Map<String, Tag> tags) {
            this.tags = tags;
        }
    }

    /** A tag to create at startup; unset values are the core's. */
    public static class Tag {
        /** Its first ID. */
        private Long start;
        /** Its step (IDs per range). */
        private Long step;
        /** Its description. */
        private String description;

        public Long getStart() {
            return start;
        }

        public void setStart(Long start) {
            this.start = start;
        }

        public Long getStep() {
            return step;
        }

        public void setStep(Long step) {
            this.step = step;
        }

        public String getDescription() {
            return description;
        }

        public void setDescription(String description) {
            this.description = description;
        }
    }

    /** Snowflakes minted on Redis by idmint's Lua script: no worker ID, the servers' clock. */
    public static class RedisSnowflake {
        /** The servers, comma separated, in the same order on every client. */
        private String urls;
        /** The tag (one sequence space per tag). */
        private String tag;
        /** The shard this application mints for. */
        private Long shard;
        /** Layout preset or spec (the core's default: redis-lua). */
        private String layout;
        /** IDs fetched per round trip. */
        private Long batch;
        /** The longest one server call may take. */
        private Duration opTimeout;
        /** The longest a caller waits for an ID. */
        private Duration maxWait;

        public String getUrls() {
            return urls;
        }

        public void setUrls(String urls) {
            this.urls = urls;
        }

        public String getTag() {
            return tag;
        }

        public void setTag(String tag) {
            this.tag = tag;
        }

        public Long getShard() {
            return shard;
        }

        public void setShard(Long shard) {
            this.shard = shard;
        }

        public String getLayout() {
            return layout;
        }

        public void setLayout(String layout) {
            this.layout = layout;
        }

        public Long getBatch() {
            return batch;
        }

        public void setBatch(Long batch) {
            this.batch = batch;
        }

        public Duration getOpTimeout() {
            return opTimeout;
        }

        public void setOpTimeout(Duration opTimeout) {
            this.opTimeout = opTimeout;
        }

        public Duration getMaxWait() {
            return maxWait;
        }

        public void setMaxWait(Duration maxWait) {
            this.maxWait = maxWait;
        }
    }

    /** JSON: JavaScript reads numbers as doubles, exact only up to 2^53; snowflake IDs go past it. */
    public static class Jackson {
        /** Write every {@code @IdmintId} property as a string (per property: {@code @IdAsString}). */
        private boolean idsAsStrings;

        public boolean isIdsAsStrings() {
            return idsAsStrings;
        }

        public void setIdsAsStrings(boolean idsAsStrings) {
            this.idsAsStrings = idsAsStrings;
        }
    }
}
