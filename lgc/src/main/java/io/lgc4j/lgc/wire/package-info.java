/**
 * LGC's messages on the wire: the {@link io.lgc4j.lgc.wire.LgcPayload} family (code, innovation, autoencoder
 * weights, flags, samples) and the layouts only LGC writes ({@link io.lgc4j.lgc.wire.LgcFrames},
 * {@link io.lgc4j.lgc.wire.FlagFrames}, {@link io.lgc4j.lgc.wire.WeightsDescriptor}), in the frames of
 * {@link io.lgc4j.core.comm}. Each layout is pinned by a golden file under {@code src/test/resources/golden/}.
 */
package io.lgc4j.lgc.wire;
