package io.lgc4j.lgc;

import io.lgc4j.lgc.autoencoder.AeTraining;
import io.lgc4j.lgc.autoencoder.AutoencoderSpec;
import io.lgc4j.core.settings.SettingsException;

import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * A control run for the learned compressor ({@code autoencoder.ablation}): a COMPRESSED step applies something else
 * at the LEARNED blocks' positions while every frame, byte and message stays the method's, so the control costs the
 * same bytes and shows whether what the autoencoder delivers is worth them. The drift guard still judges the
 * unablated reconstruction, fallback steps are not ablated, and reconstruction feedback uses what was applied; the
 * same on every endpoint, so replicas stay identical.
 *
 * <pre>{@code
 * LgcControl control = LgcControl.DEFAULT.withAblation(LgcAblation.LEARNED_FROZEN);
 * Topology ring = new LgcRingTopology(0.001, codec, AutoencoderSpec.PAPER, AeTraining.DEFAULT, seed, control);
 * }</pre>
 */
public enum LgcAblation {

    /** No ablation: the method as it is. */
    NONE(true, true),
    /**
     * LGC-PS: at the LEARNED positions the server applies each rank's exact innovation values (zero elsewhere)
     * instead of its decoder's output: what the innovation bytes deliver on their own.
     */
    INNOVATION_ONLY(true, false),
    /**
     * LGC-PS: the server applies each decoder's output from the leader's latent with a zero innovation channel, and
     * puts no innovation value over it: what the latent delivers on its own. (The decoder reading the innovation
     * without the exact values put back is {@code exactInnovation: false}, not an ablation.)
     */
    LATENT_ONLY(true, false),
    /**
     * LGC-PS and LGC-RAR: the LEARNED blocks get no update in COMPRESSED steps (their mean is zero); DENSE and
     * TOP_K blocks as usual: what the whole code delivers.
     */
    LEARNED_FROZEN(true, true),
    /**
     * LGC-RAR: the averaged latent is replaced by zeros before it is decoded; what is applied is the decoder's
     * output without information (its biases, times the leader's scale).
     */
    ZERO_LATENT(false, true);

    private final boolean parameterServer;
    private final boolean ring;

    LgcAblation(boolean parameterServer, boolean ring) {
        this.parameterServer = parameterServer;
        this.ring = ring;
    }

    /** Whether LGC-PS runs this ablation. */
    public boolean onParameterServer() {
        return parameterServer;
    }

    /** Whether LGC-RAR runs this ablation. */
    public boolean onRing() {
        return ring;
    }

    /** The ablations LGC-PS runs, by spelling. */
    public static List<LgcAblation> ofParameterServer() {
        return Arrays.stream(values()).filter(LgcAblation::onParameterServer).sorted(BY_SPELLING).toList();
    }

    /** The ablations LGC-RAR runs, by spelling. */
    public static List<LgcAblation> ofRing() {
        return Arrays.stream(values()).filter(LgcAblation::onRing).sorted(BY_SPELLING).toList();
    }

    /**
     * Rejects an ablation the topology does not run, naming the value, the topology and the values it runs.
     *
     * @param topology the topology's type ({@code ps}, {@code ring})
     * @param method   the method's name ({@code LGC-PS}, {@code LGC-RAR})
     * @param allowed  the ablations it runs
     * @throws SettingsException {@code ablation does not apply to topology.type ring (LGC-RAR), found
     *                           innovation-only; allowed with topology.type ring: [learned-frozen, none, zero-latent]}
     */
    public void requireIn(List<LgcAblation> allowed, String topology, String method) {
        SettingsException.require(allowed.contains(this), "ablation", "does not apply to topology.type " + topology
                + " (" + method + "), found " + this + "; allowed with topology.type " + topology + ": " + allowed);
    }

    /** @return the spelling of configs, e.g. {@code learned-frozen} */
    @Override
    public String toString() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    private static final Comparator<LgcAblation> BY_SPELLING = Comparator.comparing(LgcAblation::toString);
}
