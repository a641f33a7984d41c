package io.lgc4j.cli.tables;

import io.lgc4j.advise.MethodKey;
import io.lgc4j.advise.StepPenalties;
import io.lgc4j.advise.StepPenalty;
import io.lgc4j.advise.config.StepEvidence;
import io.lgc4j.runner.config.ConfigException;
import io.lgc4j.runner.config.ConfigLoader;
import io.lgc4j.runner.config.ExperimentConfig;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * Step penalties from committed runs ({@code lgc evidence step-penalties}): every run directory under a results root
 * that trained its whole schedule and evaluated every few steps counts, keyed by what dense's steps depend on
 * ({@link StepEvidence#evidenceKey}) and by what the method does to the math ({@link StepEvidence#methodKey}). A
 * method's row holds the seeds it shares with dense on the same evidence, so every penalty compares paired seeds.
 *
 * <pre>{@code
 * List<String> skipped = new ArrayList<>();
 * StepPenalties evidence = StepPenaltyEvidence.build(StepPenaltyEvidence.scan(Path.of("docs/results"), 0.80,
 *         skipped), 0.80);
 * evidence.write(Path.of("lgc-runner/src/main/resources/io/lgc4j/runner/step-penalties.csv"));
 * }</pre>
 */
public final class StepPenaltyEvidence {

    private StepPenaltyEvidence() {
    }

    /**
     * One run: its steps to the target, or {@link StepPenalty#NOT_REACHED}.
     *
     * @param directory where it is, relative to the results root ({@code /}-separated)
     * @param evalEvery its evaluation interval, steps: the step it saw the target at is rounded up to it
     */
    public record Run(String directory, String evidence, MethodKey method, long seed, int evalEvery, int steps) {
        /** Rejects nulls. */
        public Run {
            Objects.requireNonNull(directory, "directory");
            Objects.requireNonNull(evidence, "evidence");
            Objects.requireNonNull(method, "method");
        }
    }

    /**
     * Every run directory under {@code root} ({@code config.yaml} and {@code metrics.csv}) that counts, in path
     * order. A run does not count when it was stopped early ({@code training.maxSteps > 0}: a capped copy of a
     * reference run, which may stop before the target), evaluated only at epoch ends ({@code evalEverySteps: 0}), or
     * has a config this build cannot read; each such directory is added to {@code skipped} with the reason.
     */
    public static List<Run> scan(Path root, double target, List<String> skipped) throws IOException {
        List<Path> dirs;
        try (Stream<Path> files = Files.walk(root)) {
            dirs = files.filter(p -> p.getFileName().toString().equals("metrics.csv"))
                    .map(Path::getParent)
                    .filter(d -> Files.isRegularFile(d.resolve("config.yaml")))
                    .sorted()
                    .toList();
        }
        List<Run> runs = new ArrayList<>();
        for (Path dir : dirs) {
            String name = root.relativize(dir).toString().replace('\\', '/');
            ExperimentConfig config;
            try {
                config = ConfigLoader.load(dir.resolve("config.yaml"));
            } catch (ConfigException e) {
                skipped.add(name + ": its config does not load (" + e.getMessage() + ")");
                continue;
            }
            if (config.training().maxSteps() > 0) {
                skipped.add(name + ": stopped at maxSteps " + config.training().maxSteps());
                continue;
            }
            if (config.training().evalEverySteps() <= 0) {
                skipped.add(name + ": evaluated at epoch ends only");
                continue;
            }
            MethodKey method;
            try {
                method = StepEvidence.methodKey(config);
            } catch (RuntimeException e) {
                skipped.add(name + ": its method cannot be built (" + e.getMessage() + ")");
                continue;
            }
            int steps = UntilTarget.stepsToTarget(MetricsTable.read(dir.resolve("metrics.csv")), target);
            runs.add(new Run(name, StepEvidence.evidenceKey(config), method, config.run().seed(),
                    config.training().evalEverySteps(), steps > 0 ? steps : StepPenalty.NOT_REACHED));
        }
        return runs;
    }

    /**
     * The step penalties of {@code runs} at {@code target}: per evidence key, dense's row (the seeds on which dense
     * reached the target), then every other method's on the seeds it shares with dense, in method order. Of the runs
     * of one method and seed, those that evaluated most often count; a seed pairs with dense's only when both were
     * evaluated as often, so a penalty never compares steps rounded to different intervals. A method that shares no
     * seed with dense on its evidence has no row.
     *
     * @throws IllegalArgumentException when two runs of one method, evidence and seed took different steps: a config
     *                                  and seed give one trajectory, so the results disagree with each other
     */
    public static StepPenalties build(List<Run> runs, double target) {
        // evidence -> method -> seed -> the runs evaluated most often
        Map<String, Map<MethodKey, TreeMap<Long, List<Run>>>> grouped = new TreeMap<>();
        for (Run run : runs) {
            List<Run> ofSeed = grouped.computeIfAbsent(run.evidence(),
                            e -> new TreeMap<>(Comparator.comparing(MethodKey::text)))
                    .computeIfAbsent(run.method(), m -> new TreeMap<>())
                    .computeIfAbsent(run.seed(), s -> new ArrayList<>());
            if (!ofSeed.isEmpty() && run.evalEvery() < ofSeed.get(0).evalEvery()) {
                ofSeed.clear();
            }
            if (ofSeed.isEmpty() || run.evalEvery() == ofSeed.get(0).evalEvery()) {
                ofSeed.add(run);
            }
        }
        List<StepPenalty> rows = new ArrayList<>();
        for (var byEvidence : grouped.entrySet()) {
            var methods = byEvidence.getValue();
            var denseRuns = methods.get(MethodKey.DENSE);
            if (denseRuns == null) {
                continue;
            }
            Map<Long, Run> dense = new LinkedHashMap<>();
            denseRuns.forEach((seed, ofSeed) -> {
                int steps = agreed(ofSeed);
                if (steps != StepPenalty.NOT_REACHED) {
                    dense.put(seed, ofSeed.get(0));
                }
            });
            List<MethodKey> order = new ArrayList<>(methods.keySet());
            order.remove(MethodKey.DENSE);
            order.add(0, MethodKey.DENSE);
            for (MethodKey method : order) {
                List<Long> seeds = new ArrayList<>();
                List<Integer> steps = new ArrayList<>();
                List<Integer> denseSteps = new ArrayList<>();
                TreeSet<String> dirs = new TreeSet<>();
                methods.get(method).forEach((seed, ofSeed) -> {
                    Run d = dense.get(seed);
                    if (d != null && d.evalEvery() == ofSeed.get(0).evalEvery()) {
                        seeds.add(seed);
                        steps.add(agreed(ofSeed));
                        denseSteps.add(d.steps());
                        ofSeed.forEach(r -> dirs.add(r.directory()));
                    }
                });
                if (!seeds.isEmpty()) {
                    rows.add(new StepPenalty(byEvidence.getKey(), method, target, seeds, steps, denseSteps,
                            List.copyOf(dirs)));
                }
            }
        }
        return new StepPenalties(rows);
    }

    /** The steps the runs of one method, evidence and seed took, which must be the same. */
    private static int agreed(List<Run> ofSeed) {
        Run first = ofSeed.get(0);
        for (Run other : ofSeed) {
            if (other.steps() != first.steps()) {
                throw new IllegalArgumentException("seed " + first.seed() + " of one method and setting reached the"
                        + " target after " + describe(first.steps()) + " in " + first.directory() + " and after "
                        + describe(other.steps()) + " in " + other.directory() + ": one config and seed give one"
                        + " trajectory, so one of them is stale (remove or rerun it); method " + first.method());
            }
        }
        return first.steps();
    }

    private static String describe(int steps) {
        return steps == StepPenalty.NOT_REACHED ? "never" : steps + " steps";
    }
}
