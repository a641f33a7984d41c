package io.lgc4j.experiments.config;

import org.junit.jupiter.api.Test;

import static io.lgc4j.experiments.config.Fixtures.shippedConfig;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** The experiment files under {@code configs/} load and say what their names promise. */
class ShippedConfigsTest {

    private static ExperimentConfig quickstartNamed(String name, TopologyType topology) {
        return new ExperimentConfig(
                new RunConfig(name, 42, "results"),
                new DataConfig(DatasetName.FASHION_MNIST, "/usr/share/datasets/fashion-mnist", 0, 0,
                        Preprocessing.STANDARDIZE),
                new ModelConfig(ModelArchitecture.SMALL_CNN, new UpdaterConfig(UpdaterType.NESTEROVS, 0.05, 0.9)),
                new TrainingConfig(4, 32, 1, 0, 100),
                new TopologyConfig(topology), CompressorConfig.defaults(), StagesConfig.defaults());
    }

    @Test
    void shouldLoadQuickstartAsDenseRingWithFourWorkers() {
        assertEquals(quickstartNamed("quickstart", TopologyType.RING),
                ConfigLoader.load(shippedConfig("quickstart.yaml")));
    }

    @Test
    void shouldLoadDensePsAsQuickstartOnParameterServer() {
        assertEquals(quickstartNamed("dense-ps", TopologyType.PS), ConfigLoader.load(shippedConfig("dense-ps.yaml")));
    }

    @Test
    void shouldRoundTripShippedConfigs() {
        for (String name : new String[] {"quickstart.yaml", "dense-ps.yaml"}) {
            ExperimentConfig config = ConfigLoader.load(shippedConfig(name));
            assertEquals(config, ConfigLoader.parse(config.toYaml(), name), name);
        }
    }
}
