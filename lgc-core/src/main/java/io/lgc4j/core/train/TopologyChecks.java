package io.lgc4j.core.train;

import io.lgc4j.core.layout.GradientLayout;
import io.lgc4j.core.layout.LayerPolicy;
import io.lgc4j.core.layout.ParamBlock;
import io.lgc4j.core.stage.StageSchedule;

import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * The checks an LGC topology makes in {@link Topology#check}, shared so that both LGC topologies fail the same way,
 * with the same {@link IllegalArgumentException} and message, at {@link DistributedTrainer.Builder#build()}:
 *
 * <pre>{@code
 * @Override
 * public void check(GradientLayout layout, StageSchedule stages) {
 *     TopologyChecks.requireLearnedBlock(layout);
 *     TopologyChecks.requireCompressedStage(stages);
 * }
 * }</pre>
 */
public final class TopologyChecks {

    /** How many blocks a message lists before it says how many more there are. */
    static final int LISTED_BLOCKS = 12;

    private TopologyChecks() {
    }

    /**
     * LGC compresses the {@link LayerPolicy#LEARNED} blocks through its autoencoder; a model without one has nothing
     * for the autoencoder to learn.
     *
     * @throws IllegalArgumentException when no block of {@code layout} is LEARNED, listing the model's blocks
     */
    public static void requireLearnedBlock(GradientLayout layout) {
        Objects.requireNonNull(layout, "layout");
        List<ParamBlock> blocks = layout.blocks();
        if (blocks.stream().anyMatch(b -> b.policy() == LayerPolicy.LEARNED)) {
            return;
        }
        String listed = blocks.stream().limit(LISTED_BLOCKS)
                .map(b -> b.qualifiedName() + " (" + b.policy() + ")").collect(Collectors.joining(", "));
        if (blocks.size() > LISTED_BLOCKS) {
            listed += ", ... (" + (blocks.size() - LISTED_BLOCKS) + " more)";
        }
        throw new IllegalArgumentException("LGC needs at least one LEARNED block (a layer between the first and the"
                + " last, or one a layerPolicy marks LEARNED); this model has " + blocks.size() + " block"
                + (blocks.size() == 1 ? "" : "s") + ": " + listed);
    }

    /**
     * LGC's autoencoder replaces the LEARNED values only in {@link io.lgc4j.core.stage.Stage#COMPRESSED}; a schedule
     * that never gets there trains the autoencoder for nothing and sends top-k values for ever.
     *
     * @throws IllegalArgumentException when {@code stages} never reaches COMPRESSED
     */
    public static void requireCompressedStage(StageSchedule stages) {
        Objects.requireNonNull(stages, "stages");
        boolean staysFull = stages.fullIterations() == Integer.MAX_VALUE;
        if (!staysFull && stages.topKIterations() != Integer.MAX_VALUE) {
            return;
        }
        boolean isDefault = stages.equals(StageSchedule.denseWarmup(0));
        throw new IllegalArgumentException("an LGC topology needs .stages(new StageSchedule(full, aeTraining)), both"
                + " counts finite — without it training never leaves " + (staysFull ? "FULL" : "TOP_K")
                + " (schedule in force: " + stages + (isDefault ? ", the default when .stages is not called" : "")
                + ")");
    }
}
