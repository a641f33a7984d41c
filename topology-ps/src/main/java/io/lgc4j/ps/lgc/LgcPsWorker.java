package io.lgc4j.ps.lgc;

import io.lgc4j.autoencoders.DriftGuard;
import io.lgc4j.autoencoders.LgcControl;
import io.lgc4j.autoencoders.PsAutoencoder;
import io.lgc4j.autoencoders.Scale;
import io.lgc4j.core.codec.IndexCodec;
import io.lgc4j.core.comm.FloatFrames;
import io.lgc4j.core.comm.FlagFrames;
import io.lgc4j.core.comm.FrameException;
import io.lgc4j.core.comm.Frame;
import io.lgc4j.core.comm.TrafficKind;
import io.lgc4j.core.comm.Transport;
import io.lgc4j.core.compress.CompactLayout;
import io.lgc4j.core.compress.BlockRegion;
import io.lgc4j.core.compress.LgcSupportCompressor;
import io.lgc4j.core.compress.SharedSupportCompressor;
import io.lgc4j.core.compress.SparseFrames;
import io.lgc4j.core.layout.GradientLayout;
import io.lgc4j.core.layout.LayerPolicy;
import io.lgc4j.core.layout.ParamBlock;
import io.lgc4j.core.metrics.Phase;
import io.lgc4j.core.metrics.PhaseClock;
import io.lgc4j.core.stage.Stage;
import io.lgc4j.core.train.GradientExchange;
import io.lgc4j.core.train.StepTag;
import io.lgc4j.ps.lgc.LgcPsTopology.SupportPolicy;
import io.lgc4j.ps.topology.DensePsWorker;

import java.util.ArrayList;
import java.util.List;

/** One worker's side of LGC-PS; see {@link LgcPsTopology} for the protocol. */
final class LgcPsWorker implements GradientExchange {
    private final int rank;
    private final int workers;
    private final int server;
    private final Transport transport;
    private final LgcSupportCompressor support;
    private final SupportPolicy policy;
    private final IndexCodec codec;
    private final CompactLayout compact;
    private final BlockRegion dense;
    private final float[] denseBuffer;
    private final SharedSupportCompressor.State memory;
    private final PsAutoencoder autoencoder;
    private final DensePsWorker fullStep;
    private final LgcControl control;
    private final long seed;
    private boolean encoderLoaded;
    /** Whether the server's drift guard tripped: COMPRESSED steps run as TOP_K steps until it says otherwise. */
    private boolean fallback;
    private int compressedSteps;

    LgcPsWorker(int rank, int workers, Transport transport, GradientLayout layout, LgcPsTopology config) {
        this.rank = rank;
        this.workers = workers;
        this.server = workers;
        this.transport = transport;
        this.support = config.supportCompressor();
        this.policy = config.policy();
        this.codec = config.codec();
        this.compact = new CompactLayout(layout, config.ratio());
        this.dense = new BlockRegion(layout.blocks(LayerPolicy.DENSE));
        this.denseBuffer = new float[dense.length()];
        this.memory = support.newRank(compact.blocks());
        // Only the encoder is used here (and only after the server ships it); the innovation is chosen by the
        // same rule the server trains with.
        this.autoencoder = config.newAutoencoder(compact.mu(), workers);
        this.fullStep = new DensePsWorker(rank, server, transport);
        this.control = config.control();
        this.seed = config.seed();
    }

    @Override
    public void allReduceMean(StepTag tag, float[] gradient, PhaseClock clock) {
        if (tag.stage() == Stage.FULL) {
            fullStep.allReduceMean(tag, gradient, clock);
            return;
        }
        boolean compressed = tag.stage() == Stage.COMPRESSED && !fallback;
        boolean check = compressed && control.guarded() && compressedSteps++ % control.checkEvery() == 0;
        boolean flag = check || (tag.stage() == Stage.COMPRESSED && fallback);
        clock.enter(Phase.ENCODE);
        dense.gather(gradient, denseBuffer);
        byte[] denseFrame = FloatFrames.encode(denseBuffer, 0, denseBuffer.length, TrafficKind.VALUES, tag.stage(),
                tag.step());
        clock.enter(Phase.COMMUNICATE);
        transport.send(server, denseFrame); // also opens the step at the server: it reads the stage from it
        if (compressed && !encoderLoaded) {
            Frame weights = receive(TrafficKind.AE_WEIGHTS, tag);
            clock.enter(Phase.DECODE);
            byte[] bytes = new byte[weights.payloadLength()];
            weights.payload().duplicate().get(bytes);
            autoencoder.loadEncoder(bytes);
            encoderLoaded = true;
        }
        int leader = support.leader(tag.step(), workers);
        clock.enter(Phase.SELECT);
        memory.compensate(gradient, tag.step());
        int[][] supp = chooseOrReceiveSupport(tag, leader, clock);
        clock.enter(Phase.SELECT);
        float[] values = memory.take(supp);
        clock.enter(Phase.ENCODE);
        byte[][] frames = compressed ? compressedFrames(tag, values, leader)
                : new byte[][] {FloatFrames.encode(values, 0, values.length, TrafficKind.VALUES, tag.stage(),
                        tag.step())};
        clock.enter(Phase.COMMUNICATE);
        for (byte[] f : frames) {
            transport.send(server, f);
        }
        if (check) {
            transport.send(server, checkFrame(tag, values));
        }
        Frame denseMean = receive(TrafficKind.VALUES, tag);
        clock.enter(Phase.DECODE);
        FloatFrames.copyInto(denseMean, denseBuffer, 0, denseBuffer.length);
        dense.scatter(denseBuffer, gradient);
        clock.enter(Phase.COMMUNICATE);
        if (policy == SupportPolicy.LEADER) {
            Frame mean = receive(TrafficKind.VALUES, tag);
            clock.enter(Phase.DECODE);
            SparseFrames.decode(supp, mean, compact.blocks()).writeInto(gradient, compact.blocks());
            if (compressed && control.reconstructionFeedback()) {
                feedBack(supp, values, mean);
            }
        } else {
            Frame indices = receive(TrafficKind.INDICES, tag);
            Frame mean = receive(TrafficKind.VALUES, tag);
            clock.enter(Phase.DECODE);
            int[][] union = SparseFrames.decodeIndices(indices, compact.blocks(), codec, blockLengths());
            SparseFrames.decode(union, mean, compact.blocks()).writeInto(gradient, compact.blocks());
        }
        if (flag) {
            clock.enter(Phase.COMMUNICATE);
            followServer(receive(TrafficKind.CONTROL, tag));
        }
    }

    /**
     * Reconstruction feedback: this rank's LEARNED values minus the mean applied there go back into its accumulator;
     * over the ranks these sum to K times what the autoencoder lost, so the accumulators keep it.
     */
    private void feedBack(int[][] supp, float[] values, Frame mean) {
        float[] applied = new float[compact.total()];
        FloatFrames.copyInto(mean, applied, 0, applied.length);
        float[] g = compact.learnedPart(values);
        float[] a = compact.learnedPart(applied);
        float[] lost = new float[g.length];
        for (int i = 0; i < lost.length; i++) {
            lost[i] = g[i] - a[i];
        }
        memory.feedBack(supp, compact.merge(new float[compact.plainLength()], lost));
    }

    /** A check step: this rank's true LEARNED values at the positions drawn from the seed and the step. */
    private byte[] checkFrame(StepTag tag, float[] values) {
        float[] g = compact.learnedPart(values);
        int[] sample = DriftGuard.samplePositions(seed, tag.step(), compact.mu(), control.checkSample());
        float[] truth = new float[sample.length];
        for (int i = 0; i < sample.length; i++) {
            truth[i] = g[sample[i]];
        }
        return FloatFrames.encode(truth, 0, truth.length, TrafficKind.CONTROL, tag.stage(), tag.step());
    }

    /** The server's flag after a check or fallback step: 1 = the next step is compressed (the encoder reships). */
    private void followServer(Frame flag) {
        boolean nextCompressed = FlagFrames.decode(flag, "worker " + rank + "'s stage flag from the server");
        if (fallback && nextCompressed) {
            encoderLoaded = false;
        }
        fallback = !nextCompressed;
    }

    /**
     * LEADER: the leader picks the support and sends it up, the others receive it relayed by the server. OWN: every
     * rank picks its own and sends it up.
     */
    private int[][] chooseOrReceiveSupport(StepTag tag, int leader, PhaseClock clock) {
        if (policy == SupportPolicy.OWN || rank == leader) {
            int[][] supp = memory.chooseSupport(tag.step());
            clock.enter(Phase.ENCODE);
            byte[] frame = SparseFrames.encodeIndices(supp, compact.counts(), compact.blocks(), codec, tag);
            clock.enter(Phase.COMMUNICATE);
            transport.send(server, frame);
            return supp;
        }
        clock.enter(Phase.COMMUNICATE);
        Frame frame = receive(TrafficKind.INDICES, tag);
        clock.enter(Phase.DECODE);
        int[][] supp = SparseFrames.decodeIndices(frame, compact.blocks(), codec, compact.counts());
        compact.requireFullSupport(supp, "the server (relaying leader " + leader + ")", tag.step());
        return supp;
    }

    /**
     * COMPRESSED: the TOP_K blocks' values (if any), the leader's latent and scale, and this rank's innovation.
     * The LEARNED values themselves do not travel.
     */
    private byte[][] compressedFrames(StepTag tag, float[] values, int leader) {
        float[] g = compact.learnedPart(values);
        float[] plain = compact.plainPart(values);
        byte[][] innovation = LgcFrames.encodeInnovation(g, autoencoder.innovationPositions(g), codec, tag);
        List<byte[]> frames = new ArrayList<>(4);
        if (plain.length > 0) {
            frames.add(FloatFrames.encode(plain, 0, plain.length, TrafficKind.VALUES, tag.stage(), tag.step()));
        }
        if (rank == leader) {
            float scale = Scale.rms(g);
            frames.add(LgcFrames.encodeCode(autoencoder.encode(g, scale), scale, tag));
        }
        frames.add(innovation[0]);
        frames.add(innovation[1]);
        return frames.toArray(new byte[0][]);
    }

    private int[] blockLengths() {
        return compact.blocks().stream().mapToInt(ParamBlock::length).toArray();
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
