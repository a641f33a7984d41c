package io.lgc4j.runner.config;

import io.lgc4j.lgc.AutoencoderSection;
import io.lgc4j.core.compress.CompressorKeys;
import io.lgc4j.core.compress.S2SketchCompressor;
import io.lgc4j.data.PixelPreprocessing;
import io.lgc4j.zoo.ModelSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Locale;

import static io.lgc4j.runner.config.Fixtures.fixture;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The resolved config written as YAML: every key spelled out, and read back equal. */
class ConfigWriterTest {

    @Test
    void shouldWriteEveryKeyInSchemaOrderWithKebabEnums() {
        assertEquals("""
                run:
                  name: quickstart
                  seed: 42
                  outputDir: results
                data:
                  dataset: fashion-mnist
                  path: /usr/share/datasets/fashion-mnist
                  testPath: ""
                  source: memory
                  prefetch: 2
                  check: full
                  csv:
                    labelColumn: -1
                    classes: 0
                    skipLines: 0
                    delimiter: ","
                  trainLimit: 0
                  testLimit: 0
                  preprocessing: standardize
                model:
                  name: small-cnn
                  updater:
                    type: nesterovs
                    learningRate: 0.05
                    momentum: 0.9
                  compute:
                    oneDnn: true
                    cacheMode: host
                    threads: 1
                training:
                  workers: 4
                  batchSizePerWorker: 32
                  epochs: 1
                  maxSteps: 0
                  evalEverySteps: 100
                  diagnostics: false
                  checkpointEverySteps: 0
                  trace:
                    file: ""
                    steps: "0.."
                  overlap: none
                  bucketBytes: 1048576
                topology:
                  type: ring
                  support: leader
                  servers: 1
                  fusionBufferBytes: 1048576
                  shardBy: buffers
                  supportPath: relay
                  directBelowBytes: 0
                compressor:
                  type: none
                  ratio: 0.001
                  momentum: 0.9
                  clipNorm: 0.0
                  warmupSteps: 0
                  lowPass: 0.1
                  codec: deflate
                  values: fp32
                  sketch:
                    rows: 5
                    columnsPerSelected: 4.0
                    groupSize: 8
                stages:
                  fullIterations: 200
                  aeTrainingIterations: 300
                warmup:
                  type: none
                  values: inherit
                  carryMemory: true
                autoencoder:
                  encoderFilters:
                  - 64
                  - 128
                  - 256
                  - 64
                  encoderStride: 2
                  kernel: 3
                  latentChannels: 4
                  decoderFilters:
                  - 4
                  - 32
                  - 64
                  - 128
                  - 32
                  decoderStrides:
                  - 2
                  - 2
                  - 2
                  - 2
                  - 1
                  leakyAlpha: 0.01
                  innovationShare: 0.1
                  optimizer: adam
                  learningRate: 0.001
                  lambdaRec: 1.0
                  lambdaSim: 0.0
                  reconstructionFeedback: false
                  exactInnovation: true
                  driftBound: 0.9
                  driftWindow: 5
                  checkEvery: 10
                  checkSample: 32
                  ablation: none
                  linearLatent: 0
                runtime:
                  type: in-process
                  timeoutMs: 60000
                  firstStepTimeoutMs: 300000
                  rendezvousTimeoutMs: 120000
                  heartbeatMs: 1000
                  peerIdleTimeoutMs: 5000
                """, ExperimentConfig.defaults("quickstart").toYaml());
    }

    @Test
    void shouldReadBackMinimalConfigWithDefaultsFilledAsEqualRecord() {
        ExperimentConfig config = ConfigLoader.load(fixture("minimal.yaml"));
        assertEquals(config, ConfigLoader.parse(config.toYaml(), "resolved.yaml"));
    }

    @ParameterizedTest(name = "{0} on {1}")
    @CsvSource({"innovation-only, ps", "latent-only, ps", "learned-frozen, ps",
        "learned-frozen, ring", "zero-latent, ring", "none, ring"})
    void shouldWriteTheAblationAndReadItBack(String ablation, String topology) {
        ExperimentConfig config = ConfigLoader.parse("run: {name: a}\ntopology: {type: " + topology + "}\n"
                + "compressor: {type: lgc}\nautoencoder: {ablation: " + ablation.toUpperCase(Locale.ROOT).replace('-', '_')
                + "}\n", "a.yaml");
        String yaml = config.toYaml();
        assertTrue(yaml.contains("\n  ablation: " + ablation + "\n"), yaml);
        assertEquals(config, ConfigLoader.parse(yaml, "resolved.yaml"));
        AutoencoderSection autoencoder = config.section("autoencoder", AutoencoderSection.class);
        assertEquals(ablation, autoencoder.ablation().toString());
        assertEquals(autoencoder.ablation(), autoencoder.control(config.compressor().lowPass()).ablation());
    }

    @Test
    void shouldReadBackFullConfigAsEqualRecord() {
        ExperimentConfig config = ConfigLoader.load(fixture("full.yaml"));
        assertEquals(config, ConfigLoader.parse(ConfigWriter.toYaml(config), "resolved.yaml"));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"1e3", "0x1F", ".inf", "123", "007", "1.5", "true", "yes", "no", "on", "null", "-",
        "_", "a.b_c-d"})
    void shouldQuoteRunNamesYamlWouldReadAsSomethingElse(String name) {
        ExperimentConfig config = ExperimentConfig.defaults(name);
        assertEquals(config, ConfigLoader.parse(config.toYaml(), "resolved.yaml"));
    }

    @Test
    void shouldReadBackExtremeNumbersExactly() {
        ExperimentConfig base = ExperimentConfig.defaults("extremes");
        ExperimentConfig config = new ExperimentConfig(
                new RunConfig("extremes", Long.MIN_VALUE, "out dir/with: colon"),
                new DataConfig(DatasetName.FASHION_MNIST, "C:\\data\\fmnist", Integer.MAX_VALUE, 1,
                        PixelPreprocessing.SCALE),
                new ModelConfig(ModelSpec.SMALL_RESNET, new UpdaterConfig(UpdaterType.SGD, 1e-10, 0.999999)),
                // one worker: the global batch (workers × batchSizePerWorker) must fit in data.trainLimit
                new TrainingConfig(1, Integer.MAX_VALUE, Integer.MAX_VALUE, Integer.MAX_VALUE, 1),
                base.topology(), new CompressorConfig(CompressorType.DGC, new CompressorKeys(1e-4, 0.0, 1e-9,
                        Integer.MAX_VALUE, 1e-6, "deflate-gaps-varint", "fp32",
                        new S2SketchCompressor.Shape(Integer.MAX_VALUE, 1e-7, Integer.MAX_VALUE))),
                new StagesConfig(Integer.MAX_VALUE));
        assertEquals(config, ConfigLoader.parse(config.toYaml(), "resolved.yaml"));
    }

    @Test
    void shouldWriteFileThatLoadsBackEqual(@TempDir Path dir) throws IOException {
        ExperimentConfig config = ConfigLoader.load(fixture("full.yaml"));
        Path file = dir.resolve("config.yaml");

        ConfigWriter.write(config, file);

        assertEquals(config, ConfigLoader.load(file));
    }
}
