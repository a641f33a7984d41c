package io.lgc4j.ring.collective;

import io.lgc4j.core.comm.Frame;
import io.lgc4j.core.comm.FrameBuffer;
import io.lgc4j.core.comm.FrameException;
import io.lgc4j.core.comm.TrafficKind;
import io.lgc4j.core.comm.Transport;
import io.lgc4j.core.metrics.Phase;
import io.lgc4j.core.metrics.PhaseClock;
import io.lgc4j.core.protocol.FloatFrames;
import io.lgc4j.core.protocol.SketchFrames;
import io.lgc4j.core.comm.StepTag;

/**
 * Bandwidth-optimal ring allreduce (Patarasuk and Yuan) of a float vector over K ranks: the vector is cut into K
 * balanced chunks (sizes differ by at most one element when K does not divide n); K−1 reduce-scatter rounds leave
 * rank r with the complete sum of chunk (r+1) mod K, and K−1 all-gather rounds copy every completed chunk around
 * the ring. Each rank sends 2·(K−1) frames carrying 2·(K−1)/K·n floats in all.
 *
 * <p>Every chunk's sum is computed once, on one rank, and then copied byte for byte: every rank ends with the
 * same bits. The frames carry the tag's value encoding ({@link StepTag#values()}); sums are taken in float32 after
 * decoding. In half precision the rank that completes a chunk rounds its own copy to what the others will decode
 * before the all-gather, so the bits stay identical; a chunk re-sent by the all-gather is already rounded and travels
 * unchanged ({@link io.lgc4j.core.comm.ValueEncoding}: a value rounded in one frame is exact in any frame that
 * holds a part of it).
 *
 * <pre>{@code
 * RingAllReduce ring = new RingAllReduce(transport, rank, workers);
 * ring.sum(gradient, new StepTag(step, Stage.FULL), clock);   // gradient now holds the sum over ranks
 * }</pre>
 */
public final class RingAllReduce {
    private final Transport transport;
    private final int rank;
    private final int size;

    /**
     * @param transport this rank's transport; ranks 0..size-1 are its ring in order
     * @param rank      this rank's position in the ring
     * @param size      ring size K
     */
    public RingAllReduce(Transport transport, int rank, int size) {
        if (size < 1 || rank < 0 || rank >= size) {
            throw new IllegalArgumentException("rank must be in 0.." + (size - 1) + " of a ring of size >= 1, found"
                    + " rank " + rank + " of " + size);
        }
        if (transport.endpointCount() < size) {
            throw new IllegalArgumentException("a ring of " + size + " ranks needs " + size + " endpoints, the"
                    + " transport has " + transport.endpointCount());
        }
        this.transport = transport;
        this.rank = rank;
        this.size = size;
    }

    /** First element of chunk {@code c} of a vector of {@code n} elements cut into {@code k} chunks. */
    public static int chunkStart(int n, int k, int c) {
        return (int) ((long) c * n / k);
    }

    /** Replaces {@code data} with the element-wise sum over all ranks' {@code data}. */
    public void sum(float[] data, StepTag tag, PhaseClock clock) {
        sum(data, TrafficKind.VALUES, tag, clock);
    }

    /** As {@link #sum(float[], StepTag, PhaseClock)}, stamping frames with {@code kind} (values, latents). */
    public void sum(float[] data, TrafficKind kind, StepTag tag, PhaseClock clock) {
        if (size == 1) {
            return;
        }
        int n = data.length;
        int right = (rank + 1) % size;
        int left = (rank + size - 1) % size;
        for (int round = 0; round < size - 1; round++) {
            int send = Math.floorMod(rank - round, size);
            int receive = Math.floorMod(rank - round - 1, size);
            exchange(data, kind, tag, clock, right, left, send, receive, n, true);
        }
        int owned = (rank + 1) % size; // the chunk whose sum this rank completed: the others get it rounded
        tag.values().round(data, chunkStart(n, size, owned), chunkStart(n, size, owned + 1));
        for (int round = 0; round < size - 1; round++) {
            int send = Math.floorMod(rank + 1 - round, size);
            int receive = Math.floorMod(rank - round, size);
            exchange(data, kind, tag, clock, right, left, send, receive, n, false);
        }
    }

    /**
     * Replaces {@code words} with the bitwise OR over all ranks' {@code words} (bitmaps of supports), by the same
     * reduce-scatter and all-gather rounds as {@link #sum}, frames of {@code kind} in the bitmap-word layout of
     * {@link SketchFrames}.
     */
    public void or(long[] words, TrafficKind kind, StepTag tag, PhaseClock clock) {
        if (size == 1) {
            return;
        }
        int n = words.length;
        int right = (rank + 1) % size;
        int left = (rank + size - 1) % size;
        for (int phase = 0; phase < 2; phase++) {
            boolean reduce = phase == 0;
            for (int round = 0; round < size - 1; round++) {
                int sendChunk = reduce ? Math.floorMod(rank - round, size) : Math.floorMod(rank + 1 - round, size);
                int receiveChunk = reduce ? Math.floorMod(rank - round - 1, size) : Math.floorMod(rank - round, size);
                int from = chunkStart(n, size, sendChunk);
                int to = chunkStart(n, size, sendChunk + 1);
                clock.enter(Phase.ENCODE);
                FrameBuffer frame = SketchFrames.encodeWords(transport, words, from, to, kind, tag.stage(),
                        tag.step());
                clock.enter(Phase.COMMUNICATE);
                transport.send(right, frame);
                Frame in = receive(left, kind, tag);
                clock.enter(Phase.DECODE);
                int rFrom = chunkStart(n, size, receiveChunk);
                int rTo = chunkStart(n, size, receiveChunk + 1);
                if (reduce) {
                    SketchFrames.orInto(in, words, rFrom, rTo);
                } else {
                    SketchFrames.copyInto(in, words, rFrom, rTo);
                }
            }
        }
    }

    /** The next chunk from {@code left}, of {@code kind}, which must be of the tag's step. */
    private Frame receive(int left, TrafficKind kind, StepTag tag) {
        Frame in = transport.receive(left, kind);
        if (in.step() != tag.step()) {
            throw new FrameException("rank " + rank + " expected a frame of step " + tag.step() + " from rank "
                    + left + ", found step " + in.step());
        }
        return in;
    }

    private void exchange(float[] data, TrafficKind kind, StepTag tag, PhaseClock clock, int right, int left,
                          int sendChunk, int receiveChunk, int n, boolean accumulate) {
        clock.enter(Phase.ENCODE);
        FrameBuffer frame = FloatFrames.encode(transport, data, chunkStart(n, size, sendChunk),
                chunkStart(n, size, sendChunk + 1), kind, tag.stage(), tag.step(), tag.values());
        clock.enter(Phase.COMMUNICATE);
        transport.send(right, frame);
        Frame in = receive(left, kind, tag);
        clock.enter(Phase.DECODE);
        int from = chunkStart(n, size, receiveChunk);
        int to = chunkStart(n, size, receiveChunk + 1);
        if (accumulate) {
            FloatFrames.addInto(in, data, from, to);
        } else {
            FloatFrames.copyInto(in, data, from, to);
        }
    }
}
