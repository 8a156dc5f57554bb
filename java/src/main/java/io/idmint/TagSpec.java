package io.idmint;

import java.util.Objects;

/**
 * A segment tag to create with {@link SegmentClient#createTag(TagSpec)}: its first ID, step and
 * description; a part left {@code null} takes the core's default (start 1, the client's default
 * step, no description). Immutable; the core checks every part when the tag is created.
 *
 * <pre>{@code
 * client.createTag(TagSpec.of("invoices").start(5_000_001).step(500).description("moved from MySQL"));
 * }</pre>
 *
 * @param tag the tag
 * @param start its first ID, or {@code null}
 * @param step how many IDs a refill takes, or {@code null}
 * @param description shown in the store, or {@code null}
 */
public record TagSpec(String tag, Long start, Long step, String description) {
    public TagSpec {
        Objects.requireNonNull(tag, "tag");
    }

    /** A spec of {@code tag} with the core's defaults. */
    public static TagSpec of(String tag) {
        return new TagSpec(tag, null, null, null);
    }

    /** The same spec starting at {@code start}. */
    public TagSpec start(long start) {
        return new TagSpec(tag, start, step, description);
    }

    /** The same spec with step {@code step}. */
    public TagSpec step(long step) {
        return new TagSpec(tag, start, step, description);
    }

    /** The same spec with {@code description}. */
    public TagSpec description(String description) {
        return new TagSpec(tag, start, step, Objects.requireNonNull(description, "description"));
    }

    io.idmint.ffi.TagSpecInfo info() {
        return new io.idmint.ffi.TagSpecInfo(tag, start, step, description);
    }
}
