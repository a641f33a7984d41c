package io.lgc4j.ps.topology;

import io.lgc4j.core.codec.IndexCodec;
import io.lgc4j.core.codec.IndexCodecs;
import io.lgc4j.core.comm.Transport;
import io.lgc4j.core.compress.Compressor;
import io.lgc4j.core.compress.LowRankCompressor;
import io.lgc4j.core.compress.SketchCompressor;
import io.lgc4j.core.layout.GradientLayout;
import io.lgc4j.core.link.Shortcuts;
import io.lgc4j.core.stage.StageSchedule;
import io.lgc4j.core.method.Methods;
import io.lgc4j.core.method.SectionKeys;
import io.lgc4j.core.method.TopologyProvider;
import io.lgc4j.core.settings.ResolvedConfig;
import io.lgc4j.core.settings.Section;
import io.lgc4j.core.settings.SettingsException;
import io.lgc4j.core.method.TopologyRequest;
import io.lgc4j.core.shard.FusionPlan;
import io.lgc4j.core.train.GradientExchange;
import io.lgc4j.core.train.ServiceLoop;
import io.lgc4j.core.train.Topology;
import io.lgc4j.core.train.TopologyDescription;
import io.lgc4j.core.warmup.Warmup;
import io.lgc4j.core.warmup.WarmupExchange;
import io.lgc4j.ps.skeleton.PsServer;
import io.lgc4j.ps.skeleton.PsServerEnd;
import io.lgc4j.ps.skeleton.PsWorker;
import io.lgc4j.ps.skeleton.PsWorkerEnd;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Parameter-server topology (seeds/003, Fig. 1): workers push their gradient to a server endpoint (endpoint K),
 * which averages and broadcasts the mean. Dense, each worker sends and receives n·4 bytes per step plus one frame
 * header each way. With a compressor, DENSE blocks stay dense and the compressible blocks travel as the compressor's
 * payload; the server's sparse mean is broadcast on the union of the supports (downlink counted).
 *
 * <p>With S &gt; 1 servers (endpoints K..K+S-1), shard s serves shard s's slices of the {@link FusionPlan}; the run is
 * the unsharded run bit for bit, only the frames differ. Sketches and PowerSGD's factors are refused sharded.
 *
 * <pre>{@code
 * new ParameterServerTopology();                                           // dense
 * new ParameterServerTopology(new TopKCompressor(0.001), IndexCodecs.defaultCodec());
 * new ParameterServerTopology(null, null, 4, FusionPlan.DEFAULT_BUFFER_BYTES);   // dense, 4 shards
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

        /** {@code topology.servers}, {@code fusionBufferBytes} and {@code shardBy} ({@link Shards}). */
        @Override
        public List<SectionKeys> sectionKeys() {
            return List.of(new SectionKeys("topology", 20, Shards.DEFAULT));
        }

        /**
         * {@code servers} other than 1 needs the parameter server.
         *
         * @throws SettingsException {@code topology.servers applies to the parameter server only ...}
         */
        @Override
        public void checkAcross(ResolvedConfig config) {
            Section topology = config.section("topology");
            int servers = topology.has("servers") ? topology.integer("servers") : Shards.DEFAULT_SERVERS;
            String topologyType = topology.text("type");
            if (servers != Shards.DEFAULT_SERVERS && !type().equals(Methods.normalize(topologyType))) {
                throw new SettingsException("topology.servers", "applies to the parameter server only (topology.type"
                        + " ps), found " + servers + " with topology.type " + topologyType + "; remove it or write "
                        + Shards.DEFAULT_SERVERS);
            }
        }

        @Override
        public Topology create(TopologyRequest request) {
            Shards shards = Shards.of(request.config().section("topology"));
            Compressor compressor = request.compressor().create(request.seed()).orElse(null);
            Warmup warmup = Warmup.of(request);
            Shortcuts shortcuts = Shortcuts.of(request.config().section("topology")).checkNoRing("ps")
                    .checkSupport(compressor, warmup.compressor());
            return new ParameterServerTopology(compressor, compressor == null ? null : request.codec(), shards)
                    .withWarmup(warmup, request.codec()).withShortcuts(shortcuts);
        }
    }

    private final Compressor compressor;
    private final IndexCodec codec;
    private final Shards shards;
    private final Warmup warmup;
    private final IndexCodec warmupCodec;
    private final Shortcuts shortcuts;

    /** The dense parameter server. */
    public ParameterServerTopology() {
        this(null, null, 1, FusionPlan.DEFAULT_BUFFER_BYTES);
    }

    /** A compressed parameter server, indices through the default codec. */
    public ParameterServerTopology(Compressor compressor) {
        this(compressor, IndexCodecs.defaultCodec());
    }

    /** A compressed parameter server. */
    public ParameterServerTopology(Compressor compressor, IndexCodec codec) {
        this(Objects.requireNonNull(compressor, "compressor"), Objects.requireNonNull(codec, "codec"), 1,
                FusionPlan.DEFAULT_BUFFER_BYTES);
    }

    /**
     * A parameter server of {@code servers} shards.
     *
     * @param compressor        the compressor, or {@code null} for dense
     * @param codec             the index codec (ignored when dense; {@code null} takes the default)
     * @param servers           S, the shards
     * @param fusionBufferBytes a fusion buffer's size, a positive multiple of 4
     * @throws IllegalArgumentException naming the setting that is out of range, or a compressor that cannot be
     *                                  sharded
     */
    public ParameterServerTopology(Compressor compressor, IndexCodec codec, int servers, int fusionBufferBytes) {
        this(compressor, codec, shards(servers, fusionBufferBytes));
    }

    private static Shards shards(int servers, int fusionBufferBytes) {
        try {
            return new Shards(servers, fusionBufferBytes, FusionPlan.Placement.BUFFERS);
        } catch (SettingsException e) {
            throw e.under("topology");
        }
    }

    /**
     * A parameter server sharded as {@code shards} says (placed by buffers, by block, or by layer for contrast).
     *
     * @throws IllegalArgumentException for a compressor that cannot be sharded
     */
    public ParameterServerTopology(Compressor compressor, IndexCodec codec, Shards shards) {
        this(compressor, codec, shards, Warmup.NONE, null, Shortcuts.DEFAULT);
    }

    private ParameterServerTopology(Compressor compressor, IndexCodec codec, Shards shards, Warmup warmup,
                                    IndexCodec warmupCodec, Shortcuts shortcuts) {
        this.warmup = Objects.requireNonNull(warmup, "warmup");
        this.shortcuts = Objects.requireNonNull(shortcuts, "shortcuts").checkNoRing("ps");
        this.warmupCodec = warmupCodec == null ? IndexCodecs.defaultCodec() : warmupCodec;
        this.compressor = compressor;
        this.codec = compressor == null ? null : codec == null ? IndexCodecs.defaultCodec() : codec;
        this.shards = Objects.requireNonNull(shards, "shards");
        String unsharded = unshardable(compressor);
        if (shards.servers() > 1 && unsharded != null) {
            throw new SettingsException("servers", "must be 1 with compressor " + compressor.name() + ", found "
                    + shards.servers() + unsharded).under("topology");
        }
    }

    /**
     * Why a sharded server cannot carry {@code compressor}'s payload (": a sharded server sums elements …"), or null
     * when it can.
     */
    private static String unshardable(Compressor compressor) {
        if (!(compressor instanceof SketchCompressor) && !(compressor instanceof LowRankCompressor)) {
            return null;
        }
        return ": a sharded server sums elements of its slices, and " + (compressor instanceof SketchCompressor
                ? "a sketch's counters" : "PowerSGD's factors") + " are not elements of the gradient";
    }

    /**
     * The same topology with a compressed warm-up: its FULL steps travel as {@code warmup}'s compressor's payload (or
     * dense in its encoding), through the same compressed worker and server as the method's later steps; the DENSE
     * blocks stay dense.
     *
     * @param codec the warm-up's index codec ({@code null}: the default)
     * @throws SettingsException naming {@code warmup.type} for a compressor a sharded server cannot carry
     */
    public ParameterServerTopology withWarmup(Warmup warmup, IndexCodec codec) {
        Compressor w = warmup.compressor();
        String unsharded = unshardable(w);
        if (shards.servers() > 1 && unsharded != null) {
            throw new SettingsException(Warmup.SECTION + ".type", "cannot be " + w.name() + " with topology.servers "
                    + shards.servers() + unsharded + "; use a sparse compressor (topk, dgc, scalecom, randomk) or one"
                    + " server");
        }
        return new ParameterServerTopology(compressor, this.codec, shards, warmup, codec, shortcuts);
    }

    /**
     * The same topology taking the shortcut in {@code shortcuts}: the step leader's support sent to every other worker
     * by the leader itself instead of relayed by the server. The same bits as without it; not part of
     * {@link #describe()}, since the method is the same.
     *
     * @throws SettingsException naming {@code topology.directBelowBytes} when it is set (a ring's route)
     */
    public ParameterServerTopology withShortcuts(Shortcuts shortcuts) {
        return new ParameterServerTopology(compressor, codec, shards, warmup, warmupCodec, shortcuts);
    }

    /** @return the shortcuts this topology takes ({@link Shortcuts#DEFAULT}: none) */
    public Shortcuts shortcuts() {
        return shortcuts;
    }

    /** @return the warm-up this topology's FULL steps run ({@link Warmup#NONE}: dense, today's) */
    public Warmup warmup() {
        return warmup;
    }

    /** S, the number of server shards. */
    public int servers() {
        return shards.servers();
    }

    /** The plan this topology cuts {@code layout} by. */
    public FusionPlan plan(GradientLayout layout) {
        return shards.plan(layout);
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
        if (warmup.compressor() != null) {
            warmup.compressor().check(layout.compressibleBlocks());
        }
    }

    @Override
    public int serviceEndpoints(int workers) {
        return shards.servers();
    }

    /** The fusion plan's hash: a process with another plan (model, shards, buffer size) is refused at rendezvous. */
    @Override
    public long fingerprint(GradientLayout layout) {
        return plan(layout).hash();
    }

    @Override
    public String describeFingerprint(GradientLayout layout) {
        return plan(layout).describe();
    }

    /**
     * {@code ps}, the compressor and its settings, the codec when compressed; its own settings ({@link Shards}) only
     * when sharded, so an unsharded run describes itself as before.
     */
    @Override
    public TopologyDescription describe() {
        Record own = shards.servers() == 1 ? TopologyDescription.NO_SETTINGS : shards;
        if (compressor == null) {
            return new TopologyDescription(name(), "none", TopologyDescription.NO_SETTINGS, null, own);
        }
        return new TopologyDescription(name(), compressor.name(), compressor.settings(), codec.name(), own);
    }

    @Override
    public GradientExchange worker(int rank, int workers, Transport transport, GradientLayout layout) {
        PsWorkerEnd end = new PsWorkerEnd(rank, workers, transport, plan(layout), false, shortcuts);
        return WarmupExchange.wrap(
                new PsWorker(end, compressor == null ? null : new CompressedPsWorker(end, layout, compressor, codec)),
                warmup, () -> warmupWorker(end, layout, warmup, warmupCodec));
    }

    @Override
    public List<ServiceLoop> services(int workers, List<Transport> serviceTransports, GradientLayout layout) {
        List<ServiceLoop> loops = new ArrayList<>(serviceTransports.size());
        for (int s = 0; s < serviceTransports.size(); s++) {
            loops.add(service(s, workers, serviceTransports.get(s), layout));
        }
        return List.copyOf(loops);
    }

    /** Shard {@code index}: the unsharded server's loop on the shard's slices. */
    @Override
    public ServiceLoop service(int index, int workers, Transport transport, GradientLayout layout) {
        FusionPlan plan = plan(layout);
        PsServerEnd end = new PsServerEnd(transport, workers, plan, index, shortcuts);
        return new PsServer(end, compressor == null ? null : new CompressedServer(end,
                plan.view(index, layout.compressibleBlocks()), compressor, codec),
                warmupServer(end, plan, index, layout, warmup, warmupCodec));
    }

    /**
     * A worker's FULL steps of a compressed warm-up: the generic compressed worker of {@code warmup}'s compressor, run
     * at every stage it is given ({@link PsWorker#everyStage}). For topologies with a parameter server of their own
     * (LGC-PS), which share this one's frames.
     */
    public static GradientExchange warmupWorker(PsWorkerEnd end, GradientLayout layout, Warmup warmup,
                                                IndexCodec codec) {
        return PsWorker.everyStage(new CompressedPsWorker(end, layout, warmup.compressor(), codec));
    }

    /**
     * The server's FULL step of a compressed warm-up on shard {@code index} of {@code plan}: the generic compressed
     * server of {@code warmup}'s compressor; {@code null} (the dense FULL step) without one.
     */
    public static PsServer.Step warmupServer(PsServerEnd end, FusionPlan plan, int index, GradientLayout layout,
                                             Warmup warmup, IndexCodec codec) {
        return warmup.compressor() == null ? null : new CompressedServer(end,
                plan.view(index, layout.compressibleBlocks()), warmup.compressor(), codec);
    }
}
