package io.lgc4j.ps.topology;

import io.lgc4j.core.comm.Direction;
import io.lgc4j.core.comm.FrameDescriptor;
import io.lgc4j.core.comm.TrafficKind;
import io.lgc4j.core.comm.TrafficMeter;
import io.lgc4j.core.metrics.StepMetrics;
import io.lgc4j.core.comm.ValueEncoding;
import io.lgc4j.core.stage.Stage;
import io.lgc4j.core.train.DistributedTrainer;
import io.lgc4j.core.train.TestModels;
import io.lgc4j.core.train.Topology;
import io.lgc4j.core.train.TopologyContract;
import io.lgc4j.core.train.TrainingResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The parameter server runs the topology contract, and its bytes per step are exactly the dense formula. */
class ParameterServerTopologyTest extends TopologyContract {
    @Override
    protected Topology topology() {
        return new ParameterServerTopology();
    }

    @Test
    void shouldSendAndReceiveNTimesFourBytesPlusOneHeaderPerWorkerPerStep() {
        int k = 3;
        DistributedTrainer trainer = DistributedTrainer.builder().model(TestModels.mlp(1))
                .data(TestModels.data(k * 8 * 5, 2)).workers(k).batchSizePerWorker(8).topology(topology()).build();
        TrainingResult result = trainer.fit(1);
        long n = trainer.layout().length();
        for (StepMetrics m : result.steps()) {
            TrafficMeter.Snapshot t = m.traffic();
            for (int w = 0; w < k; w++) {
                assertEquals(4 * n, t.bytes(w, Direction.SENT, Stage.FULL, TrafficKind.VALUES), "worker " + w);
                assertEquals(4 * n, t.bytes(w, Direction.RECEIVED, Stage.FULL, TrafficKind.VALUES), "worker " + w);
                assertEquals(FrameDescriptor.OVERHEAD, t.bytes(w, Direction.SENT, Stage.FULL, TrafficKind.HEADER));
                assertEquals(FrameDescriptor.OVERHEAD,
                        t.bytes(w, Direction.RECEIVED, Stage.FULL, TrafficKind.HEADER));
            }
            assertEquals(k * (4 * n + FrameDescriptor.OVERHEAD), t.bytes(k, Direction.RECEIVED, Stage.FULL));
            assertEquals(k * (4 * n + FrameDescriptor.OVERHEAD), t.bytes(k, Direction.SENT, Stage.FULL));
        }
        // Setup: nothing; every worker starts from the model it built, the same bits as rank 0's
        assertEquals(0, result.traffic().bytes(0, Direction.SENT, Stage.SETUP));
    }

    /** In half precision every dense frame carries 2 bytes a value (bf16), plus the 2-byte scale (fp16). */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = ValueEncoding.class, names = {"FP16", "BF16"})
    void shouldSendHalfTheValueBytesInHalfPrecision(ValueEncoding values) {
        int k = 3;
        DistributedTrainer trainer = DistributedTrainer.builder().model(TestModels.mlp(1))
                .data(TestModels.data(k * 8 * 5, 2)).workers(k).batchSizePerWorker(8).topology(topology())
                .values(values).build();
        TrainingResult result = trainer.fit(1);
        long n = trainer.layout().length();
        long payload = values.payloadLength((int) n);
        assertEquals(2 * n + (values == ValueEncoding.FP16 ? 2 : 0), payload);
        for (StepMetrics m : result.steps()) {
            TrafficMeter.Snapshot t = m.traffic();
            for (int w = 0; w < k; w++) {
                assertEquals(payload, t.bytes(w, Direction.SENT, Stage.FULL, TrafficKind.VALUES), "worker " + w);
                assertEquals(payload, t.bytes(w, Direction.RECEIVED, Stage.FULL, TrafficKind.VALUES), "worker " + w);
            }
        }
        assertEquals(0, result.traffic().bytes(0, Direction.SENT, Stage.SETUP), "no parameters travel at the start");
    }

    /** A push and a mean: n floats each way per worker, 2 legs, whatever K. */
    @ParameterizedTest(name = "K={0}")
    @org.junit.jupiter.params.provider.ValueSource(ints = {1, 3, 4})
    void dryRunShouldCountAPushAndAMeanPerWorker(int k) throws Exception {
        int n = 1003;
        try (io.lgc4j.core.train.DryRun run = new io.lgc4j.core.train.DryRun(topology(), k, meanLayout(n))) {
            run.step(new io.lgc4j.core.comm.StepTag(0, Stage.FULL), gaussianInputs(k, n));
            var cost = run.lastCost();
            assertEquals(2, cost.legs());
            for (int w = 0; w < k; w++) {
                assertEquals(4L * n, cost.bytes().bytes(w, Direction.SENT, Stage.FULL, TrafficKind.VALUES));
                assertEquals(4L * n, cost.bytes().bytes(w, Direction.RECEIVED, Stage.FULL, TrafficKind.VALUES));
            }
            assertEquals(4L * n * k, cost.bytes().bytes(k, Direction.RECEIVED, Stage.FULL, TrafficKind.VALUES));
        }
    }
}
