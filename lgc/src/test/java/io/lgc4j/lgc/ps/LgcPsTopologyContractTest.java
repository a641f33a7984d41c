package io.lgc4j.lgc.ps;

import io.lgc4j.lgc.autoencoder.AutoencoderSpec;
import io.lgc4j.lgc.LgcControl;
import io.lgc4j.core.comm.Direction;
import io.lgc4j.core.comm.TrafficKind;
import io.lgc4j.core.comm.TrafficMeter;
import io.lgc4j.core.compress.Compressor;
import io.lgc4j.lgc.support.LgcSupportCompressor;
import io.lgc4j.core.compress.SeededSupportCompressor;
import io.lgc4j.core.compress.SharedSupportCompressor;
import io.lgc4j.core.compress.TopKCompressor;
import io.lgc4j.core.layout.GradientLayout;
import io.lgc4j.core.layout.LayerPolicy;
import io.lgc4j.core.layout.ParamBlock;
import io.lgc4j.core.metrics.StepMetrics;
import io.lgc4j.core.metrics.StepNotes;
import io.lgc4j.core.stage.Stage;
import io.lgc4j.core.stage.StageSchedule;
import io.lgc4j.core.train.CompressedTopologyContract;
import io.lgc4j.core.comm.StepTag;
import io.lgc4j.core.train.Topology;
import io.lgc4j.core.train.TopologyContract;
import io.lgc4j.core.train.TrainingResult;
import io.lgc4j.lgc.ps.LgcPsTopology.SupportPolicy;
import io.lgc4j.ps.topology.ParameterServerTopology;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;

import static org.junit.jupiter.api.Assumptions.assumeTrue;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * LGC-PS runs the topology contract under both support policies (LEADER here, OWN in {@link OwnSupport}): a FULL
 * step is the dense parameter server's, bit for bit, so every rank holds the exact dense mean; replicas of K = 1 to
 * 4 ranks stay bit-identical through FULL, TOP_K and COMPRESSED (the autoencoder trained in TOP_K and used in
 * COMPRESSED on every one of those runs); and an all-FULL run trains like one model. Before the switch it also runs
 * the compressed-topology contract for the compressors it is: under LEADER a shared-support compressor (ScaleCom with
 * random leaders), under OWN Sparse GD's own top-k ({@link LeaderSupportAsCompressedTopology},
 * {@link OwnSupportAsCompressedTopology}).
 */
class LgcPsTopologyContractTest extends TopologyContract {

    /**
     * A small autoencoder, so the contract stays fast: two stride-2 convolutions of 4 filters, a latent of 2 channels
     * (μ = 11 pads to 12, a latent of 2 × 3 floats). The paper's architecture runs in {@link LgcPsTopologyTest}.
     */
    static final AutoencoderSpec SMALL = new AutoencoderSpec(List.of(4, 4), 2, 3, 2, List.of(4, 4), List.of(2, 2),
            0.01);
    /**
     * The default controls (reconstruction feedback, exact innovation, low-pass 0.1) with a drift guard that checks
     * every third compressed step and never trips, so COMPRESSED steps are compressed steps.
     */
    static final LgcControl LENIENT = new LgcControl(1e9, 2, 3, 4, true, true, 0.1);
    static final double RATIO = 0.05;
    static final long SEED = 42;
    /** FULL for steps 0-3, TOP_K for 4-11, COMPRESSED from 12 on (24- and 50-step runs cross all three). */
    static final StageSchedule STAGES = new StageSchedule(4, 8);

    static LgcPsTopology lgc(SupportPolicy policy) {
        return LgcPsTopology.builder().ratio(RATIO).spec(SMALL).support(policy).seed(SEED).control(LENIENT).build();
    }

    /** LGC-PS under {@code policy} at {@code ratio}, with plain error feedback and no guard (the paper's controls). */
    static LgcPsTopology lgc(SupportPolicy policy, double ratio) {
        return LgcPsTopology.builder().ratio(ratio).spec(SMALL).support(policy).seed(SEED).control(LgcControl.PAPER)
                .build();
    }

    /** {@code n} elements: a DENSE block of 300, a LEARNED block of 500 and a TOP_K block of the rest. */
    static GradientLayout mixedLayout(int n) {
        return GradientLayout.ofBlocks(List.of(
                new ParamBlock(0, 0, "layer0", "W", 0, 300, new long[] {300}, LayerPolicy.DENSE),
                new ParamBlock(1, 1, "layer1", "W", 300, 500, new long[] {500}, LayerPolicy.LEARNED),
                new ParamBlock(2, 2, "layer2", "W", 800, n - 800, new long[] {n - 800}, LayerPolicy.TOP_K)));
    }

    /**
     * Per step of a replica run: the autoencoder trains (its loss is noted) exactly in TOP_K; in COMPRESSED the
     * step's leader, and only it, sends a latent, every worker sends its innovation, and the guard never falls back;
     * before COMPRESSED nothing travels as latent or innovation.
     */
    static void checkStages(TrainingResult result, int workers) {
        LgcSupportCompressor leaders = new LgcSupportCompressor(RATIO, SEED);
        for (int s = 0; s < result.steps().size(); s++) {
            StepMetrics m = result.steps().get(s);
            Stage stage = STAGES.stageAt(s);
            String at = "K=" + workers + ", step " + s + " (" + stage + ")";
            assertEquals(stage, m.stage(), at);
            double rec = m.note(StepNotes.AE_RECONSTRUCTION);
            assertEquals(stage == Stage.TOP_K, Double.isFinite(rec) && rec > 0, at + ": autoencoder loss " + rec);
            assertTrue(Double.isNaN(m.note(StepNotes.LGC_FALLBACK)), at + ": no fallback");
            TrafficMeter.Snapshot t = m.traffic();
            int leader = leaders.leader(s, workers);
            for (int w = 0; w < workers; w++) {
                boolean compressed = stage == Stage.COMPRESSED;
                assertEquals(compressed && w == leader, t.bytes(w, Direction.SENT, TrafficKind.LATENT) > 0,
                        at + ", worker " + w + (w == leader ? " (leader)" : "") + ": latent");
                assertEquals(compressed, t.bytes(w, Direction.SENT, TrafficKind.INNOVATION) > 0,
                        at + ", worker " + w + ": innovation");
            }
        }
    }

    /** A FULL step on {@code workers} ranks through LGC-PS and through the dense parameter server: the same bits. */
    static void assertFullStepIsTheDenseParameterServers(Topology lgc, int workers) throws Exception {
        GradientLayout layout = mixedLayout(1003);
        float[][] inputs = gaussianInputs(workers, 1003);
        StepTag tag = new StepTag(0, Stage.FULL);
        float[][] expected = exchange(new ParameterServerTopology(), layout, inputs, tag);
        float[][] actual = exchange(lgc, layout, inputs, tag);
        for (int r = 0; r < workers; r++) {
            assertArrayEquals(expected[r], actual[r], "rank " + r + " of " + workers);
        }
    }

    @Override
    protected Topology topology() {
        return lgc(SupportPolicy.LEADER);
    }

    @Override
    protected GradientLayout meanLayout(int n) {
        return mixedLayout(n);
    }

    @Override
    protected StageSchedule replicaStages() {
        return STAGES;
    }

    @Override
    protected void checkReplicaRun(TrainingResult result, int workers) {
        checkStages(result, workers);
    }

    @Override
    protected StageSchedule unionStages() {
        return StageSchedule.ALWAYS_FULL;
    }

    @ParameterizedTest(name = "K={0}")
    @ValueSource(ints = {1, 2, 3, 4})
    void fullStepShouldBeTheDenseParameterServersBitForBit(int k) throws Exception {
        assertFullStepIsTheDenseParameterServers(topology(), k);
    }

    /** The paper-literal policy: every rank sends its own support. */
    @Nested
    class OwnSupport extends TopologyContract {

        @Override
        protected Topology topology() {
            return lgc(SupportPolicy.OWN);
        }

        @Override
        protected GradientLayout meanLayout(int n) {
            return mixedLayout(n);
        }

        @Override
        protected StageSchedule replicaStages() {
            return STAGES;
        }

        @Override
        protected void checkReplicaRun(TrainingResult result, int workers) {
            checkStages(result, workers);
        }

        @Override
        protected StageSchedule unionStages() {
            return StageSchedule.ALWAYS_FULL;
        }

        @ParameterizedTest(name = "K={0}")
        @ValueSource(ints = {1, 2, 3, 4})
        void fullStepShouldBeTheDenseParameterServersBitForBit(int k) throws Exception {
            assertFullStepIsTheDenseParameterServers(topology(), k);
        }
    }

    /**
     * Until the switch, LGC-PS under LEADER is the parameter server with a shared-support compressor (random leaders,
     * plain error feedback): it stands in for the contract's shared-support compressors at their ratio. It carries
     * no other kind.
     */
    @Nested
    class LeaderSupportAsCompressedTopology extends CompressedTopologyContract {

        /** Without the drift guard (the paper's controls) LGC-PS goes on with fewer workers, not more. */
        @Override
        protected String resizeRefusal(int to) {
            return to > 4 ? "LGC-PS cannot resume at K = " + to + " from a checkpoint of K = 4 without the drift"
                    + " guard" : null;
        }

        @Override
        protected Topology topology(Compressor compressor) {
            assumeTrue(compressor instanceof SharedSupportCompressor
                    && !(compressor instanceof SeededSupportCompressor), "LGC-PS under the LEADER policy carries its"
                    + " own leader-chosen shared support, not " + compressor);
            return lgc(SupportPolicy.LEADER, compressor.density(0, TOP_K_BLOCK));
        }

        @Override
        protected Topology denseTopology() {
            return new ParameterServerTopology();
        }
    }

    /**
     * Until the switch, LGC-PS under OWN is the parameter server with Sparse GD (every rank its own top-k, plain
     * error feedback): it stands in for the contract's top-k compressors at their ratio. It carries no other kind.
     */
    @Nested
    class OwnSupportAsCompressedTopology extends CompressedTopologyContract {

        /** Without the drift guard (the paper's controls) LGC-PS goes on with fewer workers, not more. */
        @Override
        protected String resizeRefusal(int to) {
            return to > 4 ? "LGC-PS cannot resume at K = " + to + " from a checkpoint of K = 4 without the drift"
                    + " guard" : null;
        }

        @Override
        protected Topology topology(Compressor compressor) {
            assumeTrue(compressor instanceof TopKCompressor, "LGC-PS under the OWN policy selects like Sparse GD"
                    + " (topk), not like " + compressor);
            return lgc(SupportPolicy.OWN, compressor.density(0, TOP_K_BLOCK));
        }

        @Override
        protected Topology denseTopology() {
            return new ParameterServerTopology();
        }
    }
}
