package io.lgc4j.cli.tables;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.lgc4j.runner.config.ConfigException;
import io.lgc4j.runner.config.ConfigLoader;
import io.lgc4j.runner.config.ExperimentConfig;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A table's or figure's suite, as read by {@link SuiteLoader}: which models, which methods, and the experiment config
 * each (method, model[, seed]) run trains with, in the full and the {@code --quick} profile: {@code base}, the suite's
 * {@code quick}, the method's {@code config} and its {@code quick} merged key by key, checked by {@link ConfigLoader}
 * (the order and run names: {@code docs/architecture/runner.md}).
 *
 * @param file     where the suite was read from
 * @param kind     the command it feeds
 * @param title    a one-line title for table.md
 * @param models   model names, in table order
 * @param base     the config every method starts from
 * @param quick    what {@code --quick} changes in every method
 * @param methods  the methods, in table order (empty for the mutual-information figure)
 * @param seeds    the seeds every (method, model) pair runs with, in order; empty: once, with its own {@code run.seed}
 * @param diagnosticSeeds the seeds (of {@code seeds}) whose runs set {@code training.diagnostics: true}, or none
 * @param analysis      the mutual-information settings (null for the other kinds)
 * @param quickAnalysis the same under {@code --quick} (null for the other kinds)
 * @param timeToAccuracy the links, CPU shares, target and peers of {@code lgc table time-to-accuracy}, else null
 */
public record Suite(Path file, SuiteKind kind, String title, List<String> models, ObjectNode base, ObjectNode quick,
                    List<Method> methods, List<Long> seeds, List<Long> diagnosticSeeds,
                    MutualInformationSettings analysis,
                    MutualInformationSettings quickAnalysis, TimeToAccuracySettings timeToAccuracy) {

    /** Which budget to run. */
    public enum Profile {
        /** The full budget (the paper's schedule at this machine's scale). */
        FULL,
        /** Minutes per suite: fewer steps and test images. */
        QUICK
    }

    /**
     * One method of the suite.
     *
     * @param id     short name: the run directory and the CSV's key ([a-z0-9-]+)
     * @param label  how tables and legends show it
     * @param config what it changes in the base config
     * @param quick  what it changes further under {@code --quick} (may be empty)
     * @param colocate {@code lgc launch --colocate}: parameter-server shard s in worker s's process (time to accuracy)
     */
    public record Method(String id, String label, ObjectNode config, ObjectNode quick, boolean colocate) {
        /** A method whose processes are placed as {@code lgc launch} places them by default. */
        public Method(String id, String label, ObjectNode config, ObjectNode quick) {
            this(id, label, config, quick, false);
        }
    }

    /**
     * One (method, model, seed) run with its checked config.
     *
     * @param methodId the method's id
     * @param label    the method's label
     * @param model    the model name
     * @param seeded   whether the suite lists seeds (the key then names the seed)
     * @param config   the config it trains with (its {@code run.seed} is the run's seed)
     */
    public record PlannedRun(String methodId, String label, String model, boolean seeded, ExperimentConfig config) {
        /** {@code <method>-<model>}, or {@code <method>-<model>-s<seed>}: the run directory and {@code run.name}. */
        public String key() {
            return Suite.key(methodId, model, seeded ? config.run().seed() : null);
        }

        /** The run's seed. */
        public long seed() {
            return config.run().seed();
        }

        /** {@code <method>-<model>}: what the runs of every seed of this pair share. */
        public String pair() {
            return methodId + "-" + model;
        }
    }

    /** Creates the suite; the lists are copied. */
    public Suite {
        models = List.copyOf(models);
        methods = List.copyOf(methods);
        seeds = List.copyOf(seeds);
        diagnosticSeeds = List.copyOf(diagnosticSeeds);
    }

    /**
     * This suite with {@code seeds} instead of its own (a command line's {@code --seeds}); of its diagnostic seeds,
     * those among {@code seeds} stay diagnostic.
     */
    public Suite withSeeds(List<Long> seeds) {
        return new Suite(file, kind, title, models, base, quick, methods, seeds, diagnosticSeeds, analysis,
                quickAnalysis, timeToAccuracy);
    }

    /** The method with id {@code id}. */
    public Method method(String id) {
        return methods.stream().filter(m -> m.id().equals(id)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no method '" + id + "' in " + file));
    }

    /**
     * Every (method, model, seed) run of {@code profile}: models outermost, then methods, then seeds, each config
     * checked.
     *
     * @throws ConfigException naming the suite file, the method and the model, if a merged config is invalid
     */
    public List<PlannedRun> plan(Profile profile) {
        List<PlannedRun> runs = new ArrayList<>();
        for (String model : models) {
            for (Method m : methods) {
                if (seeds.isEmpty()) {
                    runs.add(new PlannedRun(m.id(), m.label(), model, false, configFor(profile, m, model, null)));
                }
                for (Long seed : seeds) {
                    runs.add(new PlannedRun(m.id(), m.label(), model, true, configFor(profile, m, model, seed)));
                }
            }
        }
        return runs;
    }

    private static String key(String methodId, String model, Long seed) {
        return methodId + "-" + model + (seed == null ? "" : "-s" + seed);
    }

    /**
     * The config of the mutual-information analysis for {@code model}: {@code base} with {@code quick} merged under
     * the quick profile (the analysis trains no method).
     */
    public ExperimentConfig analysisConfig(Profile profile, String model) {
        return configFor(profile, new Method("analysis", "analysis", MAPPER.createObjectNode(),
                MAPPER.createObjectNode()), model, null);
    }

    /** The mutual-information settings of {@code profile}. */
    public MutualInformationSettings analysis(Profile profile) {
        return profile == Profile.QUICK ? quickAnalysis : analysis;
    }

    private ExperimentConfig configFor(Profile profile, Method method, String model, Long seed) {
        ObjectNode merged = base.deepCopy();
        if (profile == Profile.QUICK) {
            merge(merged, quick);
        }
        merge(merged, method.config());
        if (profile == Profile.QUICK) {
            merge(merged, method.quick());
        }
        merged.withObject("/run").put("name", key(method.id(), model, seed));
        if (seed != null) {
            merged.withObject("/run").put("seed", seed);
            if (diagnosticSeeds.contains(seed)) {
                merged.withObject("/training").put("diagnostics", true);
            }
        }
        merged.withObject("/model").put("name", model);
        String source = file + " (method '" + method.id() + "', model " + model + (seed == null ? "" : ", seed "
                + seed) + ", " + profile.name().toLowerCase(Locale.ROOT) + " profile)";
        String yaml;
        try {
            yaml = MAPPER.writeValueAsString(merged);
        } catch (JsonProcessingException e) {
            throw ConfigException.forSource(source, "cannot write the merged config: " + e.getMessage(), e);
        }
        return ConfigLoader.parse(yaml, source);
    }

    /** Merges {@code over} into {@code into}: {@link ConfigLoader#merge}. */
    static void merge(ObjectNode into, ObjectNode over) {
        ConfigLoader.merge(into, over);
    }

    static final YAMLMapper MAPPER = new YAMLMapper();
}
