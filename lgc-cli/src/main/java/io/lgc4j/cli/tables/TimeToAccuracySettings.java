package io.lgc4j.cli.tables;

import com.fasterxml.jackson.databind.JsonNode;
import io.lgc4j.cli.netem.LinkShape;
import io.lgc4j.runner.config.ConfigException;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The {@code network} and {@code peers} sections of a time-to-accuracy suite (every key: slow-links.md), e.g.
 * <pre>{@code
 * network: {rates: [unshaped, 10mbit], cpuPerProcess: 0.4, targetAccuracy: 0.85, quick: {rates: [10mbit]}}
 * }</pre>
 *
 * @param rates          the links of the full profile, in table order ({@link LinkShape}: tbf, both directions)
 * @param quickRates     the links of the quick profile
 * @param latencyMs      the tbf queue bound of every shaped link
 * @param cpuPerProcess  cores per process (a cgroup CFS quota), the same for every method
 * @param probeSeconds   the duration of the stream that measures each cap, full profile
 * @param quickProbeSeconds the probe's duration, quick profile
 * @param targetAccuracy the target test accuracy (the first evaluation at or above it), full profile
 * @param quickTargetAccuracy the target, quick profile
 * @param untilTarget    full profile: under each cap, train only the steps a reference run needed ({@link UntilTarget})
 * @param quickUntilTarget the same, quick profile (default: {@code untilTarget}, whose default is false)
 * @param peerScript     the PyTorch DDP peer's script (run with {@code /usr/bin/python3})
 * @param peers          the PyTorch DDP peer's methods, over gloo under the same caps (may be empty)
 */
public record TimeToAccuracySettings(List<LinkShape> rates, List<LinkShape> quickRates, int latencyMs,
                                     double cpuPerProcess, double probeSeconds, double quickProbeSeconds,
                                     double targetAccuracy, double quickTargetAccuracy, boolean untilTarget,
                                     boolean quickUntilTarget, String peerScript, List<Peer> peers) {

    private static final List<String> NETWORK_KEYS = List.of("cpuPerProcess", "latencyMs", "peerScript",
            "probeSeconds", "quick", "rates", "targetAccuracy", "untilTarget");
    private static final List<String> QUICK_KEYS = List.of("probeSeconds", "rates", "targetAccuracy", "untilTarget");
    private static final List<String> PEER_KEYS = List.of("id", "label", "method", "rank", "startIter", "period");
    private static final List<String> PEER_METHODS = List.of("dense", "fp16", "powersgd", "localsgd");
    private static final Pattern ID = Pattern.compile("[a-z0-9][a-z0-9-]*");

    /**
     * A method of the PyTorch peer ({@code ddp_peer.py --method METHOD [--rank RANK] [--start-iter N] [--period H]}),
     * at its best setting unless the suite says otherwise.
     *
     * @param id        the directory name ([a-z0-9-]+)
     * @param label     how the table shows it
     * @param method    dense, fp16, powersgd or localsgd
     * @param rank      PowerSGD's rank r (1 for the others)
     * @param startIter PowerSGD's {@code start_powerSGD_iter} (2 by default, the earliest PowerSGDState allows) or
     *                  post-local SGD's {@code start_localSGD_iter} (the steps of DDP's allreduce before it)
     * @param period    local SGD: the models are averaged every this many steps
     */
    public record Peer(String id, String label, String method, int rank, int startIter, int period) {
        /** The earliest step PyTorch's PowerSGD compresses from (PowerSGDState refuses less). */
        public static final int EARLIEST_POWERSGD_START = 2;
    }

    /** Copies the lists. */
    public TimeToAccuracySettings {
        rates = List.copyOf(rates);
        quickRates = List.copyOf(quickRates);
        peers = List.copyOf(peers);
    }

    /** The links of {@code profile}. */
    public List<LinkShape> rates(Suite.Profile profile) {
        return profile == Suite.Profile.QUICK ? quickRates : rates;
    }

    /** The target accuracy of {@code profile}. */
    public double targetAccuracy(Suite.Profile profile) {
        return profile == Suite.Profile.QUICK ? quickTargetAccuracy : targetAccuracy;
    }

    /** Whether {@code profile} trains under the caps only until the target ({@link UntilTarget}). */
    public boolean untilTarget(Suite.Profile profile) {
        return profile == Suite.Profile.QUICK ? quickUntilTarget : untilTarget;
    }

    /** The probe's seconds in {@code profile}. */
    public double probeSeconds(Suite.Profile profile) {
        return profile == Suite.Profile.QUICK ? quickProbeSeconds : probeSeconds;
    }

    /**
     * Reads the two sections; errors name the suite file and the key.
     *
     * @throws ConfigException on a missing or bad key
     */
    static TimeToAccuracySettings parse(JsonNode network, JsonNode peers, String source) {
        if (network == null || !network.isObject()) {
            throw key(source, "network", network == null ? "is required: rates, cpuPerProcess, targetAccuracy, ..."
                    : "expects a mapping");
        }
        checkKeys(network, NETWORK_KEYS, "network", source);
        JsonNode quick = network.has("quick") ? network.get("quick") : Suite.MAPPER.createObjectNode();
        if (!quick.isObject()) {
            throw key(source, "network.quick", "expects a mapping");
        }
        checkKeys(quick, QUICK_KEYS, "network.quick", source);
        int latencyMs = network.has("latencyMs")
                ? (int) number(network, "network.", "latencyMs", source, 1, 10_000) : LinkShape.DEFAULT_LATENCY_MS;
        List<LinkShape> rates = rates(network.get("rates"), "network.rates", latencyMs, source);
        List<LinkShape> quickRates = quick.has("rates") ? rates(quick.get("rates"), "network.quick.rates", latencyMs,
                source) : rates;
        double cpu = number(network, "network.", "cpuPerProcess", source, 0, 1024);
        double probe = network.has("probeSeconds")
                ? number(network, "network.", "probeSeconds", source, 0.5, 60) : 3;
        double quickProbe = quick.has("probeSeconds")
                ? number(quick, "network.quick.", "probeSeconds", source, 0.5, 60) : probe;
        double target = number(network, "network.", "targetAccuracy", source, 0, 1);
        double quickTarget = quick.has("targetAccuracy")
                ? number(quick, "network.quick.", "targetAccuracy", source, 0, 1) : target;
        boolean until = bool(network, "network.untilTarget", false, source);
        boolean quickUntil = bool(quick, "network.quick.untilTarget", until, source);
        String script = network.has("peerScript") ? network.get("peerScript").asText() : "../shared/peers/ddp_peer.py";
        return new TimeToAccuracySettings(rates, quickRates, latencyMs, cpu, probe, quickProbe, target, quickTarget,
                until, quickUntil, script, peers(peers, source));
    }

    private static List<LinkShape> rates(JsonNode list, String at, int latencyMs, String source) {
        if (list == null || !list.isArray() || list.isEmpty()) {
            throw key(source, at, "expects a non-empty list of rates, e.g. [unshaped, 1gbit, 100mbit, 10mbit]");
        }
        List<LinkShape> rates = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < list.size(); i++) {
            try {
                LinkShape shape = LinkShape.parse(list.get(i).asText(), latencyMs);
                if (!seen.add(shape.label())) {
                    throw key(source, at + "[" + i + "]", "repeats " + shape.label());
                }
                rates.add(shape);
            } catch (IllegalArgumentException e) {
                throw key(source, at + "[" + i + "]", "expects 'unshaped' or a rate such as 100mbit (kbit, mbit or"
                        + " gbit: tc's units, powers of 1000), found \"" + list.get(i).asText() + "\"");
            }
        }
        return rates;
    }

    private static List<Peer> peers(JsonNode list, String source) {
        if (list == null) {
            return List.of();
        }
        if (!list.isArray()) {
            throw key(source, "peers", "expects a list of {id, label, method, rank, startIter, period}");
        }
        List<Peer> peers = new ArrayList<>();
        Set<String> ids = new HashSet<>();
        for (int i = 0; i < list.size(); i++) {
            JsonNode p = list.get(i);
            String at = "peers[" + i + "]";
            if (!p.isObject()) {
                throw key(source, at, "expects a mapping with keys " + String.join(", ", PEER_KEYS));
            }
            checkKeys(p, PEER_KEYS, at, source);
            String id = p.path("id").asText();
            if (!ID.matcher(id).matches() || !ids.add(id)) {
                throw key(source, at + ".id", "must match [a-z0-9][a-z0-9-]* and be unique, found \"" + id + "\"");
            }
            String method = p.path("method").asText();
            if (!PEER_METHODS.contains(method)) {
                throw key(source, at + ".method", "expects one of " + PEER_METHODS + ", found \"" + method + "\"");
            }
            int rank = p.has("rank") ? (int) number(p, at + ".", "rank", source, 1, 64) : 1;
            int start = p.has("startIter") ? (int) number(p, at + ".", "startIter", source,
                    method.equals("powersgd") ? Peer.EARLIEST_POWERSGD_START : 0, 100_000)
                    : Peer.EARLIEST_POWERSGD_START;
            int period = p.has("period") ? (int) number(p, at + ".", "period", source, 1, 100_000) : 4;
            peers.add(new Peer(id, p.has("label") ? p.get("label").asText() : id, method, rank, start, period));
        }
        return peers;
    }

    private static double number(JsonNode node, String at, String name, String source, double min, double max) {
        JsonNode v = node.get(name);
        if (v == null || !v.isNumber() || v.asDouble() < min || v.asDouble() > max) {
            throw key(source, at + name, v == null ? "is required (a number in " + min + ".." + max + ")"
                    : "expects a number in " + min + ".." + max + ", found " + v);
        }
        return v.asDouble();
    }

    private static boolean bool(JsonNode node, String at, boolean absent, String source) {
        JsonNode v = node.get(at.substring(at.lastIndexOf('.') + 1));
        if (v == null) {
            return absent;
        }
        if (!v.isBoolean()) {
            throw key(source, at, "expects true or false, found " + v);
        }
        return v.asBoolean();
    }

    private static void checkKeys(JsonNode node, List<String> allowed, String at, String source) {
        Iterator<String> names = node.fieldNames();
        while (names.hasNext()) {
            String name = names.next();
            if (!allowed.contains(name)) {
                throw ConfigException.forSource(source, "unknown key '" + at + "." + name + "'; allowed keys under '"
                        + at + "': " + String.join(", ", allowed), null);
            }
        }
    }

    private static ConfigException key(String source, String path, String problem) {
        return ConfigException.forKey(path, problem).inSource(source);
    }
}
