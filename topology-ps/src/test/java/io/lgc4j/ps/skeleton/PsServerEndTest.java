package io.lgc4j.ps.skeleton;

import io.lgc4j.core.comm.FrameException;
import io.lgc4j.core.comm.InProcessCluster;
import io.lgc4j.core.comm.StepTag;
import io.lgc4j.core.comm.TrafficKind;
import io.lgc4j.core.comm.ValueEncoding;
import io.lgc4j.core.layout.GradientLayout;
import io.lgc4j.core.layout.LayerPolicy;
import io.lgc4j.core.layout.ParamBlock;
import io.lgc4j.core.link.Shortcuts;
import io.lgc4j.core.protocol.FloatFrames;
import io.lgc4j.core.shard.FusionPlan;
import io.lgc4j.core.stage.Stage;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The server's end with a direct support path: it takes no support (the leader sent it to the workers), reads the
 * values' lengths from their frames, and refuses values that do not align, naming the worker.
 */
class PsServerEndTest {

    private static final GradientLayout LAYOUT = GradientLayout.ofBlocks(List.of(
            new ParamBlock(0, 0, "in", "W", 0, 8, new long[] {8}, LayerPolicy.DENSE),
            new ParamBlock(1, 1, "out", "W", 8, 20, new long[] {20}, LayerPolicy.TOP_K)));
    private static final StepTag TAG = new StepTag(5, Stage.TOP_K);

    private static PsServerEnd server(InProcessCluster cluster) {
        return new PsServerEnd(cluster.transport(3), 3, FusionPlan.single(LAYOUT), 0,
                new Shortcuts(Shortcuts.SupportPath.DIRECT, 0));
    }

    private static void send(InProcessCluster cluster, int worker, float... values) {
        cluster.transport(worker).send(3, FloatFrames.encode(values, 0, values.length, TrafficKind.VALUES,
                TAG.stage(), TAG.step(), ValueEncoding.FP32));
    }

    @Test
    void shouldTakeNoSupportAndReadTheLengthsFromTheFrames() {
        try (InProcessCluster cluster = new InProcessCluster(4)) {
            PsServerEnd end = server(cluster);
            assertTrue(end.leadersSupport(1, LAYOUT.compressibleBlocks(), null, new int[] {2}, TAG).isEmpty());
            send(cluster, 0, 1, 2);
            send(cluster, 1, 3, 4);
            send(cluster, 2, 5, 6);
            float[][] values = end.receiveAlignedValues(TAG);
            assertArrayEquals(new float[][] {{1, 2}, {3, 4}, {5, 6}}, values);
        }
    }

    @Test
    void shouldRefuseValuesThatDoNotAlignNamingTheWorker() {
        try (InProcessCluster cluster = new InProcessCluster(4)) {
            PsServerEnd end = server(cluster);
            send(cluster, 0, 1, 2);
            send(cluster, 1, 3, 4, 5);
            FrameException e = assertThrows(FrameException.class, () -> end.receiveAlignedValues(TAG));
            assertEquals("worker 1 sent 3 values at step 5, worker 0 sent 2: values on one support must align",
                    e.getMessage());
        }
    }
}
