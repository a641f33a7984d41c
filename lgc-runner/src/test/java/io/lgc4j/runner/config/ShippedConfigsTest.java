package io.lgc4j.runner.config;

import io.lgc4j.lgc.AutoencoderSection;
import io.lgc4j.lgc.ps.LgcPsTopology;
import io.lgc4j.data.PixelPreprocessing;
import io.lgc4j.zoo.ModelSpec;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static io.lgc4j.runner.config.Fixtures.shippedConfig;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** The experiment files under {@code configs/} load and say what their names promise. */
class ShippedConfigsTest {

    private static ExperimentConfig quickstartNamed(String name, TopologyType topology) {
        return new ExperimentConfig(
                new RunConfig(name, 42, "results"),
                new DataConfig(DatasetName.FASHION_MNIST, "/usr/share/datasets/fashion-mnist", 0, 0,
                        PixelPreprocessing.STANDARDIZE),
                new ModelConfig(ModelSpec.SMALL_CNN, new UpdaterConfig(UpdaterType.NESTEROVS, 0.05, 0.9)),
                new TrainingConfig(4, 32, 1, 0, 100),
                new TopologyConfig(topology), CompressorConfig.defaults(), StagesConfig.defaults());
    }

    /** The quickstart is LGC-PS through all three stages in one epoch; everything else as the dense configs. */
    @Test
    void shouldLoadQuickstartAsLgcPsWithFourWorkersPassingThroughAllStages() {
        ExperimentConfig quickstart = ConfigLoader.load(shippedConfig("quickstart.yaml"));
        ExperimentConfig dense = quickstartNamed("quickstart", TopologyType.PS);
        assertEquals(dense.run(), quickstart.run());
        assertEquals(dense.data(), quickstart.data());
        assertEquals(dense.model(), quickstart.model());
        assertEquals(dense.training(), quickstart.training());
        assertEquals(new TopologyConfig(TopologyType.PS,
                List.of(new LgcPsTopology.Support(LgcPsTopology.SupportPolicy.LEADER))), quickstart.topology());
        assertEquals(CompressorType.LGC, quickstart.compressor().type());
        assertEquals(0.001, quickstart.compressor().ratio());
        assertEquals(0.1, quickstart.compressor().lowPass());
        assertEquals(new StagesConfig(150, 150), quickstart.stages());
        assertEquals(AutoencoderSection.DEFAULT, quickstart.section("autoencoder", AutoencoderSection.class),
                "its autoencoder keys are the defaults");
    }

    @Test
    void shouldLoadDensePsAsQuickstartOnParameterServer() {
        assertEquals(quickstartNamed("dense-ps", TopologyType.PS), ConfigLoader.load(shippedConfig("dense-ps.yaml")));
    }

    /** dense-fp16.yaml and dense-bf16.yaml are dense-ps.yaml with their values in half precision, nothing else. */
    @Test
    void shouldLoadTheHalfPrecisionDenseConfigsAsDensePsWithTheirValues() {
        for (String values : new String[] {"fp16", "bf16"}) {
            ExperimentConfig half = ConfigLoader.load(shippedConfig("dense-" + values + ".yaml"));
            ExperimentConfig dense = quickstartNamed("dense-" + values, TopologyType.PS);
            assertEquals(dense.withCompressor(CompressorConfig.defaults().withValues(values)), half, values);
            assertEquals(io.lgc4j.core.comm.ValueEncoding.byName(values), half.compressor().valueEncoding());
        }
    }

    /** randomk.yaml is scalecom.yaml with random-k (no memory filter, no learnedRatio: every block at 0.1%). */
    @Test
    void shouldLoadRandomKAsScaleComsRunWithRandomK() {
        ExperimentConfig randomk = ConfigLoader.load(shippedConfig("randomk.yaml"));
        ExperimentConfig scalecom = ConfigLoader.load(shippedConfig("scalecom.yaml"));
        assertEquals(new RunConfig("randomk", 42, "results"), randomk.run());
        assertEquals(scalecom.data(), randomk.data());
        assertEquals(scalecom.model(), randomk.model());
        assertEquals(scalecom.training(), randomk.training());
        assertEquals(scalecom.topology(), randomk.topology());
        assertEquals(scalecom.stages(), randomk.stages());
        assertEquals(CompressorType.RANDOMK, randomk.compressor().type());
        assertEquals(0.001, randomk.compressor().ratio());
        assertEquals(Map.of(), randomk.compressor().extensions(), "no learnedRatio");
    }

    @Test
    void shouldRoundTripShippedConfigs() {
        for (String name : new String[] {"quickstart.yaml", "dense-ps.yaml", "dense-fp16.yaml", "dense-bf16.yaml",
            "lgc-ps.yaml", "lgc-rar.yaml", "randomk.yaml"}) {
            ExperimentConfig config = ConfigLoader.load(shippedConfig(name));
            assertEquals(config, ConfigLoader.parse(config.toYaml(), name), name);
        }
    }
}
