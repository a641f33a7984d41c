/**
 * LGC's support: the compressor that every step lets a leader drawn from the seed choose one top-k support for all
 * ranks ({@link io.lgc4j.lgc.support.LgcSupportCompressor}), and the compact vector of the values on it that LGC-PS
 * and LGC-RAR code ({@link io.lgc4j.lgc.support.CompactLayout}).
 */
package io.lgc4j.lgc.support;
