package io.lgc4j.runner.config;

import io.lgc4j.lgc.AutoencoderSection;
import io.lgc4j.data.PixelPreprocessing;
import io.lgc4j.zoo.ModelSpec;
import io.lgc4j.core.compute.ComputeSettings;

import io.lgc4j.lgc.LgcAblation;
import io.lgc4j.lgc.LgcSettings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.Map;

import static io.lgc4j.runner.config.Fixtures.fixture;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Loading valid configs: defaults for what is absent, values for what is present, enums in any spelling. */
class ConfigLoaderTest {

    @Test
    void shouldReadTheComputePathAndDefaultToOneDnn() {
        assertEquals(ComputeSettings.DEFAULT, ConfigLoader.parse("run: {name: q}", "x").model().compute().settings());
        ExperimentConfig builtIn = ConfigLoader.parse("run: {name: q}\nmodel: {compute: {oneDnn: false,"
                + " cacheMode: NONE}}", "x");
        assertEquals(ComputeSettings.BUILT_IN, builtIn.model().compute().settings());
        assertEquals(builtIn, ConfigLoader.parse(builtIn.toYaml(), "resolved"));
        assertTrue(builtIn.toYaml().contains("cacheMode: none"), builtIn.toYaml());
        assertEquals("1", builtIn.model().compute().threads());
        for (String threads : new String[] {"auto", "AUTO", "3"}) {
            ExperimentConfig c = ConfigLoader.parse("run: {name: q}\nmodel: {compute: {threads: " + threads + "}}",
                    "x");
            assertEquals(threads.equals("3") ? "3" : "auto", c.model().compute().threads());
            assertEquals(c, ConfigLoader.parse(c.toYaml(), "resolved"));
        }
    }

    @Test
    void shouldFillEveryDefaultWhenOnlyRunNameIsGiven() {
        ExperimentConfig config = ConfigLoader.load(fixture("minimal.yaml"));

        assertEquals(ExperimentConfig.defaults("minimal"), config);
        assertEquals(new RunConfig("minimal", 42, "results"), config.run());
        assertEquals(new DataConfig(DatasetName.FASHION_MNIST, "/usr/share/datasets/fashion-mnist", 0, 0,
                PixelPreprocessing.STANDARDIZE), config.data());
        assertEquals(new ModelConfig(ModelSpec.SMALL_CNN,
                new UpdaterConfig(UpdaterType.NESTEROVS, 0.05, 0.9)), config.model());
        assertEquals(new TrainingConfig(4, 32, 1, 0, 100), config.training());
        assertEquals(new TopologyConfig(TopologyType.RING), config.topology());
    }

    @Test
    void shouldReadEveryKeyWhenAllAreGiven() {
        ExperimentConfig config = ConfigLoader.load(fixture("full.yaml"));

        assertEquals(new ExperimentConfig(
                new RunConfig("full-run_1.0", 7, "/tmp/lgc-results"),
                new DataConfig(DatasetName.FASHION_MNIST, "/opt/data/fmnist", 2000, 500, PixelPreprocessing.SCALE),
                new ModelConfig(ModelSpec.SMALL_RESNET, new UpdaterConfig(UpdaterType.ADAM, 1e-3, 0.5)),
                new TrainingConfig(8, 16, 3, 250, 0),
                new TopologyConfig(TopologyType.PS), CompressorConfig.defaults(), StagesConfig.defaults(),
                Map.of("autoencoder", AutoencoderSection.DEFAULT),
                new RuntimeConfig(RuntimeType.TCP, 30_000, 90_000, 60_000, 500, 3_000)),
                config);
    }

    @Test
    void shouldDefaultOnlyTheKeysMissingFromAPartialSection() {
        ExperimentConfig config = ConfigLoader.parse("""
                run: {name: partial}
                training:
                  workers: 2
                  maxSteps: 50
                model:
                  updater:
                    learningRate: 0.1
                """, "partial.yaml");

        assertEquals(new TrainingConfig(2, 32, 1, 50, 100), config.training());
        assertEquals(new UpdaterConfig(UpdaterType.NESTEROVS, 0.1, 0.9), config.model().updater());
        assertEquals(ModelSpec.SMALL_CNN, config.model().name());
    }

    @Test
    void shouldTreatSectionsAndKeysWithoutValueAsAbsent() {
        ExperimentConfig config = ConfigLoader.parse("""
                run:
                  name: empties
                  seed:
                data:
                training:
                  workers: ~
                topology: null
                """, "empties.yaml");

        assertEquals(ExperimentConfig.defaults("empties"), config);
    }

    @Test
    void shouldDefaultTheAblationToNoneAndReadItIntoTheMethodsSettingsAndDescription() {
        assertEquals(LgcAblation.NONE, ConfigLoader.load(fixture("minimal.yaml"))
                .section("autoencoder", AutoencoderSection.class).ablation());
        ExperimentConfig frozen = ConfigLoader.parse("run: {name: f}\ntopology: {type: ps}\ncompressor: {type: lgc}\n"
                + "autoencoder: {ablation: learned_frozen}\n", "f.yaml");
        assertEquals(LgcAblation.LEARNED_FROZEN, frozen.section("autoencoder", AutoencoderSection.class).ablation());
        ConfiguredMethod method = frozen.method();
        assertEquals(LgcAblation.LEARNED_FROZEN, method.compressor().settings(LgcSettings.class).control().ablation());
        Map<?, ?> settings = (Map<?, ?>) method.newTopology().describe().toMap().get("compressorSettings");
        assertEquals("learned-frozen", ((Map<?, ?>) settings.get("control")).get("ablation"));
    }

    @Test
    void shouldAcceptAnyLongAsSeed() {
        ExperimentConfig config = ConfigLoader.parse("run: {name: s, seed: -9223372036854775808}", "s.yaml");
        assertEquals(Long.MIN_VALUE, config.run().seed());
    }

    @Test
    void shouldReadIntegerLearningRateAndExponentNotationAsNumbers() {
        assertEquals(1.0, ConfigLoader.parse("run: {name: q}\nmodel: {updater: {learningRate: 1}}", "x")
                .model().updater().learningRate());
        assertEquals(5e-2, ConfigLoader.parse("run: {name: q}\nmodel: {updater: {learningRate: 5e-2}}", "x")
                .model().updater().learningRate());
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"small-cnn", "small_cnn", "SMALL_CNN", "Small-Cnn", "SMALL-CNN", " small-cnn "})
    void shouldParseEnumInKebabSnakeOrConstantSpellingIgnoringCase(String spelling) {
        ExperimentConfig config = ConfigLoader.parse("run: {name: q}\nmodel: {name: '" + spelling + "'}", "x");
        assertEquals(ModelSpec.SMALL_CNN, config.model().name());
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
        "ps, PS", "PS, PS", "Ring, RING", "ring, RING",
    })
    void shouldParseTopologyTypeCaseInsensitively(String spelling, TopologyType expected) {
        assertEquals(expected, ConfigLoader.parse("run: {name: q}\ntopology: {type: " + spelling + "}", "x")
                .topology().type());
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
        "nesterovs, NESTEROVS", "Nesterovs, NESTEROVS", "sgd, SGD", "SGD, SGD", "adam, ADAM", "Adam, ADAM",
    })
    void shouldParseUpdaterTypeCaseInsensitively(String spelling, UpdaterType expected) {
        assertEquals(expected, ConfigLoader.parse("run: {name: q}\nmodel: {updater: {type: " + spelling + "}}", "x")
                .model().updater().type());
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
        "standardize, STANDARDIZE", "STANDARDIZE, STANDARDIZE", "scale, SCALE", "Scale, SCALE",
    })
    void shouldParsePreprocessingCaseInsensitively(String spelling, PixelPreprocessing expected) {
        assertEquals(expected, ConfigLoader.parse("run: {name: q}\ndata: {preprocessing: " + spelling + "}", "x")
                .data().preprocessing());
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"fashion-mnist", "fashion_mnist", "FASHION_MNIST", "Fashion-MNIST"})
    void shouldParseDatasetNameInAnySpelling(String spelling) {
        assertEquals(DatasetName.FASHION_MNIST,
                ConfigLoader.parse("run: {name: q}\ndata: {dataset: " + spelling + "}", "x").data().dataset());
    }

    @Test
    void shouldParseSmallResnetFromSnakeCase() {
        assertEquals(ModelSpec.SMALL_RESNET,
                ConfigLoader.parse("run: {name: q}\nmodel: {name: small_resnet}", "x").model().name());
    }
}
