package io.lgc4j.core.compress;

import io.lgc4j.core.stage.Stage;

import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;

/**
 * The compressor type {@code none}: every step dense, so a run stays in {@link Stage#FULL} and the topology is built
 * without a compressor.
 *
 * <pre>{@code
 * compressor: {type: none}     # the default
 * }</pre>
 */
public final class NoCompression implements CompressorProvider<NoCompression.Settings> {

    /** No settings. */
    public record Settings() {
    }

    @Override
    public String type() {
        return "none";
    }

    @Override
    public Class<Settings> settingsType() {
        return Settings.class;
    }

    @Override
    public Optional<Compressor> create(Settings settings, long seed) {
        return Optional.empty();
    }

    @Override
    public Set<Stage> stages() {
        return EnumSet.of(Stage.FULL);
    }
}
