package io.lgc4j.lgc.wire;

import io.lgc4j.core.comm.TrafficKind;

import java.util.List;

/**
 * What an LGC message carries: the closed set of payload kinds LGC-PS and LGC-RAR send besides the core's
 * ({@link io.lgc4j.core.protocol.Payload}), each a record that knows its frames' {@link TrafficKind}s and how it
 * encodes to and decodes from them.
 *
 * <table>
 *   <caption>LGC's payload kinds</caption>
 *   <tr><th>record</th><th>frames (kind)</th><th>layout</th></tr>
 *   <tr><td>{@link Code}</td><td>LATENT</td><td>{@link LgcFrames}</td></tr>
 *   <tr><td>{@link Innovation}</td><td>INNOVATION, INNOVATION</td><td>{@link LgcFrames}</td></tr>
 *   <tr><td>{@link Weights}</td><td>AE_WEIGHTS</td><td>{@link WeightsDescriptor}</td></tr>
 *   <tr><td>{@link Flag}</td><td>CONTROL</td><td>{@link FlagFrames}</td></tr>
 *   <tr><td>{@link Sample}</td><td>CONTROL</td><td>{@code FloatFrames}</td></tr>
 *   <tr><td>{@link AeSample}</td><td>AE_SAMPLES</td><td>{@code FloatFrames}</td></tr>
 * </table>
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
