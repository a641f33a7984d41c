package io.lgc4j.experiments.tables;

/**
 * The steps of a run's {@code metrics.csv} as training time: each step's wall time without the evaluation, and which
 * steps are typical enough to average phases over.
 *
 * <p>The phase columns ({@code *_ms} except {@code wall_ms}) are means over the K workers, and only rank 0 evaluates:
 * {@code evaluate_ms} is rank 0's evaluation divided by K, while {@code wall_ms} (rank 0's clock) holds all of it. So
 * a step's training time is {@code wall_ms − K × evaluate_ms}. Meanwhile the other ranks have gone on to the next
 * step and wait in its exchange until rank 0 has evaluated: that step's {@code communicate_ms} holds about
 * (K − 1) / K of the evaluation, though rank 0's {@code wall_ms} for it does not. Phase means therefore leave out the
 * step after each evaluation, and the first step (connections, JIT).
 *
 * <p>This holds outside the diagnostic mode, where every rank also spends {@code evaluate} time on its diagnostics.
 */
final class TrainingSteps {

    private final double[] wall;
    private final double[] evaluate;
    private final double[] accuracy;
    private final int workers;

    /**
     * @param metrics the run's metrics
     * @param workers K, the number of workers whose phase times the columns average
     */
    TrainingSteps(MetricsTable metrics, int workers) {
        this.wall = metrics.numbers("wall_ms");
        this.evaluate = metrics.numbers("evaluate_ms");
        this.accuracy = metrics.numbers("test_accuracy");
        this.workers = workers;
    }

    int size() {
        return wall.length;
    }

    /** Step {@code i}'s training time in ms: rank 0's wall time without its evaluation. */
    double trainMs(int i) {
        return wall[i] - (Double.isNaN(evaluate[i]) ? 0 : workers * evaluate[i]);
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
