package io.lgc4j.ps.topology;

import io.lgc4j.core.compress.CompressorState;
import io.lgc4j.core.compress.CarriedState;
import io.lgc4j.core.codec.IndexCodec;
import io.lgc4j.core.comm.Frame;
import io.lgc4j.core.comm.TrafficKind;
import io.lgc4j.core.compress.Compressor;
import io.lgc4j.core.compress.RankState;
import io.lgc4j.core.compress.CompressedStep;
import io.lgc4j.core.compress.GatherCompressor;
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
import io.lgc4j.ps.skeleton.PsWorker;
import io.lgc4j.ps.skeleton.PsWorkerEnd;

import java.util.ArrayList;
import java.util.List;

/**
 * A worker's compressed step against the parameter server ({@link CompressedStep} around the shards' rounds): it
 * pushes its DENSE blocks as values, and its compressible blocks as the compressor's payload (its own sparse set; a sketch; or — for a shared-support
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
    private final CompressedStep step;
    private final ShardRounds rounds = new ShardRounds();

    CompressedPsWorker(PsWorkerEnd end, GradientLayout layout, Compressor compressor, IndexCodec codec) {
        this.end = end;
        this.codec = codec;
        this.sparseBlocks = layout.compressibleBlocks();
        this.views = end.compressibleViews();
        this.state = RankState.of(compressor, sparseBlocks);
        this.step = new CompressedStep(state, sparseBlocks, end.workers());
    }

    /** The compressor's memory: the rank's state (the exchange itself keeps none across steps). */
    @Override
    protected CompressorState carried() {
        return state.state();
    }

    @Override
    public void run(StepTag tag, float[] gradient, PhaseClock clock) {
        end.pushDense(tag, gradient, clock);
        step.run(rounds, tag, gradient, clock);
    }

    /**
     * The rounds against the server's shards: each kind's payload split by shard and pushed, the DENSE blocks' mean
     * received before the kind's, each shard's mean written where its blocks are.
     */
    private final class ShardRounds implements CompressedStep.Rounds {
        /** Each rank's own sparse set to every shard; each shard's union of supports and the mean on it back. */
        @Override
        public void meanOfSets(SparseSet own, GatherCompressor compressor, StepTag tag, float[] gradient,
                               PhaseClock clock) {
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

        /** The leader's support, relayed by the server or sent by the leader itself. */
        @Override
        public int[][] leadersSupport(RankState.Shared shared, StepTag tag, PhaseClock clock) {
            return end.leadersSupport(shared.state(), shared.compressor().leader(tag.step(), end.workers()), codec,
                    PsSupport.maxCounts(sparseBlocks, shared.compressor(), tag.step()), tag, clock);
        }

        /** Every rank's values on the support to each shard, split by its blocks; each shard's mean back. */
        @Override
        public void meanOnSupport(int[][] support, float[] values, StepTag tag, float[] gradient, PhaseClock clock) {
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

        /** The rank's sketch up; the sum of every rank's back (one server: sketches are not sharded). */
        @Override
        public Sketch sumOfSketches(Sketch own, StepTag tag, float[] gradient, PhaseClock clock) {
            clock.enter(Phase.ENCODE);
            end.send(clock, new SketchPayload(own).encode(tag));
            end.receiveDenseMean(tag, gradient, clock);
            Frame counters = end.receive(SketchPayload.COUNTERS_KIND, tag);
            Frame bitmap = end.receive(SketchPayload.BITMAP_KIND, tag);
            clock.enter(Phase.DECODE);
            return SketchPayload.decode(counters, bitmap, own.counters().length, own.bitmap().length).sketch();
        }

        @Override
        public float[] mean(float[] values, StepTag tag, PhaseClock clock) {
            end.send(clock, new Values(values).encode(tag));
            Frame mean = end.receive(Values.KIND, tag);
            clock.enter(Phase.DECODE);
            return Values.decode(mean, values.length).values();
        }

        @Override
        public float[] meanWithDense(float[] values, StepTag tag, float[] gradient, PhaseClock clock) {
            end.send(clock, new Values(values).encode(tag));
            end.receiveDenseMean(tag, gradient, clock);
            Frame mean = end.receive(Values.KIND, tag);
            clock.enter(Phase.DECODE);
            return Values.decode(mean, values.length).values();
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
}
