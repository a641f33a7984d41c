package io.lgc4j.experiments.config;

/**
 * The gradient compressor of the non-dense blocks ({@code compressor.type}).
 *
 * <pre>{@code
 * compressor:
 *   type: dgc
 * }</pre>
 */
public enum CompressorType {
    /** No compression: every step dense. */
    NONE,
    /** Sparse GD: top-k per block with error feedback. */
    TOPK,
    /** Deep Gradient Compression: momentum correction, masking, clipping, exponential sparsity warm-up. */
    DGC,
    /** ScaleCom: cyclic leader's top-k support shared by all ranks, low-pass filtered memory (summable). */
    SCALECOM,
    /** S2 Reducer's sparse sketch: count-sketch + group bitmap, summable (rides the ring allreduce). */
    S2,
    /** LGC: top-k on a shared leader's support, then the LEARNED blocks through the autoencoder (seeds/003). */
    LGC;

    /** @return the YAML spelling, e.g. {@code scalecom} */
    @Override
    public String toString() {
        return ConfigEnums.yamlName(this);
    }
}
