package io.lgc4j.runner.config;

import com.fasterxml.jackson.annotation.JsonValue;
import io.lgc4j.core.method.Methods;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * How the K workers exchange gradients ({@code topology.type}): the name of a registered
 * {@link io.lgc4j.core.method.TopologyProvider}, read in any case with {@code -} or {@code _}, written in lower case.
 * Not an enum, for the reason {@link CompressorType} gives.
 *
 * <pre>{@code
 * topology:
 *   type: ps
 * }</pre>
 *
 * <pre>{@code
 * TopologyType ps = TopologyType.of("PS");   // equals TopologyType.PS
 * }</pre>
 */
public final class TopologyType {

    /** Ring allreduce: reduce-scatter then all-gather between neighbours; carries only summable payloads. */
    public static final TopologyType RING = new TopologyType("ring");
    /** Parameter server: every worker pushes to the server, which broadcasts the mean. */
    public static final TopologyType PS = new TopologyType("ps");
    /**
     * Local SGD: the ring's allreduce averages the models every few local steps instead of the gradients every step
     * (topology-ring's {@code LocalSgdTopology}).
     */
    public static final TopologyType LOCAL_SGD = new TopologyType("local-sgd");

    private final String name;

    private TopologyType(String name) {
        this.name = name;
    }

    /**
     * The registered topology {@code spelling} names.
     *
     * @throws IllegalArgumentException when none is registered under that name; the message lists those that are
     */
    public static TopologyType of(String spelling) {
        Objects.requireNonNull(spelling, "spelling");
        String normalized = Methods.normalize(spelling);
        if (!names().contains(normalized)) {
            throw new IllegalArgumentException("no topology '" + spelling + "' is registered; registered topologies: "
                    + names());
        }
        return new TopologyType(normalized);
    }

    /** The registered topology {@code spelling} names, or empty. */
    public static Optional<TopologyType> find(String spelling) {
        if (spelling == null) {
            return Optional.empty();
        }
        String normalized = Methods.normalize(spelling);
        return names().contains(normalized) ? Optional.of(new TopologyType(normalized)) : Optional.empty();
    }

    /** @return the registered topology types, sorted (the order error messages use) */
    public static List<String> names() {
        return Methods.installed().topologyTypes();
    }

    /** @return the YAML spelling, e.g. {@code ring} */
    @JsonValue
    @Override
    public String toString() {
        return name;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TopologyType other && other.name.equals(name);
    }

    @Override
    public int hashCode() {
        return name.hashCode();
    }
}
