package io.lgc4j.core.settings;

import java.util.List;

/**
 * The checks settings records make in their compact constructors, each throwing a {@link SettingsException} that
 * names the key and the value found, in one wording for the library and the configuration alike: a record built in
 * code and the same values read from YAML fail with the same words.
 *
 * <pre>{@code
 * public record Settings(double ratio, int warmupSteps) {
 *     public Settings {
 *         Require.fraction("ratio", ratio);         // "ratio must be > 0, found 0.0", "ratio must be <= 1.0, found 2.0"
 *         Require.atLeast("warmupSteps", warmupSteps, 0);
 *     }
 * }
 * }</pre>
 *
 * <p>A floating-point check is written so that NaN fails it, and a lower bound on a double also refuses infinity
 * ({@code must be finite}).
 */
public final class Require {

    /** How much of a text value a message echoes before cutting it. */
    public static final int ECHOED_CHARACTERS = 40;

    private Require() {
    }

    /** @throws SettingsException {@code <key> is required} when {@code value} is null */
    public static <T> T required(String key, T value) {
        if (value == null) {
            throw new SettingsException(key, "is required");
        }
        return value;
    }

    /** @throws SettingsException when {@code value} is null or blank */
    public static String notEmpty(String key, String value) {
        required(key, value);
        if (value.isBlank()) {
            throw new SettingsException(key, "must not be empty, found " + quote(value));
        }
        return value;
    }

    /** @throws SettingsException {@code must be >= min, found value} */
    public static long atLeast(String key, long value, long min) {
        if (value < min) {
            throw new SettingsException(key, "must be >= " + min + ", found " + value);
        }
        return value;
    }

    /** @throws SettingsException {@code must be <= max, found value} */
    public static long atMost(String key, long value, long max) {
        if (value > max) {
            throw new SettingsException(key, "must be <= " + max + ", found " + value);
        }
        return value;
    }

    /** @throws SettingsException {@code must be >= min, found value}, or {@code must be finite} */
    public static double atLeast(String key, double value, double min) {
        if (!(value >= min)) {
            throw new SettingsException(key, "must be >= " + min + ", found " + value);
        }
        return finite(key, value);
    }

    /** @throws SettingsException {@code must be <= max, found value} (NaN included) */
    public static double atMost(String key, double value, double max) {
        if (!(value <= max)) {
            throw new SettingsException(key, "must be <= " + max + ", found " + value);
        }
        return value;
    }

    /** @throws SettingsException {@code must be > 0, found value} */
    public static long positive(String key, long value) {
        if (value <= 0) {
            throw new SettingsException(key, "must be > 0, found " + value);
        }
        return value;
    }

    /** @throws SettingsException {@code must be > 0, found value} (NaN included), or {@code must be finite} */
    public static double positive(String key, double value) {
        if (!(value > 0)) {
            throw new SettingsException(key, "must be > 0, found " + value);
        }
        return finite(key, value);
    }

    /** A share of something, in (0, 1]: {@link #positive(String, double)}, then {@code must be <= 1.0}. */
    public static double fraction(String key, double value) {
        positive(key, value);
        return atMost(key, value, 1.0);
    }

    /** @throws SettingsException {@code must be in [0, 1), found value} */
    public static double inUnitInterval(String key, double value) {
        if (!(value >= 0 && value < 1)) {
            throw new SettingsException(key, "must be in [0, 1), found " + value);
        }
        return value;
    }

    /** @throws SettingsException {@code must be finite, found value} */
    public static double finite(String key, double value) {
        if (!Double.isFinite(value)) {
            throw new SettingsException(key, "must be finite, found " + value);
        }
        return value;
    }

    /**
     * @param names the allowed spellings, in the order the message lists them
     * @throws SettingsException {@code must not be empty}, or {@code expects one of [a, b], found "x"}
     */
    public static String oneOf(String key, String value, List<String> names) {
        notEmpty(key, value);
        if (!names.contains(value)) {
            throw new SettingsException(key, "expects one of " + names + ", found " + quote(value));
        }
        return value;
    }

    /**
     * A value as messages echo it: in double quotes, and cut after {@link #ECHOED_CHARACTERS} characters with its
     * length given, so that a huge value (a 2 MB name) never floods the console: {@code "aaaa…" (300 characters)}.
     * A cut never splits a surrogate pair.
     */
    public static String quote(String text) {
        if (text.length() <= ECHOED_CHARACTERS) {
            return '"' + text + '"';
        }
        int cut = Character.isHighSurrogate(text.charAt(ECHOED_CHARACTERS - 1)) ? ECHOED_CHARACTERS - 1
                : ECHOED_CHARACTERS;
        return '"' + text.substring(0, cut) + "…\" (" + text.length() + " characters)";
    }
}
