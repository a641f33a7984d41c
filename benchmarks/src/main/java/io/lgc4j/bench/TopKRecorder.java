package io.lgc4j.bench;

import io.lgc4j.core.compute.ComputeSettings;
import io.lgc4j.core.layout.GradientLayout;
import io.lgc4j.core.layout.LayerPolicy;
import io.lgc4j.core.layout.ParamBlock;
import io.lgc4j.core.sparse.TopK;
import io.lgc4j.core.train.ReplicaModel;
import io.lgc4j.data.LabeledImages;
import io.lgc4j.zoo.ModelZoo;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * Records real top-k index sets: trains the small CNN on Fashion-MNIST (one model, batch {@code batch}, the
 * model's own updater on the dense gradient) and, every step, selects the top {@code ratio} of the largest LEARNED
 * block of its error-feedback accumulator (residual + gradient), exactly as Sparse GD would, keeping the indices.
 *
 * <pre>{@code
 * TopKRecorder.Recording r = TopKRecorder.record(train, 100, 128, 0.001, 42);
 * CodecBenchmark.run(System.out, r.indexSets(), r.length());
 * }</pre>
 */
public final class TopKRecorder {

    private TopKRecorder() {
    }

    /**
     * The recorded sets.
     *
     * @param block     the block they index
     * @param length    the block's length n
     * @param indexSets one ascending set per step
     */
    public record Recording(String block, int length, List<int[]> indexSets) {
    }

    /** Trains {@code steps} steps on {@code train} and records one top-k set per step. */
    public static Recording record(LabeledImages train, int steps, int batch, double ratio, long seed) {
        ReplicaModel model = ReplicaModel.wrap(ModelZoo.smallCnn(seed, ModelZoo.defaultUpdater()))
                .copy(ComputeSettings.DEFAULT);
        GradientLayout layout = GradientLayout.of(model.model());
        ParamBlock block = layout.blocks(LayerPolicy.LEARNED).stream()
                .max(Comparator.comparingInt(ParamBlock::length))
                .orElseThrow(() -> new IllegalStateException("the small CNN has no LEARNED block"));
        float[] residual = new float[block.length()];
        int k = TopK.countFor(block.length(), ratio);
        int[] picked = new int[k];
        TopK topK = new TopK();
        INDArray features = train.toDataSet().getFeatures();
        INDArray labels = train.toDataSet().getLabels();
        List<int[]> sets = new ArrayList<>(steps);
        int examples = train.size();
        for (int step = 0; step < steps; step++) {
            int[] rows = new int[batch];
            for (int i = 0; i < batch; i++) {
                rows[i] = (step * batch + i) % examples;
            }
            model.computeGradient(Nd4j.pullRows(features, 1, rows), Nd4j.pullRows(labels, 1, rows));
            float[] gradient = model.gradient().toFloatVector();
            for (int i = 0; i < residual.length; i++) {
                residual[i] += gradient[block.offset() + i];
            }
            int count = topK.select(residual, 0, residual.length, k, picked);
            int[] set = Arrays.copyOf(picked, count);
            for (int i : set) {
                residual[i] = 0f;
            }
            sets.add(set);
            model.applyGradient(gradient, batch);
        }
        return new Recording(block.qualifiedName(), block.length(), sets);
    }
}
