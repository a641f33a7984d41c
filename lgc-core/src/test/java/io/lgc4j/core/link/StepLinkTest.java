package io.lgc4j.core.link;

import io.lgc4j.core.comm.Frame;
import io.lgc4j.core.comm.FrameCodec;
import io.lgc4j.core.comm.FrameException;
import io.lgc4j.core.comm.InProcessCluster;
import io.lgc4j.core.comm.TrafficKind;
import io.lgc4j.core.comm.ValueEncoding;
import io.lgc4j.core.protocol.FloatFrames;
import io.lgc4j.core.stage.Stage;
import io.lgc4j.core.comm.StepTag;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Every exchange receives through {@link StepLink}: a frame of another step, stage or kind stops it, naming both ends. */
class StepLinkTest {

    private static byte[] values(TrafficKind kind, Stage stage, int step, float... v) {
        return FloatFrames.encode(v, 0, v.length, kind, stage, step);
    }

    @Test
    void shouldRejectAFrameOfAnotherStepNamingBothEnds() {
        try (InProcessCluster cluster = new InProcessCluster(3)) {
            cluster.transport(2).send(1, values(TrafficKind.VALUES, Stage.TOP_K, 16, 1f));
            StepLink worker = StepLink.psWorker(1, 2, cluster.transport(1));
            FrameException e = assertThrows(FrameException.class,
                    () -> worker.receive(2, TrafficKind.VALUES, new StepTag(17, Stage.TOP_K)));
            assertEquals("worker 1 expected a VALUES frame of step 17 (TOP_K) from the server, found a VALUES frame of"
                    + " step 16 (TOP_K)", e.getMessage());
        }
    }

    @Test
    void shouldRejectAFrameOfAnotherStageOrKind() {
        try (InProcessCluster cluster = new InProcessCluster(3)) {
            cluster.transport(0).send(2, values(TrafficKind.VALUES, Stage.COMPRESSED, 5, 1f));
            cluster.transport(1).send(2, values(TrafficKind.LATENT, Stage.TOP_K, 5, 1f));
            StepLink server = StepLink.psServer(2, cluster.transport(2));
            StepTag tag = new StepTag(5, Stage.TOP_K);
            FrameException stage = assertThrows(FrameException.class,
                    () -> server.receive(0, TrafficKind.VALUES, tag));
            assertEquals("the server expected a VALUES frame of step 5 (TOP_K) from worker 0, found a VALUES frame of"
                    + " step 5 (COMPRESSED)", stage.getMessage());
            FrameException kind = assertThrows(FrameException.class,
                    () -> server.receive(1, TrafficKind.INNOVATION, tag));
            assertEquals("the server expected a INNOVATION frame of step 5 (TOP_K) from worker 1, found a LATENT frame"
                    + " of step 5 (TOP_K)", kind.getMessage());
        }
    }

    @Test
    void shouldNameRanksOnTheRing() {
        try (InProcessCluster cluster = new InProcessCluster(4)) {
            cluster.transport(3).send(0, values(TrafficKind.INDICES, Stage.TOP_K, 8, 1f));
            StepLink rank0 = StepLink.ringRank(0, cluster.transport(0));
            FrameException e = assertThrows(FrameException.class,
                    () -> rank0.receive(3, TrafficKind.INDICES, new StepTag(9, Stage.TOP_K)));
            assertEquals("rank 0 expected a INDICES frame of step 9 (TOP_K) from rank 3, found a INDICES frame of"
                    + " step 8 (TOP_K)", e.getMessage());
        }
    }

    @Test
    void shouldSumInRankOrderWhateverTheArrivalOrder() {
        float a = 1e8f;
        float b = -1e8f;
        float c = 1f;
        StepTag tag = new StepTag(0, Stage.FULL);
        try (InProcessCluster cluster = new InProcessCluster(4)) {
            // endpoint 2 sends first, endpoint 0 last: the sum is still (a + b) + c = 1, not (c + b) + a = 0
            cluster.transport(2).send(3, values(TrafficKind.VALUES, Stage.FULL, 0, c));
            cluster.transport(1).send(3, values(TrafficKind.VALUES, Stage.FULL, 0, b));
            cluster.transport(0).send(3, values(TrafficKind.VALUES, Stage.FULL, 0, a));
            float[] sum = new float[1];
            StepLink.psServer(3, cluster.transport(3)).receiveSum(3, TrafficKind.VALUES, tag, sum, 1);
            assertEquals(1f, sum[0]);
        }
    }

    @Test
    void shouldForwardTheSameKindStepStreamAndPayload() {
        ByteBuffer payload = FrameCodec.allocate(8);
        payload.asFloatBuffer().put(new float[] {2f, 3f});
        byte[] original = FrameCodec.seal(payload, TrafficKind.INDICES, Stage.COMPRESSED, 12, 7);
        FrameCodec.stamp(original, 4, 99);
        Frame in = FrameCodec.decode(original);
        Frame out = FrameCodec.decode(StepLink.forward(in));
        assertEquals(TrafficKind.INDICES, out.kind());
        assertEquals(Stage.COMPRESSED, out.stage());
        assertEquals(12, out.step());
        assertEquals(7, out.stream());
        assertArrayEquals(StepLink.payloadBytes(in), StepLink.payloadBytes(out));
    }

    @Test
    void shouldDivideByKAsAFloat() {
        float[] v = {1f, 2f, 3f, -0f};
        Averages.divide(v, 3);
        assertArrayEquals(new float[] {1f / 3f, 2f / 3f, 1f, -0f}, v);
        float[] mean = Averages.mean(new float[][] {{1f, 4f}, {2f, 5f}, {3f, 7f}});
        assertArrayEquals(new float[] {2f, 16f / 3f}, mean);
    }

    @Test
    void shouldRejectAFrameStampedByAnotherJobOrSender() {
        try (InProcessCluster cluster = new InProcessCluster(2, new io.lgc4j.core.comm.TrafficMeter(2), 77)) {
            byte[] frame = values(TrafficKind.VALUES, Stage.FULL, 0, 1f);
            cluster.transport(0).send(1, frame);
            // the link delivers bytes of another job: rewrite the job field after the sender stamped it
            ByteBuffer.wrap(frame).order(ByteOrder.LITTLE_ENDIAN).putInt(20, 78);
            java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
            crc.update(frame, 0, frame.length - 4);
            ByteBuffer.wrap(frame).order(ByteOrder.LITTLE_ENDIAN).putInt(frame.length - 4, (int) crc.getValue());
            FrameException e = assertThrows(FrameException.class, () -> cluster.transport(1).receive(0));
            assertEquals("endpoint 1 received from endpoint 0 a frame stamped by endpoint 0 of job 78; expected"
                    + " endpoint 0 of job 77", e.getMessage());
        }
    }

    @Test
    void forwardingShouldKeepTheFlags() {
        ByteBuffer payload = FrameCodec.allocate(ValueEncoding.FP16.payloadLength(3));
        ValueEncoding.FP16.write(payload, new float[] {1.0f, -2.5f, 0.125f}, 0, 3, TrafficKind.VALUES, 5);
        Frame fp16 = FrameCodec.decode(FrameCodec.seal(payload, TrafficKind.VALUES, Stage.FULL, 5, 1,
                ValueEncoding.FP16.wireId()));
        Frame forwarded = FrameCodec.decode(StepLink.forward(fp16));
        assertEquals(1, forwarded.flags());
        assertEquals(fp16.payload(), forwarded.payload());
    }
}
