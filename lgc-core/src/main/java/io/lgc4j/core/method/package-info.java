/**
 * The registry of methods: compressors and topologies found by name, with their settings. A compressor family
 * registers a {@link io.lgc4j.core.compress.CompressorProvider}, a topology a
 * {@link io.lgc4j.core.method.TopologyProvider}, through {@link java.util.ServiceLoader}, so whatever is on the class
 * path is found; {@link io.lgc4j.core.method.Methods} looks them up, and an unknown name fails listing the registered
 * ones. Settings records are bound from a {@link io.lgc4j.core.settings.ResolvedConfig} by component name
 * ({@link io.lgc4j.core.settings.Section}); a bad setting is a {@link io.lgc4j.core.settings.SettingsException}. The
 * set of payload kinds ({@link io.lgc4j.core.compress.RankState}) stays closed.
 *
 * <pre>{@code
 * BoundCompressor<?> dgc = BoundCompressor.bind(Methods.installed().compressor("dgc"), config);
 * }</pre>
 */
package io.lgc4j.core.method;
