package io.lgc4j.ps.skeleton;

import io.lgc4j.core.codec.IndexCodec;
import io.lgc4j.core.comm.Frame;
import io.lgc4j.core.comm.TrafficKind;
import io.lgc4j.core.comm.Transport;
import io.lgc4j.core.compress.BlockRegion;
import io.lgc4j.core.comm.FrameException;
import io.lgc4j.core.layout.GradientLayout;
import io.lgc4j.core.layout.LayerPolicy;
import io.lgc4j.core.layout.ParamBlock;
import io.lgc4j.core.link.Averages;
import io.lgc4j.core.link.Shortcuts;
import io.lgc4j.core.link.StepLink;
import io.lgc4j.core.metrics.Timeline;
import io.lgc4j.core.metrics.TracedTransport;
import io.lgc4j.core.protocol.FloatFrames;
import io.lgc4j.core.protocol.Support;
import io.lgc4j.core.comm.ValueEncoding;
import io.lgc4j.core.shard.FusionPlan;
import io.lgc4j.core.comm.StepTag;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The server's end of the parameter server, or of one shard of it: the pieces every method's server step is made
 * of. Workers are endpoints 0..K-1; a shard serves its slices of the {@link FusionPlan} (the whole gradient when
 * there is one shard) and knows nothing of the other shards; sums always run in rank order, in float32 whatever the values' encoding, so a mean never depends
 * on which frame arrived first; every mean goes back in the step's encoding (the one worker 0's first frame named).
 */
public final class PsServerEnd {
    private final int workers;
    private final StepLink link;
    private final BlockRegion dense;
    private final float[] denseSum;
    private final float[] fullSum;
    private final Shortcuts shortcuts;

    /** The unsharded server. */
    public PsServerEnd(Transport transport, int workers, GradientLayout layout) {
        this(transport, workers, FusionPlan.single(layout), 0);
    }

    /**
     * @param transport the shard's endpoint
     * @param workers   K
     * @param plan      the fusion plan over the gradient's blocks
     * @param shard     which shard this is
     */
    public PsServerEnd(Transport transport, int workers, FusionPlan plan, int shard) {
        this(transport, workers, plan, shard, Shortcuts.DEFAULT);
    }

    /** @param shortcuts whether the leader's support passes through this server ({@link #leadersSupport}) */
    public PsServerEnd(Transport transport, int workers, FusionPlan plan, int shard, Shortcuts shortcuts) {
        this.shortcuts = Objects.requireNonNull(shortcuts, "shortcuts");
        this.workers = workers;
        this.link = StepLink.psServer(workers, plan.shards(), shard, transport);
        this.dense = new BlockRegion(plan.view(shard, plan.layout().blocks(LayerPolicy.DENSE)).blocks());
        this.denseSum = new float[dense.length()];
        this.fullSum = new float[plan.shardLength(shard)];
    }

    /** K. */
    public int workers() {
        return workers;
    }

    /**
     * Waits for the next step: worker 0's first frame, always a VALUES frame (the whole gradient in a FULL step, the
     * DENSE blocks otherwise), whose stage and step say what the step is.
     */
    public Frame open() {
        return link.transport().receive(0, TrafficKind.VALUES);
    }

    /**
     * A dense step opened by {@code first}: the workers' slices (the whole gradients, unsharded) summed in rank
     * order; the mean to every worker.
     */
    public void serveFull(Frame first) {
        StepTag tag = new StepTag(first.step(), first.stage(), ValueEncoding.of(first));
        sum(first, tag, fullSum);
        link.sendToAll(workers, FloatFrames.encode(link.transport(), fullSum, 0, fullSum.length, TrafficKind.VALUES,
                tag.stage(), tag.step(), tag.values()));
    }

    /** A compressed step opened by {@code first}: the mean of the workers' DENSE blocks, as the frame to broadcast. */
    public byte[] denseMean(Frame first, StepTag tag) {
        sum(first, tag, denseSum);
        return FloatFrames.encode(denseSum, 0, denseSum.length, TrafficKind.VALUES, tag.stage(), tag.step(),
                tag.values());
    }

    private void sum(Frame first, StepTag tag, float[] sum) {
        FloatFrames.copyInto(first, sum, 0, sum.length);
        for (int w = 1; w < workers; w++) {
            FloatFrames.addInto(receive(w, TrafficKind.VALUES, tag), sum, 0, sum.length);
        }
        Averages.divide(sum, workers);
    }

    /**
     * The leader's support: its indices frame is decoded, then relayed byte for byte to every other worker.
     *
     * @param maxCounts per block, the most indices the support may have
     */
    public int[][] relaySupport(int leader, List<ParamBlock> blocks, IndexCodec codec, int[] maxCounts,
                                StepTag tag) {
        Frame indices = receive(leader, Support.KIND, tag);
        int[][] support = Support.decode(indices, blocks, codec, maxCounts).indices();
        link.sendToAllBut(workers, leader, StepLink.forward(link.transport(), indices));
        return support;
    }

    /**
     * The leader's support when it passes through this server ({@link #relaySupport}); empty when the leader sends
     * it to the workers itself ({@link Shortcuts.SupportPath#DIRECT}), and then the values frames say their lengths
     * ({@link #receiveAlignedValues}).
     */
    public Optional<int[][]> leadersSupport(int leader, List<ParamBlock> blocks, IndexCodec codec,
                                            int[] maxCounts, StepTag tag) {
        return shortcuts.directSupport() ? Optional.empty()
                : Optional.of(relaySupport(leader, blocks, codec, maxCounts, tag));
    }

    /**
     * One VALUES frame from every worker, in rank order, of the length worker 0's frame has: values on a support this
     * server did not see.
     *
     * @throws FrameException naming the worker whose frame has another length (the workers' supports differ)
     */
    public float[][] receiveAlignedValues(StepTag tag) {
        float[][] values = new float[workers][];
        for (int w = 0; w < workers; w++) {
            Frame frame = receive(w, TrafficKind.VALUES, tag);
            int count = FloatFrames.count(frame);
            if (w > 0 && count != values[0].length) {
                throw new FrameException("worker " + w + " sent " + count + " values at step " + tag.step()
                        + ", worker 0 sent " + values[0].length + ": values on one support must align");
            }
            values[w] = new float[count];
            FloatFrames.copyInto(frame, values[w], 0, count);
        }
        return values;
    }

    /** One VALUES frame of {@code length} floats from every worker, in rank order. */
    public float[][] receiveValues(int length, StepTag tag) {
        float[][] values = new float[workers][length];
        for (int w = 0; w < workers; w++) {
            FloatFrames.copyInto(receive(w, TrafficKind.VALUES, tag), values[w], 0, length);
        }
        return values;
    }

    /** The mean of aligned values (one vector per worker, summed in rank order) as one VALUES frame. */
    public byte[] alignedMean(float[][] values, StepTag tag) {
        float[] mean = Averages.mean(values);
        return FloatFrames.encode(mean, 0, mean.length, TrafficKind.VALUES, tag.stage(), tag.step(), tag.values());
    }

    /** To every worker, in rank order: the DENSE mean, then the step's other frames. */
    public void broadcast(byte[] denseMean, byte[]... rest) {
        for (int w = 0; w < workers; w++) {
            link.send(w, denseMean);
            for (byte[] frame : rest) {
                link.send(w, frame);
            }
        }
    }

    /** The same bytes to every worker. */
    public void sendToAll(byte[] frame) {
        link.sendToAll(workers, frame);
    }

    /**
     * Where the server records its own spans: the timeline of a traced endpoint ({@link TracedTransport#timelineOf}),
     * else {@link Timeline#NOOP}.
     */
    public Timeline timeline() {
        return TracedTransport.timelineOf(link.transport());
    }

    /** The step's frames are decoded: a network transport may reuse their receive buffers. */
    public void releaseReceived() {
        link.transport().releaseReceived();
    }

    /** The next frame from {@code worker}, of {@code kind} and this step. */
    public Frame receive(int worker, TrafficKind kind, StepTag tag) {
        return link.receive(worker, kind, tag);
    }
}
