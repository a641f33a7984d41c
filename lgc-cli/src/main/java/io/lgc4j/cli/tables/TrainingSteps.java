package io.lgc4j.cli.tables;

/**
 * The steps of a run's {@code metrics.csv} as training time: each step's wall time without the evaluation, and which
 * steps are typical enough to average phases over.
 *
 * <p>{@code wall_ms} is rank 0's clock; after an evaluation it holds the slowest worker's evaluation, since rank 0
 * waits for every worker's share ({@code evaluate_max_ms}). So a step's training time is
 * {@code wall_ms − evaluate_max_ms}.
 *
 * <p>Runs from before the evaluation was shared (no {@code evaluate_max_ms} column) had rank 0 evaluate alone: the
 * phase columns are means over the K workers, so {@code evaluate_ms} held rank 0's evaluation divided by K, and the
 * training time is {@code wall_ms − K × evaluate_ms}. The other ranks went on to the next step and waited in its
 * exchange until rank 0 had evaluated: that step's {@code communicate_ms} holds about (K − 1) / K of the evaluation,
 * though rank 0's {@code wall_ms} for it does not. Phase means therefore leave out the step after each evaluation (in
 * both kinds of run), and the first step (connections, JIT).
 *
 * <p>This holds outside the diagnostic mode, where every rank also spends {@code evaluate} time on its diagnostics.
 */
final class TrainingSteps {

    private final double[] wall;
    private final double[] evaluation; // per step, the evaluation time rank 0's wall clock holds
    private final double[] accuracy;

    /**
     * @param metrics the run's metrics
     * @param workers K, the number of workers whose phase times the columns average
     */
    TrainingSteps(MetricsTable metrics, int workers) {
        this.wall = metrics.numbers("wall_ms");
        this.accuracy = metrics.numbers("test_accuracy");
        if (metrics.has("evaluate_max_ms")) {
            this.evaluation = metrics.numbers("evaluate_max_ms");
        } else {
            double[] mean = metrics.numbers("evaluate_ms");
            this.evaluation = new double[mean.length];
            for (int i = 0; i < mean.length; i++) {
                evaluation[i] = workers * mean[i];
            }
        }
    }

    int size() {
        return wall.length;
    }

    /** Step {@code i}'s training time in ms: rank 0's wall time without the evaluation. */
    double trainMs(int i) {
        return wall[i] - (Double.isNaN(evaluation[i]) ? 0 : evaluation[i]);
    }

    /** Whether step {@code i} evaluated. */
    boolean evaluated(int i) {
        return !Double.isNaN(accuracy[i]);
    }

    /** Whether step {@code i} counts in phase means: not the first step, not the step after an evaluation. */
    boolean typical(int i) {
        return i > 0 && !evaluated(i - 1);
    }

    /** The mean of {@code column} over the typical steps (NaN cells skipped); NaN when there are none. */
    double mean(double[] column) {
        double sum = 0;
        int n = 0;
        for (int i = 0; i < column.length; i++) {
            if (typical(i) && !Double.isNaN(column[i])) {
                sum += column[i];
                n++;
            }
        }
        return n == 0 ? Double.NaN : sum / n;
    }

    /** The mean training time of the typical steps. */
    double meanTrainMs() {
        double[] train = new double[wall.length];
        for (int i = 0; i < train.length; i++) {
            train[i] = trainMs(i);
        }
        return mean(train);
    }
}
