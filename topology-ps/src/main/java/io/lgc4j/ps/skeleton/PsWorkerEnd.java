package io.lgc4j.ps.skeleton;

import io.lgc4j.core.codec.IndexCodec;
import io.lgc4j.core.comm.Frame;
import io.lgc4j.core.comm.FrameBuffer;
import io.lgc4j.core.comm.TrafficKind;
import io.lgc4j.core.comm.Transport;
import io.lgc4j.core.compress.BlockRegion;
import io.lgc4j.core.compress.SharedSupportCompressor;
import io.lgc4j.core.layout.GradientLayout;
import io.lgc4j.core.layout.LayerPolicy;
import io.lgc4j.core.layout.ParamBlock;
import io.lgc4j.core.link.GradientPieces;
import io.lgc4j.core.link.Shortcuts;
import io.lgc4j.core.link.StepLink;
import io.lgc4j.core.metrics.Phase;
import io.lgc4j.core.metrics.PhaseClock;
import io.lgc4j.core.protocol.FloatFrames;
import io.lgc4j.core.protocol.Support;
import io.lgc4j.core.shard.FusionPlan;
import io.lgc4j.core.shard.ShardView;
import io.lgc4j.core.comm.StepTag;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.function.BiConsumer;

/**
 * A worker's end of the parameter server: the pieces every method's worker step is made of. The server is S shards,
 * endpoints K..K+S-1 (one shard, endpoint K, unless the topology is sharded); shard s serves shard s's slices of the
 * {@link FusionPlan}, so every piece sends shard s its part and takes back the mean of that part. Every frame received
 * is checked for the step's kind, step and stage. With one shard every frame is the unsharded server's, byte for
 * byte.
 */
public final class PsWorkerEnd {
    private final int rank;
    private final int workers;
    private final FusionPlan plan;
    private final StepLink link;
    private final List<Shard> shards;
    /** {@link #shards}, the one whose slices start highest first: the order a streamed dense step pushes them in. */
    private final List<Shard> byReadiness;
    /** Where the compressible blocks' frames go: every shard its pieces, or shard 0 all of them. */
    private final List<Shard> compressible;
    private final boolean oneCompressibleShard;
    private final Shortcuts shortcuts;

    /** What this worker sends shard s and gets back from it: its slices, DENSE pieces and compressible pieces. */
    private record Shard(int endpoint, BlockRegion all, BlockRegion dense, float[] allBuffer, float[] denseBuffer,
                         ShardView compressible, boolean contiguous) {
    }

    /** A worker of the unsharded server (one shard). */
    public PsWorkerEnd(int rank, int workers, Transport transport, GradientLayout layout) {
        this(rank, workers, transport, FusionPlan.single(layout));
    }

    /**
     * @param rank      this worker's rank
     * @param workers   K; shard s is endpoint K + s
     * @param transport this worker's endpoint
     * @param plan      the fusion plan over the gradient's blocks (its DENSE blocks are pushed as values in
     *                  compressed steps)
     */
    public PsWorkerEnd(int rank, int workers, Transport transport, FusionPlan plan) {
        this(rank, workers, transport, plan, false);
    }

    /**
     * @param compressibleOnShardZero whether shard 0 serves the compressible blocks whole (a method whose server
     *                                step needs them together, as LGC-PS's autoencoder does) while every shard serves
     *                                its slices of the dense gradient (FULL) and of the DENSE blocks
     */
    public PsWorkerEnd(int rank, int workers, Transport transport, FusionPlan plan, boolean compressibleOnShardZero) {
        this(rank, workers, transport, plan, compressibleOnShardZero, Shortcuts.DEFAULT);
    }

    /**
     * @param shortcuts how the step leader's support reaches the other workers ({@link #leadersSupport})
     */
    public PsWorkerEnd(int rank, int workers, Transport transport, FusionPlan plan, boolean compressibleOnShardZero,
                       Shortcuts shortcuts) {
        this.shortcuts = Objects.requireNonNull(shortcuts, "shortcuts");
        this.rank = rank;
        this.workers = workers;
        this.plan = plan;
        this.link = StepLink.psWorker(rank, workers, plan.shards(), transport);
        GradientLayout layout = plan.layout();
        List<Shard> list = new ArrayList<>(plan.shards());
        for (int s = 0; s < plan.shards(); s++) {
            BlockRegion all = new BlockRegion(plan.view(s).blocks());
            BlockRegion dense = new BlockRegion(plan.view(s, layout.blocks(LayerPolicy.DENSE)).blocks());
            boolean contiguous = plan.slices(s).size() <= 1;
            list.add(new Shard(workers + s, all, dense, contiguous ? null : new float[all.length()],
                    new float[dense.length()], plan.view(s, layout.compressibleBlocks()), contiguous));
        }
        this.shards = List.copyOf(list);
        list.sort(Comparator.comparingInt((Shard s) -> firstElement(s, layout.length())).reversed());
        this.byReadiness = List.copyOf(list);
        this.oneCompressibleShard = compressibleOnShardZero || plan.shards() == 1;
        Shard first = shards.get(0);
        this.compressible = compressibleOnShardZero && plan.shards() > 1
                ? List.of(new Shard(first.endpoint(), first.all(), first.dense(), first.allBuffer(), first.denseBuffer(),
                        ShardView.whole(0, layout.compressibleBlocks()), first.contiguous()))
                : shards;
    }

    /** Whether the step leader sends its support to the workers itself ({@link #leadersSupport}). */
    public boolean directSupport() {
        return shortcuts.directSupport();
    }

    /** This worker's rank. */
    public int rank() {
        return rank;
    }

    /** K. */
    public int workers() {
        return workers;
    }

    /** The fusion plan: S shards and their slices. */
    public FusionPlan plan() {
        return plan;
    }

    /**
     * Every shard's pieces of the compressible blocks, by shard; one view of them whole when shard 0 serves them
     * all.
     */
    public List<ShardView> compressibleViews() {
        return compressible.stream().map(Shard::compressible).toList();
    }

    /** A dense step: every shard its slices of the whole gradient, the means back into {@code gradient}. */
    public void fullStep(StepTag tag, float[] gradient, PhaseClock clock) {
        for (Shard s : shards) {
            pushFull(s, tag, gradient, clock);
        }
        receiveFullMeans(tag, gradient, clock);
    }

    /**
     * {@link #fullStep(StepTag, float[], PhaseClock)} on a gradient that arrives in pieces (the backward pass's last
     * layers first): each shard's push goes as soon as every slice it holds is final, the shard whose slices start
     * highest first. The frames are the whole step's, so the servers compute the same bits. With one server, or
     * fusion buffers that reach into the first layers on every shard, nothing can go before the pass ends.
     */
    public void fullStep(StepTag tag, float[] gradient, PhaseClock clock, GradientPieces pieces) {
        for (Shard s : byReadiness) {
            int first = firstElement(s, gradient.length);
            for (GradientPieces.Piece p : pieces.pieces()) {
                if (p.from() <= first && first < p.to()) {
                    clock.enter(Phase.COMPUTE); // waiting for the backward pass
                    pieces.await(p);
                }
            }
            pushFull(s, tag, gradient, clock);
        }
        receiveFullMeans(tag, gradient, clock);
    }

    /** The lowest element of the gradient shard {@code s} holds; {@code length} when it holds none. */
    private static int firstElement(Shard s, int length) {
        int first = length;
        for (ParamBlock b : s.all().blocks()) {
            first = Math.min(first, b.offset());
        }
        return first;
    }

    private void pushFull(Shard s, StepTag tag, float[] gradient, PhaseClock clock) {
        clock.enter(Phase.ENCODE);
        FrameBuffer frame;
        if (s.contiguous()) {
            int offset = s.all().length() == 0 ? 0 : s.all().blocks().get(0).offset();
            frame = FloatFrames.encode(link.transport(), gradient, offset, offset + s.all().length(),
                    TrafficKind.VALUES, tag.stage(), tag.step(), tag.values());
        } else {
            s.all().gather(gradient, s.allBuffer());
            frame = FloatFrames.encode(link.transport(), s.allBuffer(), 0, s.allBuffer().length,
                    TrafficKind.VALUES, tag.stage(), tag.step(), tag.values());
        }
        clock.enter(Phase.COMMUNICATE);
        link.send(s.endpoint(), frame);
    }

    private void receiveFullMeans(StepTag tag, float[] gradient, PhaseClock clock) {
        for (Shard s : shards) {
            clock.enter(Phase.COMMUNICATE);
            Frame mean = link.receive(s.endpoint(), TrafficKind.VALUES, tag);
            clock.enter(Phase.DECODE);
            if (s.contiguous()) {
                int offset = s.all().length() == 0 ? 0 : s.all().blocks().get(0).offset();
                FloatFrames.copyInto(mean, gradient, offset, offset + s.all().length());
            } else {
                FloatFrames.copyInto(mean, s.allBuffer(), 0, s.allBuffer().length);
                s.all().scatter(s.allBuffer(), gradient);
            }
        }
    }

    /**
     * Pushes every shard its pieces of the DENSE blocks as one VALUES frame: the first frame of a compressed step,
     * which opens the step at the shard (it reads the stage from it).
     */
    public void pushDense(StepTag tag, float[] gradient, PhaseClock clock) {
        for (Shard s : shards) {
            clock.enter(Phase.ENCODE);
            s.dense().gather(gradient, s.denseBuffer());
            FrameBuffer frame = FloatFrames.encode(link.transport(), s.denseBuffer(), 0, s.denseBuffer().length,
                    TrafficKind.VALUES, tag.stage(), tag.step(), tag.values());
            clock.enter(Phase.COMMUNICATE);
            link.send(s.endpoint(), frame);
        }
    }

    /** Receives every shard's mean of its DENSE pieces and writes it into {@code gradient}. */
    public void receiveDenseMean(StepTag tag, float[] gradient, PhaseClock clock) {
        for (Shard s : shards) {
            clock.enter(Phase.COMMUNICATE);
            Frame mean = link.receive(s.endpoint(), TrafficKind.VALUES, tag);
            clock.enter(Phase.DECODE);
            FloatFrames.copyInto(mean, s.denseBuffer(), 0, s.denseBuffer().length);
            s.dense().scatter(s.denseBuffer(), gradient);
        }
    }

    /**
     * The step's shared support: the worker that {@code chooses} takes it from its memory and sends every shard its
     * pieces' indices; the others receive them as the shards relay them, and put the pieces together.
     *
     * @param maxCounts per block, the most indices a received support may have
     */
    public int[][] exchangeSupport(SharedSupportCompressor.State memory, boolean chooses, IndexCodec codec,
                                   int[] maxCounts, StepTag tag, PhaseClock clock) {
        if (chooses) {
            return sendSupport(memory, codec, tag, clock, (s, frame) -> link.send(s.endpoint(), frame));
        }
        return receiveSupport(-1, codec, maxCounts, tag, clock);
    }

    /**
     * The step leader's support, by the configured route: relayed by the shards ({@link #exchangeSupport}: the leader
     * sends each shard its pieces' indices, the shards relay them, two legs), or with
     * {@link Shortcuts.SupportPath#DIRECT} sent by the leader to every other worker itself (the same frames, one leg;
     * the shards never see them).
     *
     * @param maxCounts per block, the most indices a received support may have
     */
    public int[][] leadersSupport(SharedSupportCompressor.State memory, int leader, IndexCodec codec, int[] maxCounts,
                                  StepTag tag, PhaseClock clock) {
        if (!shortcuts.directSupport()) {
            return exchangeSupport(memory, rank == leader, codec, maxCounts, tag, clock);
        }
        if (rank == leader) {
            return sendSupport(memory, codec, tag, clock, (s, frame) -> link.sendToAllBut(workers, rank, frame));
        }
        return receiveSupport(leader, codec, maxCounts, tag, clock);
    }

    /** Chooses the step's support and gives {@code to} each compressible shard's frame of its pieces' indices. */
    private int[][] sendSupport(SharedSupportCompressor.State memory, IndexCodec codec, StepTag tag, PhaseClock clock,
                                BiConsumer<Shard, byte[]> to) {
        int[][] support = memory.chooseSupport(tag.step());
        for (Shard s : compressible) {
            clock.enter(Phase.ENCODE);
            byte[] frame = new Support(s.compressible().split(support)).encode(s.compressible().blocks(), codec, tag);
            clock.enter(Phase.COMMUNICATE);
            to.accept(s, frame);
        }
        return support;
    }

    /**
     * The pieces of a support, one frame per compressible shard, put together: from worker {@code from} (the leader
     * sending them directly), or from each shard itself when {@code from} is negative (the relay).
     */
    private int[][] receiveSupport(int from, IndexCodec codec, int[] maxCounts, StepTag tag, PhaseClock clock) {
        List<int[][]> pieces = new ArrayList<>(compressible.size());
        for (Shard s : compressible) {
            clock.enter(Phase.COMMUNICATE);
            Frame frame = link.receive(from < 0 ? s.endpoint() : from, Support.KIND, tag);
            clock.enter(Phase.DECODE);
            pieces.add(Support.decode(frame, s.compressible().blocks(), codec,
                    s.compressible().bounds(maxCounts)).indices());
        }
        return compressible.size() == 1 ? pieces.get(0) : ShardView.merge(compressibleViews(), pieces);
    }

    /** Sends frames to shard {@code shard}, in order. */
    public void sendTo(int shard, PhaseClock clock, byte[]... frames) {
        clock.enter(Phase.COMMUNICATE);
        for (byte[] f : frames) {
            link.send(workers + shard, f);
        }
    }

    /**
     * Sends frames to the server that serves the compressible blocks whole, in order: the server, or shard 0 when it
     * serves them all.
     */
    public void send(PhaseClock clock, byte[]... frames) {
        sendTo(onlyShard(), clock, frames);
    }

    /** The next frame from shard {@code shard}, of {@code kind} and this step. */
    public Frame receiveFrom(int shard, TrafficKind kind, StepTag tag) {
        return link.receive(workers + shard, kind, tag);
    }

    /** The next frame from the server that serves the compressible blocks whole (see {@link #send}). */
    public Frame receive(TrafficKind kind, StepTag tag) {
        return receiveFrom(onlyShard(), kind, tag);
    }

    private int onlyShard() {
        if (!oneCompressibleShard) {
            throw new IllegalStateException("worker " + rank + ": this method's step talks to one server, the plan"
                    + " splits the compressible blocks over " + shards.size() + " shards");
        }
        return 0;
    }
}
