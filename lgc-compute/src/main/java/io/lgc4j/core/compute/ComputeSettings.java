package io.lgc4j.core.compute;

import org.deeplearning4j.nn.conf.CacheMode;

import java.util.Objects;

/**
 * How every replica of a run computes its forward and backward pass. {@code oneDnn} changes results only by
 * floating-point rounding (another summation order), {@code cacheMode} not at all; {@code threads} does change bits,
 * and is the same in every runtime ({@link Nd4jThreads}), whatever {@code OMP_NUM_THREADS} the JVM started with.
 *
 * <pre>{@code
 * DistributedTrainer.builder().model(net).compute(ComputeSettings.DEFAULT.withThreads(4))...  // 4 threads a rank
 * }</pre>
 *
 * @param oneDnn    build convolution, pooling and batch-norm layers with DL4J's oneDNN helpers ({@link LayerHelpers});
 *                  where ND4J's native library lacks oneDNN the layers fall back to DL4J's own path
 * @param cacheMode what a layer keeps from its forward pass for its backward pass; {@link CacheMode#HOST} keeps a
 *                  convolution's {@code im2col} buffer, {@link CacheMode#NONE} recomputes it
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
