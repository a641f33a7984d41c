package io.lgc4j.core.warmup;

import io.lgc4j.core.comm.ValueEncoding;
import io.lgc4j.core.compress.BoundCompressor;
import io.lgc4j.core.compress.Compressor;
import io.lgc4j.core.compress.CompressorProvider;
import io.lgc4j.core.method.Methods;
import io.lgc4j.core.method.TopologyRequest;
import io.lgc4j.core.settings.ResolvedConfig;
import io.lgc4j.core.settings.Section;
import io.lgc4j.core.settings.SettingsException;
import io.lgc4j.core.stage.Stage;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A resolved {@code warmup} section: what the FULL stage runs through. The default, {@link #NONE}, is the dense
 * warm-up every topology has always run: with it a topology builds exactly the exchange it built before (no wrapper,
 * no other frame). A topology provider reads it with {@link #of(TopologyRequest)} and its exchanges wrap their main
 * exchange with {@link WarmupExchange#wrap}.
 *
 * <pre>{@code
 * Warmup w = Warmup.of(request);              // warmup: {type: powersgd, rank: 2}
 * w.compressor();                             // PowerSGD rank 2, run by the FULL steps
 * new Warmup(null, ValueEncoding.FP16, true); // the dense warm-up in fp16 (warmup: {values: fp16})
 * }</pre>
 *
 * @param compressor  the compressor of the FULL steps' compressible blocks, or {@code null} for dense
 * @param values      the encoding of the FULL steps' values, or {@code null} for the run's ({@code inherit})
 * @param carryMemory whether the warm-up compressor's residual goes into the main method's memory at the switch
 */
public record Warmup(Compressor compressor, ValueEncoding values, boolean carryMemory) {

    /** The section's name in a configuration, and of the warm-up's checkpoint sections under the exchange's. */
    public static final String SECTION = "warmup";

    /** The dense warm-up in the run's encoding: today's FULL stage. */
    public static final Warmup NONE = new Warmup(null, null, true);

    /** @return whether the FULL stage is today's: dense, in the run's encoding */
    public boolean isNone() {
        return compressor == null && values == null;
    }

    /** The warm-up of {@code request}'s configuration (its {@code warmup} section), from the installed registry. */
    public static Warmup of(TopologyRequest request) {
        return of(request.config(), request.seed(), Methods.installed());
    }

    /**
     * The warm-up {@code config} describes: its {@code warmup} section's own keys bound to {@link WarmupSection},
     * the compressor's settings read by its provider from the {@code compressor} section with the {@code warmup}
     * section's other keys (and {@code type}, {@code values}) over it.
     *
     * @param seed the run's seed, for compressors that draw (PowerSGD's first Qs, random-k's supports)
     * @throws SettingsException naming {@code warmup.type} for an unknown type or one that cannot be a warm-up (a
     *                           compressor with a COMPRESSED stage: LGC, whose autoencoder has not trained yet), or
     *                           the {@code warmup.} key the compressor's settings reject
     */
    public static Warmup of(ResolvedConfig config, long seed, Methods registry) {
        Section section = config.section(SECTION);
        Map<String, Object> ownKeys = new LinkedHashMap<>();
        Map<String, Object> compressorKeys = new LinkedHashMap<>();
        section.values().forEach((k, v) -> (WarmupSection.OWN_KEYS.contains(k) ? ownKeys : compressorKeys).put(k, v));
        WarmupSection own = Section.of(SECTION, ownKeys).bind(WarmupSection.class, WarmupSection.DEFAULT);
        ValueEncoding values = own.values().equals(WarmupSection.INHERIT) ? null : ValueEncoding.byName(own.values());
        CompressorProvider<?> provider = provider(own.type(), registry);
        checkKeys(own.type(), provider, compressorKeys.keySet());
        if (provider.type().equals(WarmupSection.NONE)) {
            return new Warmup(null, values, own.carryMemory());
        }
        Map<String, Map<String, Object>> sections = new LinkedHashMap<>(config.sections());
        Map<String, Object> compressor = new LinkedHashMap<>(config.section("compressor").values());
        compressor.putAll(compressorKeys);
        compressor.put("type", own.type());
        if (values != null) {
            compressor.put("values", own.values());
        }
        sections.put("compressor", compressor);
        BoundCompressor<?> bound;
        try {
            bound = BoundCompressor.bind(provider, new ResolvedConfig(sections));
        } catch (SettingsException e) {
            String key = e.key().startsWith("compressor.") ? e.key().substring("compressor.".length()) : e.key();
            SettingsException renamed = new SettingsException(SECTION + "." + key, e.problem());
            renamed.initCause(e);
            throw renamed;
        }
        return new Warmup(bound.create(seed).orElse(null), values, own.carryMemory());
    }

    /**
     * The types {@code warmup.type} accepts: every registered compressor whose stages stop before COMPRESSED, so
     * {@code none} and the baselines but not LGC.
     */
    public static List<String> types(Methods registry) {
        List<String> types = new ArrayList<>();
        for (String type : registry.compressorTypes()) {
            if (!registry.compressor(type).stages().contains(Stage.COMPRESSED)) {
                types.add(type);
            }
        }
        return List.copyOf(types);
    }

    /**
     * The keys a {@code warmup} section with {@code type} may hold beside its own: the compressor's
     * ({@link CompressorProvider#sectionKeys()}) but {@code type} and {@code values}, which are the section's own;
     * none for {@code none}.
     *
     * @throws SettingsException naming {@code warmup.type} as {@link #of} does
     */
    public static Set<String> compressorKeys(String type, Methods registry) {
        return ownKeysOf(provider(type, registry));
    }

    private static CompressorProvider<?> provider(String type, Methods registry) {
        List<String> allowed = types(registry);
        CompressorProvider<?> provider;
        try {
            provider = registry.compressor(type);
        } catch (IllegalArgumentException e) {
            throw new SettingsException(SECTION + ".type", "expects one of " + allowed + ", found "
                    + Section.describe(type));
        }
        if (provider.stages().contains(Stage.COMPRESSED)) {
            throw new SettingsException(SECTION + ".type", "cannot be " + provider.type() + ": its autoencoder has"
                    + " not trained during the warm-up (it trains in TOP_K, after it); allowed: " + allowed);
        }
        return provider;
    }

    /** The compressor's keys but the section's own; none for the dense warm-up. */
    private static Set<String> ownKeysOf(CompressorProvider<?> provider) {
        Set<String> keys = new LinkedHashSet<>();
        if (!provider.type().equals(WarmupSection.NONE)) {
            keys.addAll(provider.sectionKeys());
            keys.removeAll(WarmupSection.OWN_KEYS);
        }
        return keys;
    }

    private static void checkKeys(String type, CompressorProvider<?> provider, Set<String> given) {
        Set<String> allowed = new LinkedHashSet<>(WarmupSection.OWN_KEYS);
        Set<String> compressorKeys = ownKeysOf(provider);
        allowed.addAll(compressorKeys);
        for (String key : given) {
            if (!compressorKeys.contains(key)) {
                throw new SettingsException(SECTION + "." + key, "is not a key of warmup.type " + type + "; allowed: "
                        + allowed.stream().sorted().toList());
            }
        }
    }

    /** The warm-up as a result file records it: type, its settings, values and carryMemory. */
    public Map<String, Object> describe() {
        Map<String, Object> map = new LinkedHashMap<>();
        map.put("type", compressor == null ? WarmupSection.NONE : compressor.name());
        if (compressor != null) {
            map.put("settings", Section.plain(compressor.settings()));
        }
        map.put("values", values == null ? WarmupSection.INHERIT : values.toString());
        map.put("carryMemory", carryMemory);
        return map;
    }
}
