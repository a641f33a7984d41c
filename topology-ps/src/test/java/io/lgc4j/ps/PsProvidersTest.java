package io.lgc4j.ps;

import io.lgc4j.autoencoders.AeTraining;
import io.lgc4j.autoencoders.AutoencoderSpec;
import io.lgc4j.autoencoders.LgcAblation;
import io.lgc4j.autoencoders.LgcControl;
import io.lgc4j.autoencoders.LgcSettings;
import io.lgc4j.core.codec.IndexCodecs;
import io.lgc4j.core.compress.DgcCompressor;
import io.lgc4j.core.method.BoundCompressor;
import io.lgc4j.core.method.Methods;
import io.lgc4j.core.method.NoCompression;
import io.lgc4j.core.method.ResolvedConfig;
import io.lgc4j.core.method.SettingsException;
import io.lgc4j.core.method.TopologyRequest;
import io.lgc4j.core.train.Topology;
import io.lgc4j.core.train.TopologyDescription;
import io.lgc4j.ps.lgc.LgcPsTopology;
import io.lgc4j.ps.topology.ParameterServerTopology;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** This module's providers, found through the registry, and how its topologies describe themselves. */
class PsProvidersTest {

    private static final ResolvedConfig CONFIG = ResolvedConfig.of(Map.of(
            "topology", Map.of("type", "ps", "support", "own"),
            "autoencoder", Map.of("innovationShare", 0.2)));

    @Test
    void shouldRegisterTheGenericParameterServerAndLgcPs() {
        Methods methods = Methods.installed();
        assertInstanceOf(ParameterServerTopology.Provider.class, methods.topology("ps", "dgc"));
        assertInstanceOf(ParameterServerTopology.Provider.class, methods.topology("ps", "none"));
        assertInstanceOf(LgcPsTopology.Provider.class, methods.topology("ps", "lgc"));
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

    @Test
    void shouldBuildLgcPsFromLgcSettingsAndItsOwnSettings() {
        LgcSettings lgc = new LgcSettings(0.01, AutoencoderSpec.PAPER, AeTraining.DEFAULT, LgcControl.DEFAULT);
        Topology topology = new LgcPsTopology.Provider().create(new TopologyRequest(
                new BoundCompressor<>(new LgcSettings.Provider(), lgc), IndexCodecs.defaultCodec(), 42, CONFIG));
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
        assertEquals("autoencoder.innovationShare must be in (0, 1], found 1.5", assertThrows(SettingsException.class,
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
                        CONFIG))).getMessage());
    }
}
