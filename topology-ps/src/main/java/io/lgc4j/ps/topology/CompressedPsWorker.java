package io.lgc4j.ps.topology;

import io.lgc4j.core.compress.CompressorState;
import io.lgc4j.core.compress.CarriedState;
import io.lgc4j.core.codec.IndexCodec;
import io.lgc4j.core.comm.Frame;
import io.lgc4j.core.comm.TrafficKind;
import io.lgc4j.core.compress.Compressor;
import io.lgc4j.core.compress.RankState;
import io.lgc4j.core.compress.SeededSupportCompressor;
import io.lgc4j.core.protocol.Sketch;
import io.lgc4j.core.protocol.SparseSet;
import io.lgc4j.core.layout.GradientLayout;
import io.lgc4j.core.layout.ParamBlock;
import io.lgc4j.core.metrics.Phase;
import io.lgc4j.core.metrics.PhaseClock;
import io.lgc4j.core.protocol.Values;
import io.lgc4j.core.protocol.SketchPayload;
import io.lgc4j.core.protocol.SparseFrames;
import io.lgc4j.core.shard.ShardView;
import io.lgc4j.core.sparse.SparseVector;
import io.lgc4j.core.comm.StepTag;
import io.lgc4j.ps.exchange.PsWorker;
import io.lgc4j.ps.exchange.PsWorkerEnd;

import java.util.ArrayList;
import java.util.List;

/**
 * A worker's compressed step against the parameter server: it pushes its DENSE blocks as values, and its
 * compressible blocks as the compressor's payload (its own sparse set; a sketch; or — for a shared-support
 * compressor — values on the support the leader chose and the server relayed, or on the seeded support every rank
 * draws by itself; or PowerSGD's factors, in two round trips); it receives the dense mean and the compressible
 * blocks' mean.
 */
final class CompressedPsWorker extends CarriedState implements PsWorker.Step {
    private final PsWorkerEnd end;
    private final IndexCodec codec;
    private final List<ParamBlock> sparseBlocks;
    private final List<ShardView> views;
    private final RankState state;

    CompressedPsWorker(PsWorkerEnd end, GradientLayout layout, Compressor compressor, IndexCodec codec) {
        this.end = end;
        this.codec = codec;
        this.sparseBlocks = layout.compressibleBlocks();
        this.views = end.compressibleViews();
        this.state = RankState.of(compressor, sparseBlocks);
    }

    /** The compressor's memory: the rank's state (the exchange itself keeps none across steps). */
    @Override
    protected CompressorState carried() {
        return state.state();
    }

    @Override
    public void run(StepTag tag, float[] gradient, PhaseClock clock) {
        state.values(tag.values());
        end.pushDense(tag, gradient, clock);
        state.onKind(g -> gather(g, tag, gradient, clock), s -> shared(s, tag, gradient, clock),
                k -> sketch(k, tag, gradient, clock), l -> lowRank(l, tag, gradient, clock));
    }

    /** Each rank's own sparse set to every shard; each shard's union of supports and the mean on it back. */
    private void gather(RankState.Gather g, StepTag tag, float[] gradient, PhaseClock clock) {
        clock.enter(Phase.SELECT);
        SparseSet own = g.state().compress(gradient, tag.step());
        for (int s = 0; s < views.size(); s++) {
            clock.enter(Phase.ENCODE);
            ShardView view = views.get(s);
            end.sendTo(s, clock, SparseFrames.encode(view.split(own), view.blocks(), codec, tag));
        }
        end.receiveDenseMean(tag, gradient, clock);
        for (int s = 0; s < views.size(); s++) {
            ShardView view = views.get(s);
            clock.enter(Phase.COMMUNICATE);
            Frame indices = end.receiveFrom(s, TrafficKind.INDICES, tag);
            Frame values = end.receiveFrom(s, TrafficKind.VALUES, tag);
            clock.enter(Phase.DECODE);
            int[][] union = SparseFrames.decodeIndices(indices, view.blocks(), codec, PsSupport.blockLengths(
                    view.blocks()));
            SparseFrames.decode(union, values, view.blocks()).writeInto(gradient, view.blocks());
        }
    }

    /** The rank's sketch up; the sum of every rank's back, decoded here (one server: sketches are not sharded). */
    private void sketch(RankState.Sketch k, StepTag tag, float[] gradient, PhaseClock clock) {
        clock.enter(Phase.SELECT);
        Sketch own = k.state().compress(gradient, tag.step());
        clock.enter(Phase.ENCODE);
        end.send(clock, new SketchPayload(own).encode(tag));
        end.receiveDenseMean(tag, gradient, clock);
        Frame counters = end.receive(SketchPayload.COUNTERS_KIND, tag);
        Frame bitmap = end.receive(SketchPayload.BITMAP_KIND, tag);
        clock.enter(Phase.DECODE);
        Sketch sum = SketchPayload.decode(counters, bitmap, own.counters().length, own.bitmap().length).sketch();
        k.state().decompress(sum, end.workers(), tag.step()).writeInto(gradient, sparseBlocks);
    }

    /** The step's support (drawn, or the leader's), every rank's values on it to each shard, their mean back. */
    private void shared(RankState.Shared shared, StepTag tag, float[] gradient, PhaseClock clock) {
        clock.enter(Phase.SELECT);
        shared.state().compensate(gradient, tag.step());
        int[][] support = support(shared, tag, clock);
        clock.enter(Phase.SELECT);
        float[] values = shared.state().take(support);
        SparseSet taken = views.size() == 1 ? null : SparseSet.onSupport(sparseBlocks, support, values);
        List<int[][]> pieces = new ArrayList<>(views.size());
        for (int s = 0; s < views.size(); s++) {
            clock.enter(Phase.ENCODE);
            ShardView view = views.get(s);
            float[] mine = taken == null ? values : concatenated(view.split(taken));
            pieces.add(view.split(support));
            end.sendTo(s, clock, new Values(mine).encode(tag));
        }
        end.receiveDenseMean(tag, gradient, clock);
        for (int s = 0; s < views.size(); s++) {
            ShardView view = views.get(s);
            clock.enter(Phase.COMMUNICATE);
            Frame mean = end.receiveFrom(s, Values.KIND, tag);
            clock.enter(Phase.DECODE);
            SparseFrames.decode(pieces.get(s), mean, view.blocks()).writeInto(gradient, view.blocks());
        }
    }

    /** A sparse set's values, block after block. */
    private static float[] concatenated(SparseSet set) {
        float[] out = new float[set.nnz()];
        int at = 0;
        for (SparseVector v : set.blocks()) {
            System.arraycopy(v.values(), 0, out, at, v.nnz());
            at += v.nnz();
        }
        return out;
    }

    /**
     * PowerSGD's two round trips: P (and the plain blocks) up, their mean down; Q up; the DENSE mean and Q's mean
     * down.
     */
    private void lowRank(RankState.LowRank l, StepTag tag, float[] gradient, PhaseClock clock) {
        clock.enter(Phase.ENCODE);
        float[] first = l.state().project(gradient, tag.step());
        end.send(clock, new Values(first).encode(tag));
        Frame firstMean = end.receive(Values.KIND, tag);
        clock.enter(Phase.DECODE);
        float[] p = Values.decode(firstMean, first.length).values();
        clock.enter(Phase.ENCODE);
        float[] second = l.state().back(p, tag.step());
        end.send(clock, new Values(second).encode(tag));
        end.receiveDenseMean(tag, gradient, clock);
        Frame secondMean = end.receive(Values.KIND, tag);
        clock.enter(Phase.DECODE);
        l.state().finish(Values.decode(secondMean, second.length).values(), tag.step(), gradient);
    }

    /** The step's support: a seeded one drawn here (every rank draws it, no indices travel), else the leader's. */
    private int[][] support(RankState.Shared shared, StepTag tag, PhaseClock clock) {
        if (shared.compressor() instanceof SeededSupportCompressor) {
            return shared.state().chooseSupport(tag.step());
        }
        return end.leadersSupport(shared.state(), shared.compressor().leader(tag.step(), end.workers()), codec,
                PsSupport.maxCounts(sparseBlocks, shared.compressor(), tag.step()), tag, clock);
    }
}
