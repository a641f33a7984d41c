package io.lgc4j.core.protocol;

import io.lgc4j.core.layout.ParamBlock;
import io.lgc4j.core.settings.SettingsException;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * How a low-rank compressor factors the compressible blocks of a layout, and where each block's factors sit in the
 * two payloads. A block is viewed, without moving an element, as a row-major matrix whose rows are output channels
 * ({@code d0 × (n / d0)} for three or more dimensions, {@code d1 × d0} for two). It is factored at rank
 * {@code r = min(rank, rows, cols)} when {@code (rows + cols) · r · minCompressionRate < rows · cols}; every other
 * block travels as plain values.
 *
 * <p>First payload: each factored block's P ({@code rows × r}, row-major), then the plain blocks' values; second:
 * each factored block's Q ({@code cols × r}, row-major); both in block order.
 *
 * @param entries    one per block, in block order
 * @param pLength    floats of all Ps
 * @param plainLength floats of the plain blocks
 * @param qLength    floats of all Qs
 */
public record LowRankPlan(List<Entry> entries, int pLength, int plainLength, int qLength) {

    /**
     * One block's place in the plan.
     *
     * @param block  the block
     * @param rows   rows of its matrix view
     * @param cols   columns of its matrix view
     * @param rank   the rank it is factored at, 0 when it travels plain
     * @param first  where its P (or, plain, its values) starts in the first payload
     * @param second where its Q starts in the second payload (-1 when plain)
     */
    public record Entry(ParamBlock block, int rows, int cols, int rank, int first, int second) {
        /** Whether the block is factored. */
        public boolean factored() {
            return rank > 0;
        }

        /** Fraction of its elements' bytes the block costs per step (its P and Q, or all of it). */
        public double density() {
            return factored() ? (double) (rows + cols) * rank / ((double) rows * cols) : 1.0;
        }
    }

    /** Copies the entries. */
    public LowRankPlan {
        entries = List.copyOf(entries);
    }

    /** Floats of one rank's first payload: every P, then the plain blocks. */
    public int firstLength() {
        return pLength + plainLength;
    }

    /** Floats of one rank's second payload: every Q. */
    public int secondLength() {
        return qLength;
    }

    /** The entry of block {@code b} (its index among the compressible blocks). */
    public Entry entry(int b) {
        return entries.get(b);
    }

    /**
     * Where blocks {@code from..to} (indices among the compressible blocks) sit in the payloads: a contiguous range of
     * each, because every section lists its blocks in block order. A range the blocks leave empty is {@code 0..0}.
     *
     * @param pFrom     first float of their Ps in the first payload
     * @param pTo       end of their Ps (exclusive)
     * @param plainFrom first float of their plain values in the first payload (at or after {@link #pLength})
     * @param plainTo   end of their plain values
     * @param qFrom     first float of their Qs in the second payload
     * @param qTo       end of their Qs
     */
    public record Span(int pFrom, int pTo, int plainFrom, int plainTo, int qFrom, int qTo) {
    }

    /**
     * The payload ranges of blocks {@code from..to}.
     *
     * @throws IndexOutOfBoundsException when the range is not within the plan's blocks
     */
    public Span span(int from, int to) {
        Objects.checkFromToIndex(from, to, entries.size());
        int[] p = {Integer.MAX_VALUE, 0};
        int[] plain = {Integer.MAX_VALUE, 0};
        int[] q = {Integer.MAX_VALUE, 0};
        for (int b = from; b < to; b++) {
            Entry e = entries.get(b);
            if (e.factored()) {
                widen(p, e.first(), e.rows() * e.rank());
                widen(q, e.second(), e.cols() * e.rank());
            } else {
                widen(plain, e.first(), e.block().length());
            }
        }
        return new Span(lo(p), p[1], lo(plain), plain[1], lo(q), q[1]);
    }

    private static void widen(int[] range, int at, int length) {
        range[0] = Math.min(range[0], at);
        range[1] = Math.max(range[1], at + length);
    }

    private static int lo(int[] range) {
        return range[0] == Integer.MAX_VALUE ? 0 : range[0];
    }

    /** Rows of {@code block}'s matrix view (see the class comment); 1 for a one-dimensional block. */
    public static int rows(ParamBlock block) {
        long[] shape = block.shape();
        if (block.length() == 0) {
            return 0;
        }
        if (shape.length == 2) {
            return (int) shape[1];
        }
        return shape.length == 0 ? 1 : (int) shape[0];
    }

    /**
     * The rank a {@code rows × cols} matrix view is factored at: {@code min(rank, rows, cols)} when both sides are
     * above 1 and {@code (rows + cols) · r · minCompressionRate < rows · cols}, else 0 (it travels plain).
     */
    public static int factoredRank(int rows, int cols, int rank, double minCompressionRate) {
        int r = Math.min(rank, Math.min(rows, cols));
        boolean saves = (double) (rows + cols) * r * minCompressionRate < (double) rows * cols;
        return rows > 1 && cols > 1 && saves ? r : 0;
    }

    /** The columns of {@code block}'s matrix view: its length over {@link #rows}. */
    public static int cols(ParamBlock block) {
        int rows = rows(block);
        return rows == 0 ? 0 : block.length() / rows;
    }

    /**
     * The plan for {@code blocks} at {@code rank}: each matrix factored at {@code min(rank, rows, cols)} when that
     * saves the bytes asked (PyTorch clamps the rank per tensor the same way).
     *
     * @throws SettingsException (key {@code rank}) when {@code rank} is larger than every block's matrix view (no
     *                           block could use it), or when no block is factored at all (PowerSGD would silently be
     *                           dense)
     */
    public static LowRankPlan of(List<ParamBlock> blocks, int rank, double minCompressionRate) {
        Entry[] byBlock = new Entry[blocks.size()];
        ParamBlock widest = null;
        int p = 0;
        int q = 0;
        for (int b = 0; b < blocks.size(); b++) {
            ParamBlock block = blocks.get(b);
            int rows = rows(block);
            int cols = cols(block);
            if (rows > 1 && cols > 1 && (widest == null || Math.min(rows, cols) > side(widest))) {
                widest = block;
            }
            int r = factoredRank(rows, cols, rank, minCompressionRate);
            if (r > 0) {
                byBlock[b] = new Entry(block, rows, cols, r, p, q);
                p += rows * r;
                q += cols * r;
            }
        }
        if (widest != null && rank > side(widest)) {
            throw new SettingsException("rank", "must be at most the smaller side of the largest matrix, "
                    + widest.qualifiedName() + " (" + rows(widest) + " × " + cols(widest) + "): at most "
                    + side(widest) + ", found " + rank);
        }
        if (p == 0) {
            throw new SettingsException("rank", "factors none of the blocks " + describe(blocks) + " at rank " + rank
                    + ": a rows × cols block is factored only when (rows + cols) · rank · minCompressionRate ("
                    + minCompressionRate + ") < rows · cols");
        }
        int at = p;
        for (int b = 0; b < blocks.size(); b++) {
            if (byBlock[b] == null) {
                ParamBlock block = blocks.get(b);
                byBlock[b] = new Entry(block, rows(block), cols(block), 0, at, -1);
                at += block.length();
            }
        }
        return new LowRankPlan(List.of(byBlock), p, at - p, q);
    }

    private static int side(ParamBlock block) {
        return Math.min(rows(block), cols(block));
    }

    private static String describe(List<ParamBlock> blocks) {
        List<String> out = new ArrayList<>();
        for (ParamBlock b : blocks) {
            out.add(b.qualifiedName() + " " + rows(b) + " × " + cols(b));
        }
        return out.toString();
    }
}
