package io.lgc4j.core.train;

import io.lgc4j.core.comm.Transport;
import io.lgc4j.core.compress.Compressor;
import io.lgc4j.core.layout.GradientLayout;
import io.lgc4j.core.metrics.StepNotes;
import io.lgc4j.core.stage.Stage;
import io.lgc4j.core.stage.StageSchedule;

import java.util.List;
import java.util.Optional;

/**
 * How K worker ranks aggregate their gradients, using only the {@link Transport} SPI for traffic. Endpoints
 * 0..K-1 are the workers; a topology may ask for {@link #serviceEndpoints} more (a parameter server's roles),
 * numbered K, K+1, ..., each running a {@link ServiceLoop} on its own thread.
 *
 * <pre>{@code
 * Topology ring = new RingTopology();
 * DistributedTrainer.builder().model(net).data(train).workers(4).topology(ring).build().fit(1);
 * }</pre>
 */
public interface Topology {

    /** A short name for metrics and result files ({@code ring}, {@code ps}). */
    String name();

    /** The compressor of the compressible blocks, if any (a dense topology has none). */
    default Optional<Compressor> compressor() {
        return Optional.empty();
    }

    /** Endpoints this topology needs beyond the {@code workers} worker ranks. */
    default int serviceEndpoints(int workers) {
        return 0;
    }

    /**
     * Checks that this topology can train a model of {@code layout} under {@code stages}; called by
     * {@link DistributedTrainer.Builder#build()} once the layout is known, before anything runs, so a setting the
     * topology cannot work with fails there rather than in {@code fit}. The default accepts everything; see
     * {@link TopologyChecks} for the checks the LGC topologies share.
     *
     * @param layout the model's gradient layout, with the policies in force
     * @param stages the stage schedule in force (the builder's default when {@code .stages(...)} was not called)
     * @param stagesGiven whether the schedule was given with {@code .stages(...)}: a method that needs its stages
     *                    should refuse the default, and accept a given schedule (a control that stays in FULL or
     *                    TOP_K on purpose is a legitimate run)
     * @throws IllegalArgumentException naming what is wrong and how to fix it
     */
    default void check(GradientLayout layout, StageSchedule stages, boolean stagesGiven) {
    }

    /**
     * Checks that this topology can train with the trainer's overlap and checkpoints; called by
     * {@link DistributedTrainer.Builder#build()} with {@link #check}. The default accepts everything: the replicas
     * of a topology that averages gradients are equal after every step. A topology whose ranks keep replicas of
     * their own between steps (local SGD) refuses what needs them equal.
     *
     * @param overlap              what a rank's step overlaps ({@code training.overlap})
     * @param checkpoints whether the run saves checkpoints, on the way or at the end
     * @param resumes     whether the run resumes from a checkpoint
     * @throws io.lgc4j.core.settings.SettingsException naming the setting ({@code training.overlap}, ...), what it
     *                                                  must be and why
     */
    default void checkTraining(Overlap overlap, boolean checkpoints, boolean resumes) {
    }

    /**
     * Refuses a resume at {@code to} workers from a checkpoint of {@code from} when this topology's state cannot
     * change size, saying why; called by {@link DistributedTrainer.Builder#build()} before the first step. The default
     * accepts: each rank's exchange then says at load how its sections regroup
     * ({@link io.lgc4j.core.checkpoint.Persistent#regrouping}), and a section no rule names is refused there.
     *
     * @throws CheckpointMismatchException naming the topology and why its state cannot go from K = from to K = to
     */
    default void checkResize(int from, int to) {
    }

    /**
     * Gives the topology the board for its per-step notes (autoencoder losses and the like); called once before
     * {@link #worker} and {@link #services}. The default ignores it.
     */
    default void attachNotes(StepNotes notes) {
    }

    /**
     * Whether a step of {@code stage} waits, on a service or a rank, for work that endpoint's own lane queued before
     * (LGC's decode behind its autoencoder's training): the advisor then bounds such a step by that lane's CPU over
     * the process's quota. False by default.
     */
    default boolean waitsForLane(Stage stage) {
        return false;
    }

    /**
     * This topology's type, compressor (with its settings record), codec and own settings, for result files.
     * The default names the compressor and its settings and leaves the codec out; topologies that use a codec or
     * have settings of their own override it.
     */
    default TopologyDescription describe() {
        Optional<Compressor> c = compressor();
        return new TopologyDescription(name(), c.map(Compressor::name).orElse("none"),
                c.map(Compressor::settings).orElse(TopologyDescription.NO_SETTINGS), null,
                TopologyDescription.NO_SETTINGS);
    }

    /** The exchange of worker {@code rank}; called once per rank before training starts. */
    GradientExchange worker(int rank, int workers, Transport transport, GradientLayout layout);

    /**
     * The loops of the service endpoints, one per transport in {@code serviceTransports} (whose size is
     * {@link #serviceEndpoints(int)}).
     */
    default List<ServiceLoop> services(int workers, List<Transport> serviceTransports, GradientLayout layout) {
        return List.of();
    }

    /**
     * The loop of service endpoint {@code index} alone, for a process that runs only that endpoint (the network
     * runtime). The default builds {@link #services} with this one transport when the topology has one service; a
     * topology of several services overrides it.
     */
    default ServiceLoop service(int index, int workers, Transport transport, GradientLayout layout) {
        if (serviceEndpoints(workers) != 1 || index != 0) {
            throw new IllegalStateException("topology " + name() + " has " + serviceEndpoints(workers)
                    + " service endpoints and does not build service " + index + " alone");
        }
        return services(workers, List.of(transport), layout).get(0);
    }

    /**
     * A fingerprint of how this topology cuts {@code layout} into frames, compared between processes at rendezvous:
     * two processes whose fingerprints differ would misread each other's frames and are refused. The default, 0, says
     * there is nothing beyond the model and the config to compare (the parameter server's fusion plan is something).
     */
    default long fingerprint(GradientLayout layout) {
        return 0L;
    }

    /** What {@link #fingerprint} stands for, for the message that refuses a process with another. */
    default String describeFingerprint(GradientLayout layout) {
        return "topology " + name();
    }
}
