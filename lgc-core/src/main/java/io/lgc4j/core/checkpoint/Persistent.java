package io.lgc4j.core.checkpoint;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * State kept from one training step to the next that a checkpoint must carry for a resumed run to go on exactly as
 * an uninterrupted one (compressor memory, autoencoder weights and optimizer state, a drift guard's window, flags).
 *
 * <p>{@link #save} is called between steps (after step s is applied, before s + 1 begins) and writes sections named
 * {@code prefix + "/" + what}; {@link #restore} reads them into a freshly built object of the same configuration and
 * layout before its first step. Per-step scratch is not state and is not saved. A restore checks every section's
 * length and throws a {@link CheckpointException} naming the section on a mismatch; the object is then discarded.
 *
 * <pre>{@code
 * exchange.save(part, "exchange");                 // e.g. section "exchange/residual"
 * fresh.restore(CheckpointPart.read(file), "exchange");
 * }</pre>
 */
public interface Persistent {

    /** Adds this object's state to {@code part}, in sections whose names start with {@code prefix + "/"}. */
    void save(CheckpointPart.Builder part, String prefix);

    /**
     * Sets this object's state from the sections {@link #save} wrote with {@code prefix}.
     *
     * @throws CheckpointException when a section is missing or does not fit this object
     */
    void restore(CheckpointPart part, String prefix) throws CheckpointException;

    /**
     * How the sections {@link #save} writes with {@code prefix} go from K ranks to another number (a resume at
     * another K). By default none is declared, and a resize that meets one of this object's sections is refused,
     * naming it.
     */
    default Regrouping regrouping(String prefix) {
        return Regrouping.NONE;
    }

    /** An object with no state to carry. */
    Persistent NONE = new Persistent() {
        @Override
        public void save(CheckpointPart.Builder part, String prefix) {
        }

        @Override
        public void restore(CheckpointPart part, String prefix) {
        }
    };

    /**
     * How the sections a {@link Persistent} saves go from a checkpoint of K ranks to a run of K' (a resume at another
     * number of ranks): each section named with its {@link Rule}, or a refusal that says why the state cannot change size.
     * A section a resized resume finds and no rule names is refused, naming it: a state says what its sections mean.
     *
     * <pre>{@code
     * public Regrouping regrouping(String prefix) {
     *     return Regrouping.of(prefix + "/memory", Regrouping.Rule.MEMORY).and(prefix + "/q", Regrouping.Rule.REPLICATED);
     * }
     * }</pre>
     *
     * @param rules   each section's full name and its rule, in the order declared
     * @param refusal why the state cannot change size, or null when the rules say how
     * @param service how a service's part changes (a parameter server that holds something per rank), or null: a
     *                service with this state keeps its part as it is, and one whose part holds a section of state is
     *                refused
     */
    record Regrouping(Map<String, Rule> rules, String refusal, ServiceResize service) {

        /** How a service's part goes from K ranks to K': every section it keeps, written into the new part. */
        @FunctionalInterface
        public interface ServiceResize {
            /**
             * Writes into {@code into} the sections of {@code old} (its traffic counters excepted, which the trainer
             * keeps) as a service of a run of {@code to} ranks holds them.
             *
             * @throws CheckpointException naming the section that cannot change size
             */
            void resize(CheckpointPart old, CheckpointPart.Builder into, int from, int to) throws CheckpointException;
        }

        /** What happens to one section from K ranks to K'. */
        public enum Rule {
            /**
             * An error-feedback memory (float32s, one per element): what the ranks hold and the model has not yet
             * received. The mean over the ranks is kept, so the update still to come, {@code (1/K)·Σ m}, is what it was:
             * a rank kept ({@code j < min(K, K')}) holds {@code m̄ + (m_j − m̄_kept)}, where {@code m̄_kept} is the mean
             * of the old ranks kept (unchanged when K' > K); a new rank holds {@code m̄}. Summed in double in rank order,
             * rounded to float32 once: the same bits on every process.
             */
            MEMORY,
            /** The same bytes on every rank (a shared factor, a flag): checked equal, then every new rank holds them. */
            REPLICATED,
            /** Held by rank 0 alone (the replica, the history): rank 0 keeps it. */
            RANK_ZERO,
            /**
             * Rank 0's own, and on every other rank the copy rank 0 shipped them, the same on each (LGC-RAR's
             * autoencoder: rank 0 trains it, the others hold the weights it last sent): rank 0 keeps its own, every
             * other new rank holds old rank 1's copy, checked equal on old ranks 1..K−1. A checkpoint of one rank has
             * no copy to give: growing it is refused.
             */
            SHIPPED
        }

        /** A state with nothing to regroup. */
        public static final Regrouping NONE = new Regrouping(Map.of(), null, null);

        /** Copies the rules. */
        public Regrouping {
            rules = Collections.unmodifiableMap(new LinkedHashMap<>(Objects.requireNonNull(rules, "rules")));
        }

        /** One section's rule. */
        public static Regrouping of(String section, Rule rule) {
            return NONE.and(section, rule);
        }

        /** A state that cannot change size, and why (the message a resize is refused with). */
        public static Regrouping refuse(String why) {
            return new Regrouping(Map.of(), Objects.requireNonNull(why, "why"), null);
        }

        /** These rules and {@code section}'s. */
        public Regrouping and(String section, Rule rule) {
            Map<String, Rule> all = new LinkedHashMap<>(rules);
            if (all.put(Objects.requireNonNull(section, "section"), Objects.requireNonNull(rule, "rule")) != null) {
                throw new IllegalArgumentException("section '" + section + "' has two rules");
            }
            return new Regrouping(all, refusal, service);
        }

        /** These rules and {@code other}'s; a refusal of either refuses. */
        public Regrouping and(Regrouping other) {
            Regrouping all = this;
            for (Map.Entry<String, Rule> e : other.rules.entrySet()) {
                all = all.and(e.getKey(), e.getValue());
            }
            return new Regrouping(all.rules, refusal != null ? refusal : other.refusal,
                    service != null ? service : other.service);
        }

        /** These rules, and {@code how} a service's part changes. */
        public Regrouping withService(ServiceResize how) {
            return new Regrouping(rules, refusal, Objects.requireNonNull(how, "how"));
        }

        /** The rule of the section named {@code section}, or null when none is declared. */
        public Rule ruleOf(String section) {
            return rules.get(section);
        }
    }
}
