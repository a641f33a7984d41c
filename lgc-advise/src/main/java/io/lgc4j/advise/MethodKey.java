package io.lgc4j.advise;

import io.lgc4j.core.stage.StageSchedule;
import io.lgc4j.core.train.Overlap;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * What a method does to the math of a step, as one line of text: two methods with the same key take the same steps
 * to a target on the same model and data, so committed evidence for one holds for the other.
 *
 * <p>Built from the method's description (what {@code summary.json} records as {@code method}), its stage schedule and
 * its overlap mode; the index codec, routes, shards and {@link Overlap#BACKWARD} change no math and are left out.
 * Every dense fp32 synchronous method, on any topology, has the key {@link #DENSE}; local SGD
 * ({@link #MODEL_AVERAGING}) is keyed by its description, like a compressed method (docs/architecture/runner.md).
 *
 * <pre>{@code
 * MethodKey.of(Map.of("topology", "ps", "compressor", "none", "compressorSettings", Map.of(), "values", "fp32",
 *         "topologySettings", Map.of()), StageSchedule.ALWAYS_FULL, Overlap.BACKWARD);     // DENSE
 * MethodKey.of(scalecomRing, StageSchedule.denseWarmup(50), Overlap.NONE).text();
 * // compressor=scalecom;compressorSettings.learnedRatio=0.001;...;stages=50/rest;topology=ring;...;values=fp32
 * }</pre>
 *
 * @param text {@code dense}, or the description's entries sorted by key ({@code a.b=value}, lists {@code [x y]}) joined
 *             by {@code ;}, then {@code stages=F/T} and, when delayed, {@code overlap=delayed|predicted}
 */
public record MethodKey(String text) {

    /** Dense fp32 synchronous steps, on any topology. */
    public static final MethodKey DENSE = new MethodKey("dense");

    /**
     * The topologies whose steps do not all apply the gradients' mean ({@code local-sgd}: each rank its own between
     * averagings of the models), so that without a compressor they are still not {@link #DENSE}.
     */
    public static final Set<String> MODEL_AVERAGING = Set.of("local-sgd");

    /** Rejects a blank key. */
    public MethodKey {
        Objects.requireNonNull(text, "text");
        if (text.isBlank()) {
            throw new IllegalArgumentException("a method key is not blank");
        }
    }

    /**
     * The key of a method.
     *
     * @param method   its description: {@code topology}, {@code compressor}, {@code compressorSettings},
     *                 {@code values}, {@code topologySettings}, optionally {@code codec} and {@code warmup}
     * @param schedule its stage schedule as the compressor resolves it ({@link StageSchedule#ALWAYS_FULL} for dense)
     * @param overlap  its overlap mode
     * @throws IllegalArgumentException when {@code compressor} or {@code values} is missing
     */
    public static MethodKey of(Map<String, ?> method, StageSchedule schedule, Overlap overlap) {
        Object compressor = method.get("compressor");
        Object values = method.get("values");
        if (compressor == null || values == null) {
            throw new IllegalArgumentException("a method's description names its compressor and values, found keys "
                    + new TreeMap<>(method).keySet());
        }
        if ("none".equals(compressor) && "fp32".equals(values) && !method.containsKey("warmup")
                && !overlap.delaysApplication() && !MODEL_AVERAGING.contains(String.valueOf(method.get("topology")))) {
            return DENSE;
        }
        SortedMap<String, String> flat = new TreeMap<>();
        for (Map.Entry<String, ?> e : method.entrySet()) {
            if (!e.getKey().equals("codec")) {
                flatten(e.getKey(), e.getValue(), flat);
            }
        }
        StringBuilder key = new StringBuilder();
        flat.forEach((k, v) -> key.append(k).append('=').append(v).append(';'));
        key.append("stages=").append(count(schedule.fullIterations(), "all")).append('/')
                .append(count(schedule.topKIterations(), "rest"));
        if (overlap.delaysApplication()) {
            key.append(";overlap=").append(overlap.configName());
        }
        return new MethodKey(key.toString());
    }

    /** Whether this is {@link #DENSE}. */
    public boolean isDense() {
        return equals(DENSE);
    }

    private static String count(int steps, String unbounded) {
        return steps == Integer.MAX_VALUE ? unbounded : Integer.toString(steps);
    }

    private static void flatten(String prefix, Object value, SortedMap<String, String> into) {
        if (value instanceof Map<?, ?> map) {
            for (Map.Entry<?, ?> e : map.entrySet()) {
                flatten(prefix + "." + e.getKey(), e.getValue(), into);
            }
        } else if (value instanceof List<?> list) {
            StringBuilder s = new StringBuilder("[");
            for (Object item : list) {
                s.append(s.length() > 1 ? " " : "").append(item);
            }
            into.put(prefix, s.append(']').toString());
        } else {
            into.put(prefix, String.valueOf(value));
        }
    }

    @Override
    public String toString() {
        return text;
    }
}
