package io.lgc4j.runner.config;

import io.lgc4j.ring.topology.LocalSgdTopology;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.lgc4j.runner.config.Fixtures.shippedConfig;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code topology: {type: local-sgd, period, localFrom}}: the keys load into the topology the run builds, are written
 * back with that type only, and what local SGD cannot run is refused at load naming the key, what it must be and why.
 */
class LocalSgdConfigTest {

    private static final String RUN = "run:\n  name: q\n";

    private static ExperimentConfig parse(String yaml) {
        return ConfigLoader.parse(yaml, "x.yaml");
    }

    private static String error(String yaml) {
        return assertThrows(ConfigException.class, () -> parse(yaml)).getMessage();
    }

    @Test
    void shouldLoadPeriodAndLocalFromIntoTheTopologyTheRunBuilds() {
        ExperimentConfig config = parse(RUN + "topology: {type: local-sgd, period: 8, localFrom: 2}\n");
        assertEquals(TopologyType.LOCAL_SGD, config.topology().type());
        assertEquals(new LocalSgdTopology.Settings(8, 2), config.topology().keys(LocalSgdTopology.Settings.class));
        LocalSgdTopology topology = assertInstanceOf(LocalSgdTopology.class,
                config.method().newTopology());
        assertEquals(new LocalSgdTopology.Settings(8, 2), topology.settings());
        assertEquals(config, ConfigLoader.parse(config.toYaml(), "config.yaml"), "config.yaml reads back as the run");
        assertTrue(config.toYaml().contains("period: 8"), config.toYaml());
        assertEquals(LocalSgdTopology.Settings.DEFAULT, parse(RUN + "topology: {type: local_sgd}\n").topology()
                .keys(LocalSgdTopology.Settings.class));
    }

    @Test
    void shouldWriteItsKeysWithItsTypeOnly() {
        String ring = parse(RUN).toYaml();
        assertFalse(ring.contains("period") || ring.contains("localFrom"), ring);
        assertTrue(ConfigSchema.installed().keys().stream().map(Object::toString).toList()
                .containsAll(List.of("topology.period = 4   topology.type local-sgd only",
                        "topology.localFrom = 0   topology.type local-sgd only")));
    }

    @Test
    void shouldRefuseABadValueAndAKeyOfAnotherType() {
        assertEquals("x.yaml: key 'topology.period' must be >= 1, found 0",
                error(RUN + "topology: {type: local-sgd, period: 0}\n"));
        assertEquals("x.yaml: key 'topology.localFrom' must be >= 0, found -1",
                error(RUN + "topology: {type: local-sgd, localFrom: -1}\n"));
        assertEquals("x.yaml: key 'topology.period' applies to topology.type local-sgd only, found 8 with"
                + " topology.type ring; remove it or change the type", error(RUN + "topology: {period: 8}\n"));
        assertEquals("x.yaml: key 'topology.localFrom' applies to topology.type local-sgd only, found 2 with"
                + " topology.type ps; remove it or change the type",
                error(RUN + "topology: {type: ps, localFrom: 2}\n"));
        assertEquals("x.yaml: key 'topology.servers' applies to the parameter server only (topology.type ps), found 2"
                + " with topology.type local-sgd; remove it or write 1",
                error(RUN + "topology: {type: local-sgd, servers: 2}\n"));
    }

    @Test
    void shouldRefuseWhatLocalSgdCannotRun() {
        String local = RUN + "topology: {type: local-sgd, period: 8, localFrom: 2}\n";
        assertEquals("x.yaml: key 'compressor.type' must be none with topology.type local-sgd, found topk: local SGD"
                + " averages the models in fp32, and its steps before topology.localFrom are the dense ring's",
                error(local + "compressor: {type: topk}\n"));
        assertEquals("x.yaml: key 'training.overlap' must be none with topology.type local-sgd, found delayed: each"
                + " rank applies its own gradient, and the models are averaged right after the update",
                error(local + "training: {overlap: delayed}\n"));
        assertEquals("x.yaml: key 'training.overlap' must be none with topology.type local-sgd, found backward: each"
                + " rank applies its own gradient, and the models are averaged right after the update",
                error(local + "training: {overlap: backward}\n"));
        assertEquals("x.yaml: key 'training.checkpointEverySteps' must be 0 (no checkpoints) with topology.type"
                + " local-sgd: between averagings each rank's model and optimizer state differ (the optimizer state is never"
                + " averaged), and a checkpoint saves one rank's",
                error(local + "training: {checkpointEverySteps: 100}\n"));
        assertEquals("x.yaml: key 'warmup.values' must be inherit with topology.type local-sgd, found fp16: local SGD's"
                + " steps before topology.localFrom travel in compressor.values, its averagings in fp32",
                error(local + "warmup: {values: fp16}\n"));
        assertEquals("x.yaml: key 'topology.supportPath' direct applies to a compressor whose step leader chooses the"
                + " support (scalecom, lgc), found none (dense), which sends no leader's support; remove it or use"
                + " relay", error(RUN + "topology: {type: local-sgd, supportPath: direct}\n"));
    }

    /** configs/local-sgd.yaml: the dense ring for PyTorch's start_localSGD_iter = 100 steps, then H = 4. */
    @Test
    void shouldLoadTheShippedConfig() {
        ExperimentConfig config = ConfigLoader.load(shippedConfig("local-sgd.yaml"));
        assertEquals(new TopologyConfig(TopologyType.LOCAL_SGD,
                List.of(new LocalSgdTopology.Settings(4, 100))), config.topology());
        assertEquals(CompressorType.NONE, config.compressor().type());
        assertEquals(config, ConfigLoader.parse(config.toYaml(), "config.yaml"));
    }
}
