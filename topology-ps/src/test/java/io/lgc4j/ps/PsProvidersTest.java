package io.lgc4j.ps;

import io.lgc4j.core.codec.IndexCodecs;
import io.lgc4j.core.compress.DgcCompressor;
import io.lgc4j.core.compress.BoundCompressor;
import io.lgc4j.core.method.Methods;
import io.lgc4j.core.compress.NoCompression;
import io.lgc4j.core.settings.ResolvedConfig;
import io.lgc4j.core.method.TopologyRequest;
import io.lgc4j.core.train.Topology;
import io.lgc4j.core.train.TopologyDescription;
import io.lgc4j.ps.topology.ParameterServerTopology;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

/** This module's providers, found through the registry, and how its topologies describe themselves. */
class PsProvidersTest {

    private static final ResolvedConfig CONFIG = ResolvedConfig.of(Map.of(
            "topology", Map.of("type", "ps", "support", "own"),
            "autoencoder", Map.of("innovationShare", 0.2)));

    @Test
    void shouldRegisterTheGenericParameterServer() {
        Methods methods = Methods.installed();
        assertInstanceOf(ParameterServerTopology.Provider.class, methods.topology("ps", "dgc"));
        assertInstanceOf(ParameterServerTopology.Provider.class, methods.topology("ps", "none"));
    }

    @Test
    void shouldBuildADenseOrACompressedParameterServerThatDescribesItself() {
        Topology dense = new ParameterServerTopology.Provider().create(new TopologyRequest(
                new BoundCompressor<>(new NoCompression(), new NoCompression.Settings()), IndexCodecs.defaultCodec(),
                1, CONFIG));
        assertEquals(new TopologyDescription("ps", "none", TopologyDescription.NO_SETTINGS, null,
                TopologyDescription.NO_SETTINGS), dense.describe());
        DgcCompressor.Settings dgc = new DgcCompressor.Settings(0.01, 0.9, 0, 0);
        Topology compressed = new ParameterServerTopology.Provider().create(new TopologyRequest(
                new BoundCompressor<>(new DgcCompressor.Provider(), dgc), IndexCodecs.byName("rice"), 1, CONFIG));
        assertEquals(new TopologyDescription("ps", "dgc", dgc, "rice", TopologyDescription.NO_SETTINGS),
                compressed.describe());
    }
}
