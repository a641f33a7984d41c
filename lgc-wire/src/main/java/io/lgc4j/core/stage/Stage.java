package io.lgc4j.core.stage;

/**
 * The stage of LGC training a step belongs to (seeds/003, Section V-B).
 *
 * <p>Every frame on the wire carries the stage of the step that sent it, so traffic is metered per stage.
 * The wire id of each constant is fixed: reordering constants must not change it.
 */
public enum Stage {
    /** Dense (uncompressed) gradients; the first iterations of training. */
    FULL(0),
    /** Top-k values with error accumulation while the autoencoder trains. */
    TOP_K(1),
    /** Compressed through the trained autoencoder. */
    COMPRESSED(2),
    /** Traffic outside any training step (setup, weight shipping before the first step). */
    SETUP(3);

    private final int wireId;

    Stage(int wireId) {
        this.wireId = wireId;
    }

    /** The byte that stands for this stage in a frame header. */
    public int wireId() {
        return wireId;
    }

    /**
     * The stage for a wire id.
     *
     * @throws IllegalArgumentException naming the id and the known ids when it is unknown
     */
    public static Stage ofWireId(int id) {
        for (Stage s : values()) {
            if (s.wireId == id) {
                return s;
            }
        }
        throw new IllegalArgumentException("unknown stage id " + id + "; known ids are 0..3");
    }
}
