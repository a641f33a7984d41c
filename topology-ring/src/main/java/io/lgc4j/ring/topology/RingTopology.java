package io.lgc4j.ring.topology;

import io.lgc4j.core.comm.Transport;
import io.lgc4j.core.layout.GradientLayout;
import io.lgc4j.core.metrics.Phase;
import io.lgc4j.core.train.GradientExchange;
import io.lgc4j.core.train.Topology;
import io.lgc4j.ring.collective.RingAllReduce;

/**
 * Ring-allreduce topology: no server; the K workers form a ring in rank order and average their dense gradients
 * with {@link RingAllReduce}, then divide by K locally (the same operation on the same bits on every rank).
 *
 * <pre>{@code
 * DistributedTrainer.builder().model(net).data(train).workers(4).topology(new RingTopology()).build().fit(1);
 * }</pre>
 */
public final class RingTopology implements Topology {

    @Override
    public String name() {
        return "ring";
    }

    @Override
    public GradientExchange worker(int rank, int workers, Transport transport, GradientLayout layout) {
        RingAllReduce ring = new RingAllReduce(transport, rank, workers);
        return (tag, gradient, clock) -> {
            ring.sum(gradient, tag, clock);
            clock.enter(Phase.DECODE);
            float k = workers;
            for (int i = 0; i < gradient.length; i++) {
                gradient[i] /= k;
            }
        };
    }
}
