package io.lgc4j.ps.exchange;

import io.lgc4j.core.codec.IndexCodec;
import io.lgc4j.core.comm.Frame;
import io.lgc4j.core.comm.FrameBuffer;
import io.lgc4j.core.comm.TrafficKind;
import io.lgc4j.core.comm.Transport;
import io.lgc4j.core.compress.BlockRegion;
import io.lgc4j.core.compress.SharedSupportCompressor;
import io.lgc4j.core.exchange.StepLink;
import io.lgc4j.core.layout.GradientLayout;
import io.lgc4j.core.layout.LayerPolicy;
import io.lgc4j.core.layout.ParamBlock;
import io.lgc4j.core.metrics.Phase;
import io.lgc4j.core.metrics.PhaseClock;
import io.lgc4j.core.protocol.FloatFrames;
import io.lgc4j.core.protocol.Support;
import io.lgc4j.core.train.StepTag;

import java.util.List;

/**
 * A worker's end of the parameter server: the pieces every method's worker step is made of. The server is endpoint
 * K; every frame received from it is checked for the step's kind, step and stage.
 */
public final class PsWorkerEnd {
    private final int rank;
    private final int workers;
    private final int server;
    private final StepLink link;
    private final BlockRegion dense;
    private final float[] denseBuffer;

    /**
     * @param rank      this worker's rank
     * @param workers   K; the server is endpoint K
     * @param transport this worker's endpoint
     * @param layout    the gradient's blocks (its DENSE blocks are pushed as values in compressed steps)
     */
    public PsWorkerEnd(int rank, int workers, Transport transport, GradientLayout layout) {
        this.rank = rank;
        this.workers = workers;
        this.server = workers;
        this.link = StepLink.psWorker(rank, workers, transport);
        this.dense = new BlockRegion(layout.blocks(LayerPolicy.DENSE));
        this.denseBuffer = new float[dense.length()];
    }

    /** This worker's rank. */
    public int rank() {
        return rank;
    }

    /** K. */
    public int workers() {
        return workers;
    }

    /** A dense step: the whole gradient up, the mean down into {@code gradient}. */
    public void fullStep(StepTag tag, float[] gradient, PhaseClock clock) {
        clock.enter(Phase.ENCODE);
        FrameBuffer frame = FloatFrames.encode(link.transport(), gradient, 0, gradient.length, TrafficKind.VALUES,
                tag.stage(), tag.step(), tag.values());
        clock.enter(Phase.COMMUNICATE);
        link.send(server, frame);
        Frame mean = receive(TrafficKind.VALUES, tag);
        clock.enter(Phase.DECODE);
        FloatFrames.copyInto(mean, gradient, 0, gradient.length);
    }

    /**
     * Pushes the DENSE blocks as one VALUES frame: the first frame of a compressed step, which opens the step at the
     * server (it reads the stage from it).
     */
    public void pushDense(StepTag tag, float[] gradient, PhaseClock clock) {
        clock.enter(Phase.ENCODE);
        dense.gather(gradient, denseBuffer);
        FrameBuffer frame = FloatFrames.encode(link.transport(), denseBuffer, 0, denseBuffer.length,
                TrafficKind.VALUES, tag.stage(), tag.step(), tag.values());
        clock.enter(Phase.COMMUNICATE);
        link.send(server, frame);
    }

    /** Receives the mean of the DENSE blocks and writes it into {@code gradient}. */
    public void receiveDenseMean(StepTag tag, float[] gradient, PhaseClock clock) {
        clock.enter(Phase.COMMUNICATE);
        Frame mean = receive(TrafficKind.VALUES, tag);
        clock.enter(Phase.DECODE);
        FloatFrames.copyInto(mean, denseBuffer, 0, denseBuffer.length);
        dense.scatter(denseBuffer, gradient);
    }

    /**
     * The step's shared support: the worker that {@code chooses} takes it from its memory and sends its indices up;
     * the others receive them as the server relays them.
     *
     * @param maxCounts per block, the most indices a received support may have
     */
    public int[][] exchangeSupport(SharedSupportCompressor.State memory, boolean chooses, List<ParamBlock> blocks,
                                   IndexCodec codec, int[] maxCounts, StepTag tag, PhaseClock clock) {
        if (chooses) {
            int[][] support = memory.chooseSupport(tag.step());
            clock.enter(Phase.ENCODE);
            byte[] frame = new Support(support).encode(blocks, codec, tag);
            clock.enter(Phase.COMMUNICATE);
            link.send(server, frame);
            return support;
        }
        clock.enter(Phase.COMMUNICATE);
        Frame frame = receive(Support.KIND, tag);
        clock.enter(Phase.DECODE);
        return Support.decode(frame, blocks, codec, maxCounts).indices();
    }

    /** Sends frames to the server, in order. */
    public void send(PhaseClock clock, byte[]... frames) {
        clock.enter(Phase.COMMUNICATE);
        for (byte[] f : frames) {
            link.send(server, f);
        }
    }

    /** The next frame from the server, of {@code kind} and this step. */
    public Frame receive(TrafficKind kind, StepTag tag) {
        return link.receive(server, kind, tag);
    }
}
