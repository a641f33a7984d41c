package io.lgc4j.lgc.autoencoder;

import io.lgc4j.core.checkpoint.CheckpointException;
import io.lgc4j.core.checkpoint.CheckpointPart;

import java.util.Locale;

/**
 * Refusals of a checkpoint section that is well formed but does not fit the object restoring it, worded as the
 * container words its own ({@code section 'ae/training' of rank-1.lgcc: ...}), so every failed restore names the
 * section and the part. Public for the controller state in {@code io.lgc4j.lgc}, which restores sections the same way.
 */
public final class SectionChecks {

    private SectionChecks() {
    }

    /** {@code section '<section>' of <part>: <problem>}. */
    public static CheckpointException refuse(CheckpointPart part, String section, String problem) {
        return new CheckpointException("section '" + section + "' of " + part.label() + ": " + problem);
    }

    /** {@code 1,234}: counts as the container's messages write them. */
    public static String count(long n) {
        return String.format(Locale.ROOT, "%,d", n);
    }
}
