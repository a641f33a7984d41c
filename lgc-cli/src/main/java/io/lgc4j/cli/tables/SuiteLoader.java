package io.lgc4j.cli.tables;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.lgc4j.runner.config.ConfigException;
import io.lgc4j.runner.config.ConfigLoader;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Reads a suite file ({@code configs/tables/*.yaml}; every key in {@code docs/architecture/runner.md}) and checks all
 * of it, every merged config of both profiles included, before anything trains:
 *
 * <pre>{@code
 * suite: compression
 * title: Table VI analog
 * models: [small-cnn, small-resnet]
 * seeds: [42, 43, 44]
 * base: {training: {workers: 4}}
 * quick: {training: {maxSteps: 60}}
 * methods:
 *   - {id: dgc, label: DGC, config: {compressor: {type: dgc}, model: {updater: {type: sgd}}}}
 * }</pre>
 *
 * Errors are {@link ConfigException}s starting with the file, then the method, model and profile where one applies:
 * {@code configs/tables/x.yaml (method 'dgc', model small-cnn, quick profile): key 'compressor.type' expects ...}.
 */
public final class SuiteLoader {

    private static final Pattern ID = Pattern.compile("[a-z0-9][a-z0-9-]*");
    private static final List<String> TRAINED_KEYS = List.of("base", "diagnosticSeeds", "methods", "models", "quick",
            "seeds", "suite", "title");
    private static final List<String> ANALYSIS_KEYS = List.of("analysis", "base", "models", "quick", "suite",
            "title");
    private static final List<String> TIME_TO_ACCURACY_KEYS = List.of("base", "methods", "models", "network",
            "peers", "quick", "seeds", "suite", "title");
    private static final List<String> METHOD_KEYS = List.of("config", "id", "label", "quick");
    private static final List<String> PLACED_METHOD_KEYS = List.of("colocate", "config", "id", "label", "quick");
    private static final List<String> SETTINGS_KEYS = List.of("bins", "every", "quick", "rankA", "rankB", "steps");

    private SuiteLoader() {
    }

    /**
     * Reads {@code file}, which must be a suite for {@code expected}.
     *
     * @throws ConfigException if the file is missing, malformed, for another command, or any merged config of
     *                         either profile is invalid; the message starts with the file
     */
    public static Suite load(Path file, SuiteKind expected) {
        String source = file.toString();
        String yaml;
        try {
            ConfigLoader.checkFileSize(file, source);
            yaml = Files.readString(file, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            throw ConfigException.forSource(source, "suite file not found", e);
        } catch (IOException e) {
            throw ConfigException.forSource(source, "cannot read suite file: " + e.getMessage(), e);
        }
        return parse(yaml, file, expected);
    }

    /** As {@link #load}, for text already read; {@code file} names it in messages. */
    public static Suite parse(String yaml, Path file, SuiteKind expected) {
        String source = file.toString();
        JsonNode tree = ConfigLoader.readYamlTree(yaml, source);
        if (tree == null || !tree.isObject()) {
            throw ConfigException.forSource(source, "a suite is a mapping with keys "
                    + String.join(", ", expected.trainsMethods() ? TRAINED_KEYS : ANALYSIS_KEYS) + ", found "
                    + (tree == null || tree.isMissingNode() || tree.isNull() ? "an empty file" : "a "
                    + tree.getNodeType().toString().toLowerCase(Locale.ROOT)), null);
        }
        List<String> allowed = expected == SuiteKind.TIME_TO_ACCURACY ? TIME_TO_ACCURACY_KEYS
                : expected.trainsMethods() ? TRAINED_KEYS : ANALYSIS_KEYS;
        checkKeys(tree, allowed, "", source);
        String kindName = text(tree, "suite", source);
        SuiteKind kind = SuiteKind.bySpelling(kindName);
        if (kind == null) {
            throw key(source, "suite", "expects one of " + kinds() + ", found \"" + kindName + "\"");
        }
        if (kind != expected) {
            throw key(source, "suite", "is \"" + kind + "\": this file is for '" + kind.command() + "', not '"
                    + expected + "'");
        }
        String title = tree.has("title") ? text(tree, "title", source) : kind.spelling();
        List<String> models = models(tree, source);
        ObjectNode base = mapping(tree, "base", source);
        ObjectNode quick = mapping(tree, "quick", source);
        List<Suite.Method> methods = new ArrayList<>();
        MutualInformationSettings full = null;
        MutualInformationSettings quickSettings = null;
        TimeToAccuracySettings timeToAccuracy = null;
        if (kind.trainsMethods()) {
            methods = methods(tree, source, kind == SuiteKind.TIME_TO_ACCURACY ? PLACED_METHOD_KEYS : METHOD_KEYS);
            if (kind == SuiteKind.TIME_TO_ACCURACY) {
                timeToAccuracy = TimeToAccuracySettings.parse(tree.get("network"), tree.get("peers"), source);
            }
        } else {
            JsonNode analysis = tree.get("analysis");
            if (analysis == null || !analysis.isObject()) {
                throw key(source, "analysis", analysis == null ? "is required" : "expects a mapping");
            }
            checkKeys(analysis, SETTINGS_KEYS, "analysis.", source);
            ObjectNode merged = ((ObjectNode) analysis).deepCopy();
            merged.remove("quick");
            full = settings(merged, "analysis", source);
            Suite.merge(merged, mapping(analysis, "quick", source, "analysis.quick"));
            checkKeys(merged, SETTINGS_KEYS, "analysis.quick.", source);
            quickSettings = settings(merged, "analysis.quick", source);
        }
        List<Long> seeds = kind.trainsMethods() ? seeds(tree, source) : List.of();
        List<Long> diagnosticSeeds = diagnosticSeeds(tree, seeds, kind, source);
        Suite suite = new Suite(file, kind, title, models, base, quick, methods, seeds, diagnosticSeeds, full,
                quickSettings, timeToAccuracy);
        for (Suite.Profile profile : Suite.Profile.values()) {
            if (kind.trainsMethods()) {
                suite.plan(profile);
            } else {
                for (String model : models) {
                    var config = suite.analysisConfig(profile, model);
                    MutualInformationSettings s = suite.analysis(profile);
                    int k = config.training().workers();
                    if (k < 2 || s.rankA() >= k || s.rankB() >= k) {
                        throw key(source, "analysis.rankA", "and rankB must be ranks of training.workers = " + k
                                + " (which must be >= 2), found " + s.rankA() + " and " + s.rankB());
                    }
                }
            }
        }
        return suite;
    }

    private static List<Suite.Method> methods(JsonNode tree, String source, List<String> methodKeys) {
        JsonNode list = tree.get("methods");
        if (list == null || !list.isArray() || list.isEmpty()) {
            throw key(source, "methods", list == null ? "is required: a list of {id, label, config}"
                    : "expects a non-empty list of {id, label, config}");
        }
        List<Suite.Method> methods = new ArrayList<>();
        Set<String> ids = new HashSet<>();
        for (int i = 0; i < list.size(); i++) {
            JsonNode m = list.get(i);
            String at = "methods[" + i + "]";
            if (!m.isObject()) {
                throw key(source, at, "expects a mapping with keys " + String.join(", ", methodKeys));
            }
            checkKeys(m, methodKeys, at + ".", source);
            String id = text(m, "id", source, at + ".id");
            if (!ID.matcher(id).matches()) {
                throw key(source, at + ".id", "must match [a-z0-9][a-z0-9-]*, found \"" + id + "\"");
            }
            if (!ids.add(id)) {
                throw key(source, at + ".id", "repeats \"" + id + "\"; method ids must be unique");
            }
            String label = m.has("label") ? text(m, "label", source, at + ".label") : id;
            ObjectNode config = mapping(m, "config", source, at + ".config");
            if (config.has("run") && config.get("run").has("name") || config.has("model")
                    && config.get("model").has("name")) {
                throw key(source, at + ".config", "must not set run.name or model.name: the suite names each run"
                        + " <method>-<model> and takes the models from 'models'");
            }
            JsonNode colocate = m.get("colocate");
            if (colocate != null && !colocate.isBoolean()) {
                throw key(source, at + ".colocate", "expects true or false, found " + colocate);
            }
            methods.add(new Suite.Method(id, label, config, mapping(m, "quick", source, at + ".quick"),
                    colocate != null && colocate.asBoolean()));
        }
        return methods;
    }

    private static List<Long> diagnosticSeeds(JsonNode tree, List<Long> seeds, SuiteKind kind, String source) {
        JsonNode list = tree.get("diagnosticSeeds");
        if (list == null) {
            return List.of();
        }
        if (kind != SuiteKind.COMPRESSION) {
            throw key(source, "diagnosticSeeds", "is for compression suites (their tables show the diagnostic mode's"
                    + " columns), not " + kind.spelling());
        }
        if (seeds.isEmpty()) {
            throw key(source, "diagnosticSeeds", "needs 'seeds': it names which of them train in the diagnostic"
                    + " mode, e.g. seeds: [1, 2, 3] with diagnosticSeeds: [1]");
        }
        if (!list.isArray() || list.isEmpty()) {
            throw key(source, "diagnosticSeeds", "expects a non-empty list of seeds from 'seeds' " + seeds
                    + ", e.g. [" + seeds.get(0) + "]");
        }
        List<Long> diagnostic = new ArrayList<>();
        for (int i = 0; i < list.size(); i++) {
            JsonNode s = list.get(i);
            if (!s.isIntegralNumber() || !s.canConvertToLong() || !seeds.contains(s.asLong())) {
                throw key(source, "diagnosticSeeds[" + i + "]", "expects one of the seeds " + seeds + ", found " + s);
            }
            if (diagnostic.contains(s.asLong())) {
                throw key(source, "diagnosticSeeds[" + i + "]", "repeats " + s.asLong()
                        + "; diagnostic seeds must be unique");
            }
            diagnostic.add(s.asLong());
        }
        return diagnostic;
    }

    private static List<Long> seeds(JsonNode tree, String source) {
        JsonNode list = tree.get("seeds");
        if (list == null) {
            return List.of();
        }
        if (!list.isArray() || list.isEmpty()) {
            throw key(source, "seeds", "expects a non-empty list of seeds (integers >= 0), e.g. [42, 43, 44]");
        }
        List<Long> seeds = new ArrayList<>();
        for (int i = 0; i < list.size(); i++) {
            JsonNode s = list.get(i);
            if (!s.isIntegralNumber() || !s.canConvertToLong() || s.asLong() < 0) {
                throw key(source, "seeds[" + i + "]", "expects an integer >= 0, found " + s);
            }
            if (seeds.contains(s.asLong())) {
                throw key(source, "seeds[" + i + "]", "repeats " + s.asLong() + "; seeds must be unique");
            }
            seeds.add(s.asLong());
        }
        return seeds;
    }

    private static List<String> models(JsonNode tree, String source) {
        JsonNode list = tree.get("models");
        if (list == null) {
            return List.of("small-cnn");
        }
        if (!list.isArray() || list.isEmpty()) {
            throw key(source, "models", "expects a non-empty list of model names, e.g. [small-cnn, small-resnet]");
        }
        List<String> models = new ArrayList<>();
        for (int i = 0; i < list.size(); i++) {
            if (!list.get(i).isTextual()) {
                throw key(source, "models[" + i + "]", "expects a model name, e.g. small-cnn");
            }
            if (models.contains(list.get(i).asText())) {
                throw key(source, "models[" + i + "]", "repeats \"" + list.get(i).asText() + "\"");
            }
            models.add(list.get(i).asText());
        }
        return models;
    }

    private static MutualInformationSettings settings(JsonNode node, String at, String source) {
        int steps = positive(node, "steps", at, source);
        int every = positive(node, "every", at, source);
        int rankA = node.has("rankA") ? nonNegative(node, "rankA", at, source) : 0;
        int rankB = node.has("rankB") ? nonNegative(node, "rankB", at, source) : 1;
        if (rankA == rankB) {
            throw key(source, at + ".rankB", "must differ from rankA (" + rankA + "): the MI of a gradient with"
                    + " itself is its entropy");
        }
        JsonNode list = node.get("bins");
        if (list == null || !list.isArray() || list.isEmpty()) {
            throw key(source, at + ".bins", "expects a non-empty list of level counts >= 2 or float32, e.g."
                    + " [64, 256, float32]");
        }
        List<Integer> bins = new ArrayList<>();
        for (JsonNode b : list) {
            if (b.isTextual() && b.asText().equals("float32")) {
                bins.add(MutualInformationSettings.FLOAT32);
            } else if (b.canConvertToInt() && b.isIntegralNumber() && b.asInt() >= 2) {
                bins.add(b.asInt());
            } else {
                throw key(source, at + ".bins", "expects level counts >= 2 or float32, found " + b);
            }
        }
        return new MutualInformationSettings(steps, every, rankA, rankB, bins);
    }

    private static int positive(JsonNode node, String name, String at, String source) {
        JsonNode v = node.get(name);
        if (v == null || !v.isIntegralNumber() || !v.canConvertToInt() || v.asInt() < 1) {
            throw key(source, at + "." + name, v == null ? "is required (an integer >= 1)"
                    : "expects an integer >= 1, found " + v);
        }
        return v.asInt();
    }

    private static int nonNegative(JsonNode node, String name, String at, String source) {
        JsonNode v = node.get(name);
        if (!v.isIntegralNumber() || !v.canConvertToInt() || v.asInt() < 0) {
            throw key(source, at + "." + name, "expects an integer >= 0, found " + v);
        }
        return v.asInt();
    }

    private static void checkKeys(JsonNode node, List<String> allowed, String prefix, String source) {
        Iterator<String> names = node.fieldNames();
        while (names.hasNext()) {
            String name = names.next();
            if (!allowed.contains(name)) {
                String where = prefix.isEmpty() ? "at the top level"
                        : "under '" + prefix.substring(0, prefix.length() - 1) + "'";
                throw ConfigException.forSource(source, "unknown key '" + prefix + name + "'; allowed keys " + where
                        + ": " + String.join(", ", allowed), null);
            }
        }
    }

    private static String text(JsonNode node, String name, String source) {
        return text(node, name, source, name);
    }

    private static String text(JsonNode node, String name, String source, String path) {
        JsonNode v = node.get(name);
        if (v == null) {
            throw key(source, path, "is required");
        }
        if (!v.isTextual() || v.asText().isBlank()) {
            throw key(source, path, "expects text, found " + v);
        }
        return v.asText();
    }

    private static ObjectNode mapping(JsonNode node, String name, String source) {
        return mapping(node, name, source, name);
    }

    private static ObjectNode mapping(JsonNode node, String name, String source, String path) {
        JsonNode v = node.get(name);
        if (v == null || v.isNull()) {
            return Suite.MAPPER.createObjectNode();
        }
        if (!(v instanceof ObjectNode o)) {
            throw key(source, path, "expects a mapping of config keys, found " + v);
        }
        return o;
    }

    private static ConfigException key(String source, String path, String problem) {
        return ConfigException.forKey(path, problem).inSource(source);
    }

    private static String kinds() {
        List<String> names = new ArrayList<>();
        for (SuiteKind k : SuiteKind.values()) {
            names.add(k.spelling());
        }
        return names.toString();
    }
}
