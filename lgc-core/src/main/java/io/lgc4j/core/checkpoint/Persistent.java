package io.lgc4j.core.checkpoint;

/**
 * Something that keeps state from one training step to the next, which a checkpoint must carry for a resumed run to
 * go on exactly as an uninterrupted one: a compressor's memory, an autoencoder's weights and optimizer state, a drift
 * guard's window, a protocol's flags.
 *
 * <p>{@link #save} is called between steps (after step s is applied and before step s + 1 begins) and writes every
 * such value into sections of {@code part}, each named {@code prefix + "/" + what}; {@link #restore} reads them back
 * into an object built the same way (same configuration, same layout) before its first step. What an object
 * recomputes each step (scratch buffers, the step's support, decoded frames) is not state and is not saved.
 *
 * <pre>{@code
 * CheckpointPart.Builder part = CheckpointPart.builder(PartKind.RANK);
 * exchange.save(part, "exchange");                 // e.g. section "exchange/residual"
 * ...
 * fresh.restore(CheckpointPart.read(file), "exchange");
 * }</pre>
 *
 * <p>A restore checks every section's length against the object it fills and throws a {@link CheckpointException}
 * naming the section on a mismatch; it is meant for a freshly built object, which the failed run then discards.
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
