package io.lgc4j.core.compress;

import io.lgc4j.core.settings.ResolvedConfig;
import io.lgc4j.core.settings.SettingsException;
import io.lgc4j.core.stage.StageSchedule;

import java.util.Objects;
import java.util.Optional;

/**
 * A compressor type with its settings: what a configuration chose, ready for a {@code TopologyProvider}.
 *
 * <pre>{@code
 * BoundCompressor<?> dgc = BoundCompressor.bind(Methods.installed().compressor("dgc"), config);
 * Optional<Compressor> compressor = dgc.create(seed);
 * StageSchedule stages = dgc.schedule(200, 300);   // FULL for 200 steps, then TOP_K (dgc has no COMPRESSED)
 * }</pre>
 *
 * @param provider the compressor's provider
 * @param settings its settings, an instance of {@code provider.settingsType()}
 * @param <S>      the settings record
 */
public record BoundCompressor<S extends Record>(CompressorProvider<S> provider, S settings) {

    /** Checks that the settings are of the provider's type. */
    public BoundCompressor {
        Objects.requireNonNull(provider, "provider");
        Objects.requireNonNull(settings, "settings");
        if (!provider.settingsType().isInstance(settings)) {
            throw new IllegalArgumentException("compressor '" + provider.type() + "' takes settings of type "
                    + provider.settingsType().getName() + ", found " + settings.getClass().getName());
        }
    }

    /**
     * Reads the settings of {@code provider} from {@code config}.
     *
     * @throws SettingsException naming the key that is wrong
     */
    public static <S extends Record> BoundCompressor<S> bind(CompressorProvider<S> provider, ResolvedConfig config) {
        return new BoundCompressor<>(provider, provider.settings(config));
    }

    /** @return the compressor's type, e.g. {@code dgc} */
    public String type() {
        return provider.type();
    }

    /** The compressor, or empty for no compression; see {@link CompressorProvider#create}. */
    public Optional<Compressor> create(long seed) {
        return provider.create(settings, seed);
    }

    /**
     * The settings as {@code type}, for a topology provider that handles this compressor specially.
     *
     * @throws IllegalArgumentException naming both types when they differ
     */
    public <T extends Record> T settings(Class<T> type) {
        if (!type.isInstance(settings)) {
            throw new IllegalArgumentException("compressor '" + type() + "' has settings of type "
                    + settings.getClass().getName() + ", not " + type.getName());
        }
        return type.cast(settings);
    }

    /**
     * The stage schedule of a run with this compressor: see {@link StageSchedule#through}.
     *
     * @param fullIterations steps of dense updates first
     * @param topKIterations steps of top-k updates before COMPRESSED (used only by compressors that reach it)
     */
    public StageSchedule schedule(int fullIterations, int topKIterations) {
        return StageSchedule.through(provider.stages(), fullIterations, topKIterations);
    }
}
