package io.idmint.spring;

import io.idmint.SegmentClient;
import io.idmint.SegmentTag;
import io.idmint.Snowflake;
import java.util.function.LongSupplier;
import org.springframework.beans.factory.ObjectProvider;

/**
 * The application's generator beans as {@link IdmintId} fields draw from them: the one
 * {@link Snowflake} and the one {@link SegmentClient} of the context, shared by every entity
 * (never a generator per entity or per insert). Spring passes it to each
 * {@link IdmintIdGenerator} Hibernate creates through its bean container.
 */
public final class IdmintIdSource {
    private final ObjectProvider<Snowflake> snowflake;
    private final ObjectProvider<SegmentClient> segments;

    /** Over the context's beans, looked up when a field first needs one. */
    public IdmintIdSource(ObjectProvider<Snowflake> snowflake, ObjectProvider<SegmentClient> segments) {
        this.snowflake = snowflake;
        this.segments = segments;
    }

    /** Snowflake IDs from the context's {@link Snowflake} bean (configured by {@code idmint.snowflake.*}). */
    public LongSupplier snowflake() {
        Snowflake g = snowflake.getObject();
        return g::nextId;
    }

    /**
     * Segment IDs of {@code tag} from the context's {@link SegmentClient} bean (configured by
     * {@code idmint.segment.url}); the tag's handle is loaded once, here.
     */
    public LongSupplier segment(String tag) {
        SegmentTag t = segments.getObject().tag(tag);
        return t::nextId;
    }
}
