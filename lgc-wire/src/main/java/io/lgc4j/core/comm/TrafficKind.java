package io.lgc4j.core.comm;

/**
 * What a counted byte carried. Every frame has one kind for its payload; its header and trailer bytes are
 * counted as {@link #HEADER}. The wire id of each constant is fixed.
 */
public enum TrafficKind {
    /** Frame header and CRC trailer; never the kind of a frame. */
    HEADER(0),
    /** Gradient values: dense gradients, dense chunks of a ring, sparse values. */
    VALUES(1),
    /** Coded indices of a sparse support. */
    INDICES(2),
    /** Autoencoder latent (common representation). */
    LATENT(3),
    /** Per-rank innovation of the parameter-server autoencoder. */
    INNOVATION(4),
    /** Model parameters: the initial broadcast of runs made before every rank started from its own (no longer sent). */
    MODEL_WEIGHTS(5),
    /** Autoencoder weights shipped at the stage switch. */
    AE_WEIGHTS(6),
    /** Small control messages (leader choice, handshakes). */
    CONTROL(7),
    /**
     * Compact vectors sent to the rank or server that trains an autoencoder during the TOP_K stage (LGC): training
     * data, not part of the update.
     */
    AE_SAMPLES(8),
    /**
     * What a rank reports to rank 0 about a step (loss, phase times, its own bytes, notes) and the runtime's end of
     * run messages: the control plane of a run, counted apart from training traffic and never by the
     * {@link TrafficMeter} of the run.
     */
    REPORT(9),
    /**
     * Messages of a link itself (heartbeats, an abort naming a lost peer, an orderly goodbye), consumed by the
     * transport and never delivered to its user.
     */
    LINK(10);

    private static final TrafficKind[] BY_ID = values();

    private final int wireId;

    TrafficKind(int wireId) {
        this.wireId = wireId;
    }

    /** The byte that stands for this kind in a frame header. */
    public int wireId() {
        return wireId;
    }

    /**
     * The kind for a wire id, or {@code null} when the id is unknown (the decoder turns that into a frame error).
     */
    static TrafficKind ofWireIdOrNull(int id) {
        return id >= 0 && id < BY_ID.length && BY_ID[id].wireId == id ? BY_ID[id] : null;
    }
}
