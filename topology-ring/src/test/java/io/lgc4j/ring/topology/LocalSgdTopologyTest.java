package io.lgc4j.ring.topology;

import io.lgc4j.core.codec.IndexCodecs;
import io.lgc4j.core.comm.Direction;
import io.lgc4j.core.comm.StepTag;
import io.lgc4j.core.comm.Transport;
import io.lgc4j.core.compress.BoundCompressor;
import io.lgc4j.core.compress.NoCompression;
import io.lgc4j.core.compress.TopKCompressor;
import io.lgc4j.core.layout.GradientLayout;
import io.lgc4j.core.method.Methods;
import io.lgc4j.core.method.TopologyRequest;
import io.lgc4j.core.metrics.PhaseClock;
import io.lgc4j.core.metrics.StepMetrics;
import io.lgc4j.core.settings.ResolvedConfig;
import io.lgc4j.core.settings.SettingsException;
import io.lgc4j.core.stage.Stage;
import io.lgc4j.core.train.DistributedTrainer;
import io.lgc4j.core.train.GradientExchange;
import io.lgc4j.core.train.Overlap;
import io.lgc4j.core.train.TestModels;
import io.lgc4j.core.train.Topology;
import io.lgc4j.core.train.TopologyDescription;
import io.lgc4j.core.train.TrainingResult;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.nd4j.linalg.learning.config.Sgd;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Local SGD: the dense ring before {@code localFrom}, each rank's own gradient after, the models averaged every
 * {@code period} steps and after the last; what it costs on the wire; when it is the dense ring exactly; and what it
 * refuses, with the words it refuses with.
 */
class LocalSgdTopologyTest {

    private static final int BATCH = 8;
    private static final int STEPS = 12;

    /** {@code workers} ranks for one epoch of {@link #STEPS} steps. */
    private static DistributedTrainer.Builder run(Topology topology, MultiLayerNetwork model, int workers) {
        return DistributedTrainer.builder().model(model).data(TestModels.data(workers * BATCH * STEPS, 3))
                .workers(workers).batchSizePerWorker(BATCH).topology(topology).seed(5);
    }

    private static float[] params(DistributedTrainer trainer, int rank) {
        return trainer.replicas().get(rank).params().toFloatVector();
    }

    @Test
    void shouldAverageAsPyTorchsPeriodicModelAveragerFromTheFirstLocalStep() {
        LocalSgdTopology.Settings s = new LocalSgdTopology.Settings(4, 2);
        List<Integer> averaged = new ArrayList<>();
        for (int step = 0; step < STEPS; step++) {
            if (s.averagesParameters(step)) {
                averaged.add(step);
            }
        }
        // PyTorch: average when step >= warmup_steps and (step - warmup_steps) % period == 0, warmup = start
        assertEquals(List.of(2, 6, 10), averaged);
        assertTrue(s.averagesGradients(1));
        assertFalse(s.averagesGradients(2));
        assertFalse(s.averagesParameters(1), "before localFrom the replicas are equal: no averaging");
        LocalSgdTopology.Settings everyStep = new LocalSgdTopology.Settings(1, 0);
        for (int step = 0; step < STEPS; step++) {
            assertTrue(everyStep.averagesParameters(step), "step " + step);
        }
    }

    /**
     * K = 3, period 4, local from step 2, 12 steps: steps 0 and 1 are the dense ring's (same losses, same bytes);
     * steps 2..11 leave each rank's gradient as it is and send nothing, but after steps 2, 6 and 10 the parameters,
     * different on every rank, are averaged at a dense ring step's bytes; every replica then holds the same bits. The
     * last step, 11, is local (as in PyTorch): the run ends with replicas that differ.
     */
    @Test
    void shouldAverageTheModelsEveryPeriodAndLeaveTheGradientsLocalInBetween() {
        int k = 3;
        Recording local = new Recording(new LocalSgdTopology(4, 2));
        DistributedTrainer trainer = run(local, TestModels.mlp(11), k).build();
        TrainingResult result = trainer.fit(1);
        DistributedTrainer denseTrainer = run(new RingTopology(), TestModels.mlp(11), k).build();
        TrainingResult dense = denseTrainer.fit(1);
        assertEquals(STEPS, result.steps().size());

        assertEquals(Set.of(2, 6, 10), local.before.keySet(), "averaged after steps");
        for (int step : local.before.keySet()) {
            float[][] before = local.before.get(step);
            float[][] after = local.after.get(step);
            for (int r = 1; r < k; r++) {
                assertFalse(Arrays.equals(before[0], before[r]), "step " + step + ": rank " + r
                        + "'s model equals rank 0's before the averaging: the steps were not local");
                assertArrayEquals(after[0], after[r], "step " + step + ": rank " + r + " after the averaging");
            }
            for (int i = 0; i < after[0].length; i++) {
                double mean = ((double) before[0][i] + before[1][i] + before[2][i]) / k;
                assertEquals(mean, after[0][i], 1e-6 * (1 + Math.abs(mean)), "step " + step + ", parameter " + i);
            }
        }
        assertEquals(List.of(), local.changedLocalGradients, "a local step's exchange left its gradient as it was");

        float[] rank0 = params(trainer, 0);
        for (int r = 1; r < k; r++) {
            assertFalse(Arrays.equals(rank0, params(trainer, r)), "replica " + r + " after the local last step");
        }
        assertEquals(k, result.replicaChecksums().stream().distinct().count(), result.replicaChecksums().toString());
        assertFalse(Arrays.equals(rank0, params(denseTrainer, 0)), "local SGD trained as the dense ring did");

        Set<Integer> sending = Set.of(0, 1, 2, 6, 10);
        for (int step = 0; step < STEPS; step++) {
            StepMetrics m = result.steps().get(step);
            for (int r = 0; r < k; r++) {
                long denseBytes = dense.steps().get(step).traffic().bytes(r, Direction.SENT);
                assertTrue(denseBytes > 0);
                assertEquals(sending.contains(step) ? denseBytes : 0L, m.traffic().bytes(r, Direction.SENT),
                        "step " + step + ", rank " + r);
            }
            if (step <= 2) {
                // steps 0 and 1 are the dense ring's, so step 2's gradient is taken at the dense ring's parameters
                assertEquals(dense.steps().get(step).loss(), m.loss(), "loss of step " + step);
            }
        }
        for (int r = 0; r < k; r++) {
            // both runs broadcast the initial model (counted in step 0); then the dense ring sends 12 steps' bytes,
            // local SGD 2 + 3
            long perStep = dense.steps().get(1).traffic().bytes(r, Direction.SENT);
            assertEquals(dense.traffic().bytes(r, Direction.SENT) - (STEPS - 5) * perStep,
                    result.traffic().bytes(r, Direction.SENT), "rank " + r + ": the run's totals count the averagings");
        }
        assertEquals(new TopologyDescription("local-sgd", "none", TopologyDescription.NO_SETTINGS, null,
                new LocalSgdTopology.Settings(4, 2)), result.method());
        assertEquals(Map.of("period", 4, "localFrom", 2), result.method().toMap().get("topologySettings"));
    }

    /** One rank has nothing to average with: local SGD is the dense ring bit for bit, and sends nothing. */
    @Test
    void shouldBeTheDenseRingBitForBitWithOneWorker() {
        DistributedTrainer local = run(new LocalSgdTopology(4, 2), TestModels.mlp(12), 1).build();
        TrainingResult localResult = local.fit(1);
        DistributedTrainer dense = run(new RingTopology(), TestModels.mlp(12), 1).build();
        TrainingResult denseResult = dense.fit(1);
        assertArrayEquals(params(dense, 0), params(local, 0));
        for (int step = 0; step < STEPS; step++) {
            assertEquals(denseResult.steps().get(step).loss(), localResult.steps().get(step).loss(), "step " + step);
        }
        assertEquals(0L, localResult.traffic().bytes(0, Direction.SENT));
    }

    /** Before {@code localFrom} every step is the dense ring's: a run that never gets there is it, bits and bytes. */
    @Test
    void shouldBeTheDenseRingBitForBitBeforeLocalFrom() {
        int k = 3;
        DistributedTrainer local = run(new LocalSgdTopology(4, STEPS), TestModels.mlp(13), k).build();
        TrainingResult localResult = local.fit(1);
        DistributedTrainer dense = run(new RingTopology(), TestModels.mlp(13), k).build();
        TrainingResult denseResult = dense.fit(1);
        for (int r = 0; r < k; r++) {
            assertArrayEquals(params(dense, 0), params(local, r), "replica " + r);
            assertEquals(denseResult.traffic().bytes(r, Direction.SENT), localResult.traffic().bytes(r,
                    Direction.SENT), "rank " + r);
        }
    }

    /**
     * With plain SGD (no momentum), averaging the models after every step is averaging the gradients: the update is
     * linear in the gradient, so the two differ by float rounding only.
     */
    @Test
    void periodOneWithPlainSgdShouldEqualGradientAveraging() {
        int k = 3;
        DistributedTrainer local = run(new LocalSgdTopology(1, 0), TestModels.mlp(14, new Sgd(0.1)), k).build();
        local.fit(1);
        DistributedTrainer dense = run(new RingTopology(), TestModels.mlp(14, new Sgd(0.1)), k).build();
        dense.fit(1);
        float[] expected = params(dense, 0);
        float[] actual = params(local, 0);
        float largest = 0;
        for (float v : expected) {
            largest = Math.max(largest, Math.abs(v));
        }
        assertFalse(Arrays.equals(TestModels.mlp(14, new Sgd(0.1)).params().toFloatVector(), expected));
        for (int i = 0; i < expected.length; i++) {
            assertEquals(expected[i], actual[i], 1e-5f * largest, "parameter " + i);
        }
    }

    @Test
    void shouldRefuseAPeriodBelowOneAndANegativeLocalFrom() {
        assertEquals("period must be >= 1, found 0",
                assertThrows(SettingsException.class, () -> new LocalSgdTopology(0, 0)).getMessage());
        assertEquals("localFrom must be >= 0, found -1",
                assertThrows(SettingsException.class, () -> new LocalSgdTopology(4, -1)).getMessage());
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Overlap.class, names = {"DELAYED", "PREDICTED", "BACKWARD"})
    void shouldRefuseAnOverlapWhenTheTrainerIsBuilt(Overlap overlap) {
        DistributedTrainer.Builder b = run(new LocalSgdTopology(4, 0), TestModels.mlp(15), 2).overlap(overlap);
        assertEquals("training.overlap must be none with topology.type local-sgd, found " + overlap.configName()
                + ": each rank applies its own gradient, and the models are averaged right after the update",
                assertThrows(SettingsException.class, b::build).getMessage());
    }

    @Test
    void shouldRefuseCheckpointsOnTheWayAndAResume(@TempDir Path dir) {
        DistributedTrainer.Builder b = run(new LocalSgdTopology(4, 0), TestModels.mlp(16), 2).checkpoints(dir, 5);
        String refused = "training.checkpointEverySteps must be 0 (no checkpoints) with topology.type local-sgd:"
                + " between averagings each rank's model and optimizer state differ (the optimizer state is never"
                + " averaged), and a checkpoint saves one rank's";
        assertEquals(refused, assertThrows(SettingsException.class, b::build).getMessage());
        assertEquals("topology local-sgd cannot resume from a checkpoint: each rank's optimizer state differs (it is"
                + " never averaged), and a checkpoint holds one rank's", assertThrows(IllegalArgumentException.class,
                        () -> new LocalSgdTopology(4, 0).checkTraining(Overlap.NONE, false, true)).getMessage());
        // a checkpoint at the end only: the last step need not average, and the replicas may differ there
        assertEquals(refused, assertThrows(SettingsException.class, run(new LocalSgdTopology(4, 0),
                TestModels.mlp(16), 2).checkpoints(dir, 0)::build).getMessage());
    }

    private static TopologyRequest request(BoundCompressor<?> compressor, Map<String, Map<String, Object>> config) {
        return new TopologyRequest(compressor, IndexCodecs.defaultCodec(), 1, ResolvedConfig.of(config));
    }

    private static BoundCompressor<?> none() {
        return new BoundCompressor<>(new NoCompression(), new NoCompression.Settings());
    }

    @Test
    void shouldBeRegisteredAndBuiltFromItsSection() {
        assertInstanceOf(LocalSgdTopology.Provider.class, Methods.installed().topology("local-sgd", "none"));
        Topology built = new LocalSgdTopology.Provider().create(request(none(), Map.of("topology",
                Map.of("type", "local-sgd", "period", 8, "localFrom", 2, "directBelowBytes", 4096))));
        LocalSgdTopology local = assertInstanceOf(LocalSgdTopology.class, built);
        assertEquals(new LocalSgdTopology.Settings(8, 2), local.settings());
        assertEquals(4096, local.shortcuts().directBelowBytes());
        assertEquals(LocalSgdTopology.Settings.DEFAULT, ((LocalSgdTopology) new LocalSgdTopology.Provider().create(
                request(none(), Map.of()))).settings());
    }

    @Test
    void theProviderShouldRefuseWhatAConfigurationCannotRunWithLocalSgd() {
        LocalSgdTopology.Provider provider = new LocalSgdTopology.Provider();
        Map<String, Map<String, Object>> plain = Map.of("topology", Map.of("type", "local-sgd"));
        BoundCompressor<?> topk = new BoundCompressor<>(new TopKCompressor.Provider(),
                new TopKCompressor.Settings(0.01, 0));
        assertEquals("compressor.type must be none with topology.type local-sgd, found topk: local SGD averages the"
                + " models in fp32, and its steps before topology.localFrom are the dense ring's",
                assertThrows(SettingsException.class, () -> provider.create(request(topk, plain))).getMessage());
        assertEquals("topology.period must be >= 1, found 0", assertThrows(SettingsException.class,
                () -> provider.create(request(none(), Map.of("topology", Map.of("period", 0))))).getMessage());
        assertEquals("topology.localFrom must be >= 0, found -3", assertThrows(SettingsException.class,
                () -> provider.create(request(none(), Map.of("topology", Map.of("localFrom", -3))))).getMessage());
        Map<String, Map<String, Object>> delayed = new TreeMap<>(plain);
        delayed.put("training", Map.of("overlap", "delayed", "checkpointEverySteps", 0));
        assertEquals("training.overlap", assertThrows(SettingsException.class,
                () -> provider.create(request(none(), delayed))).key());
        Map<String, Map<String, Object>> checkpoints = new TreeMap<>(plain);
        checkpoints.put("training", Map.of("overlap", "none", "checkpointEverySteps", 100));
        assertEquals("training.checkpointEverySteps", assertThrows(SettingsException.class,
                () -> provider.create(request(none(), checkpoints))).key());
        Map<String, Map<String, Object>> warmup = new TreeMap<>(plain);
        warmup.put("warmup", Map.of("type", "topk", "ratio", 0.01, "warmupSteps", 0));
        assertEquals("warmup.type must be none with topology.type local-sgd, found topk: local SGD's steps before"
                + " topology.localFrom are the dense ring's",
                assertThrows(SettingsException.class, () -> provider.create(request(none(), warmup))).getMessage());
    }

    /**
     * Local SGD, its exchange watched: each rank's parameters before and after every averaging, and any local step
     * whose exchange changed the gradient.
     */
    private static final class Recording implements Topology {
        private final LocalSgdTopology inner;
        final Map<Integer, float[][]> before = new ConcurrentHashMap<>();
        final Map<Integer, float[][]> after = new ConcurrentHashMap<>();
        final List<String> changedLocalGradients = java.util.Collections.synchronizedList(new ArrayList<>());

        Recording(LocalSgdTopology inner) {
            this.inner = inner;
        }

        @Override
        public String name() {
            return inner.name();
        }

        @Override
        public TopologyDescription describe() {
            return inner.describe();
        }

        @Override
        public void checkTraining(Overlap overlap, boolean checkpoints, boolean resumes) {
            inner.checkTraining(overlap, checkpoints, resumes);
        }

        @Override
        public GradientExchange worker(int rank, int workers, Transport transport, GradientLayout layout) {
            GradientExchange exchange = inner.worker(rank, workers, transport, layout);
            return new GradientExchange() {
                @Override
                public void allReduceMean(StepTag tag, float[] gradient, PhaseClock clock) {
                    float[] given = gradient.clone();
                    exchange.allReduceMean(tag, gradient, clock);
                    if (!inner.settings().averagesGradients(tag.step()) && !Arrays.equals(given, gradient)) {
                        changedLocalGradients.add("rank " + rank + " step " + tag.step());
                    }
                }

                @Override
                public boolean averagesParameters(StepTag tag) {
                    return exchange.averagesParameters(tag);
                }

                @Override
                public void averageParameters(StepTag tag, float[] parameters, PhaseClock clock) {
                    assertEquals(Stage.FULL, tag.stage());
                    before.computeIfAbsent(tag.step(), s -> new float[workers][])[rank] = parameters.clone();
                    exchange.averageParameters(tag, parameters, clock);
                    after.computeIfAbsent(tag.step(), s -> new float[workers][])[rank] = parameters.clone();
                }
            };
        }
    }
}
