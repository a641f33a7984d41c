package io.lgc4j.cli;

import io.lgc4j.advise.Advice;
import io.lgc4j.advise.Link;
import io.lgc4j.advise.config.AdviseCandidate;
import io.lgc4j.advise.config.AdviseCandidates;
import io.lgc4j.advise.config.AutoMethod;
import io.lgc4j.advise.config.ConfigAdvisor;
import io.lgc4j.runner.config.ConfigException;
import io.lgc4j.runner.config.ConfigLoader;
import io.lgc4j.runner.config.ExperimentConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;

/**
 * {@code lgc advise CONFIG --rate-mbit R --hop-ms H}: which method trains the config's model fastest to the target
 * accuracy on a link of that rate, from this process's measurements of the model and of every candidate's exchange.
 * The link is given here; {@code compressor: auto} probes it on the run's own processes
 * ({@link io.lgc4j.advise.config.AutoRun}). A config of {@code compressor: auto} brings its candidates.
 */
@Command(name = "advise", mixinStandardHelpOptions = true,
        description = "Predict each candidate method's step time and time to the target accuracy on a link of the"
                + " given rate and leg cost, from the config's model measured here and every candidate's own exchange"
                + " dry-run on its gradients; print the table and write advice.csv.")
final class AdviseCommand implements Callable<Integer> {

    @Parameters(index = "0", paramLabel = "CONFIG", description = "the run's config (its model, data, workers, batch)")
    private Path config;

    @Option(names = "--rate-mbit", paramLabel = "R",
            description = "the link rate each process has, Mbit/s (the slowest link)")
    private Double rateMbit;

    @Option(names = "--hop-ms", paramLabel = "H",
            description = "the loaded cost of one leg of a step's critical chain, ms: 3-10 ms measured at 0.4 cores"
                    + " per process on this project's test VM (docs/results/time-to-accuracy/routes/), 0.05 ms idle")
    private Double hopMs;

    @Option(names = "--straggler-ms", paramLabel = "S", defaultValue = "0",
            description = "the slowest rank's pass minus the mean, ms a step (default 0)")
    private double stragglerMs;

    @Option(names = "--ps-overlap", paramLabel = "X", defaultValue = "0",
            description = "fraction of a parameter server's shorter direction that overlaps the longer (default 0)")
    private double psOverlap;

    @Option(names = "--cores", paramLabel = "C",
            description = "cores each process of the run will have (default: this process's)")
    private Double cores;

    @Option(names = "--target", paramLabel = "ACC", defaultValue = "0.80",
            description = "test accuracy to reach, a fraction (default 0.80)")
    private double target;

    @Option(names = "--candidates", paramLabel = "FILE",
            description = "the methods to compare (default: the shipped list, " + AdviseCandidates.DEFAULT_RESOURCE
                    + ")")
    private Path candidates;

    @Option(names = "--output", paramLabel = "FILE", description = "where advice.csv goes (default: none written)")
    private Path output;

    @Override
    public Integer call() {
        if (!(target > 0 && target <= 1)) {
            return bad("--target must be a fraction in (0, 1], found " + target);
        }
        if (cores != null && !(cores > 0)) {
            return bad("--cores must be > 0, found " + cores);
        }
        if (rateMbit == null || hopMs == null) {
            return bad("give the link: --rate-mbit R --hop-ms H (e.g. 100 and 5); or measure it on your own processes"
                    + " with lgc launch CONFIG --advise-only [--nproc K, --netns-rate, --cpu-share], CONFIG a config"
                    + " of compressor: auto");
        }
        Link link;
        try {
            link = new Link(rateMbit, hopMs, stragglerMs, psOverlap, "given");
        } catch (IllegalArgumentException e) {
            return bad(e.getMessage());
        }
        ExperimentConfig cfg;
        List<AdviseCandidate> list;
        Optional<AutoMethod> auto;
        try {
            // a config of compressor: auto brings its own candidates (advise.candidates); --candidates overrides them
            auto = AutoMethod.read(config);
            cfg = auto.isPresent() ? auto.get().base() : ConfigLoader.load(config);
            list = candidates != null ? AdviseCandidates.load(candidates, cfg)
                    : auto.isPresent() ? auto.get().candidates() : AdviseCandidates.defaults(cfg);
        } catch (ConfigException e) {
            return bad(e.getMessage());
        }
        Advice advice;
        try {
            // the auto config's own evidence (advise.denseSteps, advise.penalties) goes with its own candidates
            boolean own = auto.isPresent() && candidates == null;
            advice = ConfigAdvisor.advise(cfg, list, link, target, cores == null ? Double.NaN : cores,
                    own ? auto.get().denseSteps() : 0, own ? auto.get().penalties() : Map.of(), System.err);
        } catch (IllegalStateException e) {
            return bad(e.getMessage());
        } catch (IOException e) {
            System.err.println("lgc advise: " + e.getMessage());
            return 1;
        }
        System.out.print(advice.table());
        if (output != null) {
            try {
                Files.writeString(output, advice.csv(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                System.err.println("lgc advise: cannot write " + output + ": " + e.getMessage());
                return 1;
            }
            System.out.println("written: " + output);
        }
        return 0;
    }

    private static int bad(String message) {
        System.err.println("lgc advise: " + message);
        return 2;
    }
}
