package io.lgc4j.core.link;

import io.lgc4j.core.compress.Compressor;
import io.lgc4j.core.compress.SeededSupportCompressor;
import io.lgc4j.core.compress.SharedSupportCompressor;
import io.lgc4j.core.settings.Require;
import io.lgc4j.core.settings.Section;
import io.lgc4j.core.settings.SettingsException;

import java.util.ArrayList;
import java.util.List;

/**
 * Shortcuts a topology may take through the mesh ({@code topology.supportPath}, {@code topology.directBelowBytes}):
 * the same math, the same bits on every rank, fewer legs on the critical path, some bytes between other
 * endpoints. Every endpoint of a cluster can reach every other (in process and over TCP), so a frame need not follow
 * the ring or pass through the server to arrive.
 *
 * <pre>{@code
 * topology:
 *   supportPath: relay       # relay: the leader's indices pass through the server (ps) or round the ring (K-1 hops);
 *                            # direct: the leader sends them to every other worker itself (one leg)
 *   directBelowBytes: 0      # ring: an fp32 allreduce whose payload is below this many bytes goes to every rank in
 *                            # one leg, each summing in the ring's order (0: never)
 * }</pre>
 *
 * @param supportPath      how a shared support reaches the workers
 * @param directBelowBytes ring allreduces of fp32 payloads smaller than this go direct; 0 never
 */
public record Shortcuts(SupportPath supportPath, int directBelowBytes) {

    /** How the step leader's support reaches the other workers. */
    public enum SupportPath {
        /**
         * Today's path: through the parameter server, which decodes it and relays the bytes (2 legs), or round the
         * ring, each rank forwarding it (K−1 hops).
         */
        RELAY,
        /**
         * The leader sends the same bytes to each other worker itself: one leg. The leader sends K−1 copies
         * (the server's or the ring's forwarding is gone); the server never sees the indices, the values frames
         * tell it their lengths.
         */
        DIRECT
    }

    /** Every route as it was: relayed support, no direct allreduce. */
    public static final Shortcuts DEFAULT = new Shortcuts(SupportPath.RELAY, 0);

    /** Checks each, naming the first that is wrong. */
    public Shortcuts {
        Require.required("supportPath", supportPath);
        Require.atLeast("directBelowBytes", directBelowBytes, 0);
    }

    /** Whether the leader sends the support to the workers itself. */
    public boolean directSupport() {
        return supportPath == SupportPath.DIRECT;
    }

    /**
     * Checks that a direct support path has a support to carry: only a compressor whose step leader chooses the
     * support sends one.
     *
     * @param compressors the compressors the topology runs (the method's, a warm-up's); {@code null}s are dense
     * @throws SettingsException naming {@code topology.supportPath} when none of them sends a leader's support
     */
    public Shortcuts checkSupport(Compressor... compressors) {
        if (!directSupport()) {
            return this;
        }
        List<String> names = new ArrayList<>();
        for (Compressor c : compressors) {
            if (c instanceof SharedSupportCompressor && !(c instanceof SeededSupportCompressor)) {
                return this;
            }
            if (c != null) {
                names.add(c.name());
            }
        }
        throw new SettingsException("topology.supportPath", "direct applies to a compressor whose step leader chooses"
                + " the support (scalecom, lgc), found " + (names.isEmpty() ? "none (dense)" : String.join(", ", names))
                + ", which sends no leader's support; remove it or use relay");
    }

    /**
     * Checks that no ring-only route is asked of a topology without a ring.
     *
     * @param topology the topology's type, for the message
     * @throws SettingsException naming {@code topology.directBelowBytes} when it is set
     */
    public Shortcuts checkNoRing(String topology) {
        if (directBelowBytes != 0) {
            throw new SettingsException("topology.directBelowBytes", "applies to topology.type ring (its allreduces),"
                    + " found " + directBelowBytes + " with topology.type " + topology + "; remove it");
        }
        return this;
    }

    /** From the {@code topology} section; an absent key takes its default; a bad value is named under the section. */
    public static Shortcuts of(Section topology) {
        return topology.bind(Shortcuts.class, DEFAULT);
    }
}
