package io.lgc4j.runner;

import io.lgc4j.core.comm.Direction;
import io.lgc4j.core.comm.TrafficKind;
import io.lgc4j.core.metrics.Phase;
import io.lgc4j.core.metrics.StepNotes;
import io.lgc4j.core.metrics.StepMetrics;
import io.lgc4j.core.train.TrainingListener;
import io.lgc4j.core.train.TrainingPlan;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * Writes {@code metrics.csv}: one row per step. Columns ending in {@code _ms} are timings (they vary between runs);
 * every other column is determined by the config and seed. A phase's column is the mean over the K workers;
 * {@code wall_ms} is rank 0's clock for the whole step and {@code evaluate_max_ms} the slowest worker's evaluation
 * (each worker evaluates a share of the data; rank 0 waits for every share). Byte columns are per endpoint: {@code w<r>} for worker
 * r, {@code s<i>} for service endpoint i (a parameter server), each sent and received in the step's stage, headers included
 * (the one-off setup traffic, such as the initial parameter broadcast, is in {@code summary.json}), plus the header
 * bytes worker 0 sent, then the autoencoder's losses on the steps it trained ({@code ae_rec_loss}, {@code ae_sim_loss}),
 * the measured relative reconstruction error ({@code ae_drift}) and 1 on drift-guard fallback steps
 * ({@code lgc_fallback}); empty when a step has none. In the diagnostic mode four more columns follow: the fidelity
 * of the applied LEARNED update ({@code applied_rel_err}, {@code applied_cos}, {@code applied_cos_all},
 * {@code offer_share}; see {@link StepNotes#APPLIED_REL_ERR}). A run resumed at another K (or S) keeps one pair of
 * byte columns per worker (and service) any part of it had: a worker a step did not have has empty cells there.
 */
public final class MetricsCsvWriter implements TrainingListener, AutoCloseable {
    private final FileChannel file;
    private final BufferedWriter out;
    private int endpoints;
    private int workers;
    /** Workers with byte columns: this run's K, or more when the run had more workers before a resize. */
    private int columnWorkers;
    /** Services with byte columns: this run's S, or more when the run had more before a resize. */
    private int columnServices;
    private final List<String> notes;
    private final String continuedHeader; // the header of the file continued, or null for a new file

    /** Opens {@code file} for writing (replacing it), without the diagnostic columns. */
    public MetricsCsvWriter(Path file) throws IOException {
        this(file, false);
    }

    /** Opens {@code file} for writing (replacing it), with the diagnostic mode's columns when {@code diagnostics}. */
    public MetricsCsvWriter(Path file, boolean diagnostics) throws IOException {
        this(FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
                StandardOpenOption.WRITE), diagnostics, null);
    }

    private MetricsCsvWriter(FileChannel file, boolean diagnostics, String header) {
        this.file = file;
        this.out = new BufferedWriter(Channels.newWriter(file, StandardCharsets.UTF_8));
        this.notes = diagnostics ? Stream.concat(NOTES.stream(), StepNotes.DIAGNOSTICS.stream()).toList() : NOTES;
        this.continuedHeader = header;
    }

    /**
     * Continues the {@code metrics.csv} of a run resumed at step {@code nextStep}: keeps its header and its rows of
     * steps 0..nextStep − 1 and drops the rest (rows the interrupted run wrote after its checkpoint, which the
     * resumed run writes again), then appends. The file is rewritten atomically before anything is appended.
     *
     * @throws IOException when the file is missing, or lacks a row of a step before {@code nextStep} (naming it)
     */
    public static MetricsCsvWriter continuing(Path file, boolean diagnostics, long nextStep) throws IOException {
        return continuing(file, diagnostics, nextStep, 0, 0);
    }

    /**
     * As {@link #continuing(Path, boolean, long)}, for a run that goes on at {@code workers} ranks and {@code services}
     * services: when the file has byte columns for fewer workers or services (the run resumed at a larger K or S),
     * empty columns for the others are added to every row kept.
     */
    public static MetricsCsvWriter continuing(Path file, boolean diagnostics, long nextStep, int workers,
                                              int services) throws IOException {
        if (!Files.isRegularFile(file)) {
            throw new IOException("cannot continue " + file + ": no such file");
        }
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        if (lines.isEmpty()) {
            throw new IOException("cannot continue " + file + ": it is empty, expected a header and " + nextStep
                    + " rows");
        }
        List<String> kept = new ArrayList<>();
        kept.add(lines.get(0));
        for (int i = 1; i < lines.size() && kept.size() <= nextStep; i++) {
            String line = lines.get(i);
            String first = line.substring(0, Math.max(0, line.indexOf(',')));
            long expected = kept.size() - 1L;
            if (!first.equals(String.valueOf(expected))) {
                throw new IOException("cannot continue " + file + ": row " + i + " is of step '" + first
                        + "', expected step " + expected + " (the checkpoint is after step " + (nextStep - 1) + ")");
            }
            kept.add(line);
        }
        if (kept.size() <= nextStep) {
            throw new IOException("cannot continue " + file + ": it has rows of steps 0.." + (kept.size() - 2)
                    + " only; the checkpoint is after step " + (nextStep - 1));
        }
        int had = columnsIn(kept.get(0), "w");
        int hadServices = columnsIn(kept.get(0), "s");
        int servicesAt = FIRST_BYTES_COLUMN + 2 * Math.max(had, workers) + 2 * hadServices;
        for (int i = 0; i < kept.size(); i++) {
            boolean header = i == 0;
            String line = widened(kept.get(i), FIRST_BYTES_COLUMN + 2 * had, "w", had, workers, header);
            kept.set(i, widened(line, servicesAt, "s", hadServices, services, header));
        }
        Path temp = file.resolveSibling("." + file.getFileName() + ".continued");
        Files.write(temp, kept, StandardCharsets.UTF_8);
        Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        return new MetricsCsvWriter(FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.APPEND),
                diagnostics, kept.get(0));
    }

    /** The workers ({@code w}) or services ({@code s}) a header has byte columns for. */
    private static int columnsIn(String header, String endpoint) {
        int n = 0;
        while (header.contains(",bytes_sent_" + endpoint + n + ",")) {
            n++;
        }
        return n;
    }

    /**
     * A line whose byte columns of endpoints {@code endpoint0..had − 1} end at cell {@code at}, with empty ones (or, in
     * the header, their names) for {@code had..to − 1} inserted there.
     */
    private static String widened(String line, int at, String endpoint, int had, int to, boolean header) {
        if (had >= to) {
            return line;
        }
        String[] cells = line.split(",", -1);
        List<String> out = new ArrayList<>(List.of(cells).subList(0, at));
        for (int e = had; e < to; e++) {
            out.add(header ? "bytes_sent_" + endpoint + e : "");
            out.add(header ? "bytes_received_" + endpoint + e : "");
        }
        out.addAll(List.of(cells).subList(at, cells.length));
        return String.join(",", out);
    }

    /** The first byte column: after step, epoch, stage, loss, accuracy, the phases, wall and evaluate-max. */
    private static final int FIRST_BYTES_COLUMN = 5 + Phase.values().length + 2;

    @Override
    public void onStart(TrainingPlan plan) {
        workers = plan.workers();
        endpoints = plan.workers() + plan.serviceEndpoints();
        columnWorkers = continuedHeader == null ? workers : Math.max(workers, columnsIn(continuedHeader, "w"));
        int services = endpoints - workers;
        columnServices = continuedHeader == null ? services : Math.max(services, columnsIn(continuedHeader, "s"));
        StringBuilder h = new StringBuilder("step,epoch,stage,loss,test_accuracy");
        for (Phase p : Phase.values()) {
            h.append(',').append(p.name().toLowerCase(Locale.ROOT)).append("_ms");
        }
        h.append(",wall_ms,evaluate_max_ms");
        for (int w = 0; w < columnWorkers; w++) {
            h.append(",bytes_sent_w").append(w).append(",bytes_received_w").append(w);
        }
        for (int s = 0; s < columnServices; s++) {
            h.append(",bytes_sent_s").append(s).append(",bytes_received_s").append(s);
        }
        h.append(",header_bytes_sent_w0");
        for (String note : notes) {
            h.append(',').append(note);
        }
        if (continuedHeader == null) {
            line(h.toString());
        } else if (!continuedHeader.equals(h.toString())) {
            throw new IllegalStateException("metrics.csv of the resumed run has other columns than this run writes:"
                    + " found " + continuedHeader + ", expected " + h);
        }
    }

    @Override
    public void onStep(StepMetrics m) {
        StringBuilder row = new StringBuilder();
        row.append(m.step()).append(',').append(m.epoch()).append(',').append(m.stage()).append(',')
                .append(m.loss()).append(',').append(m.evaluated() ? String.valueOf(m.testAccuracy()) : "");
        for (Phase p : Phase.values()) {
            row.append(',').append(millis(m.nanos(p)));
        }
        row.append(',').append(millis(m.wallNanos())).append(',').append(millis(m.maxNanos(Phase.EVALUATE)));
        for (int c = 0; c < columnWorkers + columnServices; c++) {
            // the byte columns of workers and services this step had not are empty; a service's is endpoint K + s
            int e = c < columnWorkers ? c : workers + c - columnWorkers;
            if (c >= workers && c < columnWorkers || e >= endpoints) {
                row.append(",,");
                continue;
            }
            row.append(',').append(m.traffic().bytes(e, Direction.SENT, m.stage()))
                    .append(',').append(m.traffic().bytes(e, Direction.RECEIVED, m.stage()));
        }
        row.append(',').append(m.traffic().bytes(0, Direction.SENT, m.stage(), TrafficKind.HEADER));
        for (String note : notes) {
            double v = m.note(note);
            row.append(',').append(Double.isNaN(v) ? "" : String.valueOf(v));
        }
        line(row.toString());
    }

    /** The topology's notes written as columns, empty when a step has none (see {@link StepNotes}). */
    private static final List<String> NOTES = List.of(StepNotes.AE_RECONSTRUCTION, StepNotes.AE_SIMILARITY,
            StepNotes.AE_DRIFT, StepNotes.LGC_FALLBACK);


    private static String millis(long nanos) {
        return String.format(Locale.ROOT, "%.3f", nanos / 1e6);
    }

    private void line(String s) {
        try {
            out.write(s);
            out.newLine();
            out.flush(); // a row per step, on disk at once: a reader (tail -f, a test, a killed run's remains) sees it
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write metrics.csv", e);
        }
    }

    /**
     * Every row so far on stable storage before the checkpoint's manifest is written: a checkpoint on disk never
     * resumes past the rows that survive a crash of the machine.
     */
    @Override
    public void onCheckpoint(int step) {
        try {
            out.flush();
            file.force(false);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot sync metrics.csv at the checkpoint after step " + step, e);
        }
    }

    @Override
    public void close() throws IOException {
        out.close();
    }
}
