package io.lgc4j.lgc.wire;

import io.lgc4j.core.comm.Frame;
import io.lgc4j.core.comm.FrameCodec;
import io.lgc4j.core.protocol.GoldenPayloads;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import static io.lgc4j.lgc.wire.LgcPayloadGoldenTest.CODEC;
import static io.lgc4j.lgc.wire.LgcPayloadGoldenTest.MU;
import static io.lgc4j.lgc.wire.LgcPayloadGoldenTest.TAG;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Every kind of the sealed {@link LgcPayload} family: its frames carry the kinds it declares, in order, with the step
 * and stage of the message, and decode back to what was encoded. A new kind fails
 * {@link #shouldCoverEveryPermittedKind} until it has a sample here.
 */
class LgcPayloadContractTest {

    /** One message of each kind, as {@code (payload, its encoded frames)}. */
    record Sent(LgcPayload payload, byte[][] frames) {
        @Override
        public String toString() {
            return payload.getClass().getSimpleName();
        }
    }

    static List<Sent> samples() {
        Code code = new Code(new float[] {0.5f, -1}, 2f);
        Innovation innovation = new Innovation(new int[] {0, 11}, new float[] {-1, 1});
        Weights weights = new Weights(new byte[] {'L', 'G', 'C', 'W', 1, 0, 1, 0});
        Flag flag = new Flag(false);
        Sample sample = new Sample(new float[] {9, 8});
        AeSample aeSample = new AeSample(new float[] {0.25f, 0.5f});
        return List.of(
                new Sent(code, new byte[][] {code.encode(TAG)}),
                new Sent(innovation, innovation.encode(MU, CODEC, TAG)),
                new Sent(weights, new byte[][] {weights.encode(TAG)}),
                new Sent(flag, new byte[][] {flag.encode(TAG)}),
                new Sent(sample, new byte[][] {sample.encode(TAG)}),
                new Sent(aeSample, new byte[][] {aeSample.encode(TAG)}));
    }

    @Test
    void shouldCoverEveryPermittedKind() {
        Set<Class<?>> permitted = Set.of(LgcPayload.class.getPermittedSubclasses());
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
        LgcPayload payload = sent.payload();
        if (payload instanceof Code p) {
            Code back = Code.decode(f[0], p.latent().length);
            assertArrayEquals(p.latent(), back.latent());
            assertEquals(p.scale(), back.scale());
        } else if (payload instanceof Innovation p) {
            Innovation back = Innovation.decode(f[0], f[1], CODEC, MU, p.positions().length);
            assertArrayEquals(p.positions(), back.positions());
            assertArrayEquals(p.values(), back.values());
        } else if (payload instanceof Weights p) {
            assertArrayEquals(p.form(), Weights.decode(f[0]).form());
        } else if (payload instanceof Flag p) {
            assertEquals(p.value(), Flag.decode(f[0], "flag").value());
        } else if (payload instanceof Sample p) {
            assertArrayEquals(p.values(), Sample.decode(f[0], p.values().length).values());
        } else if (payload instanceof AeSample p) {
            assertArrayEquals(p.compact(), AeSample.decode(f[0], p.compact().length).compact());
        } else {
            throw new AssertionError("no round trip written for " + payload.getClass());
        }
    }
}
