package io.lgc4j.core.layout;

import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.api.Model;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.nd4j.linalg.api.ndarray.INDArray;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * The flattened parameter vector of a DL4J model cut into its parameter blocks, each with a {@link LayerPolicy}.
 * The flattened gradient of {@code computeGradientAndScore()} is aligned with the parameters, so the same layout
 * cuts both.
 *
 * <p>Default policies (seeds/003, Section VI-A): the first layer with parameters {@link LayerPolicy#DENSE}, the
 * last {@link LayerPolicy#TOP_K}, every other {@link LayerPolicy#LEARNED}. Batch-norm running statistics
 * ({@code mean}, {@code var}, {@code log10stdev}) are not gradients but running-average updates DL4J carries in the
 * gradient vector; they stay {@link LayerPolicy#DENSE} (they are a few floats per channel).
 *
 * <pre>{@code
 * GradientLayout layout = GradientLayout.of(net)
 *         .withPolicy(block -> block.layerName().equals("dense") ? LayerPolicy.TOP_K : block.policy());
 * for (ParamBlock b : layout.blocks()) System.out.println(b);
 * }</pre>
 */
public final class GradientLayout {
    private static final Set<String> RUNNING_STATISTICS = Set.of("mean", "var", "log10stdev");

    private final List<ParamBlock> blocks;
    private final int length;

    private GradientLayout(List<ParamBlock> blocks, int length) {
        this.blocks = List.copyOf(blocks);
        this.length = length;
    }

    /**
     * Reads the layout of a {@link MultiLayerNetwork} or {@link ComputationGraph} (initialized).
     *
     * @throws IllegalArgumentException for another kind of model, or one whose parameters are not initialized
     */
    public static GradientLayout of(Model model) {
        INDArray flat = model.params();
        if (flat == null || model.numParams() == 0) {
            throw new IllegalArgumentException("the model has no parameters: call init() before reading its layout");
        }
        List<Layer> layers = new ArrayList<>();
        List<String> names = new ArrayList<>();
        if (model instanceof MultiLayerNetwork net) {
            Layer[] all = net.getLayers();
            for (int i = 0; i < all.length; i++) {
                String name = all[i].conf().getLayer().getLayerName();
                layers.add(all[i]);
                names.add(name == null || name.isBlank() ? "layer" + i : name);
            }
        } else if (model instanceof ComputationGraph graph) {
            for (Layer layer : graph.getLayers()) {
                layers.add(layer);
                names.add(layer.conf().getLayer().getLayerName());
            }
        } else {
            throw new IllegalArgumentException("expected a MultiLayerNetwork or a ComputationGraph, found "
                    + model.getClass().getName());
        }
        record Raw(String layer, String param, long offset, long length, long[] shape) {
        }
        List<Raw> raws = new ArrayList<>();
        for (int i = 0; i < layers.size(); i++) {
            for (Map.Entry<String, INDArray> e : layers.get(i).paramTable().entrySet()) {
                INDArray view = e.getValue();
                if (view.length() == 0) {
                    continue;
                }
                // A parameter array is a view into the flattened vector: its offset there is its place in the layout.
                raws.add(new Raw(names.get(i), e.getKey(), view.offset() - flat.offset(), view.length(), view.shape()));
            }
        }
        raws.sort(Comparator.comparingLong(Raw::offset));
        long expected = 0;
        for (Raw r : raws) {
            if (r.offset != expected) {
                throw new IllegalStateException("parameter " + r.layer + "/" + r.param + " starts at " + r.offset
                        + " in the flattened vector, expected " + expected + ": the parameters are not one"
                        + " contiguous flattened vector");
            }
            expected += r.length;
        }
        if (expected != model.numParams()) {
            throw new IllegalStateException("parameter blocks cover " + expected + " elements, the model has "
                    + model.numParams());
        }
        if (expected > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("models above 2^31 parameters are not supported, found " + expected);
        }
        List<String> layerOrder = new ArrayList<>();
        for (Raw r : raws) {
            if (!layerOrder.contains(r.layer)) {
                layerOrder.add(r.layer);
            }
        }
        List<ParamBlock> blocks = new ArrayList<>(raws.size());
        for (Raw r : raws) {
            int layerIndex = layerOrder.indexOf(r.layer);
            LayerPolicy policy;
            if (RUNNING_STATISTICS.contains(r.param) || layerIndex == 0) {
                policy = LayerPolicy.DENSE;
            } else if (layerIndex == layerOrder.size() - 1) {
                policy = LayerPolicy.TOP_K;
            } else {
                policy = LayerPolicy.LEARNED;
            }
            blocks.add(new ParamBlock(blocks.size(), layerIndex, r.layer, r.param, (int) r.offset, (int) r.length,
                    r.shape, policy));
        }
        return new GradientLayout(blocks, (int) expected);
    }

    /** A layout of explicit blocks (tests, or models read by other means); they must tile 0..length. */
    public static GradientLayout ofBlocks(List<ParamBlock> blocks) {
        int expected = 0;
        for (int i = 0; i < blocks.size(); i++) {
            ParamBlock b = blocks.get(i);
            if (b.offset() != expected || b.index() != i) {
                throw new IllegalArgumentException("block " + i + " (" + b.qualifiedName() + ") must have index " + i
                        + " and start at " + expected + ", found index " + b.index() + " and offset " + b.offset());
            }
            expected = b.end();
        }
        return new GradientLayout(blocks, expected);
    }

    /** A copy with each block's policy replaced by {@code rule(block)}. */
    public GradientLayout withPolicy(Function<ParamBlock, LayerPolicy> rule) {
        List<ParamBlock> changed = new ArrayList<>(blocks.size());
        for (ParamBlock b : blocks) {
            changed.add(b.withPolicy(rule.apply(b)));
        }
        return new GradientLayout(changed, length);
    }

    /** A copy where every block of the named layer gets {@code policy}. */
    public GradientLayout withLayerPolicy(String layerName, LayerPolicy policy) {
        if (blocks.stream().noneMatch(b -> b.layerName().equals(layerName))) {
            throw new IllegalArgumentException("no layer named '" + layerName + "'; layers with parameters: "
                    + layerNames());
        }
        return withPolicy(b -> b.layerName().equals(layerName) ? policy : b.policy());
    }

    /** All blocks in flattened order. */
    public List<ParamBlock> blocks() {
        return blocks;
    }

    /** The blocks under one policy, in flattened order. */
    public List<ParamBlock> blocks(LayerPolicy policy) {
        return blocks.stream().filter(b -> b.policy() == policy).toList();
    }

    /** The blocks a compressor handles (every policy but {@link LayerPolicy#DENSE}), in flattened order. */
    public List<ParamBlock> compressibleBlocks() {
        return blocks.stream().filter(b -> b.policy() != LayerPolicy.DENSE).toList();
    }

    /** Elements in the flattened vector. */
    public int length() {
        return length;
    }

    /** Elements under one policy. */
    public int length(LayerPolicy policy) {
        return blocks(policy).stream().mapToInt(ParamBlock::length).sum();
    }

    /** Names of the layers with parameters, in flattened order. */
    public List<String> layerNames() {
        List<String> names = new ArrayList<>();
        for (ParamBlock b : blocks) {
            if (!names.contains(b.layerName())) {
                names.add(b.layerName());
            }
        }
        return Collections.unmodifiableList(names);
    }

    /** The block holding flattened element {@code i}. */
    public ParamBlock blockAt(int i) {
        if (i < 0 || i >= length) {
            throw new IndexOutOfBoundsException("element " + i + " outside 0.." + (length - 1));
        }
        int lo = 0;
        int hi = blocks.size() - 1;
        while (lo < hi) {
            int mid = (lo + hi + 1) >>> 1;
            if (blocks.get(mid).offset() <= i) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        return blocks.get(lo);
    }

    @Override
    public String toString() {
        StringBuilder s = new StringBuilder("GradientLayout[" + length + " elements]");
        for (ParamBlock b : blocks) {
            s.append("\n  ").append(b);
        }
        return s.toString();
    }
}
