package io.lgc4j.runner.config;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.DeserializationConfig;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.SerializationConfig;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.type.LogicalType;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.deser.BeanDeserializerModifier;
import com.fasterxml.jackson.databind.deser.std.StdDeserializer;
import com.fasterxml.jackson.databind.deser.std.StdScalarDeserializer;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.ser.BeanSerializerModifier;
import com.fasterxml.jackson.databind.ser.std.StdSerializer;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;
import com.fasterxml.jackson.dataformat.yaml.util.StringQuotingChecker;
import io.lgc4j.core.method.Methods;
import io.lgc4j.core.settings.Section;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The one Jackson mapper that reads and writes configs, so the loader and the writer cannot drift apart.
 */
final class YamlMapping {

    /** Thread-safe once built; shared by {@link ConfigLoader} and {@link ConfigWriter}. */
    static final YAMLMapper MAPPER = create();

    private YamlMapping() {
    }

    private static YAMLMapper create() {
        SimpleModule enums = new SimpleModule("lgc4j-config-enums");
        enums.setDeserializerModifier(new BeanDeserializerModifier() {
            @Override
            public JsonDeserializer<?> modifyEnumDeserializer(DeserializationConfig config, JavaType type,
                                                              BeanDescription beanDesc,
                                                              JsonDeserializer<?> deserializer) {
                return new SpelledEnumDeserializer(type.getRawClass());
            }
        });
        enums.setSerializerModifier(new BeanSerializerModifier() {
            @Override
            public JsonSerializer<?> modifyEnumSerializer(SerializationConfig config, JavaType valueType,
                                                          BeanDescription beanDesc, JsonSerializer<?> serializer) {
                return new SpelledEnumSerializer();
            }
        });
        // sections whose schema is a settings record of the library: bound and written through Section
        // the sections the providers declare (LGC's autoencoder), and the top level that holds them
        Methods.installed().sections().forEach((name, defaults) -> declaredSection(enums, name, defaults));
        sectionRecord(enums, TraceSection.class, "training.trace", TraceSection.OFF);
        enums.addDeserializer(ExperimentConfig.class, new ExperimentConfigDeserializer());
        YAMLFactory factory = YAMLFactory.builder().stringQuotingChecker(new PlainOnlyWhenSafe()).build();
        return YAMLMapper.builder(factory)
                // "key:" with no value is YAML's null, meaning "take the default"; a quoted '' stays text.
                .enable(YAMLParser.Feature.EMPTY_STRING_AS_NULL)
                .addModule(enums)
                // A typo'd key must fail, never fall back silently to a default (this is Jackson's default too).
                .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                // 4.5 workers is a mistake, not 4.
                .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
                // "workers: ''" is a mistake, not a request for the default (leaving the key out is).
                .withCoercionConfigDefaults(c -> c.setCoercion(CoercionInputShape.EmptyString, CoercionAction.Fail))
                // "name: 1e3" would otherwise become the run name "1000.0"; text must be written as text.
                .withCoercionConfig(LogicalType.Textual, c -> c
                        .setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
                        .setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
                        .setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail))
                // ...and numbers as numbers: "workers: '4'" is as suspicious as "name: 4".
                .withCoercionConfig(LogicalType.Integer,
                        c -> c.setCoercion(CoercionInputShape.String, CoercionAction.Fail))
                .withCoercionConfig(LogicalType.Float,
                        c -> c.setCoercion(CoercionInputShape.String, CoercionAction.Fail))
                // YAML lets the same key appear twice; the second silently winning hides mistakes.
                .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
                .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
                .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
                .build();
    }

    /** {@link #sectionRecord} for a section known by its defaults only. */
    @SuppressWarnings("unchecked")
    private static <R extends Record> void declaredSection(SimpleModule module, String name, R defaults) {
        sectionRecord(module, (Class<R>) defaults.getClass(), name, defaults);
    }

    private static <R extends Record> void sectionRecord(SimpleModule module, Class<R> type, String path,
                                                         R defaults) {
        module.addDeserializer(type, new SectionRecordDeserializer<>(type, path, defaults));
        module.addSerializer(type, new SectionRecordSerializer<>(type));
    }

    /**
     * Reads a section whose schema is a settings record ({@link SectionBinding}): the mapping as written, then bound
     * over the record's defaults; anything but a mapping is refused as a mapping would be.
     */
    private static final class SectionRecordDeserializer<R extends Record> extends StdDeserializer<R> {

        private static final long serialVersionUID = 1L;

        private final String path;
        private final transient R defaults;

        SectionRecordDeserializer(Class<R> type, String path, R defaults) {
            super(type);
            this.path = path;
            this.defaults = defaults;
        }

        @Override
        public R deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
            @SuppressWarnings("unchecked")
            Class<R> type = (Class<R>) handledType();
            if (!p.hasToken(JsonToken.START_OBJECT) && !p.hasToken(JsonToken.FIELD_NAME)) {
                return type.cast(ctxt.handleUnexpectedToken(type, p));
            }
            Map<String, Object> given = ctxt.readValue(p,
                    ctxt.getTypeFactory().constructMapType(LinkedHashMap.class, String.class, Object.class));
            return SectionBinding.bind(path, given, type, defaults);
        }
    }

    /** Writes a settings record as {@link Section#plain} does: its components in order, enums spelled. */
    private static final class SectionRecordSerializer<R extends Record> extends StdSerializer<R> {

        private static final long serialVersionUID = 1L;

        SectionRecordSerializer(Class<R> type) {
            super(type);
        }

        @Override
        public void serialize(R value, JsonGenerator gen, SerializerProvider provider) throws IOException {
            provider.defaultSerializeValue(Section.plain(value), gen);
        }
    }

    /**
     * Leaves a string unquoted only when YAML cannot read it as anything but text. Jackson's own check misses
     * forms such as {@code 1e3}, {@code 0x1F} and {@code .inf}, which would read back as numbers and break the
     * round trip; everything not starting with a letter or {@code /} is quoted.
     */
    private static final class PlainOnlyWhenSafe extends StringQuotingChecker.Default {

        private static final long serialVersionUID = 1L;
        private static final Pattern SAFE_PLAIN = Pattern.compile("[A-Za-z/][A-Za-z0-9._/-]*");

        @Override
        public boolean needToQuoteValue(String value) {
            return !SAFE_PLAIN.matcher(value).matches() || super.needToQuoteValue(value);
        }
    }

    /** Reads an enum from its kebab, snake or constant spelling, case-insensitively (see {@link ConfigEnums}). */
    private static final class SpelledEnumDeserializer extends StdScalarDeserializer<Object> {

        private static final long serialVersionUID = 1L;

        SpelledEnumDeserializer(Class<?> enumType) {
            super(enumType);
        }

        @Override
        public Object deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
            if (!p.hasToken(JsonToken.VALUE_STRING)) {
                return ctxt.handleUnexpectedToken(handledType(), p);
            }
            String text = p.getText();
            Object constant = ConfigEnums.lookup(handledType(), text);
            if (constant == null) {
                return ctxt.handleWeirdStringValue(handledType(), text, "not one of %s",
                        ConfigEnums.yamlNamesOf(handledType()));
            }
            return constant;
        }
    }


    /** Writes an enum in its kebab spelling, the form the docs and the shipped configs use. */
    private static final class SpelledEnumSerializer extends StdSerializer<Object> {

        private static final long serialVersionUID = 1L;

        SpelledEnumSerializer() {
            super(Object.class);
        }

        @Override
        public void serialize(Object value, JsonGenerator gen, SerializerProvider provider) throws IOException {
            gen.writeString(ConfigEnums.yamlName((Enum<?>) value));
        }
    }
}
