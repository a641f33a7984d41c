package io.lgc4j.core.protocol;

import io.lgc4j.core.comm.TrafficKind;

import java.util.List;

/**
 * What a message of the core methods carries: the closed set of payload kinds the PS and ring exchanges send, each a
 * record that knows the
 * {@link TrafficKind} of its frames and how it encodes to and decodes from them (through the layout classes of this
 * package, so a record adds no copy to the encode path). The message table of each stage in
 * {@code docs/architecture.md} §3 is written in these kinds.
 *
 * <table>
 *   <caption>payload kinds</caption>
 *   <tr><th>record</th><th>frames (kind)</th><th>layout</th></tr>
 *   <tr><td>{@link Values}</td><td>VALUES</td><td>{@link FloatFrames}</td></tr>
 *   <tr><td>{@link Support}</td><td>INDICES</td><td>{@link SparseFrames}</td></tr>
 *   <tr><td>{@link SketchPayload}</td><td>VALUES, INDICES</td><td>{@link SketchFrames}</td></tr>
 * </table>
 *
 * <p>LGC's messages (its code, innovation, autoencoder weights, flags and samples) are the {@code lgc} module's
 * own family, {@code io.lgc4j.lgc.wire.LgcPayload}, written with the same layouts.
 *
 * <p>The hot paths of the dense exchange and the ring allreduce write the same layouts through the static encoders
 * ({@link FloatFrames#encode}, {@link FloatFrames#addInto}) straight from and into the gradient's arrays.
 *
 * <pre>{@code
 * end.send(clock, new Values(mean).encode(tag));
 * Values mean = Values.decode(end.receive(w, Values.KIND, tag), count);
 * }</pre>
 */
public sealed interface Payload permits Values, Support, SketchPayload {

    /** The kinds of this payload's frames, in the order they travel. */
    List<TrafficKind> kinds();
}
