package com.example.lgc4j;

import io.lgc4j.core.compress.Compressor;
import io.lgc4j.core.compress.GatherCompressor;
import io.lgc4j.core.compress.TopKCompressor;
import io.lgc4j.core.layout.ParamBlock;
import io.lgc4j.core.compress.CompressorProvider;
import io.lgc4j.core.settings.SettingsException;

import java.util.List;
import java.util.Optional;

/**
 * A compressor as a third party would add one, outside the project's packages and registered only through this test
 * source set's {@code META-INF/services/io.lgc4j.core.compress.CompressorProvider}: Sparse GD sending {@code boost}
 * times the ratio. Its settings have a key no shipped compressor has ({@code boost}, default 2), so it also shows a
 * new compressor's keys being accepted, defaulted and checked under {@code compressor} in YAML.
 */
public final class BoostedTopKCompressor implements GatherCompressor {

    /**
     * @param ratio the base fraction of each block, in (0, 1]
     * @param boost how many times the base fraction is sent, {@code >= 1}
     */
    public record Settings(double ratio, int boost) {
        /** Checks both, naming the one that is out of range. */
        public Settings {
            SettingsException.require(ratio > 0 && ratio <= 1, "ratio", "must be in (0, 1], found " + ratio);
            SettingsException.require(boost >= 1, "boost", "must be >= 1, found " + boost);
        }
    }

    /** The registration: type {@code boosted-topk}, defaults for the keys a config leaves out. */
    public static final class Provider implements CompressorProvider<Settings> {
        @Override
        public String type() {
            return "boosted-topk";
        }

        @Override
        public Class<Settings> settingsType() {
            return Settings.class;
        }

        @Override
        public Optional<Settings> defaults() {
            return Optional.of(new Settings(0.001, 2));
        }

        @Override
        public Optional<Compressor> create(Settings settings, long seed) {
            return Optional.of(new BoostedTopKCompressor(settings));
        }
    }

    private final Settings settings;
    private final TopKCompressor topK;

    /** @param settings ratio and boost */
    public BoostedTopKCompressor(Settings settings) {
        this.settings = settings;
        this.topK = new TopKCompressor(Math.min(1.0, settings.ratio() * settings.boost()));
    }

    @Override
    public String name() {
        return "boosted-topk";
    }

    @Override
    public Settings settings() {
        return settings;
    }

    @Override
    public double density(int step, ParamBlock block) {
        return topK.density(step, block);
    }

    @Override
    public State newRank(List<ParamBlock> blocks) {
        return topK.newRank(blocks);
    }
}
