/**
 * The compressor SPI (GRACE's shape: compensate → compress → update memory; only the payload crosses the wire) and
 * the plain compressors: Sparse GD (top-k with error feedback), DGC, ScaleCom, random-k, S2's sketch, and LGC's
 * support selection. How a compressor's payloads can be aggregated is part of its type:
 * {@link io.lgc4j.core.compress.GatherCompressor} payloads are per-rank sparse sets that must be gathered;
 * {@link io.lgc4j.core.compress.SharedSupportCompressor} payloads are values on one support every rank uses, so they
 * sum element-wise and can ride a ring allreduce (a leader's support travels as indices; a
 * {@link io.lgc4j.core.compress.SeededSupportCompressor}'s is drawn by every rank and never does);
 * {@link io.lgc4j.core.compress.SketchCompressor} payloads are sketches that sum. Each compressor sends per block the
 * fraction {@link io.lgc4j.core.compress.Compressor#density} gives it: its {@code ratio}, or for a LEARNED block its
 * {@code learnedRatio} where it has one (topk, dgc, scalecom, randomk). Each compressor describes itself by a
 * settings record ({@code DgcCompressor.Settings}, ..., {@link io.lgc4j.core.compress.Compressor#settings()}) and
 * registers a nested {@code Provider} with the registry ({@code io.lgc4j.core.method}) so that configurations can
 * name it. Every rank state's error-feedback memory is one package-private {@code ErrorFeedback}: compensate, take
 * what is sent, keep the half-precision rounding, filter (low-pass), save and restore.
 */
package io.lgc4j.core.compress;
