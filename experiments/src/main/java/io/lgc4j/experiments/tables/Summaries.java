package io.lgc4j.experiments.tables;

import io.lgc4j.core.comm.TrafficKind;

import java.util.List;
import java.util.Map;

/** Reading a run's {@code summary.json} (as written by the runner) for the tables. */
final class Summaries {

    private Summaries() {
    }

    /** The stages the run went through, in order, each with its figures ({@code bytesByStage}). */
    @SuppressWarnings("unchecked")
    static Map<String, Map<String, Object>> stages(Map<String, Object> summary) {
        return (Map<String, Map<String, Object>>) summary.get("bytesByStage");
    }

    /** The run's last stage: where a method spends the rest of training (FULL, TOP_K or COMPRESSED). */
    static String steadyStage(Map<String, Object> summary) {
        String last = null;
        for (String stage : stages(summary).keySet()) {
            last = stage;
        }
        if (last == null) {
            throw new IllegalArgumentException("summary of run '" + summary.get("run") + "' has no stage: no step ran");
        }
        return last;
    }

    /**
     * Mean bytes sent per worker and step in {@code stage} by kind and in total ({@code total}); {@code who} is
     * {@code workerSentPerStep} (every worker), {@code latentSenderSentPerStep} or {@code otherWorkerSentPerStep}.
     */
    @SuppressWarnings("unchecked")
    static Map<String, Double> sent(Map<String, Object> summary, String stage, String who) {
        Map<String, Object> st = stages(summary).get(stage);
        if (st == null) {
            return Map.of();
        }
        Map<String, Number> raw = (Map<String, Number>) st.get(who);
        return raw == null ? Map.of() : raw.entrySet().stream().collect(java.util.stream.Collectors.toMap(
                Map.Entry::getKey, e -> e.getValue().doubleValue()));
    }

    /**
     * The information a node sends per step: everything it sent but the one-off weight shipments (the model's
     * initial broadcast, the autoencoder's weights at the switch), which the run totals count instead; NaN when
     * nothing was selected.
     */
    static double information(Map<String, Double> sent) {
        if (sent.isEmpty()) {
            return Double.NaN;
        }
        return sent.getOrDefault("total", 0.0) - sent.getOrDefault(TrafficKind.MODEL_WEIGHTS.name(), 0.0)
                - sent.getOrDefault(TrafficKind.AE_WEIGHTS.name(), 0.0);
    }

    /** Mean time per step of {@code phase} ({@code wall}, {@code compute}, ...) in {@code stage}, in seconds. */
    @SuppressWarnings("unchecked")
    static double seconds(Map<String, Object> summary, String stage, String phase) {
        Map<String, Object> st = stages(summary).get(stage);
        Map<String, Number> times = (Map<String, Number>) st.get("meanPhaseTimesPerStep");
        Number ms = times.get(phase + "_ms");
        return ms == null ? Double.NaN : ms.doubleValue() / 1000;
    }

    /** Steps the run spent in {@code stage}. */
    static long steps(Map<String, Object> summary, String stage) {
        Map<String, Object> st = stages(summary).get(stage);
        return st == null ? 0 : ((Number) st.get("steps")).longValue();
    }

    /** Bytes sent by the endpoints {@code [from, to)} over the whole run, setup included. */
    @SuppressWarnings("unchecked")
    static long sentTotal(Map<String, Object> summary, int from, int to) {
        List<Number> sent = (List<Number>) summary.get("bytesSentPerEndpoint");
        long sum = 0;
        for (int e = from; e < Math.min(to, sent.size()); e++) {
            sum += sent.get(e).longValue();
        }
        return sum;
    }

    static int workers(Map<String, Object> summary) {
        return ((Number) summary.get("workers")).intValue();
    }

    static double accuracy(Map<String, Object> summary) {
        return ((Number) summary.get("finalTestAccuracy")).doubleValue();
    }

    static double wallSeconds(Map<String, Object> summary) {
        return ((Number) summary.get("wall_ms")).doubleValue() / 1000;
    }
}
