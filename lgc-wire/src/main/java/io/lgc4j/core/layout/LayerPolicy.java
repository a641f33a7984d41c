package io.lgc4j.core.layout;

/** How the gradient of one parameter block travels (seeds/003, Section VI-A; ARCHITECTURE §4.5). */
public enum LayerPolicy {
    /** Always sent dense (the first layer; batch-norm running statistics). */
    DENSE,
    /** Top-k values and indices in every compressed stage, never through the autoencoder (the last layer). */
    TOP_K,
    /** Top-k in stage 2, through the autoencoder in stage 3 (every layer in between). */
    LEARNED
}
