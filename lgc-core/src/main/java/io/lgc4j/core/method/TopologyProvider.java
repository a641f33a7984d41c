package io.lgc4j.core.method;

import io.lgc4j.core.settings.ResolvedConfig;
import io.lgc4j.core.train.Topology;

import java.util.List;
import java.util.Set;

/**
 * The service a topology registers so that configurations can name it ({@code topology.type}). Each topology type has
 * one generic provider, which builds the topology for any compressor (the compressor decides the payload, the
 * topology carries it by its kind), and may have providers for compressor types it handles with classes of their own
 * (LGC's topologies, whose exchange runs an autoencoder). Found by {@link java.util.ServiceLoader}: one line, the
 * provider's binary class name, in {@code META-INF/services/io.lgc4j.core.method.TopologyProvider} of its jar.
 *
 * <pre>{@code
 * public static final class Provider implements TopologyProvider {        // the generic parameter server
 *     public String type() { return "ps"; }
 *     public Topology create(TopologyRequest r) {
 *         return r.compressor().create(r.seed()).<Topology>map(c -> new ParameterServerTopology(c, r.codec()))
 *                 .orElseGet(ParameterServerTopology::new);
 *     }
 * }
 * }</pre>
 *
 * <p>Implementations are stateless and have a public no-argument constructor.
 */
public interface TopologyProvider {

    /** The name configurations use ({@code topology.type}): {@code ps}, {@code ring}. */
    String type();

    /**
     * The compressor types this provider builds its own topology for; empty (the default) for the generic provider
     * of {@link #type()}, which takes every other compressor.
     */
    default Set<String> compressorTypes() {
        return Set.of();
    }

    /**
     * The keys this provider adds to sections it does not own (the runner's {@code topology}), each set with its
     * rank in the written order. Default: none.
     */
    default List<SectionKeys> sectionKeys() {
        return List.of();
    }

    /**
     * The rules that tie this provider's keys to other sections, checked on every configuration (whichever topology
     * it names) once each section has checked its own keys. Default: none.
     *
     * @param config the resolved configuration, every section as {@code config.yaml} writes it
     * @throws io.lgc4j.core.settings.SettingsException naming the dotted key at fault, with the values that disagree
     */
    default void checkAcross(ResolvedConfig config) {
    }

    /**
     * A new topology for one run.
     *
     * @throws IllegalArgumentException when the topology cannot carry the compressor (a ring that refuses gather-only
     *                                  payloads, say), naming both
     */
    Topology create(TopologyRequest request);
}
