package io.lgc4j.core.train;

import io.lgc4j.core.comm.ForwardingTransport;
import io.lgc4j.core.comm.Frame;
import io.lgc4j.core.comm.InProcessCluster;
import io.lgc4j.core.comm.MeteredTransport;
import io.lgc4j.core.comm.TrafficKind;
import io.lgc4j.core.comm.TrafficMeter;
import io.lgc4j.core.comm.Transport;
import io.lgc4j.core.link.StepLink;
import io.lgc4j.core.protocol.FloatFrames;
import io.lgc4j.core.stage.Stage;
import io.lgc4j.core.comm.StepTag;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A receive after the peer's one-off work (the linear code's fit at the switch) waits as long as a first receive: the
 * request reaches the network transport through every wrapper, and through the control plane only for the receive
 * that actually waits for the training frame — also when reports come first.
 */
class ExtendNextReceiveTest {

    /** Records, in order, the receives and deadline extensions that reach the transport under the wrappers. */
    private static final class Recording extends ForwardingTransport {
        final List<String> calls = new ArrayList<>();

        Recording(Transport inner) {
            super(inner);
        }

        @Override
        public Frame receive(int peer) {
            Frame f = super.receive(peer);
            calls.add("receive " + peer + " " + f.kind());
            return f;
        }

        @Override
        public void extendNextReceive(int peer) {
            calls.add("extend " + peer);
        }
    }

    private static byte[] weights(int step) {
        return FloatFrames.encode(new float[] {1f, 2f}, 0, 2, TrafficKind.AE_WEIGHTS, Stage.COMPRESSED, step);
    }

    private static Recording recorded(InProcessCluster cluster, int endpoint) {
        return new Recording(cluster.transport(endpoint));
    }

    private static ControlPlane plane(Transport network) {
        int n = network.endpointCount();
        return new ControlPlane(new MeteredTransport(network, new TrafficMeter(n), new TrafficMeter(n)));
    }

    @Test
    void shouldExtendTheReceiveThatWaitsForTheFrameThroughEveryWrapper() {
        try (InProcessCluster cluster = new InProcessCluster(2)) {
            Recording network = recorded(cluster, 1);
            StepLink link = StepLink.ringRank(1, plane(network));
            cluster.transport(0).send(1, weights(7));
            cluster.transport(0).send(1, weights(8));

            link.receiveAfterWork(0, TrafficKind.AE_WEIGHTS, new StepTag(7, Stage.COMPRESSED));
            link.receive(0, TrafficKind.AE_WEIGHTS, new StepTag(8, Stage.COMPRESSED));

            // the second receive is back on the steady-state deadline
            assertEquals(List.of("extend 0", "receive 0 AE_WEIGHTS", "receive 0 AE_WEIGHTS"), network.calls);
        }
    }

    @Test
    void shouldKeepTheExtensionPastReportsThatComeFirst() {
        try (InProcessCluster cluster = new InProcessCluster(2)) {
            Recording network = recorded(cluster, 1);
            StepLink link = StepLink.ringRank(1, plane(network));
            cluster.transport(0).send(1, new RunReport.Stop().encode(7, Stage.COMPRESSED));
            cluster.transport(0).send(1, new RunReport.Done().encode(7, Stage.COMPRESSED));
            cluster.transport(0).send(1, weights(7));

            link.receiveAfterWork(0, TrafficKind.AE_WEIGHTS, new StepTag(7, Stage.COMPRESSED));

            assertEquals(List.of("extend 0", "receive 0 REPORT", "extend 0", "receive 0 REPORT", "extend 0",
                    "receive 0 AE_WEIGHTS"), network.calls);
        }
    }

    @Test
    void shouldNotExtendAReceiveThatAHeldFrameAnswers() {
        try (InProcessCluster cluster = new InProcessCluster(2)) {
            Recording network = recorded(cluster, 1);
            ControlPlane plane = plane(network);
            cluster.transport(0).send(1, weights(7));
            cluster.transport(0).send(1, new RunReport.Done().encode(7, Stage.COMPRESSED));
            cluster.transport(0).send(1, weights(8));
            // waiting for the report sets the training frame of step 7 aside
            assertEquals(new RunReport.Done(), plane.receiveReport(0).report());

            StepLink link = StepLink.ringRank(1, plane);
            link.receiveAfterWork(0, TrafficKind.AE_WEIGHTS, new StepTag(7, Stage.COMPRESSED));
            link.receive(0, TrafficKind.AE_WEIGHTS, new StepTag(8, Stage.COMPRESSED));

            // the held frame answered at once; the extension does not leak into the next, ordinary receive
            assertEquals(List.of("receive 0 AE_WEIGHTS", "receive 0 REPORT", "receive 0 AE_WEIGHTS"), network.calls);
        }
    }
}
