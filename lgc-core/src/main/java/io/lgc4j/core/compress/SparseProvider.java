package io.lgc4j.core.compress;

import io.lgc4j.core.settings.ResolvedConfig;

import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BiFunction;

/**
 * The provider of a sparse compressor (top-k, DGC, ScaleCom, random-k): its type, its settings record bound as
 * {@link BlockRatios#bind} binds it (without {@code learnedRatio}, LEARNED blocks take {@code ratio}; a key the
 * section lacks from {@code absent}), and its constructor from the settings and the run's seed.
 *
 * <pre>{@code
 * public static final class Provider extends SparseProvider<Settings> {
 *     public Provider() { super("topk", Settings.class, Map.of(), (s, seed) -> new TopKCompressor(s)); }
 * }
 * }</pre>
 *
 * @param <S> the settings record
 */
abstract class SparseProvider<S extends Record> implements CompressorProvider<S> {
    private final String type;
    private final Class<S> settingsType;
    private final Map<String, Object> absent;
    private final BiFunction<S, Long, Compressor> create;

    SparseProvider(String type, Class<S> settingsType, Map<String, Object> absent,
                   BiFunction<S, Long, Compressor> create) {
        this.type = Objects.requireNonNull(type, "type");
        this.settingsType = Objects.requireNonNull(settingsType, "settingsType");
        this.absent = Map.copyOf(absent);
        this.create = Objects.requireNonNull(create, "create");
    }

    @Override
    public String type() {
        return type;
    }

    @Override
    public Class<S> settingsType() {
        return settingsType;
    }

    @Override
    public S settings(ResolvedConfig config) {
        return BlockRatios.bind(config, settingsType, absent);
    }

    @Override
    public Optional<Compressor> create(S settings, long seed) {
        return Optional.of(create.apply(settings, seed));
    }
}
