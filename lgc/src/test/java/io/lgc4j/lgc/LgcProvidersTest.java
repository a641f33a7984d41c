package io.lgc4j.lgc;

import io.lgc4j.core.codec.IndexCodecs;
import io.lgc4j.core.compress.BoundCompressor;
import io.lgc4j.core.method.Methods;
import io.lgc4j.core.settings.ResolvedConfig;
import io.lgc4j.core.settings.SettingsException;
import io.lgc4j.core.method.TopologyRequest;
import io.lgc4j.core.train.CompressedTopologyContract;
import io.lgc4j.core.train.Topology;
import io.lgc4j.core.train.TopologyDescription;
import io.lgc4j.lgc.autoencoder.AeTraining;
import io.lgc4j.lgc.autoencoder.AutoencoderSpec;
import io.lgc4j.lgc.ps.LgcPsTopology;
import io.lgc4j.lgc.ring.LgcRingTopology;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * LGC's providers, found through the registry like any other compressor family's, and how LGC-PS and LGC-RAR
 * describe themselves.
 */
class LgcProvidersTest {

    private static final ResolvedConfig PS = ResolvedConfig.of(Map.of(
            "topology", Map.of("type", "ps", "support", "own"),
            "autoencoder", Map.of("innovationShare", 0.2)));
    private static final ResolvedConfig RING = ResolvedConfig.of(Map.of("topology", Map.of("type", "ring")));

    @Test
    void shouldRegisterLgcPsAndLgcRarForTheLgcCompressor() {
        Methods methods = Methods.installed();
        assertInstanceOf(LgcSettings.Provider.class, methods.compressor("lgc"));
        assertInstanceOf(LgcPsTopology.Provider.class, methods.topology("ps", "lgc"));
        assertInstanceOf(LgcRingTopology.Provider.class, methods.topology("ring", "lgc"));
    }

    @Test
    void shouldBuildLgcPsFromLgcSettingsAndItsOwnSettings() {
        LgcSettings lgc = new LgcSettings(0.01, AutoencoderSpec.PAPER, AeTraining.DEFAULT, LgcControl.DEFAULT);
        Topology topology = new LgcPsTopology.Provider().create(new TopologyRequest(
                new BoundCompressor<>(new LgcSettings.Provider(), lgc), IndexCodecs.defaultCodec(), 42, PS));
        LgcPsTopology ps = assertInstanceOf(LgcPsTopology.class, topology);
        assertEquals(LgcPsTopology.SupportPolicy.OWN, ps.policy());
        TopologyDescription d = ps.describe();
        assertEquals("lgc", d.compressor());
        assertEquals(lgc, d.compressorSettings());
        assertEquals(new LgcPsTopology.Settings(LgcPsTopology.SupportPolicy.OWN, 0.2), d.topologySettings());
        assertEquals(Map.of("support", "own", "innovationShare", 0.2), d.toMap().get("topologySettings"));
    }

    @Test
    void shouldNameTheKeyOfABadLgcPsSetting() {
        LgcSettings lgc = new LgcSettings(0.01, AutoencoderSpec.PAPER, AeTraining.DEFAULT, LgcControl.DEFAULT);
        ResolvedConfig bad = ResolvedConfig.of(Map.of("topology", Map.of("support", "leader"),
                "autoencoder", Map.of("innovationShare", 1.5)));
        assertEquals("autoencoder.innovationShare must be <= 1.0, found 1.5", assertThrows(SettingsException.class,
                () -> new LgcPsTopology.Provider().create(new TopologyRequest(new BoundCompressor<>(
                        new LgcSettings.Provider(), lgc), IndexCodecs.defaultCodec(), 42, bad))).getMessage());
        assertEquals("support is required", assertThrows(SettingsException.class,
                () -> new LgcPsTopology.Settings(null, 0.1)).getMessage());
        LgcSettings ring = new LgcSettings(0.01, AutoencoderSpec.PAPER, AeTraining.DEFAULT,
                LgcControl.DEFAULT.withAblation(LgcAblation.ZERO_LATENT));
        assertEquals("autoencoder.ablation does not apply to topology.type ps (LGC-PS), found zero-latent; allowed"
                + " with topology.type ps: [innovation-only, latent-only, learned-frozen, none]", assertThrows(
                SettingsException.class, () -> new LgcPsTopology.Provider().create(new TopologyRequest(
                        new BoundCompressor<>(new LgcSettings.Provider(), ring), IndexCodecs.defaultCodec(), 42,
                        PS))).getMessage());
    }

    @Test
    void shouldBuildLgcRarFromLgcSettings() {
        LgcSettings lgc = new LgcSettings(0.02, AutoencoderSpec.PAPER, AeTraining.DEFAULT, LgcControl.PAPER);
        Topology topology = new LgcRingTopology.Provider().create(new TopologyRequest(
                new BoundCompressor<>(new LgcSettings.Provider(), lgc), IndexCodecs.defaultCodec(), 42, RING));
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
                        RING))).getMessage());
    }
}
