package io.lgc4j.core.comm;

import io.lgc4j.core.link.StepLink;
import io.lgc4j.core.protocol.FloatFrames;
import io.lgc4j.core.stage.Stage;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.*;

class FrameBufferTest {
    private static final float[] VALUES = {1.5f, -2.25f, 0f, Float.MIN_VALUE, 3e38f};

    @Test
    void shouldSealTheSameBytesAsTheCodecOnTheHeapAndInDirectMemory() {
        byte[] expected = FloatFrames.encode(VALUES, 0, VALUES.length, TrafficKind.VALUES, Stage.TOP_K, 17);
        FrameBuffer heap = FloatFrames.encode(FrameAllocator.HEAP, VALUES, 0, VALUES.length, TrafficKind.VALUES,
                Stage.TOP_K, 17);
        assertArrayEquals(expected, heap.arrayOrNull());
        AtomicInteger recycled = new AtomicInteger();
        FrameAllocator direct = n -> FrameBuffer.lease(ByteBuffer.allocateDirect(4096), n, recycled::incrementAndGet);
        FrameBuffer pooled = FloatFrames.encode(direct, VALUES, 0, VALUES.length, TrafficKind.VALUES, Stage.TOP_K,
                17);
        assertTrue(pooled.isDirect());
        assertNull(pooled.arrayOrNull());
        byte[] bytes = new byte[pooled.length()];
        pooled.bytes().get(bytes);
        assertArrayEquals(expected, bytes);
        pooled.stamp(3, 99);
        FrameCodec.stamp(expected, 3, 99);
        pooled.bytes().get(0, bytes);
        assertArrayEquals(expected, bytes, "the stamp and its CRC update are the same on direct memory");
        Frame decoded = FrameCodec.decode(pooled.bytes());
        assertEquals(3, decoded.sender());
        assertEquals(99, decoded.job());
        assertArrayEquals(VALUES, FloatFrames.read(decoded, VALUES.length));
        assertEquals(0, recycled.get());
        pooled.release();
        assertEquals(1, recycled.get());
    }

    @Test
    void shouldRecycleOnlyAtTheLastRelease() {
        AtomicInteger recycled = new AtomicInteger();
        FrameBuffer frame = FrameBuffer.lease(ByteBuffer.allocateDirect(64), 8, recycled::incrementAndGet)
                .seal(TrafficKind.VALUES, Stage.FULL, 0);
        frame.retain().retain();
        assertEquals(3, frame.references());
        frame.release();
        frame.release();
        assertEquals(0, recycled.get());
        frame.release();
        assertEquals(1, recycled.get());
        assertEquals(0, frame.references());
    }

    @Test
    void shouldNameEveryMisuse() {
        FrameBuffer frame = FrameBuffer.heap(4);
        assertEquals("the frame is not sealed: call seal(kind, stage, step) first",
                assertThrows(IllegalStateException.class, frame::bytes).getMessage());
        frame.seal(TrafficKind.VALUES, Stage.FULL, 1);
        assertEquals("the frame is sealed: its payload cannot change",
                assertThrows(IllegalStateException.class, frame::payload).getMessage());
        assertEquals("the frame is sealed already", assertThrows(IllegalStateException.class,
                () -> frame.seal(TrafficKind.VALUES, Stage.FULL, 1)).getMessage());
        frame.release();
        assertEquals("frame buffer used after its last release",
                assertThrows(IllegalStateException.class, frame::bytes).getMessage());
        assertEquals("frame buffer retained after its last release",
                assertThrows(IllegalStateException.class, frame::retain).getMessage());
        assertEquals("frame buffer released more often than retained",
                assertThrows(IllegalStateException.class, frame::release).getMessage());
        assertEquals("a frame of 100 payload bytes needs 128 bytes, the memory has 64",
                assertThrows(IllegalArgumentException.class,
                        () -> FrameBuffer.lease(ByteBuffer.allocateDirect(64), 100, () -> { })).getMessage());
        assertEquals("payload length must be in [0, 1073741824], found -1",
                assertThrows(IllegalArgumentException.class, () -> FrameBuffer.heap(-1)).getMessage());
        assertEquals("truncated frame: 3 bytes, a frame needs at least 28",
                assertThrows(FrameException.class, () -> FrameBuffer.of(new byte[3])).getMessage());
    }

    @Test
    void shouldCopyAReceivedFrameOffItsBuffer() {
        ByteBuffer direct = ByteBuffer.allocateDirect(64);
        FrameBuffer frame = FloatFrames.encode(n -> FrameBuffer.lease(direct, n, () -> { }), VALUES, 0,
                VALUES.length, TrafficKind.VALUES, Stage.FULL, 5);
        Frame view = FrameCodec.decode(frame.bytes());
        Frame copy = FrameCodec.copy(view);
        for (int i = 0; i < direct.capacity(); i++) {
            direct.put(i, (byte) 0x55); // the transport reuses the buffer
        }
        assertEquals(5, copy.step());
        assertEquals(view.wireLength(), copy.wireLength());
        assertArrayEquals(VALUES, FloatFrames.read(copy, VALUES.length));
    }

    @Test
    void shouldTakeOneReferenceForEveryPeerOfABroadcastBeforeTheFirstSend() {
        AtomicInteger recycled = new AtomicInteger();
        try (InProcessCluster cluster = new InProcessCluster(4)) {
            Transport zero = cluster.transport(0);
            FrameBuffer frame = FloatFrames.encode(n -> FrameBuffer.lease(ByteBuffer.allocateDirect(64), n,
                    recycled::incrementAndGet), VALUES, 0, VALUES.length, TrafficKind.VALUES, Stage.FULL, 2);
            StepLink.ringRank(0, zero).sendToAllBut(4, 0, frame);
            assertEquals(1, recycled.get(), "given back once, after the third send");
            for (int e = 1; e < 4; e++) {
                assertArrayEquals(VALUES, FloatFrames.read(cluster.transport(e).receive(0), VALUES.length));
            }
            FrameBuffer nobody = zero.allocate(4).seal(TrafficKind.VALUES, Stage.FULL, 2);
            StepLink.ringRank(0, zero).sendToAllBut(1, 0, nobody);
            assertEquals(0, nobody.references(), "a broadcast to nobody gives the reference back");
        }
    }
}
