package io.lgc4j.core.checkpoint;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What must match for a run to resume from a checkpoint: K, S, the model, and the config. The manifest stores the
 * signature of the run that wrote it; {@link CheckpointManifest#checkCompatible} compares it with the resuming run's.
 * The config is flat — dotted keys to string values ({@code compressor.ratio → 0.001}) — so that a mismatch is
 * reported key by key; whoever builds the signature flattens its config the same way every time.
 * <pre>{@code
 * RunSignature thisRun = new RunSignature(4, 1, ModelIdentity.of(layout), flatConfig);
 * manifest.checkCompatible(thisRun);   // throws, listing every difference, if the checkpoint is another run's
 * }</pre>
 *
 * @param workers  K, the number of ranks (each wrote a part)
 * @param services S, the number of services (a parameter server: 1; a ring: 0), each of which wrote a part
 * @param model    the model's parameter count and fingerprint
 * @param config   the run's config as dotted keys and string values, sorted by key (a copy is kept)
 */
public record RunSignature(int workers, int services, ModelIdentity model, SortedMap<String, String> config) {

    /** Checks the counts and copies the config. */
    public RunSignature {
        if (workers < 1) {
            throw new IllegalArgumentException("workers (K) must be >= 1, found " + workers);
        }
        if (services < 0) {
            throw new IllegalArgumentException("services (S) must be >= 0, found " + services);
        }
        Objects.requireNonNull(model, "model");
        TreeMap<String, String> copy = new TreeMap<>();
        for (Map.Entry<String, String> e : Objects.requireNonNull(config, "config").entrySet()) {
            if (e.getKey() == null || e.getKey().isEmpty()) {
                throw new IllegalArgumentException("config keys must not be empty");
            }
            copy.put(e.getKey(), Objects.requireNonNull(e.getValue(), () -> "config value of " + e.getKey()));
        }
        config = Collections.unmodifiableSortedMap(copy);
    }

    /** A signature with the config given as any map (its keys are sorted). */
    public RunSignature(int workers, int services, ModelIdentity model, Map<String, String> config) {
        this(workers, services, model, new TreeMap<>(config));
    }

    /**
     * Whether {@code key} is ignored by {@code patterns}: a pattern ending in {@code .*} ignores every key under that
     * prefix ({@code runtime.*} ignores {@code runtime.type} and {@code runtime.net.port}); any other pattern ignores
     * exactly that key.
     */
    public static boolean ignored(String key, Collection<String> patterns) {
        for (String p : patterns) {
            if (p.endsWith(".*") ? key.startsWith(p.substring(0, p.length() - 1)) : key.equals(p)) {
                return true;
            }
        }
        return false;
    }

    /**
     * How {@code thisRun} differs from this signature (the checkpoint's), one line per difference: K, S, the model,
     * then every config key not ignored whose value differs or that only one side has (except a key of
     * {@link CheckpointManifest#ADDED_KEYS} that only this run has, at its default), in key order. Empty when the run
     * may resume.
     */
    List<String> differences(RunSignature thisRun, Collection<String> ignoredKeys) {
        List<String> lines = new ArrayList<>();
        if (workers != thisRun.workers) {
            lines.add("the checkpoint was written by K = " + Messages.plural(workers, "worker")
                    + ", this run has K = " + thisRun.workers);
        }
        if (services != thisRun.services) {
            lines.add("the checkpoint was written with S = " + Messages.plural(services, "service")
                    + ", this run has S = " + thisRun.services);
        }
        if (!model.equals(thisRun.model)) {
            lines.add("another model: the checkpoint's has " + Messages.plural(model.parameterCount(), "parameter")
                    + " (fingerprint " + model.fingerprint() + "), this run's has "
                    + Messages.plural(thisRun.model.parameterCount(), "parameter") + " (fingerprint "
                    + thisRun.model.fingerprint() + ")");
        }
        List<String> keys = new ArrayList<>();
        TreeSet<String> all = new TreeSet<>(config.keySet());
        all.addAll(thisRun.config.keySet());
        for (String key : all) {
            if (ignored(key, ignoredKeys)) {
                continue;
            }
            String ours = config.get(key);
            String theirs = thisRun.config.get(key);
            if (ours == null) {
                if (!theirs.equals(CheckpointManifest.ADDED_KEYS.get(key))) {
                    keys.add(key + ": only in this run (" + theirs + ")");
                }
            } else if (theirs == null) {
                keys.add(key + ": only in the checkpoint (" + ours + ")");
            } else if (!ours.equals(theirs)) {
                keys.add(key + ": checkpoint " + ours + ", this run " + theirs);
            }
        }
        if (!keys.isEmpty()) {
            lines.add("config keys differ" + (ignoredKeys.isEmpty() ? "" : " (ignoring "
                    + String.join(", ", ignoredKeys) + ")") + ":");
            keys.forEach(k -> lines.add("  " + k));
        }
        return lines;
    }
}
