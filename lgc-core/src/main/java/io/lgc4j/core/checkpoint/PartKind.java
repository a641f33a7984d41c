package io.lgc4j.core.checkpoint;

/**
 * What a checkpoint part holds: one rank's state, one service's (the parameter server's), or the manifest that makes
 * a checkpoint complete. The wire id of each constant is fixed ({@link CheckpointDescriptor}): reordering constants
 * must not change it.
 */
public enum PartKind {
    /** One rank's state: its replica's parameters and updater, its compressor memory. */
    RANK(CheckpointDescriptor.KIND_RANK, "rank"),
    /** One service's state (the parameter server's). */
    SERVER(CheckpointDescriptor.KIND_SERVER, "server"),
    /** The manifest, written last: the run, the step, the config, and every part's size and CRC. */
    MANIFEST(CheckpointDescriptor.KIND_MANIFEST, "manifest");

    private final int wireId;
    private final String label;

    PartKind(int wireId, String label) {
        this.wireId = wireId;
        this.label = label;
    }

    /** The byte that stands for this kind in a part's header. */
    public int wireId() {
        return wireId;
    }

    /** The kind for a wire id, or {@code null} when the id is unknown (the reader then names the known ids). */
    static PartKind ofWireId(int id) {
        for (PartKind k : values()) {
            if (k.wireId == id) {
                return k;
            }
        }
        return null;
    }

    /** {@code rank}, {@code server} or {@code manifest}: the word messages use. */
    @Override
    public String toString() {
        return label;
    }
}
