package io.lgc4j.runner.config;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.deser.std.StdDeserializer;
import io.lgc4j.core.method.Methods;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Reads the top level of a config: each section by its record's deserializer, in the order the file gives them, the
 * runner's sections by name and the sections the providers declare ({@link Methods#sections()}) by the type of their
 * defaults. A {@code @JsonCreator} cannot take property names known only at run time, hence this class; it fails as
 * Jackson's creator did, so {@link ConfigLoader} names the same key: a section's failure wrapped with the section's
 * name on its path ({@link JsonMappingException#wrapWithPath}), an unknown section through
 * {@link DeserializationContext#handleUnknownProperty} with every section as the known names, and a null section
 * read as an absent one.
 */
final class ExperimentConfigDeserializer extends StdDeserializer<ExperimentConfig> {

    private static final long serialVersionUID = 1L;

    ExperimentConfigDeserializer() {
        super(ExperimentConfig.class);
    }

    @Override
    public ExperimentConfig deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
        if (!p.hasToken(JsonToken.START_OBJECT) && !p.hasToken(JsonToken.FIELD_NAME)) {
            return (ExperimentConfig) ctxt.handleUnexpectedToken(ExperimentConfig.class, p);
        }
        Map<String, Class<?>> types = ExperimentConfig.sectionTypes();
        Map<String, Record> declared = Methods.installed().sections();
        Map<String, Object> given = new HashMap<>();
        JsonToken token = p.hasToken(JsonToken.START_OBJECT) ? p.nextToken() : p.currentToken();
        for (; token == JsonToken.FIELD_NAME; token = p.nextToken()) {
            String name = p.currentName();
            p.nextToken();
            Class<?> type = types.get(name);
            if (type == null) {
                ctxt.handleUnknownProperty(p, this, ExperimentConfig.class, name);
                continue;
            }
            try {
                given.put(name, p.hasToken(JsonToken.VALUE_NULL) ? null : ctxt.readValue(p, type));
            } catch (Exception e) {
                // as Jackson's bean deserializer wraps a property's failure: the section's name joins the key path
                throw JsonMappingException.wrapWithPath(e, ExperimentConfig.class, name);
            }
        }
        Map<String, Record> sections = new LinkedHashMap<>();
        for (String name : declared.keySet()) {
            if (given.get(name) != null) {
                sections.put(name, (Record) given.get(name));
            }
        }
        return ExperimentConfig.fromYaml((RunConfig) given.get("run"), (DataConfig) given.get("data"),
                (ModelConfig) given.get("model"), (TrainingConfig) given.get("training"),
                (TopologyConfig) given.get("topology"), (CompressorConfig) given.get("compressor"),
                (StagesConfig) given.get("stages"), (WarmupConfig) given.get("warmup"), sections,
                (RuntimeConfig) given.get("runtime"));
    }

    /** The sections, as the names an unknown top-level key's message lists. */
    @Override
    public Collection<Object> getKnownPropertyNames() {
        return new ArrayList<>(ExperimentConfig.SECTIONS);
    }
}
