package io.lgc4j.runner.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import io.lgc4j.core.compress.CompressorProvider;
import io.lgc4j.core.method.Methods;
import io.lgc4j.core.settings.Section;
import io.lgc4j.core.settings.SettingsException;
import io.lgc4j.core.warmup.Warmup;
import io.lgc4j.core.warmup.WarmupSection;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The {@code warmup} section: how the FULL stage travels. Its own keys are lgc-core's
 * {@link WarmupSection}, bound with {@link Section#bind} ({@link SectionBinding}); the keys of the chosen warm-up
 * compressor ({@code rank} for PowerSGD, {@code ratio} for top-k, ...) sit beside them, as under {@code compressor},
 * filled from that compressor's defaults and checked by its settings record when the whole config is built
 * ({@link Warmup#of}). A shared key of the {@code compressor} section ({@code ratio}, {@code lowPass}, ...) left out
 * here takes that section's value.
 *
 * <pre>{@code
 * warmup:
 *   type: powersgd     # none (dense, the default) | topk | dgc | scalecom | randomk | s2 | powersgd; not lgc
 *   values: inherit    # inherit (compressor.values) | fp32 | fp16 | bf16
 *   carryMemory: true  # the warm-up's residual goes into the main compressor's memory at the switch
 *   rank: 2            # powersgd's own key
 * }</pre>
 *
 * @param section the section's own keys
 * @param keys    the warm-up compressor's keys, in YAML form (none for {@code type: none})
 */
public record WarmupConfig(WarmupSection section, Map<String, Object> keys) {

    /**
     * Checks that every key in {@code keys} is one the warm-up compressor reads, and adds its defaults for those
     * missing.
     *
     * @throws ConfigException naming {@code warmup.type} when it is not a compressor a warm-up can run, or the key
     *                         that the compressor does not read
     */
    public WarmupConfig {
        Checks.required("warmup", section);
        keys = checkedKeys(section.type(), keys == null ? Map.of() : keys);
    }

    /** @return the dense warm-up in the run's encoding: today's FULL stage */
    public static WarmupConfig defaults() {
        return new WarmupConfig(WarmupSection.DEFAULT, Map.of());
    }

    /** @return {@code warmup.type} */
    public String type() {
        return section.type();
    }

    /** @return {@code warmup.values} */
    public String values() {
        return section.values();
    }

    /** @return {@code warmup.carryMemory} */
    public boolean carryMemory() {
        return section.carryMemory();
    }

    /** The section as {@code config.yaml} writes it: its own keys in order, then the compressor's. */
    @JsonValue
    private Map<String, Object> yaml() {
        @SuppressWarnings("unchecked")
        Map<String, Object> map = new LinkedHashMap<>((Map<String, Object>) Section.plain(section));
        map.putAll(keys);
        return map;
    }

    /**
     * The section as a file gives it: its own keys bound over their defaults, every other key one the warm-up
     * compressor reads.
     *
     * @throws ConfigException naming the first key that is unknown, of the wrong kind or out of range
     */
    @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
    static WarmupConfig fromYaml(Map<String, Object> given) {
        Map<String, Object> own = new LinkedHashMap<>();
        Map<String, Object> keys = new LinkedHashMap<>();
        given.forEach((key, value) -> {
            if (WarmupSection.OWN_KEYS.contains(key)) {
                own.put(key, value);
            } else if (value != null) {
                keys.put(key, value);
            }
        });
        return new WarmupConfig(SectionBinding.bind(Warmup.SECTION, own, WarmupSection.class, WarmupSection.DEFAULT),
                keys);
    }

    private static Map<String, Object> checkedKeys(String type, Map<String, Object> given) {
        Methods registry = Methods.installed();
        Set<String> allowed;
        try {
            allowed = Warmup.compressorKeys(type, registry);
        } catch (SettingsException e) {
            throw ConfigException.forKey(e.key(), e.problem());
        }
        for (String key : given.keySet()) {
            if (!allowed.contains(key)) {
                Set<String> all = new TreeSet<>(WarmupSection.OWN_KEYS);
                all.addAll(allowed);
                throw ConfigException.unknownKey(Warmup.SECTION + "." + key, all);
            }
        }
        Map<String, Object> all = new LinkedHashMap<>(given);
        if (!type.equals(WarmupSection.NONE)) {
            CompressorProvider<?> provider = registry.compressor(type);
            provider.defaults().ifPresent(defaults -> {
                if (Section.plain(defaults) instanceof Map<?, ?> values) {
                    for (String key : allowed) {
                        // the shared keys are the compressor section's, a warm-up key absent takes that value
                        if (!CompressorConfig.SHARED_KEYS.contains(key) && !all.containsKey(key)
                                && values.get(key) != null) {
                            all.put(key, values.get(key));
                        }
                    }
                }
            });
        }
        return Collections.unmodifiableMap(all);
    }
}
