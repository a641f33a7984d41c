package io.lgc4j.ps.topology;

import io.lgc4j.core.codec.IndexCodec;
import io.lgc4j.core.comm.FloatFrames;
import io.lgc4j.core.comm.Frame;
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
import io.lgc4j.core.compress.SparseSet;
import io.lgc4j.core.layout.GradientLayout;
import io.lgc4j.core.layout.LayerPolicy;
import io.lgc4j.core.layout.ParamBlock;
import io.lgc4j.core.metrics.Phase;
import io.lgc4j.core.metrics.PhaseClock;
import io.lgc4j.core.stage.Stage;
import io.lgc4j.core.train.GradientExchange;
import io.lgc4j.core.train.StepTag;

import java.util.List;

/**
 * A worker's compressed step against the parameter server: it pushes its DENSE blocks as values, and its
 * compressible blocks as the compressor's payload (its own sparse set, or — for a shared-support compressor —
 * values on the support the leader chose and the server relayed); it receives the dense mean and the sparse mean.
 */
final class CompressedPsWorker implements GradientExchange {
    private final int rank;
    private final int workers;
    private final int server;
    private final Transport transport;
    private final Compressor compressor;
    private final IndexCodec codec;
    private final BlockRegion dense;
    private final float[] denseBuffer;
    private final List<ParamBlock> sparseBlocks;
    private final GatherCompressor.State gatherState;
    private final SharedSupportCompressor.State sharedState;
    private final SketchCompressor.State sketchState;
    private final DensePsWorker fullStep;

    CompressedPsWorker(int rank, int workers, Transport transport, GradientLayout layout, Compressor compressor,
                       IndexCodec codec) {
        this.rank = rank;
        this.workers = workers;
        this.server = workers;
        this.transport = transport;
        this.compressor = compressor;
        this.codec = codec;
        this.dense = new BlockRegion(layout.blocks(LayerPolicy.DENSE));
        this.denseBuffer = new float[dense.length()];
        this.sparseBlocks = layout.compressibleBlocks();
        RankCompressor state = RankCompressor.of(compressor, sparseBlocks);
        this.gatherState = state.gather();
        this.sharedState = state.shared();
        this.sketchState = state.sketch();
        this.fullStep = new DensePsWorker(rank, server, transport);
    }

    @Override
    public void allReduceMean(StepTag tag, float[] gradient, PhaseClock clock) {
        if (tag.stage() == Stage.FULL) {
            fullStep.allReduceMean(tag, gradient, clock);
            return;
        }
        clock.enter(Phase.ENCODE);
        dense.gather(gradient, denseBuffer);
        byte[] denseFrame = FloatFrames.encode(denseBuffer, 0, denseBuffer.length, TrafficKind.VALUES, tag.stage(),
                tag.step());
        clock.enter(Phase.COMMUNICATE);
        transport.send(server, denseFrame);
        int[][] support = null;
        Sketch ownSketch = null;
        if (sketchState != null) {
            clock.enter(Phase.SELECT);
            ownSketch = sketchState.compress(gradient, tag.step());
            clock.enter(Phase.ENCODE);
            byte[][] frames = SketchFrames.encode(ownSketch, tag);
            clock.enter(Phase.COMMUNICATE);
            transport.send(server, frames[0]);
            transport.send(server, frames[1]);
        } else if (gatherState != null) {
            clock.enter(Phase.SELECT);
            SparseSet own = gatherState.compress(gradient, tag.step());
            clock.enter(Phase.ENCODE);
            byte[][] frames = SparseFrames.encode(own, sparseBlocks, codec, tag);
            clock.enter(Phase.COMMUNICATE);
            transport.send(server, frames[0]);
            transport.send(server, frames[1]);
        } else {
            SharedSupportCompressor shared = (SharedSupportCompressor) compressor;
            clock.enter(Phase.SELECT);
            sharedState.compensate(gradient, tag.step());
            if (rank == shared.leader(tag.step(), workers)) {
                support = sharedState.chooseSupport(tag.step());
                clock.enter(Phase.ENCODE);
                byte[] frame = SparseFrames.encodeIndices(support, counts(support), sparseBlocks, codec, tag);
                clock.enter(Phase.COMMUNICATE);
                transport.send(server, frame);
            } else {
                clock.enter(Phase.COMMUNICATE);
                Frame frame = receive(TrafficKind.INDICES, tag);
                clock.enter(Phase.DECODE);
                support = SparseFrames.decodeIndices(frame, sparseBlocks, codec,
                        PsSupport.maxCounts(sparseBlocks, compressor, tag.step()));
            }
            clock.enter(Phase.SELECT);
            float[] values = sharedState.take(support);
            clock.enter(Phase.ENCODE);
            byte[] frame = FloatFrames.encode(values, 0, values.length, TrafficKind.VALUES, tag.stage(), tag.step());
            clock.enter(Phase.COMMUNICATE);
            transport.send(server, frame);
        }
        Frame denseMean = receive(TrafficKind.VALUES, tag);
        clock.enter(Phase.DECODE);
        FloatFrames.copyInto(denseMean, denseBuffer, 0, denseBuffer.length);
        dense.scatter(denseBuffer, gradient);
        clock.enter(Phase.COMMUNICATE);
        if (sketchState != null) {
            Frame counters = receive(TrafficKind.VALUES, tag);
            Frame bitmap = receive(TrafficKind.INDICES, tag);
            clock.enter(Phase.DECODE);
            Sketch sum = SketchFrames.decode(counters, bitmap, ownSketch.counters().length, ownSketch.bitmap().length);
            sketchState.decompress(sum, workers, tag.step()).writeInto(gradient, sparseBlocks);
        } else if (gatherState != null) {
            Frame indices = receive(TrafficKind.INDICES, tag);
            Frame values = receive(TrafficKind.VALUES, tag);
            clock.enter(Phase.DECODE);
            int[][] union = SparseFrames.decodeIndices(indices, sparseBlocks, codec, PsSupport.blockLengths(
                    sparseBlocks));
            SparseFrames.decode(union, values, sparseBlocks).writeInto(gradient, sparseBlocks);
        } else {
            Frame values = receive(TrafficKind.VALUES, tag);
            clock.enter(Phase.DECODE);
            SparseFrames.decode(support, values, sparseBlocks).writeInto(gradient, sparseBlocks);
        }
    }

    private static int[] counts(int[][] support) {
        int[] c = new int[support.length];
        for (int b = 0; b < support.length; b++) {
            c[b] = support[b].length;
        }
        return c;
    }

    private Frame receive(TrafficKind kind, StepTag tag) {
        Frame f = transport.receive(server, kind);
        if (f.step() != tag.step()) {
            throw new FrameException("worker " + rank + " expected a " + kind + " frame of step " + tag.step()
                    + " from the server, found step " + f.step());
        }
        return f;
    }
}
