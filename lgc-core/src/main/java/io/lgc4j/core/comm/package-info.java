/**
 * Communication SPI: versioned, CRC-checked wire frames ({@link io.lgc4j.core.comm.FrameCodec}), the
 * {@link io.lgc4j.core.comm.Transport} one endpoint uses to exchange them, the embedded
 * {@link io.lgc4j.core.comm.InProcessCluster}, collectives built on transports, and the
 * {@link io.lgc4j.core.comm.TrafficMeter} that counts every byte.
 */
package io.lgc4j.core.comm;
