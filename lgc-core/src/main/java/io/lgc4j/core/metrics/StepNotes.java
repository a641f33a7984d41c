package io.lgc4j.core.metrics;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Named scalars a topology reports about a step beyond bytes and time — the autoencoder's losses while it trains,
 * its reconstruction error, a stage switch — collected into that step's {@link StepMetrics#notes()}.
 *
 * <p>Thread-safe: ranks and services write from their own threads; a value written before the writer's side of
 * the step completes is in the step's metrics. A put and a take never interleave, so a note is in exactly one
 * take.
 */
public final class StepNotes {

    /** The autoencoder's reconstruction loss of a training step. */
    public static final String AE_RECONSTRUCTION = "ae_rec_loss";
    /** The autoencoder's latent similarity loss of a training step. */
    public static final String AE_SIMILARITY = "ae_sim_loss";

    /** The relative reconstruction error ‖rec − truth‖² / ‖truth‖² measured on a sample in the compressed stage. */
    public static final String AE_DRIFT = "ae_drift";
    /** 1 on a step that fell back to top-k updates because the drift guard tripped. */
    public static final String LGC_FALLBACK = "lgc_fallback";

    /**
     * Diagnostic mode: ‖a − m‖ / ‖m‖ on the step's support, where a is the update applied to the LEARNED blocks and
     * m the mean of what the ranks offered there (their compensated vectors); 0 when the values travel exactly.
     */
    public static final String APPLIED_REL_ERR = "applied_rel_err";
    /** Diagnostic mode: the cosine of the applied LEARNED update and the ranks' mean offer on the step's support. */
    public static final String APPLIED_COS = "applied_cos";
    /** Diagnostic mode: the same cosine over every LEARNED position (the support's choice counts too). */
    public static final String APPLIED_COS_ALL = "applied_cos_all";
    /** Diagnostic mode: the share ‖m_S‖ / ‖m‖ of the ranks' mean offer the step's support covers. */
    public static final String OFFER_SHARE = "offer_share";
    /** The diagnostic mode's notes, in the order result files show them. */
    public static final List<String> DIAGNOSTICS = List.of(APPLIED_REL_ERR, APPLIED_COS, APPLIED_COS_ALL, OFFER_SHARE);

    private final Map<Integer, Map<String, Double>> byStep = new ConcurrentHashMap<>();

    /** Records {@code value} under {@code name} for {@code step} (a later value replaces an earlier one). */
    public synchronized void put(int step, String name, double value) {
        byStep.computeIfAbsent(step, s -> new ConcurrentHashMap<>()).put(name, value);
    }

    /** Removes and returns the notes of {@code step}, sorted by name; empty if there are none. */
    public synchronized Map<String, Double> take(int step) {
        Map<String, Double> notes = byStep.remove(step);
        return notes == null ? Map.of() : new TreeMap<>(notes);
    }
}
