package io.lgc4j.ps.server;

import io.lgc4j.core.comm.FloatFrames;
import io.lgc4j.core.comm.Frame;
import io.lgc4j.core.comm.FrameException;
import io.lgc4j.core.comm.TrafficKind;
import io.lgc4j.core.comm.Transport;
import io.lgc4j.core.train.ServiceLoop;

/**
 * The server role of the dense parameter server: each step it receives one dense gradient from every worker,
 * sums them in rank order (a fixed order, so the result does not depend on arrival), divides by K, encodes the mean
 * once and sends the same bytes to every worker.
 */
public final class DenseAveragingServer implements ServiceLoop {
    private final Transport transport;
    private final int workers;
    private final int length;

    /**
     * @param transport the server's endpoint; workers are endpoints 0..workers-1
     * @param workers   K
     * @param length    elements of the flattened gradient
     */
    public DenseAveragingServer(Transport transport, int workers, int length) {
        this.transport = transport;
        this.workers = workers;
        this.length = length;
    }

    @Override
    public void run() {
        float[] sum = new float[length];
        while (true) {
            serveStep(transport.receive(0, TrafficKind.VALUES), sum);
        }
    }

    /**
     * Completes one dense step whose first frame, worker 0's gradient, the caller already received (a server that
     * reads the stage from that frame before choosing how to serve the step): receives the other workers'
     * gradients, averages them into {@code sum} (length n, overwritten) and broadcasts the mean.
     */
    public void serveStep(Frame first, float[] sum) {
        FloatFrames.copyInto(first, sum, 0, length);
        for (int w = 1; w < workers; w++) {
            Frame frame = transport.receive(w, TrafficKind.VALUES);
            if (frame.step() != first.step()) {
                throw new FrameException("server expected a gradient of step " + first.step() + " from worker " + w
                        + ", found step " + frame.step());
            }
            FloatFrames.addInto(frame, sum, 0, length);
        }
        float k = workers;
        for (int i = 0; i < length; i++) {
            sum[i] /= k;
        }
        byte[] mean = FloatFrames.encode(sum, 0, length, TrafficKind.VALUES, first.stage(), first.step());
        for (int w = 0; w < workers; w++) {
            transport.send(w, mean);
        }
    }
}
