package io.lgc4j.runner.config;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.lgc4j.core.codec.IndexCodecs;
import io.lgc4j.core.compress.CompressorProvider;
import io.lgc4j.core.method.Methods;
import io.lgc4j.core.comm.ValueEncoding;
import io.lgc4j.core.train.TopologyDescription;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The {@code compressor} section: how the non-dense blocks (policy TOP_K and LEARNED) travel after the FULL stage.
 *
 * <pre>{@code
 * compressor:
 *   type: dgc          # none | topk | dgc | scalecom | randomk | s2 | lgc, or any other registered compressor
 *   ratio: 0.001       # fraction of each block sent per step, (0, 1]
 *   learnedRatio: 0.004  # topk, dgc, scalecom, randomk (optional): fraction of each LEARNED block; absent = ratio
 *   momentum: 0.9      # dgc: momentum correction factor, [0, 1); the model updater must then be sgd
 *   clipNorm: 0        # dgc: local gradient clipping (L2 norm), 0 = off
 *   warmupSteps: 0     # dgc, topk: steps of exponential sparsity warm-up (DGC's schedule)
 *   lowPass: 0.1       # scalecom, randomk and lgc: memory filter beta, (0, 1]; 1 = plain error feedback
 *   codec: deflate     # index codec: see IndexCodecs (deflate, rice, ...)
 *   values: fp32       # fp32 | fp16 | bf16: how every value travels (dense or compressed); see ValueEncoding
 *   sketch: {rows: 5, columnsPerSelected: 4.0, groupSize: 8}   # s2: count-sketch shape and bitmap grouping
 * }</pre>
 *
 * <p>The keys above but {@code learnedRatio} are the shared ones, each with its default and range check, accepted
 * whatever the type (so a file may keep {@code ratio} with {@code type: none}). A registered compressor whose settings
 * record has other components ({@link CompressorProvider#sectionKeys()}) adds them for its own type: with that type
 * they are accepted under {@code compressor}, held in {@link #extensions()}, filled from its
 * {@link CompressorProvider#defaults()} and checked by its settings record when the config is built; with another
 * type such a key is an error that names the types it belongs to, and any other key is an unknown key. That is how
 * {@code learnedRatio} is read: a component of the topk, dgc, scalecom and randomk settings (absent, their providers
 * take {@code ratio}), refused with s2, lgc or none.
 *
 * @param type        the compressor
 * @param ratio       fraction of each block sent
 * @param momentum    DGC momentum factor
 * @param clipNorm    DGC local clipping norm, 0 = off
 * @param warmupSteps steps of DGC's exponential sparsity warm-up (dgc and topk)
 * @param lowPass     the memory filter of ScaleCom, random-k and LGC
 * @param codec       the index codec's name
 * @param values      the value encoding's name: fp32, fp16 or bf16
 * @param sketch      S2 sketch shape
 * @param extensions  the keys of registered compressors beyond the shared ones, in YAML form (with the shipped
 *                    compressors, {@code learnedRatio} when it is given)
 */
@JsonPropertyOrder({"type", "ratio", "momentum", "clipNorm", "warmupSteps", "lowPass", "codec", "values", "sketch"})
public record CompressorConfig(CompressorType type, double ratio, double momentum, double clipNorm, int warmupSteps,
                               double lowPass, String codec, String values, SketchConfig sketch,
                               @JsonIgnore Map<String, Object> extensions) {

    /** The keys every config's {@code compressor} section has, whatever the type. */
    public static final Set<String> SHARED_KEYS = Set.of("type", "ratio", "momentum", "clipNorm", "warmupSteps",
            "lowPass", "codec", "values", "sketch");

    /** Default of {@code compressor.type}. */
    public static final CompressorType DEFAULT_TYPE = CompressorType.NONE;
    /** Default of {@code compressor.ratio}: 0.1% (seeds/003, Section VI-A). */
    public static final double DEFAULT_RATIO = 0.001;
    /** Default of {@code compressor.momentum}. */
    public static final double DEFAULT_MOMENTUM = 0.9;
    /**
     * Default of {@code compressor.lowPass}: 0.1, measured (small CNN, K = 4, 0.1%, 3 epochs: 88.99% against
     * 87.06% with plain error feedback, β = 1; docs/results/sparsification).
     */
    public static final double DEFAULT_LOW_PASS = 0.1;
    /** Default of {@code compressor.codec}. */
    public static final String DEFAULT_CODEC = "deflate";
    /** Default of {@code compressor.values}: float32, the bytes LGC4J always sent. */
    public static final String DEFAULT_VALUES = "fp32";

    /**
     * Checks every component; the first bad one is reported by its key.
     *
     * @param type        the compressor
     * @param ratio       fraction of each block sent
     * @param momentum    DGC momentum factor
     * @param clipNorm    DGC local clipping norm, 0 = off
     * @param warmupSteps steps of DGC's exponential sparsity warm-up (dgc and topk)
     * @param lowPass     ScaleCom memory filter
     * @param codec       the index codec's name
     * @param values      the value encoding's name: fp32, fp16 or bf16
     * @param sketch      S2 sketch shape
     * @param extensions  keys of the chosen compressor beyond the shared ones (its defaults fill the missing ones;
     *                    its settings record checks the values when the whole config is built)
     * @throws ConfigException if a component is missing or out of range, or an extension key is not one the chosen
     *                         compressor reads
     */
    public CompressorConfig {
        Checks.required("compressor.sketch", sketch);
        Checks.required("compressor.type", type);
        Checks.positive("compressor.ratio", ratio);
        Checks.atMostDouble("compressor.ratio", ratio, 1.0);
        Checks.inUnitInterval("compressor.momentum", momentum);
        Checks.atLeastDouble("compressor.clipNorm", clipNorm, 0.0);
        Checks.atLeast("compressor.warmupSteps", warmupSteps, 0);
        Checks.positive("compressor.lowPass", lowPass);
        Checks.atMostDouble("compressor.lowPass", lowPass, 1.0);
        Checks.notEmpty("compressor.codec", codec);
        if (!IndexCodecs.names().contains(codec)) {
            throw ConfigException.forKey("compressor.codec", "expects one of " + IndexCodecs.names() + ", found "
                    + Checks.quote(codec));
        }
        Checks.notEmpty("compressor.values", values);
        if (!ValueEncoding.names().contains(values)) {
            throw ConfigException.forKey("compressor.values", "expects one of " + ValueEncoding.names() + ", found "
                    + Checks.quote(values));
        }
        extensions = checkedExtensions(type, extensions == null ? Map.of() : extensions);
    }

    /**
     * The shared keys only, the values in fp32.
     *
     * @param type        the compressor
     * @param ratio       fraction of each block sent
     * @param momentum    DGC momentum factor
     * @param clipNorm    DGC local clipping norm, 0 = off
     * @param warmupSteps steps of DGC's exponential sparsity warm-up (dgc and topk)
     * @param lowPass     ScaleCom memory filter
     * @param codec       the index codec's name
     * @param sketch      S2 sketch shape
     * @throws ConfigException if a component is missing or out of range
     */
    public CompressorConfig(CompressorType type, double ratio, double momentum, double clipNorm, int warmupSteps,
                            double lowPass, String codec, SketchConfig sketch) {
        this(type, ratio, momentum, clipNorm, warmupSteps, lowPass, codec, DEFAULT_VALUES, sketch, Map.of());
    }

    /**
     * The same section with {@code compressor.values} set.
     *
     * @throws ConfigException if {@code values} is not fp32, fp16 or bf16
     */
    public CompressorConfig withValues(String values) {
        return new CompressorConfig(type, ratio, momentum, clipNorm, warmupSteps, lowPass, codec, values, sketch,
                extensions);
    }

    /** {@link #values()} as the encoding the trainer takes. */
    @JsonIgnore
    public ValueEncoding valueEncoding() {
        return ValueEncoding.byName(values);
    }

    /** The extension keys, for the YAML writer: after the shared keys, in their order. */
    @JsonAnyGetter
    private Map<String, Object> extensionsForYaml() {
        return extensions;
    }

    /**
     * Checks that every extension key is one the chosen compressor reads, and adds its defaults for the ones that
     * are missing.
     */
    private static Map<String, Object> checkedExtensions(CompressorType type, Map<String, Object> given) {
        for (String key : given.keySet()) {
            checkExtensionKey(type, key);
        }
        Map<String, Object> all = new LinkedHashMap<>(given);
        CompressorProvider<?> provider = Methods.installed().compressor(type.toString());
        provider.defaults().ifPresent(defaults -> {
            Object plain = TopologyDescription.plain(defaults);
            if (plain instanceof Map<?, ?> values) {
                for (String key : provider.sectionKeys()) {
                    if (!SHARED_KEYS.contains(key) && !all.containsKey(key) && values.get(key) != null) {
                        all.put(key, values.get(key));
                    }
                }
            }
        });
        return Collections.unmodifiableMap(all);
    }

    /**
     * A key beyond the shared ones must be one {@code type} reads. One that only other compressors read is named with
     * them; any other is an unknown key, worded as the loader words one, the allowed keys being the shared ones and
     * those of {@code type}.
     */
    private static void checkExtensionKey(CompressorType type, String key) {
        if (ConfigMethods.extensionKeys(type).contains(key)) {
            return;
        }
        String path = "compressor." + key;
        List<String> owners = ConfigMethods.typesReading(key);
        if (!owners.isEmpty()) {
            throw ConfigException.forKey(path, "applies to compressor.type " + String.join(" or ", owners)
                    + " only, found with compressor.type " + type + "; remove it or change the type");
        }
        Set<String> allowed = new TreeSet<>(SHARED_KEYS);
        allowed.addAll(ConfigMethods.extensionKeys(type));
        throw ConfigException.withDetail(path, "unknown key '" + path + "'; allowed keys under 'compressor': "
                + String.join(", ", allowed));
    }

    /** @return the compressor section with every key at its default (no compression) */
    public static CompressorConfig defaults() {
        return new CompressorConfig(DEFAULT_TYPE, DEFAULT_RATIO, DEFAULT_MOMENTUM, 0.0, 0, DEFAULT_LOW_PASS,
                DEFAULT_CODEC, SketchConfig.defaults());
    }

    @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
    private static CompressorConfig fromYaml(Yaml y) {
        CompressorType type = Checks.orDefault(y.type, DEFAULT_TYPE);
        Map<String, Object> given = new LinkedHashMap<>();
        y.extensions.forEach((key, value) -> {
            checkExtensionKey(type, key);
            if (value != null) {
                // "key:" with no value is YAML's null: take the default, as for the shared keys
                given.put(key, value);
            }
        });
        return new CompressorConfig(type, Checks.orDefault(y.ratio, DEFAULT_RATIO),
                Checks.orDefault(y.momentum, DEFAULT_MOMENTUM), Checks.orDefault(y.clipNorm, 0.0),
                Checks.orDefault(y.warmupSteps, 0), Checks.orDefault(y.lowPass, DEFAULT_LOW_PASS),
                Checks.orDefault(y.codec, DEFAULT_CODEC), Checks.orDefault(y.values, DEFAULT_VALUES),
                Checks.orDefault(y.sketch, SketchConfig.defaults()), given);
    }

    /**
     * The section as written: the shared keys typed (so a wrong kind is reported by its key), every other key kept
     * as read, for {@link #withDefaults} to accept as a registered compressor's or reject as unknown.
     */
    private static final class Yaml {
        @JsonProperty("type")
        private CompressorType type;
        @JsonProperty("ratio")
        private Double ratio;
        @JsonProperty("momentum")
        private Double momentum;
        @JsonProperty("clipNorm")
        private Double clipNorm;
        @JsonProperty("warmupSteps")
        private Integer warmupSteps;
        @JsonProperty("lowPass")
        private Double lowPass;
        @JsonProperty("codec")
        private String codec;
        @JsonProperty("values")
        private String values;
        @JsonProperty("sketch")
        private SketchConfig sketch;
        private final Map<String, Object> extensions = new LinkedHashMap<>();

        @JsonAnySetter
        private void extension(String key, Object value) {
            extensions.put(key, value);
        }
    }
}
