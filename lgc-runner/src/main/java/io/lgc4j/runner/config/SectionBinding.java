package io.lgc4j.runner.config;

import io.lgc4j.core.settings.Section;

import java.lang.reflect.RecordComponent;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * Binds a section of the configuration whose schema is a settings record of the library (its components are the
 * keys, its {@code DEFAULT} the defaults, its compact constructor the checks): every key must be a component, a
 * missing one takes its default, and a bad one is the {@link ConfigException} of its dotted key.
 *
 * <pre>{@code
 * AutoencoderSection ae = SectionBinding.bind("autoencoder", given, AutoencoderSection.class,
 *         AutoencoderSection.DEFAULT);
 * }</pre>
 */
final class SectionBinding {

    private SectionBinding() {
    }

    /**
     * @throws ConfigException naming the first key that is unknown, of the wrong kind or out of range, or
     *                         {@code key '<path>' cannot be built: ...} when the record refuses the whole
     */
    static <R extends Record> R bind(String path, Map<String, Object> given, Class<R> type, R defaults) {
        checkKnownKeys(path, given, type);
        return Checks.check(() -> Section.of(path, given).bind(type, defaults));
    }

    /**
     * A registered name ({@code compressor.type}, {@code topology.type}) read like an enum: {@code absent} when the
     * key has no value, else the name {@code find} knows.
     *
     * @throws ConfigException {@code key '<key>' expects one of [names], found ...}
     */
    static <T> T registeredName(String key, Object raw, T absent, Function<String, Optional<T>> find,
                                List<String> names) {
        if (raw == null) {
            return absent;
        }
        return (raw instanceof String text ? find.apply(text) : Optional.<T>empty()).orElseThrow(() ->
                ConfigException.forKey(key, "expects one of " + names + ", found " + Section.describe(raw)
                        + elsewhere(key, raw)));
    }

    /**
     * The LGC4J module that registers each of its names, by key: a name a program's class path lacks is most often a
     * module it does not depend on (lgc-runner brings them at run time only).
     */
    private static final Map<String, Map<String, String>> SHIPPED = Map.of(
            "topology.type", Map.of("ps", "topology-ps", "ring", "topology-ring", "local-sgd", "topology-ring"),
            "compressor.type", Map.of("lgc", "lgc"));

    private static String elsewhere(String key, Object raw) {
        String module = SHIPPED.getOrDefault(key, Map.of()).get(String.valueOf(raw));
        return module == null ? "" : " (LGC4J registers \"" + raw + "\" in module io.lgc4j:" + module + ", which is not on"
                + " the class path: add it as a dependency)";
    }

    /** Every key of {@code given}, and of its nested mappings that bind nested records, is a component. */
    static void checkKnownKeys(String path, Map<?, ?> given, Class<? extends Record> type) {
        List<String> allowed = Arrays.stream(type.getRecordComponents()).map(RecordComponent::getName).toList();
        for (Map.Entry<?, ?> e : given.entrySet()) {
            String key = String.valueOf(e.getKey());
            if (!allowed.contains(key)) {
                throw ConfigException.unknownKey(path + "." + key, allowed);
            }
            Class<?> component = Arrays.stream(type.getRecordComponents()).filter(c -> c.getName().equals(key))
                    .findFirst().orElseThrow().getType();
            if (component.isRecord() && e.getValue() instanceof Map<?, ?> nested) {
                checkKnownKeys(path + "." + key, nested, component.asSubclass(Record.class));
            }
        }
    }
}
