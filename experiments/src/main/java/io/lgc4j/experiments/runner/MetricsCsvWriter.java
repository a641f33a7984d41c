package io.lgc4j.experiments.runner;

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
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * Writes {@code metrics.csv}: one row per step. Columns ending in {@code _ms} are timings (they vary between runs);
 * every other column is determined by the config and seed. Byte columns are per endpoint: {@code w<r>} for worker
 * r, {@code s<i>} for service endpoint i (a parameter server), each sent and received in the step's stage, headers included
 * (the one-off setup traffic, such as the initial parameter broadcast, is in {@code summary.json}), plus the header
 * bytes worker 0 sent, then the autoencoder's losses on the steps it trained ({@code ae_rec_loss}, {@code ae_sim_loss}),
 * the measured relative reconstruction error ({@code ae_drift}) and 1 on drift-guard fallback steps
 * ({@code lgc_fallback}); empty when a step has none. In the diagnostic mode four more columns follow: the fidelity
 * of the applied LEARNED update ({@code applied_rel_err}, {@code applied_cos}, {@code applied_cos_all},
 * {@code offer_share}; see {@link StepNotes#APPLIED_REL_ERR}).
 */
public final class MetricsCsvWriter implements TrainingListener, AutoCloseable {
    private final BufferedWriter out;
    private int endpoints;
    private int workers;
    private final List<String> notes;

    /** Opens {@code file} for writing (replacing it), without the diagnostic columns. */
    public MetricsCsvWriter(Path file) throws IOException {
        this(file, false);
    }

    /** Opens {@code file} for writing (replacing it), with the diagnostic mode's columns when {@code diagnostics}. */
    public MetricsCsvWriter(Path file, boolean diagnostics) throws IOException {
        this.out = Files.newBufferedWriter(file, StandardCharsets.UTF_8);
        this.notes = diagnostics
                ? java.util.stream.Stream.concat(NOTES.stream(), StepNotes.DIAGNOSTICS.stream()).toList()
                : NOTES;
    }

    @Override
    public void onStart(TrainingPlan plan) {
        workers = plan.workers();
        endpoints = plan.workers() + plan.serviceEndpoints();
        StringBuilder h = new StringBuilder("step,epoch,stage,loss,test_accuracy");
        for (Phase p : Phase.values()) {
            h.append(',').append(p.name().toLowerCase(Locale.ROOT)).append("_ms");
        }
        h.append(",wall_ms");
        for (int e = 0; e < endpoints; e++) {
            String name = e < workers ? "w" + e : "s" + (e - workers);
            h.append(",bytes_sent_").append(name).append(",bytes_received_").append(name);
        }
        h.append(",header_bytes_sent_w0");
        for (String note : notes) {
            h.append(',').append(note);
        }
        line(h.toString());
    }

    @Override
    public void onStep(StepMetrics m) {
        StringBuilder row = new StringBuilder();
        row.append(m.step()).append(',').append(m.epoch()).append(',').append(m.stage()).append(',')
                .append(m.loss()).append(',').append(m.evaluated() ? String.valueOf(m.testAccuracy()) : "");
        for (Phase p : Phase.values()) {
            row.append(',').append(millis(m.nanos(p)));
        }
        row.append(',').append(millis(m.wallNanos()));
        for (int e = 0; e < endpoints; e++) {
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

    @Override
    public void close() throws IOException {
        out.close();
    }
}
