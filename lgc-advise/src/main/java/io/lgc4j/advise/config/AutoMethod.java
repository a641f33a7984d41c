package io.lgc4j.advise.config;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.lgc4j.runner.config.ConfigException;
import io.lgc4j.runner.config.ConfigLoader;
import io.lgc4j.runner.config.ExperimentConfig;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.UnaryOperator;

/**
 * A config whose method is {@code compressor: auto} (or {@code {type: auto}}): the run trains the candidate the
 * advisor predicts fastest to the target ({@link AutoRun}); an optional {@code advise} section (every key:
 * {@code docs/architecture/runner.md}) says among what and to what target, e.g.
 * {@code advise: {candidates: default, target: 0.80, penalties: {fp16: 1.0}}}. Each candidate replaces the method
 * keys; model, data, workers, batch, seed and runtime stay as written.
 *
 * <pre>{@code
 * Optional<AutoMethod> auto = AutoMethod.read(Path.of("my-auto.yaml"));   // empty: the config names its method
 * }</pre>
 *
 * @param base       the config without its method (its {@code compressor} at the default), what candidates start from
 * @param candidates the methods to choose among
 * @param target     the test accuracy
 * @param source     where the candidates come from ({@code default} or the file)
 * @param denseSteps dense's steps to the target as the user gives them; 0: unknown (the evidence decides)
 * @param penalties  the user's steps to the target of candidates, as multiples of dense's, by candidate id
 */
public record AutoMethod(ExperimentConfig base, List<AdviseCandidate> candidates, double target, String source,
                         double denseSteps, Map<String, Double> penalties) {

    /** The {@code compressor.type} that asks for a choice. */
    public static final String AUTO = "auto";
    /** The section's keys. */
    static final List<String> ADVISE_KEYS = List.of("candidates", "target", "denseSteps", "penalties");

    private static final YAMLMapper YAML = new YAMLMapper();

    /** Copies the candidates and penalties; every penalty names a candidate. */
    public AutoMethod {
        candidates = List.copyOf(candidates);
        penalties = Map.copyOf(new TreeMap<>(penalties));
        if (candidates.isEmpty()) {
            throw new IllegalArgumentException("an auto method needs a candidate");
        }
        List<String> ids = candidates.stream().map(AdviseCandidate::id).toList();
        for (Map.Entry<String, Double> p : penalties.entrySet()) {
            if (!ids.contains(p.getKey())) {
                throw new IllegalArgumentException("advise.penalties." + p.getKey() + ": no candidate '" + p.getKey()
                        + "' among " + ids);
            }
            if (!(p.getValue() > 0) || p.getValue().isInfinite()) {
                throw new IllegalArgumentException("advise.penalties." + p.getKey() + ": a candidate's steps to the"
                        + " target as a multiple of dense's, > 0, found " + p.getValue());
            }
        }
        if (!(denseSteps >= 0) || Double.isInfinite(denseSteps)) {
            throw new IllegalArgumentException("advise.denseSteps: dense's steps to the target, > 0 (0: from the"
                    + " evidence), found " + denseSteps);
        }
    }

    /** An auto method without the user's own evidence. */
    public AutoMethod(ExperimentConfig base, List<AdviseCandidate> candidates, double target, String source) {
        this(base, candidates, target, source, 0, Map.of());
    }

    /**
     * Reads {@code file}: the auto method it asks for, or empty when it names its method or cannot be read (then
     * {@link ConfigLoader} reads it, or says why it cannot).
     *
     * @throws ConfigException naming the file and the key that is wrong
     */
    public static Optional<AutoMethod> read(Path file) {
        String yaml;
        try {
            ConfigLoader.checkFileSize(file, file.toString());
            yaml = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException | ConfigException e) {
            return Optional.empty(); // the loader says what is wrong with the file, as for any config
        }
        Path dir = file.toAbsolutePath().getParent();
        return parse(yaml, file.toString(), dir == null ? Path.of(".") : dir);
    }

    /**
     * As {@link #read}, for YAML text; a relative {@code advise.candidates} file is read from {@code dir}.
     *
     * @throws ConfigException naming {@code source} and the key that is wrong
     */
    public static Optional<AutoMethod> parse(String yaml, String source, Path dir) {
        JsonNode root = ConfigLoader.readYamlTree(yaml, source);
        if (!(root instanceof ObjectNode tree)) {
            return Optional.empty(); // the loader words what is wrong with it
        }
        JsonNode compressor = tree.get("compressor");
        boolean auto = compressor != null && (compressor.isTextual() && compressor.asText().equals(AUTO)
                || compressor.path("type").asText("").equals(AUTO));
        JsonNode advise = tree.get("advise");
        if (!auto) {
            if (advise != null) {
                throw ConfigException.forSource(source, "advise: applies with compressor: auto only (it says among"
                        + " what the run chooses its method); remove it, or write compressor: auto", null);
            }
            return Optional.empty();
        }
        if (compressor instanceof ObjectNode section && section.size() > 1) {
            String other = firstOther(section);
            throw ConfigException.forSource(source, "compressor." + other + ": compressor: auto takes no other key;"
                    + " each candidate sets its own method (advise.candidates)", null);
        }
        AdviseKeys keys = AdviseKeys.read(advise, source);
        tree.remove("advise");
        tree.remove("compressor");
        ExperimentConfig base;
        try {
            base = ConfigLoader.parse(YAML.writeValueAsString(tree), source);
        } catch (JsonProcessingException e) {
            throw ConfigException.forSource(source, "cannot write the config back: " + e.getMessage(), e);
        }
        List<AdviseCandidate> list = keys.candidates().equals("default") ? AdviseCandidates.defaults(base)
                : AdviseCandidates.load(dir.resolve(keys.candidates()), base);
        for (AdviseCandidate c : list) {
            try {
                c.config().method().newTopology();
            } catch (RuntimeException e) {
                throw ConfigException.forSource(source, "advise.candidates '" + c.id() + "': " + e.getMessage(), e);
            }
        }
        try {
            return Optional.of(new AutoMethod(base, list, keys.target(), keys.candidates(), keys.denseSteps(),
                    keys.penalties()));
        } catch (IllegalArgumentException e) {
            throw ConfigException.forSource(source, e.getMessage(), e);
        }
    }

    /** The {@code advise} section's keys, each checked; the defaults where the section or a key is absent. */
    private record AdviseKeys(String candidates, double target, double denseSteps, Map<String, Double> penalties) {

        static AdviseKeys read(JsonNode advise, String source) {
            String candidates = "default";
            double target = 0.80;
            double denseSteps = 0;
            Map<String, Double> penalties = new TreeMap<>();
            if (advise != null && !advise.isNull()) {
                if (!(advise instanceof ObjectNode section)) {
                    throw ConfigException.forSource(source, "advise: expected a mapping with " + String.join(", ",
                            ADVISE_KEYS) + ", found " + advise, null);
                }
                for (Iterator<String> it = section.fieldNames(); it.hasNext(); ) {
                    String key = it.next();
                    if (!ADVISE_KEYS.contains(key)) {
                        throw ConfigException.forSource(source, "advise." + key + ": unknown key; allowed: "
                                + String.join(", ", ADVISE_KEYS), null);
                    }
                }
                if (section.has("candidates")) {
                    if (!section.get("candidates").isTextual() || section.get("candidates").asText().isBlank()) {
                        throw ConfigException.forSource(source, "advise.candidates: expected default or a file, found "
                                + section.get("candidates"), null);
                    }
                    candidates = section.get("candidates").asText();
                }
                if (section.has("target")) {
                    JsonNode t = section.get("target");
                    if (!t.isNumber() || !(t.asDouble() > 0 && t.asDouble() <= 1)) {
                        throw ConfigException.forSource(source, "advise.target: expected a test accuracy in (0, 1],"
                                + " found " + t, null);
                    }
                    target = t.asDouble();
                }
                if (section.has("denseSteps")) {
                    JsonNode d = section.get("denseSteps");
                    if (!d.isNumber() || !(d.asDouble() >= 0)) {
                        throw ConfigException.forSource(source, "advise.denseSteps: expected dense's steps to the target,"
                                + " > 0 (0: from the evidence), found " + d, null);
                    }
                    denseSteps = d.asDouble();
                }
                if (section.has("penalties")) {
                    JsonNode p = section.get("penalties");
                    if (!(p instanceof ObjectNode map)) {
                        throw ConfigException.forSource(source, "advise.penalties: expected a mapping of candidate id to"
                                + " its steps to the target as a multiple of dense's, found " + p, null);
                    }
                    for (Iterator<Map.Entry<String, JsonNode>> it = map.fields(); it.hasNext(); ) {
                        Map.Entry<String, JsonNode> e = it.next();
                        if (!e.getValue().isNumber()) {
                            throw ConfigException.forSource(source, "advise.penalties." + e.getKey() + ": expected a"
                                    + " number, found " + e.getValue(), null);
                        }
                        penalties.put(e.getKey(), e.getValue().asDouble());
                    }
                }
            }
            return new AdviseKeys(candidates, target, denseSteps, penalties);
        }
    }

    private static String firstOther(ObjectNode section) {
        for (Iterator<String> it = section.fieldNames(); it.hasNext(); ) {
            String key = it.next();
            if (!key.equals("type")) {
                return key;
            }
        }
        throw new IllegalStateException("no other key");
    }

    /**
     * This auto method with {@code f} applied to its base and to every candidate's config: a change of keys that are
     * not the method's (the workers a launch started, the runtime, the length of training).
     */
    public AutoMethod map(UnaryOperator<ExperimentConfig> f) {
        return new AutoMethod(f.apply(base), candidates.stream().map(c -> new AdviseCandidate(c.id(), c.label(),
                f.apply(c.config()))).toList(), target, source, denseSteps, penalties);
    }

    /** The candidate {@code id}. */
    public AdviseCandidate candidate(String id) {
        return candidates.stream().filter(c -> c.id().equals(id)).findFirst().orElseThrow(() ->
                new IllegalArgumentException("no candidate '" + id + "' among " + candidates.stream()
                        .map(AdviseCandidate::id).toList()));
    }

    /** The most server processes any candidate runs with {@code workers} workers (each shard its own process). */
    public int maxServices(int workers) {
        int most = 0;
        for (AdviseCandidate c : candidates) {
            most = Math.max(most, c.config().method().newTopology().serviceEndpoints(workers));
        }
        return most;
    }

    /**
     * What identifies the candidates (ids and their resolved method sections, the target): every process of a run
     * must advise among the same, which the session checks.
     */
    public String digest() {
        Map<String, Object> all = new TreeMap<>();
        for (AdviseCandidate c : candidates) {
            Map<String, Object> tree = ConfigLoader.asTree(c.config());
            Map<String, Object> method = new TreeMap<>();
            for (String section : AdviseCandidates.METHOD_SECTIONS) {
                method.put(section, tree.get(section));
            }
            if (tree.get("training") instanceof Map<?, ?> training) {
                for (String key : AdviseCandidates.TRAINING_KEYS) {
                    method.put("training." + key, training.get(key));
                }
            }
            all.put(c.id(), method);
        }
        all.put(" target", target);
        all.put(" denseSteps", denseSteps);
        all.put(" penalties", penalties);
        try {
            byte[] json = new ObjectMapper().configure(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS, true)
                    .writeValueAsBytes(all);
            return "sha256:" + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(json))
                    .substring(0, 16);
        } catch (JsonProcessingException | NoSuchAlgorithmException e) {
            throw new IllegalStateException("cannot digest the candidates: " + e.getMessage(), e);
        }
    }
}
