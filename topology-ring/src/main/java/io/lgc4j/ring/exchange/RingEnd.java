package io.lgc4j.ring.exchange;

import io.lgc4j.core.comm.Frame;
import io.lgc4j.core.comm.TrafficKind;
import io.lgc4j.core.comm.Transport;
import io.lgc4j.core.compress.BlockRegion;
import io.lgc4j.core.exchange.Averages;
import io.lgc4j.core.exchange.StepLink;
import io.lgc4j.core.layout.GradientLayout;
import io.lgc4j.core.layout.LayerPolicy;
import io.lgc4j.core.metrics.Phase;
import io.lgc4j.core.metrics.PhaseClock;
import io.lgc4j.core.comm.StepTag;
import io.lgc4j.ring.collective.RingAllReduce;

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

    /**
     * @param rank      this rank
     * @param workers   K
     * @param transport this rank's endpoint
     * @param layout    the gradient's blocks (its DENSE blocks always ride the allreduce dense)
     */
    public RingEnd(int rank, int workers, Transport transport, GradientLayout layout) {
        this.rank = rank;
        this.workers = workers;
        this.link = StepLink.ringRank(rank, transport);
        this.ring = new RingAllReduce(transport, rank, workers);
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
        ring.sum(gradient, tag, clock);
        clock.enter(Phase.DECODE);
        Averages.divide(gradient, workers);
    }

    /** The DENSE blocks' mean through the allreduce, written into {@code gradient}; nothing when there are none. */
    public void denseMean(StepTag tag, float[] gradient, PhaseClock clock) {
        if (dense.length() == 0) {
            return;
        }
        dense.gather(gradient, denseBuffer);
        ring.sum(denseBuffer, tag, clock);
        clock.enter(Phase.DECODE);
        Averages.divide(denseBuffer, workers);
        dense.scatter(denseBuffer, gradient);
    }

    /** The mean of {@code values} over the ranks, in place: summed around the ring as {@code kind}, divided by K. */
    public void mean(float[] values, TrafficKind kind, StepTag tag, PhaseClock clock) {
        ring.sum(values, kind, tag, clock);
        clock.enter(Phase.DECODE);
        Averages.divide(values, workers);
    }

    /**
     * Frames the step's leader sends to every rank, passed around the ring: the leader sends {@code frames} to its
     * right; every other rank receives one frame of each of {@code kinds} from its left and forwards them unchanged
     * unless its right is the leader.
     *
     * @param frames the leader's frames (ignored on the other ranks)
     * @return on the other ranks the frames received, in order; on the leader {@code frames}' count of nulls
     */
    public Frame[] fromLeader(int leader, byte[][] frames, TrafficKind[] kinds, StepTag tag, PhaseClock clock) {
        clock.enter(Phase.COMMUNICATE);
        int right = (rank + 1) % workers;
        int left = (rank + workers - 1) % workers;
        Frame[] received = new Frame[kinds.length];
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
