package io.lgc4j.ps.topology;

import io.lgc4j.core.comm.FloatFrames;
import io.lgc4j.core.comm.Frame;
import io.lgc4j.core.comm.FrameException;
import io.lgc4j.core.comm.TrafficKind;
import io.lgc4j.core.comm.Transport;
import io.lgc4j.core.layout.GradientLayout;
import io.lgc4j.core.metrics.Phase;
import io.lgc4j.core.train.GradientExchange;
import io.lgc4j.core.train.ServiceLoop;
import io.lgc4j.core.train.Topology;
import io.lgc4j.ps.server.DenseAveragingServer;

import java.util.List;

/**
 * Parameter-server topology (seeds/003, Fig. 1): workers push their gradient to a server endpoint (endpoint K),
 * which averages and broadcasts the mean. Per step each worker sends n·4 bytes and receives n·4 bytes, plus one
 * frame header each way.
 *
 * <pre>{@code
 * DistributedTrainer.builder().model(net).data(train).workers(4).topology(new ParameterServerTopology())
 *         .build().fit(1);
 * }</pre>
 */
public final class ParameterServerTopology implements Topology {

    @Override
    public String name() {
        return "ps";
    }

    @Override
    public int serviceEndpoints(int workers) {
        return 1;
    }

    @Override
    public GradientExchange worker(int rank, int workers, Transport transport, GradientLayout layout) {
        int server = workers;
        return (tag, gradient, clock) -> {
            clock.enter(Phase.ENCODE);
            byte[] frame = FloatFrames.encode(gradient, 0, gradient.length, TrafficKind.VALUES, tag.stage(),
                    tag.step());
            clock.enter(Phase.COMMUNICATE);
            transport.send(server, frame);
            Frame mean = transport.receive(server, TrafficKind.VALUES);
            if (mean.step() != tag.step()) {
                throw new FrameException("worker " + rank + " expected the mean of step " + tag.step()
                        + ", found step " + mean.step());
            }
            clock.enter(Phase.DECODE);
            FloatFrames.copyInto(mean, gradient, 0, gradient.length);
        };
    }

    @Override
    public List<ServiceLoop> services(int workers, List<Transport> serviceTransports, GradientLayout layout) {
        return List.of(new DenseAveragingServer(serviceTransports.get(0), workers, layout.length()));
    }
}
