package io.lgc4j.core.train;

import io.lgc4j.core.comm.StepTag;
import io.lgc4j.core.compress.SharedSupportCompressor;
import io.lgc4j.core.layout.ParamBlock;
import io.lgc4j.core.stage.Stage;

import java.util.ArrayList;
import java.util.List;

/**
 * What every rank of a recorded run sent in each non-FULL step of a shared-support method (LGC's, under the leader's
 * support), worked out again from the gradients the ranks put in: each rank's memory compensated with its gradient,
 * the step's leader choosing the support, every rank taking its values on it. Holds for runs without
 * reconstruction feedback (which would change the memories by what was applied).
 *
 * <pre>{@code
 * SupportReplay.Step s = SupportReplay.of(new LgcSupportCompressor(0.05, 42, 0.1), blocks, recorded, k).get(12);
 * float[] leadersValues = s.values()[s.leader()];
 * }</pre>
 */
public final class SupportReplay {

    private SupportReplay() {
    }

    /**
     * One step as the ranks selected it.
     *
     * @param leader  the rank that chose the support
     * @param support per compressible block, the chosen indices
     * @param values  per rank, its values on the support, concatenated over the blocks
     */
    public record Step(int leader, int[][] support, float[][] values) {
    }

    /**
     * Every step of the run, in order; FULL steps, which select nothing, are null.
     *
     * @param compressor the method's selection, as the topology built it (ratio, seed, low-pass factor)
     * @param blocks     the compressible blocks
     * @param recorded   the run
     * @param workers    K
     */
    public static List<Step> of(SharedSupportCompressor compressor, List<ParamBlock> blocks, RecordingTopology recorded,
                                int workers) {
        List<SharedSupportCompressor.State> memories = new ArrayList<>();
        for (int r = 0; r < workers; r++) {
            memories.add(compressor.newRank(blocks));
        }
        List<Step> steps = new ArrayList<>();
        int count = recorded.exchanges(0).size();
        for (int s = 0; s < count; s++) {
            StepTag tag = recorded.exchanges(0).get(s).tag();
            if (tag.stage() == Stage.FULL) {
                steps.add(null);
                continue;
            }
            for (int r = 0; r < workers; r++) {
                memories.get(r).compensate(recorded.exchanges(r).get(s).in().clone(), tag.step());
            }
            int leader = compressor.leader(tag.step(), workers);
            int[][] support = memories.get(leader).chooseSupport(tag.step());
            float[][] values = new float[workers][];
            for (int r = 0; r < workers; r++) {
                values[r] = memories.get(r).take(support);
            }
            steps.add(new Step(leader, support, values));
        }
        return steps;
    }

    /** The values of a flattened {@code gradient} on {@code support}, concatenated over {@code blocks}. */
    public static float[] valuesAt(float[] gradient, List<ParamBlock> blocks, int[][] support) {
        int n = 0;
        for (int[] indices : support) {
            n += indices.length;
        }
        float[] values = new float[n];
        int at = 0;
        for (int b = 0; b < blocks.size(); b++) {
            for (int i : support[b]) {
                values[at++] = gradient[blocks.get(b).offset() + i];
            }
        }
        return values;
    }
}
