/**
 * Communication SPI: versioned, CRC-checked wire frames ({@link io.lgc4j.core.comm.FrameCodec}, laid out by
 * {@link io.lgc4j.core.comm.FrameDescriptor}), the {@link io.lgc4j.core.comm.Transport} one endpoint uses to exchange
 * them, the embedded {@link io.lgc4j.core.comm.InProcessCluster}, and the {@link io.lgc4j.core.comm.TrafficMeter} that
 * counts every byte. What a frame's payload holds is the protocol's business: {@link io.lgc4j.core.protocol}.
 */
package io.lgc4j.core.comm;
