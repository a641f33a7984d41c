package io.lgc4j.core.train;

import io.lgc4j.core.comm.StepTag;
import io.lgc4j.core.comm.Transport;
import io.lgc4j.core.compress.Compressor;
import io.lgc4j.core.compress.OfferTap;
import io.lgc4j.core.layout.GradientLayout;
import io.lgc4j.core.metrics.PhaseClock;
import io.lgc4j.core.metrics.StepNotes;
import io.lgc4j.core.stage.StageSchedule;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A topology that records, for tests, what every rank put into each exchange and what it held afterwards — the
 * update it applied — step by step. Everything else is the wrapped topology's: its name, checks, description,
 * services and every byte it sends.
 *
 * <pre>{@code
 * RecordingTopology recorded = new RecordingTopology(new LgcRingTopology(...));
 * DistributedTrainer.builder()...topology(recorded).build().fit(1);
 * float[] applied = recorded.exchanges(0).get(12).out();   // rank 0's aggregate of step 12
 * }</pre>
 */
public final class RecordingTopology implements Topology {

    /**
     * One rank's exchange of one step.
     *
     * @param tag the step and its stage
     * @param in  the rank's gradient before the exchange
     * @param out the aggregate the rank held after it (what its replica applied)
     */
    public record Exchange(StepTag tag, float[] in, float[] out) {
    }

    private final Topology inner;
    private final Map<Integer, List<Exchange>> byRank = new ConcurrentHashMap<>();
    private final Map<Integer, GradientExchange> workers = new ConcurrentHashMap<>();

    /** Records the exchanges of {@code inner}'s workers. */
    public RecordingTopology(Topology inner) {
        this.inner = inner;
    }

    /** Rank {@code rank}'s exchanges of the last run, in step order. */
    public List<Exchange> exchanges(int rank) {
        return List.copyOf(byRank.get(rank));
    }

    /** The wrapped topology's exchange of rank {@code rank} in the last run. */
    public GradientExchange worker(int rank) {
        return workers.get(rank);
    }

    @Override
    public String name() {
        return inner.name();
    }

    @Override
    public Optional<Compressor> compressor() {
        return inner.compressor();
    }

    @Override
    public int serviceEndpoints(int workerCount) {
        return inner.serviceEndpoints(workerCount);
    }

    @Override
    public void check(GradientLayout layout, StageSchedule stages, boolean stagesGiven) {
        inner.check(layout, stages, stagesGiven);
    }

    @Override
    public void attachNotes(StepNotes notes) {
        inner.attachNotes(notes);
    }

    @Override
    public TopologyDescription describe() {
        return inner.describe();
    }

    @Override
    public GradientExchange worker(int rank, int workerCount, Transport transport, GradientLayout layout) {
        GradientExchange exchange = inner.worker(rank, workerCount, transport, layout);
        List<Exchange> log = Collections.synchronizedList(new ArrayList<>());
        workers.put(rank, exchange);
        byRank.put(rank, log);
        return new GradientExchange() {
            @Override
            public void allReduceMean(StepTag tag, float[] gradient, PhaseClock clock) {
                float[] in = gradient.clone();
                exchange.allReduceMean(tag, gradient, clock);
                log.add(new Exchange(tag, in, gradient.clone()));
            }

            @Override
            public void tap(OfferTap tap) {
                exchange.tap(tap);
            }

            @Override
            public boolean notesLag() {
                return exchange.notesLag();
            }

            @Override
            public void awaitNotes(int step) {
                exchange.awaitNotes(step);
            }
        };
    }

    @Override
    public List<ServiceLoop> services(int workerCount, List<Transport> serviceTransports, GradientLayout layout) {
        return inner.services(workerCount, serviceTransports, layout);
    }
}
