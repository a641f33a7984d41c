package io.lgc4j.core.protocol;

import io.lgc4j.core.comm.TrafficKind;

import java.util.List;

/**
 * What a message carries: the closed set of payload kinds the exchanges send, each a record that knows the
 * {@link TrafficKind} of its frames and how it encodes to and decodes from them (through the layout classes of this
 * package, so a record adds no copy to the encode path). The message table of each stage in
 * {@code docs/architecture.md} §3 is written in these kinds.
 *
 * <table>
 *   <caption>payload kinds</caption>
 *   <tr><th>record</th><th>frames (kind)</th><th>layout</th></tr>
 *   <tr><td>{@link Values}</td><td>VALUES</td><td>{@link FloatFrames}</td></tr>
 *   <tr><td>{@link Support}</td><td>INDICES</td><td>{@link SparseFrames}</td></tr>
 *   <tr><td>{@link Code}</td><td>LATENT</td><td>{@link LgcFrames}</td></tr>
 *   <tr><td>{@link Innovation}</td><td>INNOVATION, INNOVATION</td><td>{@link LgcFrames}</td></tr>
 *   <tr><td>{@link SketchPayload}</td><td>VALUES, INDICES</td><td>{@link SketchFrames}</td></tr>
 *   <tr><td>{@link Weights}</td><td>AE_WEIGHTS</td><td>{@link WeightsDescriptor}</td></tr>
 *   <tr><td>{@link Flag}</td><td>CONTROL</td><td>{@link FlagFrames}</td></tr>
 *   <tr><td>{@link Sample}</td><td>CONTROL</td><td>{@link FloatFrames}</td></tr>
 *   <tr><td>{@link AeSample}</td><td>AE_SAMPLES</td><td>{@link FloatFrames}</td></tr>
 * </table>
 *
 * <p>The hot paths of the dense exchange and the ring allreduce write the same layouts through the static encoders
 * ({@link FloatFrames#encode}, {@link FloatFrames#addInto}) straight from and into the gradient's arrays.
 *
 * <pre>{@code
 * end.send(clock, new Code(latent, scale).encode(tag));
 * Code code = Code.decode(end.receive(w, Code.KIND, tag), latentSize);
 * }</pre>
 */
public sealed interface Payload
        permits Values, Support, Code, Innovation, SketchPayload, Weights, Flag, Sample, AeSample {

    /** The kinds of this payload's frames, in the order they travel. */
    List<TrafficKind> kinds();
}
