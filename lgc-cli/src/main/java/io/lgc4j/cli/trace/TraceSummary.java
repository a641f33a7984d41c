package io.lgc4j.cli.trace;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lgc4j.core.metrics.Timeline;
import io.lgc4j.core.metrics.TracedTransport;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.ToDoubleFunction;

/**
 * Where each worker's step went, read from a merged trace (docs/design/time.md §3.5). Per step and worker:
 * {@code cpu_wait} and {@code compute} (those phases), {@code cpu} (the step's other CPU phases), {@code evaluate}
 * (apart), {@code wire} (own bytes sent ÷ the given link rate; empty without one), {@code wait} (blocked in receives,
 * split by what the awaited frame's sender was doing: {@code chained}, {@code server}, {@code straggler},
 * {@code latency}) and {@code throttled} (the Δ of the endpoint's {@code cpu} counter). The columns' exact meaning,
 * with backward overlap too, is in {@code docs/architecture/trace.md}.
 *
 * <pre>{@code
 * TraceSummary summary = TraceSummary.read(runDir.resolve("trace.json"), 100.0);
 * summary.writeCsv(runDir.resolve("timeline.csv"));
 * System.out.print(summary.stageTable());
 * }</pre>
 */
public final class TraceSummary {

    /** One worker's step. Times in milliseconds; {@code wireMs} and {@code throttledMs} NaN when not available. */
    public record Row(int step, int worker, String stage, double stepMs, double cpuWaitMs, double computeMs,
                      double cpuMs,
                      double wireMs, double waitMs, double stragglerMs, double serverMs, double chainedMs,
                      double latencyMs, double throttledMs, long bytesSent, double evaluateMs) {
    }

    /** The header of {@code timeline.csv}. */
    public static final String CSV_HEADER = "step,worker,stage,step_ms,cpu_wait_ms,compute_ms,cpu_ms,wire_ms,wait_ms,"
            + "straggler_ms,server_ms,chained_ms,latency_ms,throttled_ms,bytes_sent,evaluate_ms";

    private static final List<String> CPU_PHASES = List.of("select", "encode", "decode", "apply");

    /** A complete interval in µs. */
    private record Span(String name, String cat, int pid, int tid, double ts, double dur, JsonNode args) {
        double end() {
            return ts + dur;
        }
    }

    private final List<Row> rows;
    private final double rateMbit;
    private final int misordered;

    private TraceSummary(List<Row> rows, double rateMbit, int misordered) {
        this.rows = List.copyOf(rows);
        this.rateMbit = rateMbit;
        this.misordered = misordered;
    }

    /**
     * Frames whose aligned receive ends before their send starts by more than the two clocks' bounds: the probed
     * offsets are off (shaped queues are asymmetric under load), and the waits of those steps are suspect.
     */
    public int misorderedFrames() {
        return misordered;
    }

    /** The rows, by step then worker. */
    public List<Row> rows() {
        return rows;
    }

    /**
     * Reads a merged trace (JSON Object Format, as {@code --trace} and {@code lgc trace merge} write it).
     *
     * @param rateMbit the link rate for {@code wire} in Mbit/s, or NaN for none
     * @throws IOException naming the file and what was expected when it cannot be read or is no merged trace
     */
    public static TraceSummary read(Path trace, double rateMbit) throws IOException {
        if (!(Double.isNaN(rateMbit) || rateMbit > 0)) {
            throw new IllegalArgumentException("the link rate must be > 0 Mbit/s, found " + rateMbit);
        }
        JsonNode root;
        try {
            root = new ObjectMapper().readTree(trace.toFile());
        } catch (FileNotFoundException | NoSuchFileException e) {
            throw new NoSuchFileException(trace.toString(), null, "no such file; expected a merged trace (lgc run"
                    + " --trace FILE, or lgc trace merge DIR... -o FILE)");
        } catch (JsonProcessingException e) {
            throw new IOException(trace + " is not JSON (" + e.getOriginalMessage() + "); expected a merged trace"
                    + " in Chrome's JSON Object Format, {\"traceEvents\": [...]}", e);
        }
        JsonNode events = root == null ? null : root.get("traceEvents");
        if (events == null || !events.isArray()) {
            throw new IOException(trace + " is not a merged trace: it has no traceEvents array; expected Chrome's"
                    + " JSON Object Format as lgc run --trace or lgc trace merge writes it (an endpoint's own"
                    + " e<endpoint>.json is merged first)");
        }
        int workers = root.path("otherData").path("workers").asInt(-1);
        Map<Integer, Double> bounds = new HashMap<>();
        root.path("otherData").path("boundsMicros").fields().forEachRemaining(f -> bounds.put(
                Integer.parseInt(f.getKey().substring(1)), f.getValue().asDouble()));
        List<Row> rows = new ArrayList<>();
        int misordered = summarise(events, workers, rateMbit, bounds, rows);
        return new TraceSummary(rows, rateMbit, misordered);
    }

    /** Fills {@code rows}; returns the frames received before they were sent, beyond the clocks' bounds. */
    private static int summarise(JsonNode events, int givenWorkers, double rateMbit, Map<Integer, Double> bounds,
                                 List<Row> rows) {
        Map<Integer, List<Span>> byPid = new TreeMap<>();
        Map<Long, Span> sends = new HashMap<>();  // flow id (TracedTransport#flowId) → its send span
        Map<Integer, List<double[]>> throttled = new HashMap<>(); // pid → {ts, throttled_ms}
        Map<Integer, String> processNames = new HashMap<>();
        for (JsonNode e : events) {
            String ph = e.path("ph").asText();
            int pid = e.path("pid").asInt();
            switch (ph) {
                case "X" -> byPid.computeIfAbsent(pid, p -> new ArrayList<>()).add(new Span(e.path("name").asText(),
                        e.path("cat").asText(), pid, e.path("tid").asInt(), e.path("ts").asDouble(),
                        e.path("dur").asDouble(), e.path("args")));
                case "C" -> {
                    if (e.path("args").has("throttled_ms")) {
                        throttled.computeIfAbsent(pid, p -> new ArrayList<>()).add(new double[] {
                                e.path("ts").asDouble(), e.path("args").path("throttled_ms").asDouble()});
                    }
                }
                case "M" -> {
                    if (e.path("name").asText().equals("process_name")) {
                        processNames.put(pid, e.path("args").path("name").asText());
                    }
                }
                default -> {
                }
            }
        }
        byPid.values().forEach(l -> l.sort(Comparator.comparingDouble(Span::ts)));
        throttled.values().forEach(l -> l.sort(Comparator.comparingDouble(a -> a[0])));
        for (List<Span> spans : byPid.values()) {
            for (Span s : spans) {
                if (s.cat().equals("send")) {
                    long id = TracedTransport.flowId(s.pid(), s.args().path("peer").asInt(),
                            s.args().path("seq").asLong());
                    sends.put(id, s);
                }
            }
        }
        int misordered = 0;
        for (List<Span> spans : byPid.values()) {
            for (Span s : spans) {
                if (s.cat().equals("recv")) {
                    Span send = sends.get(TracedTransport.flowId(s.args().path("peer").asInt(), s.pid(),
                            s.args().path("seq").asLong()));
                    double slack = bounds.getOrDefault(s.pid(), 0.0) + (send == null ? 0
                            : bounds.getOrDefault(send.pid(), 0.0));
                    if (send != null && s.end() + slack < send.ts()) {
                        misordered++;
                    }
                }
            }
        }
        for (Map.Entry<Integer, List<Span>> entry : byPid.entrySet()) {
            int pid = entry.getKey();
            boolean worker = givenWorkers >= 0 ? pid < givenWorkers
                    : processNames.getOrDefault(pid, "rank").startsWith("rank");
            if (!worker) {
                continue;
            }
            List<Span> spans = entry.getValue();
            for (Span step : spans) {
                if (!step.name().equals("step") || !step.cat().equals("step")) {
                    continue;
                }
                rows.add(row(step, spans, byPid, sends, throttled.get(pid), givenWorkers, processNames, rateMbit));
            }
        }
        rows.sort(Comparator.comparingInt(Row::step).thenComparingInt(Row::worker));
        return misordered;
    }

    private static Row row(Span step, List<Span> spans, Map<Integer, List<Span>> byPid, Map<Long, Span> sends,
                           List<double[]> throttled, int givenWorkers, Map<Integer, String> names, double rateMbit) {
        double cpuWait = 0;
        double compute = 0;
        double cpu = 0;
        double evaluate = 0;
        double wait = 0;
        double straggler = 0;
        double server = 0;
        double chained = 0;
        double latency = 0;
        long bytes = 0;
        double communicate = 0;
        boolean beside = false; // backward overlap: the step's frames went on the exchange thread
        for (Span s : spans) {
            boolean exchangeThread = s.tid() == Timeline.EXCHANGE_THREAD;
            if ((s.tid() != step.tid() && !exchangeThread) || s.ts() < step.ts() || s.end() > step.end() + 1e-3) {
                continue;
            }
            if (exchangeThread && (s.cat().equals("send") || s.cat().equals("recv"))) {
                beside = true;
            }
            if (s.cat().equals("phase")) {
                if (exchangeThread) {
                    continue; // they overlap the pass: the rank's thread says what was not hidden
                }
                if (s.name().equals("communicate")) {
                    communicate += s.dur();
                }
                if (s.name().equals("compute")) {
                    compute += s.dur();
                } else if (s.name().equals("cpu_wait")) {
                    cpuWait += s.dur();
                } else if (CPU_PHASES.contains(s.name())) {
                    cpu += s.dur();
                } else if (s.name().equals("evaluate")) {
                    evaluate += s.dur();
                }
            } else if (s.cat().equals("send")) {
                bytes += s.args().path("bytes").asLong();
            } else if (s.cat().equals("recv")) {
                wait += exchangeThread ? 0 : s.dur();
                long id = TracedTransport.flowId(s.args().path("peer").asInt(), s.pid(), s.args().path("seq").asLong());
                Span send = sends.get(id);
                if (send == null) {
                    latency += s.dur(); // the sender's side is outside the trace: nothing else to say
                    continue;
                }
                double before = Math.max(s.ts(), Math.min(send.ts(), s.end()));
                latency += s.end() - before;
                double blocked = blockedIn(byPid.get(send.pid()), send.tid(), s.ts(), before);
                chained += blocked;
                boolean senderIsWorker = givenWorkers >= 0 ? send.pid() < givenWorkers
                        : names.getOrDefault(send.pid(), "rank").startsWith("rank");
                if (senderIsWorker) {
                    straggler += before - s.ts() - blocked;
                } else {
                    server += before - s.ts() - blocked;
                }
            }
        }
        if (beside) {
            wait = communicate; // what the pass did not hide; the split below is of the exchange thread's receives
        }
        double wire = Double.isNaN(rateMbit) ? Double.NaN : bytes * 8 / (rateMbit * 1e6) * 1e3;
        return new Row(step.args().path("step").asInt(), step.pid(), step.args().path("stage").asText(),
                step.dur() / 1e3, cpuWait / 1e3, compute / 1e3, cpu / 1e3, wire, wait / 1e3, straggler / 1e3,
                server / 1e3,
                chained / 1e3, latency / 1e3, throttledOver(throttled, step), bytes, evaluate / 1e3);
    }

    /** Microseconds of [from, to] the thread spent in its own receives. */
    private static double blockedIn(List<Span> spans, int tid, double from, double to) {
        double total = 0;
        if (spans == null || to <= from) {
            return 0;
        }
        for (Span s : spans) {
            if (s.tid() == tid && s.cat().equals("recv") && s.ts() < to && s.end() > from) {
                total += Math.min(s.end(), to) - Math.max(s.ts(), from);
            }
        }
        return total;
    }

    /** The counter's rise from the last sample at or before the step's start to the first at or after its end. */
    private static double throttledOver(List<double[]> samples, Span step) {
        if (samples == null || samples.isEmpty()) {
            return Double.NaN;
        }
        double[] first = null;
        double[] last = null;
        for (double[] s : samples) {
            if (s[0] <= step.ts() + 1e-3) {
                first = s;
            }
            if (last == null && s[0] >= step.end() - 1e-3) {
                last = s;
            }
        }
        if (first == null || last == null) {
            return Double.NaN;
        }
        return last[1] - first[1];
    }

    /** Writes {@code timeline.csv}: {@link #CSV_HEADER}, then one row per step and worker. */
    public void writeCsv(Path file) throws IOException {
        StringBuilder b = new StringBuilder(CSV_HEADER).append('\n');
        for (Row r : rows) {
            b.append(r.step()).append(',').append(r.worker()).append(',').append(r.stage());
            for (double v : new double[] {r.stepMs(), r.cpuWaitMs(), r.computeMs(), r.cpuMs(), r.wireMs(), r.waitMs(),
                    r.stragglerMs(), r.serverMs(), r.chainedMs(), r.latencyMs(), r.throttledMs()}) {
                b.append(',').append(Double.isNaN(v) ? "" : String.format(Locale.ROOT, "%.3f", v));
            }
            b.append(',').append(r.bytesSent()).append(',')
                    .append(String.format(Locale.ROOT, "%.3f", r.evaluateMs())).append('\n');
        }
        try {
            Files.writeString(file, b, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IOException("cannot write " + file + ": " + e.getMessage(), e);
        }
    }

    /**
     * Per stage, the mean per worker and step of each column, in ms: where the time above the floor goes.
     * Columns a trace does not give ({@code wire} without a rate, {@code throttled} without cgroup counters) say
     * "n/a".
     */
    public String stageTable() {
        Map<String, List<Row>> byStage = new LinkedHashMap<>();
        for (Row r : rows) {
            byStage.computeIfAbsent(r.stage(), s -> new ArrayList<>()).add(r);
        }
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "%-10s %5s %9s %9s %9s %7s %8s %8s %8s %10s %8s %8s %8s %10s%n", "stage",
                "steps", "step_ms", "cpu_wait", "compute", "cpu", "evaluate", "wire", "wait", "straggler", "server",
                "chained", "latency", "throttled"));
        for (Map.Entry<String, List<Row>> e : byStage.entrySet()) {
            List<Row> rs = e.getValue();
            long steps = rs.stream().mapToInt(Row::step).distinct().count();
            b.append(String.format(Locale.ROOT,
                    "%-10s %5d %9.1f %9.1f %9.1f %7.1f %8.1f %8s %8.1f %10.1f %8.1f %8.1f %8.1f %10s%n",
                    e.getKey(), steps, mean(rs, Row::stepMs), mean(rs, Row::cpuWaitMs), mean(rs, Row::computeMs),
                    mean(rs, Row::cpuMs), mean(rs, Row::evaluateMs),
                    orNa(mean(rs, Row::wireMs)), mean(rs, Row::waitMs), mean(rs, Row::stragglerMs),
                    mean(rs, Row::serverMs), mean(rs, Row::chainedMs), mean(rs, Row::latencyMs),
                    orNa(mean(rs, Row::throttledMs))));
        }
        b.append("(ms per worker and step; wait = straggler + server + chained + latency; throttled overlaps the"
                + " rest").append(Double.isNaN(rateMbit) ? "; wire n/a: no --rate-mbit" : "; wire at " + rateMbit
                + " Mbit/s").append(")\n");
        if (misordered > 0) {
            b.append("warning: ").append(misordered).append(" frame").append(misordered == 1 ? " was" : "s were")
                    .append(" received before sent by more than the clocks' bounds: their waits are suspect\n");
        }
        return b.toString();
    }

    private static String orNa(double v) {
        return Double.isNaN(v) ? "n/a" : String.format(Locale.ROOT, "%.1f", v);
    }

    /** The mean of the values a trace gives (NaN: not available for that row), NaN when none does. */
    private static double mean(List<Row> rows, ToDoubleFunction<Row> f) {
        return rows.stream().mapToDouble(f).filter(v -> !Double.isNaN(v)).average().orElse(Double.NaN);
    }

    @Override
    public String toString() {
        return "TraceSummary[" + rows.size() + " rows]";
    }
}
