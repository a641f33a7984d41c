package io.lgc4j.runner.config;

/**
 * The range checks the records' compact constructors share, each throwing a {@link ConfigException} that names the
 * key and the value found, in one wording for the whole configuration.
 */
final class Checks {

    /** How much of a text value a message echoes before cutting it. */
    static final int ECHOED_CHARACTERS = 40;

    private Checks() {
    }

    static <T> T required(String key, T value) {
        if (value == null) {
            throw ConfigException.forKey(key, "is required");
        }
        return value;
    }

    static <T> T orDefault(T value, T fallback) {
        return value == null ? fallback : value;
    }

    static String notEmpty(String key, String value) {
        required(key, value);
        if (value.isBlank()) {
            throw ConfigException.forKey(key, "must not be empty, found " + quote(value));
        }
        return value;
    }

    static long atLeast(String key, long value, long min) {
        if (value < min) {
            throw ConfigException.forKey(key, "must be >= " + min + ", found " + value);
        }
        return value;
    }

    static long atMost(String key, long value, long max) {
        if (value > max) {
            throw ConfigException.forKey(key, "must be <= " + max + ", found " + value);
        }
        return value;
    }

    static double atLeastDouble(String key, double value, double min) {
        if (!(value >= min)) {
            throw ConfigException.forKey(key, "must be >= " + min + ", found " + value);
        }
        return finite(key, value);
    }

    static double atMostDouble(String key, double value, double max) {
        if (!(value <= max)) {
            throw ConfigException.forKey(key, "must be <= " + max + ", found " + value);
        }
        return value;
    }

    static long positive(String key, long value) {
        if (value <= 0) {
            throw ConfigException.forKey(key, "must be > 0, found " + value);
        }
        return value;
    }

    static double positive(String key, double value) {
        // Written as !(value > 0) so that NaN is rejected too.
        if (!(value > 0)) {
            throw ConfigException.forKey(key, "must be > 0, found " + value);
        }
        return finite(key, value);
    }

    static double inUnitInterval(String key, double value) {
        if (!(value >= 0 && value < 1)) {
            throw ConfigException.forKey(key, "must be in [0, 1), found " + value);
        }
        return value;
    }

    static double finite(String key, double value) {
        if (!Double.isFinite(value)) {
            throw ConfigException.forKey(key, "must be finite, found " + value);
        }
        return value;
    }

    /**
     * A value as messages echo it: in double quotes, and cut after {@link #ECHOED_CHARACTERS} characters with its
     * length given, so that a huge value (a 2 MB name) never floods the console:
     * {@code "aaaa…" (300 characters)}.
     */
    static String quote(String text) {
        if (text.length() <= ECHOED_CHARACTERS) {
            return '"' + text + '"';
        }
        int cut = Character.isHighSurrogate(text.charAt(ECHOED_CHARACTERS - 1)) ? ECHOED_CHARACTERS - 1
                : ECHOED_CHARACTERS;
        return '"' + text.substring(0, cut) + "…\" (" + text.length() + " characters)";
    }
}
