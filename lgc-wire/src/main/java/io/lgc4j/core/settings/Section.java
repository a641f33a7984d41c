package io.lgc4j.core.settings;

import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * One section of a resolved configuration: keys and their values as a configuration file holds them (numbers,
 * booleans, text, lists and nested sections), every default already filled in, with the section's dotted path for
 * messages. Providers read their settings from it, either one key at a time or by binding a settings record whose
 * component names are the keys:
 *
 * <pre>{@code
 * Section compressor = Section.of("compressor", Map.of("ratio", 0.001, "warmupSteps", 0, "momentum", 0.9));
 * TopKCompressor.Settings s = compressor.bind(TopKCompressor.Settings.class);   // ratio 0.001, warmupSteps 0
 * double ratio = compressor.number("ratio");
 * compressor.integer("rows");   // SettingsException: "compressor.rows is required"
 * }</pre>
 *
 * <p>Binding is by name: each record component takes the value of the key of the same name (keys the record does
 * not have are left alone, so one section can serve several methods); a component that is itself a record binds
 * from the nested section of that name; an enum from its spelling in any case, with {@code -} or {@code _}. A
 * missing key takes the component's value in the defaults given, else fails. Every failure is a
 * {@link SettingsException} naming the full dotted key, also when the record's own constructor rejects a value.
 */
public final class Section {

    private final String path;
    private final Map<String, Object> values;

    private Section(String path, Map<String, Object> values) {
        this.path = path;
        this.values = values;
    }

    /**
     * @param path   the section's dotted path, e.g. {@code compressor} (empty for the top level)
     * @param values its keys and values (copied; {@code null} reads as empty)
     */
    public static Section of(String path, Map<String, ?> values) {
        Objects.requireNonNull(path, "path");
        Map<String, Object> copy = new LinkedHashMap<>();
        if (values != null) {
            copy.putAll(values);
        }
        return new Section(path, Collections.unmodifiableMap(copy));
    }

    /** @return the section's dotted path */
    public String path() {
        return path;
    }

    /** @return its keys and values, in their order */
    public Map<String, Object> values() {
        return values;
    }

    /** @return whether {@code key} has a value */
    public boolean has(String key) {
        return values.get(key) != null;
    }

    /** @return this section with {@code key} set to {@code value} (a copy) */
    public Section with(String key, Object value) {
        Map<String, Object> copy = new LinkedHashMap<>(values);
        copy.put(key, value);
        return new Section(path, Collections.unmodifiableMap(copy));
    }

    /** The dotted key of {@code key} in this section, for messages. */
    public String keyOf(String key) {
        return path.isEmpty() ? key : path + "." + key;
    }

    /** @throws SettingsException when {@code key} is missing or not a number */
    public double number(String key) {
        return (Double) convert(value(key), double.class, keyOf(key));
    }

    /** @throws SettingsException when {@code key} is missing or not an integer of {@code int} range */
    public int integer(String key) {
        return (Integer) convert(value(key), int.class, keyOf(key));
    }

    /** @throws SettingsException when {@code key} is missing or not a boolean */
    public boolean flag(String key) {
        return (Boolean) convert(value(key), boolean.class, keyOf(key));
    }

    /** @throws SettingsException when {@code key} is missing or not text */
    public String text(String key) {
        return (String) convert(value(key), String.class, keyOf(key));
    }

    /** @throws SettingsException when {@code key} is missing or names no constant of {@code type} */
    public <E extends Enum<E>> E choice(String key, Class<E> type) {
        return type.cast(convert(value(key), type, keyOf(key)));
    }

    /** The nested section {@code key} (empty when absent). */
    public Section section(String key) {
        Object v = values.get(key);
        if (v == null) {
            return new Section(keyOf(key), Map.of());
        }
        if (!(v instanceof Map<?, ?> map)) {
            throw new SettingsException(keyOf(key), "expects a mapping, found " + describe(v));
        }
        return of(keyOf(key), stringKeys(map, keyOf(key)));
    }

    /**
     * Binds a settings record by component name; every component's key must be present.
     *
     * @throws SettingsException naming the dotted key of the first component that is missing, of the wrong kind or
     *                           rejected by the record
     */
    public <R extends Record> R bind(Class<R> type) {
        return bind(type, null);
    }

    /**
     * Binds a settings record by component name; a missing key takes the component's value in {@code defaults}.
     *
     * @param defaults the values of missing keys, or {@code null} when every key is required
     * @throws SettingsException as {@link #bind(Class)}
     */
    public <R extends Record> R bind(Class<R> type, R defaults) {
        Objects.requireNonNull(type, "type");
        RecordComponent[] components = type.getRecordComponents();
        Object[] args = new Object[components.length];
        Class<?>[] types = new Class<?>[components.length];
        for (int i = 0; i < components.length; i++) {
            RecordComponent c = components[i];
            types[i] = c.getType();
            Object raw = values.get(c.getName());
            if (raw == null && defaults != null) {
                args[i] = read(c, defaults);
            } else if (c.getType().isRecord() && (raw == null || raw instanceof Map<?, ?>)) {
                // a nested record binds from the nested section, its own missing keys from the nested defaults
                args[i] = section(c.getName()).bindNested(recordType(c.getType()),
                        defaults == null ? null : (Record) read(c, defaults));
            } else {
                args[i] = convert(raw, c.getGenericType(), keyOf(c.getName()));
            }
        }
        try {
            Constructor<R> canonical = type.getDeclaredConstructor(types);
            canonical.setAccessible(true);
            return canonical.newInstance(args);
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            if (cause instanceof SettingsException s) {
                throw s.under(path);
            }
            if (cause instanceof IllegalArgumentException || cause instanceof NullPointerException) {
                SettingsException rejected = new SettingsException(path.isEmpty() ? type.getSimpleName() : path,
                        "cannot be built: " + cause.getMessage());
                rejected.initCause(cause);
                throw rejected;
            }
            throw new IllegalStateException("cannot build " + type.getName() + ": " + cause, cause);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot build " + type.getName() + " by its canonical constructor", e);
        }
    }

    private <R extends Record> R bindNested(Class<R> type, Record defaults) {
        return bind(type, type.cast(defaults));
    }

    private Object value(String key) {
        Object v = values.get(key);
        if (v == null) {
            throw new SettingsException(keyOf(key), "is required");
        }
        return v;
    }

    private static Object read(RecordComponent c, Record from) {
        try {
            var accessor = c.getAccessor();
            accessor.setAccessible(true);
            return accessor.invoke(from);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot read " + c.getName() + " of " + from, e);
        }
    }

    @SuppressWarnings("unchecked")
    private static Class<? extends Record> recordType(Class<?> type) {
        return (Class<? extends Record>) type;
    }

    /** {@code raw} as a value of {@code target}, or a {@link SettingsException} naming {@code key}. */
    private static Object convert(Object raw, Type target, String key) {
        if (raw == null) {
            throw new SettingsException(key, "is required");
        }
        Class<?> type = target instanceof ParameterizedType p ? (Class<?>) p.getRawType() : (Class<?>) target;
        if (type == double.class || type == Double.class || type == float.class || type == Float.class) {
            if (!(raw instanceof Number n)) {
                throw new SettingsException(key, "expects a number, found " + describe(raw));
            }
            double d = n.doubleValue();
            return type == float.class || type == Float.class ? (Object) (float) d : (Object) d;
        }
        if (type == int.class || type == Integer.class || type == long.class || type == Long.class) {
            if (!(raw instanceof Integer || raw instanceof Long || raw instanceof Short || raw instanceof Byte
                    || raw instanceof BigInteger)) {
                throw new SettingsException(key, "expects an integer, found " + describe(raw));
            }
            BigInteger big = raw instanceof BigInteger b ? b : BigInteger.valueOf(((Number) raw).longValue());
            boolean isInt = type == int.class || type == Integer.class;
            if (big.bitLength() > (isInt ? 31 : 63)) {
                throw new SettingsException(key, "expects an integer, found " + raw + " (out of range)");
            }
            return isInt ? (Object) big.intValue() : (Object) big.longValue();
        }
        if (type == boolean.class || type == Boolean.class) {
            if (!(raw instanceof Boolean)) {
                throw new SettingsException(key, "expects a boolean, found " + describe(raw));
            }
            return raw;
        }
        if (type == String.class) {
            if (!(raw instanceof String)) {
                throw new SettingsException(key, "expects text, found " + describe(raw));
            }
            return raw;
        }
        if (type.isEnum()) {
            Object constant = raw instanceof String s ? constant(type, s) : null;
            if (constant == null) {
                throw new SettingsException(key, "expects one of " + spellings(type) + ", found " + describe(raw));
            }
            return constant;
        }
        if (type == List.class) {
            if (!(raw instanceof List<?> list)) {
                throw new SettingsException(key, "expects a list, found " + describe(raw));
            }
            Type element = target instanceof ParameterizedType p ? p.getActualTypeArguments()[0] : Object.class;
            List<Object> out = new ArrayList<>(list.size());
            for (int i = 0; i < list.size(); i++) {
                out.add(element == Object.class ? list.get(i) : convert(list.get(i), element, key + "[" + i + "]"));
            }
            return Collections.unmodifiableList(out);
        }
        if (type.isRecord()) {
            if (!(raw instanceof Map<?, ?> map)) {
                throw new SettingsException(key, "expects a mapping, found " + describe(raw));
            }
            return of(key, stringKeys(map, key)).bind(recordType(type), null);
        }
        if (type.isInstance(raw)) {
            return raw;
        }
        throw new SettingsException(key, "cannot be read into " + type.getSimpleName() + " from " + describe(raw));
    }

    private static Map<String, Object> stringKeys(Map<?, ?> map, String key) {
        Map<String, Object> out = new LinkedHashMap<>();
        for (Map.Entry<?, ?> e : map.entrySet()) {
            if (!(e.getKey() instanceof String name)) {
                throw new SettingsException(key, "expects text keys, found " + describe(e.getKey()));
            }
            out.put(name, e.getValue());
        }
        return out;
    }

    /** The lower-case kebab spelling of an enum constant: {@code SMALL_CNN} is {@code small-cnn}. */
    public static String spelling(Enum<?> constant) {
        return constant.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    private static Object constant(Class<?> type, String text) {
        String wanted = text.strip().toLowerCase(Locale.ROOT).replace('_', '-');
        for (Object c : type.getEnumConstants()) {
            if (spelling((Enum<?>) c).equals(wanted)) {
                return c;
            }
        }
        return null;
    }

    private static List<String> spellings(Class<?> type) {
        return Arrays.stream(type.getEnumConstants()).map(c -> spelling((Enum<?>) c)).sorted().toList();
    }

    /** A value as a message shows it: text quoted (cut after 40 characters), a mapping or a list by its kind. */
    public static String describe(Object value) {
        if (value instanceof String s) {
            return Require.quote(s);
        }
        if (value instanceof Map<?, ?>) {
            return "a mapping";
        }
        if (value instanceof List<?>) {
            return "a list";
        }
        return String.valueOf(value);
    }

    /**
     * {@code value} as a section holds it, the inverse of binding: a record as a mapping of its components in their
     * order, an enum by its {@link #spelling}, a collection as a list, numbers, booleans and text as they are (so
     * {@code ratio: 1} is written back {@code 1.0}), anything else by its {@code toString}.
     */
    public static Object plain(Object value) {
        if (value == null || value instanceof Number || value instanceof Boolean || value instanceof String) {
            return value;
        }
        if (value instanceof Enum<?> e) {
            return spelling(e);
        }
        if (value instanceof Record r) {
            Map<String, Object> map = new LinkedHashMap<>();
            for (RecordComponent c : r.getClass().getRecordComponents()) {
                try {
                    var accessor = c.getAccessor();
                    accessor.setAccessible(true);
                    map.put(c.getName(), plain(accessor.invoke(r)));
                } catch (ReflectiveOperationException ex) {
                    throw new IllegalStateException("cannot read " + c.getName() + " of " + r, ex);
                }
            }
            return Collections.unmodifiableMap(map);
        }
        if (value instanceof Collection<?> list) {
            List<Object> out = new ArrayList<>(list.size());
            list.forEach(v -> out.add(plain(v)));
            return Collections.unmodifiableList(out);
        }
        if (value instanceof Map<?, ?> m) {
            Map<String, Object> out = new LinkedHashMap<>();
            m.forEach((k, v) -> out.put(String.valueOf(k), plain(v)));
            return Collections.unmodifiableMap(out);
        }
        return value.toString();
    }

    @Override
    public String toString() {
        return (path.isEmpty() ? "" : path + ": ") + values;
    }
}
