package io.lgc4j.runner.config;

import io.lgc4j.core.compress.BoundCompressor;
import io.lgc4j.core.method.Methods;
import io.lgc4j.core.method.TopologyProvider;
import io.lgc4j.core.method.TopologyRequest;
import io.lgc4j.core.stage.StageSchedule;
import io.lgc4j.core.train.Topology;
import io.lgc4j.core.warmup.Warmup;

import java.util.Objects;

/**
 * The method a config names, resolved through the registry ({@link Methods#installed()}) once, when the
 * {@link ExperimentConfig} is built ({@link ExperimentConfig#method()}): the compressor with its settings record, the
 * topology provider that carries it, and the stage schedule the compressor goes through. No type is switched on here
 * or in the runner: a compressor or topology registered by any jar on the class path is built the same way as a
 * shipped one.
 *
 * <pre>{@code
 * ConfiguredMethod method = ConfigLoader.load(Path.of("configs/lgc-ps.yaml")).method();
 * Topology topology = method.newTopology();   // LgcPsTopology, from the provider registered for (ps, lgc)
 * StageSchedule stages = method.stages();     // FULL, TOP_K while the autoencoder trains, then COMPRESSED
 * }</pre>
 *
 * @param compressor       the compressor and its settings
 * @param topologyProvider the provider of {@code topology.type} for that compressor
 * @param request          what the provider builds from: compressor, codec, seed, the resolved config
 * @param stages           the stage schedule: from the compressor's stages and the {@code stages} section
 */
public record ConfiguredMethod(BoundCompressor<?> compressor, TopologyProvider topologyProvider,
                               TopologyRequest request, StageSchedule stages) {

    /** Rejects nulls. */
    public ConfiguredMethod {
        Objects.requireNonNull(compressor, "compressor");
        Objects.requireNonNull(topologyProvider, "topologyProvider");
        Objects.requireNonNull(request, "request");
        Objects.requireNonNull(stages, "stages");
    }

    /**
     * The FULL stage's warm-up the config names ({@code warmup} section; {@link Warmup#NONE} by default), as every
     * topology provider reads it from the request.
     */
    public Warmup warmup() {
        return Warmup.of(request);
    }

    /** A new topology for one run (topologies hold per-run state: build one per trainer). */
    public Topology newTopology() {
        return topologyProvider.create(request);
    }
}
