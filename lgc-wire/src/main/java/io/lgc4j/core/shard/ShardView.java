package io.lgc4j.core.shard;

import io.lgc4j.core.protocol.SparseSet;
import io.lgc4j.core.layout.ParamBlock;
import io.lgc4j.core.sparse.SparseVector;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * One shard's pieces of some blocks: every block cut at the shard's {@link FusionPlan} slices. A piece is a
 * {@link ParamBlock} whose offset is its place in the flattened vector (so {@code BlockRegion} and
 * {@code SparseSet.writeInto} use it as they use a block) and which remembers its parent block and where in the
 * parent it starts. A piece that covers its parent whole is the parent itself, so with one shard the view's blocks
 * are the blocks given and every frame built on them is the unsharded server's, byte for byte.
 *
 * <p>A rank's per-block supports and sparse sets are {@link #split} into the shard's pieces (indices rebased to the
 * piece); {@link #merge} puts the pieces of every shard back together.
 */
public final class ShardView {
    private final int shard;
    private final List<ParamBlock> parents;
    private final List<ParamBlock> pieces;
    private final int[] parent;
    private final int[] from;
    private final boolean identity;

    private ShardView(int shard, List<ParamBlock> parents, List<ParamBlock> pieces, int[] parent, int[] from) {
        this.shard = shard;
        this.parents = parents;
        this.pieces = pieces;
        this.parent = parent;
        this.from = from;
        boolean same = pieces.size() == parents.size();
        for (int i = 0; same && i < pieces.size(); i++) {
            same = pieces.get(i) == parents.get(i);
        }
        this.identity = same;
    }

    static ShardView of(int shard, List<FusionPlan.Slice> slices, List<ParamBlock> blocks) {
        List<ParamBlock> pieces = new ArrayList<>();
        List<Integer> parent = new ArrayList<>();
        List<Integer> from = new ArrayList<>();
        int first = 0; // slices and blocks both ascend: resume the slice scan where the last block left it
        for (int p = 0; p < blocks.size(); p++) {
            ParamBlock b = blocks.get(p);
            while (first < slices.size() && slices.get(first).end() <= b.offset()) {
                first++;
            }
            for (int i = first; i < slices.size() && slices.get(i).start() < b.end(); i++) {
                int start = Math.max(b.offset(), slices.get(i).start());
                int end = Math.min(b.end(), slices.get(i).end());
                if (end <= start) {
                    continue;
                }
                pieces.add(start == b.offset() && end == b.end() ? b : piece(b, start, end));
                parent.add(p);
                from.add(start - b.offset());
            }
        }
        return new ShardView(shard, List.copyOf(blocks), List.copyOf(pieces),
                parent.stream().mapToInt(Integer::intValue).toArray(),
                from.stream().mapToInt(Integer::intValue).toArray());
    }

    /** The blocks themselves, whole, as shard {@code shard}'s view: split and merge change nothing. */
    public static ShardView whole(int shard, List<ParamBlock> blocks) {
        int[] parent = new int[blocks.size()];
        for (int i = 0; i < parent.length; i++) {
            parent[i] = i;
        }
        return new ShardView(shard, List.copyOf(blocks), List.copyOf(blocks), parent, new int[blocks.size()]);
    }

    /** A piece {@code [start, end)} (flattened positions) of {@code b}, named {@code layer/param[a..b)}. */
    private static ParamBlock piece(ParamBlock b, int start, int end) {
        int a = start - b.offset();
        return new ParamBlock(b.index(), b.layerIndex(), b.layerName(),
                b.paramName() + "[" + a + ".." + (end - b.offset()) + ")", start, end - start,
                new long[] {end - start}, b.policy());
    }

    /** The shard this view belongs to. */
    public int shard() {
        return shard;
    }

    /** The pieces, in flattened order. */
    public List<ParamBlock> blocks() {
        return pieces;
    }

    /** The blocks the view was cut from, in their order. */
    public List<ParamBlock> parents() {
        return parents;
    }

    /** Whether every piece is a whole block, in the blocks' order (one shard): split and merge change nothing. */
    public boolean identity() {
        return identity;
    }

    /** Position among {@link #parents()} of piece {@code i}'s block. */
    public int parent(int i) {
        return parent[i];
    }

    /** Where piece {@code i} starts within its block. */
    public int from(int i) {
        return from[i];
    }

    /** Elements in the pieces. */
    public int length() {
        int n = 0;
        for (ParamBlock b : pieces) {
            n += b.length();
        }
        return n;
    }

    /**
     * Per piece, a bound from its parent's: {@code min(parentBound[parent], piece length)} (the most indices a rank
     * sends of a piece).
     */
    public int[] bounds(int[] parentBounds) {
        int[] out = new int[pieces.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = Math.min(parentBounds[parent[i]], pieces.get(i).length());
        }
        return out;
    }

    /** Per piece, the indices of its parent's {@code support} that fall in it, relative to the piece. */
    public int[][] split(int[][] support) {
        if (identity) {
            return support;
        }
        int[][] out = new int[pieces.size()][];
        for (int i = 0; i < out.length; i++) {
            int[] all = support[parent[i]];
            int lo = lowerBound(all, from[i]);
            int hi = lowerBound(all, from[i] + pieces.get(i).length());
            out[i] = new int[hi - lo];
            for (int j = lo; j < hi; j++) {
                out[i][j - lo] = all[j] - from[i];
            }
        }
        return out;
    }

    /** Per piece, the entries of its parent's sparse vector that fall in it, indices relative to the piece. */
    public SparseSet split(SparseSet set) {
        if (identity) {
            return set;
        }
        List<SparseVector> out = new ArrayList<>(pieces.size());
        for (int i = 0; i < pieces.size(); i++) {
            SparseVector v = set.blocks().get(parent[i]);
            int lo = lowerBound(v.indices(), from[i]);
            int hi = lowerBound(v.indices(), from[i] + pieces.get(i).length());
            int[] idx = new int[hi - lo];
            for (int j = lo; j < hi; j++) {
                idx[j - lo] = v.indices()[j] - from[i];
            }
            out.add(new SparseVector(pieces.get(i).length(), idx, Arrays.copyOfRange(v.values(), lo, hi)));
        }
        return new SparseSet(out);
    }

    /**
     * The parents' supports from every shard's pieces' supports: {@code perShard.get(s)} holds, per piece of
     * {@code views.get(s)}, ascending indices relative to the piece.
     */
    public static int[][] merge(List<ShardView> views, List<int[][]> perShard) {
        int blocks = views.get(0).parents.size();
        List<List<int[]>> parts = new ArrayList<>(blocks); // per block: {from, index...} pieces, sorted below
        for (int b = 0; b < blocks; b++) {
            parts.add(new ArrayList<>());
        }
        for (int s = 0; s < views.size(); s++) {
            ShardView v = views.get(s);
            int[][] support = perShard.get(s);
            for (int i = 0; i < v.pieces.size(); i++) {
                int[] rebased = new int[support[i].length];
                for (int j = 0; j < rebased.length; j++) {
                    rebased[j] = support[i][j] + v.from[i];
                }
                parts.get(v.parent[i]).add(rebased);
            }
        }
        int[][] out = new int[blocks][];
        for (int b = 0; b < blocks; b++) {
            List<int[]> ps = parts.get(b);
            ps.sort((x, y) -> Integer.compare(x.length == 0 ? Integer.MAX_VALUE : x[0],
                    y.length == 0 ? Integer.MAX_VALUE : y[0]));
            out[b] = ps.stream().flatMapToInt(Arrays::stream).toArray();
        }
        return out;
    }

    /** First position of {@code sorted} holding a value {@code >= key}. */
    private static int lowerBound(int[] sorted, int key) {
        int lo = 0;
        int hi = sorted.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (sorted[mid] < key) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    @Override
    public String toString() {
        return "shard " + shard + ": " + pieces;
    }
}
