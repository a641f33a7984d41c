package io.lgc4j.core.checkpoint;

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

    /** An object with no state to carry. */
    Persistent NONE = new Persistent() {
        @Override
        public void save(CheckpointPart.Builder part, String prefix) {
        }

        @Override
        public void restore(CheckpointPart part, String prefix) {
        }
    };
}
