package io.lgc4j.runner.config;

import com.fasterxml.jackson.core.type.TypeReference;
import io.lgc4j.core.compress.BoundCompressor;
import io.lgc4j.core.compress.CompressorProvider;
import io.lgc4j.core.method.Methods;
import io.lgc4j.core.settings.ResolvedConfig;
import io.lgc4j.core.settings.SettingsException;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Where the configuration meets the registry ({@link Methods}): the sections as the providers read them, the keys
 * registered compressors add to the {@code compressor} section, and the binding of a compressor's settings, with
 * every {@link SettingsException} turned into the {@link ConfigException} of its key.
 */
final class ConfigMethods {

    private static final TypeReference<LinkedHashMap<String, Object>> MAP = new TypeReference<>() {
    };

    private ConfigMethods() {
    }

    /** The section {@code record} as {@code config.yaml} writes it: kebab enums, every default, extension keys. */
    static Map<String, Object> asMap(Object section) {
        return YamlMapping.MAPPER.convertValue(section, MAP);
    }

    /** The resolved configuration of the given sections, by name. */
    static ResolvedConfig resolved(Map<String, Object> sections) {
        Map<String, Map<String, Object>> maps = new LinkedHashMap<>();
        sections.forEach((name, section) -> maps.put(name, asMap(section)));
        return new ResolvedConfig(maps);
    }

    /**
     * The keys compressor {@code type} reads from the {@code compressor} section beyond its shared ones
     * ({@link CompressorConfig#SHARED_KEYS}); empty for the shipped compressors.
     */
    static Set<String> extensionKeys(CompressorType type) {
        Set<String> keys = new TreeSet<>(Methods.installed().compressor(type.toString()).sectionKeys());
        keys.removeAll(CompressorConfig.SHARED_KEYS);
        return keys;
    }

    /** The registered compressor types that read {@code key} from the {@code compressor} section, sorted. */
    static List<String> typesReading(String key) {
        List<String> types = new ArrayList<>();
        for (CompressorProvider<?> p : Methods.installed().compressors()) {
            if (p.sectionKeys().contains(key)) {
                types.add(p.type());
            }
        }
        return types;
    }

    /**
     * The settings of the compressor {@code config} names.
     *
     * @throws ConfigException naming the key a settings record rejected
     */
    static BoundCompressor<?> bind(CompressorType type, ResolvedConfig config) {
        CompressorProvider<?> provider = Methods.installed().compressor(type.toString());
        try {
            return BoundCompressor.bind(provider, config);
        } catch (SettingsException e) {
            throw ConfigException.forKey(e.key(), e.problem());
        }
    }
}
