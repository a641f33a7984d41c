package io.lgc4j.ps.topology;

import io.lgc4j.core.codec.IndexCodec;
import io.lgc4j.core.comm.FloatFrames;
import io.lgc4j.core.comm.Frame;
import io.lgc4j.core.comm.FrameCodec;
import io.lgc4j.core.comm.FrameException;
import io.lgc4j.core.comm.TrafficKind;
import io.lgc4j.core.comm.Transport;
import io.lgc4j.core.compress.BlockRegion;
import io.lgc4j.core.compress.Compressor;
import io.lgc4j.core.compress.GatherCompressor;
import io.lgc4j.core.compress.SharedSupportCompressor;
import io.lgc4j.core.compress.Sketch;
import io.lgc4j.core.compress.SketchCompressor;
import io.lgc4j.core.compress.SparseFrames;
import io.lgc4j.core.compress.SparseMean;
import io.lgc4j.core.layout.GradientLayout;
import io.lgc4j.core.layout.LayerPolicy;
import io.lgc4j.core.layout.ParamBlock;
import io.lgc4j.core.stage.Stage;
import io.lgc4j.core.train.ServiceLoop;
import io.lgc4j.core.train.StepTag;

import java.util.List;

/**
 * The server of the compressed parameter server. Each step: the dense blocks of every worker are summed in rank
 * order and the mean broadcast; gather-only payloads are decoded, summed in rank order and the mean broadcast as
 * a sparse set on the union of the supports (downlink counted); for a shared-support compressor the leader's
 * indices are relayed to the other workers, the aligned values summed and their mean broadcast.
 */
final class CompressedServer implements ServiceLoop {
    private final Transport transport;
    private final int workers;
    private final Compressor compressor;
    private final IndexCodec codec;
    private final BlockRegion dense;
    private final List<ParamBlock> sparseBlocks;
    private final SparseMean mean;
    private final int length;

    CompressedServer(Transport transport, int workers, GradientLayout layout, Compressor compressor,
                     IndexCodec codec) {
        this.transport = transport;
        this.workers = workers;
        this.compressor = compressor;
        this.codec = codec;
        this.dense = new BlockRegion(layout.blocks(LayerPolicy.DENSE));
        this.sparseBlocks = layout.compressibleBlocks();
        this.mean = new SparseMean(sparseBlocks);
        this.length = layout.length();
    }

    @Override
    public void run() {
        float[] denseSum = new float[dense.length()];
        float[] fullSum = new float[length];
        while (true) {
            Frame first = transport.receive(0, TrafficKind.VALUES);
            StepTag tag = new StepTag(first.step(), first.stage());
            if (tag.stage() == Stage.FULL) {
                // A FULL step is dense: the whole gradient, averaged and broadcast.
                FloatFrames.copyInto(first, fullSum, 0, length);
                for (int w = 1; w < workers; w++) {
                    FloatFrames.addInto(receive(w, TrafficKind.VALUES, tag), fullSum, 0, length);
                }
                divide(fullSum);
                byte[] mean = FloatFrames.encode(fullSum, 0, length, TrafficKind.VALUES, tag.stage(), tag.step());
                for (int w = 0; w < workers; w++) {
                    transport.send(w, mean);
                }
                continue;
            }
            FloatFrames.copyInto(first, denseSum, 0, denseSum.length);
            for (int w = 1; w < workers; w++) {
                FloatFrames.addInto(receive(w, TrafficKind.VALUES, tag), denseSum, 0, denseSum.length);
            }
            divide(denseSum);
            byte[] denseMean = FloatFrames.encode(denseSum, 0, denseSum.length, TrafficKind.VALUES, tag.stage(),
                    tag.step());
            byte[][] sparseMean = compressor instanceof GatherCompressor ? gather(tag)
                    : compressor instanceof SketchCompressor ? sketches(tag) : shared(tag);
            for (int w = 0; w < workers; w++) {
                transport.send(w, denseMean);
                for (byte[] frame : sparseMean) {
                    transport.send(w, frame);
                }
            }
        }
    }

    private byte[][] gather(StepTag tag) {
        int[] max = PsSupport.maxCounts(sparseBlocks, compressor, tag.step());
        mean.reset();
        for (int w = 0; w < workers; w++) {
            int[][] supports = SparseFrames.decodeIndices(receive(w, TrafficKind.INDICES, tag), sparseBlocks, codec,
                    max);
            mean.add(SparseFrames.decode(supports, receive(w, TrafficKind.VALUES, tag), sparseBlocks));
        }
        return SparseFrames.encode(mean.mean(workers), sparseBlocks, codec, tag);
    }

    /** Sums the workers' sketches in rank order (counters added, bitmaps OR-ed) and broadcasts the sum. */
    private byte[][] sketches(StepTag tag) {
        Sketch sum = null;
        for (int w = 0; w < workers; w++) {
            Frame counters = receive(w, TrafficKind.VALUES, tag);
            Frame bitmap = receive(w, TrafficKind.INDICES, tag);
            int counterCount = sum == null ? counters.payloadLength() / 4 : sum.counters().length;
            int words = sum == null ? bitmap.payloadLength() / 8 : sum.bitmap().length;
            Sketch s = SketchFrames.decode(counters, bitmap, counterCount, words);
            if (sum == null) {
                sum = s;
            } else {
                sum.addInPlace(s);
            }
        }
        return SketchFrames.encode(sum, tag);
    }

    private byte[][] shared(StepTag tag) {
        int leader = ((SharedSupportCompressor) compressor).leader(tag.step(), workers);
        Frame indices = receive(leader, TrafficKind.INDICES, tag);
        int[][] support = SparseFrames.decodeIndices(indices, sparseBlocks, codec,
                PsSupport.maxCounts(sparseBlocks, compressor, tag.step()));
        byte[] relay = FrameCodec.encode(indices.kind(), indices.stage(), indices.step(), indices.payload());
        for (int w = 0; w < workers; w++) {
            if (w != leader) {
                transport.send(w, relay);
            }
        }
        int total = 0;
        for (int[] s : support) {
            total += s.length;
        }
        float[] sum = new float[total];
        for (int w = 0; w < workers; w++) {
            Frame values = receive(w, TrafficKind.VALUES, tag);
            if (w == 0) {
                FloatFrames.copyInto(values, sum, 0, total);
            } else {
                FloatFrames.addInto(values, sum, 0, total);
            }
        }
        divide(sum);
        return new byte[][] {FloatFrames.encode(sum, 0, total, TrafficKind.VALUES, tag.stage(), tag.step())};
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
