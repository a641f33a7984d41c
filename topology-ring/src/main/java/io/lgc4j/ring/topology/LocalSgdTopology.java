package io.lgc4j.ring.topology;

import io.lgc4j.core.comm.Transport;
import io.lgc4j.core.compress.Compressor;
import io.lgc4j.core.layout.GradientLayout;
import io.lgc4j.core.link.Shortcuts;
import io.lgc4j.core.method.SectionKeys;
import io.lgc4j.core.method.TopologyProvider;
import io.lgc4j.core.method.TopologyRequest;
import io.lgc4j.core.settings.Require;
import io.lgc4j.core.settings.Section;
import io.lgc4j.core.settings.SettingsException;
import io.lgc4j.core.train.GradientExchange;
import io.lgc4j.core.train.Overlap;
import io.lgc4j.core.train.Topology;
import io.lgc4j.core.train.TopologyDescription;
import io.lgc4j.core.warmup.Warmup;
import io.lgc4j.ring.skeleton.RingEnd;

import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Local SGD with periodic model averaging, as PyTorch's post-local SGD runs it ({@code PostLocalSGDOptimizer} with
 * {@code post_localSGD_hook}): exactly the dense ring ({@link RingTopology#RingTopology()}) for steps s &lt;
 * {@code localFrom}; from then on no gradient crosses a link and each rank applies its own gradient, and after the
 * update of each step with s − localFrom a multiple of {@code period} the parameters are averaged over the ranks by
 * the dense ring's fp32 allreduce (counted as a dense step's), leaving the replicas bit-identical. The updater's
 * state is never averaged. A run whose last step is not an averaging step ends with differing replicas; rank 0's is
 * the trained model. It has no compressor and no stages of its own.
 *
 * <p>Refused when the trainer is built ({@link #checkTraining}) or the configuration loads ({@link Provider}): an
 * overlap other than none, checkpoints on the way and resumes, and in a configuration a compressor or a warm-up.
 *
 * <pre>{@code
 * Topology local = new LocalSgdTopology(4, 100);   // dense for 100 steps, then the models averaged every 4 steps
 * DistributedTrainer.builder().model(net).data(train).workers(4).topology(local).build().fit(1);
 * }</pre>
 */
public final class LocalSgdTopology implements Topology {

    /** The name configurations use ({@code topology.type}) and result files record. */
    public static final String TYPE = "local-sgd";

    /**
     * When local SGD averages ({@code topology.period}, {@code topology.localFrom}).
     *
     * <pre>{@code
     * topology:
     *   type: local-sgd
     *   period: 4        # average the models after local steps localFrom, localFrom + 4, ..., >= 1
     *   localFrom: 0     # steps 0 .. localFrom - 1 average gradients as the dense ring does, >= 0
     * }</pre>
     *
     * @param period    H: the local steps between two averagings, at least 1 (1: average after every step)
     * @param localFrom the first local step (PyTorch's {@code start_localSGD_iter}), at least 0
     */
    public record Settings(int period, int localFrom) {
        /** Default of {@code topology.period}. */
        public static final int DEFAULT_PERIOD = 4;
        /** Default of {@code topology.localFrom}: local from the first step. */
        public static final int DEFAULT_LOCAL_FROM = 0;
        /** Every key at its default. */
        public static final Settings DEFAULT = new Settings(DEFAULT_PERIOD, DEFAULT_LOCAL_FROM);

        /** Checks each, naming the first that is wrong. */
        public Settings {
            Require.atLeast("period", period, 1);
            Require.atLeast("localFrom", localFrom, 0);
        }

        /** From the {@code topology} section; an absent key takes its default; a bad value is named under it. */
        public static Settings of(Section topology) {
            return topology.bind(Settings.class, DEFAULT);
        }

        /** Whether step {@code step} exchanges gradients (the dense ring's step) rather than applying its own. */
        public boolean averagesGradients(int step) {
            return step < localFrom;
        }

        /**
         * Whether the models are averaged after step {@code step}'s update: from {@code localFrom} on, every
         * {@code period}-th step, the first local step included — PyTorch's {@code PeriodicModelAverager} with
         * {@code warmup_steps = start_localSGD_iter}.
         */
        public boolean averagesParameters(int step) {
            return step >= localFrom && (step - localFrom) % period == 0;
        }
    }

    /**
     * Registers {@code local-sgd} (META-INF/services): {@link Settings} from the {@code topology} section, the
     * ring's shortcuts ({@code directBelowBytes}: the same bits), and the refusals a configuration can state at load:
     * a compressor, a warm-up, and what {@link #checkTraining} refuses ({@code training.overlap},
     * {@code training.checkpointEverySteps}).
     */
    public static final class Provider implements TopologyProvider {
        @Override
        public String type() {
            return TYPE;
        }

        /** {@code topology.period} and {@code localFrom} ({@link Settings}), accepted and written with its type only. */
        @Override
        public List<SectionKeys> sectionKeys() {
            return List.of(new SectionKeys("topology", 40, Settings.DEFAULT, Set.of(TYPE)));
        }

        @Override
        public Topology create(TopologyRequest request) {
            Compressor compressor = request.compressor().create(request.seed()).orElse(null);
            if (compressor != null) {
                throw new SettingsException("compressor.type", "must be none with topology.type " + TYPE + ", found "
                        + compressor.name() + ": local SGD averages the models in fp32, and its steps before"
                        + " topology.localFrom are the dense ring's");
            }
            Warmup warmup = Warmup.of(request);
            if (warmup.compressor() != null) {
                throw new SettingsException("warmup.type", "must be none with topology.type " + TYPE + ", found "
                        + warmup.compressor().name() + ": local SGD's steps before topology.localFrom are the dense"
                        + " ring's");
            }
            if (!warmup.isNone()) {
                throw new SettingsException("warmup.values", "must be inherit with topology.type " + TYPE + ", found "
                        + warmup.values() + ": local SGD's steps before topology.localFrom travel in"
                        + " compressor.values, its averagings in fp32");
            }
            Section topology = request.config().section("topology");
            LocalSgdTopology local = new LocalSgdTopology(Settings.of(topology), Shortcuts.of(topology).checkSupport());
            Section training = request.config().section("training");
            local.checkTraining(training.has("overlap") ? Overlap.parse(training.text("overlap")) : Overlap.NONE,
                    training.has("checkpointEverySteps") && training.integer("checkpointEverySteps") > 0, false);
            return local;
        }
    }

    private final Settings settings;
    private final Shortcuts shortcuts;

    /** Local SGD averaging every {@code period} steps from step {@code localFrom} on, without shortcuts. */
    public LocalSgdTopology(int period, int localFrom) {
        this(new Settings(period, localFrom), Shortcuts.DEFAULT);
    }

    /**
     * Local SGD of {@code settings}, its allreduces taking the shortcuts in {@code shortcuts} (an fp32 allreduce below
     * {@link Shortcuts#directBelowBytes()} in one leg: the same bits).
     */
    public LocalSgdTopology(Settings settings, Shortcuts shortcuts) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.shortcuts = Objects.requireNonNull(shortcuts, "shortcuts");
    }

    /** @return when it averages */
    public Settings settings() {
        return settings;
    }

    /** @return the shortcuts its allreduces take ({@link Shortcuts#DEFAULT}: none) */
    public Shortcuts shortcuts() {
        return shortcuts;
    }

    @Override
    public String name() {
        return TYPE;
    }

    /**
     * Refuses an overlap other than none, checkpoints on the way and a resume, each with the reason: between two
     * averagings every rank has a model and an optimizer state of its own.
     */
    @Override
    public void checkTraining(Overlap overlap, boolean checkpoints, boolean resumes) {
        if (overlap != Overlap.NONE) {
            throw new SettingsException("training.overlap", "must be none with topology.type " + TYPE + ", found "
                    + overlap.configName() + ": each rank applies its own gradient, and the models are averaged"
                    + " right after the update");
        }
        if (checkpoints) {
            throw new SettingsException("training.checkpointEverySteps", "must be 0 (no checkpoints) with"
                    + " topology.type " + TYPE + ": between averagings each rank's model and optimizer state differ"
                    + " (the optimizer state is never averaged), and a checkpoint saves one rank's");
        }
        if (resumes) {
            throw new IllegalArgumentException("topology " + TYPE + " cannot resume from a checkpoint: each rank's"
                    + " optimizer state differs (it is never averaged), and a checkpoint holds one rank's");
        }
    }

    /** {@code local-sgd}, no compressor, and its {@link Settings}. */
    @Override
    public TopologyDescription describe() {
        return new TopologyDescription(TYPE, "none", TopologyDescription.NO_SETTINGS, null, settings);
    }

    @Override
    public GradientExchange worker(int rank, int workers, Transport transport, GradientLayout layout) {
        return new LocalSgdExchange(new RingEnd(rank, workers, transport, layout, shortcuts), settings);
    }
}
