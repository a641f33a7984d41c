package io.lgc4j.runner;

import io.lgc4j.runner.config.ExperimentConfig;
import io.lgc4j.runner.config.ConfigLoader;

import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * A config as the flat map of dotted keys a checkpoint's manifest records ({@code training.workers → 4},
 * {@code compressor.ratio → 0.001}), so that a resume can name every key that differs.
 */
public final class ConfigKeys {

    private ConfigKeys() {
    }

    /** Every key of {@code config} as its resolved YAML spells it (defaults included), ascending. */
    public static SortedMap<String, String> flatten(ExperimentConfig config) {
        Map<String, Object> tree = ConfigLoader.asTree(config);
        SortedMap<String, String> flat = new TreeMap<>();
        flatten("", tree, flat);
        return flat;
    }

    private static void flatten(String prefix, Object value, SortedMap<String, String> into) {
        if (value instanceof Map<?, ?> map) {
            for (Map.Entry<?, ?> e : map.entrySet()) {
                flatten(prefix.isEmpty() ? String.valueOf(e.getKey()) : prefix + "." + e.getKey(), e.getValue(), into);
            }
        } else if (value instanceof List<?> list) {
            into.put(prefix, list.toString());
        } else {
            into.put(prefix, String.valueOf(value));
        }
    }
}
