package io.lgc4j.advise;

import io.lgc4j.core.stage.Stage;

import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * What the advisor found: per candidate and stage a predicted step and its terms, the steps to the target and where
 * that figure comes from, the predicted time to the target, and the choice.
 *
 * @param rows       one per candidate, in the order given
 * @param chosen     the candidate with the least predicted time to the target, if any has one
 * @param computeMs  forward, backward and the update of one batch: CPU time at one core (the compute probe's)
 * @param cores      the cores each process has (the share the CPU terms are divided by)
 * @param link       the link the predictions are for
 * @param denseSteps dense training's steps to the target, when known
 * @param denseStepsSource where they come from ({@code committed evidence}, {@code given})
 * @param target     the test accuracy
 * @param seconds    what the advice cost, wall time
 */
public record Advice(List<Row> rows, Optional<String> chosen, double computeMs, double cores, Link link,
                     Optional<Double> denseSteps, String denseStepsSource, double target, double seconds) {

    /** Copies the rows. */
    public Advice {
        rows = List.copyOf(rows);
        Objects.requireNonNull(chosen, "chosen");
        Objects.requireNonNull(link, "link");
        Objects.requireNonNull(denseSteps, "denseSteps");
        Objects.requireNonNull(denseStepsSource, "denseStepsSource");
    }

    /**
     * One stage of one candidate.
     *
     * @param stage      the stage
     * @param prediction its steady step
     * @param oneOffMs   what its first step costs beyond a steady one
     * @param legs       the dry run's legs
     * @param busiestUp  bytes per step one way through the busiest endpoint's link
     * @param busiestDown bytes per step the other way
     */
    public record StageRow(Stage stage, StepModel.Prediction prediction, double oneOffMs, int legs, long busiestUp,
                           long busiestDown) {
    }

    /**
     * One candidate.
     *
     * @param id             its id
     * @param label          its label
     * @param stages         its stages, in schedule order; empty when it could not be dry-run
     * @param penalty        steps to the target relative to dense, when known
     * @param penaltySource  where the penalty comes from, or why there is none
     * @param steps          its steps to the target, when dense's and the penalty are known
     * @param timeToTargetS  its predicted time to the target, s
     * @param breakEven      for a method that is not dense's math: the fastest dense candidate's steady step over
     *                       this one's; it is faster to the target if it needs fewer than this many times dense's
     *                       steps (ignoring its warm-up)
     * @param problem        why it could not be measured, if it could not
     */
    public record Row(String id, String label, List<StageRow> stages, Optional<Double> penalty, String penaltySource,
                      Optional<Double> steps, Optional<Double> timeToTargetS, Optional<Double> breakEven,
                      Optional<String> problem) {
        /** Copies the stages. */
        public Row {
            stages = List.copyOf(stages);
        }

        /** The stage that bounds most of the run: the steady stage with the most steps, else the first. */
        String why() {
            if (problem.isPresent()) {
                return "not measured: " + problem.get();
            }
            StageRow last = stages.get(stages.size() - 1);
            StepModel.Prediction p = last.prediction();
            return switch (p.bound()) {
                case LINK -> String.format(Locale.ROOT, "link: %s/step, %d legs", bytes(Math.max(last.busiestUp(),
                        last.busiestDown())), last.legs());
                case SERVER -> String.format(Locale.ROOT, "server: %.0f ms CPU", p.serverMs());
                case COMPUTE -> String.format(Locale.ROOT, "compute: %.0f ms of CPU a step%s", p.localMs(),
                        p.quotaMs() > p.localMs() + 0.05 ? String.format(Locale.ROOT, ", %.0f ms at the quota",
                        p.quotaMs()) : "");
            };
        }
    }

    /** The table a person reads: method, step ms by stage, steps, time to the target, why. */
    public String table() {
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "lgc advise: %.2f cores per process, a pass and update %.1f ms of CPU,"
                + " link %s%n", cores, computeMs, link.describe()));
        b.append(String.format(Locale.ROOT, "target %.0f %%: %s%n", 100 * target, denseSteps
                .map(s -> String.format(Locale.ROOT, "dense takes %.0f steps (%s)", s, denseStepsSource))
                .orElse("no evidence of dense's steps for this model and data; times to the target are not shown")));
        int width = rows.stream().mapToInt(r -> r.label().length()).max().orElse(6);
        String format = "%-" + width + "s  %-24s  %6s  %10s  %s%n";
        b.append(String.format(Locale.ROOT, format, "method", "step ms (by stage)", "steps", "to target", "why"));
        for (Row r : rows) {
            String perStage = r.stages().stream().map(s -> String.format(Locale.ROOT, "%,.0f",
                    s.prediction().stepMs())).reduce((x, y) -> x + " | " + y).orElse("–");
            String steps = r.steps().map(s -> String.format(Locale.ROOT, "%.0f", s)).orElse("–");
            String time = r.timeToTargetS().map(t -> String.format(Locale.ROOT, "%.1f s", t)).orElse("–");
            String why = r.why() + (r.penalty().isEmpty() && r.problem().isEmpty() ? "; " + r.penaltySource() : "")
                    + (r.timeToTargetS().isEmpty() ? r.breakEven().map(x -> String.format(Locale.ROOT,
                    "; pays below %.2fx dense's steps", x)).orElse("") : "");
            b.append(String.format(Locale.ROOT, format, r.label(), perStage, steps, time, why
                    + (chosen.isPresent() && chosen.get().equals(r.id()) ? "   <- chosen" : "")));
        }
        if (chosen.isEmpty()) {
            b.append("nothing chosen: no candidate has a time to the target\n");
        } else if (denseSteps.isEmpty()) {
            b.append("chosen by step time among the methods of dense's math: without dense's steps to the target no"
                    + " other can be compared\n");
        }
        b.append(String.format(Locale.ROOT, "measured and predicted in %.1f s%n", seconds));
        return b.toString();
    }

    /** The CSV header of {@link #csv()}. */
    public static final String CSV_HEADER = "candidate,label,stage,steps,step_ms,local_ms,quota_ms,wire_ms,legs,"
            + "legs_ms,server_ms,hidden_ms,busiest_up_bytes,busiest_down_bytes,one_off_ms,bound,penalty,"
            + "penalty_source,time_to_target_s,break_even,chosen";

    /**
     * One row per candidate and stage, then one {@code ALL} row per candidate (its steps, penalty and time to the
     * target); empty cells are "not applicable".
     */
    public String csv() {
        StringBuilder b = new StringBuilder(CSV_HEADER).append('\n');
        for (Row r : rows) {
            String chosenCell = chosen.map(c -> c.equals(r.id()) ? "yes" : "no").orElse("no");
            for (StageRow s : r.stages()) {
                StepModel.Prediction p = s.prediction();
                b.append(String.join(",", StepPenalties.quoted(r.id()), StepPenalties.quoted(r.label()),
                        s.stage().name(), "",
                        ms(p.stepMs()), ms(p.localMs()), ms(p.quotaMs()), ms(p.wireMs()), String.valueOf(s.legs()),
                        ms(p.legsMs()), ms(p.serverMs()), ms(p.hiddenMs()), String.valueOf(s.busiestUp()),
                        String.valueOf(s.busiestDown()), ms(s.oneOffMs()), p.bound().label(), "", "", "", "", ""))
                        .append('\n');
            }
            b.append(String.join(",", StepPenalties.quoted(r.id()), StepPenalties.quoted(r.label()), "ALL",
                    r.steps().map(Advice::ms).orElse(""), "", "", "", "", "", "", "", "", "", "", "", "",
                    r.penalty().map(p -> String.format(Locale.ROOT, "%.4f", p)).orElse(""),
                    StepPenalties.quoted(r.problem().map(p -> "not measured: " + p).orElse(r.penaltySource())),
                    r.timeToTargetS().map(Advice::ms).orElse(""),
                    r.breakEven().map(x -> String.format(Locale.ROOT, "%.3f", x)).orElse(""), chosenCell))
                    .append('\n');
        }
        return b.toString();
    }

    private static String ms(double v) {
        return String.format(Locale.ROOT, "%.1f", v);
    }

    static String bytes(long b) {
        return b >= 1_000_000 ? String.format(Locale.ROOT, "%.1f MB", b / 1e6)
                : b >= 1_000 ? String.format(Locale.ROOT, "%.1f kB", b / 1e3) : b + " B";
    }
}
