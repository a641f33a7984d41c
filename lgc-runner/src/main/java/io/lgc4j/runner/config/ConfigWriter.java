package io.lgc4j.runner.config;

import com.fasterxml.jackson.core.JsonProcessingException;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;

/**
 * Writes an {@link ExperimentConfig} as YAML with every key spelled out, defaults included: the resolved config a
 * result directory records as provenance. Reading the output back with {@link ConfigLoader} gives an equal record.
 *
 * <pre>{@code
 * ConfigWriter.write(config, runDir.resolve("config.yaml"));
 * String yaml = ConfigWriter.toYaml(config);   // same text; also config.toYaml()
 * }</pre>
 *
 * <p>Keys appear in schema order (run, data, model, training, topology) and enums in their kebab spelling, so the
 * output reads like the files under {@code configs/}.
 */
public final class ConfigWriter {

    private ConfigWriter() {
    }

    /**
     * @param config a config
     * @return it as YAML, every key written out
     */
    public static String toYaml(ExperimentConfig config) {
        Objects.requireNonNull(config, "config");
        try {
            return YamlMapping.MAPPER.writeValueAsString(config);
        } catch (JsonProcessingException e) {
            // Records of strings, numbers and enums written to a String: nothing here can fail but a bug.
            throw new IllegalStateException("cannot write config as YAML: " + e.getOriginalMessage(), e);
        }
    }

    /**
     * Writes {@link #toYaml} to a file in UTF-8, replacing it if it exists.
     *
     * @param config a config
     * @param file   where to write it; its directory must exist
     * @throws IOException if the file cannot be written
     */
    public static void write(ExperimentConfig config, Path file) throws IOException {
        Objects.requireNonNull(file, "file");
        Files.writeString(file, toYaml(config), StandardCharsets.UTF_8);
    }
}
