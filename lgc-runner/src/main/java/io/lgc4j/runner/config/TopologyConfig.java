package io.lgc4j.runner.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import io.lgc4j.core.link.Shortcuts;
import io.lgc4j.core.settings.Section;
import io.lgc4j.core.shard.FusionPlan;
import io.lgc4j.lgc.ps.LgcPsTopology.SupportPolicy;
import io.lgc4j.ps.topology.Shards;
import io.lgc4j.ring.topology.LocalSgdTopology;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The {@code topology} section: how gradients travel between the workers. This record only holds the keys; each
 * topology defines their defaults and checks: {@code support} LGC-PS's ({@link SupportPolicy}), {@code servers},
 * {@code fusionBufferBytes} and {@code shardBy} the sharded server's ({@link Shards}), {@code supportPath} and
 * {@code directBelowBytes} every topology's ({@link Shortcuts}), {@code period} and {@code localFrom} local SGD's
 * ({@link LocalSgdTopology.Settings}, accepted and written with {@code type: local-sgd} only).
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
 * @param type      ring allreduce, parameter server or local SGD
 * @param support   how LGC on the parameter server picks the support
 * @param shards    the parameter server's shards (one with a ring)
 * @param shortcuts the shortcuts through the mesh
 * @param localSgd  when local SGD averages ({@link LocalSgdTopology.Settings#DEFAULT} with any other type)
 */
public record TopologyConfig(TopologyType type, SupportPolicy support, Shards shards, Shortcuts shortcuts,
                             LocalSgdTopology.Settings localSgd) {

    /** Default of {@code topology.type}. */
    public static final TopologyType DEFAULT_TYPE = TopologyType.RING;
    /** Default of {@code topology.support}. */
    public static final SupportPolicy DEFAULT_SUPPORT = SupportPolicy.LEADER;
    /** Default of {@code topology.servers}. */
    public static final int DEFAULT_SERVERS = Shards.DEFAULT_SERVERS;

    /**
     * Rejects a missing component, and local SGD's keys away from their defaults with another type; the shards
     * checked their keys when they were built.
     *
     * @throws ConfigException if a component is missing, or {@code period} or {@code localFrom} is set with a type
     *                         other than {@code local-sgd}
     */
    public TopologyConfig {
        Checks.required("topology.type", type);
        Checks.required("topology.support", support);
        Checks.required("topology.shards", shards);
        Checks.required("topology.shortcuts", shortcuts);
        Checks.required("topology.localSgd", localSgd);
        if (!TopologyType.LOCAL_SGD.equals(type)) {
            LocalSgdTopology.Settings d = LocalSgdTopology.Settings.DEFAULT;
            if (localSgd.period() != d.period()) {
                throw localSgdOnly("period", localSgd.period(), type);
            }
            if (localSgd.localFrom() != d.localFrom()) {
                throw localSgdOnly("localFrom", localSgd.localFrom(), type);
            }
        }
    }

    /** A topology section without local SGD's keys. */
    public TopologyConfig(TopologyType type, SupportPolicy support, Shards shards, Shortcuts shortcuts) {
        this(type, support, shards, shortcuts, LocalSgdTopology.Settings.DEFAULT);
    }

    /**
     * A local SGD section ({@code type: local-sgd}) without shortcuts.
     *
     * @param localSgd when it averages the models
     */
    public static TopologyConfig localSgd(LocalSgdTopology.Settings localSgd) {
        return new TopologyConfig(TopologyType.LOCAL_SGD, DEFAULT_SUPPORT, Shards.DEFAULT, Shortcuts.DEFAULT, localSgd);
    }

    private static ConfigException localSgdOnly(String key, Object value, Object type) {
        return ConfigException.forKey("topology." + key, "applies to topology.type " + LocalSgdTopology.TYPE
                + " only, found " + value + " with topology.type " + type + "; remove it or change the type");
    }

    /** A topology section without shortcuts ({@link Shortcuts#DEFAULT}). */
    public TopologyConfig(TopologyType type, SupportPolicy support, Shards shards) {
        this(type, support, shards, Shortcuts.DEFAULT);
    }

    /**
     * A topology section with the default support policy and one server.
     *
     * @param type ring allreduce or parameter server
     */
    public TopologyConfig(TopologyType type) {
        this(type, DEFAULT_SUPPORT);
    }

    /**
     * A topology section with one server.
     *
     * @param type    ring allreduce or parameter server
     * @param support how LGC on the parameter server picks the support
     */
    public TopologyConfig(TopologyType type, SupportPolicy support) {
        this(type, support, Shards.DEFAULT);
    }

    /** @return the topology section with every key at its default */
    public static TopologyConfig defaults() {
        return new TopologyConfig(DEFAULT_TYPE, DEFAULT_SUPPORT);
    }

    /** @return the parameter server's shards, 1..1024 (1 with a ring) */
    public int servers() {
        return shards.servers();
    }

    /** @return the fusion buffers the shards split, in bytes */
    public int fusionBufferBytes() {
        return shards.fusionBufferBytes();
    }

    /** @return how the shards share the gradient */
    public FusionPlan.Placement shardBy() {
        return shards.shardBy();
    }

    /**
     * The same section with {@code count} server shards.
     *
     * @throws ConfigException if {@code count} is out of range
     */
    public TopologyConfig withServers(int count) {
        return new TopologyConfig(type, support, Checks.check("topology",
                () -> new Shards(count, shards.fusionBufferBytes(), shards.shardBy())), shortcuts, localSgd);
    }

    /**
     * The section as {@code config.yaml} writes it: {@code type}, {@code support}, the shards' keys, the shortcuts',
     * then with {@code type: local-sgd} local SGD's.
     */
    @JsonValue
    private Map<String, Object> yaml() {
        Map<String, Object> map = new LinkedHashMap<>();
        map.put("type", type.toString());
        map.put("support", Section.plain(support));
        @SuppressWarnings("unchecked")
        Map<String, Object> shardKeys = (Map<String, Object>) Section.plain(shards);
        map.putAll(shardKeys);
        @SuppressWarnings("unchecked")
        Map<String, Object> shortcutKeys = (Map<String, Object>) Section.plain(shortcuts);
        map.putAll(shortcutKeys);
        if (TopologyType.LOCAL_SGD.equals(type)) {
            @SuppressWarnings("unchecked")
            Map<String, Object> localKeys = (Map<String, Object>) Section.plain(localSgd);
            map.putAll(localKeys);
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
        Map<String, Object> shardKeys = new LinkedHashMap<>(given);
        shardKeys.remove("type");
        Object support = shardKeys.remove("support");
        List<String> allowed = Stream.of(Stream.of("type", "support"),
                Stream.of(Shards.class.getRecordComponents()).map(c -> c.getName()),
                Stream.of(Shortcuts.class.getRecordComponents()).map(c -> c.getName()),
                Stream.of(LocalSgdTopology.Settings.class.getRecordComponents()).map(c -> c.getName()))
                .flatMap(k -> k).toList();
        for (String key : shardKeys.keySet()) {
            if (!allowed.contains(key)) {
                throw ConfigException.unknownKey("topology." + key, allowed);
            }
        }
        Map<String, Object> shortcutKeys = new LinkedHashMap<>();
        for (var c : Shortcuts.class.getRecordComponents()) {
            if (shardKeys.containsKey(c.getName())) {
                shortcutKeys.put(c.getName(), shardKeys.remove(c.getName()));
            }
        }
        Map<String, Object> localKeys = new LinkedHashMap<>();
        for (var c : LocalSgdTopology.Settings.class.getRecordComponents()) {
            if (shardKeys.containsKey(c.getName())) {
                Object value = shardKeys.remove(c.getName());
                if (!TopologyType.LOCAL_SGD.equals(type)) {
                    throw localSgdOnly(c.getName(), value, type);
                }
                localKeys.put(c.getName(), value);
            }
        }
        SupportPolicy policy = support == null ? DEFAULT_SUPPORT : Checks.check(
                () -> Section.of("topology", Map.of("support", support)).choice("support", SupportPolicy.class));
        Shards shards = SectionBinding.bind("topology", shardKeys, Shards.class, Shards.DEFAULT);
        Shortcuts shortcuts = SectionBinding.bind("topology", shortcutKeys, Shortcuts.class, Shortcuts.DEFAULT);
        LocalSgdTopology.Settings localSgd = SectionBinding.bind("topology", localKeys,
                LocalSgdTopology.Settings.class, LocalSgdTopology.Settings.DEFAULT);
        return new TopologyConfig(type, policy, shards, shortcuts, localSgd);
    }
}
