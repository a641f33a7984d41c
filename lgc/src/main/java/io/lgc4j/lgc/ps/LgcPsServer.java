package io.lgc4j.lgc.ps;

import io.lgc4j.lgc.autoencoder.AeLosses;
import io.lgc4j.lgc.autoencoder.AutoencoderLane;
import io.lgc4j.lgc.autoencoder.AutoencoderTrainer;
import io.lgc4j.lgc.DriftGuard;
import io.lgc4j.lgc.LgcAblation;
import io.lgc4j.lgc.LgcControl;
import io.lgc4j.lgc.LgcProtocolState;
import io.lgc4j.lgc.autoencoder.PsAutoencoder;
import io.lgc4j.lgc.autoencoder.Scale;
import io.lgc4j.core.checkpoint.CheckpointException;
import io.lgc4j.core.checkpoint.CheckpointPart;
import io.lgc4j.core.checkpoint.Persistent;
import io.lgc4j.core.checkpoint.Persistent.Regrouping;
import io.lgc4j.core.codec.IndexCodec;
import io.lgc4j.core.comm.Frame;
import io.lgc4j.lgc.support.CompactLayout;
import io.lgc4j.lgc.support.LgcSupportCompressor;
import io.lgc4j.core.compress.SparseMean;
import io.lgc4j.core.layout.GradientLayout;
import io.lgc4j.core.link.Averages;
import io.lgc4j.core.metrics.StepNotes;
import io.lgc4j.core.metrics.Timeline;
import io.lgc4j.lgc.wire.Code;
import io.lgc4j.lgc.wire.Flag;
import io.lgc4j.lgc.wire.Innovation;
import io.lgc4j.lgc.wire.Sample;
import io.lgc4j.core.protocol.SparseFrames;
import io.lgc4j.core.protocol.Support;
import io.lgc4j.core.protocol.Values;
import io.lgc4j.lgc.wire.Weights;
import io.lgc4j.core.comm.StepTag;
import io.lgc4j.ps.skeleton.PsServer;
import io.lgc4j.ps.skeleton.PsServerEnd;
import io.lgc4j.lgc.ps.LgcPsTopology.SupportPolicy;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The server of LGC-PS in TOP_K and COMPRESSED steps; see {@link LgcPsTopology} for the protocol. It owns the
 * autoencoder: trains it during TOP_K on the compact vectors inside the values it receives, ships the encoder at the
 * switch, and in COMPRESSED decodes one reconstruction per rank with that rank's decoder. A TOP_K step is the
 * shared-support server's step (the same {@link PsServerEnd} pieces: DENSE mean, support relay, aligned mean) plus
 * the autoencoder's training step. In a control run ({@link LgcAblation}) it averages what the ablation applies at
 * the LEARNED positions of a compressed step, and judges drift on what it would have applied without it.
 *
 * <p>Every use of the autoencoder runs on its {@link AutoencoderLane}, in the order the server makes them: a TOP_K
 * step submits its training step and the server goes on to the next step at once, while encoding, decoding, shipping
 * the encoder and saving wait there for the trainings before them. The graphs are built on the lane as soon as the
 * server is, during the warm-up. The training step's losses are therefore noted after {@link #serve} returns: the
 * runtime reports a step once the next is served ({@link #awaitNotes}).
 */
final class LgcPsServer implements PsServer.Step, Persistent {
    private final PsServerEnd end;
    private final int workers;
    private final LgcSupportCompressor support;
    private final SupportPolicy policy;
    private final IndexCodec codec;
    private final CompactLayout compact;
    private final SparseMean ownMean;
    private final PsAutoencoder autoencoder;
    private final AutoencoderTrainer trainer;
    private final AutoencoderLane lane;
    private final StepNotes notes;
    private final LgcControl control;
    private final DriftGuard guard;
    private final LgcProtocolState protocol;
    private final LgcAblation ablation;
    private final long seed;
    private final Timeline timeline;

    LgcPsServer(PsServerEnd end, GradientLayout layout, LgcPsTopology config) {
        this.end = end;
        this.timeline = end.timeline();
        this.workers = end.workers();
        this.support = config.supportCompressor();
        this.policy = config.policy();
        this.codec = config.codec();
        this.compact = new CompactLayout(layout, config.ratio());
        this.ownMean = new SparseMean(compact.blocks());
        this.autoencoder = config.newAutoencoder(compact.mu(), workers);
        this.trainer = AutoencoderTrainer.ps(autoencoder, config.seed());
        this.lane = new AutoencoderLane("lgc-ae-server-" + System.identityHashCode(this));
        lane.submit("building the autoencoder's graphs", autoencoder::prepare);
        timeline.threadName(Timeline.AE_THREAD, "autoencoder");
        this.notes = config.notes();
        this.control = config.control();
        this.guard = control.newGuard();
        this.protocol = new LgcProtocolState(control);
        this.ablation = control.ablation();
        this.seed = config.seed();
    }

    /** The autoencoder's losses, one per TOP_K step so far; read it after training ends. */
    List<AeLosses> losses() {
        return lane.call("reading the losses", () -> List.copyOf(trainer.history()));
    }

    /** The server's autoencoder (encoder and the K decoders); read it after training ends. */
    PsAutoencoder autoencoder() {
        lane.drain();
        return autoencoder;
    }

    @Override
    public boolean notesLag() {
        return true;
    }

    /** Waits until the autoencoder's training step of {@code step}, if it had one, has noted its losses. */
    @Override
    public void awaitNotes(int step) {
        lane.awaitStep(step);
    }

    /** This server, whose {@link #save} carries what it keeps from step to step. */
    @Override
    public Persistent state() {
        return this;
    }

    /**
     * At another number of workers, the autoencoder's part by {@link PsAutoencoder#resize}: fewer workers drop the
     * decoders of the ranks no longer there with their optimizer state; a new worker k ≥ K gets a copy of decoder k mod
     * K and its optimizer state ({@link LgcPsTopology#checkResize} allows that only with the drift guard, which falls
     * back to training when the copy reconstructs the new worker's vectors badly). The trainer's draws (replayed over
     * the new K at restore: its generator goes on as a run of K' would), its losses, the guard's window and the
     * protocol's flags stay as they are.
     */
    @Override
    public Regrouping regrouping(String prefix) {
        return Regrouping.NONE.withService((old, into, from, to) -> {
            for (String name : old.sectionNames()) {
                if (name.startsWith(prefix + "/") && !name.startsWith(prefix + "/ae/")) {
                    into.section(name).putBytes(old.bytes(name)); // not the trainer's own sections (traffic)
                }
            }
            PsAutoencoder.resize(old, prefix + "/ae", into, from, to);
        });
    }

    /**
     * What the server carries from step to step: the autoencoder ({@code prefix/ae/...}: encoder, the K decoders,
     * optimizer state), its trainer ({@code prefix/trainer/...}: draws and losses), the drift guard's window when a
     * guard runs ({@code prefix/guard/window}) and the protocol's flags ({@code prefix/protocol/state}). The rest is
     * configuration, or the step's own: the union mean is reset before each use, the notes are the step's report.
     * The autoencoder's training step of a TOP_K step may still run on the lane when {@link #serve} returns; a save runs
     * on the lane after it (and on the server's thread once serve has returned, {@code ServiceReporter#endStep}), so
     * it sees the whole step.
     */
    @Override
    public void save(CheckpointPart.Builder part, String prefix) {
        lane.call("saving the autoencoder", () -> {
            autoencoder.save(part, prefix + "/ae");
            trainer.save(part, prefix + "/trainer");
        });
        if (guard != null) {
            guard.save(part, prefix + "/guard");
        }
        protocol.save(part, prefix + "/protocol");
    }

    @Override
    public void restore(CheckpointPart part, String prefix) throws CheckpointException {
        lane.restore(() -> {
            autoencoder.restore(part, prefix + "/ae");
            trainer.restore(part, prefix + "/trainer");
        });
        if (guard != null) {
            guard.restore(part, prefix + "/guard");
        }
        protocol.restore(part, prefix + "/protocol");
    }

    @Override
    public void serve(Frame first, StepTag tag) {
        // the server's sub-steps as spans of a traced run; off, one branch per sub-step and no clock read
        boolean traced = timeline.covers(tag.step());
        long t = traced ? System.nanoTime() : 0;
        LgcProtocolState.Plan plan = protocol.plan(tag.stage());
        if (plan.shipWeights()) {
            // as soon as the step opens (the stage says so), not after the slowest worker's DENSE push: the weights
            // are the first frame to each worker either way, so every link carries what it carried, in its order
            shipEncoder(tag);
            t = span(traced, "ship encoder", tag, t);
            if (traced) {
                timeline.instant(Timeline.RANK_THREAD, "weights shipped", t, Map.of("step", tag.step()));
            }
        }
        byte[] denseMean = end.denseMean(first, tag);
        t = span(traced, "dense mean", tag, t);
        int[][][] supports = supports(tag);
        t = span(traced, "relay support", tag, t);
        float[][] values;  // the K ranks' values as the method has them: received, or reconstructed
        float[][] applied; // what the mean is taken of: the same, but in a compressed step of a control run
        if (plan.compressed()) {
            Decoded decoded = reconstructions(tag);
            values = decoded.reconstructions();
            applied = decoded.applied();
            t = span(traced, "decode K", tag, t);
        } else {
            values = end.receiveValues(compact.total(), tag);
            applied = values;
            t = span(traced, "values", tag, t);
        }
        byte[][] mean = policy == SupportPolicy.LEADER ? new byte[][] {end.alignedMean(applied, tag)}
                : unionMean(supports, applied, tag);
        boolean nextCompressed = !protocol.fallback();
        if (plan.check()) {
            // the method's reconstructions, not the control's: the guard trips where the method's would
            nextCompressed = !checkDrift(tag, values);
        }
        t = span(traced, "mean", tag, t);
        end.broadcast(denseMean, mean);
        t = span(traced, "broadcast", tag, t);
        if (!plan.check() && !plan.compressed()) {
            // after the broadcast, on the lane: the workers apply the mean and compute their next gradient, and the
            // server serves their next step, while the autoencoder trains on this step's vectors. Nothing the workers
            // receive depends on it before the flag (sent below, after a fallback step, from a measurement taken
            // before the training) or the next use of the autoencoder, which waits for it on the lane; its losses
            // reach the step's metrics because the step is reported only once they are noted (awaitNotes)
            nextCompressed = train(tag, values);
            t = span(traced, "ae.submit", tag, t);
        }
        if (plan.flag()) {
            // after a check or a fallback step: one CONTROL byte per worker, 1 if the next step is compressed; the
            // flag is taken first, so that nothing changes once the step's last frame has left (see save)
            protocol.nextStepCompressed(nextCompressed);
            end.sendToAll(new Flag(nextCompressed).encode(tag));
            t = span(traced, "flag", tag, t);
            if (traced && !nextCompressed) {
                timeline.instant(Timeline.RANK_THREAD, "fallback", t, Map.of("step", tag.step()));
            }
        }
    }

    /** Records {@code name} from {@code start} to now when {@code traced}; returns now (0 when not traced). */
    private long span(boolean traced, String name, StepTag tag, long start) {
        if (!traced) {
            return 0;
        }
        long now = System.nanoTime();
        timeline.span(Timeline.RANK_THREAD, name, "server", start, now, Map.of("step", tag.step()));
        return now;
    }

    /**
     * One training step on the K compact vectors inside the values received. In a fallback the common rank is the
     * step's leader, and the step first judges recovery: the error of the mean of the K reconstructions (as the
     * compressed stage would apply them) against the true mean, on every position, before the autoencoder trains on
     * these vectors.
     *
     * @return whether the step after a fallback step is compressed again (the autoencoder recovered); after a plain
     *         TOP_K step, whether no fallback is under way
     */
    private boolean train(StepTag tag, float[][] values) {
        float[][] compacts = new float[workers][];
        for (int w = 0; w < workers; w++) {
            compacts[w] = compact.learnedPart(values[w]);
        }
        if (!protocol.fallback()) {
            submitTraining(tag, () -> trainer.step(compacts));
            return true;
        }
        notes.put(tag.step(), StepNotes.LGC_FALLBACK, 1);
        int leader = support.leader(tag.step(), workers);
        DriftGuard.Measurement m = lane.call("judging recovery at step " + tag.step(), () -> {
            float scale = Scale.rms(compacts[leader]);
            float[] latent = autoencoder.encode(compacts[leader], scale);
            float[][] reconstructions = new float[workers][];
            for (int w = 0; w < workers; w++) {
                reconstructions[w] = reconstruct(w, latent, autoencoder.innovation(compacts[w]), scale);
            }
            return DriftGuard.measure(Averages.mean(reconstructions), Averages.mean(compacts), null);
        });
        submitTraining(tag, () -> trainer.step(compacts, leader));
        return guard.recovered(m);
    }

    /** Trains on the lane; the step's losses are noted there. */
    private void submitTraining(StepTag tag, Supplier<AeLosses> step) {
        lane.submitStep(tag.step(), "the autoencoder's training step " + tag.step(), () -> {
            long start = System.nanoTime();
            AeLosses losses = step.get();
            if (timeline.covers(tag.step())) {
                timeline.span(Timeline.AE_THREAD, "ae.train", "ae", start, System.nanoTime(),
                        Map.of("step", tag.step(), "rec_loss", losses.reconstruction()));
            }
            record(tag, losses);
        });
    }

    private void record(StepTag tag, AeLosses losses) {
        notes.put(tag.step(), StepNotes.AE_RECONSTRUCTION, losses.reconstruction());
        notes.put(tag.step(), StepNotes.AE_SIMILARITY, losses.similarity());
    }

    /**
     * A check step: every worker's true LEARNED values at the sampled positions (one CONTROL frame each); their mean
     * against the mean of what the server reconstructed there feeds the drift guard.
     *
     * @return whether the guard tripped
     */
    private boolean checkDrift(StepTag tag, float[][] values) {
        int[] sample = DriftGuard.samplePositions(seed, tag.step(), compact.mu(), control.checkSample());
        float[] truth = new float[compact.mu()];
        float[] applied = new float[compact.mu()];
        for (int w = 0; w < workers; w++) {
            float[] got = Sample.decode(end.receive(w, Sample.KIND, tag), sample.length).values();
            float[] rec = compact.learnedPart(values[w]);
            for (int i = 0; i < sample.length; i++) {
                truth[sample[i]] += got[i] / workers;
                applied[sample[i]] += rec[sample[i]] / workers;
            }
        }
        DriftGuard.Measurement m = DriftGuard.measure(applied, truth, sample);
        notes.put(tag.step(), StepNotes.AE_DRIFT, m.relative());
        return guard.observe(m);
    }

    /** D_k's reconstruction, with the innovation values put back over it when the control says so. */
    private float[] reconstruct(int rank, float[] latent, float[] innovation, float scale) {
        float[] rec = autoencoder.decode(rank, latent, innovation, scale);
        if (control.exactInnovation()) {
            // a zero innovation value (only when most of the vector is zero) keeps the decoder's output: same thing
            for (int i = 0; i < rec.length; i++) {
                if (innovation[i] != 0) {
                    rec[i] = innovation[i];
                }
            }
        }
        return rec;
    }

    /**
     * The encoder in its weight-file form to every worker, once: the leader changes every step, so every rank must
     * be able to encode.
     */
    private void shipEncoder(StepTag tag) {
        end.sendToAll(new Weights(lane.call("the encoder's bytes", autoencoder::encoderBytes)).encode(tag));
        protocol.weightsShipped();
    }

    /** Each rank's support of this step: LEADER, the leader's (relayed to the others); OWN, each rank's own. */
    private int[][][] supports(StepTag tag) {
        int[][][] supports = new int[workers][][];
        if (policy == SupportPolicy.LEADER) {
            // the server needs no support with the leader's (values are aligned, counts fixed by the step); it only
            // sees the indices when they pass through it (relay), and checks them there; direct, the workers do
            int leader = support.leader(tag.step(), workers);
            Optional<int[][]> supp = end.leadersSupport(leader, compact.blocks(), codec, compact.counts(), tag);
            supp.ifPresent(s -> compact.requireFullSupport(s, "leader " + leader, tag.step()));
            Arrays.fill(supports, supp.orElse(null));
        } else {
            for (int w = 0; w < workers; w++) {
                supports[w] = Support.decode(end.receive(w, Support.KIND, tag), compact.blocks(), codec,
                        compact.counts()).indices();
                compact.requireFullSupport(supports[w], "worker " + w, tag.step());
            }
        }
        return supports;
    }

    /**
     * A compressed step's values per rank: as the method reconstructs them, and as the step applies them (the same
     * arrays unless a control run replaces the LEARNED part).
     */
    private record Decoded(float[][] reconstructions, float[][] applied) {
    }

    /**
     * COMPRESSED: every rank's values on its support, the TOP_K blocks' as sent, the LEARNED blocks' decoded by
     * D_k from the leader's latent and rank k's innovation; in a control run also what it applies there instead.
     */
    private Decoded reconstructions(StepTag tag) {
        int leader = support.leader(tag.step(), workers);
        float[][] plain = new float[workers][compact.plainLength()];
        float[][] innovation = new float[workers][];
        Code code = null;
        for (int w = 0; w < workers; w++) {
            if (compact.plainLength() > 0) {
                plain[w] = Values.decode(end.receive(w, Values.KIND, tag), compact.plainLength())
                        .values();
            }
            if (w == leader) {
                code = Code.decode(end.receive(w, Code.KIND, tag), autoencoder.latentSize());
            }
            Frame positions = end.receive(w, Innovation.KIND, tag);
            Frame innovationValues = end.receive(w, Innovation.KIND, tag);
            innovation[w] = Innovation.decode(positions, innovationValues, codec, compact.mu(),
                    autoencoder.innovationCount()).toVector(compact.mu());
        }
        Code latent = code;
        return lane.call("decoding step " + tag.step(), () -> {
            float[][] values = new float[workers][];
            for (int w = 0; w < workers; w++) {
                values[w] = compact.merge(plain[w], reconstruct(w, latent.latent(), innovation[w], latent.scale()));
            }
            if (ablation == LgcAblation.NONE) {
                return new Decoded(values, values);
            }
            float[][] applied = new float[workers][];
            for (int w = 0; w < workers; w++) {
                applied[w] = compact.merge(plain[w], ablated(w, latent, innovation[w]));
            }
            return new Decoded(values, applied);
        });
    }

    /**
     * What a control run applies at rank {@code rank}'s LEARNED positions instead of its reconstruction (see
     * {@link LgcAblation}).
     */
    private float[] ablated(int rank, Code code, float[] innovation) {
        return switch (ablation) {
            case INNOVATION_ONLY -> innovation; // the exact values at their positions, zero elsewhere
            case LATENT_ONLY -> autoencoder.decode(rank, code.latent(), new float[compact.mu()], code.scale());
            case LEARNED_FROZEN -> new float[compact.mu()];
            case NONE, ZERO_LATENT -> throw new IllegalStateException("LGC-PS has no ablation " + ablation);
        };
    }

    /** OWN: each rank's values on its own support, summed, divided by K: indices and values of the union. */
    private byte[][] unionMean(int[][][] supports, float[][] values, StepTag tag) {
        ownMean.reset();
        for (int w = 0; w < workers; w++) {
            ownMean.add(compact.toSparse(supports[w], values[w]));
        }
        return SparseFrames.encode(ownMean.mean(workers), compact.blocks(), codec, tag);
    }
}
