package io.lgc4j.runner.config;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * How the configuration's enums are spelled in YAML: kebab case when written ({@code small-cnn}), and read
 * case-insensitively in kebab, snake or constant spelling ({@code small-cnn}, {@code small_cnn}, {@code SMALL_CNN}).
 *
 * <p>One rule for every enum, so no enum carries its own name table and the CLI can parse an option the same way
 * the YAML loader does (the registered names {@link CompressorType} and {@link TopologyType} are read the same way):
 * <pre>{@code
 * Optional<UpdaterType> u = ConfigEnums.find(UpdaterType.class, "SGD");   // UpdaterType.SGD
 * ConfigEnums.yamlName(UpdaterType.NESTEROVS);                           // "nesterovs"
 * ConfigEnums.yamlNames(UpdaterType.class);                               // [adam, nesterovs, sgd]
 * }</pre>
 */
public final class ConfigEnums {

    private ConfigEnums() {
    }

    /**
     * @param value an enum constant
     * @return its YAML spelling: the constant name in lower case with {@code _} replaced by {@code -}
     */
    public static String yamlName(Enum<?> value) {
        return value.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /**
     * @param <E>  the enum
     * @param type an enum class
     * @return the YAML spellings of all its constants, sorted alphabetically (the order error messages use)
     */
    public static <E extends Enum<E>> List<String> yamlNames(Class<E> type) {
        return yamlNamesOf(type);
    }

    /**
     * @param <E>  the enum
     * @param type an enum class
     * @param text a spelling from YAML or the command line; surrounding blanks are ignored
     * @return the constant it names, or empty if it names none
     */
    public static <E extends Enum<E>> Optional<E> find(Class<E> type, String text) {
        Objects.requireNonNull(type, "type");
        if (text == null) {
            return Optional.empty();
        }
        return Optional.ofNullable(type.cast(lookup(type, text)));
    }

    /** The constant of {@code type} that {@code text} names, or null; for callers that hold only a {@code Class<?>}. */
    static Object lookup(Class<?> type, String text) {
        String wanted = text.strip().toLowerCase(Locale.ROOT).replace('_', '-');
        for (Object constant : type.getEnumConstants()) {
            if (yamlName((Enum<?>) constant).equals(wanted)) {
                return constant;
            }
        }
        return null;
    }

    /** The sorted YAML spellings of an enum class known only as {@code Class<?>}. */
    static List<String> yamlNamesOf(Class<?> type) {
        return Arrays.stream(type.getEnumConstants()).map(c -> yamlName((Enum<?>) c)).sorted().toList();
    }
}
