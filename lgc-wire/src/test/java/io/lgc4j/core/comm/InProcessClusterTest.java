package io.lgc4j.core.comm;

import io.lgc4j.core.protocol.FloatFrames;
import io.lgc4j.core.stage.Stage;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class InProcessClusterTest {

    @Test
    void shouldDeliverFramesInOrderAndCountBothEnds() {
        try (InProcessCluster cluster = new InProcessCluster(3)) {
            Transport a = cluster.transport(0);
            Transport c = cluster.transport(2);
            a.send(2, FloatFrames.encode(new float[] {1, 2}, 0, 2, TrafficKind.VALUES, Stage.FULL, 0));
            a.send(2, FrameCodec.encode(TrafficKind.INDICES, Stage.TOP_K, 1, ByteBuffer.wrap(new byte[5])));
            assertEquals(TrafficKind.VALUES, c.receive(0).kind());
            assertEquals(TrafficKind.INDICES, c.receive(0, TrafficKind.INDICES).kind());
            TrafficMeter.Snapshot s = cluster.meter().snapshot();
            assertEquals(8, s.bytes(0, Direction.SENT, Stage.FULL, TrafficKind.VALUES));
            assertEquals(5, s.bytes(0, Direction.SENT, Stage.TOP_K, TrafficKind.INDICES));
            assertEquals(2 * FrameDescriptor.OVERHEAD, s.bytes(0, Direction.SENT, TrafficKind.HEADER));
            assertEquals(8 + 5 + 2 * FrameDescriptor.OVERHEAD, s.bytes(2, Direction.RECEIVED));
            assertEquals(0, s.bytes(1, Direction.RECEIVED));
            assertEquals(2, s.frames(2, Direction.RECEIVED));
        }
    }

    @Test
    void shouldRejectFrameOfUnexpectedKind() {
        try (InProcessCluster cluster = new InProcessCluster(2)) {
            cluster.transport(0).send(1, FrameCodec.encode(TrafficKind.LATENT, Stage.COMPRESSED, 3,
                    ByteBuffer.allocate(4)));
            FrameException e = assertThrows(FrameException.class,
                    () -> cluster.transport(1).receive(0, TrafficKind.VALUES));
            assertEquals("endpoint 1 expected a VALUES frame from endpoint 0, found LATENT", e.getMessage());
        }
    }

    @Test
    void shouldWakeBlockedReceiverWhenClusterCloses() throws Exception {
        InProcessCluster cluster = new InProcessCluster(2);
        FutureTask<Frame> waiting = startBlockedReceiver(() -> cluster.transport(1).receive(0));
        cluster.close();
        ExecutionException e = assertThrows(ExecutionException.class, () -> waiting.get(5, TimeUnit.SECONDS));
        assertInstanceOf(TransportClosedException.class, e.getCause());
        assertEquals("endpoint 1 was receiving from 0 when the cluster closed", e.getCause().getMessage());
    }

    @Test
    void shouldHandAFrameToAReceiverAlreadyBlockedOnItsLink() throws Exception {
        try (InProcessCluster cluster = new InProcessCluster(2)) {
            FutureTask<Frame> waiting = startBlockedReceiver(() -> cluster.transport(1).receive(0));
            cluster.transport(0).send(1, FloatFrames.encode(new float[] {1.5f, -2}, 0, 2, TrafficKind.VALUES,
                    Stage.TOP_K, 7));
            Frame frame = waiting.get(5, TimeUnit.SECONDS);
            assertEquals(TrafficKind.VALUES, frame.kind());
            assertEquals(Stage.TOP_K, frame.stage());
            assertEquals(7, frame.step());
            float[] values = new float[2];
            FloatFrames.copyInto(frame, values, 0, 2);
            assertArrayEquals(new float[] {1.5f, -2}, values);
        }
    }

    /**
     * Runs {@code receive} on a thread of its own and returns only once that thread is parked inside
     * {@code InProcessCluster}'s {@code receive}: state WAITING with that method on its stack. What the caller does
     * next therefore happens to a receiver that is blocked, not to one that has not reached its link yet. Fails
     * after 10 s.
     */
    private static FutureTask<Frame> startBlockedReceiver(Callable<Frame> receive) {
        FutureTask<Frame> task = new FutureTask<>(receive);
        Thread thread = new Thread(task, "blocked-receiver");
        thread.setDaemon(true);
        thread.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!(thread.getState() == Thread.State.WAITING && insideReceive(thread.getStackTrace()))) {
            assertFalse(task.isDone(), "the receiver returned before anything was sent or closed");
            assertTrue(System.nanoTime() < deadline, "the receiver did not block inside receive within 10 s: state "
                    + thread.getState() + ", stack " + Arrays.toString(thread.getStackTrace()));
            Thread.onSpinWait();
            Thread.yield();
        }
        assertFalse(task.isDone());
        return task;
    }

    private static boolean insideReceive(StackTraceElement[] stack) {
        return Arrays.stream(stack).anyMatch(f -> f.getClassName().startsWith(InProcessCluster.class.getName())
                && f.getMethodName().equals("receive"));
    }

    @Test
    void shouldRejectSendToItselfOrUnknownPeer() {
        try (InProcessCluster cluster = new InProcessCluster(2)) {
            byte[] frame = FrameCodec.encode(TrafficKind.CONTROL, Stage.SETUP, -1, ByteBuffer.allocate(0));
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> cluster.transport(0).send(0, frame));
            assertEquals("endpoint 0: peer must be another endpoint in 0..1, found 0", e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> cluster.transport(0).send(2, frame));
        }
    }

    @Test
    void shouldRejectCorruptedFrameAtTheReceiver() {
        try (InProcessCluster cluster = new InProcessCluster(2)) {
            byte[] frame = FloatFrames.encode(new float[] {1, 2, 3}, 0, 3, TrafficKind.VALUES, Stage.FULL, 0);
            cluster.transport(0).send(1, frame);
            frame[FrameDescriptor.HEADER_LENGTH] ^= 1; // the link flips a bit after the sender counted the frame
            FrameException e = assertThrows(FrameException.class, () -> cluster.transport(1).receive(0));
            assertEquals(true, e.getMessage().startsWith("frame CRC32C mismatch"));
        }
    }
}
