package io.lgc4j.core.train;

import io.lgc4j.core.data.DataCheck;
import io.lgc4j.core.data.DataPlan;
import io.lgc4j.core.metrics.Timeline;
import io.lgc4j.core.stage.Stage;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Map;
import java.util.zip.CRC32C;

/**
 * Before step 0: each rank checks its share of the data, and the workers agree with rank 0 on the data and, on a
 * fresh start, on the initial model ({@link RunReport.Data}); rank 0 then tells the services the run's length
 * ({@link RunReport.Agreed}). Equal initial models are what lets every rank start from the parameters it built, with
 * no broadcast.
 */
final class DataAgreement {
    private final RankLoop.Run run;
    private final int rank;
    private final ControlPlane link;
    private final ReplicaModel replica;
    private final Timeline timeline;

    DataAgreement(RankLoop.Run run, int rank, ControlPlane link, ReplicaModel replica, Timeline timeline) {
        this.run = run;
        this.rank = rank;
        this.link = link;
        this.replica = replica;
        this.timeline = timeline;
    }

    /** This rank reads its share of the data as {@link RankLoop.Run#dataCheck()} says; a bad row fails it. */
    void checkData() {
        if (run.spec().input().check() == DataCheck.NONE) {
            return;
        }
        long start = System.nanoTime();
        long rows;
        try {
            rows = run.spec().input().source().check(rank, run.workers(), run.spec().input().check());
        } catch (IOException e) {
            throw new UncheckedIOException(e.getMessage(), e);
        }
        if (timeline.on() && rows > 0) { // a source in memory has nothing to check, and its trace shows nothing
            timeline.span(Timeline.RANK_THREAD, "data check", "io", start, System.nanoTime(), Map.of("rows", rows,
                    "check", run.spec().input().check().configName()));
        }
    }

    /**
     * Every worker tells rank 0 what its data source holds and, on a fresh start, the digest of the model it built;
     * rank 0 refuses a worker whose steps per epoch, examples, data or initial model differ from its own (naming
     * both), and tells every service the run's length.
     */
    void agree(boolean fresh) {
        DataPlan own = run.spec().input().plan();
        RunReport.Data mine = new RunReport.Data(own.examples(), own.stepsPerEpoch(), own.fingerprint(),
                fresh ? initialModel(replica) : 0);
        if (rank != 0) {
            link.sendReport(0, -1, Stage.SETUP, mine);
            return;
        }
        for (int r = 1; r < run.workers(); r++) {
            RunReport.Data other = link.receiveReport(r, RunReport.Data.class, -1, "rank " + r);
            String differs = disagreement(mine, other, r);
            if (differs != null) {
                throw new IllegalStateException(differs);
            }
        }
        RunReport.Agreed agreed = new RunReport.Agreed(own.stepsPerEpoch(), run.plan().totalSteps());
        for (int e = run.workers(); e < run.endpoints(); e++) {
            link.sendReport(e, -1, Stage.SETUP, agreed);
        }
    }

    /** What makes rank {@code r}'s data another than rank 0's, or null when they agree. */
    private String disagreement(RunReport.Data own, RunReport.Data other, int r) {
        String batch = "batch " + run.batchSize() + " × " + run.workers() + " ranks";
        if (other.stepsPerEpoch() != own.stepsPerEpoch() || other.examples() != own.examples()) {
            return String.format("the ranks disagree on the data: rank 0 has %,d steps per epoch (%,d examples, %s),"
                            + " rank %d has %,d (%,d examples)", own.stepsPerEpoch(), own.examples(), batch, r,
                    other.stepsPerEpoch(), other.examples());
        }
        if (own.fingerprint() != 0 && other.fingerprint() != 0 && own.fingerprint() != other.fingerprint()) {
            return String.format("rank %d reads other data than rank 0 (%,d examples each; fingerprint 0x%x vs 0x%x)",
                    r, own.examples(), other.fingerprint(), own.fingerprint());
        }
        if (own.initialModel() != 0 && other.initialModel() != 0 && own.initialModel() != other.initialModel()) {
            return String.format("rank %d built another initial model than rank 0 (parameters' digest %016x vs"
                    + " %016x): the processes initialize it differently, so no run of it would repeat; seed it"
                    + " (NeuralNetConfiguration.Builder#seed) or load one saved model in every process", r,
                    other.initialModel(), own.initialModel());
        }
        return null;
    }

    /**
     * CRC32C of a replica's parameters (their float bits, big-endian) as 8 hex digits: equal on every rank when the
     * replicas stayed bit-identical.
     */
    static String checksum(ReplicaModel replica) {
        CRC32C crc = new CRC32C();
        crc.update(parameterBytes(replica));
        return String.format("%08x", crc.getValue());
    }

    /** The first 64 bits of the SHA-256 of a replica's parameters, never 0 (0 means: not compared). */
    private static long initialModel(ReplicaModel replica) {
        long digest;
        try {
            digest = ByteBuffer.wrap(MessageDigest.getInstance("SHA-256").digest(parameterBytes(replica))).getLong();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
        return digest == 0 ? 1 : digest;
    }

    /** The replica's parameters as big-endian float32 bytes, what both its checksum and its digest read. */
    private static byte[] parameterBytes(ReplicaModel replica) {
        float[] params = replica.params().toFloatVector();
        ByteBuffer bytes = ByteBuffer.allocate(4 * params.length);
        bytes.asFloatBuffer().put(params);
        return bytes.array();
    }
}
