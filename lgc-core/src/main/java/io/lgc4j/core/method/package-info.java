/**
 * The registry of methods: compressors and topologies found by name, with their settings. It sits above
 * {@code train} (a topology provider builds a {@code Topology}); the compressor SPI is in {@code compress}, the
 * settings binding in {@code settings}.
 *
 * <p>A compressor family registers a {@link io.lgc4j.core.compress.CompressorProvider} (its type as written in YAML,
 * its settings record, how to build it, which stages it uses); a topology registers a
 * {@link io.lgc4j.core.method.TopologyProvider} (its type, and the compressor types it builds classes of its own
 * for). {@link io.lgc4j.core.method.Methods} finds them and looks them up by name; an unknown name fails with a
 * message that lists the registered ones. Settings records are bound from a
 * {@link io.lgc4j.core.settings.ResolvedConfig} by component name ({@link io.lgc4j.core.settings.Section}), and a bad
 * setting is a {@link io.lgc4j.core.settings.SettingsException} naming its key.
 *
 * <p><b>Why {@link java.util.ServiceLoader}</b> and not a sealed list: the modules that hold topologies
 * ({@code topology-ps}, {@code topology-ring}) and LGC ({@code lgc}) depend on this one, never
 * the other way, so a list here could not name them; the application that runs configurations would have to import
 * every topology module and switch on names, and a compressor from a third-party jar could not be added without
 * editing that switch. With {@code ServiceLoader} each jar lists its providers in
 * {@code META-INF/services/io.lgc4j.core.compress.CompressorProvider} (or {@code io.lgc4j.core.method.TopologyProvider}) and whatever is
 * on the class path is found: the runner imports no topology module, and adding a compressor is its class, its
 * settings record and one line in that file. DJL finds its engines the same way. What stays closed is the set of
 * payload kinds ({@link io.lgc4j.core.compress.RankState}: gather, shared support, sketch): a new kind changes the
 * wire protocol and every topology, a new compressor of an existing kind does not.
 *
 * <pre>{@code
 * Methods methods = Methods.installed();
 * BoundCompressor<?> dgc = BoundCompressor.bind(methods.compressor("dgc"), config);
 * Topology topology = methods.newTopology("ring", new TopologyRequest(dgc, IndexCodecs.defaultCodec(), 42, config));
 * }</pre>
 */
package io.lgc4j.core.method;
