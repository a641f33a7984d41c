package io.lgc4j.cli.tables;

import io.lgc4j.core.metrics.Phase;
import io.lgc4j.core.stage.Stage;
import io.lgc4j.runner.ExperimentRunner;
import io.lgc4j.runner.RunSummary;
import io.lgc4j.runner.RunSummary.SentBytes;
import io.lgc4j.runner.RunSummary.StageSummary;

import java.io.IOException;
import java.nio.file.Path;
import java.util.function.Function;

/** Reading a run's {@code summary.json} (as written by the runner, {@link RunSummary}) for the tables. */
final class Summaries {

    /** Every worker's bytes per step in a stage. */
    static final Function<StageSummary, SentBytes> EVERY_WORKER = StageSummary::workerSentPerStep;
    /** The bytes per step of the workers that sent a latent (LGC-PS: the step's leader). */
    static final Function<StageSummary, SentBytes> LATENT_SENDER = StageSummary::latentSenderSentPerStep;
    /** The bytes per step of the workers that sent no latent. */
    static final Function<StageSummary, SentBytes> OTHER_WORKERS = StageSummary::otherWorkerSentPerStep;

    private Summaries() {
    }

    /** The summary of the run in {@code dir}. */
    static RunSummary read(Path dir) throws IOException {
        return RunSummary.read(dir.resolve(ExperimentRunner.SUMMARY));
    }

    /**
     * Mean bytes sent per worker and step in {@code stage} by kind and in total, over the workers {@code who}
     * selects ({@link #EVERY_WORKER}, {@link #LATENT_SENDER}, {@link #OTHER_WORKERS}); {@link SentBytes#NONE} when
     * the run has no such stage.
     */
    static SentBytes sent(RunSummary summary, Stage stage, Function<StageSummary, SentBytes> who) {
        StageSummary st = summary.bytesByStage().get(stage);
        return st == null ? SentBytes.NONE : who.apply(st);
    }

    /** Mean time per step of {@code phase} in {@code stage}, in seconds; NaN when the stage has no times. */
    static double seconds(RunSummary summary, Stage stage, Phase phase) {
        RunSummary.PhaseTimes times = summary.bytesByStage().get(stage).meanPhaseTimesPerStep();
        return times == null ? Double.NaN : times.ms(phase) / 1000;
    }

    /** Mean wall time of a step in {@code stage}, in seconds; NaN when the stage has no times. */
    static double wallSeconds(RunSummary summary, Stage stage) {
        RunSummary.PhaseTimes times = summary.bytesByStage().get(stage).meanPhaseTimesPerStep();
        return times == null || times.wallMs() == null ? Double.NaN : times.wallMs() / 1000;
    }

    /** Steps the run spent in {@code stage}. */
    static long steps(RunSummary summary, Stage stage) {
        StageSummary st = summary.bytesByStage().get(stage);
        return st == null ? 0 : st.steps();
    }
}
