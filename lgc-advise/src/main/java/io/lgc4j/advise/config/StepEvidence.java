package io.lgc4j.advise.config;

import io.lgc4j.advise.MethodKey;
import io.lgc4j.advise.StepPenalties;
import io.lgc4j.runner.ConfigKeys;
import io.lgc4j.runner.RunSummary;
import io.lgc4j.runner.config.ConfiguredMethod;
import io.lgc4j.runner.config.DatasetName;
import io.lgc4j.runner.config.ExperimentConfig;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;

/**
 * The keys under which a config's run counts as evidence of steps to a target ({@code io.lgc4j.advise}), and
 * the evidence this build ships ({@link #RESOURCE}, generated from the committed results by {@code lgc evidence
 * step-penalties}).
 *
 * <pre>{@code
 * ExperimentConfig config = ConfigLoader.load(Path.of("configs/tables/time-to-accuracy-41.yaml ... scalecom"));
 * StepEvidence.shipped().find(StepEvidence.evidenceKey(config), StepEvidence.methodKey(config), 0.80);
 * }</pre>
 */
public final class StepEvidence {

    /** The class-path resource of the shipped evidence. */
    public static final String RESOURCE = "/io/lgc4j/runner/step-penalties.csv";

    /**
     * Keys that do not change what dense training computes per step: where a run is, what runs it, how long, how
     * often it evaluates (which only rounds the step a target is seen at: the generator keeps the finest), and the
     * method's own sections (the {@link MethodKey}'s part).
     */
    private static final List<String> NOT_EVIDENCE = List.of("run.", "runtime.", "topology.", "compressor.",
            "stages.", "warmup.", "autoencoder.", "model.compute.", "training.trace.", "training.overlap",
            "training.bucketBytes", "training.epochs", "training.maxSteps", "training.diagnostics",
            "training.checkpointEverySteps", "training.evalEverySteps", "data.source", "data.prefetch", "data.check",
            "data.path", "data.testPath");

    private StepEvidence() {
    }

    /**
     * What dense training's steps to a target depend on: every resolved key of {@code config} but the run's place and
     * length, its runtime, its evaluation interval, its compute settings and its method, as {@code key=value} joined
     * by {@code ;} in key order.
     * The data's paths (training and test) count only for a CSV data set (a named one is the same data wherever it
     * is stored); how much of it is checked before step 0 never counts.
     */
    public static String evidenceKey(ExperimentConfig config) {
        SortedMap<String, String> flat = ConfigKeys.flatten(config);
        StringBuilder key = new StringBuilder();
        for (Map.Entry<String, String> e : flat.entrySet()) {
            boolean csvPath = (e.getKey().equals("data.path") || e.getKey().equals("data.testPath"))
                    && config.data().dataset() == DatasetName.CSV;
            if (csvPath || NOT_EVIDENCE.stream().noneMatch(e.getKey()::startsWith)) {
                key.append(key.isEmpty() ? "" : ";").append(e.getKey()).append('=').append(e.getValue());
            }
        }
        return key.toString();
    }

    /** The method {@code config} names, as {@code summary.json} records it, with its schedule and overlap mode. */
    public static MethodKey methodKey(ExperimentConfig config) {
        ConfiguredMethod method = config.method();
        var described = method.newTopology().describe().withValues(config.compressor().valueEncoding());
        return MethodKey.of(RunSummary.method(config, described), method.stages(), config.training().overlapMode());
    }

    /** The evidence this build ships. */
    public static StepPenalties shipped() {
        try (InputStream in = StepEvidence.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("the class path has no " + RESOURCE + ": a broken build");
            }
            return StepPenalties.parse(new String(in.readAllBytes(), StandardCharsets.UTF_8), RESOURCE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + RESOURCE + ": " + e.getMessage(), e);
        }
    }
}
