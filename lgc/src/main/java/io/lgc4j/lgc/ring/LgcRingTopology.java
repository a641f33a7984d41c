package io.lgc4j.lgc.ring;

import io.lgc4j.lgc.autoencoder.AeTraining;
import io.lgc4j.lgc.autoencoder.AutoencoderSpec;
import io.lgc4j.lgc.LgcAblation;
import io.lgc4j.lgc.LgcControl;
import io.lgc4j.lgc.LgcSettings;
import io.lgc4j.lgc.autoencoder.LinearRingCode;
import io.lgc4j.core.codec.IndexCodec;
import io.lgc4j.core.codec.IndexCodecs;
import io.lgc4j.core.comm.Transport;
import io.lgc4j.lgc.support.CompactLayout;
import io.lgc4j.core.compress.Compressor;
import io.lgc4j.core.compress.CompressorKeys;
import io.lgc4j.lgc.support.LgcSupportCompressor;
import io.lgc4j.core.layout.GradientLayout;
import io.lgc4j.core.link.Shortcuts;
import io.lgc4j.core.settings.SettingsException;
import io.lgc4j.core.method.TopologyProvider;
import io.lgc4j.core.method.TopologyRequest;
import io.lgc4j.core.metrics.StepNotes;
import io.lgc4j.core.stage.StageSchedule;
import io.lgc4j.core.train.GradientExchange;
import io.lgc4j.core.train.Topology;
import io.lgc4j.core.train.TopologyChecks;
import io.lgc4j.core.train.TopologyDescription;
import io.lgc4j.core.warmup.Warmup;
import io.lgc4j.core.warmup.WarmupExchange;
import io.lgc4j.ring.skeleton.RingEnd;
import io.lgc4j.ring.topology.RingTopology;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * LGC-RAR: learned gradient compression on the ring (seeds/003 Algorithm 2). FULL: dense gradients ride the ring
 * allreduce. TOP_K: a leader drawn from the shared seed sends its top-k indices round the ring, every rank's
 * accumulated values on them ride the allreduce, and rank 0 trains the ring autoencoder on the LEARNED parts of the
 * compact vectors the others send it. COMPRESSED: rank 0 ships encoder and decoder (again after a fallback); the
 * LEARNED part is encoded (divided by the leader's scale), the latents ride the allreduce, and every rank decodes the
 * mean latent. DENSE blocks (the first layer) always ride dense, TOP_K blocks (the last layer) always go as values on
 * the leader's support; every byte is counted.
 * {@link LgcControl} adds, each switchable, reconstruction feedback, a drift guard and control runs
 * ({@link LgcAblation}, those in {@link #ABLATIONS}); {@link LgcSettings#linearLatent} swaps in
 * {@link LinearRingCode}.
 *
 * <pre>{@code
 * Topology lgc = LgcRingTopology.builder().ratio(0.001).seed(42).build();   // every other setting at its default
 * DistributedTrainer.builder()...topology(lgc).stages(new StageSchedule(200, 300)).build().fit(3);
 * }</pre>
 */
public final class LgcRingTopology implements Topology {

    /**
     * Registers LGC-RAR as the ring of {@code lgc} (META-INF/services); reads {@link LgcSettings} only, and rejects
     * an {@code autoencoder.ablation} LGC-RAR does not run.
     */
    public static final class Provider implements TopologyProvider {
        @Override
        public String type() {
            return "ring";
        }

        @Override
        public Set<String> compressorTypes() {
            return Set.of("lgc");
        }

        @Override
        public Topology create(TopologyRequest request) {
            LgcSettings lgc = request.compressor().settings(LgcSettings.class);
            try {
                return builder().settings(lgc).codec(request.codec()).seed(request.seed()).warmup(Warmup.of(request))
                        .shortcuts(Shortcuts.of(request.config().section("topology"))).build();
            } catch (SettingsException e) {
                throw e.under(request.config().section("autoencoder").path()); // the ablation
            }
        }
    }

    /**
     * The control runs LGC-RAR has ({@code autoencoder.ablation}): {@code none}, {@code learned-frozen},
     * {@code zero-latent}; see {@link LgcAblation}.
     */
    public static final List<LgcAblation> ABLATIONS = LgcAblation.ofRing();

    private final double ratio;
    private final LgcSupportCompressor support;
    private final IndexCodec codec;
    private final AutoencoderSpec spec;
    private final AeTraining training;
    private final long seed;
    private final LgcControl control;
    private int linearLatent;
    private Warmup warmup = Warmup.NONE;
    private Shortcuts shortcuts = Shortcuts.DEFAULT;
    private StepNotes notes = new StepNotes();

    /**
     * @return a builder of LGC-RAR, every setting at its default: the paper's ratio (0.001) and architecture
     *         ({@link AutoencoderSpec#PAPER}), the autoencoder trained by {@link AeTraining#DEFAULT} (Adam at 1e-3,
     *         λ2 = 0 — the paper's SGD with λ2 = 0.5, {@link AeTraining#PAPER}, collapses the ring's latent to a
     *         constant), the drift guard of {@link LgcControl#DEFAULT}, seed 0
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * LGC-RAR's settings by name, each at its default until set.
     *
     * <pre>{@code
     * Topology lgc = LgcRingTopology.builder().ratio(0.001).seed(42).build();
     * Topology linear = LgcRingTopology.builder().settings(lgcSettings).linearCode(256).seed(42).build();
     * }</pre>
     */
    public static final class Builder {
        private double ratio = CompressorKeys.DEFAULT_RATIO;
        private IndexCodec codec = IndexCodecs.defaultCodec();
        private AutoencoderSpec spec = AutoencoderSpec.PAPER;
        private AeTraining training = AeTraining.DEFAULT;
        private long seed;
        private LgcControl control = LgcControl.DEFAULT;
        private int linearCode;
        private Warmup warmup = Warmup.NONE;
        private Shortcuts shortcuts = Shortcuts.DEFAULT;

        private Builder() {
        }

        /** Fraction of each compressible block selected per step, in (0, 1] (default 0.001, the paper's). */
        public Builder ratio(double ratio) {
            this.ratio = ratio;
            return this;
        }

        /** The index codec of the leader's support (default {@link IndexCodecs#defaultCodec}). */
        public Builder codec(IndexCodec codec) {
            this.codec = codec;
            return this;
        }

        /** The autoencoder's architecture (default {@link AutoencoderSpec#PAPER}). */
        public Builder spec(AutoencoderSpec spec) {
            this.spec = spec;
            return this;
        }

        /** The autoencoder's online training (default {@link AeTraining#DEFAULT}; see {@link #builder()}). */
        public Builder training(AeTraining training) {
            this.training = training;
            return this;
        }

        /** Seed of the leader draw and of the autoencoder's initialization (default 0). */
        public Builder seed(long seed) {
            this.seed = seed;
            return this;
        }

        /** The drift guard, reconstruction feedback and ablation (default {@link LgcControl#DEFAULT}). */
        public Builder control(LgcControl control) {
            this.control = control;
            return this;
        }

        /**
         * 0 (default): the convolutional autoencoder; f &gt; 0: the linear code of f floats ({@link #withLinearCode}).
         */
        public Builder linearCode(int floats) {
            this.linearCode = floats;
            return this;
        }

        /** The FULL stage's warm-up (default {@link Warmup#NONE}: dense; see {@link #withWarmup}). */
        public Builder warmup(Warmup warmup) {
            this.warmup = warmup;
            return this;
        }

        /** The ring's shortcuts (default {@link Shortcuts#DEFAULT}: none; the same bits with them). */
        public Builder shortcuts(Shortcuts shortcuts) {
            this.shortcuts = shortcuts;
            return this;
        }

        /** Ratio, architecture, training, controls and linear code from LGC's settings. */
        public Builder settings(LgcSettings lgc) {
            return ratio(lgc.ratio()).spec(lgc.spec()).training(lgc.training()).control(lgc.control())
                    .linearCode(lgc.linearLatent());
        }

        /**
         * @throws io.lgc4j.core.settings.SettingsException when the control's ablation is not one LGC-RAR runs
         * @throws NullPointerException                     naming a setting left null
         * @throws IllegalArgumentException                 when the linear code is negative
         */
        public LgcRingTopology build() {
            return new LgcRingTopology(ratio, codec, spec, training, seed, control).withLinearCode(linearCode)
                    .withWarmup(warmup).withShortcuts(shortcuts);
        }
    }

    /**
     * @param ratio    fraction of each compressible block selected per step (the paper: 0.001)
     * @param codec    the index codec for the leader's support
     * @param spec     the autoencoder's architecture
     * @param training the autoencoder's online training
     * @param seed     seed of the leader draw and of the autoencoder's initialization
     */
    public LgcRingTopology(double ratio, IndexCodec codec, AutoencoderSpec spec, AeTraining training, long seed) {
        this(ratio, codec, spec, training, seed, LgcControl.DEFAULT);
    }

    /**
     * @param ratio    fraction of each compressible block selected per step (the paper: 0.001)
     * @param codec    the index codec for the leader's support
     * @param spec     the autoencoder's architecture
     * @param training the autoencoder's online training
     * @param seed     seed of the leader draw and of the autoencoder's initialization
     * @param control  the drift guard, reconstruction feedback and ablation ({@link LgcControl#PAPER} for none)
     * @throws io.lgc4j.core.settings.SettingsException when the control's ablation is not one LGC-RAR runs
     *                                                ({@link #ABLATIONS})
     */
    public LgcRingTopology(double ratio, IndexCodec codec, AutoencoderSpec spec, AeTraining training, long seed,
                           LgcControl control) {
        this.control = Objects.requireNonNull(control, "control");
        control.ablation().requireIn(ABLATIONS, "ring", "LGC-RAR");
        this.support = new LgcSupportCompressor(ratio, seed, control.lowPass());
        this.ratio = ratio;
        this.codec = Objects.requireNonNull(codec, "codec");
        this.spec = Objects.requireNonNull(spec, "spec");
        this.training = Objects.requireNonNull(training, "training");
        this.seed = seed;
    }

    /**
     * @param floats 0: the convolutional autoencoder of the spec (the default); f &gt; 0: the linear code of f floats
     *               instead ({@link LinearRingCode}: the top f principal directions of the compact vectors of the
     *               TOP_K stage, fitted at the switch and shipped as one weight form)
     * @return this topology
     */
    public LgcRingTopology withLinearCode(int floats) {
        if (floats < 0) {
            throw new IllegalArgumentException("linearLatent must be 0 (the convolutional autoencoder) or a positive "
                    + "number of floats, got " + floats);
        }
        this.linearLatent = floats;
        return this;
    }

    /**
     * @param fullStage the FULL stage's warm-up ({@link Warmup#NONE}, the default: dense): a compressor's runs through
     *                  the generic compressed ring ({@link RingTopology#warmupExchange}), indices through this
     *                  topology's codec; at the switch its residual goes into the support memory
     * @return this topology
     */
    public LgcRingTopology withWarmup(Warmup fullStage) {
        this.warmup = Objects.requireNonNull(fullStage, "fullStage");
        return this;
    }

    /**
     * @param shortcuts the ring's shortcuts ({@link Shortcuts}: the leader's support and scale sent to every rank
     *                  directly, small fp32 allreduces in one leg); the same bits as without them
     * @return this topology
     */
    public LgcRingTopology withShortcuts(Shortcuts shortcuts) {
        this.shortcuts = Objects.requireNonNull(shortcuts, "shortcuts");
        return this;
    }

    @Override
    public String name() {
        return "ring";
    }

    @Override
    public Optional<Compressor> compressor() {
        return Optional.of(support);
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
        int mu = new CompactLayout(layout, ratio).mu();
        if (linearLatent > mu) {
            throw new IllegalArgumentException("autoencoder.linearLatent is " + linearLatent + " floats, more than the "
                    + "compact vector it codes: μ = " + mu + " values (the LEARNED blocks at ratio " + ratio
                    + "); choose 1 to " + mu);
        }
    }

    /** {@code ring}, {@code lgc} with its {@link LgcSettings}, the codec; no settings of its own. */
    @Override
    public TopologyDescription describe() {
        return new TopologyDescription(name(), support.name(),
                new LgcSettings(ratio, spec, training, control, linearLatent), codec.name(),
                TopologyDescription.NO_SETTINGS);
    }

    @Override
    public void attachNotes(StepNotes stepNotes) {
        this.notes = Objects.requireNonNull(stepNotes, "stepNotes");
    }

    @Override
    public GradientExchange worker(int rank, int workers, Transport transport, GradientLayout layout) {
        RingEnd end = new RingEnd(rank, workers, transport, layout, shortcuts);
        return WarmupExchange.wrap(new LgcRingExchange(end, layout, support, codec, spec, training, seed, notes,
                control, linearLatent), warmup, () -> RingTopology.warmupExchange(end, layout, warmup, codec));
    }
}
