package io.lgc4j.core.train;

import io.lgc4j.core.checkpoint.Checkpoint;
import io.lgc4j.core.checkpoint.CheckpointException;
import io.lgc4j.core.checkpoint.CheckpointPart;
import io.lgc4j.core.checkpoint.PartKind;
import io.lgc4j.core.checkpoint.Persistent.Regrouping;
import io.lgc4j.core.comm.TrafficMeter;

import java.io.IOException;
import java.lang.ref.SoftReference;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.logging.Logger;
import java.util.stream.IntStream;

/**
 * A checkpoint written by K ranks, read as the parts of K' ranks (a resume at another K), built in memory when a rank
 * asks for its part. Every section follows a rule: the trainer's own (the replica, what the step order carries, the
 * history and accuracy stay with rank 0; each rank's traffic counters stay with it, a new rank's start at 0, and a
 * rank no longer there has its counters added to rank 0's, so the run's totals count every byte), the exchange's
 * ({@link Regrouping}: memories keep their mean, replicated sections their bytes, rank 0's own beside a shipped copy
 * on the others). A section with no rule is refused, naming it. A service kept ({@code s < min(S, S')}) has its part
 * as it is, or rewritten by its state's {@link Regrouping#service()} (LGC-PS's server drops the decoders of the ranks
 * no longer there); a new one ({@code s ≥ S}) starts with no state and its counters at 0; one no longer there must
 * hold nothing but its counters, which service 0 adds to its own. At the same K with another S the ranks' parts are
 * the checkpoint's as they are.
 */
final class Regroup {

    private static final Logger LOG = Logger.getLogger(Regroup.class.getName());

    private final Checkpoint checkpoint;
    private final int from;
    private final int to;
    private final int servicesFrom;
    private final int servicesTo;
    /**
     * The old ranks' parts, read once (a memory section needs every rank's), and the parts built, each kept softly:
     * needed only while the ranks resume, and built again, to the same bits, should the collector have taken one.
     */
    private SoftReference<CheckpointPart[]> old = new SoftReference<>(null);
    private final Map<Integer, SoftReference<CheckpointPart>> built = new HashMap<>();

    /** The checkpoint's parts read as the parts of {@code to} ranks and {@code servicesTo} services. */
    Regroup(Checkpoint checkpoint, int to, int servicesTo) {
        this.checkpoint = checkpoint;
        this.from = checkpoint.manifest().run().workers();
        this.to = to;
        this.servicesFrom = checkpoint.manifest().run().services();
        this.servicesTo = servicesTo;
    }

    /** Whether a resume from {@code checkpoint} at K' = {@code to}, S' = {@code servicesTo} reads it regrouped. */
    static boolean needed(Checkpoint checkpoint, int to, int servicesTo) {
        return checkpoint.manifest().run().workers() != to || checkpoint.manifest().run().services() != servicesTo;
    }

    /**
     * Rank {@code rank}'s part at K' ranks, by the trainer's rules and {@code exchange}'s (every rank's exchange
     * declares the same).
     *
     * @throws CheckpointException naming the section and the part when a section has no rule, replicated sections
     *                             differ, or memories differ in length
     */
    synchronized CheckpointPart rankPart(int rank, Regrouping exchange) throws IOException, CheckpointException {
        if (from == to) {
            return checkpoint.rankPart(rank); // another S only: the ranks hold nothing of the services
        }
        SoftReference<CheckpointPart> kept = built.get(rank);
        CheckpointPart part = kept == null ? null : kept.get();
        if (part == null) {
            part = build(rank, exchange);
            built.put(rank, new SoftReference<>(part));
        }
        return part;
    }

    private CheckpointPart build(int rank, Regrouping exchange) throws IOException, CheckpointException {
        sums.setLength(0);
        if (exchange.refusal() != null) {
            throw new CheckpointException("cannot resume " + checkpoint.directory().getFileName() + " of K = " + from
                    + " at K = " + to + ": " + exchange.refusal());
        }
        CheckpointPart[] parts = oldParts();
        for (int r = 1; r < from; r++) {
            // rank 0's part holds every section a rank's does, and its own
            requireSameNames(parts[0], parts[r]);
        }
        CheckpointPart.Builder out = CheckpointPart.builder(PartKind.RANK);
        for (String name : parts[0].sectionNames()) {
            if (name.equals(Checkpointing.TRAFFIC)) {
                out.section(name).putLongs(traffic(rank, parts));
                continue;
            }
            switch (ruleOf(name, exchange)) {
                case RANK_ZERO -> {
                    if (rank == 0) {
                        out.section(name).putBytes(parts[0].bytes(name));
                    }
                }
                case REPLICATED -> out.section(name).putBytes(replicated(name, parts, 0));
                case SHIPPED -> {
                    byte[] copy = rank == 0 ? parts[0].bytes(name) : shipped(name, parts);
                    if (copy != null) {
                        out.section(name).putBytes(copy);
                    }
                }
                case MEMORY -> out.section(name).putFloats(memory(name, rank, parts));
            }
        }
        if (rank == 0) {
            LOG.info(() -> "resuming " + checkpoint.directory() + " of K = " + from + " at K = " + to
                    + ": rank 0 keeps the replica; each memory keeps its mean over the ranks" + sums);
        }
        return out.build();
    }

    /**
     * Service {@code service}'s part at K' ranks and S' services: a service kept has its traffic counters and its state
     * by {@code state}'s {@link Regrouping#service()} (a part with state and no such rule is refused, naming the
     * section), or the part as it is when it holds no state or K is the same; a new service, no state and counters at
     * 0; service 0 adds the counters of the services no longer there, which must hold nothing else.
     *
     * @param stateful whether the service carries state from step to step (a new service cannot be given any)
     */
    CheckpointPart servicePart(int service, Regrouping state, boolean stateful) throws IOException,
            CheckpointException {
        if (service >= servicesFrom) {
            if (stateful) {
                throw new CheckpointException("cannot resume " + checkpoint.directory().getFileName() + " of S = "
                        + servicesFrom + " at S = " + servicesTo + ": service " + service + " is new and carries state"
                        + " from step to step, which the checkpoint has none of for it");
            }
            CheckpointPart.Builder fresh = CheckpointPart.builder(PartKind.SERVER);
            fresh.section(Checkpointing.TRAFFIC).putLongs(new long[TrafficMeter.ROW_LENGTH]);
            return fresh.build();
        }
        CheckpointPart old = checkpoint.serverPart(service);
        CheckpointPart kept = from == to ? old : resized(old, state);
        if (service != 0 || servicesTo >= servicesFrom) {
            return kept;
        }
        long[] traffic = kept.longs(Checkpointing.TRAFFIC, TrafficMeter.ROW_LENGTH);
        for (int s = servicesTo; s < servicesFrom; s++) {
            CheckpointPart dropped = checkpoint.serverPart(s);
            for (String name : dropped.sectionNames()) {
                if (!name.equals(Checkpointing.TRAFFIC)) {
                    throw new CheckpointException("cannot resume " + checkpoint.directory().getFileName() + " of S = "
                            + servicesFrom + " at S = " + servicesTo + ": service " + s + ", no longer there, holds"
                            + " section '" + name + "', state no other service would carry on");
                }
            }
            long[] row = dropped.longs(Checkpointing.TRAFFIC, TrafficMeter.ROW_LENGTH);
            for (int i = 0; i < row.length; i++) {
                traffic[i] += row[i];
            }
        }
        CheckpointPart.Builder out = CheckpointPart.builder(PartKind.SERVER);
        for (String name : kept.sectionNames()) {
            if (!name.equals(Checkpointing.TRAFFIC)) {
                out.section(name).putBytes(kept.bytes(name));
            }
        }
        out.section(Checkpointing.TRAFFIC).putLongs(traffic);
        return out.build();
    }

    /** A kept service's part at K' ranks, by {@code state}'s rules. */
    private CheckpointPart resized(CheckpointPart old, Regrouping state) throws CheckpointException {
        if (state.refusal() != null) {
            throw new CheckpointException("cannot resume " + checkpoint.directory().getFileName() + " of K = " + from
                    + " at K = " + to + ": " + state.refusal());
        }
        if (state.service() == null) {
            for (String name : old.sectionNames()) {
                if (!name.equals(Checkpointing.TRAFFIC)) {
                    throw new CheckpointException("cannot resume " + checkpoint.directory().getFileName() + " of K = "
                            + from + " at K = " + to + ": section '" + name + "' of " + old.label() + " has no rule"
                            + " for another number of ranks (its service does not say how its state changes size)");
                }
            }
            return old;
        }
        CheckpointPart.Builder out = CheckpointPart.builder(PartKind.SERVER);
        state.service().resize(old, out, from, to);
        out.section(Checkpointing.TRAFFIC).putBytes(old.bytes(Checkpointing.TRAFFIC));
        return out.build();
    }

    private CheckpointPart[] oldParts() throws IOException {
        CheckpointPart[] parts = old.get();
        if (parts == null) {
            parts = new CheckpointPart[from];
            for (int r = 0; r < from; r++) {
                parts[r] = checkpoint.rankPart(r);
            }
            old = new SoftReference<>(parts);
        }
        return parts;
    }

    /** The trainer's rule for its own sections, else the exchange's. */
    private Regrouping.Rule ruleOf(String name, Regrouping exchange) throws CheckpointException {
        if (name.startsWith(Checkpointing.REPLICA + "/") || name.equals(Checkpointing.HISTORY)
                || name.equals(Checkpointing.ACCURACY)) {
            return Regrouping.Rule.RANK_ZERO;
        }
        Regrouping.Rule rule = exchange.ruleOf(name);
        if (rule == null) {
            throw new CheckpointException("cannot resume " + checkpoint.directory().getFileName() + " of K = " + from
                    + " at K = " + to + ": section '" + name + "' of rank-0.lgcc has no rule for another number of"
                    + " ranks (its state does not say how it changes size; it declares "
                    + (exchange.rules().isEmpty() ? "none" : String.join(", ", exchange.rules().keySet())) + ")");
        }
        return rule;
    }

    private void requireSameNames(CheckpointPart rank0, CheckpointPart other) throws CheckpointException {
        for (String name : other.sectionNames()) {
            if (!rank0.has(name)) {
                throw new CheckpointException("cannot resume " + checkpoint.directory().getFileName() + " at K = "
                        + to + ": " + other.label() + " has section '" + name + "', which rank-0.lgcc has not");
            }
        }
    }

    /** The section's bytes on old rank {@code first}, checked equal on every old rank after it. */
    private byte[] replicated(String name, CheckpointPart[] parts, int first) throws CheckpointException {
        byte[] bytes = parts[first].bytes(name);
        for (int r = first + 1; r < from; r++) {
            if (!parts[r].has(name) || !Arrays.equals(bytes, parts[r].bytes(name))) {
                throw new CheckpointException("cannot resume " + checkpoint.directory().getFileName() + " at K = "
                        + to + ": section '" + name + "' should be the same on every rank" + (first == 0 ? "" : " but 0")
                        + ", and rank " + r + "'s differs from rank " + first + "'s");
            }
        }
        return bytes;
    }

    /** {@link Regrouping.Rule#SHIPPED} for a rank other than 0: old rank 1's copy, or none when it has none yet. */
    private byte[] shipped(String name, CheckpointPart[] parts) throws CheckpointException {
        if (from == 1) {
            throw new CheckpointException("cannot resume " + checkpoint.directory().getFileName() + " of K = 1 at K = "
                    + to + ": section '" + name + "' is rank 0's own, and no other rank holds the copy it ships,"
                    + " which a new rank would need");
        }
        return parts[1].has(name) ? replicated(name, parts, 1) : null;
    }

    /** Rank 0's log of each memory: the mean over the ranks of its element sum, before and after. */
    private final StringBuilder sums = new StringBuilder();

    /** {@link Regrouping.Rule#MEMORY} for new rank {@code rank}. */
    private float[] memory(String name, int rank, CheckpointPart[] parts) throws CheckpointException {
        float[][] m = new float[from][];
        for (int r = 0; r < from; r++) {
            if (!parts[r].has(name)) {
                throw new CheckpointException(parts[r].label() + " has no section '" + name + "', a memory every"
                        + " rank holds");
            }
            m[r] = parts[r].floats(name, parts[r].sectionLength(name) / Float.BYTES);
            if (m[r].length != m[0].length) {
                throw new CheckpointException("section '" + name + "': rank " + r + " holds " + m[r].length
                        + " values, rank 0 " + m[0].length);
            }
        }
        if (rank == 0) {
            double before = 0;
            for (float[] row : m) {
                before += sum(row);
            }
            double after = 0;
            for (int j = 0; j < to; j++) {
                after += sum(memoryOf(m, j, to));
            }
            sums.append(String.format(Locale.ROOT, "; %s: mean of Σm %.6g at K = %d, %.6g at K = %d", name,
                    before / from, from, after / to, to));
        }
        return memoryOf(m, rank, to);
    }

    private static double sum(float[] v) {
        double s = 0;
        for (float x : v) {
            s += x;
        }
        return s;
    }

    /**
     * The memory of new rank {@code rank} of {@code to} from the old ranks' {@code m}: the rank's own deviation from
     * the kept ranks' mean, around the mean of all (see {@link Regrouping.Rule#MEMORY}).
     */
    static float[] memoryOf(float[][] m, int rank, int to) {
        int from = m.length;
        int n = m[0].length;
        if (to >= from && rank < from) {
            return m[rank].clone(); // growth keeps every old rank as it is
        }
        int kept = Math.min(from, to);
        float[] out = new float[n];
        for (int i = 0; i < n; i++) {
            double all = 0;
            for (float[] row : m) {
                all += row[i];
            }
            double mean = all / from;
            if (rank >= from) {
                out[i] = (float) mean;
                continue;
            }
            double keptSum = 0;
            for (int r = 0; r < kept; r++) {
                keptSum += m[r][i];
            }
            out[i] = (float) (mean + (m[rank][i] - keptSum / kept));
        }
        return out;
    }

    /** Kept ranks keep their counters, new ones start at 0, and rank 0 adds those of the ranks no longer there. */
    private long[] traffic(int rank, CheckpointPart[] parts) throws CheckpointException {
        long[] row = new long[TrafficMeter.ROW_LENGTH];
        List<Integer> ranks = rank == 0 ? IntStream.concat(IntStream.of(0), IntStream.range(to, from)).boxed().toList()
                : rank < from ? List.of(rank) : List.of();
        for (int r : ranks) {
            long[] old = parts[r].longs(Checkpointing.TRAFFIC, TrafficMeter.ROW_LENGTH);
            for (int i = 0; i < row.length; i++) {
                row[i] += old[i];
            }
        }
        return row;
    }
}
