package io.lgc4j.advise.config;

import io.lgc4j.advise.Advice;
import io.lgc4j.advise.Advisor;
import io.lgc4j.advise.Link;
import io.lgc4j.advise.MethodCandidate;
import io.lgc4j.advise.MethodKey;
import io.lgc4j.advise.StepPenalties;
import io.lgc4j.advise.StepPenalty;
import io.lgc4j.core.comm.ValueEncoding;
import io.lgc4j.core.data.DataSource;
import io.lgc4j.runner.ExperimentRunner;
import io.lgc4j.runner.Nd4jEnvironment;
import io.lgc4j.runner.config.ConfiguredMethod;
import io.lgc4j.runner.config.ExperimentConfig;

import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * {@code lgc advise} for a config: the config's model and data, each candidate config as a {@link MethodCandidate},
 * and every candidate's steps to the target from the shipped evidence ({@link StepEvidence}), in this order:
 * <ol>
 *   <li>a method whose steps compute dense's math needs dense's steps;</li>
 *   <li>so does one whose target comes inside its dense fp32 warm-up (its first steps are its topology's dense
 *       run);</li>
 *   <li>else the committed evidence of the same setting and method, if it reached the target on every seed.</li>
 * </ol>
 * Dense's steps come from the evidence of the config's setting; without any, the table shows step times and each
 * method's break-even instead of times to the target.
 *
 * <pre>{@code
 * ExperimentConfig config = ConfigLoader.load(Path.of("configs/quickstart.yaml"));
 * Advice advice = ConfigAdvisor.advise(config, AdviseCandidates.defaults(config),
 *         new Link(9.6, 3.5, 31, 0, "given"), 0.80, Double.NaN, System.err);
 * }</pre>
 */
public final class ConfigAdvisor {

    private ConfigAdvisor() {
    }

    /**
     * Advises among {@code candidates} for {@code config}'s model and data on {@code link}, at the target accuracy
     * {@code target}; progress lines go to {@code log}.
     *
     * @param cores the cores each process of the run will have; NaN: this process's
     * @throws IOException           when the data cannot be read
     * @throws IllegalStateException when ND4J computes with another thread count than {@code model.compute.threads}
     */
    public static Advice advise(ExperimentConfig config, List<AdviseCandidate> candidates, Link link, double target,
                                double cores, PrintStream log) throws IOException {
        return advise(config, candidates, link, target, cores, 0, Map.of(), log);
    }

    /**
     * As {@link #advise(ExperimentConfig, List, Link, double, double, PrintStream)}, with the user's own evidence:
     * dense's steps to the target ({@code denseSteps} > 0) and candidates' steps as multiples of dense's
     * ({@code penalties}, by id), which take precedence over the committed evidence.
     */
    public static Advice advise(ExperimentConfig config, List<AdviseCandidate> candidates, Link link, double target,
                                double cores, double denseStepsGiven, Map<String, Double> penalties,
                                PrintStream log) throws IOException {
        // the passes run with the threads the run would have; a mismatch fails as the run would, naming the fix
        Nd4jEnvironment.threads(config.model().compute().threads(), 1);
        StepPenalties evidence = StepEvidence.shipped();
        String evidenceKey = StepEvidence.evidenceKey(config);
        Optional<Double> denseSteps = denseStepsGiven > 0 ? Optional.of(denseStepsGiven)
                : evidence.dense(evidenceKey, target).map(StepPenalty::meanDenseSteps);
        List<MethodCandidate> methods = new ArrayList<>();
        for (AdviseCandidate c : candidates) {
            methods.add(given(candidate(c, evidence, evidenceKey, denseSteps, target), penalties));
        }
        Advisor.Builder advisor = Advisor.builder()
                .model(ExperimentRunner.buildModel(config.model(), config.run().seed()))
                .workers(config.training().workers())
                .batchSizePerWorker(config.training().batchSizePerWorker())
                .seed(config.run().seed())
                .compute(config.model().compute().settings())
                .candidates(methods).link(link).target(target).log(log);
        if (!Double.isNaN(cores)) {
            advisor.cores(cores);
        }
        denseSteps.ifPresent(steps -> advisor.denseSteps(steps, denseStepsGiven > 0 ? "given (advise.denseSteps)"
                : "committed evidence"));
        try (DataSource data = ExperimentRunner.trainingData(config.data())) {
            return advisor.data(data).advise();
        }
    }

    /** {@code c}'s config as the library's candidate: its topology, stages, values and overlap; no penalty. */
    public static MethodCandidate method(AdviseCandidate c) {
        ConfiguredMethod method = c.config().method();
        return new MethodCandidate(c.id(), c.label(), method::newTopology, method.stages(),
                c.config().compressor().valueEncoding(), c.config().training().overlapMode(), Optional.empty(),
                MethodCandidate.NO_EVIDENCE);
    }

    /** {@code m} with the user's own penalty for it ({@code advise.penalties}), if there is one. */
    public static MethodCandidate given(MethodCandidate m, Map<String, Double> penalties) {
        Double given = penalties.get(m.id());
        return given == null ? m : m.penalty(given, "given (advise.penalties)");
    }

    private static MethodCandidate candidate(AdviseCandidate c, StepPenalties evidence, String evidenceKey,
                                             Optional<Double> denseSteps, double target) {
        ExperimentConfig config = c.config();
        ConfiguredMethod method = config.method();
        MethodCandidate m = method(c);
        MethodKey key = StepEvidence.methodKey(config);
        if (key.isDense()) {
            return m.penalty(1.0, Advisor.DENSE_MATH);
        }
        if (denseSteps.isPresent() && denseSteps.get() <= method.stages().fullIterations()
                && config.warmup().section().isDefault() && m.values() == ValueEncoding.FP32) {
            return m.penalty(1.0, "the target comes inside its dense warm-up");
        }
        Optional<StepPenalty> row = evidence.find(evidenceKey, key, target);
        if (row.isEmpty()) {
            return m;
        }
        OptionalDouble p = row.get().penalty();
        int seeds = row.get().seeds().size();
        return p.isPresent() ? m.penalty(p.getAsDouble(), "evidence, " + seeds + " seed" + (seeds == 1 ? "" : "s"))
                : new MethodCandidate(m.id(), m.label(), m.topology(), m.stages(), m.values(), m.overlap(),
                Optional.empty(), "it missed the target on some seed of the evidence");
    }
}
