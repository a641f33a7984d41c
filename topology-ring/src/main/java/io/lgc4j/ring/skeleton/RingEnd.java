package io.lgc4j.ring.skeleton;

import io.lgc4j.core.comm.Frame;
import io.lgc4j.core.comm.TrafficKind;
import io.lgc4j.core.comm.Transport;
import io.lgc4j.core.compress.BlockRegion;
import io.lgc4j.core.layout.GradientLayout;
import io.lgc4j.core.layout.LayerPolicy;
import io.lgc4j.core.link.Averages;
import io.lgc4j.core.link.GradientPieces;
import io.lgc4j.core.link.Shortcuts;
import io.lgc4j.core.link.StepLink;
import io.lgc4j.core.metrics.Phase;
import io.lgc4j.core.metrics.PhaseClock;
import io.lgc4j.core.comm.StepTag;
import io.lgc4j.ring.collective.RingAllReduce;

import java.util.Objects;

/**
 * One rank's end of the ring: the pieces every method's ring step is made of. Ranks 0..K-1 form the ring in order;
 * every frame received is checked for the step's kind, step and stage.
 */
public final class RingEnd {
    private final int rank;
    private final int workers;
    private final StepLink link;
    private final RingAllReduce ring;
    private final BlockRegion dense;
    private final float[] denseBuffer;
    private final Shortcuts shortcuts;

    /**
     * @param rank      this rank
     * @param workers   K
     * @param transport this rank's endpoint
     * @param layout    the gradient's blocks (its DENSE blocks always ride the allreduce dense)
     */
    public RingEnd(int rank, int workers, Transport transport, GradientLayout layout) {
        this(rank, workers, transport, layout, Shortcuts.DEFAULT);
    }

    /**
     * @param shortcuts the shortcuts this ring takes: the leader's frames sent to every rank directly, small fp32
     *                  allreduces in one leg
     */
    public RingEnd(int rank, int workers, Transport transport, GradientLayout layout, Shortcuts shortcuts) {
        this.rank = rank;
        this.workers = workers;
        this.shortcuts = Objects.requireNonNull(shortcuts, "shortcuts");
        this.link = StepLink.ringRank(rank, transport);
        this.ring = new RingAllReduce(transport, rank, workers, shortcuts.directBelowBytes());
        this.dense = new BlockRegion(layout.blocks(LayerPolicy.DENSE));
        this.denseBuffer = new float[dense.length()];
    }

    /** This rank. */
    public int rank() {
        return rank;
    }

    /** K. */
    public int workers() {
        return workers;
    }

    /** The ring's allreduce. */
    public RingAllReduce ring() {
        return ring;
    }

    /** The step-checked links to the other ranks. */
    public StepLink link() {
        return link;
    }

    /** A dense step: the whole gradient summed around the ring, then divided by K on every rank. */
    public void fullStep(StepTag tag, float[] gradient, PhaseClock clock) {
        mean(gradient, TrafficKind.VALUES, tag, clock);
    }

    /**
     * {@link #fullStep(StepTag, float[], PhaseClock)} on a gradient that arrives in pieces (the backward pass's last
     * layers first): each piece's mean around the ring as soon as it is final, in the whole vector's chunks, so in
     * fp32 and bf16 every rank ends with the whole step's bits.
     */
    public void fullStep(StepTag tag, float[] gradient, PhaseClock clock, GradientPieces pieces) {
        for (GradientPieces.Piece p : pieces.pieces()) {
            clock.enter(Phase.COMPUTE); // waiting for the backward pass
            pieces.await(p);
            RingAllReduce.Pass sum = ring.sumPass(gradient, p.from(), p.to(), TrafficKind.VALUES, tag);
            ring.run(clock, new Finishing(sum, () -> Averages.divide(gradient, p.from(), p.to(), workers)));
        }
    }

    /** The DENSE blocks' mean through the allreduce, written into {@code gradient}; nothing when there are none. */
    public void denseMean(StepTag tag, float[] gradient, PhaseClock clock) {
        ring.run(clock, densePass(tag, gradient));
    }

    /**
     * The DENSE blocks' mean as a pass, to ride the hops of a compressed payload's collective ({@link
     * RingAllReduce#run}): the blocks are taken from {@code gradient} now and their mean written back into it when the
     * pass finishes. Null when the layout has no DENSE blocks.
     */
    public RingAllReduce.Pass densePass(StepTag tag, float[] gradient) {
        if (dense.length() == 0) {
            return null;
        }
        dense.gather(gradient, denseBuffer);
        RingAllReduce.Pass sum = ring.sumPass(denseBuffer, TrafficKind.VALUES, tag);
        return new Finishing(sum, () -> {
            Averages.divide(denseBuffer, workers);
            dense.scatter(denseBuffer, gradient);
        });
    }

    /**
     * {@link #densePass(StepTag, float[])} of the DENSE blocks lying in elements {@code from..to} of {@code gradient}
     * (a piece of a streamed step), in the whole region's chunks: the same bits as the whole pass. Null when none lies
     * there.
     */
    public RingAllReduce.Pass densePass(StepTag tag, float[] gradient, int from, int to) {
        int[] span = dense.span(from, to);
        if (span[0] == span[1]) {
            return null;
        }
        dense.gather(gradient, denseBuffer, from, to);
        RingAllReduce.Pass sum = ring.sumPass(denseBuffer, span[0], span[1], TrafficKind.VALUES, tag);
        return new Finishing(sum, () -> {
            Averages.divide(denseBuffer, span[0], span[1], workers);
            dense.scatter(denseBuffer, gradient, from, to);
        });
    }

    /**
     * The mean of elements {@code from..to} of {@code values} as a pass, in the whole vector's chunks (the bits of
     * {@link #meanPass(float[], TrafficKind, StepTag)} there); null for an empty range.
     */
    public RingAllReduce.Pass meanPass(float[] values, int from, int to, TrafficKind kind, StepTag tag) {
        if (from == to) {
            return null;
        }
        return new Finishing(ring.sumPass(values, from, to, kind, tag),
                () -> Averages.divide(values, from, to, workers));
    }

    /** The mean of {@code values} over the ranks, in place: summed around the ring as {@code kind}, divided by K. */
    public void mean(float[] values, TrafficKind kind, StepTag tag, PhaseClock clock) {
        ring.run(clock, meanPass(values, kind, tag));
    }

    /**
     * The mean of {@code values} and the DENSE blocks' mean in the same hops ({@link #meanPass}, {@link #densePass}):
     * 2(K−1) hops instead of 4(K−1), the same bits.
     */
    public void meanWithDense(float[] values, TrafficKind kind, StepTag tag, float[] gradient, PhaseClock clock) {
        ring.run(clock, meanPass(values, kind, tag), densePass(tag, gradient));
    }

    /** The mean of {@code values} as a pass: summed as {@code kind}, divided by K when the pass finishes. */
    public RingAllReduce.Pass meanPass(float[] values, TrafficKind kind, StepTag tag) {
        return new Finishing(ring.sumPass(values, kind, tag), () -> Averages.divide(values, workers));
    }

    /** A pass, then a last piece of work in the DECODE phase. */
    private record Finishing(RingAllReduce.Pass pass, Runnable then)
            implements RingAllReduce.Pass {
        @Override
        public int rounds() {
            return pass.rounds();
        }

        @Override
        public void send(int round, PhaseClock clock) {
            pass.send(round, clock);
        }

        @Override
        public void receive(int round, PhaseClock clock) {
            pass.receive(round, clock);
        }

        @Override
        public void finish(PhaseClock clock) {
            pass.finish(clock);
            clock.enter(Phase.DECODE);
            then.run();
        }
    }

    /**
     * Frames the step's leader sends to every rank, passed around the ring: the leader sends {@code frames} to its
     * right; every other rank receives one frame of each of {@code kinds} from its left and forwards them unchanged
     * unless its right is the leader (K−1 hops). With {@link Shortcuts.SupportPath#DIRECT} the leader sends them to
     * every other rank itself (one leg; the same bytes arrive).
     *
     * @param frames the leader's frames (ignored on the other ranks)
     * @return on the other ranks the frames received, in order; on the leader {@code frames}' count of nulls
     */
    public Frame[] fromLeader(int leader, byte[][] frames, TrafficKind[] kinds, StepTag tag, PhaseClock clock) {
        clock.enter(Phase.COMMUNICATE);
        int right = (rank + 1) % workers;
        int left = (rank + workers - 1) % workers;
        Frame[] received = new Frame[kinds.length];
        if (shortcuts.directSupport()) {
            if (rank == leader) {
                for (byte[] f : frames) {
                    link.sendToAllBut(workers, leader, f);
                }
            } else {
                for (int i = 0; i < kinds.length; i++) {
                    received[i] = link.receive(leader, kinds[i], tag);
                }
            }
            return received;
        }
        if (rank == leader) {
            if (workers > 1) {
                for (byte[] f : frames) {
                    link.send(right, f);
                }
            }
            return received;
        }
        for (int i = 0; i < kinds.length; i++) {
            received[i] = link.receive(left, kinds[i], tag);
        }
        if (right != leader) {
            for (Frame f : received) {
                link.send(right, StepLink.forward(link.transport(), f));
            }
        }
        return received;
    }
}
