package io.lgc4j.lgc.ring;

import io.lgc4j.lgc.autoencoder.AeTraining;
import io.lgc4j.lgc.autoencoder.AutoencoderSpec;
import io.lgc4j.lgc.LgcAblation;
import io.lgc4j.lgc.LgcControl;
import io.lgc4j.lgc.LgcSettings;
import io.lgc4j.lgc.autoencoder.LinearRingCode;
import io.lgc4j.core.codec.IndexCodec;
import io.lgc4j.core.comm.Transport;
import io.lgc4j.core.compress.CompactLayout;
import io.lgc4j.core.compress.Compressor;
import io.lgc4j.core.compress.LgcSupportCompressor;
import io.lgc4j.core.layout.GradientLayout;
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
import io.lgc4j.ring.exchange.RingEnd;
import io.lgc4j.core.exchange.Routes;
import io.lgc4j.ring.topology.RingTopology;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * LGC-RAR: learned gradient compression on the ring (seeds/003 Algorithm 2, Fig. 9). Per stage:
 * <ul>
 *   <li>FULL — dense gradients ride the ring allreduce;</li>
 *   <li>TOP_K — a leader drawn from the shared seed broadcasts its top-k indices round the ring; every rank takes
 *       its error-accumulated values on them; the values ride the allreduce and the mean is the update. Each rank
 *       also sends the LEARNED part of its compact vector to rank 0, which trains the ring autoencoder on them;</li>
 *   <li>COMPRESSED — at the first such step rank 0 ships the encoder and decoder to every rank. Then, as in TOP_K,
 *       but the LEARNED part is encoded (divided by the leader's scale, which travels with its indices), the
 *       latents ride the allreduce, and every rank decodes the mean latent into the mean compact vector.</li>
 * </ul>
 * DENSE blocks (the first layer) always ride the allreduce dense; TOP_K blocks (the last layer) always go as
 * values on the leader's support. Every byte, including the samples for training and the weights, is counted.
 *
 * <p>Beyond the paper ({@link LgcControl}): with reconstruction feedback each rank puts its own compact vector minus
 * the decoded mean back into its residual, so over the ranks the residuals keep exactly what the autoencoder lost.
 * With the drift guard, every {@code checkEvery} compressed steps the true values at a few sampled positions ride a
 * small allreduce and every rank computes the same relative error of the reconstruction; when the guard trips, the
 * ranks run TOP_K steps (rank 0 training again and telling the others each step, with one byte, whether the
 * autoencoder has recovered) and resume with freshly shipped weights. A control run ({@link LgcAblation}:
 * {@code learned-frozen}, {@code zero-latent}) applies something else at the LEARNED positions of a compressed step;
 * every frame is the same, and the guard judges the decoded mean latent as without the ablation.
 *
 * <pre>{@code
 * Topology lgc = new LgcRingTopology(0.001, IndexCodecs.defaultCodec(), AutoencoderSpec.PAPER, AeTraining.DEFAULT, 42);
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
                return new LgcRingTopology(lgc.ratio(), request.codec(), lgc.spec(), lgc.training(), request.seed(),
                        lgc.control()).withLinearCode(lgc.linearLatent()).withWarmup(Warmup.of(request))
                        .withRoutes(Routes.of(request.config().section("topology")));
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
    private Routes routes = Routes.DEFAULT;
    private StepNotes notes = new StepNotes();

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
     * @param shortcuts the ring's shortcuts ({@link Routes}: the leader's support and scale sent to every rank
     *                  directly, small fp32 allreduces in one leg); the same bits as without them
     * @return this topology
     */
    public LgcRingTopology withRoutes(Routes shortcuts) {
        this.routes = Objects.requireNonNull(shortcuts, "shortcuts");
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
        RingEnd end = new RingEnd(rank, workers, transport, layout, routes);
        return WarmupExchange.wrap(new LgcRingExchange(end, layout, support, codec, spec, training, seed, notes,
                control, linearLatent), warmup, () -> RingTopology.warmupExchange(end, layout, warmup, codec));
    }
}
