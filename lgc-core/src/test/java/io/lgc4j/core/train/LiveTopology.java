package io.lgc4j.core.train;

import io.lgc4j.core.checkpoint.CheckpointException;
import io.lgc4j.core.checkpoint.CheckpointPart;
import io.lgc4j.core.checkpoint.PartKind;
import io.lgc4j.core.comm.ForwardingTransport;
import io.lgc4j.core.comm.Frame;
import io.lgc4j.core.comm.InProcessCluster;
import io.lgc4j.core.comm.StepTag;
import io.lgc4j.core.comm.Transport;
import io.lgc4j.core.comm.TransportClosedException;
import io.lgc4j.core.layout.GradientLayout;
import io.lgc4j.core.metrics.PhaseClock;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A topology's endpoints kept alive on one in-process cluster across steps, for tests that run a stretch of steps
 * through the same exchanges and checkpoint them between steps: every rank's exchange and every service loop are
 * built once, and each {@link #step} runs one exchange on every rank at once. {@link #save} writes each endpoint's
 * state into a part of its own (rank r's under {@value #RANK_PREFIX}, service s's under {@value #SERVICE_PREFIX}) and
 * reads it back from its bytes; {@link #restore} loads such parts before the first step.
 *
 * <pre>{@code
 * try (LiveTopology live = new LiveTopology(topology, 3, layout)) {
 *     float[][] means = live.step(new StepTag(0, Stage.TOP_K), gradients);
 *     List<CheckpointPart> parts = live.save();          // between steps
 * }
 * try (LiveTopology resumed = new LiveTopology(sameConfiguration, 3, layout)) {
 *     resumed.restore(parts);                             // before its first step
 *     float[][] next = resumed.step(new StepTag(1, Stage.TOP_K), gradients);
 * }
 * }</pre>
 *
 * <p>A save reads a service's state from the test's thread while the service waits for the next step. As in the
 * runtimes, where a service saves on its own thread between its steps, a service may go on working after it has sent
 * a step's last frame (the LGC-PS server trains its autoencoder after the broadcast): {@link #step} returns only once
 * every service is blocked receiving, with nothing queued for it, i.e. waiting for the next step, and every endpoint's
 * notes of the step are written ({@code awaitNotes}).
 */
public final class LiveTopology implements AutoCloseable {
    /** The prefix of every rank's sections. */
    public static final String RANK_PREFIX = "exchange";
    /** The prefix of every service's sections. */
    public static final String SERVICE_PREFIX = "service";

    private static final long TIMEOUT_SECONDS = 60;

    private final int workers;
    private final InProcessCluster cluster;
    private final ExecutorService pool;
    private final List<GradientExchange> exchanges = new ArrayList<>();
    private final List<ServiceLoop> services;
    private final List<ReceiveWatch> watches = new ArrayList<>();
    private final List<Future<?>> running = new ArrayList<>();
    private boolean stepped;

    /** Builds the K exchanges and the service loops of {@code topology} over {@code layout}; nothing runs yet. */
    public LiveTopology(Topology topology, int workers, GradientLayout layout) {
        int serviceCount = topology.serviceEndpoints(workers);
        this.workers = workers;
        this.cluster = new InProcessCluster(workers + serviceCount);
        this.pool = Executors.newFixedThreadPool(workers + serviceCount);
        List<Transport> serviceTransports = new ArrayList<>();
        for (int s = 0; s < serviceCount; s++) {
            ReceiveWatch watch = new ReceiveWatch(cluster.transport(workers + s));
            watches.add(watch);
            serviceTransports.add(watch);
        }
        this.services = topology.services(workers, serviceTransports, layout);
        for (int r = 0; r < workers; r++) {
            exchanges.add(topology.worker(r, workers, cluster.transport(r), layout));
        }
    }

    /**
     * One step: rank r contributes {@code inputs[r]} (copied); returns what every rank holds afterwards. Fails,
     * rather than hangs, after a minute, with a service's failure when one has failed.
     */
    public float[][] step(StepTag tag, float[][] inputs) throws Exception {
        if (inputs.length != workers) {
            throw new IllegalArgumentException("one input per rank (" + workers + "), got " + inputs.length);
        }
        startServices();
        stepped = true;
        List<Future<float[]>> futures = new ArrayList<>();
        for (int r = 0; r < workers; r++) {
            GradientExchange exchange = exchanges.get(r);
            float[] g = inputs[r].clone();
            futures.add(pool.submit(() -> {
                exchange.allReduceMean(tag, g, new PhaseClock());
                return g;
            }));
        }
        float[][] outputs = new float[workers][];
        for (int r = 0; r < workers; r++) {
            try {
                outputs[r] = futures.get(r).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            } catch (TimeoutException e) {
                for (Future<?> service : running) {
                    if (service.isDone()) {
                        service.get(); // throws the service's failure
                    }
                }
                throw e;
            }
        }
        awaitServicesIdle();
        // work a step leaves on a thread of its own (an autoencoder's training) notes the step when it is done
        for (GradientExchange exchange : exchanges) {
            exchange.awaitNotes(tag.step());
        }
        for (ServiceLoop service : services) {
            service.awaitNotes(tag.step());
        }
        return outputs;
    }

    /** Waits until every service is blocked in a receive with nothing queued for it: its step is over. */
    private void awaitServicesIdle() throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_SECONDS);
        for (int s = 0; s < watches.size(); s++) {
            while (!(watches.get(s).receiving() && cluster.pending(workers + s) == 0)) {
                if (running.get(s).isDone()) {
                    running.get(s).get(); // throws the service's failure
                }
                if (System.nanoTime() > deadline) {
                    throw new TimeoutException("service " + s + " did not finish its step within " + TIMEOUT_SECONDS
                            + " s");
                }
                Thread.sleep(1);
            }
        }
    }

    /** A service's transport that knows whether the service is inside a receive. */
    private static final class ReceiveWatch extends ForwardingTransport {
        private final AtomicInteger receiving = new AtomicInteger();

        ReceiveWatch(Transport inner) {
            super(inner);
        }

        @Override
        public Frame receive(int peer) {
            receiving.incrementAndGet();
            try {
                return inner.receive(peer);
            } finally {
                receiving.decrementAndGet();
            }
        }

        boolean receiving() {
            return receiving.get() > 0;
        }
    }

    /** Every endpoint's state, between steps: the K rank parts, then the service parts, each read back from bytes. */
    public List<CheckpointPart> save() throws CheckpointException {
        List<CheckpointPart> parts = new ArrayList<>();
        for (int r = 0; r < workers; r++) {
            CheckpointPart.Builder b = CheckpointPart.builder(PartKind.RANK);
            exchanges.get(r).save(b, RANK_PREFIX);
            parts.add(CheckpointPart.parse(b.build().toBytes(), "rank-" + r + ".lgcc"));
        }
        for (int s = 0; s < services.size(); s++) {
            CheckpointPart.Builder b = CheckpointPart.builder(PartKind.SERVER);
            services.get(s).state().save(b, SERVICE_PREFIX);
            parts.add(CheckpointPart.parse(b.build().toBytes(), "server-" + s + ".lgcc"));
        }
        return parts;
    }

    /** Restores what {@link #save} returned (of a topology built the same way), before the first step. */
    public void restore(List<CheckpointPart> parts) throws CheckpointException {
        if (stepped) {
            throw new IllegalStateException("restore before the first step");
        }
        if (parts.size() != workers + services.size()) {
            throw new IllegalArgumentException("expected " + (workers + services.size()) + " parts, got "
                    + parts.size());
        }
        for (int r = 0; r < workers; r++) {
            exchanges.get(r).restore(parts.get(r), RANK_PREFIX);
        }
        for (int s = 0; s < services.size(); s++) {
            services.get(s).state().restore(parts.get(workers + s), SERVICE_PREFIX);
        }
    }

    /** Rank {@code rank}'s exchange. */
    public GradientExchange exchange(int rank) {
        return exchanges.get(rank);
    }

    /** Closes the cluster (the service loops end) and the threads. */
    @Override
    public void close() {
        cluster.close();
        pool.shutdownNow();
    }

    private void startServices() {
        if (stepped) {
            return;
        }
        for (ServiceLoop loop : services) {
            running.add(pool.submit(() -> {
                try {
                    loop.run();
                } catch (TransportClosedException expected) {
                    // the cluster closed: the end of the test
                }
            }));
        }
    }
}
