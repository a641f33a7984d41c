package io.lgc4j.core.method;

import io.lgc4j.core.compress.CompressorProvider;
import io.lgc4j.core.settings.ResolvedConfig;
import io.lgc4j.core.settings.SettingsException;
import io.lgc4j.core.train.Topology;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The registry of compressors and topologies: every {@link CompressorProvider} and {@link TopologyProvider} on the
 * class path, found by {@link ServiceLoader}, looked up by the names configurations use.
 *
 * <pre>{@code
 * Methods methods = Methods.installed();
 * CompressorProvider<?> dgc = methods.compressor("dgc");
 * TopologyProvider ps = methods.topology("ps", "dgc");       // the generic parameter server
 * TopologyProvider lgcPs = methods.topology("ps", "lgc");    // LGC-PS, which handles lgc itself
 * methods.compressor("powersgd");   // IllegalArgumentException: no compressor 'powersgd' is registered;
 *                                   //   registered compressors: [dgc, lgc, none, randomk, s2, scalecom, topk] ...
 * }</pre>
 *
 * <p>Names are matched ignoring case, with {@code _} read as {@code -} (as configuration enums are). Two providers of
 * the same compressor type, two generic providers of one topology type, or two providers of one topology type that
 * both claim a compressor type are an error when the registry is built, naming both classes.
 */
public final class Methods {

    private static final String COMPRESSOR_SERVICE = "META-INF/services/" + CompressorProvider.class.getName();
    private static final String TOPOLOGY_SERVICE = "META-INF/services/" + TopologyProvider.class.getName();

    private final Map<String, CompressorProvider<?>> compressors;
    /** Topology type → (compressor type, or "" for the generic provider) → provider. */
    private final Map<String, Map<String, TopologyProvider>> topologies;
    /** The sections the providers declare, by name: name → the defaults record. */
    private final Map<String, Record> sections;
    /** The keys topology providers add to other sections: section → its key records by rank. */
    private final Map<String, List<SectionKeys>> sectionKeys;
    /** Every topology provider once, in the order their rules run ({@link #checkAcross}). */
    private final List<TopologyProvider> topologyRules;

    private Methods(Map<String, CompressorProvider<?>> compressors,
                    Map<String, Map<String, TopologyProvider>> topologies, Map<String, Record> sections,
                    Map<String, List<SectionKeys>> sectionKeys, List<TopologyProvider> topologyRules) {
        this.compressors = compressors;
        this.topologies = topologies;
        this.sections = sections;
        this.sectionKeys = sectionKeys;
        this.topologyRules = topologyRules;
    }

    /** Loaded on first use, once per class loader of this class. */
    private static final class Installed {
        static final Methods METHODS = load(Methods.class.getClassLoader());
    }

    /** The providers on the class path of this library (loaded once). */
    public static Methods installed() {
        return Installed.METHODS;
    }

    /**
     * The providers {@code loader} sees.
     *
     * @throws IllegalStateException when a provider cannot be loaded or two claim the same name
     */
    public static Methods load(ClassLoader loader) {
        List<CompressorProvider<?>> compressors = new ArrayList<>();
        List<TopologyProvider> topologies = new ArrayList<>();
        try {
            for (CompressorProvider<?> p : ServiceLoader.load(compressorProviderType(), loader)) {
                compressors.add(p);
            }
            for (TopologyProvider p : ServiceLoader.load(TopologyProvider.class, loader)) {
                topologies.add(p);
            }
        } catch (ServiceConfigurationError e) {
            throw new IllegalStateException("cannot load the compressor and topology providers listed in "
                    + COMPRESSOR_SERVICE + " and " + TOPOLOGY_SERVICE + ": " + e.getMessage(), e);
        }
        return of(compressors, topologies);
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static Class<CompressorProvider<?>> compressorProviderType() {
        return (Class) CompressorProvider.class;
    }

    /**
     * A registry of exactly these providers (tests, or an application that chooses its own).
     *
     * @throws IllegalStateException when two providers claim the same name
     */
    public static Methods of(Collection<? extends CompressorProvider<?>> compressorProviders,
                             Collection<? extends TopologyProvider> topologyProviders) {
        Map<String, CompressorProvider<?>> compressors = new TreeMap<>();
        for (CompressorProvider<?> p : compressorProviders) {
            String type = checkedName(p.type(), p, "type()");
            CompressorProvider<?> before = compressors.putIfAbsent(type, p);
            if (before != null) {
                throw new IllegalStateException("two providers of compressor '" + type + "': "
                        + before.getClass().getName() + " and " + p.getClass().getName());
            }
        }
        Map<String, Map<String, TopologyProvider>> topologies = new TreeMap<>();
        for (TopologyProvider p : topologyProviders) {
            String type = checkedName(p.type(), p, "type()");
            Map<String, TopologyProvider> ofType = topologies.computeIfAbsent(type, t -> new LinkedHashMap<>());
            List<String> claimed = new ArrayList<>();
            for (String c : p.compressorTypes()) {
                claimed.add(checkedName(c, p, "compressorTypes()"));
            }
            if (claimed.isEmpty()) {
                claimed.add("");
            }
            for (String c : claimed) {
                TopologyProvider before = ofType.putIfAbsent(c, p);
                if (before != null) {
                    throw new IllegalStateException("two providers of topology '" + type + "' for "
                            + (c.isEmpty() ? "every compressor (generic)" : "compressor '" + c + "'") + ": "
                            + before.getClass().getName() + " and " + p.getClass().getName());
                }
            }
        }
        topologies.replaceAll((t, m) -> Collections.unmodifiableMap(m));
        List<TopologyProvider> distinct = new ArrayList<>();
        for (TopologyProvider p : topologyProviders) {
            if (distinct.stream().noneMatch(d -> d == p)) {
                distinct.add(p);
            }
        }
        // a provider's rules run in the order of its keys (LGC-PS's support before the shards' servers), a
        // provider without keys after them, ties by type: the first error a config reports does not depend on the
        // class path's order
        distinct.sort(Comparator.comparingInt(Methods::firstRank).thenComparing(TopologyProvider::type)
                .thenComparing(p -> p.getClass().getName()));
        return new Methods(Collections.unmodifiableMap(compressors), Collections.unmodifiableMap(topologies),
                declaredSections(compressors.values()), declaredKeys(distinct), List.copyOf(distinct));
    }

    private static int firstRank(TopologyProvider p) {
        return p.sectionKeys().stream().mapToInt(SectionKeys::rank).min().orElse(Integer.MAX_VALUE);
    }

    /**
     * Every topology provider's {@link TopologyProvider#sectionKeys()}, by section, by rank; a key declared twice is
     * refused.
     */
    private static Map<String, List<SectionKeys>> declaredKeys(List<TopologyProvider> providers) {
        Map<String, List<SectionKeys>> keys = new TreeMap<>();
        Map<String, TopologyProvider> owners = new TreeMap<>();
        for (TopologyProvider p : providers) {
            for (SectionKeys k : p.sectionKeys()) {
                for (var c : k.defaults().getClass().getRecordComponents()) {
                    String key = k.section() + "." + c.getName();
                    TopologyProvider before = owners.putIfAbsent(key, p);
                    if (before != null) {
                        throw new IllegalStateException("two providers of key '" + key + "': "
                                + before.getClass().getName() + " and " + p.getClass().getName());
                    }
                }
                keys.computeIfAbsent(k.section(), s -> new ArrayList<>()).add(k);
            }
        }
        keys.replaceAll((s, list) -> {
            list.sort(Comparator.comparingInt(SectionKeys::rank));
            return List.copyOf(list);
        });
        return Collections.unmodifiableMap(keys);
    }

    /** Every provider's {@link CompressorProvider#sections()}, by name; a name declared twice is refused. */
    private static Map<String, Record> declaredSections(Collection<CompressorProvider<?>> providers) {
        Map<String, Record> sections = new TreeMap<>();
        Map<String, CompressorProvider<?>> owners = new TreeMap<>();
        for (CompressorProvider<?> p : providers) {
            for (Map.Entry<String, Record> e : p.sections().entrySet()) {
                String name = e.getKey();
                if (name == null || name.isBlank() || e.getValue() == null) {
                    throw new IllegalStateException(p.getClass().getName() + ".sections() must map names to"
                            + " defaults records, found " + name + " → " + e.getValue());
                }
                CompressorProvider<?> before = owners.putIfAbsent(name, p);
                if (before != null) {
                    throw new IllegalStateException("two providers of section '" + name + "': "
                            + before.getClass().getName() + " and " + p.getClass().getName());
                }
                sections.put(name, e.getValue());
            }
        }
        return Collections.unmodifiableMap(sections);
    }

    private static String checkedName(String name, Object provider, String what) {
        if (name == null || name.isBlank() || !name.equals(normalize(name))) {
            throw new IllegalStateException(provider.getClass().getName() + "." + what + " must be a lower-case"
                    + " name without blanks or '_', found " + (name == null ? "null" : "'" + name + "'"));
        }
        return name;
    }

    /** A name as the registry matches it: blanks around it dropped, lower case, {@code _} read as {@code -}. */
    public static String normalize(String name) {
        return name.strip().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /**
     * The provider of compressor {@code type}.
     *
     * @throws IllegalArgumentException when none is registered, listing those that are
     */
    public CompressorProvider<?> compressor(String type) {
        CompressorProvider<?> p = type == null ? null : compressors.get(normalize(type));
        if (p == null) {
            throw new IllegalArgumentException("no compressor '" + type + "' is registered; registered compressors: "
                    + compressorTypes() + " (a compressor registers its CompressorProvider in " + COMPRESSOR_SERVICE
                    + ")");
        }
        return p;
    }

    /**
     * The provider that builds topology {@code type} for {@code compressorType}: the one that handles that compressor
     * itself if there is one, else the topology's generic provider.
     *
     * @throws IllegalArgumentException when no topology of that type is registered, or none of that type takes the
     *                                  compressor, listing what is registered
     */
    public TopologyProvider topology(String type, String compressorType) {
        Map<String, TopologyProvider> ofType = type == null ? null : topologies.get(normalize(type));
        if (ofType == null) {
            throw new IllegalArgumentException("no topology '" + type + "' is registered; registered topologies: "
                    + topologyTypes() + " (a topology registers its TopologyProvider in " + TOPOLOGY_SERVICE + ")");
        }
        TopologyProvider special = compressorType == null ? null : ofType.get(normalize(compressorType));
        TopologyProvider p = special != null ? special : ofType.get("");
        if (p == null) {
            throw new IllegalArgumentException("topology '" + normalize(type) + "' has no provider for compressor '"
                    + compressorType + "': it registers providers only for compressors "
                    + new TreeSet<>(ofType.keySet()) + " and no generic one");
        }
        return p;
    }

    /**
     * A new topology of {@code type} for {@code request}: {@link #topology(String, String)} for the request's
     * compressor, then {@link TopologyProvider#create}.
     */
    public Topology newTopology(String type, TopologyRequest request) {
        Objects.requireNonNull(request, "request");
        return topology(type, request.compressor().type()).create(request);
    }

    /**
     * @return the top-level sections the providers add to every configuration ({@link CompressorProvider#sections}):
     *         name → the record of its defaults, by name
     */
    public Map<String, Record> sections() {
        return sections;
    }

    /**
     * @param section a section another owner writes, e.g. {@code topology}
     * @return the key records the topology providers add to it ({@link TopologyProvider#sectionKeys}), by rank
     */
    public List<SectionKeys> sectionKeys(String section) {
        return sectionKeys.getOrDefault(section, List.of());
    }

    /**
     * Every provider's rules across sections: the topology providers' ({@link TopologyProvider#checkAcross}) in the
     * order of their keys' ranks, then the compressor providers' ({@link CompressorProvider#checkAcross}) by type.
     *
     * @throws SettingsException the first rule {@code config} breaks, naming its key
     */
    public void checkAcross(ResolvedConfig config) {
        Objects.requireNonNull(config, "config");
        for (TopologyProvider p : topologyRules) {
            p.checkAcross(config);
        }
        for (CompressorProvider<?> p : compressors.values()) {
            p.checkAcross(config);
        }
    }

    /** @return the registered compressor types, sorted */
    public List<String> compressorTypes() {
        return List.copyOf(compressors.keySet());
    }

    /** @return the registered topology types, sorted */
    public List<String> topologyTypes() {
        return List.copyOf(topologies.keySet());
    }

    /** @return every compressor provider, by type */
    public Collection<CompressorProvider<?>> compressors() {
        return compressors.values();
    }

    /**
     * @param type a topology type
     * @return its providers: the compressor types each handles ({@code ""} for the generic one) → provider
     */
    public Map<String, TopologyProvider> topologiesOf(String type) {
        return topologies.getOrDefault(normalize(type), Map.of());
    }

    @Override
    public String toString() {
        return "Methods[compressors=" + compressorTypes() + ", topologies=" + topologies.keySet() + "]";
    }
}
