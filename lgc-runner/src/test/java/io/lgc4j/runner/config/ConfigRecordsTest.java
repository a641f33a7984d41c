package io.lgc4j.runner.config;

import io.lgc4j.data.PixelPreprocessing;
import io.lgc4j.zoo.ModelSpec;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Records built in code are checked by the same constructors, with the same messages minus the file name. */
class ConfigRecordsTest {

    private static String error(Runnable construction) {
        ConfigException e = assertThrows(ConfigException.class, construction::run);
        assertEquals(Optional.empty(), e.source());
        return e.getMessage();
    }

    @Test
    void shouldRejectOutOfRangeTrainingBuiltInCode() {
        assertEquals("key 'training.workers' must be >= 1, found 0",
                error(() -> new TrainingConfig(0, 32, 1, 0, 100)));
        assertEquals("key 'training.workers' must be <= 256, found 1000",
                error(() -> new TrainingConfig(1000, 32, 1, 0, 100)));
        assertEquals("key 'training.batchSizePerWorker' must be > 0, found -3",
                error(() -> new TrainingConfig(4, -3, 1, 0, 100)));
        assertEquals("key 'training.epochs' must be >= 1, found 0",
                error(() -> new TrainingConfig(4, 32, 0, 0, 100)));
    }

    @Test
    void shouldCheckValuesPassedToWithMethods() {
        assertEquals("key 'training.maxSteps' must be >= 0, found -1",
                error(() -> TrainingConfig.defaults().withMaxSteps(-1)));
        assertEquals("key 'training.epochs' must be >= 1, found 0",
                error(() -> TrainingConfig.defaults().withEpochs(0)));
        assertEquals("key 'data.trainLimit' must be >= 0, found -1",
                error(() -> DataConfig.defaults().withTrainLimit(-1)));
        assertEquals("key 'data.testLimit' must be >= 0, found -2",
                error(() -> DataConfig.defaults().withTestLimit(-2)));
        assertEquals("key 'run.outputDir' must not be empty, found \"\"",
                error(() -> RunConfig.named("r").withOutputDir("")));
    }

    @Test
    void shouldRejectNonFiniteOrNonPositiveLearningRate() {
        assertEquals("key 'model.updater.learningRate' must be > 0, found NaN",
                error(() -> new UpdaterConfig(UpdaterType.SGD, Double.NaN, 0)));
        assertEquals("key 'model.updater.learningRate' must be finite, found Infinity",
                error(() -> new UpdaterConfig(UpdaterType.SGD, Double.POSITIVE_INFINITY, 0)));
        assertEquals("key 'model.updater.momentum' must be in [0, 1), found NaN",
                error(() -> new UpdaterConfig(UpdaterType.SGD, 0.1, Double.NaN)));
    }

    @Test
    void shouldRejectMissingValuesBuiltInCode() {
        assertEquals("key 'run.name' is required", error(() -> RunConfig.named(null)));
        assertEquals("key 'topology.type' is required", error(() -> new TopologyConfig(null)));
        assertEquals("key 'model.updater' is required",
                error(() -> new ModelConfig(ModelSpec.SMALL_CNN, null)));
        assertEquals("key 'data.preprocessing' is required",
                error(() -> new DataConfig(DatasetName.FASHION_MNIST, "/d", 0, 0, null)));
        assertEquals("key 'training' is required",
                error(() -> ExperimentConfig.defaults("r").withTraining(null)));
    }

    @Test
    void shouldReplaceOnlyTheNamedComponentInWithMethods() {
        ExperimentConfig base = ExperimentConfig.defaults("base");

        ExperimentConfig changed = base
                .withTraining(base.training().withMaxSteps(20).withEpochs(2))
                .withData(base.data().withTrainLimit(1000).withTestLimit(200))
                .withRun(base.run().withOutputDir("/tmp/out"));

        assertEquals(new TrainingConfig(4, 32, 2, 20, 100), changed.training());
        assertEquals(new DataConfig(DatasetName.FASHION_MNIST, DataConfig.DEFAULT_PATH, 1000, 200,
                PixelPreprocessing.STANDARDIZE), changed.data());
        assertEquals(new RunConfig("base", 42, "/tmp/out"), changed.run());
        assertEquals(base.model(), changed.model());
        assertEquals(base.topology(), changed.topology());
    }

    @Test
    void shouldSpellEnumsInKebabCase() {
        assertEquals("small-resnet", ConfigEnums.yamlName(ModelSpec.SMALL_RESNET));
        assertEquals("fashion-mnist", DatasetName.FASHION_MNIST.toString());
        assertEquals(List.of("adam", "nesterovs", "sgd"), ConfigEnums.yamlNames(UpdaterType.class));
    }

    @Test
    void shouldFindEnumBySpellingOrReturnEmpty() {
        assertEquals(Optional.of(UpdaterType.SGD), ConfigEnums.find(UpdaterType.class, "SGD"));
        assertEquals(Optional.of(ModelSpec.SMALL_CNN), ConfigEnums.find(ModelSpec.class, "small_cnn"));
        assertEquals(Optional.empty(), ConfigEnums.find(UpdaterType.class, "rmsprop"));
        assertEquals(Optional.empty(), ConfigEnums.find(UpdaterType.class, null));
    }

    @Test
    void shouldFindRegisteredTypeBySpellingOrReturnEmpty() {
        // topology.type and compressor.type are registered names, not enums, spelled the same way
        assertEquals(Optional.of(TopologyType.PS), TopologyType.find("PS"));
        assertEquals(Optional.of(CompressorType.SCALECOM), CompressorType.find("ScaleCom"));
        assertEquals(Optional.empty(), TopologyType.find("mesh"));
        assertEquals(Optional.empty(), TopologyType.find(null));
        assertEquals(Optional.empty(), CompressorType.find("signsgd"));
    }
}
