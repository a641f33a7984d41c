package io.lgc4j.ps.lgc;

import io.lgc4j.autoencoders.AeLosses;
import io.lgc4j.autoencoders.AutoencoderTrainer;
import io.lgc4j.autoencoders.PsAutoencoder;
import io.lgc4j.core.codec.IndexCodec;
import io.lgc4j.core.comm.FloatFrames;
import io.lgc4j.core.comm.Frame;
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
    private boolean encoderShipped;

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
            boolean compressed = tag.stage() == Stage.COMPRESSED;
            if (compressed && !encoderShipped) {
                shipEncoder(tag);
            }
            int[][][] supports = supports(tag);
            float[][] values = compressed ? reconstructions(tag) : received(tag);
            byte[][] mean = policy == SupportPolicy.LEADER ? alignedMean(values, tag) : unionMean(supports, values, tag);
            if (!compressed) {
                // before the broadcast, so the step's losses are in its metrics when the workers finish it (the
                // workers would otherwise compute their next gradient meanwhile: an overlap given up for that)
                float[][] compacts = new float[workers][];
                for (int w = 0; w < workers; w++) {
                    compacts[w] = compact.learnedPart(values[w]);
                }
                AeLosses losses = trainer.step(compacts);
                notes.put(tag.step(), StepNotes.AE_RECONSTRUCTION, losses.reconstruction());
                notes.put(tag.step(), StepNotes.AE_SIMILARITY, losses.similarity());
            }
            for (int w = 0; w < workers; w++) {
                transport.send(w, denseMean);
                for (byte[] frame : mean) {
                    transport.send(w, frame);
                }
            }
        }
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
            float[] rec = autoencoder.decode(w, code.latent(), innovation[w], code.scale());
            values[w] = compact.merge(plain[w], rec);
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
