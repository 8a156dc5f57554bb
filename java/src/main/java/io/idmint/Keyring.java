package io.idmint;

import java.util.List;
import java.util.Objects;

/**
 * Keys for keyed, reversible obfuscation of IDs: show an ID without showing how many came before
 * it. {@link #obfuscate(long)} maps every ID in {@code 0..Long.MAX_VALUE} to another number in
 * that range (a keyed 63-bit Feistel permutation, docs/formats.md), and {@link #reveal(long)}
 * undoes it. The highest key version obfuscates; every version reveals, so keys can be rotated.
 *
 * <p>It is a pseudonym, not encryption: deterministic, and not authenticated (every number
 * reveals to <em>some</em> ID; look it up before trusting it). Immutable and thread-safe;
 * {@link #toString()} never shows a secret.
 *
 * <pre>{@code
 * Keyring ring = Keyring.fromText(Files.readString(Path.of("ids.key")));  // idmint-key-v1:<32 hex>, one a line
 * long shown = ring.obfuscate(orderId);          // a positive long, for BIGINT columns
 * long back = ring.reveal(shown);                // with the active key
 * String token = ring.obfuscateTagged(orderId);  // 12 characters naming the key version
 * long again = ring.revealTagged(token);         // with whichever key made it
 * }</pre>
 */
public final class Keyring {
    static {
        NativeLibrary.ensureLoaded();
    }

    private final io.idmint.ffi.Keyring inner;
    private final List<Integer> versions;
    private final int activeVersion;

    private Keyring(io.idmint.ffi.Keyring inner) {
        this.inner = inner;
        this.versions = java.util.Arrays.stream(inner.versions()).boxed().toList();
        this.activeVersion = inner.activeVersion();
    }

    /**
     * Read a key file's text: one key a line ({@code idmint-key-v<version>:<32 hex digits>},
     * version 0..61), {@code #} comments and blank lines skipped; at least one key, versions
     * distinct. {@link InvalidKeyException} otherwise (naming the line, never the secret).
     */
    public static Keyring fromText(String text) {
        Objects.requireNonNull(text, "text");
        return new Keyring(Layout.call(() -> io.idmint.ffi.Keyring.parse(text)));
    }

    /**
     * A key ring of one new random key of {@code version} (0..61). Its secret is not kept
     * anywhere, so what it obfuscates cannot be revealed after the process ends: to keep a key,
     * store {@link #generateKeyText(int)} and use {@link #fromText(String)}.
     */
    public static Keyring generate(int version) {
        return fromText(generateKeyText(version));
    }

    /**
     * A new key's text, {@code idmint-key-v<version>:<32 hex digits>}, from the OS random source
     * (as {@code idmint keygen}); {@link InvalidKeyException} for a version outside 0..61.
     */
    public static String generateKeyText(int version) {
        return Layout.call(() -> io.idmint.ffi.IdmintJvm.keyGenerate(version));
    }

    /** The key versions held, ascending. */
    public List<Integer> versions() {
        return versions;
    }

    /** The version of the key that obfuscates: the highest. */
    public int activeVersion() {
        return activeVersion;
    }

    /** {@code id} (0..Long.MAX_VALUE) obfuscated with the active key; {@link InvalidIdException} if negative. */
    public long obfuscate(long id) {
        return Layout.call(() -> inner.obfuscate(id));
    }

    /** The ID that {@link #obfuscate(long)} with the active key turned into {@code shown}. */
    public long reveal(long shown) {
        return reveal(activeVersion, shown);
    }

    /**
     * The ID that key {@code version} turned into {@code shown} (plain outputs do not name their
     * key; keep the version with them, or use the tagged form). {@link InvalidKeyException} if the
     * ring has no such version.
     */
    public long reveal(int version, long shown) {
        return Layout.call(() -> inner.reveal(version, shown));
    }

    /**
     * {@code id} obfuscated with the active key, as 12 characters: the key version as one base62
     * character, then 11 base62 digits.
     */
    public String obfuscateTagged(long id) {
        return Layout.call(() -> inner.obfuscateTagged(id));
    }

    /**
     * The ID of a tagged text, revealed with the key it names: {@link InvalidKeyException} if the
     * ring lacks that version, {@link InvalidEncodingException} if the text is not 12 base62
     * characters of a value below 2^63.
     */
    public long revealTagged(String tagged) {
        Objects.requireNonNull(tagged, "tagged");
        return Layout.call(() -> inner.revealTagged(tagged));
    }

    /** {@code Keyring(versions=[1, 2], active=2)}: no secrets. */
    @Override
    public String toString() {
        return "Keyring(versions=" + versions + ", active=" + activeVersion + ")";
    }
}
