package io.lgc4j.core.method;

import io.lgc4j.core.codec.IndexCodec;

import io.lgc4j.core.compress.BoundCompressor;
import io.lgc4j.core.settings.ResolvedConfig;
import java.util.Objects;

/**
 * What a {@link TopologyProvider} builds a topology from.
 *
 * @param compressor the compressor and its settings ({@code none} for a dense topology)
 * @param codec      the index codec for supports and sparse sets
 * @param seed       the run's seed (leader draws, autoencoder initialization)
 * @param config     the whole resolved configuration, for settings of the topology itself ({@code topology},
 *                   {@code autoencoder}, ...)
 */
public record TopologyRequest(BoundCompressor<?> compressor, IndexCodec codec, long seed, ResolvedConfig config) {

    /** Rejects nulls. */
    public TopologyRequest {
        Objects.requireNonNull(compressor, "compressor");
        Objects.requireNonNull(codec, "codec");
        Objects.requireNonNull(config, "config");
    }
}
