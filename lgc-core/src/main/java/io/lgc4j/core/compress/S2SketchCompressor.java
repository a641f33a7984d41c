package io.lgc4j.core.compress;

import io.lgc4j.core.checkpoint.CheckpointException;
import io.lgc4j.core.checkpoint.CheckpointPart;
import io.lgc4j.core.checkpoint.Persistent.Regrouping;
import io.lgc4j.core.layout.ParamBlock;
import io.lgc4j.core.protocol.Sketch;
import io.lgc4j.core.protocol.SparseSet;
import io.lgc4j.core.settings.Require;
import io.lgc4j.core.settings.SettingsException;
import io.lgc4j.core.sparse.SparseVector;
import io.lgc4j.core.sparse.TopK;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * S2 Reducer's sparse sketch (Ge et al.): each rank selects the exact top {@code ratio} of each compensated block (as
 * {@link TopKCompressor}) and sends a count-sketch of the selection plus a bitmap of the groups that hold one.
 * Sketches add element-wise and bitmaps OR, so they ride a ring allreduce; the residual keeps exactly what was not
 * selected, and the sketch error is not fed back. Buckets and signs are SplitMix64 hashes of (seed, row, block,
 * element): the same on every rank with the same seed.
 *
 * <p>Per block {@code b}: {@code rows × max(1, ceil(columnsPerSelected · k_b))} float counters, row-major, and
 * {@code ceil(length_b / groupSize)} bitmap bits from a fresh 64-bit word, least significant first ({@link Sketch});
 * {@link #payloadBytes} gives the size. Decompression ({@code S2Decoder}) divides by {@code workers}.
 *
 * <pre>{@code
 * SketchCompressor.State rank = s2.newRank(layout.blocks(LayerPolicy.LEARNED), sharedSeed);
 * Sketch sum = ringAllReduce(rank.compress(gradient, step));         // counters summed, bitmaps OR-ed
 * SparseSet mean = rank.decompress(sum, workers, step);             // estimated mean of the ranks' selections
 * }</pre>
 */
public final class S2SketchCompressor implements SketchCompressor {

    /**
     * The settings of {@code compressor: {type: s2}}.
     *
     * @param ratio  fraction of each block selected per step, in (0, 1]
     * @param sketch the sketch's shape ({@code compressor.sketch})
     */
    public record Settings(double ratio, Shape sketch) {
        /** Checks the ratio; the shape checked itself. */
        public Settings {
            CompressorKeys.requireRatio(ratio);
            SettingsException.required(sketch, "sketch");
        }
    }

    /**
     * The shape of the count-sketch and the bitmap.
     *
     * @param rows               count-sketch rows, odd and {@code >= 1}: 3 or 5 (the median needs an odd count, and
     *                           peeling needs at least 3; one row is for analysis only)
     * @param columnsPerSelected columns per selected entry of a block, finite and {@code > 0} (4.0, say)
     * @param groupSize          elements per bitmap bit, {@code >= 1} (8 or 16)
     */
    public record Shape(int rows, double columnsPerSelected, int groupSize) {
        /** The default shape: 5 rows decode the K = 4 mean almost exactly where 3 leave a 0.24–0.61 relative error. */
        public static final Shape DEFAULT = new Shape(5, 4.0, 8);

        /** Checks every component, naming the first that is out of range. */
        public Shape {
            Require.atLeast("rows", rows, 1);
            SettingsException.require(rows % 2 != 0, "rows", "must be odd, found " + rows);
            Require.positive("columnsPerSelected", columnsPerSelected);
            Require.atLeast("groupSize", groupSize, 1);
        }
    }

    /** Registers {@code s2} (META-INF/services). */
    public static final class Provider implements CompressorProvider<Settings> {
        @Override
        public String type() {
            return "s2";
        }

        @Override
        public Class<Settings> settingsType() {
            return Settings.class;
        }

        @Override
        public Optional<Compressor> create(Settings settings, long seed) {
            return Optional.of(new S2SketchCompressor(settings));
        }
    }

    private final Settings settings;
    private final double ratio;
    private final int rows;
    private final double columnsPerSelected;
    private final int groupSize;

    /**
     * @param ratio              fraction of each block selected per step, in (0, 1]
     * @param rows               count-sketch rows, odd and {@code >= 1}: 3 or 5 (the median needs an odd count, and
     *                           peeling needs at least 3; one row is for analysis only)
     * @param columnsPerSelected columns per selected entry of a block, {@code > 0} (4.0, say)
     * @param groupSize          elements per bitmap bit, {@code >= 1} (8 or 16)
     */
    public S2SketchCompressor(double ratio, int rows, double columnsPerSelected, int groupSize) {
        this(settings(ratio, rows, columnsPerSelected, groupSize));
    }

    /** @param settings ratio and sketch shape */
    public S2SketchCompressor(Settings settings) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.ratio = settings.ratio();
        this.rows = settings.sketch().rows();
        this.columnsPerSelected = settings.sketch().columnsPerSelected();
        this.groupSize = settings.sketch().groupSize();
    }

    /** The ratio is checked before the shape, as the arguments are listed. */
    private static Settings settings(double ratio, int rows, double columnsPerSelected, int groupSize) {
        CompressorKeys.requireRatio(ratio);
        return new Settings(ratio, new Shape(rows, columnsPerSelected, groupSize));
    }

    @Override
    public String name() {
        return "s2";
    }

    @Override
    public Settings settings() {
        return settings;
    }

    @Override
    public String toString() {
        return "s2(ratio=" + ratio + ", rows=" + rows + ", columnsPerSelected=" + columnsPerSelected
                + ", groupSize=" + groupSize + ")";
    }

    @Override
    public double density(int step, ParamBlock block) {
        return ratio;
    }

    /** Bytes of one rank's sketch for {@code blocks}: 4 per counter plus 8 per bitmap word. */
    public long payloadBytes(List<ParamBlock> blocks) {
        S2SketchLayout layout = layout(blocks);
        return 4L * layout.counterLength() + 8L * layout.bitmapWords();
    }

    @Override
    public State newRank(List<ParamBlock> blocks, long seed) {
        return new RankState(countSketch(blocks, seed));
    }

    /** The shape of this compressor's sketches for {@code blocks}. */
    S2SketchLayout layout(List<ParamBlock> blocks) {
        return new S2SketchLayout(blocks, ratio, rows, columnsPerSelected, groupSize);
    }

    /** The hashes a rank of {@code blocks} and {@code seed} uses (for tests: reference sketches and raw estimates). */
    S2CountSketch countSketch(List<ParamBlock> blocks, long seed) {
        return new S2CountSketch(layout(blocks), seed);
    }

    private static final class RankState implements State {
        private final S2CountSketch sketch;
        private final S2SketchLayout layout;
        private final Region region;
        private final ErrorFeedback memory;
        private final TopK topK = new TopK();
        private final S2Decoder decoder;
        private int[] selected = new int[0];

        RankState(S2CountSketch sketch) {
            this.sketch = sketch;
            this.decoder = new S2Decoder(sketch);
            this.layout = sketch.layout();
            this.region = layout.region();
            this.memory = ErrorFeedback.inPlace(region, "memory");
        }

        /** The error-feedback memory, region coordinates; the sketch and the selection are the step's own. */
        @Override
        public void save(CheckpointPart.Builder part, String prefix) {
            memory.save(part, prefix);
        }


        @Override

        public Regrouping regrouping(String prefix) {

            return memory.regrouping(prefix);

        }

        @Override
        public void restore(CheckpointPart part, String prefix) throws CheckpointException {
            memory.restore(part, prefix);
        }

        @Override
        public Sketch compress(float[] gradient, int step) {
            Sketch out = layout.emptySketch();
            for (int b = 0; b < region.blockCount(); b++) {
                ParamBlock block = region.block(b);
                int start = region.start(b);
                memory.compensate(b, gradient);
                int k = layout.selected(b);
                if (selected.length < k) {
                    selected = new int[k];
                }
                int count = topK.select(memory.compensated(), start, start + block.length(), k, selected);
                SparseVector taken = memory.take(b, selected, count); // compensated − selected stays, exactly
                for (int j = 0; j < count; j++) {
                    sketch.add(b, taken.indices()[j], taken.values()[j], out.counters(), out.bitmap());
                }
            }
            return out;
        }

        @Override
        public SparseSet decompress(Sketch sum, int workers, int step) {
            if (workers < 1) {
                throw new IllegalArgumentException("workers must be >= 1, found " + workers);
            }
            layout.requireShape(sum);
            List<SparseVector> out = new ArrayList<>(region.blockCount());
            for (int b = 0; b < region.blockCount(); b++) {
                out.add(decoder.decode(sum, b, workers));
            }
            return new SparseSet(out);
        }

        @Override
        public float[] residual() {
            return memory.residual();
        }

        @Override
        public boolean absorb(float[] residual) {
            memory.absorb(residual);
            return true;
        }
    }
}
