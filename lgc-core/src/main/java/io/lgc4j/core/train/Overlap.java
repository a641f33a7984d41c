package io.lgc4j.core.train;

import java.util.Arrays;
import java.util.Locale;

/**
 * What a rank's step overlaps ({@code training.overlap}, {@link DistributedTrainer.Builder#overlap}).
 *
 * <ul>
 *   <li>{@link #NONE} (default): compute, exchange, apply, in turn.</li>
 *   <li>{@link #DELAYED}: step t + 1's gradient is computed on a second thread while step t's is exchanged, at
 *       parameters without step t's mean (every gradient one step stale); the last mean stays in the checkpoint.
 *       Replicas stay bit-identical in every runtime and a resume is exact.</li>
 *   <li>{@link #PREDICTED}: {@link #DELAYED} with step t + 1's gradient taken at predicted parameters.</li>
 *   <li>{@link #BACKWARD}: the exchange starts on the last layers while the backward pass computes the first; the
 *       synchronous step's math (same bits except fp16 on the ring). A step that needs the whole gradient (a
 *       compressed one) runs as with {@link #NONE}.</li>
 * </ul>
 */
public enum Overlap {
    /** Compute, exchange, apply, in turn. */
    NONE,
    /** Step t + 1's gradient computed while step t's is exchanged; step t's mean applied one step late. */
    DELAYED,
    /**
     * {@link #DELAYED}, step t + 1's gradient taken at predicted parameters: those that hold step t − 1's mean
     * applied once more in place of step t's, which is not known yet (weight prediction, as SpecTrain and pipelined
     * backpropagation do against staleness; with momentum most of the step to come is known). The parameters go
     * back before step t's mean is applied, so every replica still applies only the means, in order.
     */
    PREDICTED,
    /** The exchange started on the last layers' gradient while the backward pass computes the first layers'. */
    BACKWARD;

    /** The bucket size of {@link #BACKWARD} unless set: pieces of at least 1 MiB of float32, whole layers. */
    public static final int DEFAULT_BUCKET_BYTES = 1 << 20;

    /** Whether a step's mean is applied one step late ({@link #DELAYED}, {@link #PREDICTED}). */
    public boolean delaysApplication() {
        return this == DELAYED || this == PREDICTED;
    }

    /** The name in a configuration: {@code none}, {@code delayed}, {@code predicted}. */
    public String configName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * The mode named {@code name} in a configuration.
     *
     * @throws IllegalArgumentException naming the allowed values when there is none of that name
     */
    public static Overlap parse(String name) {
        for (Overlap o : values()) {
            if (o.configName().equals(name)) {
                return o;
            }
        }
        throw new IllegalArgumentException("'" + name + "' is no overlap mode; allowed: "
                + Arrays.stream(values()).map(Overlap::configName).toList());
    }
}
