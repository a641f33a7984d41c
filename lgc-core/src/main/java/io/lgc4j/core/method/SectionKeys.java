package io.lgc4j.core.method;

import java.util.Objects;
import java.util.Set;

/**
 * Keys a provider adds to a section that another owner writes (the runner's {@code topology}): a settings record
 * whose components are the keys, its defaults, and where they stand. A configuration accepts them, binds them over
 * {@link #defaults()} and writes them in the order of {@link #rank()}, which is declared because
 * {@link java.util.ServiceLoader}'s order is the class path's. The shipped ranks under {@code topology}: LGC-PS's
 * {@code support} 10, the parameter server's shards 20, the runner's shortcuts 30, local SGD's 40.
 *
 * <pre>{@code
 * public List<SectionKeys> sectionKeys() {   // in a TopologyProvider
 *     return List.of(new SectionKeys("topology", 40, Settings.DEFAULT, Set.of(TYPE)));   // with its type only
 * }
 * }</pre>
 *
 * @param section  the section the keys go in, e.g. {@code topology}
 * @param rank     where they are written among the section's key records, lowest first
 * @param defaults the record of their defaults; its components are the keys, its compact constructor the checks
 * @param types    the section's {@code type}s that accept and write these keys; empty: every type
 */
public record SectionKeys(String section, int rank, Record defaults, Set<String> types) {

    /** Rejects a missing component; copies {@code types}. */
    public SectionKeys {
        Objects.requireNonNull(section, "section");
        Objects.requireNonNull(defaults, "defaults");
        types = Set.copyOf(types);
    }

    /** Keys every type of the section accepts. */
    public SectionKeys(String section, int rank, Record defaults) {
        this(section, rank, defaults, Set.of());
    }
}
