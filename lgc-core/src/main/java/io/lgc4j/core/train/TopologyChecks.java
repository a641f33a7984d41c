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
     * LGC's autoencoder replaces the LEARNED values only in {@link io.lgc4j.core.stage.Stage#COMPRESSED}; the
     * trainer's default schedule never gets there, so training would silently send top-k values for ever. A schedule
     * given explicitly is the user's choice, even one that stays in FULL or TOP_K: that is how a control run (top-k
     * on the leader's support throughout, the autoencoder never used) is made.
     *
     * @param stagesGiven whether {@code .stages(...)} was called
     * @throws IllegalArgumentException when no schedule was given and the default never reaches COMPRESSED
     */
    public static void requireCompressedStage(StageSchedule stages, boolean stagesGiven) {
        Objects.requireNonNull(stages, "stages");
        boolean staysFull = stages.fullIterations() == Integer.MAX_VALUE;
        if (stagesGiven || !staysFull && stages.topKIterations() != Integer.MAX_VALUE) {
            return;
        }
        throw new IllegalArgumentException("an LGC topology needs .stages(new StageSchedule(full, aeTraining)) —"
                + " without it training never leaves " + (staysFull ? "FULL" : "TOP_K") + " (the default when"
                + " .stages is not called: " + stages + "); a schedule that stays in FULL or TOP_K on purpose (a"
                + " control run) must be given with .stages too");
    }
}
