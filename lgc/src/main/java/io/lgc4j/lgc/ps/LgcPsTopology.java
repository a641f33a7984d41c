package io.lgc4j.lgc.ps;

import io.lgc4j.lgc.autoencoder.AeLosses;
import io.lgc4j.lgc.autoencoder.AeTraining;
import io.lgc4j.lgc.autoencoder.AutoencoderSpec;
import io.lgc4j.lgc.AutoencoderSection;
import io.lgc4j.lgc.LgcAblation;
import io.lgc4j.lgc.LgcControl;
import io.lgc4j.lgc.LgcSettings;
import io.lgc4j.lgc.autoencoder.PsAutoencoder;
import io.lgc4j.core.codec.IndexCodec;
import io.lgc4j.core.codec.IndexCodecs;
import io.lgc4j.core.comm.Transport;
import io.lgc4j.core.compress.Compressor;
import io.lgc4j.core.compress.CompressorKeys;
import io.lgc4j.lgc.support.LgcSupportCompressor;
import io.lgc4j.core.layout.GradientLayout;
import io.lgc4j.core.link.Shortcuts;
import io.lgc4j.core.settings.Section;
import io.lgc4j.core.settings.SettingsException;
import io.lgc4j.core.method.Methods;
import io.lgc4j.core.method.SectionKeys;
import io.lgc4j.core.method.TopologyProvider;
import io.lgc4j.core.settings.ResolvedConfig;
import io.lgc4j.core.method.TopologyRequest;
import io.lgc4j.core.metrics.StepNotes;
import io.lgc4j.core.stage.Stage;
import io.lgc4j.core.stage.StageSchedule;
import io.lgc4j.core.train.CheckpointMismatchException;
import io.lgc4j.core.train.GradientExchange;
import io.lgc4j.core.train.ServiceLoop;
import io.lgc4j.core.train.Topology;
import io.lgc4j.core.train.TopologyChecks;
import io.lgc4j.core.train.TopologyDescription;
import io.lgc4j.core.warmup.Warmup;
import io.lgc4j.core.warmup.WarmupExchange;
import io.lgc4j.ps.skeleton.PsServer;
import io.lgc4j.ps.skeleton.PsServerEnd;
import io.lgc4j.ps.skeleton.PsWorker;
import io.lgc4j.ps.skeleton.PsWorkerEnd;
import io.lgc4j.ps.topology.ParameterServerTopology;
import io.lgc4j.ps.topology.Shards;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * LGC-PS: learned gradient compression through a parameter server (seeds/003 Section IV-A, Algorithm 1). Workers
 * are endpoints 0..K-1, the server is endpoint K. FULL: the dense parameter server. TOP_K: each worker pushes its
 * DENSE blocks and its accumulated values on the step's support ({@link SupportPolicy}); the server broadcasts the
 * means and trains the {@link PsAutoencoder} on the K compact vectors. COMPRESSED: the server ships the encoder to
 * every worker (again after a fallback); workers push their innovation instead of the LEARNED values, the leader also
 * its latent, and the server broadcasts the mean of its K decodings. Every worker applies the same broadcast bytes,
 * so replicas stay bit-identical; what a rank did not send stays in its accumulator. {@link LgcControl} adds, each
 * switchable, exact innovation, reconstruction feedback, a drift guard and control runs ({@link LgcAblation}, those
 * in {@link #ABLATIONS}). Every message is a frame through the {@link Transport}, so every byte is metered.
 *
 * <pre>{@code
 * Topology lgc = LgcPsTopology.builder().ratio(0.001).support(LgcPsTopology.SupportPolicy.LEADER).seed(42).build();
 * DistributedTrainer.builder()...topology(lgc).stages(new StageSchedule(200, 300)).build().fit(3);
 * }</pre>
 */
public final class LgcPsTopology implements Topology {

    /** Which support the ranks send their values on (ARCHITECTURE §4.4). */
    public enum SupportPolicy {
        /**
         * The step's leader picks the top-k of its accumulator per compressible block and sends the indices to the
         * server, which relays them to the other workers; every rank sends its accumulator's values on that one
         * support, so the ranks' compact vectors line up (the common/innovation model holds position by position)
         * and the mean is one aligned vector.
         */
        LEADER,
        /**
         * Paper-literal: every rank picks its own top-k and sends its indices to the server every step; the mean is
         * a sparse sum on the union of the supports, broadcast with its indices.
         */
        OWN
    }

    /**
     * The key LGC-PS adds to the {@code topology} section (rank 10 of {@link SectionKeys}: first after
     * {@code type}).
     *
     * @param support whose support the ranks send their values on ({@code topology.support}; default leader)
     */
    public record Support(SupportPolicy support) {
        /** {@code support: leader}. */
        public static final Support DEFAULT = new Support(SupportPolicy.LEADER);

        /** Rejects a missing policy. */
        public Support {
            SettingsException.required(support, "support");
        }
    }

    /**
     * What LGC-PS adds to {@link LgcSettings}: the settings only the parameter server has.
     *
     * @param support         whose support the ranks send their values on ({@code topology.support})
     * @param innovationShare the share of a compact vector sent as innovation, in (0, 1]
     *                        ({@code autoencoder.innovationShare}; the paper: 0.1)
     */
    public record Settings(SupportPolicy support, double innovationShare) {
        /** Checks both, naming the one that is wrong. */
        public Settings {
            SettingsException.required(support, "support");
            AutoencoderSection.requireInnovationShare(innovationShare);
        }
    }

    /**
     * A sharded LGC-PS's own settings, as {@code summary.json} describes them: {@link Settings}' and the shards'.
     *
     * @param support         whose support the ranks send their values on
     * @param innovationShare the share of a compact vector sent as innovation
     * @param shards          the server's shards (shard 0 serves the compressible blocks whole)
     */
    public record ShardedSettings(SupportPolicy support, double innovationShare, Shards shards) {
    }

    /**
     * Registers LGC-PS as the parameter server of {@code lgc} (META-INF/services). Reads {@link LgcSettings} from
     * the request's compressor, {@code topology.support} and {@code autoencoder.innovationShare} from its config;
     * rejects an {@code autoencoder.ablation} LGC-PS does not run.
     */
    public static final class Provider implements TopologyProvider {
        @Override
        public String type() {
            return "ps";
        }

        @Override
        public Set<String> compressorTypes() {
            return Set.of("lgc");
        }

        /** {@code topology.support} ({@link Support}). */
        @Override
        public List<SectionKeys> sectionKeys() {
            return List.of(new SectionKeys("topology", 10, Support.DEFAULT));
        }

        /**
         * {@code support: own} needs the parameter server and {@code compressor.type lgc}.
         *
         * @throws SettingsException {@code topology.support applies to ...}
         */
        @Override
        public void checkAcross(ResolvedConfig config) {
            Section topology = config.section("topology");
            if (!topology.has("support") || topology.choice("support", SupportPolicy.class) != SupportPolicy.OWN) {
                return;
            }
            String topologyType = topology.text("type");
            if (!type().equals(Methods.normalize(topologyType))) {
                throw new SettingsException("topology.support", "applies to the parameter server only (topology.type"
                        + " ps with compressor.type lgc), found own with topology.type " + topologyType
                        + "; remove it or write leader");
            }
            String compressorType = config.section("compressor").text("type");
            if (!compressorTypes().contains(Methods.normalize(compressorType))) {
                throw new SettingsException("topology.support", "applies to compressor.type lgc only, found own with"
                        + " compressor.type " + compressorType + "; remove it or write leader");
            }
        }

        @Override
        public Topology create(TopologyRequest request) {
            LgcSettings lgc = request.compressor().settings(LgcSettings.class);
            Section topology = request.config().section("topology");
            Section ae = request.config().section("autoencoder");
            AutoencoderSection section = LgcSettings.Provider.autoencoder(request.config());
            Shards shards = Shards.of(topology);
            SupportPolicy support = topology.has("support") ? topology.choice("support", SupportPolicy.class)
                    : SupportPolicy.LEADER;
            Warmup warmup = Warmup.of(request);
            if (warmup.compressor() != null && shards.servers() > 1) {
                // shard 0 takes LGC's compressible blocks whole, the generic compressed server cuts them by the plan
                throw new SettingsException(Warmup.SECTION + ".type", "cannot be " + warmup.compressor().name()
                        + " with compressor.type lgc on topology.servers " + shards.servers() + ": a sharded LGC-PS"
                        + " takes a dense warm-up only; use warmup.type none (warmup.values may be fp16 or bf16) or"
                        + " one server");
            }
            Settings ps;
            try {
                ps = new Settings(support, section.innovationShare());
            } catch (SettingsException e) {
                throw e.key().equals("support") ? e.under(topology.path()) : e.under(ae.path());
            }
            Shortcuts shortcuts = Shortcuts.of(topology).checkNoRing("ps");
            try {
                return builder().settings(lgc).codec(request.codec()).innovationShare(ps.innovationShare())
                        .support(ps.support()).seed(request.seed()).shards(shards).warmup(warmup).shortcuts(shortcuts)
                        .build();
            } catch (SettingsException e) {
                if (e.key().startsWith(topology.path() + ".")) {
                    throw e; // the shortcuts' check names its key whole
                }
                throw e.under(ae.path()); // the ablation or the linear code, keys of the autoencoder section
            }
        }
    }

    /**
     * The control runs LGC-PS has ({@code autoencoder.ablation}): {@code none}, {@code innovation-only},
     * {@code latent-only}, {@code learned-frozen}; see {@link LgcAblation}.
     */
    public static final List<LgcAblation> ABLATIONS = LgcAblation.ofParameterServer();

    private final double ratio;
    private final LgcSupportCompressor support;
    private final Shards shards;
    private final IndexCodec codec;
    private final AutoencoderSpec spec;
    private final AeTraining training;
    private final double innovationShare;
    private final SupportPolicy policy;
    private final long seed;
    private final LgcControl control;
    private final Warmup warmup;
    private final Shortcuts shortcuts;
    private StepNotes notes = new StepNotes();
    private volatile LgcPsServer server;

    /**
     * @return a builder of LGC-PS, every setting at its default: the paper's ratio (0.001), architecture
     *         ({@link AutoencoderSpec#PAPER}), innovation share (0.1) and support policy (the leader's), the
     *         autoencoder trained by {@link AeTraining#DEFAULT} (Adam at 1e-3, λ2 = 0, not the paper's SGD with
     *         λ2 = 0.5, {@link AeTraining#PAPER}: see there why), the drift guard of {@link LgcControl#DEFAULT},
     *         one server shard, seed 0
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * LGC-PS's settings by name, each at its default until set; {@link #build()} checks them all.
     *
     * <pre>{@code
     * Topology lgc = LgcPsTopology.builder().ratio(0.001).support(SupportPolicy.OWN).seed(42).build();
     * Topology sharded = LgcPsTopology.builder().settings(lgcSettings).shards(new Shards(4, 1 << 20, BUFFERS))
     *         .seed(42).build();
     * }</pre>
     */
    public static final class Builder {
        private double ratio = CompressorKeys.DEFAULT_RATIO;
        private IndexCodec codec = IndexCodecs.defaultCodec();
        private AutoencoderSpec spec = AutoencoderSpec.PAPER;
        private AeTraining training = AeTraining.DEFAULT;
        private double innovationShare = AutoencoderSection.DEFAULT_INNOVATION_SHARE;
        private SupportPolicy support = SupportPolicy.LEADER;
        private long seed;
        private LgcControl control = LgcControl.DEFAULT;
        private Shards shards = Shards.DEFAULT;
        private Warmup warmup = Warmup.NONE;
        private Shortcuts shortcuts = Shortcuts.DEFAULT;

        private Builder() {
        }

        /**
         * The shortcuts the topology takes (default {@link Shortcuts#DEFAULT}: none). With a direct support path the
         * step's leader sends its indices (and, in the compressed stage, its scale rides with its code as before) to
         * every other worker itself instead of through the server: the same bits, one leg less. Support policy
         * {@code leader} only ({@link #build()} refuses {@code own}: every rank sends its own support to the server,
         * there is no leader's to send).
         */
        public Builder shortcuts(Shortcuts shortcuts) {
            this.shortcuts = shortcuts;
            return this;
        }

        /**
         * The FULL stage's warm-up (default {@link Warmup#NONE}: dense): a compressor's runs through the generic
         * compressed worker and server ({@link ParameterServerTopology#warmupWorker}), indices through this
         * topology's codec; at the switch its residual goes into the support memory. A sharded LGC-PS takes a dense
         * warm-up only (in any encoding).
         */
        public Builder warmup(Warmup warmup) {
            this.warmup = warmup;
            return this;
        }

        /** Fraction of each compressible block selected per step, in (0, 1] (default 0.001, the paper's). */
        public Builder ratio(double ratio) {
            this.ratio = ratio;
            return this;
        }

        /** The index codec of supports and innovation positions (default {@link IndexCodecs#defaultCodec()}). */
        public Builder codec(IndexCodec codec) {
            this.codec = codec;
            return this;
        }

        /** The autoencoder's architecture (default {@link AutoencoderSpec#PAPER}). */
        public Builder spec(AutoencoderSpec spec) {
            this.spec = spec;
            return this;
        }

        /** The autoencoder's online training (default {@link AeTraining#DEFAULT}). */
        public Builder training(AeTraining training) {
            this.training = training;
            return this;
        }

        /** The share of a compact vector sent as innovation, in (0, 1] (default 0.1, the paper's). */
        public Builder innovationShare(double innovationShare) {
            this.innovationShare = innovationShare;
            return this;
        }

        /** Whose support the ranks send on (default {@link SupportPolicy#LEADER}). */
        public Builder support(SupportPolicy support) {
            this.support = support;
            return this;
        }

        /** Seed of the leader draw, the autoencoder's initialization and its common-rank draw (default 0). */
        public Builder seed(long seed) {
            this.seed = seed;
            return this;
        }

        /**
         * The controls beyond the paper (default {@link LgcControl#DEFAULT}; {@link LgcControl#PAPER} turns them
         * all off): one LGC-PS runs the ablation of ({@link #ABLATIONS}).
         */
        public Builder control(LgcControl control) {
            this.control = control;
            return this;
        }

        /**
         * The server's shards (default one): shard 0 serves the compressible blocks whole — the support, their
         * values, the code and the innovation, the autoencoder and its training, the drift guard and the flags — and
         * every shard serves its slices of the dense gradient (FULL) and its pieces of the DENSE blocks. The run is
         * the one-server run bit for bit.
         */
        public Builder shards(Shards shards) {
            this.shards = shards;
            return this;
        }

        /**
         * Ratio, architecture, training and controls from LGC's settings. Its linear code must be off: the linear
         * code averages, so it is the ring's, whose allreduce delivers the mean of the ranks' codes.
         */
        public Builder settings(LgcSettings lgc) {
            SettingsException.require(lgc.linearLatent() == 0, "linearLatent", "applies to topology.type ring"
                    + " (LGC-RAR) only, found " + lgc.linearLatent() + " with topology.type ps; 0 (the default) runs"
                    + " LGC-PS's autoencoder");
            return ratio(lgc.ratio()).spec(lgc.spec()).training(lgc.training()).control(lgc.control());
        }

        /**
         * @throws io.lgc4j.core.settings.SettingsException naming the first setting that is out of range, or the
         *                                                control's ablation when LGC-PS does not run it
         * @throws NullPointerException                     naming a setting left null
         */
        public LgcPsTopology build() {
            return new LgcPsTopology(this);
        }
    }

    private LgcPsTopology(Builder b) {
        double ratio = b.ratio;
        IndexCodec codec = b.codec;
        AutoencoderSpec spec = b.spec;
        AeTraining training = b.training;
        double innovationShare = b.innovationShare;
        SupportPolicy policy = b.support;
        long seed = b.seed;
        LgcControl control = b.control;
        Shards shards = b.shards;
        this.shards = Objects.requireNonNull(shards, "shards");
        this.control = Objects.requireNonNull(control, "control");
        control.ablation().requireIn(ABLATIONS, "ps", "LGC-PS");
        this.warmup = Objects.requireNonNull(b.warmup, "warmup");
        this.shortcuts = Objects.requireNonNull(b.shortcuts, "shortcuts").checkNoRing("ps");
        if (shortcuts.directSupport() && policy == SupportPolicy.OWN) {
            throw new SettingsException("topology.supportPath", "direct applies to topology.support leader (the"
                    + " leader's indices sent to every worker), found own: every rank sends its own support to the"
                    + " server; remove it or use support: leader");
        }
        if (warmup.compressor() != null && b.shards.servers() > 1) {
            throw new IllegalArgumentException("a sharded LGC-PS (" + b.shards.servers() + " servers) takes a dense"
                    + " warm-up only, found " + warmup.compressor().name() + ": shard 0 takes the compressible blocks"
                    + " whole, the generic compressed server cuts them by the plan");
        }
        this.support = new LgcSupportCompressor(ratio, seed, control.lowPass());
        this.ratio = ratio;
        this.codec = Objects.requireNonNull(codec, "codec");
        this.spec = Objects.requireNonNull(spec, "spec");
        this.training = Objects.requireNonNull(training, "training");
        this.innovationShare = AutoencoderSection.requireInnovationShare(innovationShare);
        this.policy = Objects.requireNonNull(policy, "policy");
        this.seed = seed;
    }

    @Override
    public String name() {
        return "ps";
    }

    @Override
    public Optional<Compressor> compressor() {
        return Optional.of(support);
    }

    @Override
    public int serviceEndpoints(int workers) {
        return shards.servers();
    }

    /** The server decodes a COMPRESSED step on its autoencoder's lane, after the training queued before it. */
    @Override
    public boolean waitsForLane(Stage stage) {
        return stage == Stage.COMPRESSED;
    }

    /** The fusion plan's hash, as the generic parameter server's. */
    @Override
    public long fingerprint(GradientLayout layout) {
        return shards.plan(layout).hash();
    }

    @Override
    public String describeFingerprint(GradientLayout layout) {
        return shards.plan(layout).describe();
    }

    /**
     * Rejects, at {@code build()}, a model without a LEARNED block and the default schedule, which never reaches
     * COMPRESSED (no {@code .stages(...)} given); see {@link TopologyChecks}.
     */
    @Override
    public void check(GradientLayout layout, StageSchedule stages, boolean stagesGiven) {
        TopologyChecks.requireLearnedBlock(layout);
        TopologyChecks.requireCompressedStage(stages, stagesGiven);
        if (warmup.compressor() != null) {
            warmup.compressor().check(layout.compressibleBlocks());
        }
    }

    /**
     * {@code ps}, {@code lgc} with its {@link LgcSettings}, the codec, and this topology's {@link Settings}.
     */
    @Override
    public TopologyDescription describe() {
        return new TopologyDescription(name(), support.name(), new LgcSettings(ratio, spec, training, control),
                codec.name(), shards.servers() == 1 ? new Settings(policy, innovationShare)
                        : new ShardedSettings(policy, innovationShare, shards));
    }

    /** The support policy in force. */
    public SupportPolicy policy() {
        return policy;
    }

    /**
     * The server autoencoder's losses, one per TOP_K step of the last run, in order; empty before a run. Read it
     * after {@code fit} returns.
     */
    public List<AeLosses> autoencoderLosses() {
        LgcPsServer s = server;
        return s == null ? List.of() : List.copyOf(s.losses());
    }

    /** The server's autoencoder of the last run, or null before one; read it after {@code fit} returns. */
    PsAutoencoder serverAutoencoder() {
        LgcPsServer s = server;
        return s == null ? null : s.autoencoder();
    }

    /**
     * LGC-PS goes on with fewer workers (the decoders of the ranks no longer there dropped) and with more only under the
     * drift guard: a new worker's decoder is a copy of another's ({@link LgcPsServer#regrouping}), and only the guard
     * would notice that it reconstructs the new worker's vectors badly and fall back to training it.
     */
    @Override
    public void checkResize(int from, int to) {
        if (to > from && !control.guarded()) {
            throw new CheckpointMismatchException("LGC-PS cannot resume at K = " + to + " from a checkpoint of K = "
                    + from + " without the drift guard (autoencoder.driftBound is 0): a new worker's decoder is a copy"
                    + " of another worker's, and only the guard would fall back to training it when it reconstructs"
                    + " badly; turn the guard on, or go on with fewer workers (K <= " + from + ")", null);
        }
    }

    @Override
    public void attachNotes(StepNotes stepNotes) {
        this.notes = Objects.requireNonNull(stepNotes, "stepNotes");
    }

    StepNotes notes() {
        return notes;
    }

    @Override
    public GradientExchange worker(int rank, int workers, Transport transport, GradientLayout layout) {
        PsWorkerEnd end = new PsWorkerEnd(rank, workers, transport, shards.plan(layout), true, shortcuts);
        return WarmupExchange.wrap(new PsWorker(end, new LgcPsWorker(end, layout, this)), warmup,
                () -> ParameterServerTopology.warmupWorker(end, layout, warmup, codec));
    }

    @Override
    public List<ServiceLoop> services(int workers, List<Transport> serviceTransports, GradientLayout layout) {
        List<ServiceLoop> loops = new ArrayList<>(serviceTransports.size());
        for (int s = 0; s < serviceTransports.size(); s++) {
            loops.add(service(s, workers, serviceTransports.get(s), layout));
        }
        return List.copyOf(loops);
    }

    /** Shard 0: LGC-PS's server on the compressible blocks and its DENSE pieces; any other: its pieces alone. */
    @Override
    public ServiceLoop service(int index, int workers, Transport transport, GradientLayout layout) {
        PsServerEnd end = new PsServerEnd(transport, workers, shards.plan(layout), index, shortcuts);
        if (index > 0) {
            return new PsServer(end, PsServer.denseOnly(end));
        }
        LgcPsServer s = new LgcPsServer(end, layout, this);
        server = s;
        return new PsServer(end, s, ParameterServerTopology.warmupServer(end, shards.plan(layout), index, layout,
                warmup, codec));
    }

    double ratio() {
        return ratio;
    }

    LgcSupportCompressor supportCompressor() {
        return support;
    }

    IndexCodec codec() {
        return codec;
    }

    long seed() {
        return seed;
    }

    LgcControl control() {
        return control;
    }

    /** A fresh autoencoder for this run; every endpoint builds the same one from the seed. */
    PsAutoencoder newAutoencoder(int mu, int workers) {
        return new PsAutoencoder(spec, mu, workers, innovationShare, training, seed);
    }
}
