package io.lgc4j.core.train;

import io.lgc4j.core.comm.InProcessCluster;
import io.lgc4j.core.comm.StepTag;
import io.lgc4j.core.comm.Transport;
import io.lgc4j.core.layout.GradientLayout;
import io.lgc4j.core.layout.LayerPolicy;
import io.lgc4j.core.layout.ParamBlock;
import io.lgc4j.core.metrics.PhaseClock;
import io.lgc4j.core.comm.ValueEncoding;
import io.lgc4j.core.stage.Stage;
import io.lgc4j.core.stage.StageSchedule;
import org.deeplearning4j.nn.api.Model;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.factory.Nd4j;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The contract every {@link Topology} keeps: a FULL step gives each rank the same bits, equal to the dense mean
 * within float rounding; K replicas trained through it stay bit-identical, for K = 1 to 4 and through every stage
 * the topology runs; and when every step is dense it trains like one model on the union of the ranks' batches. With
 * half-precision values (fp16, bf16) every rank still gets the same bits, within the formats' rounding of the mean,
 * and K = 4 replicas stay bit-identical through every stage. A topology's test class extends this and names the
 * topology.
 *
 * <p>A topology without stages needs nothing more. One with stages (the LGC topologies) says which through the
 * hooks: the layout it needs for the FULL exchange ({@link #meanLayout}), a schedule that crosses its stages for the
 * replica runs ({@link #replicaStages}) with checks of its own on them ({@link #checkReplicaRun}), and an all-FULL
 * schedule for the run that must train like one model ({@link #unionStages}).
 */
public abstract class TopologyContract {

    /** How long one exchange, or one rank's result, may take before the test fails instead of hanging. */
    private static final long TIMEOUT_SECONDS = 60;

    /** A fresh topology under test. */
    protected abstract Topology topology();

    /**
     * The layout of the FULL exchange of {@code n} elements: by default one DENSE block. A topology that cannot be
     * built on that (LGC needs a LEARNED block) names blocks of other policies; a FULL step sends every block whole,
     * whatever its policy.
     */
    protected GradientLayout meanLayout(int n) {
        return GradientLayout.ofBlocks(List.of(
                new ParamBlock(0, 0, "layer0", "W", 0, n, new long[] {n}, LayerPolicy.DENSE)));
    }

    /**
     * The stages of the replica-identity runs (24 or 50 steps); {@code null} leaves the trainer's default for the
     * topology. A topology with stages returns a schedule that crosses all of them within 24 steps.
     */
    protected StageSchedule replicaStages() {
        return null;
    }

    /**
     * Checks of the topology's own on every replica-identity run, after the contract's (its stages' traffic, say);
     * by default none.
     */
    protected void checkReplicaRun(TrainingResult result, int workers) {
    }

    /**
     * The stages of the run that must train like one model on the union of the ranks' batches: every step must
     * apply the dense mean. {@code null} leaves the trainer's default (dense for a topology without a compressor).
     */
    protected StageSchedule unionStages() {
        return null;
    }

    @ParameterizedTest(name = "K={0}")
    @ValueSource(ints = {1, 2, 3, 4, 7})
    void shouldGiveEveryRankTheSameBitsEqualToTheDenseMean(int k) throws Exception {
        int n = 1003;
        GradientLayout layout = meanLayout(n);
        assertEquals(n, layout.length(), "meanLayout(n) must cover n elements");
        float[][] inputs = gaussianInputs(k, n);
        double[] mean = new double[n];
        for (int r = 0; r < k; r++) {
            for (int i = 0; i < n; i++) {
                mean[i] += inputs[r][i] / k;
            }
        }
        float[][] outputs = exchange(topology(), layout, inputs, new StepTag(0, Stage.FULL));
        for (int r = 1; r < k; r++) {
            assertArrayEquals(outputs[0], outputs[r], "rank " + r);
        }
        for (int i = 0; i < n; i++) {
            assertEquals(mean[i], outputs[0][i], 1e-5 * (1 + Math.abs(mean[i])), "element " + i);
        }
    }

    /**
     * A FULL step in half precision: every rank holds the same bits, and each element is the mean within the
     * roundings the encoding makes on the way (each a relative 2^-8 of an element in bf16, 2^-11 of its frame's
     * largest in fp16, of sums of at most K inputs, then divided by K): (K + 2) of them, of the largest input, bound it.
     */
    @ParameterizedTest(name = "{1}, K={0}")
    @CsvSource({"1, FP16", "2, BF16", "4, FP16", "4, BF16", "7, FP16"})
    void halfPrecisionShouldGiveEveryRankTheSameBitsCloseToTheDenseMean(int k, ValueEncoding values)
            throws Exception {
        int n = 1003;
        float[][] inputs = gaussianInputs(k, n);
        double[] mean = new double[n];
        double max = 0;
        for (int r = 0; r < k; r++) {
            for (int i = 0; i < n; i++) {
                mean[i] += inputs[r][i] / k;
                max = Math.max(max, Math.abs(inputs[r][i]));
            }
        }
        float[][] outputs = exchange(topology(), meanLayout(n), inputs, new StepTag(0, Stage.FULL, values));
        for (int r = 1; r < k; r++) {
            assertArrayEquals(outputs[0], outputs[r], "rank " + r);
        }
        double eps = values == ValueEncoding.BF16 ? 0x1p-8 : 0x1p-11;
        for (int i = 0; i < n; i++) {
            assertEquals(mean[i], outputs[0][i], (k + 2) * eps * max, "element " + i);
        }
    }

    /**
     * A dry run's step (the advisor's, {@link DryRun}) gives the bits a plain exchange gives,
     * every byte one endpoint sent is one another received, and each step's cost is that step's alone.
     */
    @ParameterizedTest(name = "K={0}")
    @ValueSource(ints = {2, 4})
    void dryRunShouldGiveTheExchangesBitsAndCountEveryByteOnce(int k) throws Exception {
        int n = 1003;
        GradientLayout layout = meanLayout(n);
        float[][] inputs = gaussianInputs(k, n);
        float[][] plain = exchange(topology(), layout, inputs, new StepTag(0, Stage.FULL));
        try (DryRun run = new DryRun(topology(), k, layout)) {
            long[] sentPerStep = new long[2];
            for (int step = 0; step < 2; step++) {
                float[][] dry = run.step(new StepTag(step, Stage.FULL), inputs);
                for (int r = 0; r < k; r++) {
                    assertArrayEquals(plain[r], dry[r], "rank " + r);
                }
                var cost = run.lastCost();
                long sent = 0;
                long received = 0;
                for (int e = 0; e < cost.bytes().endpoints(); e++) {
                    sent += cost.bytes().bytes(e, io.lgc4j.core.comm.Direction.SENT);
                    received += cost.bytes().bytes(e, io.lgc4j.core.comm.Direction.RECEIVED);
                }
                assertEquals(sent, received, "bytes sent and received in step " + step);
                assertTrue(sent >= 4L * n, "a FULL step moves at least the gradient once: " + sent);
                assertTrue(cost.legs() >= 1 && cost.legs() <= 2 * k, "legs " + cost.legs());
                for (int r = 0; r < k; r++) {
                    assertTrue(cost.cpuNanos()[r] > 0, "rank " + r + "'s CPU");
                }
                sentPerStep[step] = sent;
            }
            assertEquals(sentPerStep[0], sentPerStep[1], "two dense steps move the same bytes");
        }
    }

    /** K ranks' inputs of {@code n} Gaussian floats, seeded by K. */
    protected static float[][] gaussianInputs(int k, int n) {
        float[][] inputs = new float[k][n];
        Random random = new Random(k);
        for (int r = 0; r < k; r++) {
            for (int i = 0; i < n; i++) {
                inputs[r][i] = (float) random.nextGaussian();
            }
        }
        return inputs;
    }

    /**
     * One exchange through {@code topology} on a fresh in-process cluster: rank r contributes {@code inputs[r]}
     * (copied); returns what every rank holds afterwards. Fails, rather than hangs, after a minute.
     */
    protected static float[][] exchange(Topology topology, GradientLayout layout, float[][] inputs, StepTag tag)
            throws Exception {
        int k = inputs.length;
        int services = topology.serviceEndpoints(k);
        float[][] outputs = new float[k][];
        ExecutorService pool = Executors.newFixedThreadPool(k + services);
        try (InProcessCluster cluster = new InProcessCluster(k + services)) {
            List<Transport> serviceTransports = new ArrayList<>();
            for (int s = 0; s < services; s++) {
                serviceTransports.add(cluster.transport(k + s));
            }
            for (ServiceLoop loop : topology.services(k, serviceTransports, layout)) {
                pool.submit(() -> {
                    try {
                        loop.run();
                    } catch (io.lgc4j.core.comm.TransportClosedException expected) {
                        // end of test
                    }
                });
            }
            List<Future<float[]>> futures = new ArrayList<>();
            for (int r = 0; r < k; r++) {
                int rank = r;
                futures.add(pool.submit(() -> {
                    GradientExchange exchange = topology.worker(rank, k, cluster.transport(rank), layout);
                    float[] g = inputs[rank].clone();
                    exchange.allReduceMean(tag, g, new PhaseClock());
                    return g;
                }));
            }
            for (int r = 0; r < k; r++) {
                outputs[r] = futures.get(r).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow(); // the service loops end when the cluster closes, above
        }
        return outputs;
    }

    @Test
    void shouldKeepReplicasOfANetworkBitIdenticalOver50Steps() {
        assertReplicasIdentical(TestModels.mlp(11), 4, 25, 2);
    }

    @Test
    void shouldKeepReplicasOfAGraphWithBatchNormBitIdenticalOver50Steps() {
        assertReplicasIdentical(TestModels.graph(12), 4, 25, 2);
    }

    @ParameterizedTest(name = "K={0}")
    @ValueSource(ints = {1, 2, 3, 4})
    void shouldKeepReplicasBitIdenticalForOneToFourWorkers(int k) {
        assertReplicasIdentical(TestModels.mlp(30 + k), k, 24, 1);
    }

    /**
     * Half-precision values through every stage the topology runs: K = 4 replicas stay bit-identical (every rank
     * applies what the others decode, and on a ring the rank that completes a chunk rounds its own copy), the result
     * names the encoding, and the loss is finite.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = ValueEncoding.class, names = {"FP16", "BF16"})
    void shouldKeepReplicasBitIdenticalWithHalfPrecisionValues(ValueEncoding values) {
        TrainingResult result = assertReplicasIdentical(TestModels.mlp(41), 4, 24, 1, values);
        assertEquals(values.toString(), result.method().toMap().get("values"));
        assertTrue(Double.isFinite(result.steps().get(23).loss()), "loss " + result.steps().get(23).loss());
    }

    /**
     * Checkpoints: a run of two epochs of 12 steps (every stage the topology runs, a momentum updater, an evaluation
     * every 5 steps) resumed after steps 6, 12 and 18 ends exactly where it ends uninterrupted.
     */
    @Test
    void shouldResumeFromACheckpointExactlyWhereTheUninterruptedRunEnds(@TempDir Path dir) throws Exception {
        ResumeCheck.run(() -> {
            DistributedTrainer.Builder b = DistributedTrainer.builder().model(TestModels.mlp(43))
                    .data(TestModels.data(3 * 8 * 12, 3)).workers(3).batchSizePerWorker(8).topology(topology())
                    .seed(5).evaluation(evalData(), 5);
            if (replicaStages() != null) {
                b.stages(replicaStages());
            }
            return b;
        }, 2, 6, dir, 6, 12, 18);
    }

    /**
     * A resume at another K: a K = 4 run of two epochs of 12 steps (every stage the topology runs, a momentum
     * updater) resumed after step 6 at K' = 3 and K' = 5 reads the rest of its epoch at K', keeps its replicas
     * identical and is itself resumable exactly ({@link ResizeCheck}).
     */
    @Test
    void shouldResumeAtAnotherNumberOfWorkers(@TempDir Path dir) throws Exception {
        java.util.function.Supplier<DistributedTrainer.Builder> run = () -> {
            DistributedTrainer.Builder b = DistributedTrainer.builder().model(TestModels.mlp(43))
                    .data(TestModels.data(4 * 8 * 12, 3)).batchSizePerWorker(8).topology(topology()).seed(5);
            if (replicaStages() != null) {
                b.stages(replicaStages());
            }
            return b;
        };
        int[] resumes = IntStream.of(3, 5).filter(k -> resizeRefusal(k) == null).toArray();
        if (resumes.length > 0) {
            ResizeCheck.run(run, 4, 2, 6, dir.resolve("resumes"), 6, resumes);
        }
        for (int k : IntStream.of(3, 5).filter(k -> resizeRefusal(k) != null).toArray()) {
            ResizeCheck.assertRefused(run, 4, 6, dir.resolve("refused-" + k), 6, k, resizeRefusal(k));
        }
    }

    /**
     * How a resume of a K = 4 checkpoint at {@code to} workers is refused by a topology whose state cannot change to
     * that size (the message's start), or null when it resumes.
     */
    protected String resizeRefusal(int to) {
        return null;
    }

    /**
     * A model that draws random numbers while it trains (Dropout, Gaussian noise, alpha dropout, DropConnect, beside
     * batch normalization and a skip connection; Adam): the replicas stay identical, and a resume — every step after it
     * on new rank threads — ends exactly where the uninterrupted run ends.
     */
    @Test
    void aModelWithDropoutShouldTrainTheSameBitsOnEveryRunAndResumeExactly(@TempDir Path dir) throws Exception {
        java.util.function.Supplier<DistributedTrainer.Builder> run = () -> {
            DistributedTrainer.Builder b = DistributedTrainer.builder().model(TestModels.noisyGraph(13))
                    .data(TestModels.data(3 * 8 * 12, 3)).workers(3).batchSizePerWorker(8).topology(topology())
                    .seed(5);
            if (replicaStages() != null) {
                b.stages(replicaStages());
            }
            return b;
        };
        // the resumed run computes steps 6..11 again on new threads: the same bits as the uninterrupted run's
        TrainingResult first = ResumeCheck.run(run, 1, 6, dir, 6);
        assertEquals(1, first.replicaChecksums().stream().distinct().count(), first.replicaChecksums().toString());
    }

    /**
     * A checkpoint is complete when its step ends (on a parameter server too, whose service reports a step once it
     * has served it): a run that fails in the step after a checkpoint leaves that checkpoint for a restart.
     */
    @Test
    void aCheckpointShouldBeCompleteWhenItsStepEnds(@TempDir Path dir) throws Exception {
        DistributedTrainer.Builder b = DistributedTrainer.builder().model(TestModels.mlp(43)).topology(topology());
        if (replicaStages() != null) {
            b.stages(replicaStages()); // the LGC topologies: the checkpoint after step 5 in TOP_K
        }
        ResumeCheck.assertCompleteWhenItsStepEnds(b, dir);
    }

    /** 60 examples in two batches, for evaluations. */
    static org.nd4j.linalg.dataset.api.iterator.DataSetIterator evalData() {
        return new org.deeplearning4j.datasets.iterator.utilty.ListDataSetIterator<>(
                TestModels.data(60, 99).batchBy(30));
    }

    @Test
    void shouldTrainLikeOneModelOnTheUnionOfTheRanksBatches() {
        int k = 3;
        int b = 8;
        DataSet data = TestModels.data(k * b * 6, 4);
        MultiLayerNetwork reference = TestModels.mlp(21);
        DistributedTrainer.Builder builder = DistributedTrainer.builder().model(reference.clone()).data(data)
                .workers(k).batchSizePerWorker(b).topology(topology()).seed(9);
        if (unionStages() != null) {
            builder.stages(unionStages());
        }
        DistributedTrainer trainer = builder.build();
        trainer.fit(1);
        ShardPlan plan = new ShardPlan(data.numExamples(), k, b, 9);
        for (int s = 0; s < plan.stepsPerEpoch(); s++) {
            int[] rows = new int[k * b];
            for (int r = 0; r < k; r++) {
                System.arraycopy(plan.batch(0, s, r), 0, rows, r * b, b);
            }
            reference.fit(new DataSet(Nd4j.pullRows(data.getFeatures(), 1, rows),
                    Nd4j.pullRows(data.getLabels(), 1, rows)));
        }
        float[] expected = reference.params().toFloatVector();
        float[] actual = trainer.replicas().get(0).params().toFloatVector();
        for (int i = 0; i < expected.length; i++) {
            assertEquals(expected[i], actual[i], 1e-5f * (1 + Math.abs(expected[i])), "parameter " + i);
        }
    }

    /**
     * Delayed application ({@link Overlap#DELAYED}) when every step is dense: the replicas train like one model on the
     * union of the ranks' batches whose gradient of step t is applied after step t + 1's is taken (step 0 applies
     * nothing, the last step's mean is left for a resume), and not like the synchronous run. Predicted
     * ({@link Overlap#PREDICTED}): the same, each gradient from step 2 on taken at the parameters the mean applied
     * last gives when applied once more, and the parameters put back after.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Overlap.class, names = {"DELAYED", "PREDICTED"})
    void delayedApplicationShouldTrainLikeOneModelWithGradientsOneStepStale(Overlap overlap) {
        int k = 3;
        int b = 8;
        DataSet data = TestModels.data(k * b * 6, 4);
        MultiLayerNetwork model = TestModels.mlp(21);
        ReplicaModel stale = ReplicaModel.wrap(model.clone());
        ReplicaModel synchronous = ReplicaModel.wrap(model.clone());
        DistributedTrainer.Builder builder = DistributedTrainer.builder().model(model).data(data).workers(k)
                .batchSizePerWorker(b).topology(topology()).seed(9).overlap(overlap);
        if (unionStages() != null) {
            builder.stages(unionStages());
        }
        DistributedTrainer trainer = builder.build();
        TrainingResult result = trainer.fit(1);
        ShardPlan plan = new ShardPlan(data.numExamples(), k, b, 9);
        float[] previous = null;
        float[] applied = null;
        for (int s = 0; s < plan.stepsPerEpoch(); s++) {
            int[] rows = new int[k * b];
            for (int r = 0; r < k; r++) {
                System.arraycopy(plan.batch(0, s, r), 0, rows, r * b, b);
            }
            INDArray features = Nd4j.pullRows(data.getFeatures(), 1, rows);
            INDArray labels = Nd4j.pullRows(data.getLabels(), 1, rows);
            ReplicaModel.Snapshot current = null;
            if (overlap == Overlap.PREDICTED && applied != null) {
                current = stale.snapshot();
                stale.applyGradient(applied, k * b);
            }
            stale.computeGradient(features, labels);
            float[] gradient = stale.gradient().toFloatVector();
            if (current != null) {
                stale.reset(current);
            }
            if (previous != null) {
                stale.applyGradient(previous, k * b);
                applied = previous;
            }
            previous = gradient;
            synchronous.computeGradient(features, labels);
            synchronous.applyGradient(synchronous.gradient().toFloatVector(), k * b);
        }
        // the last step's mean is not applied: the state after a step does not depend on the run's length
        float[] expected = stale.params().toFloatVector();
        float[] notExpected = synchronous.params().toFloatVector();
        float[] actual = trainer.replicas().get(0).params().toFloatVector();
        boolean differsFromSynchronous = false;
        for (int i = 0; i < expected.length; i++) {
            float tolerance = 1e-5f * (1 + Math.abs(expected[i]));
            assertEquals(expected[i], actual[i], tolerance, "parameter " + i);
            differsFromSynchronous |= Math.abs(notExpected[i] - actual[i]) > 10 * tolerance;
        }
        assertTrue(differsFromSynchronous, "the delayed run trained like the synchronous one");
        for (int r = 1; r < k; r++) {
            assertArrayEquals(actual, trainer.replicas().get(r).params().toFloatVector(), "replica " + r);
        }
        assertEquals(plan.stepsPerEpoch() - 1, trainer.replicas().get(0).counts()[0],
                "one application per step but the last");
        assertEquals(plan.stepsPerEpoch(), result.steps().size());
    }

    /**
     * Backward overlap ({@link Overlap#BACKWARD}) changes no bit in fp32: with every layer a piece of its own (the
     * smallest bucket), through every stage the topology runs, every replica after every step holds the synchronous
     * run's parameters, and the losses are the same. A topology whose steps need the whole gradient runs them as
     * before; one that streams reads each piece only once the pass has finished it.
     */
    @Test
    void backwardOverlapShouldChangeNoBit() {
        java.util.function.Function<Overlap, DistributedTrainer> trainer = overlap -> {
            DistributedTrainer.Builder b = DistributedTrainer.builder().model(TestModels.mlp(31))
                    .data(TestModels.data(3 * 8 * 10, 3)).workers(3).batchSizePerWorker(8).topology(topology())
                    .seed(4).overlap(overlap).bucketBytes(4);
            if (replicaStages() != null) {
                b.stages(replicaStages());
            }
            return b.build();
        };
        DistributedTrainer synchronous = trainer.apply(Overlap.NONE);
        TrainingResult expected = synchronous.fit(2);
        DistributedTrainer overlapped = trainer.apply(Overlap.BACKWARD);
        TrainingResult actual = overlapped.fit(2);
        assertEquals(expected.steps().size(), actual.steps().size());
        for (int s = 0; s < expected.steps().size(); s++) {
            assertEquals(expected.steps().get(s).loss(), actual.steps().get(s).loss(), "loss of step " + s);
        }
        float[] params = synchronous.replicas().get(0).params().toFloatVector();
        for (int r = 0; r < 3; r++) {
            assertArrayEquals(params, overlapped.replicas().get(r).params().toFloatVector(), "replica " + r);
        }
        assertEquals(expected.replicaChecksums(), actual.replicaChecksums());
    }

    /**
     * Delayed application resumes exactly: a checkpoint holds the mean not yet applied and, predicted, the mean
     * applied last (rank 0's part), and a run of two epochs through every stage the topology runs, resumed after
     * steps 6 and 12, ends where it ends uninterrupted, every replica the same.
     */
    @Test
    void delayedApplicationShouldResumeExactlyWithTheMeanNotYetApplied(@TempDir Path dir) throws Exception {
        TrainingResult result = ResumeCheck.run(() -> {
            DistributedTrainer.Builder b = DistributedTrainer.builder().model(TestModels.mlp(43))
                    .data(TestModels.data(3 * 8 * 12, 3)).workers(3).batchSizePerWorker(8).topology(topology())
                    .seed(5).evaluation(evalData(), 5).overlap(Overlap.PREDICTED);
            if (replicaStages() != null) {
                b.stages(replicaStages());
            }
            return b;
        }, 2, 6, dir, 6, 12);
        assertEquals(1, new java.util.HashSet<>(result.replicaChecksums()).size(), result.replicaChecksums().toString());
        io.lgc4j.core.checkpoint.Checkpoint after6 = io.lgc4j.core.checkpoint.CheckpointDirectory.in(dir.resolve("full"))
                .load(6);
        assertTrue(after6.rankPart(0).has(Checkpointing.PENDING), "the mean of step 5 is in rank 0's part");
        assertTrue(after6.rankPart(0).has(Checkpointing.PREDICTOR), "the mean of step 4 is in rank 0's part");
        assertEquals("predicted", after6.manifest().run().config().get("training.overlap"));
        // a run of 12 steps ends where the longer run is after step 12: its last mean is not applied
        DistributedTrainer.Builder shorter = DistributedTrainer.builder().model(TestModels.mlp(43))
                .data(TestModels.data(3 * 8 * 12, 3)).workers(3).batchSizePerWorker(8).topology(topology())
                .seed(5).evaluation(evalData(), 5).overlap(Overlap.PREDICTED).maxSteps(12);
        if (replicaStages() != null) {
            shorter.stages(replicaStages());
        }
        DistributedTrainer twelve = shorter.build();
        twelve.fit(2);
        io.lgc4j.core.checkpoint.Checkpoint after12 = io.lgc4j.core.checkpoint.CheckpointDirectory
                .in(dir.resolve("full")).load(12);
        assertArrayEquals(after12.rankPart(0).floats("replica/params", twelve.layout().length()),
                twelve.replicas().get(0).params().toFloatVector(), "12 steps = the first 12 of 24");
    }

    /**
     * Delayed application: a gradient that is not finite, computed ahead on the second thread, fails the run with
     * the message the synchronous run gives, and a checkpoint before it is complete.
     */
    @Test
    void delayedApplicationShouldFailOnAGradientComputedAheadAsTheSynchronousRunDoes(@TempDir Path dir)
            throws Exception {
        DistributedTrainer.Builder b = DistributedTrainer.builder().model(TestModels.mlp(43)).topology(topology())
                .overlap(Overlap.DELAYED);
        if (replicaStages() != null) {
            b.stages(replicaStages());
        }
        ResumeCheck.assertCompleteWhenItsStepEnds(b, dir, 7);
    }

    /**
     * Backward overlap: a gradient that is not finite, found while the exchange thread already sends the last layers'
     * pieces, fails the run with the message the synchronous run gives (the piece that holds it is never handed over,
     * and the exchange waiting for it is released), and a checkpoint before it is complete.
     */
    @Test
    void backwardOverlapShouldFailOnANonFiniteGradientAsTheSynchronousRunDoes(@TempDir Path dir) throws Exception {
        DistributedTrainer.Builder b = DistributedTrainer.builder().model(TestModels.mlp(43)).topology(topology())
                .overlap(Overlap.BACKWARD).bucketBytes(4);
        if (replicaStages() != null) {
            b.stages(replicaStages());
        }
        ResumeCheck.assertCompleteWhenItsStepEnds(b, dir, 7);
    }

    /** Trains {@code model} on {@code workers} ranks for {@code epochs} epochs of {@code steps} steps. */
    private void assertReplicasIdentical(Model model, int workers, int steps, int epochs) {
        assertReplicasIdentical(model, workers, steps, epochs, ValueEncoding.FP32);
    }

    /** As {@link #assertReplicasIdentical(Model, int, int, int)}, the values in {@code values}. */
    private TrainingResult assertReplicasIdentical(Model model, int workers, int steps, int epochs,
                                                   ValueEncoding values) {
        float[] initial = model.params().toFloatVector();
        Topology topology = topology();
        DistributedTrainer.Builder builder = DistributedTrainer.builder().model(model)
                .data(TestModels.data(workers * 8 * steps, 3)).workers(workers).batchSizePerWorker(8)
                .topology(topology).seed(5).values(values);
        if (replicaStages() != null) {
            builder.stages(replicaStages());
        }
        DistributedTrainer trainer = builder.build();
        TrainingResult result = trainer.fit(epochs);
        assertEquals(steps * epochs, result.steps().size());
        float[] rank0 = trainer.replicas().get(0).params().toFloatVector();
        for (int r = 1; r < workers; r++) {
            assertArrayEquals(rank0, trainer.replicas().get(r).params().toFloatVector(), "replica " + r);
        }
        assertFalse(java.util.Arrays.equals(initial, rank0), "training changed nothing");
        // provenance: the result records what the topology says it is, whoever built it, and the run's encoding
        assertEquals(topology.describe().withValues(values), result.method());
        assertEquals(topology.name(), result.method().topology());
        checkReplicaRun(result, workers);
        return result;
    }
}
