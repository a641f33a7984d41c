package io.lgc4j.core.train;

import java.util.Arrays;
import java.util.Locale;

/**
 * What a rank's step overlaps ({@code training.overlap}, {@link DistributedTrainer.Builder#overlap}).
 *
 * <ul>
 *   <li>{@link #NONE} (the default): compute the gradient, exchange it, apply the mean, in turn. Step t's gradient
 *       is taken at the parameters every earlier step's mean has updated.</li>
 *   <li>{@link #DELAYED}: one-step-delayed application. While the rank exchanges step t's gradient, a second thread
 *       already computes step t + 1's, at parameters that hold the means of steps 0..t − 1 only; the mean of step t
 *       is applied once step t + 1's gradient is ready. Step 0's gradient is taken at the initial parameters like
 *       step 1's. The last step's mean is not applied: it is kept in the run's last checkpoint (a resume that
 *       extends the run applies it where a longer run would), so the state after step t is the same however long
 *       the run. It changes the math (every gradient is one step stale) but not the exchange: each compressor's error
 *       feedback is updated when it compresses, in step order, on the rank's own thread. Replicas stay
 *       bit-identical and a run is the same bits in process and one process per rank; a checkpoint holds the mean
 *       not yet applied, so a resume is exact.</li>
 *   <li>{@link #PREDICTED}: {@link #DELAYED} with step t + 1's gradient taken at predicted parameters.</li>
 *   <li>{@link #BACKWARD}: the exchange of a step starts on the gradient's last layers while the backward pass still
 *       computes the first (PyTorch DDP's and Horovod's bucketed overlap), on a thread of the rank's own. The math
 *       is the synchronous step's: an exchange that can take the gradient in pieces (a dense step on the ring or the
 *       parameter server) gives the same bits wherever its encoding rounds element by element (fp32, bf16); fp16 on
 *       the ring rounds each piece with its own scale. A step whose exchange needs the whole gradient (a compressed
 *       one) runs as with {@link #NONE}.</li>
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
