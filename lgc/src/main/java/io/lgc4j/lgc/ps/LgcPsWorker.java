package io.lgc4j.lgc.ps;

import io.lgc4j.core.checkpoint.CheckpointException;
import io.lgc4j.core.checkpoint.CheckpointPart;
import io.lgc4j.core.checkpoint.Persistent.Regrouping;
import io.lgc4j.core.codec.IndexCodec;
import io.lgc4j.core.comm.Frame;
import io.lgc4j.core.comm.StepTag;
import io.lgc4j.core.compress.CarriedState;
import io.lgc4j.core.compress.CompressorState;
import io.lgc4j.core.compress.SharedSupportCompressor;
import io.lgc4j.core.layout.GradientLayout;
import io.lgc4j.core.layout.ParamBlock;
import io.lgc4j.core.metrics.Phase;
import io.lgc4j.core.metrics.PhaseClock;
import io.lgc4j.core.protocol.SparseFrames;
import io.lgc4j.core.protocol.Support;
import io.lgc4j.core.protocol.Values;
import io.lgc4j.lgc.DriftGuard;
import io.lgc4j.lgc.LgcControl;
import io.lgc4j.lgc.LgcProtocolState;
import io.lgc4j.lgc.autoencoder.PsAutoencoder;
import io.lgc4j.lgc.autoencoder.Scale;
import io.lgc4j.lgc.ps.LgcPsTopology.SupportPolicy;
import io.lgc4j.lgc.support.CompactLayout;
import io.lgc4j.lgc.support.LgcSupportCompressor;
import io.lgc4j.lgc.wire.Code;
import io.lgc4j.lgc.wire.Flag;
import io.lgc4j.lgc.wire.Innovation;
import io.lgc4j.lgc.wire.Sample;
import io.lgc4j.lgc.wire.Weights;
import io.lgc4j.ps.skeleton.PsWorker;
import io.lgc4j.ps.skeleton.PsWorkerEnd;

import java.util.ArrayList;
import java.util.List;

/**
 * One worker's side of LGC-PS in its TOP_K and COMPRESSED steps; see {@link LgcPsTopology} for the protocol. A
 * TOP_K step is the shared-support parameter server's step (the same {@link PsWorkerEnd} pieces in the same
 * order); a COMPRESSED step replaces the LEARNED blocks' values by the leader's latent and every rank's innovation.
 */
final class LgcPsWorker extends CarriedState implements PsWorker.Step {
    private final PsWorkerEnd end;
    private final LgcSupportCompressor support;
    private final SupportPolicy policy;
    private final IndexCodec codec;
    private final CompactLayout compact;
    private final SharedSupportCompressor.State memory;
    private final PsAutoencoder autoencoder;
    private final LgcControl control;
    private final LgcProtocolState protocol;
    private final long seed;

    LgcPsWorker(PsWorkerEnd end, GradientLayout layout, LgcPsTopology config) {
        this.end = end;
        this.support = config.supportCompressor();
        this.policy = config.policy();
        this.codec = config.codec();
        this.compact = new CompactLayout(layout, config.ratio());
        this.memory = support.newRank(compact.blocks());
        // Only the encoder is used here (and only after the server ships it); the innovation is chosen by the
        // same rule the server trains with.
        this.autoencoder = config.newAutoencoder(compact.mu(), end.workers());
        autoencoder.prepareEncoder(); // now rather than in the first compressed step the rank leads
        this.control = config.control();
        this.protocol = new LgcProtocolState(control);
        this.seed = config.seed();
    }

    /**
     * At fewer workers: the accumulator keeps its mean over the ranks; the encoder the server shipped and the
     * protocol's flags are the same on every worker and stay so.
     */
    @Override
    public Regrouping regrouping(String prefix) {
        return super.regrouping(prefix).and(prefix + "/ae/encoder", Regrouping.Rule.REPLICATED)
                .and(prefix + "/protocol/state", Regrouping.Rule.REPLICATED);
    }

    /**
     * What a worker carries from step to step: its accumulator ({@code prefix/memory}), the encoder the server
     * shipped ({@code prefix/ae/encoder}: a worker only encodes, never trains, and its decoders stay as the seed
     * built them) and the protocol's flags ({@code prefix/protocol/state}). The rest is configuration, or the step's
     * own (the support, the values, the frames).
     */
    @Override
    public void save(CheckpointPart.Builder part, String prefix) {
        super.save(part, prefix);
        autoencoder.encoderState().save(part, prefix + "/ae");
        protocol.save(part, prefix + "/protocol");
    }

    @Override
    public void restore(CheckpointPart part, String prefix) throws CheckpointException {
        super.restore(part, prefix);
        autoencoder.encoderState().restore(part, prefix + "/ae");
        protocol.restore(part, prefix + "/protocol");
    }

    /**
     * The support memory (what every TOP_K and COMPRESSED step selects from, and where a warm-up's residual goes at
     * the switch).
     */
    @Override
    protected CompressorState carried() {
        return memory;
    }

    @Override
    public void run(StepTag tag, float[] gradient, PhaseClock clock) {
        LgcProtocolState.Plan plan = protocol.plan(tag.stage());
        memory.values(tag.values());
        end.pushDense(tag, gradient, clock); // also opens the step at the server: it reads the stage from it
        if (plan.shipWeights()) {
            Frame weights = end.receive(Weights.KIND, tag);
            clock.enter(Phase.DECODE);
            autoencoder.loadEncoder(Weights.decode(weights).form());
            protocol.weightsShipped();
        }
        int leader = support.leader(tag.step(), end.workers());
        clock.enter(Phase.SELECT);
        memory.compensate(gradient, tag.step());
        boolean chooses = policy == SupportPolicy.OWN || end.rank() == leader;
        int[][] supp = policy == SupportPolicy.OWN ? end.exchangeSupport(memory, true, codec, compact.counts(), tag,
                clock) : end.leadersSupport(memory, leader, codec, compact.counts(), tag, clock);
        if (!chooses) {
            compact.requireFullSupport(supp, end.directSupport() ? "leader " + leader
                    : "the server (relaying leader " + leader + ")", tag.step());
        }
        clock.enter(Phase.SELECT);
        float[] values = memory.take(supp);
        clock.enter(Phase.ENCODE);
        byte[][] frames = plan.compressed() ? compressedFrames(tag, values, leader)
                : new byte[][] {new Values(values).encode(tag)};
        end.send(clock, frames);
        if (plan.check()) {
            end.send(clock, checkSample(tag, values).encode(tag));
        }
        end.receiveDenseMean(tag, gradient, clock);
        if (policy == SupportPolicy.LEADER) {
            Frame mean = end.receive(Values.KIND, tag);
            clock.enter(Phase.DECODE);
            SparseFrames.decode(supp, mean, compact.blocks()).writeInto(gradient, compact.blocks());
            if (plan.compressed() && control.reconstructionFeedback()) {
                feedBack(supp, values, mean);
            }
        } else {
            Frame indices = end.receive(Support.KIND, tag);
            Frame mean = end.receive(Values.KIND, tag);
            clock.enter(Phase.DECODE);
            int[][] union = Support.decode(indices, compact.blocks(), codec, blockLengths()).indices();
            SparseFrames.decode(union, mean, compact.blocks()).writeInto(gradient, compact.blocks());
        }
        if (plan.flag()) {
            clock.enter(Phase.COMMUNICATE);
            protocol.nextStepCompressed(Flag.decode(end.receive(Flag.KIND, tag),
                    "worker " + end.rank() + "'s stage flag from the server").value());
        }
    }

    /**
     * Reconstruction feedback: this rank's LEARNED values minus the mean applied there go back into its accumulator;
     * over the ranks these sum to K times what the autoencoder lost, so the accumulators keep it.
     */
    private void feedBack(int[][] supp, float[] values, Frame mean) {
        float[] applied = Values.decode(mean, compact.total()).values();
        float[] g = compact.learnedPart(values);
        float[] a = compact.learnedPart(applied);
        float[] lost = new float[g.length];
        for (int i = 0; i < lost.length; i++) {
            lost[i] = g[i] - a[i];
        }
        memory.feedBack(supp, compact.merge(new float[compact.plainLength()], lost));
    }

    /** A check step: this rank's true LEARNED values at the positions drawn from the seed and the step. */
    private Sample checkSample(StepTag tag, float[] values) {
        int[] positions = DriftGuard.samplePositions(seed, tag.step(), compact.mu(), control.checkSample());
        return Sample.at(compact.learnedPart(values), positions);
    }

    /**
     * COMPRESSED: the TOP_K blocks' values (if any), the leader's latent and scale, and this rank's innovation.
     * The LEARNED values themselves do not travel.
     */
    private byte[][] compressedFrames(StepTag tag, float[] values, int leader) {
        float[] g = compact.learnedPart(values);
        float[] plain = compact.plainPart(values);
        byte[][] innovation = Innovation.at(g, autoencoder.innovationPositions(g)).encode(g.length, codec, tag);
        List<byte[]> frames = new ArrayList<>(4);
        if (plain.length > 0) {
            frames.add(new Values(plain).encode(tag));
        }
        if (end.rank() == leader) {
            float scale = Scale.rms(g);
            frames.add(new Code(autoencoder.encode(g, scale), scale).encode(tag));
        }
        frames.addAll(List.of(innovation));
        return frames.toArray(new byte[0][]);
    }

    private int[] blockLengths() {
        return compact.blocks().stream().mapToInt(ParamBlock::length).toArray();
    }
}
