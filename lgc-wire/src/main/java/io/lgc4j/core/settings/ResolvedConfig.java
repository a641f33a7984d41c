package io.lgc4j.core.settings;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A resolved configuration as the providers read it: named sections of keys and values, every default filled in.
 * The section names are those of the experiment files: {@code compressor} (a compressor's settings), {@code topology},
 * {@code autoencoder}, {@code run}, ... A provider reads only the sections it documents.
 *
 * <pre>{@code
 * ResolvedConfig config = ResolvedConfig.of(Map.of("compressor", Map.of("type", "dgc", "ratio", 0.001, ...)));
 * DgcCompressor.Settings s = config.section("compressor").bind(DgcCompressor.Settings.class);
 * }</pre>
 *
 * @param sections the sections by name, each a map of keys to values
 */
public record ResolvedConfig(Map<String, Map<String, Object>> sections) {

    /** Copies the sections, keeping their order. */
    public ResolvedConfig {
        Objects.requireNonNull(sections, "sections");
        Map<String, Map<String, Object>> copy = new LinkedHashMap<>();
        sections.forEach((name, values) -> copy.put(name, Collections.unmodifiableMap(new LinkedHashMap<>(values))));
        sections = Collections.unmodifiableMap(copy);
    }

    /** A configuration of the given sections. */
    public static ResolvedConfig of(Map<String, ? extends Map<String, ?>> sections) {
        Map<String, Map<String, Object>> copy = new LinkedHashMap<>();
        sections.forEach((name, values) -> copy.put(name, new LinkedHashMap<>(values)));
        return new ResolvedConfig(copy);
    }

    /** The section called {@code name}; empty when the configuration has none. */
    public Section section(String name) {
        return Section.of(name, sections.getOrDefault(name, Map.of()));
    }
}
