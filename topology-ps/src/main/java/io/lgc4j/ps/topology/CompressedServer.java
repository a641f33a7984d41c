package io.lgc4j.ps.topology;

import io.lgc4j.core.codec.IndexCodec;
import io.lgc4j.core.comm.Frame;
import io.lgc4j.core.comm.TrafficKind;
import io.lgc4j.core.compress.Compressor;
import io.lgc4j.core.compress.LowRankCompressor;
import io.lgc4j.core.protocol.LowRankPlan;
import io.lgc4j.core.compress.SeededSupportCompressor;
import io.lgc4j.core.compress.SharedSupportCompressor;
import io.lgc4j.core.protocol.Sketch;
import io.lgc4j.core.compress.SparseMean;
import io.lgc4j.core.layout.ParamBlock;
import io.lgc4j.core.protocol.FloatFrames;
import io.lgc4j.core.protocol.SketchFrames;
import io.lgc4j.core.protocol.SketchPayload;
import io.lgc4j.core.protocol.SparseFrames;
import io.lgc4j.core.shard.ShardView;
import io.lgc4j.core.comm.StepTag;
import io.lgc4j.ps.skeleton.PsServer;
import io.lgc4j.ps.skeleton.PsServerEnd;

import java.util.List;
import java.util.Optional;

/**
 * The server's compressed step. The DENSE blocks of every worker are averaged in rank order; gather-only payloads
 * are decoded, summed in rank order and the mean broadcast as a sparse set on the union of the supports (downlink
 * counted); sketches are summed (counters added, bitmaps OR-ed) and the sum broadcast; for a shared-support
 * compressor the leader's indices are relayed to the other workers (a seeded support is drawn here instead, and
 * nothing is relayed), the aligned values averaged and broadcast; PowerSGD's factors are averaged in two rounds,
 * P's mean sent back before the Qs come in.
 */
final class CompressedServer implements PsServer.Step {
    private final PsServerEnd end;
    private final Compressor compressor;
    private final IndexCodec codec;
    private final ShardView view;
    private final List<ParamBlock> sparseBlocks;
    private final SparseMean mean;
    private final LowRankPlan plan;

    /**
     * @param view this shard's pieces of the compressible blocks (the blocks themselves when the server is one shard;
     *             sketches and PowerSGD's factors need whole blocks, so the topology refuses them sharded)
     */
    CompressedServer(PsServerEnd end, ShardView view, Compressor compressor, IndexCodec codec) {
        this.end = end;
        this.compressor = compressor;
        this.codec = codec;
        this.view = view;
        this.sparseBlocks = view.blocks();
        this.mean = new SparseMean(sparseBlocks);
        this.plan = compressor instanceof LowRankCompressor l ? l.plan(sparseBlocks) : null;
    }

    @Override
    public void serve(Frame first, StepTag tag) {
        byte[] denseMean = end.denseMean(first, tag);
        byte[][] sparseMean = compressor.byKind(g -> gather(tag), s -> shared(tag), k -> sketches(tag),
                l -> factors(tag));
        end.broadcast(denseMean, sparseMean);
    }

    /** Per piece, the most indices one rank may send at this step: its block's count, at most the piece's length. */
    private int[] maxCounts(StepTag tag) {
        return view.bounds(PsSupport.maxCounts(view.parents(), compressor, tag.step()));
    }

    private byte[][] gather(StepTag tag) {
        int[] max = maxCounts(tag);
        mean.reset();
        for (int w = 0; w < end.workers(); w++) {
            int[][] supports = SparseFrames.decodeIndices(end.receive(w, TrafficKind.INDICES, tag), sparseBlocks,
                    codec, max);
            mean.add(SparseFrames.decode(supports, end.receive(w, TrafficKind.VALUES, tag), sparseBlocks));
        }
        return SparseFrames.encode(mean.mean(end.workers()), sparseBlocks, codec, tag);
    }

    /** Sums the workers' sketches in rank order (counters added, bitmaps OR-ed) and broadcasts the sum. */
    private byte[][] sketches(StepTag tag) {
        Sketch sum = null;
        for (int w = 0; w < end.workers(); w++) {
            Frame counters = end.receive(w, SketchPayload.COUNTERS_KIND, tag);
            Frame bitmap = end.receive(w, SketchPayload.BITMAP_KIND, tag);
            // the server does not know the sketch's shape: worker 0's frames set it, the others must match
            int counterCount = sum == null ? FloatFrames.count(counters) : sum.counters().length;
            int words = sum == null ? bitmap.payloadLength() / SketchFrames.WORD_SIZE : sum.bitmap().length;
            Sketch s = SketchPayload.decode(counters, bitmap, counterCount, words).sketch();
            if (sum == null) {
                sum = s;
            } else {
                sum.addInPlace(s);
            }
        }
        return new SketchPayload(sum).encode(tag);
    }

    /**
     * PowerSGD's rounds: the mean of the workers' first payloads (P, plain blocks) to every worker, then the mean of
     * their Qs as the step's last frame.
     */
    private byte[][] factors(StepTag tag) {
        end.sendToAll(end.alignedMean(end.receiveValues(plan.firstLength(), tag), tag));
        return new byte[][] {end.alignedMean(end.receiveValues(plan.secondLength(), tag), tag)};
    }

    private byte[][] shared(StepTag tag) {
        Optional<int[][]> support = compressor instanceof SeededSupportCompressor seeded
                // drawn here as on every worker (on whole blocks, then cut to this shard's pieces): nothing to relay
                ? Optional.of(view.split(seeded.support(tag.step(), view.parents())))
                : end.leadersSupport(((SharedSupportCompressor) compressor).leader(tag.step(), end.workers()),
                        sparseBlocks, codec, maxCounts(tag), tag); // empty: the leader sent it to the workers
        float[][] values = support.isPresent() ? end.receiveValues(PsSupport.total(support.get()), tag)
                : end.receiveAlignedValues(tag);
        return new byte[][] {end.alignedMean(values, tag)};
    }
}
