package io.lgc4j.advise.config;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.lgc4j.runner.config.ConfigException;
import io.lgc4j.runner.config.ConfigLoader;
import io.lgc4j.runner.config.ExperimentConfig;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The methods a config is compared over. A candidates file has {@code base} (method settings every candidate starts
 * from) and {@code candidates} (an {@code id}, a {@code label} and a {@code config} of method sections only); a
 * candidate's config is the user's without its method sections, then {@code base}, then its own, merged key by key.
 *
 * <pre>
 * base:
 *   compressor: {ratio: 0.001, codec: deflate, lowPass: 0.1}
 *   stages: {fullIterations: 50, aeTrainingIterations: 100}
 * candidates:
 *   - id: dense-fp16
 *     label: Dense fp16 (ring)
 *     config: {topology: {type: ring}, compressor: {type: none, values: fp16}}
 * </pre>
 *
 * <pre>{@code
 * List<AdviseCandidate> c = AdviseCandidates.defaults(ConfigLoader.load(Path.of("configs/quickstart.yaml")));
 * }</pre>
 */
public final class AdviseCandidates {

    /** The class-path resource of the default candidates. */
    public static final String DEFAULT_RESOURCE = "/io/lgc4j/runner/advise/candidates.yaml";

    /** The sections a candidate may set; {@code training} only its overlap keys. */
    static final List<String> METHOD_SECTIONS = List.of("compressor", "warmup", "topology", "autoencoder", "stages");
    static final List<String> TRAINING_KEYS = List.of("overlap", "bucketBytes");

    private static final YAMLMapper MAPPER = new YAMLMapper();

    private AdviseCandidates() {
    }

    /** The shipped candidates ({@link #DEFAULT_RESOURCE}) over {@code config}. */
    public static List<AdviseCandidate> defaults(ExperimentConfig config) {
        try (InputStream in = AdviseCandidates.class.getResourceAsStream(DEFAULT_RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("the class path has no " + DEFAULT_RESOURCE + ": a broken build");
            }
            return parse(new String(in.readAllBytes(), StandardCharsets.UTF_8), DEFAULT_RESOURCE, config);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + DEFAULT_RESOURCE + ": " + e.getMessage(), e);
        }
    }

    /**
     * The candidates of {@code file} over {@code config}.
     *
     * @throws ConfigException naming the file and the candidate or key that is wrong
     */
    public static List<AdviseCandidate> load(Path file, ExperimentConfig config) {
        ConfigLoader.checkFileSize(file, file.toString());
        String yaml;
        try {
            yaml = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw ConfigException.forSource(file.toString(), "cannot read the candidates: " + e.getMessage(), e);
        }
        return parse(yaml, file.toString(), config);
    }

    /**
     * The candidates of {@code yaml} over {@code config}; {@code source} names it in messages.
     *
     * @throws ConfigException naming the source and the candidate or key that is wrong
     */
    public static List<AdviseCandidate> parse(String yaml, String source, ExperimentConfig config) {
        JsonNode root = ConfigLoader.readYamlTree(yaml, source);
        if (!(root instanceof ObjectNode file)) {
            throw ConfigException.forSource(source, "expected a mapping with 'base' and 'candidates', found "
                    + (root == null || root.isMissingNode() ? "nothing" : root.getNodeType().toString()
                    .toLowerCase(Locale.ROOT)), null);
        }
        for (Iterator<String> it = file.fieldNames(); it.hasNext(); ) {
            String key = it.next();
            if (!key.equals("base") && !key.equals("candidates")) {
                throw ConfigException.forSource(source, "unknown key '" + key + "'; allowed: base, candidates", null);
            }
        }
        ObjectNode base = file.has("base") ? methodSections(file.get("base"), "base", source)
                : MAPPER.createObjectNode();
        JsonNode list = file.get("candidates");
        if (list == null || !list.isArray() || list.isEmpty()) {
            throw ConfigException.forSource(source, "'candidates' must be a non-empty list of {id, label, config}",
                    null);
        }
        ObjectNode user = withoutMethod(config);
        List<AdviseCandidate> candidates = new ArrayList<>();
        Set<String> ids = new HashSet<>();
        for (int i = 0; i < list.size(); i++) {
            String where = "candidates[" + i + "]";
            JsonNode c = list.get(i);
            if (!(c instanceof ObjectNode entry)) {
                throw ConfigException.forSource(source, where + ": expected a mapping {id, label, config}", null);
            }
            for (Iterator<String> it = entry.fieldNames(); it.hasNext(); ) {
                String key = it.next();
                if (!List.of("id", "label", "config").contains(key)) {
                    throw ConfigException.forSource(source, where + ": unknown key '" + key
                            + "'; allowed: id, label, config", null);
                }
            }
            String id = text(entry, "id", where, source);
            if (!id.matches("[a-z0-9][a-z0-9-]*")) {
                throw ConfigException.forSource(source, where + ".id: '" + id + "' is not a short name (lower-case"
                        + " letters, digits and dashes)", null);
            }
            if (!ids.add(id)) {
                throw ConfigException.forSource(source, where + ".id: '" + id + "' names two candidates", null);
            }
            String label = entry.has("label") ? text(entry, "label", where, source) : id;
            ObjectNode method = methodSections(entry.get("config"), where + ".config", source);
            if (method.path("compressor").path("type").asText("").equals("auto")) {
                throw ConfigException.forSource(source, where + ".config.compressor.type: a candidate names a method;"
                        + " auto is what chooses among them", null);
            }
            ObjectNode merged = user.deepCopy();
            ConfigLoader.merge(merged, base);
            ConfigLoader.merge(merged, method);
            merged.withObject("/run").put("name", config.run().name() + "-" + id);
            String candidateSource = source + " (candidate '" + id + "')";
            try {
                candidates.add(new AdviseCandidate(id, label, ConfigLoader.parse(MAPPER.writeValueAsString(merged),
                        candidateSource)));
            } catch (JsonProcessingException e) {
                throw ConfigException.forSource(candidateSource, "cannot write the merged config: " + e.getMessage(),
                        e);
            }
        }
        return candidates;
    }

    private static String text(ObjectNode entry, String key, String where, String source) {
        JsonNode v = entry.get(key);
        if (v == null || !v.isTextual() || v.asText().isBlank()) {
            throw ConfigException.forSource(source, where + "." + key + ": expected text, found "
                    + (v == null ? "nothing" : v.toString()), null);
        }
        return v.asText();
    }

    /** {@code node} checked to hold method sections only. */
    private static ObjectNode methodSections(JsonNode node, String where, String source) {
        if (node == null || node.isNull()) {
            return MAPPER.createObjectNode();
        }
        if (!(node instanceof ObjectNode sections)) {
            throw ConfigException.forSource(source, where + ": expected a mapping of method sections", null);
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = sections.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> f = it.next();
            if (f.getKey().equals("training")) {
                for (Iterator<String> keys = f.getValue().fieldNames(); keys.hasNext(); ) {
                    String key = keys.next();
                    if (!TRAINING_KEYS.contains(key)) {
                        throw notMethod(where + ".training." + key, source);
                    }
                }
            } else if (!METHOD_SECTIONS.contains(f.getKey())) {
                throw notMethod(where + "." + f.getKey(), source);
            }
        }
        return sections;
    }

    private static ConfigException notMethod(String key, String source) {
        return ConfigException.forSource(source, key + ": not a method key; a candidate may set "
                + String.join(", ", METHOD_SECTIONS) + ", training.overlap, training.bucketBytes", null);
    }

    /** The user's config as a tree, its method sections removed (a candidate's start from their defaults). */
    private static ObjectNode withoutMethod(ExperimentConfig config) {
        ObjectNode tree = MAPPER.valueToTree(ConfigLoader.asTree(config));
        METHOD_SECTIONS.forEach(tree::remove);
        if (tree.get("training") instanceof ObjectNode training) {
            TRAINING_KEYS.forEach(training::remove);
        }
        return tree;
    }
}
