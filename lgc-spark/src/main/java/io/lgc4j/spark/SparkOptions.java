package io.lgc4j.spark;

import io.lgc4j.net.NetSettings;

import java.io.Serializable;
import java.nio.file.Path;
import java.time.Duration;

/**
 * How {@link LgcSpark#fit} runs a job on Spark, beyond the experiment's own config; immutable (the token is copied).
 * <pre>{@code
 * SparkOptions options = SparkOptions.defaults()
 *         .withSharedDir(Path.of("/mnt/shared/lgc"))      // checkpoints every executor can reach
 *         .withColocate(false)                            // parameter-server shards in tasks of their own
 *         .withTls(true);                                 // mutual TLS, certificates made by the tasks
 * }</pre>
 *
 * @param colocate  {@code topology: ps}: rank r &lt; S's task also runs shard r (K tasks); false: K + S tasks
 * @param outputDir where the driver writes {@code <run-id>/}; null for the config's {@code run.outputDir}
 * @param sharedDir a directory every executor reaches, holding the checkpoints a retried stage resumes from; null
 *                  for the driver's result directory (local and single-host clusters)
 * @param slotWait  how long to wait for enough task slots before refusing the job, at least 0
 * @param token     the links' job token (at least 16 bytes), null for 32 random bytes per job; it travels inside the
 *                  task, so turn on {@code spark.authenticate} on a shared network (docs/manual.md)
 * @param fault     for tests of recovery: rank 0 fails after this step in the stage's first attempt, or null
 * @param tls       mutual TLS on the runtime's links, each task its own CA (docs/architecture/spark.md)
 * @param elastic   go on with fewer ranks when a task fails ({@link Elastic}), or null: Spark retries the stage whole
 */
public record SparkOptions(boolean colocate, Path outputDir, Path sharedDir, Duration slotWait, byte[] token,
                           Fault fault, boolean tls, Elastic elastic) {

    /**
     * Elastic training: when a task of the stage fails (an executor lost, a rank's error), the driver submits the
     * training again as a new barrier job with as many ranks as the cluster then offers task slots, at most
     * {@code training.workers} and at least {@code minWorkers}, resumed from the last complete checkpoint at that K
     * (the resize of {@code lgc run --resume --workers}). Spark cannot retry a stage with fewer tasks, so each attempt
     * is a job of its own.
     *
     * @param minWorkers  the fewest ranks to go on with, at least 1
     * @param maxRestarts how many failed attempts to start again after, at least 1
     */
    public record Elastic(int minWorkers, int maxRestarts) implements Serializable {
        private static final long serialVersionUID = 1L;

        /** Rejects fewer than one rank or no restart. */
        public Elastic {
            if (minWorkers < 1) {
                throw new IllegalArgumentException("elastic.minWorkers: expected at least 1, found " + minWorkers);
            }
            if (maxRestarts < 1) {
                throw new IllegalArgumentException("elastic.maxRestarts: expected at least 1 (going on after a failure"
                        + " is a restart), found " + maxRestarts);
            }
        }
    }

    /**
     * A fault injected into the first attempt of the barrier stage: rank 0 throws once {@code afterSteps} steps are
     * done, its peers then lose it, and Spark retries the stage.
     *
     * @param afterSteps steps completed before the failure, at least 1
     */
    public record Fault(int afterSteps) implements Serializable {
        private static final long serialVersionUID = 1L;

        /** Rejects a step before the first. */
        public Fault {
            if (afterSteps < 1) {
                throw new IllegalArgumentException("fault.afterSteps: expected at least 1, found " + afterSteps);
            }
        }
    }

    /** Checks the values; the token is copied. */
    public SparkOptions {
        if (slotWait == null || slotWait.isNegative()) {
            throw new IllegalArgumentException("slotWait: expected a duration of at least 0, found " + slotWait);
        }
        if (token != null && token.length < NetSettings.MIN_TOKEN_LENGTH) {
            throw new IllegalArgumentException("token: expected at least " + NetSettings.MIN_TOKEN_LENGTH
                    + " bytes, found " + token.length + " bytes");
        }
        token = token == null ? null : token.clone();
    }

    /**
     * Co-located shards, the config's output directory, no shared directory, 60 s for slots, a random token, plain
     * TCP, not elastic.
     */
    public static SparkOptions defaults() {
        return new SparkOptions(true, null, null, Duration.ofSeconds(60), null, null, false, null);
    }

    /** The token, copied (null: a random one per job). */
    @Override
    public byte[] token() {
        return token == null ? null : token.clone();
    }

    /** These options with shards co-located on the first ranks' tasks, or in tasks of their own. */
    public SparkOptions withColocate(boolean newColocate) {
        return new SparkOptions(newColocate, outputDir, sharedDir, slotWait, token, fault, tls, elastic);
    }

    /** These options writing results under {@code dir} on the driver. */
    public SparkOptions withOutputDir(Path dir) {
        return new SparkOptions(colocate, dir, sharedDir, slotWait, token, fault, tls, elastic);
    }

    /** These options keeping checkpoints under {@code dir}, reachable from every executor. */
    public SparkOptions withSharedDir(Path dir) {
        return new SparkOptions(colocate, outputDir, dir, slotWait, token, fault, tls, elastic);
    }

    /** These options waiting at most {@code wait} for task slots. */
    public SparkOptions withSlotWait(Duration wait) {
        return new SparkOptions(colocate, outputDir, sharedDir, wait, token, fault, tls, elastic);
    }

    /** These options with the given job token. */
    public SparkOptions withToken(byte[] newToken) {
        return new SparkOptions(colocate, outputDir, sharedDir, slotWait, newToken, fault, tls, elastic);
    }

    /** These options with a fault in the stage's first attempt (tests of recovery). */
    public SparkOptions withFault(Fault newFault) {
        return new SparkOptions(colocate, outputDir, sharedDir, slotWait, token, newFault, tls, elastic);
    }

    /** These options with mutual TLS on the runtime's links, or plain TCP. */
    public SparkOptions withTls(boolean newTls) {
        return new SparkOptions(colocate, outputDir, sharedDir, slotWait, token, fault, newTls, elastic);
    }

    /**
     * These options going on with at least {@code minWorkers} ranks when a task fails, at most {@code maxRestarts}
     * times ({@link Elastic}), or with {@code null} retrying the stage whole at the same K.
     */
    public SparkOptions withElastic(Elastic newElastic) {
        return new SparkOptions(colocate, outputDir, sharedDir, slotWait, token, fault, tls, newElastic);
    }

    /** Never shows the token. */
    @Override
    public String toString() {
        return "SparkOptions[colocate=" + colocate + ", outputDir=" + outputDir + ", sharedDir=" + sharedDir
                + ", slotWait=" + slotWait + ", token=" + (token == null ? "random" : "given") + ", fault=" + fault
                + ", tls=" + tls + ", elastic=" + elastic + "]";
    }

    @Override
    public boolean equals(Object o) {
        return this == o;
    }

    @Override
    public int hashCode() {
        return System.identityHashCode(this);
    }
}
