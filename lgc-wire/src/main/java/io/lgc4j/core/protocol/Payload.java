package io.lgc4j.core.protocol;

import io.lgc4j.core.comm.TrafficKind;

import java.util.List;

/**
 * What a message of the core methods carries: the closed set of payload kinds the PS and ring exchanges send, each a
 * record that knows its {@link TrafficKind} and encodes and decodes through this package's layouts without an extra
 * copy: {@link Values} (VALUES, {@link FloatFrames}), {@link Support} (INDICES, {@link SparseFrames}) and
 * {@link SketchPayload} (VALUES and INDICES, {@link SketchFrames}). LGC's messages are the {@code lgc} module's own
 * family; the hot dense paths use the static encoders ({@link FloatFrames#encode}, {@link FloatFrames#addInto}).
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
