/**
 * The protocol: what every frame's payload carries and how its bytes are laid out, in one package. Frames themselves
 * (header, CRC, transport, meter) stay in {@link io.lgc4j.core.comm}; the frame header is
 * {@link io.lgc4j.core.comm.FrameDescriptor}.
 *
 * <p>Layouts, each with a table of offsets and sizes in its class and named constants: {@link FloatFrames} (a run of
 * values: dense values, values on a support, ring chunks, LGC's samples; in the frame's {@link ValueEncoding} — float32,
 * fp16 with a per-frame scale, or bf16 — which the frame header's flags name), {@link SparseFrames} (a support: per block a
 * length and the index codec's bytes), {@link SketchFrames} (counters and
 * int64 bitmap words); LGC's own layouts (code, innovation, flag, autoencoder weights) are in the {@code lgc} module's
 * {@code io.lgc4j.lgc.wire}. Message kinds: the sealed {@link Payload} family, one record per kind of message the
 * exchanges send, each knowing its frames' {@link io.lgc4j.core.comm.TrafficKind}s.
 *
 * <p>Payloads have no version of their own: they change only with the frame header's
 * {@link io.lgc4j.core.comm.FrameDescriptor#VERSION} (the weight form, which is also stored, carries one). Each
 * layout is pinned by a golden file under {@code src/test/resources/golden/payload-*.hex}.
 */
package io.lgc4j.core.protocol;

