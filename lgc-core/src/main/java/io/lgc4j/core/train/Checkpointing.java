package io.lgc4j.core.train;

import io.lgc4j.core.checkpoint.Checkpoint;
import io.lgc4j.core.checkpoint.CheckpointDirectory;
import io.lgc4j.core.checkpoint.CheckpointException;
import io.lgc4j.core.checkpoint.CheckpointManifest;
import io.lgc4j.core.checkpoint.CheckpointPart;
import io.lgc4j.core.checkpoint.PartInfo;
import io.lgc4j.core.checkpoint.PartKind;
import io.lgc4j.core.checkpoint.Persistent.Regrouping;
import io.lgc4j.core.checkpoint.Persistent;
import io.lgc4j.core.checkpoint.RunSignature;
import io.lgc4j.core.stage.StageSchedule;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.logging.Logger;

/**
 * A run's checkpoints as its endpoints see them: when one is due, where parts go, what the manifest says, and the
 * checkpoint a resumed run starts from. Every endpoint decides from the step alone whether a checkpoint is due, so
 * no message is needed to agree on it.
 *
 * @param directory  the run's {@code checkpoints/} directory
 * @param everySteps a checkpoint after every {@code everySteps} steps (0: none on the way)
 * @param atEnd      a checkpoint after the last step too
 * @param runName    the name the manifests carry
 * @param signature  K, S, the model and the configuration, which a resume must match
 * @param stages     the run's schedule (the manifest names the stage of the next step)
 * @param totalSteps the run's steps
 * @param resume     the checkpoint this run resumes from, or null for a run from step 0
 * @param epochs     which epoch each step is in: a manifest records the cursor when it does not follow from the step
 * @param regroup    the checkpoint's parts at this run's K when it was written by another K, or null
 */
record Checkpointing(CheckpointDirectory directory, int everySteps, boolean atEnd, String runName,
                     RunSignature signature, StageSchedule stages, int totalSteps, Checkpoint resume,
                     EpochMap epochs, Regroup regroup) {

    private static final Logger LOG = Logger.getLogger(Checkpointing.class.getName());

    /** Sections every part has besides its state. */
    static final String TRAFFIC = "traffic";
    static final String REPLICA = "replica";
    /** Delayed application: the mean exchanged in the checkpoint's last step, not yet applied (rank 0's part). */
    static final String PENDING = "replica/pending";
    /** Predicted overlap: the mean applied in the checkpoint's last step, the next pass's predictor. */
    static final String PREDICTOR = "replica/predictor";
    static final String EXCHANGE = "exchange";
    static final String SERVICE = "service";
    static final String HISTORY = "history";
    static final String ACCURACY = "accuracy";

    /** The step a run starts at: 0, or the resumed checkpoint's next step. */
    static int firstStep(Checkpointing c) {
        return c == null || c.resume == null ? 0 : Math.toIntExact(c.resume.nextStep());
    }

    /**
     * The checkpoint a launched process resumes from: the one after {@code step} steps in {@code runDir}
     * (LGC_RUN_DIR and LGC_RESUME_STEP).
     *
     * @throws UncheckedIOException naming the directory, the step and what is wrong with it
     */
    static Checkpoint load(Path runDir, long step) {
        try {
            return CheckpointDirectory.in(runDir).load(step);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot resume from LGC_RESUME_STEP=" + step + " in LGC_RUN_DIR="
                    + runDir + ": " + e.getMessage(), e);
        }
    }

    /** Whether a checkpoint is due after step {@code s} (0-based). */
    boolean dueAfter(int s) {
        return dueAfter(s, totalSteps);
    }

    /** Whether a checkpoint is due after step {@code s} of a run of {@code total} steps (a service's, from rank 0). */
    boolean dueAfter(int s, int total) {
        return (everySteps > 0 && (s + 1) % everySteps == 0) || (atEnd && s == total - 1);
    }

    /** Writes service {@code service}'s part after step {@code s}: its state and its traffic row. */
    RunReport.Saved writeService(int s, int service, Persistent state, long[] trafficRow) {
        long start = System.nanoTime();
        CheckpointPart.Builder b = CheckpointPart.builder(PartKind.SERVER);
        state.save(b, SERVICE);
        b.section(TRAFFIC).putLongs(trafficRow);
        try {
            PartInfo info = directory.writeServerPart(s + 1, service, b.build());
            return new RunReport.Saved(info.fileName(), info.size(), info.crc32c(), "", System.nanoTime() - start);
        } catch (IOException e) {
            throw new UncheckedIOException("service " + service + " could not write its checkpoint part after step "
                    + s + ": " + e.getMessage(), e);
        }
    }

    /** Writes a rank's part after step {@code s}. */
    PartInfo writeRank(int s, int rank, CheckpointPart part) {
        try {
            return directory.writeRankPart(s + 1, rank, part);
        } catch (IOException e) {
            throw new UncheckedIOException("rank " + rank + " could not write its checkpoint part after step " + s
                    + ": " + e.getMessage(), e);
        }
    }

    /**
     * Writes the manifest of the checkpoint after step {@code s}, every part being in, and logs the checkpoint: its
     * parts' bytes and the slowest endpoint's time to write its part.
     */
    void writeManifest(int s, List<PartInfo> parts, long slowestWriteNanos, String slowest) {
        CheckpointManifest manifest = new CheckpointManifest(runName, s + 1L, stages.stageAt(s + 1), signature,
                parts, epochs.isPlain() ? null : epochs.cursorAt(s + 1));
        try {
            long start = System.nanoTime();
            Checkpoint written = directory.writeManifest(manifest);
            long bytes = parts.stream().mapToLong(PartInfo::size).sum();
            LOG.info(() -> String.format(Locale.ROOT, "checkpoint %s complete: %d parts, %,d bytes;"
                    + " slowest part %.1f ms (%s), manifest %.1f ms", written.directory(), parts.size(), bytes,
                    slowestWriteNanos / 1e6, slowest, (System.nanoTime() - start) / 1e6));
        } catch (IOException e) {
            throw new UncheckedIOException("rank 0 could not write the checkpoint manifest after step " + s + ": "
                    + e.getMessage(), e);
        }
    }

    /**
     * The part of rank {@code rank} of the checkpoint resumed from; of a checkpoint of another K, the part this K's
     * rank gets by the trainer's rules and {@code exchange}'s ({@link Regroup}).
     */
    CheckpointPart rankPart(int rank, Regrouping exchange) throws CheckpointException {
        try {
            return regroup != null ? regroup.rankPart(rank, exchange) : resume.rankPart(rank);
        } catch (CheckpointException e) {
            throw e;
        } catch (IOException e) {
            throw new UncheckedIOException("rank " + rank + " cannot read its part of " + resume.directory() + ": "
                    + e.getMessage(), e);
        }
    }

    /**
     * The part of service {@code service} of the checkpoint resumed from; of a checkpoint of another K or S, the part
     * as {@code state}'s rules make it ({@link Regroup#servicePart}).
     */
    CheckpointPart servicePart(int service, Persistent state) throws CheckpointException {
        try {
            return regroup != null ? regroup.servicePart(service, state.regrouping(SERVICE), state != Persistent.NONE)
                    : resume.serverPart(service);
        } catch (CheckpointException e) {
            throw e;
        } catch (IOException e) {
            throw new UncheckedIOException("service " + service + " cannot read its part of " + resume.directory()
                    + ": " + e.getMessage(), e);
        }
    }
}
