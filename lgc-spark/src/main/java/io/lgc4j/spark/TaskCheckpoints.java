package io.lgc4j.spark;

import io.lgc4j.core.checkpoint.Checkpoint;
import io.lgc4j.core.checkpoint.CheckpointDirectory;
import io.lgc4j.core.checkpoint.CheckpointManifest;
import io.lgc4j.core.train.DistributedTrainer;

import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * How the tasks of one {@link LgcEstimator} fit checkpoint and resume: every endpoint saves its part into
 * {@code runDir/checkpoints/} every {@code everySteps} steps, and a retried stage attempt resumes every endpoint from
 * the latest complete checkpoint there. The run's identity (the estimator's settings) goes into every checkpoint, so
 * a resume with other settings is refused.
 *
 * @param runDir     {@code checkpointDir/<run id>}, as every executor reaches it
 * @param everySteps the steps between checkpoints, at least 1
 * @param runName    the run's name in the checkpoints' manifests
 * @param identity   the estimator's settings as flattened keys, compared on a resume
 * @param fault      for tests of recovery: rank 0 fails after this many steps on stage attempt 0, or null
 */
record TaskCheckpoints(String runDir, int everySteps, String runName, Map<String, String> identity,
                       SparkOptions.Fault fault) implements Serializable {
    private static final long serialVersionUID = 1L;

    /** Copies the identity (sorted: it is printed in a mismatch). */
    TaskCheckpoints {
        identity = new TreeMap<>(identity);
    }

    /** The latest complete checkpoint of the run, or empty (none yet: the stage starts at step 0). */
    Optional<Checkpoint> latest() {
        Path dir = Path.of(runDir);
        try {
            return CheckpointDirectory.in(dir).latest(skipped -> System.err.println("lgc-spark: passing over a"
                    + " checkpoint that fails its checks: " + skipped.getMessage()));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the checkpoints in " + dir, e);
        }
    }

    /** Makes {@code builder} save checkpoints, resume from {@code from} when given, and carry the run's identity. */
    DistributedTrainer.Builder apply(DistributedTrainer.Builder builder, Checkpoint from) {
        builder.runIdentity(runName, identity, CheckpointManifest.DEFAULT_IGNORED_KEYS)
                .checkpoints(Path.of(runDir), everySteps);
        return from == null ? builder : builder.resumeFrom(from);
    }
}
