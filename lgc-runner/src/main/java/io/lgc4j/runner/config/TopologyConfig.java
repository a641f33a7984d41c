package io.lgc4j.runner.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import io.lgc4j.core.link.Shortcuts;
import io.lgc4j.core.method.Methods;
import io.lgc4j.core.method.SectionKeys;
import io.lgc4j.core.settings.Section;

import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code topology} section: how gradients travel between the workers. The runner owns {@code type} and the
 * shortcuts every topology takes ({@link Shortcuts}); the other keys are the topology providers'
 * ({@link Methods#sectionKeys}: LGC-PS's {@code support}, the sharded server's {@code servers},
 * {@code fusionBufferBytes} and {@code shardBy}, local SGD's {@code period} and {@code localFrom}, accepted and
 * written with {@code type: local-sgd} only), each record with its defaults and checks, written in the order of its
 * declared rank.
 * <pre>{@code
 * topology:
 *   type: ring                   # ring | ps | local-sgd
 *   support: leader              # lgc on ps: leader (the leader's top-k, relayed) | own (each rank its own)
 *   servers: 1                   # ps: S server shards, each an even share of every fusion buffer (seeds/002)
 *   fusionBufferBytes: 1048576   # ps: a fusion buffer's bytes, a positive multiple of 4
 *   shardBy: buffers             # ps: buffers (Herring's) | blocks (every block split evenly) | layers (whole)
 *   supportPath: relay           # relay (through the server / round the ring) | direct (the leader to each worker)
 *   directBelowBytes: 0          # ring: fp32 allreduces below this many bytes go to every rank in one leg (0: never)
 *   period: 4                    # local-sgd only: the models averaged after every 4th local step, the first included
 *   localFrom: 0                 # local-sgd only: steps before it average gradients (the dense ring)
 * }</pre>
 * <pre>{@code
 * int servers = config.topology().keys(Shards.class).servers();
 * TopologyConfig four = config.topology().with("servers", 4);   // bound and checked as a file's would be
 * }</pre>
 *
 * @param type ring allreduce, parameter server or local SGD
 * @param keys the key records, one per {@link #declared()} entry in its order, each at its defaults when left out
 */
public record TopologyConfig(TopologyType type, List<Record> keys) {

    /** Default of {@code topology.type}. */
    public static final TopologyType DEFAULT_TYPE = TopologyType.RING;

    /** The runner's own keys: the shortcuts, between the sharded server's and local SGD's. */
    private static final SectionKeys SHORTCUTS = new SectionKeys("topology", 30, Shortcuts.DEFAULT);

    /**
     * Fills the records left out with their defaults, in the declared order; rejects a record no provider declares,
     * and keys of a type-only record away from their defaults with another type.
     *
     * @throws ConfigException if {@code type} is missing, or {@code period} or {@code localFrom} (a key written with
     *                         its type only) is set with another type
     * @throws IllegalArgumentException if a record is of a type no provider declares under {@code topology}
     */
    public TopologyConfig {
        Checks.required("topology.type", type);
        Checks.required("topology.keys", keys);
        Map<Class<?>, Record> given = new LinkedHashMap<>();
        for (Record r : keys) {
            given.put(Checks.required("topology.keys", r).getClass(), r);
        }
        List<Record> filled = new ArrayList<>();
        for (SectionKeys d : declared()) {
            Record r = given.remove(d.defaults().getClass());
            filled.add(r == null ? d.defaults() : r);
            if (r != null && !accepts(d, type) && !r.equals(d.defaults())) {
                Map<?, ?> values = (Map<?, ?>) Section.plain(r);
                Map<?, ?> defaults = (Map<?, ?>) Section.plain(d.defaults());
                for (Map.Entry<?, ?> e : values.entrySet()) {
                    if (!e.getValue().equals(defaults.get(e.getKey()))) {
                        throw typeOnly(d, String.valueOf(e.getKey()), e.getValue(), type);
                    }
                }
            }
        }
        if (!given.isEmpty()) {
            throw new IllegalArgumentException("no provider declares keys of " + given.keySet() + " under topology;"
                    + " declared: " + declared().stream().map(d -> d.defaults().getClass().getName()).toList());
        }
        keys = List.copyOf(filled);
    }

    /**
     * A topology section with every key but {@code type} at its default.
     *
     * @param type ring allreduce, parameter server or local SGD
     */
    public TopologyConfig(TopologyType type) {
        this(type, List.of());
    }

    /** @return the topology section with every key at its default */
    public static TopologyConfig defaults() {
        return new TopologyConfig(DEFAULT_TYPE);
    }

    /**
     * The key records of the section in their written order: the providers' ({@link Methods#sectionKeys}) and the
     * runner's shortcuts, by rank.
     */
    static List<SectionKeys> declared() {
        return Declared.KEYS;
    }

    private static final class Declared {
        static final List<SectionKeys> KEYS = load();

        private static List<SectionKeys> load() {
            List<SectionKeys> keys = new ArrayList<>(Methods.installed().sectionKeys("topology"));
            keys.add(SHORTCUTS);
            keys.sort(Comparator.comparingInt(SectionKeys::rank));
            return List.copyOf(keys);
        }
    }

    /**
     * One record of keys, e.g. {@code keys(Shards.class).servers()}.
     *
     * @throws IllegalArgumentException if no provider declares that record under {@code topology}
     */
    public <R extends Record> R keys(Class<R> recordType) {
        for (Record r : keys) {
            if (recordType.isInstance(r)) {
                return recordType.cast(r);
            }
        }
        throw new IllegalArgumentException("no provider declares keys of " + recordType.getName() + " under topology");
    }

    /** @return the shortcuts through the mesh */
    public Shortcuts shortcuts() {
        return keys(Shortcuts.class);
    }

    /**
     * The same section with {@code key} set to {@code value}, bound and checked as a file's would be.
     *
     * @throws ConfigException naming the key when it is unknown, of the wrong kind or out of range
     */
    public TopologyConfig with(String key, Object value) {
        Map<String, Object> map = yaml();
        map.put(key, value);
        return fromYaml(map);
    }

    private static boolean accepts(SectionKeys d, TopologyType type) {
        return d.types().isEmpty() || d.types().contains(type.toString());
    }

    private static ConfigException typeOnly(SectionKeys d, String key, Object value, Object type) {
        return ConfigException.forKey("topology." + key, "applies to topology.type "
                + String.join(" or ", d.types().stream().sorted().toList()) + " only, found " + value
                + " with topology.type " + type + "; remove it or change the type");
    }

    /**
     * The section as {@code config.yaml} writes it: {@code type}, then each record's keys in the declared order (a
     * type-only record's with its type only).
     */
    @JsonValue
    private Map<String, Object> yaml() {
        Map<String, Object> map = new LinkedHashMap<>();
        map.put("type", type.toString());
        List<SectionKeys> declared = declared();
        for (int i = 0; i < declared.size(); i++) {
            if (accepts(declared.get(i), type)) {
                @SuppressWarnings("unchecked")
                Map<String, Object> plain = (Map<String, Object>) Section.plain(keys.get(i));
                map.putAll(plain);
            }
        }
        return map;
    }

    /**
     * The section as a file gives it, a missing key at its default.
     *
     * @throws ConfigException naming the first key that is unknown, of the wrong kind or out of range
     */
    @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
    static TopologyConfig fromYaml(Map<String, Object> given) {
        TopologyType type = SectionBinding.registeredName("topology.type", given.get("type"), DEFAULT_TYPE,
                TopologyType::find, TopologyType.names());
        Map<String, Object> rest = new LinkedHashMap<>(given);
        rest.remove("type");
        List<String> allowed = new ArrayList<>(List.of("type"));
        for (SectionKeys d : declared()) {
            for (RecordComponent c : d.defaults().getClass().getRecordComponents()) {
                allowed.add(c.getName());
            }
        }
        for (String key : rest.keySet()) {
            if (!allowed.contains(key)) {
                throw ConfigException.unknownKey("topology." + key, allowed);
            }
        }
        List<Map<String, Object>> split = new ArrayList<>();
        for (SectionKeys d : declared()) {
            Map<String, Object> own = new LinkedHashMap<>();
            for (RecordComponent c : d.defaults().getClass().getRecordComponents()) {
                if (rest.containsKey(c.getName())) {
                    Object value = rest.get(c.getName());
                    if (!accepts(d, type)) {
                        throw typeOnly(d, c.getName(), value, type);
                    }
                    own.put(c.getName(), value);
                }
            }
            split.add(own);
        }
        List<Record> keys = new ArrayList<>();
        for (int i = 0; i < declared().size(); i++) {
            keys.add(bind(split.get(i), declared().get(i).defaults()));
        }
        return new TopologyConfig(type, keys);
    }

    @SuppressWarnings("unchecked")
    private static <R extends Record> R bind(Map<String, Object> given, R defaults) {
        return SectionBinding.bind("topology", given, (Class<R>) defaults.getClass(), defaults);
    }
}
