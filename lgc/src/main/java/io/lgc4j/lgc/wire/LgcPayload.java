package io.lgc4j.lgc.wire;

import io.lgc4j.core.comm.TrafficKind;

import java.util.List;

/**
 * The closed set of payload kinds LGC-PS and LGC-RAR send besides the core's
 * ({@link io.lgc4j.core.protocol.Payload}), each a record that knows its frames' {@link TrafficKind}s and how it
 * encodes to and decodes from them: {@link Code} (LATENT), {@link Innovation} (INNOVATION, INNOVATION), both laid out
 * in {@link LgcFrames}; {@link Weights} (AE_WEIGHTS, {@link WeightsDescriptor}); {@link Flag} (CONTROL,
 * {@link FlagFrames}); {@link Sample} (CONTROL) and {@link AeSample} (AE_SAMPLES), both {@code FloatFrames}.
 *
 * <pre>{@code
 * end.send(clock, new Code(latent, scale).encode(tag));
 * Code code = Code.decode(end.receive(w, Code.KIND, tag), latentSize);
 * }</pre>
 */
public sealed interface LgcPayload permits Code, Innovation, Weights, Flag, Sample, AeSample {

    /** The kinds of this payload's frames, in the order they travel. */
    List<TrafficKind> kinds();
}
