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
import io.lgc4j.core.comm.ValueEncoding;

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
    private final int directBelowBytes;

    /**
     * @param transport this rank's transport; ranks 0..size-1 are its ring in order
     * @param rank      this rank's position in the ring
     * @param size      ring size K
     */
    public RingAllReduce(Transport transport, int rank, int size) {
        this(transport, rank, size, 0);
    }

    /**
     * @param directBelowBytes an fp32 sum whose payload is below this many bytes goes to every rank in one leg
     *                         ({@link #sumPass}); 0: every sum rides the ring
     */
    public RingAllReduce(Transport transport, int rank, int size, int directBelowBytes) {
        if (size < 1 || rank < 0 || rank >= size) {
            throw new IllegalArgumentException("rank must be in 0.." + (size - 1) + " of a ring of size >= 1, found"
                    + " rank " + rank + " of " + size);
        }
        if (transport.endpointCount() < size) {
            throw new IllegalArgumentException("a ring of " + size + " ranks needs " + size + " endpoints, the"
                    + " transport has " + transport.endpointCount());
        }
        if (directBelowBytes < 0) {
            throw new IllegalArgumentException("directBelowBytes must be >= 0, found " + directBelowBytes);
        }
        this.transport = transport;
        this.rank = rank;
        this.size = size;
        this.directBelowBytes = directBelowBytes;
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
        run(clock, sumPass(data, kind, tag));
    }

    /**
     * Replaces {@code words} with the bitwise OR over all ranks' {@code words} (bitmaps of supports), by the same
     * reduce-scatter and all-gather rounds as {@link #sum}, frames of {@code kind} in the bitmap-word layout of
     * {@link SketchFrames}.
     */
    public void or(long[] words, TrafficKind kind, StepTag tag, PhaseClock clock) {
        run(clock, orPass(words, kind, tag));
    }

    /**
     * One collective that rides the ring's hops: in its round r it sends this rank's frames of the round to the right
     * and then receives the left's. {@link #run} drives several in the same hops.
     */
    public interface Pass {
        /** How many hops this pass takes. */
        int rounds();

        /** Sends round {@code round}'s frames to the right. */
        void send(int round, PhaseClock clock);

        /** Receives round {@code round}'s frames from the left and takes them in. */
        void receive(int round, PhaseClock clock);

        /** After the last round (a mean divides here); nothing by default. */
        default void finish(PhaseClock clock) {
        }
    }

    /**
     * Runs {@code passes} together: in every hop each pass still running sends its round's frames, in the order
     * given, then each receives its round's frames in the same order, so a hop costs one wait however many passes
     * ride it. Every pass computes exactly what it computes alone (its frames, bytes and sums are the same; only
     * their order on the link interleaves), so fusing changes no bit. Null passes are skipped; every rank must give
     * the same passes in the same order.
     */
    public void run(PhaseClock clock, Pass... passes) {
        int rounds = 0;
        for (Pass p : passes) {
            if (p != null) {
                rounds = Math.max(rounds, p.rounds());
            }
        }
        for (int round = 0; round < rounds; round++) {
            for (Pass p : passes) {
                if (p != null && round < p.rounds()) {
                    p.send(round, clock);
                }
            }
            for (Pass p : passes) {
                if (p != null && round < p.rounds()) {
                    p.receive(round, clock);
                }
            }
        }
        for (Pass p : passes) {
            if (p != null) {
                p.finish(clock);
            }
        }
    }

    /**
     * The sum of {@code data} over the ranks as a pass: K−1 reduce-scatter rounds, then the owner of each completed
     * chunk rounds it to the tag's encoding, then K−1 all-gather rounds. Nothing to do on a ring of one. An fp32
     * payload below {@code directBelowBytes} goes direct instead ({@link #directPass}): the same bits in one leg.
     */
    public Pass sumPass(float[] data, TrafficKind kind, StepTag tag) {
        return sumPass(data, 0, data.length, kind, tag);
    }

    /**
     * The sum of elements {@code from..to} of {@code data} over the ranks as a pass, in the whole vector's chunks
     * clipped to that range: every element is summed in the order, and on the rank, the whole vector's pass sums it,
     * so summing a vector piece by piece gives the whole pass's bits wherever the encoding rounds element by element
     * (fp32, bf16; fp16 scales each frame). A chunk the range leaves empty travels in no frame (the whole range: in
     * an empty one, as always). An fp32 range below {@code directBelowBytes} goes direct ({@link #directPass}).
     */
    public Pass sumPass(float[] data, int from, int to, TrafficKind kind, StepTag tag) {
        if (from < 0 || to < from || to > data.length) {
            throw new IllegalArgumentException("a range of a vector of " + data.length + " elements, found " + from
                    + ".." + to);
        }
        if (size > 1 && tag.values() == ValueEncoding.FP32 && (long) (to - from) * Float.BYTES < directBelowBytes) {
            return directPass(data, from, to, kind, tag);
        }
        return new RingPass(data.length, from, to, kind, tag) {
            @Override
            void beforeGather() { // the chunk this rank completed: the others get it rounded
                int owned = (rank + 1) % size;
                tag.values().round(data, chunkFrom(owned), chunkFrom(owned + 1));
            }

            @Override
            FrameBuffer encode(int lo, int hi) {
                return FloatFrames.encode(transport, data, lo, hi, kind, tag.stage(), tag.step(), tag.values());
            }

            @Override
            void reduce(Frame in, int lo, int hi) {
                FloatFrames.addInto(in, data, lo, hi);
            }

            @Override
            void copy(Frame in, int lo, int hi) {
                FloatFrames.copyInto(in, data, lo, hi);
            }
        };
    }

    /**
     * The sum of an fp32 {@code data} as one leg: every rank sends its whole vector to every other and sums chunk c
     * as the ring does, starting from rank c's elements and adding rank c+1's, c+2's, ... in ring order
     * (((g_c + g_{c+1}) + g_{c+2}) + ...), so every rank ends with the ring's bits. Each rank sends (K−1)·n floats
     * instead of 2(K−1)/K·n, in one leg instead of 2(K−1) hops: for payloads whose hops cost more than their bytes.
     * fp32 only: in half precision the ring rounds its partial sums, which no rank could redo from rounded inputs.
     */
    Pass directPass(float[] data, TrafficKind kind, StepTag tag) {
        return directPass(data, 0, data.length, kind, tag);
    }

    /** {@link #directPass(float[], TrafficKind, StepTag)} of elements {@code from..to}, in the vector's chunks. */
    Pass directPass(float[] data, int from, int to, TrafficKind kind, StepTag tag) {
        if (tag.values() != ValueEncoding.FP32) {
            throw new IllegalArgumentException("a direct sum carries fp32 values only, found " + tag.values());
        }
        return new DirectPass(data, from, to, kind, tag);
    }

    /** {@link #directPass}: one leg to every other rank, then each chunk summed in the ring's order. */
    private final class DirectPass implements Pass {
        private final float[] data;
        private final int from;
        private final int to;
        private final TrafficKind kind;
        private final StepTag tag;

        DirectPass(float[] data, int from, int to, TrafficKind kind, StepTag tag) {
            this.data = data;
            this.from = from;
            this.to = to;
            this.kind = kind;
            this.tag = tag;
        }

        @Override
        public int rounds() {
            return 1;
        }

        @Override
        public void send(int round, PhaseClock clock) {
            clock.enter(Phase.ENCODE);
            FrameBuffer frame = FloatFrames.encode(transport, data, from, to, kind, tag.stage(), tag.step(),
                    ValueEncoding.FP32);
            clock.enter(Phase.COMMUNICATE);
            for (int i = 2; i < size; i++) {
                frame.retain(); // one reference per peer, all taken before the first send gives one back
            }
            for (int peer = 0; peer < size; peer++) {
                if (peer != rank) {
                    transport.send(peer, frame);
                }
            }
        }

        @Override
        public void receive(int round, PhaseClock clock) {
            float[][] all = new float[size][];
            int[] base = new int[size];
            all[rank] = data; // element i is read before it is written, and by no other element's sum
            for (int peer = 0; peer < size; peer++) {
                if (peer != rank) {
                    clock.enter(Phase.COMMUNICATE);
                    Frame in = RingAllReduce.this.receive(peer, kind, tag);
                    clock.enter(Phase.DECODE);
                    all[peer] = new float[to - from];
                    base[peer] = from;
                    FloatFrames.copyInto(in, all[peer], 0, to - from);
                }
            }
            clock.enter(Phase.DECODE);
            sumInRingOrder(all, base);
        }

        /**
         * Chunk c summed as the ring sums it: from rank c's elements, adding rank c+1's, c+2's, ... ({@code all[r]}
         * holds rank r's elements from {@code base[r]} on).
         */
        private void sumInRingOrder(float[][] all, int[] base) {
            int n = data.length;
            for (int c = 0; c < size; c++) {
                int lo = Math.max(from, chunkStart(n, size, c));
                int hi = Math.min(to, chunkStart(n, size, c + 1));
                for (int i = lo; i < hi; i++) {
                    float sum = all[c][i - base[c]];
                    for (int j = 1; j < size; j++) {
                        int r = (c + j) % size;
                        sum += all[r][i - base[r]];
                    }
                    data[i] = sum;
                }
            }
        }
    }

    /** The bitwise OR of {@code words} over the ranks as a pass, in the rounds of {@link #sumPass}. */
    public Pass orPass(long[] words, TrafficKind kind, StepTag tag) {
        return new RingPass(words.length, kind, tag) {
            @Override
            FrameBuffer encode(int from, int to) {
                return SketchFrames.encodeWords(transport, words, from, to, kind, tag.stage(), tag.step());
            }

            @Override
            void reduce(Frame in, int from, int to) {
                SketchFrames.orInto(in, words, from, to);
            }

            @Override
            void copy(Frame in, int from, int to) {
                SketchFrames.copyInto(in, words, from, to);
            }
        };
    }

    /** This rank's right neighbour, to which it sends. */
    public int right() {
        return (rank + 1) % size;
    }

    /** This rank's left neighbour, from which it receives. */
    public int left() {
        return (rank + size - 1) % size;
    }

    /**
     * A pass over a vector of {@code n} elements cut into K chunks: reduce-scatter rounds 0..K-2, in which rank r sends
     * chunk r − round and reduces chunk r − round − 1 into its own, then all-gather rounds, in which it sends chunk
     * r + 1 − g and copies chunk r − g (g = round − (K − 1)). Nothing on a ring of one.
     */
    private abstract class RingPass implements Pass {
        private final int n;
        private final int from;
        private final int to;
        private final boolean skipEmpty;
        private final TrafficKind kind;
        private final StepTag tag;

        RingPass(int n, TrafficKind kind, StepTag tag) {
            this(n, 0, n, kind, tag);
        }

        /** Over elements {@code from..to} of the vector, in its chunks clipped to them. */
        RingPass(int n, int from, int to, TrafficKind kind, StepTag tag) {
            this.n = n;
            this.from = from;
            this.to = to;
            this.skipEmpty = from > 0 || to < n;
            this.kind = kind;
            this.tag = tag;
        }

        /** Where chunk {@code c} starts in the pass's range (clipped to it). */
        int chunkFrom(int c) {
            return Math.min(to, Math.max(from, chunkStart(n, size, c)));
        }

        /** Elements lo..hi of the vector as one frame. */
        abstract FrameBuffer encode(int lo, int hi);

        /** Elements lo..hi of a received chunk reduced into the vector. */
        abstract void reduce(Frame in, int lo, int hi);

        /** Elements lo..hi of a received chunk copied into the vector. */
        abstract void copy(Frame in, int lo, int hi);

        /** Between the last reduce-scatter round and the first all-gather round; nothing by default. */
        void beforeGather() {
        }

        @Override
        public int rounds() {
            return size == 1 ? 0 : 2 * (size - 1);
        }

        @Override
        public void send(int round, PhaseClock clock) {
            if (round == size - 1) {
                beforeGather();
            }
            int chunk = round < size - 1 ? Math.floorMod(rank - round, size)
                    : Math.floorMod(rank + 1 - (round - size + 1), size);
            int lo = chunkFrom(chunk);
            int hi = chunkFrom(chunk + 1);
            if (skipEmpty && lo == hi) {
                return;
            }
            clock.enter(Phase.ENCODE);
            FrameBuffer frame = encode(lo, hi);
            clock.enter(Phase.COMMUNICATE);
            transport.send(right(), frame);
        }

        @Override
        public void receive(int round, PhaseClock clock) {
            boolean reducing = round < size - 1;
            int chunk = reducing ? Math.floorMod(rank - round - 1, size)
                    : Math.floorMod(rank - (round - size + 1), size);
            int lo = chunkFrom(chunk);
            int hi = chunkFrom(chunk + 1);
            if (skipEmpty && lo == hi) {
                return;
            }
            clock.enter(Phase.COMMUNICATE);
            Frame in = RingAllReduce.this.receive(left(), kind, tag);
            clock.enter(Phase.DECODE);
            if (reducing) {
                reduce(in, lo, hi);
            } else {
                copy(in, lo, hi);
            }
        }
    }

    /** The next frame from rank {@code from}, of {@code kind}, which must be of the tag's step. */
    private Frame receive(int from, TrafficKind kind, StepTag tag) {
        Frame in = transport.receive(from, kind);
        if (in.step() != tag.step()) {
            throw new FrameException("rank " + rank + " expected a frame of step " + tag.step() + " from rank "
                    + from + ", found step " + in.step());
        }
        return in;
    }
}
