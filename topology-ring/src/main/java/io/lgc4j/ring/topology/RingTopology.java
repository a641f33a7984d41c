package io.lgc4j.ring.topology;

import io.lgc4j.core.codec.IndexCodec;
import io.lgc4j.core.codec.IndexCodecs;
import io.lgc4j.core.comm.Transport;
import io.lgc4j.core.compress.Compressor;
import io.lgc4j.core.layout.GradientLayout;
import io.lgc4j.core.link.Shortcuts;
import io.lgc4j.core.stage.StageSchedule;
import io.lgc4j.core.method.TopologyProvider;
import io.lgc4j.core.method.TopologyRequest;
import io.lgc4j.core.train.GradientExchange;
import io.lgc4j.core.train.Topology;
import io.lgc4j.core.warmup.Warmup;
import io.lgc4j.core.warmup.WarmupExchange;
import io.lgc4j.core.train.TopologyDescription;
import io.lgc4j.ring.skeleton.RingEnd;

import java.util.Objects;
import java.util.Optional;

/**
 * Ring-allreduce topology: no server; the K workers form a ring in rank order. Without a compressor, dense
 * gradients ride {@link RingAllReduce} and every rank divides by K locally (the same operation on the same bits).
 * With a compressor, DENSE blocks still ride the allreduce; summable payloads (ScaleCom's aligned values) ride it
 * too, and gather-only payloads (Sparse GD, DGC) travel by ring all-gather — unless the topology was built to
 * refuse them.
 *
 * <pre>{@code
 * new RingTopology();                                                  // dense
 * new RingTopology(new ScaleComCompressor(0.001, 1.0), IndexCodecs.defaultCodec(), GatherPolicy.REFUSE);
 * }</pre>
 */
public final class RingTopology implements Topology {

    /** What the ring does with a compressor whose payloads are not summable. */
    public enum GatherPolicy {
        /** Carry them by all-gather: each rank's payload visits every other rank (K−1 hops, all counted). */
        ALL_GATHER,
        /** Refuse such a compressor when the topology is built. */
        REFUSE
    }

    /**
     * The ring's own settings, when it carries a compressor.
     *
     * @param gather what it does with gather-only payloads
     */
    public record Settings(GatherPolicy gather) {
    }

    /**
     * Registers {@code ring} for every compressor that has no ring of its own (META-INF/services): dense for
     * {@code none}, else the compressed ring with the request's codec, carrying gather-only payloads by all-gather.
     */
    public static final class Provider implements TopologyProvider {
        @Override
        public String type() {
            return "ring";
        }

        @Override
        public Topology create(TopologyRequest request) {
            Compressor compressor = request.compressor().create(request.seed()).orElse(null);
            Shortcuts shortcuts = Shortcuts.of(request.config().section("topology")).checkSupport(compressor);
            return (compressor == null ? new RingTopology()
                    : new RingTopology(compressor, request.codec(), GatherPolicy.ALL_GATHER))
                    .withWarmup(Warmup.of(request), request.codec()).withShortcuts(shortcuts);
        }
    }

    private final Compressor compressor;
    private final IndexCodec codec;
    private final GatherPolicy policy;
    private final Warmup warmup;
    private final IndexCodec warmupCodec;
    private final Shortcuts shortcuts;

    /** The dense ring. */
    public RingTopology() {
        this(null, null, null, Warmup.NONE, null, Shortcuts.DEFAULT);
    }

    /** A compressed ring that carries gather-only payloads by all-gather, indices through the default codec. */
    public RingTopology(Compressor compressor) {
        this(compressor, IndexCodecs.defaultCodec(), GatherPolicy.ALL_GATHER);
    }

    /**
     * A compressed ring.
     *
     * @throws IllegalArgumentException when {@code policy} is REFUSE and the compressor's payloads are not summable
     */
    public RingTopology(Compressor compressor, IndexCodec codec, GatherPolicy policy) {
        this(Objects.requireNonNull(compressor, "compressor"), codec, policy, Warmup.NONE, null, Shortcuts.DEFAULT);
    }

    private RingTopology(Compressor compressor, IndexCodec codec, GatherPolicy policy, Warmup warmup,
                         IndexCodec warmupCodec, Shortcuts shortcuts) {
        this.warmup = Objects.requireNonNull(warmup, "warmup");
        this.shortcuts = Objects.requireNonNull(shortcuts, "shortcuts");
        this.warmupCodec = warmupCodec == null ? IndexCodecs.defaultCodec() : warmupCodec;
        this.compressor = compressor; // null: dense, without codec or policy
        this.codec = compressor == null ? null : Objects.requireNonNull(codec, "codec");
        this.policy = compressor == null ? null : Objects.requireNonNull(policy, "policy");
        if (compressor != null && !compressor.summable() && policy == GatherPolicy.REFUSE) {
            throw new IllegalArgumentException("the ring cannot carry compressor '" + compressor.name()
                    + "': its payloads are not summable (each rank picks its own support), and this ring refuses"
                    + " all-gather; use a summable compressor (scalecom), GatherPolicy.ALL_GATHER, or the"
                    + " parameter server");
        }
    }

    /**
     * The same ring with a compressed warm-up: its FULL steps travel as {@code warmup}'s compressor's payload (the
     * generic compressed ring carries every kind: gather-only payloads by all-gather), or dense in its encoding; the
     * DENSE blocks stay dense.
     *
     * @param codec the warm-up's index codec ({@code null}: the default)
     */
    public RingTopology withWarmup(Warmup warmup, IndexCodec codec) {
        return new RingTopology(compressor, this.codec, policy, warmup, codec, shortcuts);
    }

    /**
     * The same ring taking the shortcuts in {@code shortcuts}: the leader's support sent to every rank directly, small
     * fp32 allreduces in one leg. The same bits on every rank as without them; not part of {@link #describe()}, since
     * the method is the same.
     */
    public RingTopology withShortcuts(Shortcuts shortcuts) {
        return new RingTopology(compressor, codec, policy, warmup, warmupCodec, shortcuts);
    }

    /** @return the shortcuts this ring takes ({@link Shortcuts#DEFAULT}: none) */
    public Shortcuts shortcuts() {
        return shortcuts;
    }

    /** @return the warm-up this ring's FULL steps run ({@link Warmup#NONE}: dense, today's) */
    public Warmup warmup() {
        return warmup;
    }

    /**
     * A rank's FULL steps of a compressed warm-up on the ring: the generic compressed ring exchange of
     * {@code warmup}'s compressor, compressing every stage it is given. For rings of their own (LGC-RAR), which share
     * this one's frames.
     */
    public static GradientExchange warmupExchange(RingEnd end, GradientLayout layout, Warmup warmup,
                                                  IndexCodec codec) {
        return new CompressedRingExchange(end, layout, warmup.compressor(), codec, true);
    }

    @Override
    public String name() {
        return "ring";
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

    /** {@code ring}, the compressor and its settings, and when compressed the codec and the {@link Settings}. */
    @Override
    public TopologyDescription describe() {
        if (compressor == null) {
            return new TopologyDescription(name(), "none", TopologyDescription.NO_SETTINGS, null,
                    TopologyDescription.NO_SETTINGS);
        }
        return new TopologyDescription(name(), compressor.name(), compressor.settings(), codec.name(),
                new Settings(policy));
    }

    @Override
    public GradientExchange worker(int rank, int workers, Transport transport, GradientLayout layout) {
        RingEnd end = new RingEnd(rank, workers, transport, layout, shortcuts);
        GradientExchange main = compressor != null ? new CompressedRingExchange(end, layout, compressor, codec)
                : new DenseRingExchange(end);
        return WarmupExchange.wrap(main, warmup, () -> warmupExchange(end, layout, warmup, warmupCodec));
    }
}
