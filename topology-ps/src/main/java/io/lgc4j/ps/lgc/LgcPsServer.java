package io.lgc4j.ps.lgc;

import io.lgc4j.autoencoders.AeLosses;
import io.lgc4j.autoencoders.AutoencoderTrainer;
import io.lgc4j.autoencoders.DriftGuard;
import io.lgc4j.autoencoders.LgcControl;
import io.lgc4j.autoencoders.PsAutoencoder;
import io.lgc4j.autoencoders.Scale;
import io.lgc4j.core.codec.IndexCodec;
import io.lgc4j.core.comm.FloatFrames;
import io.lgc4j.core.comm.Frame;
import io.lgc4j.core.comm.FlagFrames;
import io.lgc4j.core.comm.FrameCodec;
import io.lgc4j.core.comm.FrameException;
import io.lgc4j.core.comm.TrafficKind;
import io.lgc4j.core.comm.Transport;
import io.lgc4j.core.compress.CompactLayout;
import io.lgc4j.core.compress.BlockRegion;
import io.lgc4j.core.compress.LgcSupportCompressor;
import io.lgc4j.core.compress.SparseFrames;
import io.lgc4j.core.compress.SparseMean;
import io.lgc4j.core.layout.GradientLayout;
import io.lgc4j.core.layout.LayerPolicy;
import io.lgc4j.core.metrics.StepNotes;
import io.lgc4j.core.stage.Stage;
import io.lgc4j.core.train.ServiceLoop;
import io.lgc4j.core.train.StepTag;
import io.lgc4j.ps.lgc.LgcPsTopology.SupportPolicy;
import io.lgc4j.ps.server.DenseAveragingServer;

import java.nio.ByteBuffer;
import java.util.List;

/**
 * The server of LGC-PS (endpoint K); see {@link LgcPsTopology} for the protocol. It owns the autoencoder: trains
 * it during TOP_K on the compact vectors inside the values it receives, ships the encoder at the switch, and in
 * COMPRESSED decodes one reconstruction per rank with that rank's decoder. Sums run in rank order, so the mean does
 * not depend on arrival.
 */
final class LgcPsServer implements ServiceLoop {
    private final Transport transport;
    private final int workers;
    private final LgcSupportCompressor support;
    private final SupportPolicy policy;
    private final IndexCodec codec;
    private final CompactLayout compact;
    private final BlockRegion dense;
    private final SparseMean ownMean;
    private final DenseAveragingServer fullSteps;
    private final int length;
    private final PsAutoencoder autoencoder;
    private final AutoencoderTrainer trainer;
    private final StepNotes notes;
    private final LgcControl control;
    private final DriftGuard guard;
    private final long seed;
    private boolean encoderShipped;
    /** Whether the drift guard tripped and COMPRESSED steps run as TOP_K steps until the autoencoder recovers. */
    private boolean fallback;
    private int compressedSteps;

    LgcPsServer(Transport transport, int workers, GradientLayout layout, LgcPsTopology config) {
        this.transport = transport;
        this.workers = workers;
        this.support = config.supportCompressor();
        this.policy = config.policy();
        this.codec = config.codec();
        this.compact = new CompactLayout(layout, config.ratio());
        this.dense = new BlockRegion(layout.blocks(LayerPolicy.DENSE));
        this.ownMean = new SparseMean(compact.blocks());
        this.length = layout.length();
        this.fullSteps = new DenseAveragingServer(transport, workers, length);
        this.autoencoder = config.newAutoencoder(compact.mu(), workers);
        this.trainer = AutoencoderTrainer.ps(autoencoder, config.seed());
        this.notes = config.notes();
        this.control = config.control();
        this.guard = control.newGuard();
        this.seed = config.seed();
    }

    /** The autoencoder's losses, one per TOP_K step so far; read it after training ends. */
    List<AeLosses> losses() {
        return trainer.history();
    }

    @Override
    public void run() {
        float[] fullSum = new float[length];
        float[] denseSum = new float[dense.length()];
        while (true) {
            Frame first = transport.receive(0, TrafficKind.VALUES);
            if (first.stage() == Stage.FULL) {
                fullSteps.serveStep(first, fullSum);
                continue;
            }
            StepTag tag = new StepTag(first.step(), first.stage());
            FloatFrames.copyInto(first, denseSum, 0, denseSum.length);
            for (int w = 1; w < workers; w++) {
                FloatFrames.addInto(receive(w, TrafficKind.VALUES, tag), denseSum, 0, denseSum.length);
            }
            divide(denseSum);
            byte[] denseMean = FloatFrames.encode(denseSum, 0, denseSum.length, TrafficKind.VALUES, tag.stage(),
                    tag.step());
            boolean compressed = tag.stage() == Stage.COMPRESSED && !fallback;
            boolean check = compressed && guard != null && compressedSteps++ % control.checkEvery() == 0;
            boolean flag = check || fallback;
            if (compressed && !encoderShipped) {
                shipEncoder(tag);
            }
            int[][][] supports = supports(tag);
            float[][] values = compressed ? reconstructions(tag) : received(tag);
            byte[][] mean = policy == SupportPolicy.LEADER ? alignedMean(values, tag) : unionMean(supports, values, tag);
            if (check) {
                checkDrift(tag, values);
            }
            if (!compressed) {
                // before the broadcast, so the step's losses are in its metrics when the workers finish it (the
                // workers would otherwise compute their next gradient meanwhile: an overlap given up for that)
                train(tag, values);
            }
            for (int w = 0; w < workers; w++) {
                transport.send(w, denseMean);
                for (byte[] frame : mean) {
                    transport.send(w, frame);
                }
            }
            if (flag) {
                sendNextStepCompressed(tag);
            }
        }
    }

    /**
     * One training step on the K compact vectors inside the values received. In a fallback the common rank is the
     * step's leader, and the step first judges recovery: the error of the mean of the K reconstructions (as the
     * compressed stage would apply them) against the true mean, on every position, before the autoencoder trains on
     * these vectors.
     */
    private void train(StepTag tag, float[][] values) {
        float[][] compacts = new float[workers][];
        for (int w = 0; w < workers; w++) {
            compacts[w] = compact.learnedPart(values[w]);
        }
        if (!fallback) {
            record(tag, trainer.step(compacts));
            return;
        }
        notes.put(tag.step(), StepNotes.LGC_FALLBACK, 1);
        int leader = support.leader(tag.step(), workers);
        float scale = Scale.rms(compacts[leader]);
        float[] latent = autoencoder.encode(compacts[leader], scale);
        float[][] reconstructions = new float[workers][];
        for (int w = 0; w < workers; w++) {
            reconstructions[w] = reconstruct(w, latent, autoencoder.innovation(compacts[w]), scale);
        }
        DriftGuard.Measurement m = DriftGuard.measure(meanOf(reconstructions), meanOf(compacts), null);
        record(tag, trainer.step(compacts, leader));
        if (guard.recovered(m)) {
            fallback = false;
            encoderShipped = false;
        }
    }

    private void record(StepTag tag, AeLosses losses) {
        notes.put(tag.step(), StepNotes.AE_RECONSTRUCTION, losses.reconstruction());
        notes.put(tag.step(), StepNotes.AE_SIMILARITY, losses.similarity());
    }

    /**
     * A check step: every worker's true LEARNED values at the sampled positions (one CONTROL frame each); their mean
     * against the mean of what the server reconstructed there feeds the drift guard.
     */
    private void checkDrift(StepTag tag, float[][] values) {
        int[] sample = DriftGuard.samplePositions(seed, tag.step(), compact.mu(), control.checkSample());
        float[] truth = new float[compact.mu()];
        float[] applied = new float[compact.mu()];
        float[] got = new float[sample.length];
        for (int w = 0; w < workers; w++) {
            FloatFrames.copyInto(receive(w, TrafficKind.CONTROL, tag), got, 0, sample.length);
            float[] rec = compact.learnedPart(values[w]);
            for (int i = 0; i < sample.length; i++) {
                truth[sample[i]] += got[i] / workers;
                applied[sample[i]] += rec[sample[i]] / workers;
            }
        }
        DriftGuard.Measurement m = DriftGuard.measure(applied, truth, sample);
        notes.put(tag.step(), StepNotes.AE_DRIFT, m.relative());
        if (guard.observe(m)) {
            fallback = true;
        }
    }

    /** After a check step or a fallback step: one CONTROL byte per worker, 1 if the next step is compressed. */
    private void sendNextStepCompressed(StepTag tag) {
        byte[] frame = FlagFrames.encode(!fallback, tag.stage(), tag.step());
        for (int w = 0; w < workers; w++) {
            transport.send(w, frame);
        }
    }

    private float[] meanOf(float[][] vectors) {
        float[] mean = new float[vectors[0].length];
        for (float[] v : vectors) {
            for (int i = 0; i < mean.length; i++) {
                mean[i] += v[i];
            }
        }
        divide(mean);
        return mean;
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
        byte[] frame = FrameCodec.encode(TrafficKind.AE_WEIGHTS, tag.stage(), tag.step(),
                ByteBuffer.wrap(autoencoder.encoderBytes()));
        for (int w = 0; w < workers; w++) {
            transport.send(w, frame);
        }
        encoderShipped = true;
    }

    /** Each rank's support of this step: LEADER, the leader's (relayed to the others); OWN, each rank's own. */
    private int[][][] supports(StepTag tag) {
        int[][][] supports = new int[workers][][];
        if (policy == SupportPolicy.LEADER) {
            int leader = support.leader(tag.step(), workers);
            Frame indices = receive(leader, TrafficKind.INDICES, tag);
            int[][] supp = decodeSupport(indices, "leader " + leader, tag);
            byte[] relay = FrameCodec.encode(indices.kind(), indices.stage(), indices.step(), indices.payload());
            for (int w = 0; w < workers; w++) {
                supports[w] = supp;
                if (w != leader) {
                    transport.send(w, relay);
                }
            }
        } else {
            for (int w = 0; w < workers; w++) {
                supports[w] = decodeSupport(receive(w, TrafficKind.INDICES, tag), "worker " + w, tag);
            }
        }
        return supports;
    }

    private int[][] decodeSupport(Frame indices, String source, StepTag tag) {
        int[][] supp = SparseFrames.decodeIndices(indices, compact.blocks(), codec, compact.counts());
        compact.requireFullSupport(supp, source, tag.step());
        return supp;
    }

    /** TOP_K: every rank's values on its support, as sent. */
    private float[][] received(StepTag tag) {
        float[][] values = new float[workers][compact.total()];
        for (int w = 0; w < workers; w++) {
            FloatFrames.copyInto(receive(w, TrafficKind.VALUES, tag), values[w], 0, compact.total());
        }
        return values;
    }

    /**
     * COMPRESSED: every rank's values on its support, the TOP_K blocks' as sent, the LEARNED blocks' decoded by
     * D_k from the leader's latent and rank k's innovation.
     */
    private float[][] reconstructions(StepTag tag) {
        int leader = support.leader(tag.step(), workers);
        float[][] plain = new float[workers][compact.plainLength()];
        float[][] innovation = new float[workers][];
        LgcFrames.Code code = null;
        for (int w = 0; w < workers; w++) {
            if (compact.plainLength() > 0) {
                FloatFrames.copyInto(receive(w, TrafficKind.VALUES, tag), plain[w], 0, compact.plainLength());
            }
            if (w == leader) {
                code = LgcFrames.decodeCode(receive(w, TrafficKind.LATENT, tag), autoencoder.latentSize());
            }
            Frame positions = receive(w, TrafficKind.INNOVATION, tag);
            Frame innovationValues = receive(w, TrafficKind.INNOVATION, tag);
            innovation[w] = LgcFrames.decodeInnovation(positions, innovationValues, codec, compact.mu(),
                    autoencoder.innovationCount());
        }
        float[][] values = new float[workers][];
        for (int w = 0; w < workers; w++) {
            values[w] = compact.merge(plain[w], reconstruct(w, code.latent(), innovation[w], code.scale()));
        }
        return values;
    }

    /** LEADER: the values line up on the one support; their mean is one values frame. */
    private byte[][] alignedMean(float[][] values, StepTag tag) {
        float[] sum = values[0].clone();
        for (int w = 1; w < workers; w++) {
            for (int i = 0; i < sum.length; i++) {
                sum[i] += values[w][i];
            }
        }
        divide(sum);
        return new byte[][] {FloatFrames.encode(sum, 0, sum.length, TrafficKind.VALUES, tag.stage(), tag.step())};
    }

    /** OWN: each rank's values on its own support, summed, divided by K: indices and values of the union. */
    private byte[][] unionMean(int[][][] supports, float[][] values, StepTag tag) {
        ownMean.reset();
        for (int w = 0; w < workers; w++) {
            ownMean.add(compact.toSparse(supports[w], values[w]));
        }
        return SparseFrames.encode(ownMean.mean(workers), compact.blocks(), codec, tag);
    }

    private void divide(float[] values) {
        float k = workers;
        for (int i = 0; i < values.length; i++) {
            values[i] /= k;
        }
    }

    private Frame receive(int worker, TrafficKind kind, StepTag tag) {
        Frame f = transport.receive(worker, kind);
        if (f.step() != tag.step() || f.stage() != tag.stage()) {
            throw new FrameException("server expected a " + kind + " frame of step " + tag.step() + " from worker "
                    + worker + ", found step " + f.step() + (f.stage() != tag.stage() ? " (" + f.stage() + ")" : ""));
        }
        return f;
    }
}
