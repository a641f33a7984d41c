package io.lgc4j.cli.tables;

import com.fasterxml.jackson.databind.JsonNode;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Time to accuracy without training past the target ({@code network.untilTarget: true}). A run's trajectory is fixed
 * by its config and seed, not by its links: a process per rank computes what one JVM computes, bit for bit
 * ({@code MultiProcessRunTest}), whatever the cap. So every method trains once, uncapped and over its whole schedule
 * (the <em>reference</em>: the step at which it first reaches the target, and its final accuracy), and under each cap
 * only as many steps as its reference needed to reach the target. Each capped run is checked against its reference:
 * its last evaluation must equal the reference's at the same step ({@link #sameAsReference}).
 *
 * <pre>{@code
 * List<Suite.PlannedRun> capped = UntilTarget.plan(plan, reference, 0.80);   // maxSteps = steps to 80 %
 * }</pre>
 */
public final class UntilTarget {

    private UntilTarget() {
    }

    /**
     * The number of steps after which the test accuracy first reached {@code target}: 1 + the step of that
     * evaluation in {@code metrics.csv}; -1 when no evaluation reached it.
     */
    public static int stepsToTarget(MetricsTable metrics, double target) {
        double[] step = metrics.numbers("step");
        double[] acc = metrics.numbers("test_accuracy");
        for (int i = 0; i < acc.length; i++) {
            if (!Double.isNaN(acc[i]) && acc[i] >= target) {
                return (int) step[i] + 1;
            }
        }
        return -1;
    }

    /** As {@link #stepsToTarget(MetricsTable, double)} for the PyTorch peer: the step of its first such record. */
    public static int stepsToTarget(PeerRun peer, double target) throws IOException {
        for (JsonNode e : peer.evaluations()) {
            if (e.path("test_accuracy").asDouble() >= target) {
                return e.path("step").asInt();
            }
        }
        return -1;
    }

    /**
     * The capped pass: every planned run stopped ({@code training.maxSteps}) after the steps its reference run took to
     * reach {@code target}; a run whose reference never reached it is left out (its row says so).
     *
     * @param reference the finished reference runs, by {@link Suite.PlannedRun#key()}
     * @throws IllegalArgumentException when a planned run has no reference
     */
    public static List<Suite.PlannedRun> plan(List<Suite.PlannedRun> plan, Map<String, SuiteRuns.Finished> reference,
                                              double target) throws IOException {
        List<Suite.PlannedRun> capped = new ArrayList<>();
        for (Suite.PlannedRun run : plan) {
            SuiteRuns.Finished ref = reference.get(run.key());
            if (ref == null) {
                throw new IllegalArgumentException("no reference run for " + run.key());
            }
            int steps = stepsToTarget(ref.metrics(), target);
            if (steps > 0) {
                var config = run.config();
                capped.add(new Suite.PlannedRun(run.methodId(), run.label(), run.model(), run.seeded(),
                        config.withTraining(config.training().withMaxSteps(steps))));
            }
        }
        return capped;
    }

    /**
     * Whether the capped run's last evaluation equals (bit for bit) its reference's evaluation at the same step: the
     * check that stopping early and the links changed nothing but the times.
     */
    public static boolean sameAsReference(MetricsTable capped, MetricsTable reference) {
        double[] step = capped.numbers("step");
        double[] acc = capped.numbers("test_accuracy");
        double[] loss = capped.numbers("loss");
        int last = acc.length - 1;
        while (last >= 0 && Double.isNaN(acc[last])) {
            last--;
        }
        if (last < 0) {
            return false;
        }
        double[] refStep = reference.numbers("step");
        double[] refAcc = reference.numbers("test_accuracy");
        double[] refLoss = reference.numbers("loss");
        for (int i = 0; i < refStep.length; i++) {
            if (refStep[i] == step[last]) {
                return Double.compare(refAcc[i], acc[last]) == 0 && Double.compare(refLoss[i], loss[last]) == 0;
            }
        }
        return false;
    }

    /** The peer's version: its last record's accuracy equals the reference's record at the same step. */
    public static boolean sameAsReference(PeerRun capped, PeerRun reference) throws IOException {
        List<JsonNode> evals = capped.evaluations();
        if (evals.isEmpty()) {
            return false;
        }
        JsonNode last = evals.get(evals.size() - 1);
        for (JsonNode e : reference.evaluations()) {
            if (e.path("step").asInt() == last.path("step").asInt()) {
                return Double.compare(e.path("test_accuracy").asDouble(), last.path("test_accuracy").asDouble()) == 0;
            }
        }
        return false;
    }
}
