package io.lgc4j.ps.topology;

import io.lgc4j.core.metrics.StepMetrics;
import io.lgc4j.core.train.DistributedTrainer;
import io.lgc4j.core.train.TestModels;
import io.lgc4j.core.train.TrainingResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A traced in-process run (parameter server, K = 2, 3 steps, checkpoints after steps 1 and 2): its merged trace against a golden file with the times
 * taken out (the events, their order per thread and their arguments are deterministic, the times are not), every
 * interval complete, every send's arrow ending at a receive; and the run computes the same bits as without a trace.
 * {@link #generateGolden} rewrites the golden file when the trace's content changes on purpose.
 */
class TracedRunTest {
    private static final String GOLDEN = "traced-run.golden";
    private static final Pattern FIELD = Pattern.compile("\"(ph|pid|tid|ts|dur|id)\":\"?([^,\"}]+)\"?");
    /** What differs between two runs of the same bits: times and waits. */
    private static final Pattern TIMES = Pattern.compile(",\"(ts|dur)\":-?[0-9.]+|,?\"waited_us\":[0-9]+"
            + "|\"anchor_[a-z_]+\":[0-9]+,?");

    private static TrainingResult train(Path trace) {
        DistributedTrainer.Builder b = DistributedTrainer.builder().model(TestModels.mlp(1))
                .data(TestModels.data(2 * 8 * 3, 2)).workers(2).batchSizePerWorker(8)
                .topology(new ParameterServerTopology());
        if (trace != null) {
            // and checkpoints after steps 1 and 2, whose spans the trace shows on every endpoint
            b.trace(trace).checkpoints(trace.resolveSibling("run"), 2);
        }
        return b.build().fit(1);
    }

    @Test
    void shouldWriteTheGoldenTraceAndComputeTheSameBitsAsWithoutIt(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("trace.json");
        TrainingResult traced = train(file);
        TrainingResult plain = train(null);

        assertEquals(plain.replicaChecksums(), traced.replicaChecksums());
        assertEquals(plain.steps().size(), traced.steps().size());
        for (int s = 0; s < plain.steps().size(); s++) {
            StepMetrics a = plain.steps().get(s);
            StepMetrics b = traced.steps().get(s);
            assertEquals(a.loss(), b.loss(), "loss of step " + s);
            for (int e = 0; e < 3; e++) {
                assertArrayEquals(a.traffic().row(e), b.traffic().row(e), "traffic of endpoint " + e + " step " + s);
            }
        }

        List<String> events = events(file);
        assertTrue(Files.isRegularFile(dir.resolve("trace").resolve("e0.json")), "rank 0's own file");
        Map<String, Double> sends = new HashMap<>();
        Map<String, Double> receives = new HashMap<>();
        for (String e : events) {
            Map<String, String> f = fields(e);
            String ph = f.get("ph");
            if (ph.equals("X")) {
                for (String key : List.of("ts", "dur", "pid", "tid")) {
                    assertTrue(f.containsKey(key), key + " missing in " + e);
                }
                assertTrue(Double.parseDouble(f.get("dur")) >= 0, e);
            }
            if (ph.equals("s")) {
                sends.put(f.get("id"), Double.parseDouble(f.get("ts")));
            }
            if (ph.equals("f")) {
                receives.put(f.get("id"), Double.parseDouble(f.get("ts")));
            }
        }
        // per step: 2 workers push to the server, the server answers both
        assertEquals(3 * 4, sends.size(), "training frames sent");
        assertEquals(sends.keySet(), receives.keySet(), "every send's arrow ends at its receive");
        sends.forEach((id, ts) -> assertTrue(receives.get(id) >= ts, "frame " + id + " received before it was sent"));

        String golden = new String(TracedRunTest.class.getResourceAsStream(GOLDEN).readAllBytes(),
                StandardCharsets.UTF_8);
        // the losses are the plain run's (checked above, step by step); their float bits depend on the CPU kind, so the
        // golden file's are not compared
        assertEquals(withoutLosses(golden), withoutLosses(normalized(events)));
    }

    /** The merged trace's events, one per line as the merge writes them. */
    private static List<String> events(Path file) throws IOException {
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        assertTrue(lines.get(0).startsWith("{\"traceEvents\":["), lines.get(0));
        assertTrue(lines.get(lines.size() - 1).contains("\"displayTimeUnit\":\"ms\""), lines.get(lines.size() - 1));
        List<String> events = new ArrayList<>();
        for (String line : lines.subList(1, lines.size() - 1)) {
            events.add(line.endsWith(",") ? line.substring(0, line.length() - 1) : line);
        }
        return events;
    }

    private static Map<String, String> fields(String event) {
        Map<String, String> f = new HashMap<>();
        Matcher m = FIELD.matcher(event);
        while (m.find()) {
            f.putIfAbsent(m.group(1), m.group(2));
        }
        return f;
    }

    /** The events without their times, grouped by process and thread in the order each thread wrote them. */
    private static final Pattern LOSS = Pattern.compile("\"loss\":[-0-9.Ee]+|\"loss\":NaN");

    private static String withoutLosses(String trace) {
        return LOSS.matcher(trace).replaceAll("\"loss\":_");
    }

    static String normalized(List<String> events) {
        Map<String, List<String>> byThread = new LinkedHashMap<>();
        for (String e : events) {
            Map<String, String> f = fields(e);
            String key = String.format("%3s %3s", f.get("pid"), f.get("tid"));
            String timeless = TIMES.matcher(e).replaceAll("");
            if (e.startsWith("{\"name\":\"checkpoint\"")) {
                timeless = timeless.replaceAll("\"bytes\":[0-9]+,", ""); // a part's size is not the point here
            }
            if ("C".equals(f.get("ph"))) {
                timeless = timeless.replaceAll(",\"args\":\\{.*}}$", "}"); // the machine's CPU counters
            }
            byThread.computeIfAbsent(key, k -> new ArrayList<>()).add(timeless);
        }
        StringBuilder b = new StringBuilder();
        byThread.keySet().stream().sorted().forEach(k -> byThread.get(k).forEach(e -> b.append(e).append('\n')));
        return b.toString();
    }

    /** Rewrites the golden file from a fresh traced run: {@code generateGolden(Path.of("topology-ps"))}. */
    static void generateGolden(Path module) throws IOException {
        Path dir = Files.createTempDirectory("traced-run");
        Path file = dir.resolve("trace.json");
        train(file);
        Files.writeString(module.resolve("src/test/resources/io/lgc4j/ps/topology/" + GOLDEN),
                normalized(events(file)), StandardCharsets.UTF_8);
    }

    public static void main(String[] args) throws IOException {
        generateGolden(Path.of(args.length > 0 ? args[0] : "topology-ps"));
        System.out.println(Arrays.toString(args) + ": golden trace rewritten");
    }
}
