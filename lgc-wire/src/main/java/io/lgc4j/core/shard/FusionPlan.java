package io.lgc4j.core.shard;

import io.lgc4j.core.layout.GradientLayout;
import io.lgc4j.core.layout.ParamBlock;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;

/**
 * Herring's balanced fusion buffers (seeds/002, Section III): the flattened gradient is packed into buffers of
 * {@code bufferFloats} elements (the last one shorter) and every buffer is split evenly over the S server shards,
 * shard s taking elements {@code [start + ⌊s·len/S⌋, start + ⌊(s+1)·len/S⌋)} of a buffer of {@code len} elements at
 * {@code start}. Every shard therefore receives the same number of elements of every buffer, within one, whatever the
 * layers' sizes: a shard's total differs from any other's by at most the number of buffers.
 *
 * <p>The order of the elements in the buffers is the layout's order (the model's flattened parameters). Herring orders
 * them by when the backward pass produced them on worker 0 and broadcasts that order once, because its gradients
 * reach the buffers while the backward pass runs and their order can differ between workers. Here the exchange starts
 * once the whole gradient exists, so the order is the layout's on every process, derived from the model alone: no
 * broadcast is needed, and {@link #hash()} — exchanged at rendezvous — refuses a process whose plan (model, shards or
 * buffer size) is another.
 *
 * <pre>{@code
 * FusionPlan plan = FusionPlan.of(layout, 4, FusionPlan.DEFAULT_BUFFER_BYTES);
 * ShardView mine = plan.view(2, layout.compressibleBlocks());   // shard 2's pieces of the compressible blocks
 * }</pre>
 */
public final class FusionPlan {
    /** Default buffer size: 1 MiB of float32, 262,144 elements. */
    public static final int DEFAULT_BUFFER_BYTES = 1 << 20;
    /** Most shards a plan may have. */
    public static final int MAX_SHARDS = 1024;
    /** Bytes of one element in a buffer (float32). */
    public static final int ELEMENT_BYTES = Float.BYTES;

    /** How elements are placed on shards. */
    public enum Placement {
        /** Herring's balanced fusion buffers: every buffer split evenly over the shards. */
        BUFFERS,
        /**
         * The classic parameter server, for contrast: every layer whole on one shard, layers dealt round-robin in
         * layout order (TensorFlow's {@code replica_device_setter} deals variables the same way).
         */
        LAYERS,
        /**
         * Every parameter block split evenly over the shards, as if each block were a fusion buffer of its own: the
         * shards get an even share of every block, so a compressed step's DENSE blocks and each block's top-k entries
         * spread over the shards too (a small first layer lies in one buffer's first slice otherwise).
         */
        BLOCKS
    }

    private final GradientLayout layout;
    private final Placement placement;
    private final int shards;
    private final int bufferFloats;
    private final int buffers;
    private final List<List<Slice>> slices;
    private final long hash;

    /** A run of elements {@code [start, end)} of the flattened vector. */
    public record Slice(int start, int end) {
        /** Elements in the slice. */
        public int length() {
            return end - start;
        }
    }

    private FusionPlan(GradientLayout layout, Placement placement, int shards, int bufferFloats) {
        this.layout = layout;
        this.placement = placement;
        this.shards = shards;
        this.bufferFloats = bufferFloats;
        int n = layout.length();
        this.buffers = placement != Placement.BUFFERS || n == 0 ? 0
                : (int) ((n + (long) bufferFloats - 1) / bufferFloats);
        List<List<Slice>> all = new ArrayList<>(shards);
        for (int s = 0; s < shards; s++) {
            all.add(new ArrayList<>());
        }
        if (placement == Placement.LAYERS) {
            List<String> layers = layout.layerNames();
            for (ParamBlock b : layout.blocks()) {
                if (b.length() > 0) {
                    add(all.get(layers.indexOf(b.layerName()) % shards), b.offset(), b.end());
                }
            }
        } else if (placement == Placement.BLOCKS) {
            for (ParamBlock b : layout.blocks()) {
                split(all, b.offset(), b.length(), shards);
            }
        }
        for (int b = 0; b < buffers; b++) {
            int start = b * bufferFloats;
            split(all, start, Math.min(bufferFloats, n - start), shards);
        }
        this.slices = all.stream().map(List::copyOf).toList();
        this.hash = digest();
    }

    /** Splits {@code len} elements at {@code start} evenly over the shards' lists. */
    private static void split(List<List<Slice>> all, int start, int len, int shards) {
        for (int s = 0; s < shards; s++) {
            int from = start + (int) ((long) len * s / shards);
            int to = start + (int) ((long) len * (s + 1) / shards);
            if (to > from) {
                add(all.get(s), from, to);
            }
        }
    }

    /** Appends {@code [from, to)}, merged with the last slice when they touch (always, with one shard). */
    private static void add(List<Slice> list, int from, int to) {
        if (!list.isEmpty() && list.get(list.size() - 1).end() == from) {
            list.set(list.size() - 1, new Slice(list.get(list.size() - 1).start(), to));
        } else {
            list.add(new Slice(from, to));
        }
    }

    /**
     * The plan of {@code layout} over {@code shards} shards.
     *
     * @param bufferBytes a fusion buffer's size in bytes: a positive multiple of 4 (one float32 element)
     * @throws IllegalArgumentException naming the bad value and what is allowed
     */
    public static FusionPlan of(GradientLayout layout, int shards, int bufferBytes) {
        checkShards(shards);
        if (bufferBytes < ELEMENT_BYTES || bufferBytes % ELEMENT_BYTES != 0) {
            throw new IllegalArgumentException("a fusion buffer must be a positive multiple of " + ELEMENT_BYTES
                    + " bytes (float32 elements), found " + bufferBytes);
        }
        return new FusionPlan(layout, Placement.BUFFERS, shards, bufferBytes / ELEMENT_BYTES);
    }

    /**
     * The classic placement, for contrast ({@link Placement#LAYERS}): every layer whole on one of {@code shards}
     * shards, round-robin. Its shards' loads differ as the layers' sizes do.
     */
    public static FusionPlan byLayer(GradientLayout layout, int shards) {
        checkShards(shards);
        return new FusionPlan(layout, Placement.LAYERS, shards, 0);
    }

    /** Every block split evenly over {@code shards} shards ({@link Placement#BLOCKS}). */
    public static FusionPlan byBlock(GradientLayout layout, int shards) {
        checkShards(shards);
        return new FusionPlan(layout, Placement.BLOCKS, shards, 0);
    }

    /** How this plan places elements. */
    public Placement placement() {
        return placement;
    }

    private static void checkShards(int shards) {
        if (shards < 1 || shards > MAX_SHARDS) {
            throw new IllegalArgumentException("a parameter server needs 1 to " + MAX_SHARDS + " shards, found "
                    + shards);
        }
    }

    /** One shard holding everything: today's unsharded parameter server. */
    public static FusionPlan single(GradientLayout layout) {
        return of(layout, 1, DEFAULT_BUFFER_BYTES);
    }

    /** The layout the plan cuts. */
    public GradientLayout layout() {
        return layout;
    }

    /** S. */
    public int shards() {
        return shards;
    }

    /** Elements per fusion buffer (the last buffer may be shorter); 0 when placed by layer or block. */
    public int bufferFloats() {
        return bufferFloats;
    }

    /** Number of fusion buffers; 0 when placed by layer or block. */
    public int buffers() {
        return buffers;
    }

    /**
     * Shard {@code shard}'s slices in ascending order, adjacent ones merged: one per buffer (one per layer it holds
     * when placed by layer).
     */
    public List<Slice> slices(int shard) {
        return slices.get(checkShard(shard));
    }

    /** Elements shard {@code shard} owns. */
    public int shardLength(int shard) {
        int n = 0;
        for (Slice s : slices(shard)) {
            n += s.length();
        }
        return n;
    }

    /** Shard {@code shard}'s pieces of every block of the layout: what it receives of a dense gradient. */
    public ShardView view(int shard) {
        return view(shard, layout.blocks());
    }

    /**
     * Shard {@code shard}'s pieces of {@code blocks} (blocks of this plan's layout, in layout order): each block cut
     * at the shard's slices, a piece that is a whole block being that block itself.
     */
    public ShardView view(int shard, List<ParamBlock> blocks) {
        return ShardView.of(shard, slices(shard), blocks);
    }

    /** Every shard's view of {@code blocks}, by shard. */
    public List<ShardView> views(List<ParamBlock> blocks) {
        List<ShardView> out = new ArrayList<>(shards);
        for (int s = 0; s < shards; s++) {
            out.add(view(s, blocks));
        }
        return List.copyOf(out);
    }

    /**
     * A fingerprint of the plan: the first 8 bytes of SHA-256 over a version label, S, the buffer size and every
     * block's offset, length and policy. Two processes with equal hashes cut every frame the same way.
     */
    public long hash() {
        return hash;
    }

    private long digest() {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            sha.update(("LGC4J fusion plan v1" + (placement == Placement.LAYERS ? " by layer"
                    : placement == Placement.BLOCKS ? " by block" : "")).getBytes(StandardCharsets.UTF_8));
            ByteBuffer b = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN);
            sha.update(b.putInt(shards).putInt(bufferFloats).putInt(layout.length()).putInt(layout.blocks().size())
                    .array());
            for (ParamBlock block : layout.blocks()) {
                b.clear();
                sha.update(b.putInt(block.offset()).putInt(block.length()).putInt(block.policy().ordinal()).putInt(0)
                        .array());
            }
            return ByteBuffer.wrap(sha.digest()).order(ByteOrder.LITTLE_ENDIAN).getLong();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every Java platform", e);
        }
    }

    /**
     * For messages: {@code "fusion plan 0x1f2e…: 431,080 elements in 2 buffers of 262,144 over 4 shards"}.
     */
    public String describe() {
        if (placement == Placement.BLOCKS) {
            return String.format("block placement %s: %,d elements, every one of %d blocks split over %d shard%s",
                    hex(hash), layout.length(), layout.blocks().size(), shards, shards == 1 ? "" : "s");
        }
        if (placement == Placement.LAYERS) {
            return String.format("layer placement %s: %,d elements, %d layers dealt over %d shard%s", hex(hash),
                    layout.length(), layout.layerNames().size(), shards, shards == 1 ? "" : "s");
        }
        return String.format("fusion plan %s: %,d elements in %d buffer%s of %,d over %d shard%s", hex(hash),
                layout.length(), buffers, buffers == 1 ? "" : "s", bufferFloats, shards, shards == 1 ? "" : "s");
    }

    /** A hash as 16 hexadecimal digits. */
    public static String hex(long hash) {
        return String.format("0x%016x", hash);
    }

    private int checkShard(int shard) {
        if (shard < 0 || shard >= shards) {
            throw new IndexOutOfBoundsException("shard " + shard + " outside 0.." + (shards - 1));
        }
        return shard;
    }

    @Override
    public String toString() {
        return describe();
    }
}
