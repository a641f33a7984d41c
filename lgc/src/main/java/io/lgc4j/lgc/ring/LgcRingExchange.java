package io.lgc4j.lgc.ring;

import io.lgc4j.core.checkpoint.CheckpointException;
import io.lgc4j.core.checkpoint.CheckpointPart;
import io.lgc4j.core.checkpoint.Persistent.Regrouping;
import io.lgc4j.core.codec.IndexCodec;
import io.lgc4j.core.comm.Frame;
import io.lgc4j.core.comm.StepTag;
import io.lgc4j.core.comm.TrafficKind;
import io.lgc4j.core.comm.ValueEncoding;
import io.lgc4j.core.compress.CarriedState;
import io.lgc4j.core.compress.CompressorState;
import io.lgc4j.core.compress.SharedSupportCompressor;
import io.lgc4j.core.layout.GradientLayout;
import io.lgc4j.core.layout.ParamBlock;
import io.lgc4j.core.link.Averages;
import io.lgc4j.core.link.GradientPieces;
import io.lgc4j.core.metrics.Phase;
import io.lgc4j.core.metrics.PhaseClock;
import io.lgc4j.core.metrics.StepNotes;
import io.lgc4j.core.metrics.Timeline;
import io.lgc4j.core.metrics.TracedTransport;
import io.lgc4j.core.protocol.Support;
import io.lgc4j.core.stage.Stage;
import io.lgc4j.core.train.GradientExchange;
import io.lgc4j.lgc.DriftGuard;
import io.lgc4j.lgc.LgcAblation;
import io.lgc4j.lgc.LgcControl;
import io.lgc4j.lgc.LgcProtocolState;
import io.lgc4j.lgc.autoencoder.AeLosses;
import io.lgc4j.lgc.autoencoder.AeTraining;
import io.lgc4j.lgc.autoencoder.AutoencoderLane;
import io.lgc4j.lgc.autoencoder.AutoencoderSpec;
import io.lgc4j.lgc.autoencoder.AutoencoderTrainer;
import io.lgc4j.lgc.autoencoder.LinearRingCode;
import io.lgc4j.lgc.autoencoder.RingAutoencoder;
import io.lgc4j.lgc.autoencoder.Scale;
import io.lgc4j.lgc.support.CompactLayout;
import io.lgc4j.lgc.support.LgcSupportCompressor;
import io.lgc4j.lgc.wire.AeSample;
import io.lgc4j.lgc.wire.Code;
import io.lgc4j.lgc.wire.Flag;
import io.lgc4j.lgc.wire.Sample;
import io.lgc4j.lgc.wire.Weights;
import io.lgc4j.ring.collective.RingAllReduce;
import io.lgc4j.ring.skeleton.RingEnd;

import java.util.List;
import java.util.Map;

/**
 * One rank's side of LGC-RAR; see {@link LgcRingTopology} for the protocol. A TOP_K step is the ring's
 * shared-support step (the leader's indices around the ring, the values' allreduce: the same {@link RingEnd} pieces)
 * plus the training samples sent to the trainer; a COMPRESSED step sends the LEARNED blocks as a latent instead. In a
 * control run ({@link LgcAblation}) a compressed step applies zeros, or the decoded zero latent, at the LEARNED
 * positions, and judges drift on the decoded mean latent as the method would.
 *
 * <p>Rank {@value #TRAINER} uses its autoencoder (or linear code) only on its {@link AutoencoderLane}: a TOP_K step
 * submits the training step there and goes on into the DENSE allreduce, while encoding, decoding, shipping the weights
 * and saving wait there for the trainings before them, so it computes what it computed in place. A fallback step still
 * waits for its training, whose loss decides the recovery flag. The training's losses are therefore noted after the
 * step: rank 0 completes a step's metrics at the end of the next ({@link #notesLag}). The other ranks' lanes run in
 * place. Every rank builds its graphs when the exchange is built.
 */
final class LgcRingExchange extends CarriedState implements GradientExchange {

    /** The rank that trains the autoencoder during TOP_K and ships it at the switch. */
    static final int TRAINER = 0;

    /** What the leader sends round the ring: its support, and in a compressed step the scale (a latent-less code). */
    private static final TrafficKind[] SUPPORT = {Support.KIND};
    private static final TrafficKind[] SUPPORT_AND_SCALE = {Support.KIND, Code.KIND};

    private final RingEnd end;
    private final int rank;
    private final int workers;
    private final LgcSupportCompressor support;
    private final IndexCodec codec;
    private final RingAllReduce ring;
    private final List<ParamBlock> sparseBlocks;
    private final CompactLayout compactLayout;
    private final int[] counts;
    private final int mu;
    private final SharedSupportCompressor.State memory;
    private final RingAutoencoder autoencoder; // null with the linear code
    private final AutoencoderTrainer trainer;   // the autoencoder's, on rank TRAINER only
    private final LinearRingCode linear;        // null with the autoencoder
    /** Where the autoencoder or linear code is used: its own thread on the trainer, in place elsewhere. */
    private final AutoencoderLane lane;

    private final StepNotes notes;
    private final LgcControl control;
    private final DriftGuard guard;
    private final LgcProtocolState protocol;
    private final LgcAblation ablation;
    private final long seed;

    LgcRingExchange(RingEnd end, GradientLayout layout, LgcSupportCompressor support, IndexCodec codec,
                    AutoencoderSpec spec, AeTraining training, long seed, StepNotes notes, LgcControl control,
                    int linearLatent) {
        this.end = end;
        this.notes = notes;
        this.control = control;
        this.guard = control.newGuard();
        this.protocol = new LgcProtocolState(control);
        this.ablation = control.ablation();
        this.seed = seed;
        this.rank = end.rank();
        this.workers = end.workers();
        this.support = support;
        this.codec = codec;
        this.ring = end.ring();
        this.sparseBlocks = layout.compressibleBlocks();
        this.compactLayout = new CompactLayout(layout, support.settings().ratio());
        this.counts = compactLayout.counts();
        this.mu = compactLayout.mu();
        this.memory = support.newRank(sparseBlocks);
        this.linear = linearLatent <= 0 ? null
                : rank == TRAINER ? new LinearRingCode(mu, linearLatent) : LinearRingCode.receiver(mu, linearLatent);
        this.autoencoder = linear == null ? new RingAutoencoder(spec, mu, workers, training, seed) : null;
        this.trainer = rank == TRAINER && linear == null ? AutoencoderTrainer.ring(autoencoder, seed) : null;
        this.lane = rank == TRAINER ? new AutoencoderLane("lgc-ae-rank-" + TRAINER + "-" + System.identityHashCode(this))
                : AutoencoderLane.inPlace();
        if (autoencoder != null) {
            lane.submit("building the autoencoder's graphs", rank == TRAINER ? autoencoder::prepare
                    : autoencoder::prepareCoding);
        }
        if (rank == TRAINER) {
            TracedTransport.timelineOf(end.link().transport()).threadName(Timeline.AE_THREAD, "autoencoder");
        }
    }

    @Override
    public boolean notesLag() {
        return rank == TRAINER;
    }

    @Override
    public void awaitNotes(int step) {
        lane.awaitStep(step);
    }

    /**
     * At another K: the accumulator keeps its mean over the ranks ({@code MEMORY}); the autoencoder or linear code is
     * rank {@value #TRAINER}'s own and every other rank's shipped copy ({@code SHIPPED}); the trainer's draws and losses
     * stay with rank {@value #TRAINER} (its draws replayed over the new K, so the generator goes on as a run of the new
     * K would from there); the guard's pooled window and the protocol's flags are the same everywhere.
     */
    @Override
    public Regrouping regrouping(String prefix) {
        Regrouping rules = super.regrouping(prefix);
        for (String shipped : List.of("ae/encoder", "ae/decoder", "ae/training", "linear/moment", "linear/basis")) {
            rules = rules.and(prefix + "/" + shipped, Regrouping.Rule.SHIPPED);
        }
        return rules.and(prefix + "/trainer/random", Regrouping.Rule.RANK_ZERO)
                .and(prefix + "/trainer/history", Regrouping.Rule.RANK_ZERO)
                .and(prefix + "/guard/window", Regrouping.Rule.REPLICATED)
                .and(prefix + "/protocol/state", Regrouping.Rule.REPLICATED);
    }

    /**
     * What this rank carries from step to step: its accumulator ({@code prefix/memory}), its autoencoder
     * ({@code prefix/ae/...}: encoder, decoder and optimizer state — the trainer's trains, the others' hold the
     * weights shipped to them), the trainer's draws and losses on rank {@value #TRAINER} ({@code prefix/trainer/...}),
     * the drift guard's window when a guard runs ({@code prefix/guard/window}) and the protocol's flags
     * ({@code prefix/protocol/state}). The rest is configuration, or the step's own (support, values, frames).
     */
    @Override
    public void save(CheckpointPart.Builder part, String prefix) {
        super.save(part, prefix);
        lane.call("saving the autoencoder", () -> {
            if (linear != null) {
                linear.save(part, prefix + "/linear");
            } else {
                autoencoder.save(part, prefix + "/ae");
            }
            if (trainer != null) {
                trainer.save(part, prefix + "/trainer");
            }
        });
        if (guard != null) {
            guard.save(part, prefix + "/guard");
        }
        protocol.save(part, prefix + "/protocol");
    }

    @Override
    public void restore(CheckpointPart part, String prefix) throws CheckpointException {
        super.restore(part, prefix);
        lane.restore(() -> {
            if (linear != null) {
                linear.restore(part, prefix + "/linear");
            } else {
                autoencoder.restore(part, prefix + "/ae");
            }
            if (trainer != null) {
                trainer.restore(part, prefix + "/trainer");
            }
        });
        if (guard != null) {
            guard.restore(part, prefix + "/guard");
        }
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

    /** A FULL step takes the gradient piece by piece. */
    @Override
    public boolean streams(StepTag tag) {
        return tag.stage() == Stage.FULL;
    }

    @Override
    public void allReduceMean(StepTag tag, float[] gradient, PhaseClock clock, GradientPieces pieces) {
        if (streams(tag)) {
            end.fullStep(tag, gradient, clock, pieces);
        } else {
            GradientExchange.super.allReduceMean(tag, gradient, clock, pieces);
        }
    }

    @Override
    public void allReduceMean(StepTag tag, float[] gradient, PhaseClock clock) {
        if (tag.stage() == Stage.FULL) {
            end.fullStep(tag, gradient, clock);
            return;
        }
        LgcProtocolState.Plan plan = protocol.plan(tag.stage());
        memory.values(tag.values());
        if (plan.shipWeights()) {
            shipWeights(tag, clock);
        }
        int leader = support.leader(tag.step(), workers);
        clock.enter(Phase.SELECT);
        memory.compensate(gradient, tag.step());
        int[][] supp = null;
        float[] values = null;
        float scale = 0;
        byte[][] frames = null;
        if (rank == leader) {
            supp = memory.chooseSupport(tag.step());
            values = memory.take(supp);
            scale = Scale.rms(compactLayout.learnedPart(values));
            clock.enter(Phase.ENCODE);
            byte[] indices = new Support(supp).encode(sparseBlocks, codec, tag);
            frames = plan.compressed() ? new byte[][] {indices, Code.scaleOnly(scale).encode(tag)}
                    : new byte[][] {indices};
        }
        Frame[] got = end.fromLeader(leader, frames, plan.compressed() ? SUPPORT_AND_SCALE : SUPPORT, tag, clock);
        if (rank != leader) {
            clock.enter(Phase.DECODE);
            supp = Support.decode(got[0], sparseBlocks, codec, counts).indices();
            if (plan.compressed()) {
                scale = Code.decode(got[1], 0).scale();
            }
            clock.enter(Phase.SELECT);
            values = memory.take(supp);
        }
        float[] compact = compactLayout.learnedPart(values);
        // the DENSE blocks' mean rides the hops of the values' allreduce in either stage
        float[] mean = plan.compressed() ? compressedMean(tag, plan, supp, values, compact, scale, gradient, clock)
                : topKMean(tag, values, compact, leader, gradient, clock);
        clock.enter(Phase.DECODE);
        compactLayout.toSparse(supp, mean).writeInto(gradient, sparseBlocks);
    }

    /** TOP_K: the values ride the allreduce; the LEARNED part goes to the trainer, which takes one step. */
    private float[] topKMean(StepTag tag, float[] values, float[] compact, int leader, float[] gradient,
                             PhaseClock clock) {
        boolean recovered = false;
        end.meanWithDense(values, TrafficKind.VALUES, tag, gradient, clock);
        if (rank != TRAINER) {
            clock.enter(Phase.COMMUNICATE);
            end.link().send(TRAINER, new AeSample(compact).encode(tag));
        } else {
            float[][] samples = new float[workers][];
            samples[TRAINER] = compact;
            clock.enter(Phase.COMMUNICATE);
            for (int peer = 0; peer < workers; peer++) {
                if (peer != TRAINER) {
                    samples[peer] = AeSample.decode(end.link().receive(peer, AeSample.KIND, tag), mu).compact();
                }
            }
            clock.enter(Phase.ENCODE); // training the autoencoder: the encoder side's cost of this stage
            String what = "the autoencoder's training step " + tag.step();
            if (tag.stage() == Stage.COMPRESSED) {
                // a fallback step: its flag is the training step's loss. The loss is per element against the
                // leader's scale; the check measures error relative to the mean's own energy, so recovery must too
                // (else a decoder that outputs nothing passes)
                AeLosses losses = lane.call(what, () -> train(tag, samples, leader));
                recovered = guard.recovered(new DriftGuard.Measurement(losses.reconstruction(),
                        meanEnergy(samples, leader)));
            } else {
                // the ranks go on into the DENSE allreduce while it trains; the next use of the autoencoder waits
                lane.submitStep(tag.step(), what, () -> train(tag, samples, leader));
            }
        }
        if (tag.stage() == Stage.COMPRESSED) {
            resumeIfRecovered(tag, recovered, clock);
        }
        return values;
    }

    /** One training step, its losses noted for the step; on the trainer's lane. */
    private AeLosses train(StepTag tag, float[][] samples, int leader) {
        long start = System.nanoTime();
        AeLosses losses = linear != null ? linear.trainStep(samples, leader) : trainer.step(samples, leader);
        Timeline timeline = TracedTransport.timelineOf(end.link().transport());
        if (timeline.covers(tag.step())) {
            timeline.span(Timeline.AE_THREAD, "ae.train", "ae", start, System.nanoTime(),
                    Map.of("step", tag.step(), "rec_loss", losses.reconstruction()));
        }
        notes.put(tag.step(), StepNotes.AE_RECONSTRUCTION, losses.reconstruction());
        notes.put(tag.step(), StepNotes.AE_SIMILARITY, losses.similarity());
        return losses;
    }

    /** Mean square of the ranks' mean compact vector, in units of the leader's scale (the training loss's units). */
    private double meanEnergy(float[][] samples, int leader) {
        double scale = Scale.rms(samples[leader]);
        double sum = 0;
        for (int i = 0; i < mu; i++) {
            double m = 0;
            for (float[] v : samples) {
                m += v[i];
            }
            m /= samples.length * scale;
            sum += m * m;
        }
        return sum / mu;
    }

    /**
     * During a fallback the trainer tells every rank, each step, whether the autoencoder has recovered (one CONTROL
     * byte, counted); on recovery the weights ship again at the next step and the compressed stage resumes.
     */
    private void resumeIfRecovered(StepTag tag, boolean recovered, PhaseClock clock) {
        notes.put(tag.step(), StepNotes.LGC_FALLBACK, 1);
        clock.enter(Phase.COMMUNICATE);
        boolean resume = recovered;
        if (rank == TRAINER) {
            end.link().sendToAllBut(workers, TRAINER, new Flag(recovered).encode(tag));
        } else {
            resume = Flag.decode(end.link().receive(TRAINER, Flag.KIND, tag), "rank " + rank + "'s recovery flag")
                    .value();
        }
        protocol.nextStepCompressed(resume);
    }

    /**
     * COMPRESSED: TOP_K blocks' values ride the allreduce; the LEARNED part rides it as a latent, in the same hops
     * (and the DENSE blocks' mean with them).
     */
    private float[] compressedMean(StepTag tag, LgcProtocolState.Plan plan, int[][] supp, float[] values,
                                   float[] compact, float scale, float[] gradient, PhaseClock clock) {
        float[] plain = compactLayout.plainPart(values);
        clock.enter(Phase.ENCODE);
        float[] latent = lane.call("encoding step " + tag.step(), () -> linear != null ? linear.encode(compact, scale)
                : autoencoder.encode(compact, scale));
        ring.run(clock, plain.length > 0 ? ring.sumPass(plain, TrafficKind.VALUES, tag) : null,
                ring.sumPass(latent, TrafficKind.LATENT, tag), end.densePass(tag, gradient));
        clock.enter(Phase.DECODE);
        Averages.divide(plain, workers);
        Averages.divide(latent, workers);
        float[] reconstruction = decode(latent, scale);
        float[] applied = switch (ablation) {
            case NONE -> reconstruction;
            case LEARNED_FROZEN -> new float[mu];
            case ZERO_LATENT -> decode(new float[latent.length], scale);
            case INNOVATION_ONLY, LATENT_ONLY -> throw new IllegalStateException("LGC-RAR has no ablation "
                    + ablation);
        };
        if (control.reconstructionFeedback()) {
            // each rank puts back its own vector minus the mean it applied; over the ranks these sum to K times
            // what the step's update missed, so the residuals keep it
            float[] lost = new float[mu];
            for (int i = 0; i < mu; i++) {
                lost[i] = compact[i] - applied[i];
            }
            memory.feedBack(supp, compactLayout.merge(new float[plain.length], lost));
        }
        if (plan.check()) {
            // the method's reconstruction, not a control run's: the guard trips where the method's would
            checkDrift(tag, compact, reconstruction, clock);
        }
        return compactLayout.merge(plain, applied);
    }

    private float[] decode(float[] meanLatent, float scale) {
        return lane.call("decoding", () -> linear != null ? linear.decode(meanLatent, scale)
                : autoencoder.decode(meanLatent, scale));
    }

    /** This rank's linear code, or null when it runs the autoencoder. */
    LinearRingCode linearCode() {
        return linear;
    }

    /**
     * This rank's autoencoder (after the switch, the trainer's weights), or null with the linear code; read it after
     * training ends.
     */
    RingAutoencoder autoencoder() {
        lane.drain();
        return autoencoder;
    }

    /**
     * Every {@code checkEvery} compressed steps: the true values at a sample of positions (the same on every rank,
     * drawn from the seed and the step) ride a small allreduce (CONTROL, counted); every rank computes the same
     * relative error of the reconstruction there and feeds the drift guard, so all ranks fall back together.
     */
    private void checkDrift(StepTag tag, float[] compact, float[] reconstruction, PhaseClock clock) {
        int[] sample = DriftGuard.samplePositions(seed, tag.step(), mu, control.checkSample());
        float[] truth = new float[mu];
        float[] sampled = Sample.at(compact, sample).values();
        ring.sum(sampled, Sample.KIND, tag.withValues(ValueEncoding.FP32), clock); // the guard's sample stays fp32
        clock.enter(Phase.DECODE);
        Averages.divide(sampled, workers);
        for (int i = 0; i < sample.length; i++) {
            truth[sample[i]] = sampled[i];
        }
        DriftGuard.Measurement m = DriftGuard.measure(reconstruction, truth, sample);
        notes.put(tag.step(), StepNotes.AE_DRIFT, m.relative());
        protocol.nextStepCompressed(!guard.observe(m));
    }

    /**
     * At the first COMPRESSED step the trainer sends the encoder and the decoder to every other rank; with the linear
     * code it fits the basis on every vector of the TOP_K stage and sends it, one form that encodes and decodes.
     */
    private void shipWeights(StepTag tag, PhaseClock clock) {
        if (linear != null) {
            if (rank == TRAINER) {
                clock.enter(Phase.ENCODE); // fitting the code: the encoder side's cost, as training is
                byte[] fitted = lane.call("fitting the linear code", () -> {
                    linear.fit();
                    return linear.basisBytes();
                });
                clock.enter(Phase.COMMUNICATE);
                byte[] basis = new Weights(fitted).encode(tag);
                for (int peer = 0; peer < workers; peer++) {
                    if (peer != TRAINER) {
                        end.link().send(peer, basis);
                    }
                }
            } else {
                clock.enter(Phase.COMMUNICATE);
                // the fit grows as mu^3 (8.5 s at mu = 1,708 here): beyond the steady-state receive deadline
                byte[] form = Weights.decode(end.link().receiveAfterWork(TRAINER, Weights.KIND, tag)).form();
                lane.call("loading the linear code", () -> linear.loadBasis(form));
            }
            protocol.weightsShipped();
            return;
        }
        clock.enter(Phase.COMMUNICATE);
        if (rank == TRAINER) {
            byte[][] weights = lane.call("the autoencoder's bytes", () -> new byte[][] {
                autoencoder.encoderBytes(), autoencoder.decoderBytes()});
            byte[] encoder = new Weights(weights[0]).encode(tag);
            byte[] decoder = new Weights(weights[1]).encode(tag);
            for (int peer = 0; peer < workers; peer++) {
                if (peer != TRAINER) {
                    end.link().send(peer, encoder);
                    end.link().send(peer, decoder);
                }
            }
        } else {
            byte[] encoder = Weights.decode(end.link().receive(TRAINER, Weights.KIND, tag)).form();
            byte[] decoder = Weights.decode(end.link().receive(TRAINER, Weights.KIND, tag)).form();
            lane.call("loading the autoencoder", () -> {
                autoencoder.loadEncoder(encoder);
                autoencoder.loadDecoder(decoder);
            });
        }
        protocol.weightsShipped();
    }
}
