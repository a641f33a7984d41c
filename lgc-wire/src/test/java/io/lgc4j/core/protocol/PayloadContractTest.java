package io.lgc4j.core.protocol;

import io.lgc4j.core.comm.Frame;
import io.lgc4j.core.comm.FrameCodec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import static io.lgc4j.core.protocol.PayloadGoldenTest.BLOCKS;
import static io.lgc4j.core.protocol.PayloadGoldenTest.CODEC;
import static io.lgc4j.core.protocol.PayloadGoldenTest.TAG;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Every kind of the sealed {@link Payload} family (LGC's: {@code LgcPayloadContractTest}): its frames carry the kinds it declares, in order, with the step
 * and stage of the message, and decode back to what was encoded. A new kind fails
 * {@link #shouldCoverEveryPermittedKind} until it has a sample here.
 */
class PayloadContractTest {

    /** One message of each kind, as {@code (payload, its encoded frames)}. */
    record Sent(Payload payload, byte[][] frames) {
        @Override
        public String toString() {
            return payload.getClass().getSimpleName();
        }
    }

    static List<Sent> samples() {
        Values values = new Values(new float[] {1, 2, 3, 0.5f, -0.25f});
        Support support = new Support(new int[][] {{3, 500, 999}, {7}});
        SketchPayload sketch = new SketchPayload(new Sketch(new float[] {1, 2}, new long[] {5L}));
        return List.of(
                new Sent(values, new byte[][] {values.encode(TAG)}),
                new Sent(support, new byte[][] {support.encode(BLOCKS, CODEC, TAG)}),
                new Sent(sketch, sketch.encode(TAG)));
    }

    @Test
    void shouldCoverEveryPermittedKind() {
        Set<Class<?>> permitted = Set.of(Payload.class.getPermittedSubclasses());
        Set<Class<?>> sampled = samples().stream().map(s -> s.payload().getClass()).collect(Collectors.toSet());
        assertEquals(permitted, sampled);
    }

    @ParameterizedTest
    @MethodSource("samples")
    void shouldSealOneFrameOfEachDeclaredKindInOrder(Sent sent) {
        GoldenPayloads.assertSealedInOrder(sent.payload().kinds(), sent.frames(), TAG);
    }

    @ParameterizedTest
    @MethodSource("samples")
    void shouldDecodeWhatItEncoded(Sent sent) {
        Frame[] f = Arrays.stream(sent.frames()).map(FrameCodec::decode).toArray(Frame[]::new);
        Payload payload = sent.payload();
        if (payload instanceof Values p) {
            assertArrayEquals(p.values(), Values.decode(f[0], p.values().length).values());
        } else if (payload instanceof Support p) {
            assertArrayEquals(p.indices(), Support.decode(f[0], BLOCKS, CODEC, new int[] {3, 1}).indices());
        } else if (payload instanceof SketchPayload p) {
            Sketch back = SketchPayload.decode(f[0], f[1], 2, 1).sketch();
            assertArrayEquals(p.sketch().counters(), back.counters());
            assertArrayEquals(p.sketch().bitmap(), back.bitmap());
        } else {
            throw new AssertionError("no round trip written for " + payload.getClass());
        }
    }
}
