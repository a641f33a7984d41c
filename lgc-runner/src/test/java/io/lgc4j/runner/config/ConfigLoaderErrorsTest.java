package io.lgc4j.runner.config;

import io.lgc4j.lgc.AutoencoderSection;
import io.lgc4j.lgc.LgcAblation;
import io.lgc4j.lgc.ps.LgcPsTopology;
import io.lgc4j.ps.topology.Shards;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Path;
import java.util.Optional;

import static io.lgc4j.runner.config.Fixtures.fixture;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Every way a config can be wrong, each asserting the exact message a user sees. */
class ConfigLoaderErrorsTest {

    private static final String RUN = "run:\n  name: q\n";

    private static String loadError(Path file) {
        return assertThrows(ConfigException.class, () -> ConfigLoader.load(file)).getMessage();
    }

    private static String parseError(String yaml) {
        return assertThrows(ConfigException.class, () -> ConfigLoader.parse(yaml, "x.yaml")).getMessage();
    }

    @Test
    void shouldNameUnknownKeyAndListAllowedKeysSortedUnderItsSection() {
        Path file = fixture("unknown-key.yaml");
        assertEquals(file + ": unknown key 'training.wrokers'; allowed keys under 'training': "
                + "batchSizePerWorker, bucketBytes, checkpointEverySteps, diagnostics, epochs, evalEverySteps, maxSteps,"
                + " overlap, trace, workers", loadError(file));
    }

    @Test
    void shouldNameUnknownTopLevelKeyAndListTopLevelKeys() {
        Path file = fixture("unknown-top-level-key.yaml");
        assertEquals(file + ": unknown key 'trainer'; allowed keys at the top level: "
                + "autoencoder, compressor, data, model, run, runtime, stages, topology, training, warmup",
                loadError(file));
    }

    @Test
    void shouldGiveFullPathOfUnknownKeyInNestedSection() {
        assertEquals("x.yaml: unknown key 'model.updater.lr'; allowed keys under 'model.updater': "
                + "learningRate, momentum, type", parseError(RUN + "model:\n  updater:\n    lr: 0.1\n"));
    }

    @Test
    void shouldNameTheTraceStepsKeyWhenTheRangeEndsBeforeItStarts() {
        assertEquals("x.yaml: key 'training.trace.steps' '5..2': the last step 2 is before the first 5; expected"
                + " first..last with 0 <= first <= last (e.g. 0..99), first.. or one step",
                parseError(RUN + "training:\n  trace: {file: t.json, steps: \"5..2\"}\n"));
        assertEquals("t.json", ConfigLoader.parse(RUN + "training:\n  trace: {file: t.json}\n", "x.yaml").training()
                .trace().file());
    }

    @Test
    void shouldNameTheOverlapKeyAndItsAllowedValues() {
        assertEquals("x.yaml: key 'training.overlap' expects one of [backward, delayed, none, predicted], found"
                + " \"forward\"", parseError(RUN + "training:\n  overlap: forward\n"));
        assertEquals(io.lgc4j.core.train.Overlap.BACKWARD,
                ConfigLoader.parse(RUN + "training:\n  overlap: backward\n", "x.yaml").training().overlapMode());
        assertEquals("x.yaml: key 'training.bucketBytes' must be > 0, found 0",
                parseError(RUN + "training:\n  overlap: backward\n  bucketBytes: 0\n"));
        assertEquals(65536, ConfigLoader.parse(RUN + "training:\n  bucketBytes: 65536\n", "x.yaml").training()
                .bucketBytes());
        assertEquals(io.lgc4j.core.train.Overlap.DELAYED,
                ConfigLoader.parse(RUN + "training:\n  overlap: delayed\n", "x.yaml").training().overlapMode());
        assertEquals(io.lgc4j.core.train.Overlap.PREDICTED,
                ConfigLoader.parse(RUN + "training:\n  overlap: predicted\n", "x.yaml").training().overlapMode());
        assertEquals(io.lgc4j.core.train.Overlap.NONE, ConfigLoader.parse(RUN, "x.yaml").training().overlapMode());
    }

    @Test
    void shouldNameTheComputeKeyAndItsAllowedValues() {
        assertEquals("x.yaml: key 'model.compute.cacheMode' expects one of [device, host, none], found \"disk\"",
                parseError(RUN + "model:\n  compute:\n    cacheMode: disk\n"));
        assertEquals("x.yaml: unknown key 'model.compute.onednn'; allowed keys under 'model.compute': cacheMode,"
                + " oneDnn, threads", parseError(RUN + "model:\n  compute:\n    onednn: false\n"));
        assertEquals("x.yaml: key 'model.compute.threads' must be 'auto' or a number of threads of at least 1, found"
                + " '0'", parseError(RUN + "model:\n  compute:\n    threads: 0\n"));
        assertEquals("x.yaml: key 'model.compute.threads' must be 'auto' or a number of threads of at least 1, found"
                + " 'many'", parseError(RUN + "model:\n  compute:\n    threads: many\n"));
    }

    @Test
    void shouldRejectAnAutoencoderTheModuleCannotBuildWithItsReason() {
        assertEquals("x.yaml: key 'autoencoder' cannot be built: the decoder must upsample at least as much as the encoder "
                + "downsamples (16) and at most 64 times more; decoderStrides [2, 2, 2, 1, 1] upsample by 8",
                parseError(RUN + "autoencoder:\n  decoderStrides: [2, 2, 2, 1, 1]\n"));
        assertEquals("x.yaml: key 'autoencoder.optimizer' expects one of [adam, nesterovs, sgd], found \"rmsprop\"",
                parseError(RUN + "autoencoder:\n  optimizer: rmsprop\n"));
        assertEquals("x.yaml: key 'autoencoder.innovationShare' must be <= 1.0, found 1.5",
                parseError(RUN + "autoencoder:\n  innovationShare: 1.5\n"));
    }

    @Test
    void shouldRejectABadRuntimeSectionNamingTheKey() {
        assertEquals("x.yaml: key 'runtime.type' expects one of [in-process, tcp], found \"mpi\"",
                parseError(RUN + "runtime:\n  type: mpi\n"));
        assertEquals("x.yaml: key 'runtime.timeoutMs' must be > 0, found 0",
                parseError(RUN + "runtime:\n  timeoutMs: 0\n"));
        assertEquals("x.yaml: key 'runtime.peerIdleTimeoutMs' must exceed twice runtime.heartbeatMs (1000), or a live"
                + " peer between two heartbeats looks lost; found 1500",
                parseError(RUN + "runtime:\n  peerIdleTimeoutMs: 1500\n"));
        assertEquals(RuntimeType.TCP, ConfigLoader.parse(RUN + "runtime: {type: TCP}\n", "x.yaml").runtime().type());
    }

    @Test
    void shouldReadAnAutoencoderSectionAndDefaultTheRest() {
        ExperimentConfig c = ConfigLoader.parse(RUN + "autoencoder:\n  optimizer: sgd\n  lambdaSim: 0\n"
                + "  decoderStrides: [2, 2, 2, 2, 2]\n", "x.yaml");
        AutoencoderSection ae = c.section("autoencoder", AutoencoderSection.class);
        assertEquals(AutoencoderSection.DEFAULT.spec().encoderFilters(), ae.spec().encoderFilters());
        assertEquals(32, ae.spec().decoderUpsampling());
        assertEquals(0.0, ae.training().lambdaSim());
        assertEquals(new org.nd4j.linalg.learning.config.Sgd(1e-3), ae.training().updater());
        assertEquals(io.lgc4j.lgc.autoencoder.AutoencoderSpec.PAPER, AutoencoderSection.DEFAULT.spec());
        assertEquals(io.lgc4j.lgc.autoencoder.AeTraining.DEFAULT, AutoencoderSection.DEFAULT.training());
    }

    @Test
    void shouldRejectTextWhereIntegerExpected() {
        Path file = fixture("wrong-type.yaml");
        assertEquals(file + ": key 'training.workers' expects an integer, found \"four\"", loadError(file));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', value = {
        "training: {workers: 4.5}                 | key 'training.workers' expects an integer, found 4.5",
        "training: {workers: true}                | key 'training.workers' expects an integer, found true",
        "training: {workers: '4'}                 | key 'training.workers' expects an integer, found \"4\"",
        "training: {workers: ''}                  | key 'training.workers' expects an integer, found \"\"",
        "training: {workers: [1, 2]}              | key 'training.workers' expects an integer, found a list",
        "training: {workers: {k: 4}}              | key 'training.workers' expects an integer, found a mapping",
        "training: {workers: 99999999999}         | key 'training.workers' expects an integer, "
                + "found 99999999999 (out of range)",
        "run: {name: q, seed: 1.5}                | key 'run.seed' expects an integer, found 1.5",
        "model: {updater: {learningRate: fast}}   | key 'model.updater.learningRate' expects a number, found \"fast\"",
        "model: {updater: {momentum: [0.9]}}      | key 'model.updater.momentum' expects a number, found a list",
        "data: {path: 17}                         | key 'data.path' expects text, found 17",
        "data: {path: true}                       | key 'data.path' expects text, found true",
        "training: 5                              | key 'training' expects a mapping, found 5",
        "model: {updater: fast}                   | key 'model.updater' expects a mapping, found \"fast\"",
    })
    void shouldNameExpectedKindAndValueFoundForWrongType(String yaml, String expected) {
        // Prefix a valid run section unless the case is about the run section itself.
        String doc = yaml.startsWith("run:") ? yaml : "run: {name: q}\n" + yaml;
        assertEquals("x.yaml: " + expected, parseError(doc));
    }

    @Test
    void shouldRejectUnknownEnumValueListingAllowedValuesSorted() {
        Path file = fixture("unknown-enum-value.yaml");
        assertEquals(file + ": key 'topology.type' expects one of [local-sgd, ps, ring], found \"mesh\"",
                loadError(file));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', value = {
        "model: {name: big-cnn}               | key 'model.name' expects one of [small-cnn, small-resnet, tiny-cnn], "
                + "found \"big-cnn\"",
        "model: {updater: {type: rmsprop}}    | key 'model.updater.type' expects one of [adam, nesterovs, sgd], "
                + "found \"rmsprop\"",
        "data: {dataset: mnist}               | key 'data.dataset' expects one of [csv, fashion-mnist], found \"mnist\"",
        "data: {preprocessing: 3}             | key 'data.preprocessing' expects one of [scale, standardize], found 3",
        "topology: {type: ''}                 | key 'topology.type' expects one of [local-sgd, ps, ring], found \"\"",
    })
    void shouldRejectEveryEnumKeyWithItsAllowedValues(String yaml, String expected) {
        assertEquals("x.yaml: " + expected, parseError(RUN + yaml));
    }

    @Test
    void shouldRejectOutOfRangeValueInFile() {
        Path file = fixture("out-of-range.yaml");
        assertEquals(file + ": key 'training.workers' must be >= 1, found 0", loadError(file));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', value = {
        "training: {workers: 257}                      | key 'training.workers' must be <= 256, found 257",
        "training: {batchSizePerWorker: -3}            | key 'training.batchSizePerWorker' must be > 0, found -3",
        "training: {batchSizePerWorker: 0}             | key 'training.batchSizePerWorker' must be > 0, found 0",
        "training: {epochs: 0}                         | key 'training.epochs' must be >= 1, found 0",
        "training: {maxSteps: -1}                      | key 'training.maxSteps' must be >= 0, found -1",
        "training: {evalEverySteps: -100}              | key 'training.evalEverySteps' must be >= 0, found -100",
        "data: {trainLimit: -1}                        | key 'data.trainLimit' must be >= 0, found -1",
        "data: {testLimit: -5}                         | key 'data.testLimit' must be >= 0, found -5",
        "data: {path: ' '}                             | key 'data.path' must not be empty, found \" \"",
        "model: {updater: {learningRate: 0}}           | key 'model.updater.learningRate' must be > 0, found 0.0",
        "model: {updater: {learningRate: -0.5}}        | key 'model.updater.learningRate' must be > 0, found -0.5",
        "model: {updater: {momentum: 1}}               | key 'model.updater.momentum' must be in [0, 1), found 1.0",
        "model: {updater: {momentum: -0.1}}            | key 'model.updater.momentum' must be in [0, 1), found -0.1",
    })
    void shouldRejectOutOfRangeValueNamingBoundAndValue(String yaml, String expected) {
        assertEquals("x.yaml: " + expected, parseError(RUN + yaml));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', value = {
        "run: {name: 'my run'}             | key 'run.name' must match [A-Za-z0-9._-]+, found \"my run\"",
        "run: {name: ''}                   | key 'run.name' must match [A-Za-z0-9._-]+, found \"\"",
        "run: {name: ../escape}            | key 'run.name' must match [A-Za-z0-9._-]+, found \"../escape\"",
        "run: {name: q, outputDir: ''}     | key 'run.outputDir' must not be empty, found \"\"",
    })
    void shouldRejectRunNamesThatAreNotSafeInPaths(String yaml, String expected) {
        assertEquals("x.yaml: " + expected, parseError(yaml));
    }

    @Test
    void shouldRequireRunNameWhenRunSectionLacksIt() {
        Path file = fixture("missing-name.yaml");
        assertEquals(file + ": key 'run.name' is required", loadError(file));
    }

    @Test
    void shouldRequireRunNameWhenRunSectionIsMissing() {
        assertEquals("x.yaml: key 'run.name' is required", parseError("training: {workers: 2}\n"));
    }

    @Test
    void shouldRequireRunNameWhenItHasNoValue() {
        assertEquals("x.yaml: key 'run.name' is required", parseError("run:\n  name:\n"));
    }

    @Test
    void shouldRequireRunNameInEmptyFile() {
        assertEquals("x.yaml: key 'run.name' is required", parseError(""));
        assertEquals("x.yaml: key 'run.name' is required", parseError("# nothing but a comment\n"));
    }

    @Test
    void shouldReportMalformedYamlWithLineAndColumn() {
        Path file = fixture("malformed.yaml");
        assertEquals(file + ": malformed YAML at line 5, column 11: mapping values are not allowed here",
                loadError(file));
    }

    @Test
    void shouldReportUnclosedFlowMappingAsMalformedYaml() {
        assertEquals("x.yaml: malformed YAML at line 2, column 1: expected ',' or '}', but got <stream end>",
                parseError("run: {name: q\n"));
    }

    @Test
    void shouldReportTabIndentationAsMalformedYaml() {
        assertEquals("x.yaml: malformed YAML at line 3, column 1: found character '\\t(TAB)' that cannot start "
                + "any token. (Do not use \\t(TAB) for indentation)", parseError(RUN + "\ttraining: {}\n"));
    }

    @Test
    void shouldRejectDuplicateKeyNamingItsPath() {
        Path file = fixture("duplicate-key.yaml");
        assertEquals(file + ": duplicate key 'training.workers' at line 5, column 10", loadError(file));
    }

    @Test
    void shouldRejectDuplicateSection() {
        assertEquals("x.yaml: duplicate key 'training' at line 4, column 9",
                parseError(RUN + "training: {}\ntraining: {}\n"));
    }

    @Test
    void shouldRejectTopLevelThatIsNotAMapping() {
        assertEquals("x.yaml: the top level expects a mapping with keys autoencoder, compressor, data, model, run, runtime, stages, topology, training, warmup, "
                + "found a list", parseError("- run\n- data\n"));
        assertEquals("x.yaml: the top level expects a mapping with keys autoencoder, compressor, data, model, run, runtime, stages, topology, training, warmup, "
                + "found \"quickstart\"", parseError("quickstart\n"));
    }

    @Test
    void shouldRejectMoreThanOneDocument() {
        assertEquals("x.yaml: holds more than one YAML document; a config is a single document",
                parseError(RUN + "---\nrun: {name: r}\n"));
    }

    @Test
    void shouldSayConfigFileNotFoundWithThePathAsGiven(@TempDir Path dir) {
        Path missing = dir.resolve("nope.yaml");
        assertEquals(missing + ": config file not found", loadError(missing));
    }

    @Test
    void shouldReportDirectoryAsUnreadableConfigFile(@TempDir Path dir) {
        assertEquals(dir + ": cannot read config file: Is a directory", loadError(dir));
    }

    @Test
    void shouldExposeSourceKeyAndDetailSeparately() {
        ConfigException e = assertThrows(ConfigException.class,
                () -> ConfigLoader.parse(RUN + "training: {epochs: 0}\n", "x.yaml"));
        assertEquals(Optional.of("x.yaml"), e.source());
        assertEquals(Optional.of("training.epochs"), e.keyPath());
        assertEquals("key 'training.epochs' must be >= 1, found 0", e.detail());
    }

    @Test
    void shouldExposeNoKeyForWholeFileProblems() {
        ConfigException e = assertThrows(ConfigException.class, () -> ConfigLoader.parse("run: {name: q\n", "x.yaml"));
        assertEquals(Optional.empty(), e.keyPath());
        assertEquals(Optional.of("x.yaml"), e.source());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"nesterovs", "adam"})
    void shouldRejectDgcWithAnUpdaterThatAddsMomentumNamingTheKeyAndTheFix(String updater) {
        assertEquals("x.yaml: key 'model.updater.type' must be sgd with compressor.type dgc, found " + updater
                + ": DGC applies momentum itself (compressor.momentum), so the model's updater must not add its own",
                parseError(RUN + "compressor: {type: dgc}\nmodel: {updater: {type: " + updater + "}}\n"));
    }

    @Test
    void shouldAcceptDgcWithSgd() {
        assertEquals(CompressorType.DGC, ConfigLoader.parse(RUN + "compressor: {type: dgc}\n"
                + "model: {updater: {type: sgd}}\n", "x.yaml").compressor().type());
    }

    @Test
    void shouldRejectATrainLimitBelowOneGlobalBatchSayingHowItIsComputed() {
        assertEquals("x.yaml: key 'data.trainLimit' must be at least one global batch, training.workers ×"
                + " training.batchSizePerWorker = 4 × 32 = 128 (every worker reads one batch per step), found 100",
                parseError(RUN + "data: {trainLimit: 100}\n"));
        assertEquals("x.yaml: key 'data.trainLimit' must be at least one global batch, training.workers ×"
                + " training.batchSizePerWorker = 3 × 10 = 30 (every worker reads one batch per step), found 29",
                parseError(RUN + "data: {trainLimit: 29}\ntraining: {workers: 3, batchSizePerWorker: 10}\n"));
        assertEquals(30, ConfigLoader.parse(RUN + "data: {trainLimit: 30}\ntraining: {workers: 3, "
                + "batchSizePerWorker: 10}\n", "x.yaml").data().trainLimit());
    }

    /** The sharded parameter server's keys: range, multiple of 4, the topology and the compressors it can carry. */
    @Test
    void shouldRejectServerShardsWhereTheyDoNotApply() {
        assertEquals("x.yaml: key 'topology.servers' must be >= 1, found 0",
                parseError(RUN + "topology: {type: ps, servers: 0}\n"));
        assertEquals("x.yaml: key 'topology.fusionBufferBytes' must be a multiple of 4 (float32 elements), found 1001",
                parseError(RUN + "topology: {type: ps, servers: 2, fusionBufferBytes: 1001}\n"));
        assertEquals("x.yaml: key 'topology.servers' applies to the parameter server only (topology.type ps), found 2"
                + " with topology.type ring; remove it or write 1",
                parseError(RUN + "topology: {type: ring, servers: 2}\n"));
        assertEquals("x.yaml: key 'topology.shardBy' expects one of [blocks, buffers, layers], found \"tensors\"",
                parseError(RUN + "topology: {type: ps, shardBy: tensors}\n"));
        assertEquals(3, ConfigLoader.parse(RUN + "topology: {type: ps, servers: 3}\ncompressor: {type: lgc}\n",
                "x.yaml").topology().keys(Shards.class).servers());
        assertEquals("x.yaml: key 'topology.servers' must be 1 with compressor s2, found 2: a sharded server sums"
                + " elements of its slices, and a sketch's counters are not elements of the gradient",
                parseError(RUN + "topology: {type: ps, servers: 2}\ncompressor: {type: s2}\n"));
        assertEquals(4, ConfigLoader.parse(RUN + "topology: {type: ps, servers: 4}\ncompressor: {type: dgc}\n"
                + "model: {updater: {type: sgd}}\n", "x.yaml").topology().keys(Shards.class).servers());
    }

    /** The topology section's keys belong to the topologies (Shards, LGC-PS); their words are the config's. */
    @Test
    void shouldNameEveryBadTopologyKeyAsBefore() {
        assertEquals("x.yaml: key 'topology.servers' must be <= 1024, found 2000",
                parseError(RUN + "topology: {type: ps, servers: 2000}\n"));
        assertEquals("x.yaml: key 'topology.fusionBufferBytes' must be > 0, found 0",
                parseError(RUN + "topology: {type: ps, fusionBufferBytes: 0}\n"));
        assertEquals("x.yaml: key 'topology.servers' expects an integer, found 1.5",
                parseError(RUN + "topology: {type: ps, servers: 1.5}\n"));
        assertEquals("x.yaml: key 'topology.support' expects one of [leader, own], found \"all\"",
                parseError(RUN + "topology: {type: ps, support: all}\n"));
        assertEquals("x.yaml: key 'topology.type' expects one of [local-sgd, ps, ring], found \"tree\"",
                parseError(RUN + "topology: {type: tree}\n"));
        assertEquals("x.yaml: key 'topology.type' expects one of [local-sgd, ps, ring], found 3",
                parseError(RUN + "topology: {type: 3}\n"));
        assertEquals("x.yaml: key 'topology' expects a mapping, found 5", parseError(RUN + "topology: 5\n"));
        assertEquals("x.yaml: unknown key 'topology.shards'; allowed keys under 'topology': directBelowBytes,"
                + " fusionBufferBytes, localFrom, period, servers, shardBy, support, supportPath, type",
                parseError(RUN + "topology: {type: ps, shards: 2}\n"));
        assertEquals("x.yaml: key 'topology.supportPath' expects one of [direct, relay], found \"sideways\"",
                parseError(RUN + "topology: {type: ring, supportPath: sideways}\n"));
        assertEquals("x.yaml: key 'topology.directBelowBytes' must be >= 0, found -1",
                parseError(RUN + "topology: {type: ring, directBelowBytes: -1}\n"));
        assertEquals("x.yaml: key 'topology.directBelowBytes' expects an integer, found \"4k\"",
                parseError(RUN + "topology: {type: ring, directBelowBytes: 4k}\n"));
        assertEquals("x.yaml: key 'autoencoder' expects a mapping, found a list",
                parseError(RUN + "autoencoder: [1, 2]\n"));
        assertEquals("x.yaml: unknown key 'autoencoder.lambda'; allowed keys under 'autoencoder': ablation,"
                + " checkEvery, checkSample, decoderFilters, decoderStrides, driftBound, driftWindow, encoderFilters,"
                + " encoderStride, exactInnovation, innovationShare, kernel, lambdaRec, lambdaSim, latentChannels,"
                + " leakyAlpha, learningRate, linearLatent, optimizer, reconstructionFeedback",
                parseError(RUN + "autoencoder: {lambda: 1}\n"));
        assertEquals("x.yaml: key 'autoencoder.encoderFilters[1]' expects an integer, found \"x\"",
                parseError(RUN + "autoencoder: {encoderFilters: [64, x]}\n"));
        assertEquals("x.yaml: key 'autoencoder.driftWindow' must be > 0, found 0",
                parseError(RUN + "autoencoder: {driftWindow: 0}\n"));
        assertEquals(ConfigLoader.parse(RUN, "x.yaml"), ConfigLoader.parse(RUN + "topology: {servers: }\n"
                + "autoencoder: {driftBound: }\n", "x.yaml"));
    }

    @Test
    void shouldRejectSupportOwnWhereItDoesNotApply() {
        assertEquals("x.yaml: key 'topology.support' applies to the parameter server only (topology.type ps with"
                + " compressor.type lgc), found own with topology.type ring; remove it or write leader",
                parseError(RUN + "topology: {type: ring, support: own}\ncompressor: {type: lgc}\n"));
        assertEquals("x.yaml: key 'topology.support' applies to compressor.type lgc only, found own with"
                + " compressor.type topk; remove it or write leader",
                parseError(RUN + "topology: {type: ps, support: own}\ncompressor: {type: topk}\n"));
        // leader is the default and every resolved config.yaml writes it, whatever the topology
        assertEquals(LgcPsTopology.SupportPolicy.LEADER, ConfigLoader.parse(RUN + "topology: {type: ring, support: leader}\n"
                + "compressor: {type: lgc}\n", "x.yaml").topology().keys(LgcPsTopology.Support.class).support());
        assertEquals(LgcPsTopology.SupportPolicy.OWN, ConfigLoader.parse(RUN + "topology: {type: ps, support: own}\n"
                + "compressor: {type: lgc}\n", "x.yaml").topology().keys(LgcPsTopology.Support.class).support());
    }

    /**
     * {@code compressor.learnedRatio} is read by topk, dgc, scalecom and randomk, checked by their settings (in
     * (0, 1]), and refused with a compressor that sends no per-policy count.
     */
    @Test
    void shouldRejectALearnedRatioOutOfRangeOrWithACompressorThatHasNone() {
        assertEquals("x.yaml: key 'compressor.learnedRatio' must be in (0, 1], found 1.5",
                parseError(RUN + "compressor: {type: topk, learnedRatio: 1.5}\n"));
        assertEquals("x.yaml: key 'compressor.learnedRatio' must be in (0, 1], found 0.0",
                parseError(RUN + "compressor: {type: randomk, learnedRatio: 0}\n"));
        assertEquals("x.yaml: key 'compressor.learnedRatio' must be in (0, 1], found -0.01",
                parseError(RUN + "compressor: {type: scalecom, learnedRatio: -0.01}\n"));
        assertEquals("x.yaml: key 'compressor.learnedRatio' expects a finite number, found .nan",
                parseError(RUN + "compressor: {type: dgc, learnedRatio: .nan}\nmodel: {updater: {type: sgd}}\n"));
        assertEquals("x.yaml: key 'compressor.learnedRatio' expects a number, found \"half\"",
                parseError(RUN + "compressor: {type: randomk, learnedRatio: half}\n"));
        for (String type : new String[] {"s2", "lgc", "none"}) {
            assertEquals("x.yaml: key 'compressor.learnedRatio' applies to compressor.type dgc or randomk or scalecom"
                    + " or topk only, found with compressor.type " + type + "; remove it or change the type",
                    parseError(RUN + "compressor: {type: " + type + ", learnedRatio: 0.004}\n"), type);
        }
    }

    @Test
    void shouldRejectAnUnknownAblationListingTheAblations() {
        assertEquals("x.yaml: key 'autoencoder.ablation' expects one of [innovation-only, latent-only, learned-frozen,"
                + " none, zero-latent], found \"frozen\"", parseError(RUN + "topology: {type: ring}\n"
                + "compressor: {type: lgc}\nautoencoder: {ablation: frozen}\n"));
        assertEquals("x.yaml: key 'autoencoder.ablation' expects one of [innovation-only, latent-only, learned-frozen,"
                + " none, zero-latent], found true", parseError(RUN + "autoencoder: {ablation: true}\n"));
    }

    @Test
    void shouldRejectALinearCodeOnTheParameterServerAndANegativeSize() {
        assertEquals("x.yaml: key 'autoencoder.linearLatent' applies to topology.type ring (LGC-RAR) only, found 108"
                + " with topology.type ps; 0 (the default) runs LGC-PS's autoencoder", parseError(RUN
                + "topology: {type: ps}\ncompressor: {type: lgc}\nautoencoder: {linearLatent: 108}\n"));
        assertEquals("x.yaml: key 'autoencoder.linearLatent' must be >= 0, found -1", parseError(RUN
                + "topology: {type: ring}\ncompressor: {type: lgc}\nautoencoder: {linearLatent: -1}\n"));
        assertEquals(108, ConfigLoader.parse(RUN + "topology: {type: ring}\ncompressor: {type: lgc}\n"
                + "autoencoder: {linearLatent: 108}\n", "x.yaml").section("autoencoder", AutoencoderSection.class)
                .linearLatent());
    }

    @ParameterizedTest(name = "{0} on {1}")
    @CsvSource({
        "innovation-only, ring, 'topology.type ring (LGC-RAR), found innovation-only; allowed with topology.type"
                + " ring: [learned-frozen, none, zero-latent]'",
        "latent-only,     ring, 'topology.type ring (LGC-RAR), found latent-only; allowed with topology.type ring:"
                + " [learned-frozen, none, zero-latent]'",
        "zero-latent,     ps,   'topology.type ps (LGC-PS), found zero-latent; allowed with topology.type ps:"
                + " [innovation-only, latent-only, learned-frozen, none]'"})
    void shouldRejectAnAblationTheTopologyDoesNotRunNamingTheOnesItRuns(String ablation, String topology,
                                                                         String problem) {
        assertEquals("x.yaml: key 'autoencoder.ablation' does not apply to " + problem,
                parseError(RUN + "topology: {type: " + topology + "}\ncompressor: {type: lgc}\n"
                        + "autoencoder: {ablation: " + ablation + "}\n"));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"topk, ps", "scalecom, ring", "none, ring", "dgc, ps"})
    void shouldRejectAnAblationOfACompressorOtherThanLgc(String compressor, String topology) {
        String updater = "dgc".equals(compressor) ? "model: {updater: {type: sgd}}\n" : "";
        assertEquals("x.yaml: key 'autoencoder.ablation' does not apply to compressor.type " + compressor
                + " on topology.type " + topology + ", found learned-frozen; ablations are controls of compressor.type"
                + " lgc, allowed with compressor.type " + compressor + ": [none]",
                parseError(RUN + updater + "topology: {type: " + topology + "}\ncompressor: {type: " + compressor
                        + "}\nautoencoder: {ablation: learned-frozen}\n"));
        // none is the default, and every resolved config.yaml writes it, whatever the compressor
        assertEquals(LgcAblation.NONE, ConfigLoader.parse(RUN + updater + "topology: {type: "
                + topology + "}\ncompressor: {type: " + compressor + "}\nautoencoder: {ablation: none}\n", "x.yaml")
                .section("autoencoder", AutoencoderSection.class).ablation());
    }

    @Test
    void shouldLimitRunNameLengthAndEchoOnlyItsStart() {
        String name = "a".repeat(300);
        assertEquals("x.yaml: key 'run.name' must be at most 100 characters, found \"" + "a".repeat(40)
                + "…\" (300 characters)", parseError("run: {name: " + name + "}\n"));
        assertEquals(ExperimentConfig.defaults("b".repeat(100)).run().name().length(), 100);
        String huge = "c".repeat(2 * 1024 * 1024);
        ConfigException e = assertThrows(ConfigException.class, () -> RunConfig.named(huge));
        assertEquals("key 'run.name' must be at most 100 characters, found \"" + "c".repeat(40)
                + "…\" (2097152 characters)", e.getMessage());
        ConfigException bad = assertThrows(ConfigException.class, () -> RunConfig.named("d d".repeat(30)));
        assertEquals("key 'run.name' must match [A-Za-z0-9._-]+, found \"" + "d d".repeat(13) + "d…\" (90 characters)",
                bad.getMessage());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "compressor: {ratio: .nan}          | key 'compressor.ratio' expects a finite number, found .nan",
        "compressor: {ratio: .NaN}          | key 'compressor.ratio' expects a finite number, found .NaN",
        "compressor: {lowPass: .inf}        | key 'compressor.lowPass' expects a finite number, found .inf",
        "model: {updater: {momentum: -.Inf}} | key 'model.updater.momentum' expects a finite number, found -.Inf",
    })
    void shouldNameTheKeyOfANotANumberOrInfinity(String yaml, String expected) {
        assertEquals("x.yaml: " + expected, parseError(RUN + yaml + "\n"));
    }

    @Test
    void shouldRejectYamlAliasesNamingTheKey() {
        assertEquals("x.yaml: key 'training.batchSizePerWorker' uses the YAML alias *w; aliases are not supported in"
                + " a config: write the value out",
                parseError(RUN + "training: {workers: &w 2, batchSizePerWorker: *w}\n"));
        assertEquals("x.yaml: key 'data.path' uses the YAML alias *n; aliases are not supported in a config: write"
                + " the value out", parseError("run: {name: &n x}\ndata: {path: *n}\n"));
        assertEquals("x.yaml: key 'model' uses the YAML alias *m; aliases are not supported in a config: write"
                + " the value out", parseError(RUN + "training: &m {workers: 2}\nmodel: *m\n"));
    }

    @Test
    void shouldRejectAFileAboveOneMebibyteBeforeParsingIt(@TempDir Path dir) throws java.io.IOException {
        Path big = dir.resolve("big.yaml");
        String yaml = RUN + "data: {path: \"" + "x".repeat(10 * 1024 * 1024) + "\"}\n";
        java.nio.file.Files.writeString(big, yaml);
        long start = System.nanoTime();
        assertEquals(big + ": file is " + java.nio.file.Files.size(big) + " bytes, above the 1 MiB limit (1048576"
                + " bytes); a config is a few hundred", loadError(big));
        assertEquals("x.yaml: is " + yaml.length() + " characters long, above the 1 MiB limit (1048576 characters);"
                + " a config is a few hundred", parseError(yaml));
        double seconds = (System.nanoTime() - start) / 1e9;
        org.junit.jupiter.api.Assertions.assertTrue(seconds < 5, "rejected in " + seconds + " s");
    }
}
