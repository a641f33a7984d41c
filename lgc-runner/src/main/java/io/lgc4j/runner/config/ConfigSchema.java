package io.lgc4j.runner.config;

import io.lgc4j.core.codec.IndexCodecs;
import io.lgc4j.core.comm.ValueEncoding;
import io.lgc4j.core.compress.CompressorKeys;
import io.lgc4j.core.compress.CompressorProvider;
import io.lgc4j.core.method.Methods;
import io.lgc4j.core.method.SectionKeys;
import io.lgc4j.core.settings.Section;
import io.lgc4j.core.warmup.Warmup;
import io.lgc4j.core.warmup.WarmupSection;

import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Every key a config may hold, read from the definitions the loader binds (the runner's section records, lgc-core's
 * {@link CompressorKeys}) and from the registry (compressor and topology types, the keys a registered compressor
 * adds, the sections the compressor providers declare with their defaults records: LGC's {@code autoencoder}, the
 * keys the topology providers add to {@code topology}: LGC-PS's support, the sharded server's, local SGD's): what
 * {@code lgc config keys} prints, so the listing cannot disagree with what a file may say.
 *
 * <pre>{@code
 * for (ConfigSchema.Key key : ConfigSchema.installed().keys()) {
 *     System.out.println(key);   // compressor.ratio = 0.001
 * }
 * }</pre>
 */
public final class ConfigSchema {

    /**
     * One key.
     *
     * @param path         its dotted path, e.g. {@code compressor.ratio}
     * @param defaultValue its default as {@code config.yaml} writes it, or null when it has none ({@code run.name}) or
     *                     when it takes another key's value ({@link #sameAs})
     * @param choices      the values it may take when they are a fixed list, else empty
     * @param appliesTo    the compressor types that read it when only some do, else empty (every config has it);
     *                     under {@code warmup}, the warm-up types that read it; under {@code topology}, the topology
     *                     types
     * @param sameAs       the key whose value it takes when absent ({@code compressor.learnedRatio}), or null
     */
    public record Key(String path, Object defaultValue, List<String> choices, List<String> appliesTo,
                      String sameAs) {
        /** Copies the lists. */
        public Key {
            Objects.requireNonNull(path, "path");
            choices = List.copyOf(choices);
            appliesTo = List.copyOf(appliesTo);
        }

        @Override
        public String toString() {
            String value = sameAs != null ? "(absent: " + sameAs + ")"
                    : defaultValue == null ? "(required)" : String.valueOf(defaultValue);
            return path + " = " + value + (choices.isEmpty() ? "" : "   one of " + choices)
                    + (appliesTo.isEmpty() ? "" : "   " + path.substring(0, path.indexOf('.'))
                    + ".type " + String.join(" or ", appliesTo) + " only");
        }
    }

    private final List<Key> keys;

    private ConfigSchema(List<Key> keys) {
        this.keys = List.copyOf(keys);
    }

    /** The keys of the shipped sections and of every compressor and topology registered on the class path. */
    public static ConfigSchema installed() {
        Map<String, List<String>> choices = new TreeMap<>();
        ExperimentConfig.sectionTypes().forEach((name, type) -> choicesOf(name + ".", type, choices));
        List<Key> keys = new ArrayList<>();
        Map<String, Object> flat = new LinkedHashMap<>();
        flatten("", ConfigLoader.asTree(ExperimentConfig.defaults("my-run")), flat);
        flat.forEach((path, value) -> keys.add(new Key(path, path.equals("run.name") ? null : value,
                choices.getOrDefault(path, List.of()), List.of(), null)));
        keys.addAll(compressorKeys());
        keys.addAll(warmupKeys());
        keys.addAll(typeOnlyKeys());
        return new ConfigSchema(keys);
    }

    /** @return every key: the sections' in file order, then the keys registered compressors add, by name */
    public List<Key> keys() {
        return keys;
    }

    /** The keys registered compressors add to the {@code compressor} section, each with the types that read it. */
    private static List<Key> compressorKeys() {
        Map<String, List<String>> owners = new TreeMap<>();
        Map<String, Object> defaults = new TreeMap<>();
        for (CompressorProvider<?> p : Methods.installed().compressors()) {
            Map<?, ?> given = p.defaults().map(d -> (Map<?, ?>) Section.plain(d)).orElse(Map.of());
            for (String key : p.sectionKeys()) {
                if (!CompressorConfig.SHARED_KEYS.contains(key)) {
                    owners.computeIfAbsent(key, k -> new ArrayList<>()).add(p.type());
                    if (given.get(key) != null) {
                        defaults.put(key, given.get(key));
                    }
                }
            }
        }
        List<Key> keys = new ArrayList<>();
        owners.forEach((key, types) -> keys.add(new Key("compressor." + key, defaults.get(key), List.of(),
                types.stream().sorted().toList(), defaults.containsKey(key) ? null : "compressor.ratio")));
        return keys;
    }

    /**
     * The keys written with their topology type only (local SGD's {@code topology.period} and
     * {@code topology.localFrom}), which the defaults' section (a ring) leaves out.
     */
    private static List<Key> typeOnlyKeys() {
        List<Key> keys = new ArrayList<>();
        for (SectionKeys d : TopologyConfig.declared()) {
            if (!d.types().isEmpty()) {
                List<String> types = d.types().stream().sorted().toList();
                ((Map<?, ?>) Section.plain(d.defaults())).forEach((key, value) -> keys.add(new Key(
                        "topology." + key, value, List.of(), types, null)));
            }
        }
        return keys;
    }

    /**
     * The keys the warm-up compressors add to the {@code warmup} section, each with the types that read it: a
     * compressor's own keys with its default, the shared ones taking the {@code compressor} section's value.
     */
    private static List<Key> warmupKeys() {
        Methods registry = Methods.installed();
        Map<String, List<String>> owners = new TreeMap<>();
        Map<String, Object> defaults = new TreeMap<>();
        for (String type : Warmup.types(registry)) {
            CompressorProvider<?> p = registry.compressor(type);
            Map<?, ?> given = p.defaults().map(d -> (Map<?, ?>) Section.plain(d)).orElse(Map.of());
            for (String key : Warmup.compressorKeys(type, registry)) {
                owners.computeIfAbsent(key, k -> new ArrayList<>()).add(type);
                if (!CompressorConfig.SHARED_KEYS.contains(key) && given.get(key) != null) {
                    defaults.put(key, given.get(key));
                }
            }
        }
        List<Key> keys = new ArrayList<>();
        owners.forEach((key, types) -> keys.add(new Key("warmup." + key, defaults.get(key), List.of(),
                types.stream().sorted().toList(), defaults.containsKey(key) ? null : "compressor." + key)));
        return keys;
    }

    /** The fixed values of the keys under {@code prefix} that a record of {@code type} binds. */
    private static void choicesOf(String prefix, Class<?> type, Map<String, List<String>> into) {
        if (type == CompressorConfig.class) {
            into.put(prefix + "type", CompressorType.names());
            into.put(prefix + "codec", IndexCodecs.names());
            into.put(prefix + "values", ValueEncoding.names());
            choicesOf(prefix, CompressorKeys.class, into);
            return;
        }
        if (type == WarmupConfig.class) {
            into.put(prefix + "type", Warmup.types(Methods.installed()));
            into.put(prefix + "values", WarmupSection.valueChoices());
            return;
        }
        if (type == TopologyConfig.class) {
            into.put(prefix + "type", TopologyType.names());
            for (SectionKeys d : TopologyConfig.declared()) {
                choicesOf(prefix, d.defaults().getClass(), into);
            }
            return;
        }
        if (type.isEnum()) {
            into.put(prefix, ConfigEnums.yamlNamesOf(type));
            return;
        }
        if (!type.isRecord()) {
            return;
        }
        for (RecordComponent c : type.getRecordComponents()) {
            String path = prefix + c.getName();
            choicesOf(c.getType().isRecord() ? path + "." : path, c.getType(), into);
        }
    }

    private static void flatten(String prefix, Object value, Map<String, Object> into) {
        if (value instanceof Map<?, ?> map) {
            for (Map.Entry<?, ?> e : map.entrySet()) {
                flatten(prefix.isEmpty() ? String.valueOf(e.getKey()) : prefix + "." + e.getKey(), e.getValue(),
                        into);
            }
        } else {
            into.put(prefix, value);
        }
    }
}
