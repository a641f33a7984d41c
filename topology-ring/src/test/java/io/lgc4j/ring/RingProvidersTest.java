package io.lgc4j.ring;

import io.lgc4j.core.codec.IndexCodecs;
import io.lgc4j.core.compress.ScaleComCompressor;
import io.lgc4j.core.compress.BoundCompressor;
import io.lgc4j.core.method.Methods;
import io.lgc4j.core.settings.ResolvedConfig;
import io.lgc4j.core.method.TopologyRequest;
import io.lgc4j.core.train.Topology;
import io.lgc4j.core.train.TopologyDescription;
import io.lgc4j.ring.topology.RingTopology;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

/** This module's providers, found through the registry, and how its topologies describe themselves. */
class RingProvidersTest {

    private static final ResolvedConfig CONFIG = ResolvedConfig.of(Map.of("topology", Map.of("type", "ring")));

    @Test
    void shouldRegisterTheGenericRing() {
        assertInstanceOf(RingTopology.Provider.class, Methods.installed().topology("ring", "scalecom"));
    }

    @Test
    void shouldDescribeTheCompressedRingWithItsGatherPolicy() {
        ScaleComCompressor.Settings scalecom = new ScaleComCompressor.Settings(0.01, 0.1);
        Topology ring = new RingTopology.Provider().create(new TopologyRequest(
                new BoundCompressor<>(new ScaleComCompressor.Provider(), scalecom), IndexCodecs.defaultCodec(), 1,
                CONFIG));
        assertEquals(new TopologyDescription("ring", "scalecom", scalecom, IndexCodecs.defaultCodec().name(),
                new RingTopology.Settings(RingTopology.GatherPolicy.ALL_GATHER)), ring.describe());
        assertEquals(Map.of("gather", "all-gather"), ring.describe().toMap().get("topologySettings"));
        assertEquals("none", new RingTopology().describe().compressor());
    }
}
