package io.lgc4j.ring.topology;

import io.lgc4j.core.codec.IndexCodec;
import io.lgc4j.core.comm.Frame;
import io.lgc4j.core.comm.FrameCodec;
import io.lgc4j.core.comm.FrameException;
import io.lgc4j.core.comm.TrafficKind;
import io.lgc4j.core.comm.Transport;
import io.lgc4j.core.compress.BlockRegion;
import io.lgc4j.core.compress.Compressor;
import io.lgc4j.core.compress.GatherCompressor;
import io.lgc4j.core.compress.RankCompressor;
import io.lgc4j.core.compress.SharedSupportCompressor;
import io.lgc4j.core.compress.Sketch;
import io.lgc4j.core.compress.SketchCompressor;
import io.lgc4j.core.compress.SparseFrames;
import io.lgc4j.core.compress.SparseMean;
import io.lgc4j.core.compress.SparseSet;
import io.lgc4j.core.layout.GradientLayout;
import io.lgc4j.core.layout.LayerPolicy;
import io.lgc4j.core.layout.ParamBlock;
import io.lgc4j.core.metrics.Phase;
import io.lgc4j.core.metrics.PhaseClock;
import io.lgc4j.core.sparse.SparseVector;
import io.lgc4j.core.stage.Stage;
import io.lgc4j.core.sparse.TopK;
import io.lgc4j.core.train.GradientExchange;
import io.lgc4j.core.train.StepTag;
import io.lgc4j.ring.collective.RingAllReduce;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * One rank's compressed step on the ring. DENSE blocks ride a ring allreduce. Compressible blocks go by the
 * compressor's kind: shared-support values (ScaleCom) are summable and ride a ring allreduce after the leader's
 * indices travel once around the ring; gather-only sparse sets (Sparse GD, DGC) go by ring all-gather — every
 * rank forwards each set it receives, K−1 hops — and every rank sums the K sets in rank order.
 */
final class CompressedRingExchange implements GradientExchange {
    private final Transport transport;
    private final int rank;
    private final int workers;
    private final Compressor compressor;
    private final IndexCodec codec;
    private final RingAllReduce ring;
    private final BlockRegion dense;
    private final float[] denseBuffer;
    private final List<ParamBlock> sparseBlocks;
    private final GatherCompressor.State gatherState;
    private final SharedSupportCompressor.State sharedState;
    private final SparseMean mean;
    private final SketchCompressor.State sketchState;

    CompressedRingExchange(int rank, int workers, Transport transport, GradientLayout layout, Compressor compressor,
                           IndexCodec codec) {
        this.transport = transport;
        this.rank = rank;
        this.workers = workers;
        this.compressor = compressor;
        this.codec = codec;
        this.ring = new RingAllReduce(transport, rank, workers);
        this.dense = new BlockRegion(layout.blocks(LayerPolicy.DENSE));
        this.denseBuffer = new float[dense.length()];
        this.sparseBlocks = layout.compressibleBlocks();
        this.mean = new SparseMean(sparseBlocks);
        RankCompressor state = RankCompressor.of(compressor, sparseBlocks);
        this.gatherState = state.gather();
        this.sharedState = state.shared();
        this.sketchState = state.sketch();
    }

    @Override
    public void allReduceMean(StepTag tag, float[] gradient, PhaseClock clock) {
        if (tag.stage() == Stage.FULL) {
            ring.sum(gradient, tag, clock);
            clock.enter(Phase.DECODE);
            divide(gradient, workers);
            return;
        }
        SparseSet aggregate = gatherState != null ? allGather(tag, gradient, clock)
                : sketchState != null ? sketch(tag, gradient, clock) : sharedSupport(tag, gradient, clock);
        clock.enter(Phase.DECODE);
        aggregate.writeInto(gradient, sparseBlocks);
        if (dense.length() > 0) {
            dense.gather(gradient, denseBuffer);
            ring.sum(denseBuffer, tag, clock);
            clock.enter(Phase.DECODE);
            divide(denseBuffer, workers);
            dense.scatter(denseBuffer, gradient);
        }
    }

    private SparseSet allGather(StepTag tag, float[] gradient, PhaseClock clock) {
        clock.enter(Phase.SELECT);
        SparseSet own = gatherState.compress(gradient, tag.step());
        clock.enter(Phase.ENCODE);
        byte[][][] slots = new byte[workers][][];
        slots[rank] = SparseFrames.encode(own, sparseBlocks, codec, tag);
        SparseSet[] sets = new SparseSet[workers];
        sets[rank] = own;
        int right = (rank + 1) % workers;
        int left = (rank + workers - 1) % workers;
        int[] maxCounts = maxCounts(tag.step());
        for (int round = 0; round < workers - 1; round++) {
            int sendSlot = Math.floorMod(rank - round, workers);
            int receiveSlot = Math.floorMod(rank - round - 1, workers);
            clock.enter(Phase.COMMUNICATE);
            transport.send(right, slots[sendSlot][0]);
            transport.send(right, slots[sendSlot][1]);
            Frame indices = receiveOfStep(left, TrafficKind.INDICES, tag);
            Frame values = receiveOfStep(left, TrafficKind.VALUES, tag);
            clock.enter(Phase.DECODE);
            int[][] supports = SparseFrames.decodeIndices(indices, sparseBlocks, codec, maxCounts);
            sets[receiveSlot] = SparseFrames.decode(supports, values, sparseBlocks);
            slots[receiveSlot] = new byte[][] {bytesOf(indices), bytesOf(values)};
        }
        clock.enter(Phase.DECODE);
        mean.reset();
        for (SparseSet s : sets) {
            mean.add(s);
        }
        return mean.mean(workers);
    }

    private SparseSet sketch(StepTag tag, float[] gradient, PhaseClock clock) {
        clock.enter(Phase.SELECT);
        Sketch own = sketchState.compress(gradient, tag.step());
        ring.sum(own.counters(), TrafficKind.VALUES, tag, clock);
        ring.or(own.bitmap(), TrafficKind.INDICES, tag, clock);
        clock.enter(Phase.DECODE);
        return sketchState.decompress(own, workers, tag.step());
    }

    private SparseSet sharedSupport(StepTag tag, float[] gradient, PhaseClock clock) {
        SharedSupportCompressor shared = (SharedSupportCompressor) compressor;
        int leader = shared.leader(tag.step(), workers);
        clock.enter(Phase.SELECT);
        sharedState.compensate(gradient, tag.step());
        int[][] support;
        int right = (rank + 1) % workers;
        int left = (rank + workers - 1) % workers;
        if (rank == leader) {
            support = sharedState.chooseSupport(tag.step());
            if (workers > 1) {
                clock.enter(Phase.ENCODE);
                int[] counts = new int[support.length];
                for (int b = 0; b < support.length; b++) {
                    counts[b] = support[b].length;
                }
                byte[] frame = SparseFrames.encodeIndices(support, counts, sparseBlocks, codec, tag);
                clock.enter(Phase.COMMUNICATE);
                transport.send(right, frame);
            }
        } else {
            clock.enter(Phase.COMMUNICATE);
            Frame frame = receiveOfStep(left, TrafficKind.INDICES, tag);
            if (right != leader) {
                transport.send(right, bytesOf(frame));
            }
            clock.enter(Phase.DECODE);
            support = SparseFrames.decodeIndices(frame, sparseBlocks, codec, maxCounts(tag.step()));
        }
        clock.enter(Phase.SELECT);
        float[] values = sharedState.take(support);
        ring.sum(values, TrafficKind.VALUES, tag, clock);
        clock.enter(Phase.DECODE);
        List<SparseVector> blocks = new ArrayList<>(support.length);
        float k = workers;
        int at = 0;
        for (int b = 0; b < support.length; b++) {
            float[] v = Arrays.copyOfRange(values, at, at + support[b].length);
            for (int i = 0; i < v.length; i++) {
                v[i] /= k;
            }
            at += support[b].length;
            blocks.add(new SparseVector(sparseBlocks.get(b).length(), support[b], v));
        }
        return new SparseSet(blocks);
    }

    private static void divide(float[] values, int workers) {
        float k = workers;
        for (int i = 0; i < values.length; i++) {
            values[i] /= k;
        }
    }

    private int[] maxCounts(int step) {
        int[] max = new int[sparseBlocks.size()];
        for (int b = 0; b < max.length; b++) {
            max[b] = TopK.countFor(sparseBlocks.get(b).length(), compressor.density(step));
        }
        return max;
    }

    private Frame receiveOfStep(int peer, TrafficKind kind, StepTag tag) {
        Frame f = transport.receive(peer, kind);
        if (f.step() != tag.step()) {
            throw new FrameException("rank " + rank + " expected a " + kind + " frame of step " + tag.step()
                    + " from rank " + peer + ", found step " + f.step());
        }
        return f;
    }

    /** The frame re-sealed for forwarding: the same header and payload, hence the same bytes and CRC. */
    private static byte[] bytesOf(Frame frame) {
        return FrameCodec.encode(frame.kind(), frame.stage(), frame.step(), frame.payload());
    }
}
