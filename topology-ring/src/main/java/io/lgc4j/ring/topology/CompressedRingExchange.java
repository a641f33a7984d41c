package io.lgc4j.ring.topology;

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
import io.lgc4j.core.compress.SparseMean;
import io.lgc4j.core.protocol.SparseSet;
import io.lgc4j.core.layout.GradientLayout;
import io.lgc4j.core.layout.ParamBlock;
import io.lgc4j.core.link.GradientPieces;
import io.lgc4j.core.link.StepLink;
import io.lgc4j.core.metrics.Phase;
import io.lgc4j.core.metrics.PhaseClock;
import io.lgc4j.core.protocol.LowRankPlan;
import io.lgc4j.core.protocol.Values;
import io.lgc4j.core.protocol.SketchPayload;
import io.lgc4j.core.protocol.SparseFrames;
import io.lgc4j.core.protocol.Support;
import io.lgc4j.core.comm.ValueEncoding;
import io.lgc4j.core.stage.Stage;
import io.lgc4j.core.train.GradientExchange;
import io.lgc4j.core.comm.StepTag;
import io.lgc4j.ring.collective.RingAllReduce;
import io.lgc4j.ring.skeleton.RingEnd;

import java.util.List;

/**
 * One rank's compressed step on the ring ({@link CompressedStep} around the ring's rounds). DENSE blocks ride a ring allreduce. Compressible blocks go by the
 * compressor's kind: shared-support values (ScaleCom) are summable and ride a ring allreduce after the leader's
 * indices travel once around the ring (a seeded support, random-k's, is drawn by every rank and never travels);
 * sketches (S2) ride it too, their bitmaps OR-ed; gather-only sparse sets (Sparse GD, DGC) go by ring all-gather —
 * every rank forwards each set it receives, K−1 hops — and every rank sums the K sets in rank order. PowerSGD's
 * factors take two allreduces, P's (with the blocks it leaves plain) and then Q's.
 */
final class CompressedRingExchange extends CarriedState implements GradientExchange {
    private final RingEnd end;
    private final IndexCodec codec;
    private final List<ParamBlock> sparseBlocks;
    private final SparseMean mean;
    private final RankState state;
    private final CompressedStep step;
    private final RingRounds rounds = new RingRounds();
    /** Whether FULL steps are compressed too: a compressed warm-up's exchange. */
    private final boolean everyStage;

    CompressedRingExchange(RingEnd end, GradientLayout layout, Compressor compressor, IndexCodec codec) {
        this(end, layout, compressor, codec, false);
    }

    CompressedRingExchange(RingEnd end, GradientLayout layout, Compressor compressor, IndexCodec codec,
                           boolean everyStage) {
        this.everyStage = everyStage;
        this.end = end;
        this.codec = codec;
        this.sparseBlocks = layout.compressibleBlocks();
        this.mean = new SparseMean(sparseBlocks);
        this.state = RankState.of(compressor, sparseBlocks);
        this.step = new CompressedStep(state, sparseBlocks, end.workers());
    }

    /** The compressor's memory: the rank's state (the exchange itself keeps none across steps). */
    @Override
    protected CompressorState carried() {
        return state.state();
    }

    /**
     * A dense FULL step (no compressed warm-up) takes the gradient piece by piece, and so does PowerSGD's: each piece's
     * blocks go through their two rounds while the backward pass computes the earlier layers.
     */
    @Override
    public boolean streams(StepTag tag) {
        return dense(tag) || state instanceof RankState.LowRank;
    }

    private boolean dense(StepTag tag) {
        return tag.stage() == Stage.FULL && !everyStage;
    }

    @Override
    public void allReduceMean(StepTag tag, float[] gradient, PhaseClock clock, GradientPieces pieces) {
        if (dense(tag)) {
            end.fullStep(tag, gradient, clock, pieces);
        } else if (state instanceof RankState.LowRank l) {
            state.values(tag.values());
            lowRank(l, tag, gradient, clock, pieces);
        } else {
            GradientExchange.super.allReduceMean(tag, gradient, clock, pieces);
        }
    }

    @Override
    public void allReduceMean(StepTag tag, float[] gradient, PhaseClock clock) {
        if (tag.stage() == Stage.FULL && !everyStage) {
            end.fullStep(tag, gradient, clock);
            return;
        }
        step.run(rounds, tag, gradient, clock);
    }

    /** The rounds on the ring: allreduces and all-gathers, the DENSE blocks' mean riding the kind's last hops. */
    private final class RingRounds implements CompressedStep.Rounds {
        @Override
        public void meanOfSets(SparseSet own, GatherCompressor compressor, StepTag tag, float[] gradient,
                               PhaseClock clock) {
            SparseSet aggregate = allGather(own, compressor, tag, gradient, clock);
            clock.enter(Phase.DECODE);
            aggregate.writeInto(gradient, sparseBlocks);
        }

        @Override
        public int[][] leadersSupport(RankState.Shared shared, StepTag tag, PhaseClock clock) {
            return CompressedRingExchange.this.leadersSupport(shared, tag, clock);
        }

        @Override
        public void meanOnSupport(int[][] support, float[] values, StepTag tag, float[] gradient, PhaseClock clock) {
            end.meanWithDense(values, TrafficKind.VALUES, tag, gradient, clock);
            SparseSet aggregate = SparseSet.onSupport(sparseBlocks, support, values);
            clock.enter(Phase.DECODE);
            aggregate.writeInto(gradient, sparseBlocks);
        }

        /** S2: the counters summed and the bitmaps OR-ed in the same hops, and the DENSE blocks' mean with them. */
        @Override
        public Sketch sumOfSketches(Sketch own, StepTag tag, float[] gradient, PhaseClock clock) {
            RingAllReduce ring = end.ring();
            ring.run(clock, ring.sumPass(own.counters(), SketchPayload.COUNTERS_KIND,
                    tag.withValues(ValueEncoding.FP32)), ring.orPass(own.bitmap(), SketchPayload.BITMAP_KIND, tag),
                    end.densePass(tag, gradient));
            return own;
        }

        @Override
        public float[] mean(float[] values, StepTag tag, PhaseClock clock) {
            end.mean(values, Values.KIND, tag, clock);
            return values;
        }

        @Override
        public float[] meanWithDense(float[] values, StepTag tag, float[] gradient, PhaseClock clock) {
            end.meanWithDense(values, Values.KIND, tag, gradient, clock); // the DENSE blocks' mean in the same hops
            return values;
        }
    }

    /**
     * Every rank's set visits every other (K−1 hops, the DENSE blocks' mean riding the same hops); every rank sums
     * the K sets in rank order.
     */
    private SparseSet allGather(SparseSet own, GatherCompressor compressor, StepTag tag, float[] gradient,
                                PhaseClock clock) {
        int rank = end.rank();
        int workers = end.workers();
        clock.enter(Phase.ENCODE);
        byte[][][] slots = new byte[workers][][];
        slots[rank] = SparseFrames.encode(own, sparseBlocks, codec, tag);
        SparseSet[] sets = new SparseSet[workers];
        sets[rank] = own;
        int right = (rank + 1) % workers;
        int left = (rank + workers - 1) % workers;
        int[] maxCounts = maxCounts(compressor, tag.step());
        RingAllReduce.Pass gather = new RingAllReduce.Pass() {
            @Override
            public int rounds() {
                return workers - 1;
            }

            @Override
            public void send(int round, PhaseClock c) {
                int sendSlot = Math.floorMod(rank - round, workers);
                c.enter(Phase.COMMUNICATE);
                end.link().send(right, slots[sendSlot][0]);
                end.link().send(right, slots[sendSlot][1]);
            }

            @Override
            public void receive(int round, PhaseClock c) {
                int receiveSlot = Math.floorMod(rank - round - 1, workers);
                c.enter(Phase.COMMUNICATE);
                Frame indices = end.link().receive(left, TrafficKind.INDICES, tag);
                Frame values = end.link().receive(left, TrafficKind.VALUES, tag);
                c.enter(Phase.DECODE);
                int[][] supports = SparseFrames.decodeIndices(indices, sparseBlocks, codec, maxCounts);
                sets[receiveSlot] = SparseFrames.decode(supports, values, sparseBlocks);
                slots[receiveSlot] = new byte[][] {StepLink.forward(indices), StepLink.forward(values)};
            }
        };
        end.ring().run(clock, gather, end.densePass(tag, gradient));
        clock.enter(Phase.DECODE);
        mean.reset();
        for (SparseSet s : sets) {
            mean.add(s);
        }
        return mean.mean(workers);
    }

    /**
     * PowerSGD beside the backward pass: each piece, from the last layers, through both rounds as soon as it is final
     * (its Ps and plain values, then its Qs with the DENSE blocks it holds), each range summed in the whole payload's
     * chunks, so every rank ends with the whole step's bits in fp32 and bf16. A piece's two rounds are hops of their
     * own: the step takes 2(K−1) hops per piece instead of 2(K−1) in all, for the wire time it hides.
     */
    private void lowRank(RankState.LowRank l, StepTag tag, float[] gradient, PhaseClock clock,
                         GradientPieces pieces) {
        LowRankPlan plan = l.state().plan();
        float[] first = new float[plan.firstLength()];
        float[] second = new float[plan.secondLength()];
        RingAllReduce ring = end.ring();
        for (GradientPieces.Piece piece : pieces.pieces()) {
            clock.enter(Phase.COMPUTE); // waiting for the backward pass
            pieces.await(piece);
            int from = firstBlockFrom(piece.from());
            int to = firstBlockFrom(piece.to());
            LowRankPlan.Span span = plan.span(from, to);
            clock.enter(Phase.ENCODE);
            l.state().project(gradient, tag.step(), from, to, first);
            ring.run(clock, end.meanPass(first, span.pFrom(), span.pTo(), Values.KIND, tag),
                    end.meanPass(first, span.plainFrom(), span.plainTo(), Values.KIND, tag));
            clock.enter(Phase.ENCODE);
            l.state().back(first, tag.step(), from, to, second);
            ring.run(clock, end.meanPass(second, span.qFrom(), span.qTo(), Values.KIND, tag),
                    end.densePass(tag, gradient, piece.from(), piece.to()));
            clock.enter(Phase.DECODE);
            l.state().finish(second, tag.step(), from, to, gradient);
        }
    }

    /** The index of the first compressible block at or after element {@code at} (the count when none is). */
    private int firstBlockFrom(int at) {
        int b = 0;
        while (b < sparseBlocks.size() && sparseBlocks.get(b).offset() < at) {
            b++;
        }
        return b;
    }

    /** The step's leader chooses the support and sends its indices round the ring. */
    private int[][] leadersSupport(RankState.Shared shared, StepTag tag, PhaseClock clock) {
        int leader = shared.compressor().leader(tag.step(), end.workers());
        int[][] support = null;
        byte[][] frames = null;
        if (end.rank() == leader) {
            support = shared.state().chooseSupport(tag.step());
            clock.enter(Phase.ENCODE);
            frames = new byte[][] {new Support(support).encode(sparseBlocks, codec, tag)};
        }
        Frame[] got = end.fromLeader(leader, frames, new TrafficKind[] {Support.KIND}, tag, clock);
        if (support == null) {
            clock.enter(Phase.DECODE);
            support = Support.decode(got[0], sparseBlocks, codec, maxCounts(shared.compressor(), tag.step()))
                    .indices();
        }
        return support;
    }

    /** Per block, the most indices one rank may send at {@code step} (each block by its own density). */
    private int[] maxCounts(Compressor compressor, int step) {
        int[] max = new int[sparseBlocks.size()];
        for (int b = 0; b < max.length; b++) {
            max[b] = compressor.count(step, sparseBlocks.get(b));
        }
        return max;
    }
}
