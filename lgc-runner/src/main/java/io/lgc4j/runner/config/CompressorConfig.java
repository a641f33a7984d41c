package io.lgc4j.runner.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonValue;
import io.lgc4j.core.comm.ValueEncoding;
import io.lgc4j.core.compress.CompressorKeys;
import io.lgc4j.core.compress.CompressorProvider;
import io.lgc4j.core.compress.S2SketchCompressor;
import io.lgc4j.core.method.Methods;
import io.lgc4j.core.settings.Section;

import java.lang.reflect.RecordComponent;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The {@code compressor} section: how the non-dense blocks (policy TOP_K and LEARNED) travel after the FULL stage.
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
 * The keys but {@code type} and {@code learnedRatio} are {@link CompressorKeys}, accepted whatever the type; a
 * compressor's own keys ({@link CompressorProvider#sectionKeys()}) only with its type, in {@link #extensions()}.
 *
 * @param type       the compressor
 * @param keys       the shared keys
 * @param extensions the keys of registered compressors beyond the shared ones, in YAML form (with the shipped
 *                   compressors, {@code learnedRatio} when it is given)
 */
public record CompressorConfig(CompressorType type, CompressorKeys keys, Map<String, Object> extensions) {

    /** The keys every config's {@code compressor} section has, whatever the type: {@code type} and the shared ones. */
    public static final Set<String> SHARED_KEYS = sharedKeys();

    /** Default of {@code compressor.type}. */
    public static final CompressorType DEFAULT_TYPE = CompressorType.NONE;

    /**
     * Checks that nothing is missing and that every extension key is one the chosen compressor reads, and adds its
     * defaults for the ones that are missing.
     *
     * @param type       the compressor
     * @param keys       the shared keys, checked when they were built
     * @param extensions keys of the chosen compressor beyond the shared ones (its defaults fill the missing ones; its
     *                   settings record checks the values when the whole config is built)
     * @throws ConfigException if a component is missing, or an extension key is not one the chosen compressor reads
     */
    public CompressorConfig {
        Checks.required("compressor.type", type);
        Checks.required("compressor.keys", keys);
        extensions = checkedExtensions(type, extensions == null ? Map.of() : extensions);
    }

    /**
     * A section of the shipped compressors: the shared keys, no extension.
     *
     * @param type the compressor
     * @param keys the shared keys
     */
    public CompressorConfig(CompressorType type, CompressorKeys keys) {
        this(type, keys, Map.of());
    }

    /** @return the compressor section with every key at its default (no compression) */
    public static CompressorConfig defaults() {
        return new CompressorConfig(DEFAULT_TYPE, CompressorKeys.DEFAULT);
    }

    /** @return fraction of each block sent */
    public double ratio() {
        return keys.ratio();
    }

    /** @return DGC's momentum factor */
    public double momentum() {
        return keys.momentum();
    }

    /** @return DGC's local clipping norm, 0 = off */
    public double clipNorm() {
        return keys.clipNorm();
    }

    /** @return steps of DGC's exponential sparsity warm-up (dgc and topk) */
    public int warmupSteps() {
        return keys.warmupSteps();
    }

    /** @return the memory filter of ScaleCom, random-k and LGC */
    public double lowPass() {
        return keys.lowPass();
    }

    /** @return the index codec's name */
    public String codec() {
        return keys.codec();
    }

    /** @return the value encoding's name: fp32, fp16 or bf16 */
    public String values() {
        return keys.values();
    }

    /** @return S2's sketch shape */
    public S2SketchCompressor.Shape sketch() {
        return keys.sketch();
    }

    /**
     * The same section with {@code compressor.values} set.
     *
     * @throws ConfigException if {@code values} is not fp32, fp16 or bf16
     */
    public CompressorConfig withValues(String values) {
        return new CompressorConfig(type, Checks.check("compressor", () -> keys.withValues(values)),
                extensions);
    }

    /** {@link #values()} as the encoding the trainer takes. */
    @JsonIgnore
    public ValueEncoding valueEncoding() {
        return ValueEncoding.byName(keys.values());
    }

    /**
     * The section as {@code config.yaml} writes it: {@code type}, the shared keys in {@link CompressorKeys}' order,
     * then the extension keys.
     */
    @JsonValue
    private Map<String, Object> yaml() {
        Map<String, Object> map = new LinkedHashMap<>();
        map.put("type", type.toString());
        @SuppressWarnings("unchecked")
        Map<String, Object> shared = (Map<String, Object>) Section.plain(keys);
        map.putAll(shared);
        map.putAll(extensions);
        return map;
    }

    /**
     * The section as a file gives it: {@code type} (default {@code none}); every other key either a shared one,
     * bound into {@link CompressorKeys} over its defaults, or one the chosen compressor reads; a key with no value
     * takes its default.
     *
     * @throws ConfigException naming the first key that is unknown, of the wrong kind or out of range
     */
    @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
    static CompressorConfig fromYaml(Map<String, Object> given) {
        CompressorType type = SectionBinding.registeredName("compressor.type", given.get("type"), DEFAULT_TYPE,
                CompressorType::find, CompressorType.names());
        Map<String, Object> shared = new LinkedHashMap<>();
        Map<String, Object> extensions = new LinkedHashMap<>();
        given.forEach((key, value) -> {
            if (key.equals("type")) {
                return;
            }
            if (SHARED_KEYS.contains(key)) {
                shared.put(key, value);
            } else {
                checkExtensionKey(type, key);
                if (value != null) {
                    extensions.put(key, value);
                }
            }
        });
        CompressorKeys keys = SectionBinding.bind("compressor", shared, CompressorKeys.class, CompressorKeys.DEFAULT);
        return new CompressorConfig(type, keys, extensions);
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
            if (Section.plain(defaults) instanceof Map<?, ?> values) {
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
        throw ConfigException.unknownKey(path, allowed);
    }

    private static Set<String> sharedKeys() {
        Set<String> keys = new LinkedHashSet<>();
        keys.add("type");
        keys.addAll(componentNames(CompressorKeys.class));
        return Collections.unmodifiableSet(keys);
    }

    private static List<String> componentNames(Class<? extends Record> type) {
        return Arrays.stream(type.getRecordComponents()).map(RecordComponent::getName).toList();
    }
}
