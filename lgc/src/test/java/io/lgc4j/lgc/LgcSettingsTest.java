package io.lgc4j.lgc;

import io.lgc4j.lgc.autoencoder.AeTraining;
import io.lgc4j.lgc.autoencoder.AutoencoderSpec;
import io.lgc4j.lgc.support.LgcSupportCompressor;
import io.lgc4j.core.method.Methods;
import io.lgc4j.core.settings.ResolvedConfig;
import io.lgc4j.core.settings.SettingsException;
import io.lgc4j.core.stage.Stage;
import org.junit.jupiter.api.Test;

import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** LGC's settings record and its provider: bound from the compressor and autoencoder sections. */
class LgcSettingsTest {

    private static Map<String, Object> autoencoder() {
        Map<String, Object> ae = new LinkedHashMap<>();
        AutoencoderSpec p = AutoencoderSpec.PAPER;
        ae.put("encoderFilters", p.encoderFilters());
        ae.put("encoderStride", p.encoderStride());
        ae.put("kernel", p.kernel());
        ae.put("latentChannels", p.latentChannels());
        ae.put("decoderFilters", p.decoderFilters());
        ae.put("decoderStrides", p.decoderStrides());
        ae.put("leakyAlpha", p.leakyAlpha());
        ae.put("innovationShare", 0.1);
        ae.put("optimizer", "adam");
        ae.put("learningRate", 0.001);
        ae.put("lambdaRec", 1.0);
        ae.put("lambdaSim", 0.0);
        ae.put("reconstructionFeedback", false);
        ae.put("exactInnovation", true);
        ae.put("driftBound", 0.9);
        ae.put("driftWindow", 5);
        ae.put("checkEvery", 10);
        ae.put("checkSample", 32);
        return ae;
    }

    private static ResolvedConfig config(double ratio, Map<String, Object> ae) {
        return ResolvedConfig.of(Map.of("compressor", Map.of("type", "lgc", "ratio", ratio, "lowPass", 0.1,
                "momentum", 0.9), "autoencoder", ae));
    }

    @Test
    void shouldBindTheDefaultsOfTheSectionsToThePapersArchitectureAndTheDefaultControls() {
        LgcSettings s = new LgcSettings.Provider().settings(config(0.001, autoencoder()));
        assertEquals(new LgcSettings(0.001, AutoencoderSpec.PAPER, AeTraining.DEFAULT, LgcControl.DEFAULT), s);
        assertEquals(0.1, s.lowPass());
    }

    @Test
    void shouldBeRegisteredWithItsStagesAndTheKeysItReadsFromTheCompressorSection() {
        LgcSettings.Provider lgc = assertInstanceOf(LgcSettings.Provider.class, Methods.installed().compressor("lgc"));
        assertEquals(EnumSet.of(Stage.FULL, Stage.TOP_K, Stage.COMPRESSED), lgc.stages());
        assertEquals(Set.of("ratio", "lowPass"), lgc.sectionKeys());
        LgcSettings s = new LgcSettings(0.01, AutoencoderSpec.PAPER, AeTraining.DEFAULT, LgcControl.DEFAULT);
        LgcSupportCompressor support = assertInstanceOf(LgcSupportCompressor.class, lgc.create(s, 42).orElseThrow());
        assertEquals(new LgcSupportCompressor.Settings(0.01, 42, 0.1), support.settings());
    }

    @Test
    void shouldNameTheKeyThatIsWrong() {
        assertEquals("compressor.ratio must be <= 1.0, found 1.5", assertThrows(SettingsException.class,
                () -> new LgcSettings.Provider().settings(config(1.5, autoencoder()))).getMessage());
        Map<String, Object> ae = autoencoder();
        ae.put("optimizer", "rmsprop");
        assertEquals("autoencoder.optimizer expects one of [adam, nesterovs, sgd], found \"rmsprop\"",
                assertThrows(SettingsException.class, () -> new LgcSettings.Provider().settings(config(0.01, ae)))
                        .getMessage());
        Map<String, Object> window = autoencoder();
        window.put("driftWindow", 0);
        assertEquals("autoencoder.driftWindow must be > 0, found 0", assertThrows(SettingsException.class,
                () -> new LgcSettings.Provider().settings(config(0.01, window))).getMessage());
        Map<String, Object> strides = autoencoder();
        strides.put("decoderStrides", List.of(2, 2, 2, 1, 1));
        assertEquals("autoencoder cannot be built: the decoder must upsample at least as much as the encoder "
                + "downsamples (16) and at most 64 times more; decoderStrides [2, 2, 2, 1, 1] upsample by 8",
                assertThrows(SettingsException.class, () -> new LgcSettings.Provider().settings(config(0.01,
                        strides))).getMessage());
        Map<String, Object> filters = autoencoder();
        filters.put("encoderFilters", List.of(64, "x"));
        assertEquals("autoencoder.encoderFilters[1] expects an integer, found \"x\"", assertThrows(
                SettingsException.class, () -> new LgcSettings.Provider().settings(config(0.01, filters)))
                .getMessage());
        assertEquals("spec is required", assertThrows(SettingsException.class,
                () -> new LgcSettings(0.01, null, AeTraining.DEFAULT, LgcControl.DEFAULT)).getMessage());
    }

    @Test
    void shouldTakeTheDefaultOfAMissingKeyAsAConfigurationDoes() {
        Map<String, Object> some = new LinkedHashMap<>(Map.of("driftBound", 0.5, "optimizer", "SGD"));
        LgcSettings s = new LgcSettings.Provider().settings(ResolvedConfig.of(Map.of("compressor",
                Map.of("ratio", 0.01), "autoencoder", some)));
        assertEquals(new LgcSettings(0.01, AutoencoderSpec.PAPER, AeTraining.named("sgd", 1e-3, 1.0, 0.0),
                new LgcControl(0.5, 5, 10, 32, false, true, 0.1)), s);
        assertEquals(new LgcSettings(0.001, AutoencoderSpec.PAPER, AeTraining.DEFAULT, LgcControl.DEFAULT),
                new LgcSettings.Provider().settings(ResolvedConfig.of(Map.of())));
        assertEquals(AutoencoderSection.DEFAULT.settings(io.lgc4j.core.compress.CompressorKeys.DEFAULT),
                new LgcSettings.Provider().settings(ResolvedConfig.of(Map.of())));
    }

    @Test
    void shouldReadTheAblationInAnySpellingAndDefaultToNone() {
        Map<String, Object> ae = autoencoder();
        ae.put("ablation", "LEARNED_FROZEN");
        LgcSettings frozen = new LgcSettings.Provider().settings(config(0.01, ae));
        assertEquals(LgcControl.DEFAULT.withAblation(LgcAblation.LEARNED_FROZEN), frozen.control());
        assertEquals(LgcAblation.NONE, new LgcSettings.Provider().settings(config(0.01, autoencoder())).control()
                .ablation());
        ae.put("ablation", "frozen");
        assertEquals("autoencoder.ablation expects one of [innovation-only, latent-only, learned-frozen, none,"
                + " zero-latent], found \"frozen\"", assertThrows(SettingsException.class,
                () -> new LgcSettings.Provider().settings(config(0.01, ae))).getMessage());
        assertEquals("ablation is required", assertThrows(SettingsException.class,
                () -> LgcControl.DEFAULT.withAblation(null)).getMessage());
    }

    @Test
    void shouldListTheAblationsEachTopologyRunsBySpelling() {
        assertEquals(List.of(LgcAblation.INNOVATION_ONLY, LgcAblation.LATENT_ONLY, LgcAblation.LEARNED_FROZEN,
                LgcAblation.NONE), LgcAblation.ofParameterServer());
        assertEquals(List.of(LgcAblation.LEARNED_FROZEN, LgcAblation.NONE, LgcAblation.ZERO_LATENT),
                LgcAblation.ofRing());
        assertEquals("innovation-only", LgcAblation.INNOVATION_ONLY.toString());
        LgcAblation.NONE.requireIn(LgcAblation.ofRing(), "ring", "LGC-RAR");
        assertEquals("ablation does not apply to topology.type ps (LGC-PS), found zero-latent; allowed with"
                + " topology.type ps: [innovation-only, latent-only, learned-frozen, none]",
                assertThrows(SettingsException.class, () -> LgcAblation.ZERO_LATENT.requireIn(
                        LgcAblation.ofParameterServer(), "ps", "LGC-PS")).getMessage());
    }

    @Test
    void shouldNameTheOptimizerAsConfigsDo() {
        assertEquals(AeTraining.DEFAULT, AeTraining.named("Adam", 1e-3, 1.0, 0.0));
        assertEquals(new AeTraining(new org.nd4j.linalg.learning.config.Nesterovs(0.01, 0.9), 1, 0),
                AeTraining.named("nesterovs", 0.01, 1, 0));
    }
}
