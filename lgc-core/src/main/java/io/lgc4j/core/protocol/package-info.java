/**
 * The protocol: the layout of every payload a frame carries, and the code that writes and reads it. Frames
 * themselves (header, CRC, transport, meter) stay in {@link io.lgc4j.core.comm}.
 */
package io.lgc4j.core.protocol;
