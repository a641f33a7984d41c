package io.lgc4j.ring;

import io.lgc4j.autoencoders.AeTraining;
import io.lgc4j.autoencoders.AutoencoderSpec;
import io.lgc4j.autoencoders.LgcAblation;
import io.lgc4j.autoencoders.LgcControl;
import io.lgc4j.autoencoders.LgcSettings;
import io.lgc4j.core.codec.IndexCodecs;
import io.lgc4j.core.compress.ScaleComCompressor;
import io.lgc4j.core.method.BoundCompressor;
import io.lgc4j.core.method.Methods;
import io.lgc4j.core.method.ResolvedConfig;
import io.lgc4j.core.method.SettingsException;
import io.lgc4j.core.method.TopologyRequest;
import io.lgc4j.core.train.CompressedTopologyContract;
import io.lgc4j.core.train.Topology;
import io.lgc4j.core.train.TopologyDescription;
import io.lgc4j.ring.lgc.LgcRingTopology;
import io.lgc4j.ring.topology.RingTopology;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** This module's providers, found through the registry, and how its topologies describe themselves. */
class RingProvidersTest {

    private static final ResolvedConfig CONFIG = ResolvedConfig.of(Map.of("topology", Map.of("type", "ring")));

    @Test
    void shouldRegisterTheGenericRingAndLgcRar() {
        assertInstanceOf(RingTopology.Provider.class, Methods.installed().topology("ring", "scalecom"));
        assertInstanceOf(LgcRingTopology.Provider.class, Methods.installed().topology("ring", "lgc"));
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

    @Test
    void shouldBuildLgcRarFromLgcSettings() {
        LgcSettings lgc = new LgcSettings(0.02, AutoencoderSpec.PAPER, AeTraining.DEFAULT, LgcControl.PAPER);
        Topology topology = new LgcRingTopology.Provider().create(new TopologyRequest(
                new BoundCompressor<>(new LgcSettings.Provider(), lgc), IndexCodecs.defaultCodec(), 42, CONFIG));
        assertInstanceOf(LgcRingTopology.class, topology);
        assertEquals(new TopologyDescription("ring", "lgc", lgc, IndexCodecs.defaultCodec().name(),
                TopologyDescription.NO_SETTINGS), topology.describe());
        assertEquals(0.02, topology.compressor().orElseThrow().density(0, CompressedTopologyContract.TOP_K_BLOCK));
    }

    @Test
    void shouldNameTheKeyOfAnAblationLgcRarDoesNotRun() {
        LgcSettings ps = new LgcSettings(0.02, AutoencoderSpec.PAPER, AeTraining.DEFAULT,
                LgcControl.DEFAULT.withAblation(LgcAblation.INNOVATION_ONLY));
        assertEquals("autoencoder.ablation does not apply to topology.type ring (LGC-RAR), found innovation-only;"
                + " allowed with topology.type ring: [learned-frozen, none, zero-latent]", assertThrows(
                SettingsException.class, () -> new LgcRingTopology.Provider().create(new TopologyRequest(
                        new BoundCompressor<>(new LgcSettings.Provider(), ps), IndexCodecs.defaultCodec(), 42,
                        CONFIG))).getMessage());
    }
}
