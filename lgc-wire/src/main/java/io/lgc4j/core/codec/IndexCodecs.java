package io.lgc4j.core.codec;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The index codecs by name, for configs: {@code "deflate"} (the default: DEFLATE with the default transform),
 * {@code "deflate-raw-int32"}, {@code "deflate-gaps-int32"}, {@code "deflate-gaps-varint"},
 * {@code "deflate-gaps-byte-planes"} (all at level 9) and {@code "rice"}.
 *
 * <pre>{@code
 * IndexCodec codec = IndexCodecs.byName(config.indexCodec());   // unknown name: the message lists the known ones
 * }</pre>
 */
public final class IndexCodecs {
    /** The name of the default codec. */
    public static final String DEFAULT_NAME = "deflate";

    private static final Map<String, IndexCodec> BY_NAME = byName();

    private IndexCodecs() {
    }

    private static Map<String, IndexCodec> byName() {
        Map<String, IndexCodec> codecs = new LinkedHashMap<>();
        codecs.put(DEFAULT_NAME, new DeflateIndexCodec());
        for (DeflateIndexCodec.Transform transform : DeflateIndexCodec.Transform.values()) {
            IndexCodec codec = new DeflateIndexCodec(transform);
            codecs.put(codec.name(), codec);
        }
        IndexCodec rice = new GolombRiceIndexCodec();
        codecs.put(rice.name(), rice);
        return Collections.unmodifiableMap(codecs);
    }

    /**
     * The codec called {@code name}; codecs are stateless, so the same instance is returned every time.
     *
     * @throws IllegalArgumentException if no codec has that name; the message lists the known names
     */
    public static IndexCodec byName(String name) {
        IndexCodec codec = BY_NAME.get(name);
        if (codec == null) {
            throw new IllegalArgumentException("unknown index codec '" + name + "': expected one of " + names());
        }
        return codec;
    }

    /** The default codec, {@link #DEFAULT_NAME}. */
    public static IndexCodec defaultCodec() {
        return BY_NAME.get(DEFAULT_NAME);
    }

    /** Every known name, the default first. */
    public static List<String> names() {
        return List.copyOf(BY_NAME.keySet());
    }
}
