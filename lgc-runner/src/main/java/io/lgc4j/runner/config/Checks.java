package io.lgc4j.runner.config;

import io.lgc4j.core.settings.Require;
import io.lgc4j.core.settings.SettingsException;

import java.util.function.Supplier;

/**
 * The range checks the runner records' compact constructors share: lgc-core's {@link Require}, whose wording every
 * settings record uses, with its {@link SettingsException} turned into the {@link ConfigException} of the key, which
 * the records of the configuration throw.
 */
final class Checks {

    private Checks() {
    }

    static <T> T required(String key, T value) {
        return check(() -> Require.required(key, value));
    }

    static <T> T orDefault(T value, T fallback) {
        return value == null ? fallback : value;
    }

    static String notEmpty(String key, String value) {
        return check(() -> Require.notEmpty(key, value));
    }

    static long atLeast(String key, long value, long min) {
        return check(() -> Require.atLeast(key, value, min));
    }

    static long atMost(String key, long value, long max) {
        return check(() -> Require.atMost(key, value, max));
    }

    static double atLeastDouble(String key, double value, double min) {
        return check(() -> Require.atLeast(key, value, min));
    }

    static double atMostDouble(String key, double value, double max) {
        return check(() -> Require.atMost(key, value, max));
    }

    static long positive(String key, long value) {
        return check(() -> Require.positive(key, value));
    }

    static double positive(String key, double value) {
        return check(() -> Require.positive(key, value));
    }

    static double inUnitInterval(String key, double value) {
        return check(() -> Require.inUnitInterval(key, value));
    }

    /** @see Require#quote */
    static String quote(String text) {
        return Require.quote(text);
    }

    /** The value {@code check} returns, or the {@link ConfigException} of the key it names. */
    static <T> T check(Supplier<T> check) {
        return check("", check);
    }

    /** As {@link #check(Supplier)}, for a check that names its keys within {@code section}. */
    static <T> T check(String section, Supplier<T> check) {
        try {
            return check.get();
        } catch (SettingsException e) {
            SettingsException named = e.under(section);
            throw ConfigException.forKey(named.key(), named.problem());
        }
    }
}
