package io.lgc4j.ps.topology;

import io.lgc4j.core.comm.FloatFrames;
import io.lgc4j.core.comm.Frame;
import io.lgc4j.core.comm.FrameException;
import io.lgc4j.core.comm.TrafficKind;
import io.lgc4j.core.comm.Transport;
import io.lgc4j.core.metrics.Phase;
import io.lgc4j.core.metrics.PhaseClock;
import io.lgc4j.core.train.GradientExchange;
import io.lgc4j.core.train.StepTag;

/**
 * A worker's dense step against the parameter server: push the whole gradient, receive the mean. Used by the dense
 * topology, and by the compressed one and LGC-PS in their FULL steps.
 *
 * <pre>{@code
 * GradientExchange full = new DensePsWorker(rank, workers, transport);   // the server is endpoint K
 * full.allReduceMean(tag, gradient, clock);                              // gradient now holds the mean
 * }</pre>
 */
public final class DensePsWorker implements GradientExchange {
    private final int rank;
    private final int server;
    private final Transport transport;

    /**
     * @param rank      this worker's rank
     * @param server    the server's endpoint
     * @param transport this worker's endpoint
     */
    public DensePsWorker(int rank, int server, Transport transport) {
        this.rank = rank;
        this.server = server;
        this.transport = transport;
    }

    @Override
    public void allReduceMean(StepTag tag, float[] gradient, PhaseClock clock) {
        clock.enter(Phase.ENCODE);
        byte[] frame = FloatFrames.encode(gradient, 0, gradient.length, TrafficKind.VALUES, tag.stage(), tag.step());
        clock.enter(Phase.COMMUNICATE);
        transport.send(server, frame);
        Frame mean = transport.receive(server, TrafficKind.VALUES);
        if (mean.step() != tag.step()) {
            throw new FrameException("worker " + rank + " expected the mean of step " + tag.step() + ", found step "
                    + mean.step());
        }
        clock.enter(Phase.DECODE);
        FloatFrames.copyInto(mean, gradient, 0, gradient.length);
    }
}
