package io.lgc4j.ps.topology;

import io.lgc4j.core.codec.IndexCodec;
import io.lgc4j.core.codec.IndexCodecs;
import io.lgc4j.core.comm.Transport;
import io.lgc4j.core.compress.Compressor;
import io.lgc4j.core.layout.GradientLayout;
import io.lgc4j.core.stage.StageSchedule;
import io.lgc4j.core.method.TopologyProvider;
import io.lgc4j.core.method.TopologyRequest;
import io.lgc4j.core.train.GradientExchange;
import io.lgc4j.core.train.ServiceLoop;
import io.lgc4j.core.train.Topology;
import io.lgc4j.core.train.TopologyDescription;
import io.lgc4j.ps.exchange.PsServer;
import io.lgc4j.ps.exchange.PsServerEnd;
import io.lgc4j.ps.exchange.PsWorker;
import io.lgc4j.ps.exchange.PsWorkerEnd;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Parameter-server topology (seeds/003, Fig. 1): workers push their gradient to a server endpoint (endpoint K),
 * which averages and broadcasts the mean. Dense, each worker sends n·4 bytes and receives n·4 bytes per step, plus
 * one frame header each way. With a compressor, DENSE blocks stay dense and the compressible blocks travel as the
 * compressor's payload; the server's sparse mean is broadcast on the union of the supports (downlink counted).
 *
 * <pre>{@code
 * new ParameterServerTopology();                                           // dense
 * new ParameterServerTopology(new TopKCompressor(0.001), IndexCodecs.defaultCodec());
 * }</pre>
 */
public final class ParameterServerTopology implements Topology {

    /**
     * Registers {@code ps} for every compressor that has no parameter server of its own (META-INF/services): dense
     * for {@code none}, else the compressed parameter server with the request's codec.
     */
    public static final class Provider implements TopologyProvider {
        @Override
        public String type() {
            return "ps";
        }

        @Override
        public Topology create(TopologyRequest request) {
            return request.compressor().create(request.seed())
                    .<Topology>map(c -> new ParameterServerTopology(c, request.codec()))
                    .orElseGet(ParameterServerTopology::new);
        }
    }

    private final Compressor compressor;
    private final IndexCodec codec;

    /** The dense parameter server. */
    public ParameterServerTopology() {
        this.compressor = null;
        this.codec = null;
    }

    /** A compressed parameter server, indices through the default codec. */
    public ParameterServerTopology(Compressor compressor) {
        this(compressor, IndexCodecs.defaultCodec());
    }

    /** A compressed parameter server. */
    public ParameterServerTopology(Compressor compressor, IndexCodec codec) {
        this.compressor = Objects.requireNonNull(compressor, "compressor");
        this.codec = Objects.requireNonNull(codec, "codec");
    }

    @Override
    public String name() {
        return "ps";
    }

    @Override
    public Optional<Compressor> compressor() {
        return Optional.ofNullable(compressor);
    }

    /** The compressor must be able to work on the layout's compressible blocks ({@link Compressor#check}). */
    @Override
    public void check(GradientLayout layout, StageSchedule stages, boolean stagesGiven) {
        compressor().ifPresent(c -> c.check(layout.compressibleBlocks()));
    }

    @Override
    public int serviceEndpoints(int workers) {
        return 1;
    }

    /** {@code ps}, the compressor and its settings, the codec when compressed; no settings of its own. */
    @Override
    public TopologyDescription describe() {
        if (compressor == null) {
            return new TopologyDescription(name(), "none", TopologyDescription.NO_SETTINGS, null,
                    TopologyDescription.NO_SETTINGS);
        }
        return new TopologyDescription(name(), compressor.name(), compressor.settings(), codec.name(),
                TopologyDescription.NO_SETTINGS);
    }

    @Override
    public GradientExchange worker(int rank, int workers, Transport transport, GradientLayout layout) {
        PsWorkerEnd end = new PsWorkerEnd(rank, workers, transport, layout);
        return new PsWorker(end, compressor == null ? null : new CompressedPsWorker(end, layout, compressor, codec));
    }

    @Override
    public List<ServiceLoop> services(int workers, List<Transport> serviceTransports, GradientLayout layout) {
        PsServerEnd end = new PsServerEnd(serviceTransports.get(0), workers, layout);
        return List.of(new PsServer(end, compressor == null ? null : new CompressedServer(end, layout, compressor,
                codec)));
    }
}
