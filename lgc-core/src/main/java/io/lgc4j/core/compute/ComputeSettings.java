package io.lgc4j.core.compute;

import org.deeplearning4j.nn.conf.CacheMode;

import java.util.Objects;

/**
 * How every replica of a run computes its forward and backward pass. Neither of the first two settings changes what
 * a step computes beyond floating-point rounding: oneDNN's kernels sum in another order than DL4J's {@code im2col}
 * path (gradients agree to float tolerance, not bit for bit), and the cache mode changes only what is kept between
 * the forward and the backward pass (bit for bit the same).
 *
 * <pre>{@code
 * DistributedTrainer.builder().model(net).compute(ComputeSettings.DEFAULT)...    // the default: oneDNN, cache HOST
 * DistributedTrainer.builder().model(net).compute(ComputeSettings.BUILT_IN)...   // DL4J's own path, as before
 * DistributedTrainer.builder().model(net).compute(ComputeSettings.DEFAULT.withThreads(4))...  // 4 threads a rank
 * }</pre>
 *
 * <p>The thread count does change bits: oneDNN's convolutions and batch normalization split their sums over threads.
 * It is the same in every runtime ({@link Nd4jThreads}): one thread per rank unless asked, whatever
 * {@code OMP_NUM_THREADS} the JVM started with.
 *
 * @param oneDnn    build every replica's convolution, pooling and batch-norm layers with DL4J's oneDNN helpers
 *                  ({@link LayerHelpers}); they run only where ND4J's native library has oneDNN (the
 *                  {@code *-onednn*} classifiers, LGC4J's default), elsewhere the layers fall back to DL4J's own path
 * @param cacheMode what a layer keeps from its forward pass for its backward pass; {@link CacheMode#HOST} keeps a
 *                  convolution's {@code im2col} buffer instead of recomputing it ({@link CacheMode#NONE}, DL4J's
 *                  default). Measured by {@code lgc bench dense} (docs/results/bench/compute.md), LeNet-5's forward +
 *                  backward at batch 32: 146.6 → 95.9 ms without helpers, 41.2 → 35.6 ms with them
 * @param threads   the OpenMP threads every rank's operations run with, at least 1 (default 1); at most the threads
 *                  of ND4J's pool ({@link Nd4jThreads#use})
 */
public record ComputeSettings(boolean oneDnn, CacheMode cacheMode, int threads) {

    /** The fast path, LGC4J's default: oneDNN helpers on, {@link CacheMode#HOST}. */
    public static final ComputeSettings DEFAULT = new ComputeSettings(true, CacheMode.HOST);

    /** DL4J 1.0.0-M2.1's own defaults, what LGC4J ran before the fast path: no helpers, {@link CacheMode#NONE}. */
    public static final ComputeSettings BUILT_IN = new ComputeSettings(false, CacheMode.NONE);

    /**
     * @param oneDnn    whether replicas get oneDNN helpers
     * @param cacheMode the layers' cache mode
     * @throws NullPointerException if {@code cacheMode} is null
     * @throws IllegalArgumentException if {@code threads} is below 1
     */
    public ComputeSettings {
        Objects.requireNonNull(cacheMode, "cacheMode");
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be at least 1, found " + threads);
        }
    }

    /** One thread per rank. */
    public ComputeSettings(boolean oneDnn, CacheMode cacheMode) {
        this(oneDnn, cacheMode, 1);
    }

    /** @return these settings with {@code threads} OpenMP threads per rank */
    public ComputeSettings withThreads(int threads) {
        return new ComputeSettings(oneDnn, cacheMode, threads);
    }
}
