package io.lgc4j.core.compress;

import io.lgc4j.core.settings.ResolvedConfig;
import io.lgc4j.core.settings.SettingsException;
import io.lgc4j.core.stage.Stage;

import java.lang.reflect.RecordComponent;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The service a compressor family registers so that configurations can name it: its YAML type, its settings record,
 * how to build the compressor and which stages a run with it goes through. Found by {@link java.util.ServiceLoader}
 * (see {@code Methods}) from one line in {@code META-INF/services/io.lgc4j.core.compress.CompressorProvider}. The
 * settings record's component names are the section's keys; its compact constructor checks them
 * ({@link SettingsException#require}). Implementations are stateless with a public no-argument constructor.
 *
 * <pre>{@code
 * public static final class Provider implements CompressorProvider<Settings> {
 *     public String type() { return "mine"; }                        // compressor: {type: mine, ...}
 *     public Class<Settings> settingsType() { return Settings.class; }
 *     public Optional<Settings> defaults() { return Optional.of(new Settings(0.001, 4)); }
 *     public Optional<Compressor> create(Settings s, long seed) { return Optional.of(new MyCompressor(s)); }
 * }
 * }</pre>
 *
 * @param <S> the settings record
 */
public interface CompressorProvider<S extends Record> {

    /** The name configurations use ({@code compressor.type}), lower case: {@code topk}, {@code dgc}, ... */
    String type();

    /** The settings record of this compressor. */
    Class<S> settingsType();

    /**
     * The value of each setting a configuration leaves out, when the compressor has defaults of its own. The shipped
     * compressors have none: the configuration's {@code compressor} section fills in its shared keys
     * ({@code ratio}, {@code momentum}, ...) before binding.
     */
    default Optional<S> defaults() {
        return Optional.empty();
    }

    /**
     * The keys this compressor reads from the {@code compressor} section; a configuration accepts them under
     * {@code compressor} (whichever type is chosen) and checks them when this type is. Default: the settings
     * record's component names.
     */
    default Set<String> sectionKeys() {
        Set<String> keys = new LinkedHashSet<>();
        Arrays.stream(settingsType().getRecordComponents()).map(RecordComponent::getName).forEach(keys::add);
        return keys;
    }

    /**
     * This compressor's settings from a resolved configuration. Default: the {@code compressor} section bound to
     * {@link #settingsType()} by component name, missing keys from {@link #defaults()}.
     *
     * @throws SettingsException naming the dotted key that is missing, of the wrong kind or out of range
     */
    default S settings(ResolvedConfig config) {
        return config.section("compressor").bind(settingsType(), defaults().orElse(null));
    }

    /**
     * The top-level sections this compressor adds to every configuration, whichever compressor it names: the
     * section's name → the record of its defaults (its components are the keys, its compact constructor the checks).
     * A configuration binds and writes each one, a missing key at its default; two providers may not declare the
     * same name. Default: none. LGC's: {@code autoencoder} → {@code AutoencoderSection.DEFAULT}.
     */
    default Map<String, Record> sections() {
        return Map.of();
    }

    /**
     * The rules that tie this compressor's keys to other sections, checked on every configuration (whichever
     * compressor it names) once each section has checked its own keys. Default: none.
     *
     * @param config the resolved configuration, every section as {@code config.yaml} writes it
     * @throws SettingsException naming the dotted key at fault, with the values that disagree
     */
    default void checkAcross(ResolvedConfig config) {
    }

    /**
     * The compressor of these settings; empty for no compression ({@code none}).
     *
     * @param settings the settings, already checked by the record
     * @param seed     the run's seed, for compressors whose ranks draw the same random choices without a message
     */
    Optional<Compressor> create(S settings, long seed);

    /**
     * The stages a run with this compressor goes through, in {@link Stage} order: {@code FULL} alone (no
     * compression), {@code FULL, TOP_K} (a dense warm-up, then the compressor: the default), or
     * {@code FULL, TOP_K, COMPRESSED} (LGC: the autoencoder trains during TOP_K).
     */
    default Set<Stage> stages() {
        return EnumSet.of(Stage.FULL, Stage.TOP_K);
    }
}
