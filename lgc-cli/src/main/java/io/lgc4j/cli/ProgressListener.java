package io.lgc4j.cli;

import io.lgc4j.core.comm.Direction;
import io.lgc4j.core.metrics.StepMetrics;
import io.lgc4j.core.train.TrainingListener;
import io.lgc4j.core.train.TrainingPlan;
import io.lgc4j.core.train.TrainingResult;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;

import java.io.PrintStream;
import java.util.Locale;

/**
 * Shows training progress: a live bar with loss, last accuracy and bytes on a terminal; on a pipe or in CI, one
 * plain line per evaluation and per tenth of the run, so logs stay readable.
 */
final class ProgressListener implements TrainingListener {
    private final PrintStream out;
    private final boolean bar;
    private ProgressBar progress;
    private TrainingPlan plan;
    private double lastAccuracy = Double.NaN;

    ProgressListener(PrintStream out, boolean bar) {
        this.out = out;
        this.bar = bar;
    }

    @Override
    public void onStart(TrainingPlan plan) {
        this.plan = plan;
        out.printf(Locale.ROOT, "training: %s, K=%d, batch %d per worker, %d steps (%d per epoch), %,d parameters%n",
                plan.topology(), plan.workers(), plan.batchSizePerWorker(), plan.totalSteps(), plan.stepsPerEpoch(),
                plan.layout().length());
        if (bar) {
            progress = new ProgressBarBuilder().setTaskName("train").setInitialMax(plan.totalSteps())
                    .setStyle(ProgressBarStyle.ASCII).setUpdateIntervalMillis(250).build();
        }
    }

    @Override
    public void onStep(StepMetrics m) {
        if (m.evaluated()) {
            lastAccuracy = m.testAccuracy();
        }
        String extra = String.format(Locale.ROOT, "loss %.4f acc %s sent/step %,d B", m.loss(),
                Double.isNaN(lastAccuracy) ? "-" : String.format(Locale.ROOT, "%.4f", lastAccuracy),
                m.traffic().bytes(0, Direction.SENT));
        if (progress != null) {
            progress.stepTo(m.step() + 1);
            progress.setExtraMessage(extra);
        } else {
            int tenth = Math.max(1, plan.totalSteps() / 10);
            if (m.evaluated() || (m.step() + 1) % tenth == 0) {
                out.printf(Locale.ROOT, "step %d/%d  %s%n", m.step() + 1, plan.totalSteps(), extra);
            }
        }
    }

    @Override
    public void onEnd(TrainingResult result) {
        if (progress != null) {
            progress.close();
        }
    }
}
