package io.lgc4j.core.metrics;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Merges the endpoints' trace files ({@code e<endpoint>.json}, one event per line as {@link TraceWriter} writes them)
 * into one trace in Chrome's JSON Object Format: {@code {"traceEvents": [...], "displayTimeUnit": "ms",
 * "otherData": {...}}}, each endpoint's times shifted by its clock offset from rank 0's ({@code clock.json} in the
 * same directory, written by rank 0 after probing; absent in-process, where every endpoint shares one clock). The
 * process id of every event is its endpoint.
 *
 * <pre>{@code
 * TraceMerge.merge(List.of(runDir.resolve("trace")), runDir.resolve("trace.json"), Map.of("run", "quickstart"));
 * }</pre>
 */
public final class TraceMerge {
    private static final Pattern TS = Pattern.compile("\"ts\":(-?[0-9]+(?:\\.[0-9]+)?)");
    private static final Pattern ENDPOINT_FILE = Pattern.compile("e([0-9]+)\\.json");
    private static final Pattern OFFSET = Pattern.compile(
            "\\{\"endpoint\":([0-9]+),\"offsetMicros\":(-?[0-9.Ee+-]+),\"boundMicros\":([0-9.Ee+-]+)[^}]*}");

    private TraceMerge() {
    }

    /**
     * Merges every {@code e<endpoint>.json} found in {@code directories} into {@code out}.
     *
     * @param otherData what the merged trace says about the run ({@code otherData}); the offsets are added
     * @return the number of events written
     * @throws IOException naming the directory or file that cannot be read, or when no endpoint file is found
     */
    public static long merge(List<Path> directories, Path out, Map<String, ?> otherData) throws IOException {
        Map<Integer, Path> files = new TreeMap<>();
        Map<Integer, Double> offsets = new HashMap<>();
        Map<Integer, Double> bounds = new HashMap<>();
        for (Path dir : directories) {
            if (!Files.isDirectory(dir)) {
                throw new NoSuchFileException(dir.toString(), null, "not a directory of endpoint traces (e<endpoint>"
                        + ".json)");
            }
            try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir, "e*.json")) {
                for (Path f : entries) {
                    Matcher m = ENDPOINT_FILE.matcher(f.getFileName().toString());
                    if (m.matches()) {
                        Path earlier = files.put(Integer.parseInt(m.group(1)), f);
                        if (earlier != null) {
                            throw new IOException("endpoint " + m.group(1) + " has two traces: " + earlier + " and "
                                    + f + "; merge each run's directories alone");
                        }
                    }
                }
            }
            Path clock = dir.resolve(TraceSettings.CLOCK_FILE);
            offsets.putAll(readOffsets(clock, 2));
            bounds.putAll(readOffsets(clock, 3));
        }
        if (files.isEmpty()) {
            throw new NoSuchFileException(directories.toString(), null, "no endpoint trace (e<endpoint>.json) there");
        }
        Path parent = out.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        long events = 0;
        try (BufferedWriter w = Files.newBufferedWriter(out, StandardCharsets.UTF_8)) {
            w.write("{\"traceEvents\":[\n");
            boolean first = true;
            for (Map.Entry<Integer, Path> e : files.entrySet()) {
                double offset = offsets.getOrDefault(e.getKey(), 0.0);
                for (String line : Files.readAllLines(e.getValue(), StandardCharsets.UTF_8)) {
                    String event = eventOf(line);
                    if (event == null) {
                        continue;
                    }
                    if (!first) {
                        w.write(",\n");
                    }
                    first = false;
                    w.write(offset == 0 ? event : shifted(event, offset));
                    events++;
                }
            }
            StringBuilder other = new StringBuilder();
            Map<String, Object> data = new TreeMap<>(otherData);
            Map<String, Object> shifts = new TreeMap<>();
            offsets.forEach((endpoint, micros) -> shifts.put("e" + endpoint, micros));
            data.put("offsetsMicros", shifts);
            Map<String, Object> errors = new TreeMap<>();
            bounds.forEach((endpoint, micros) -> errors.put("e" + endpoint, micros));
            data.put("boundsMicros", errors);
            Json.object(other, data);
            w.write("\n],\"displayTimeUnit\":\"ms\",\"otherData\":" + other + "}\n");
        }
        return events;
    }

    /** The event on one line of an endpoint's file, without the array's punctuation; null for none. */
    static String eventOf(String line) {
        String t = line.strip();
        if (t.startsWith("[") || t.startsWith(",")) {
            t = t.substring(1).strip();
        }
        if (t.endsWith("]")) {
            t = t.substring(0, t.length() - 1).strip();
        }
        if (t.endsWith(",")) {
            t = t.substring(0, t.length() - 1).strip();
        }
        return t.startsWith("{") && t.endsWith("}") ? t : null;
    }

    private static String shifted(String event, double offsetMicros) {
        Matcher m = TS.matcher(event);
        if (!m.find()) {
            return event;
        }
        StringBuilder ts = new StringBuilder();
        Json.micros(ts, Double.parseDouble(m.group(1)) + offsetMicros);
        return event.substring(0, m.start(1)) + ts + event.substring(m.end(1));
    }

    /**
     * Endpoint → microseconds to add to its times ({@code group} 2) or their bound ({@code group} 3), from a
     * {@code clock.json}; empty when there is none.
     */
    static Map<Integer, Double> readOffsets(Path clockFile, int group) throws IOException {
        Map<Integer, Double> offsets = new HashMap<>();
        if (!Files.isRegularFile(clockFile)) {
            return offsets;
        }
        Matcher m = OFFSET.matcher(Files.readString(clockFile, StandardCharsets.UTF_8));
        while (m.find()) {
            offsets.put(Integer.parseInt(m.group(1)), Double.parseDouble(m.group(group)));
        }
        return offsets;
    }

    /** Writes {@code offsets} as {@code clock.json} into {@code directory}. */
    public static void writeOffsets(Path directory, List<ClockOffset> offsets) throws IOException {
        StringBuilder b = new StringBuilder("{\"endpoints\":[\n");
        List<String> rows = new ArrayList<>();
        for (ClockOffset o : offsets) {
            StringBuilder r = new StringBuilder();
            r.append("{\"endpoint\":").append(o.endpoint()).append(",\"offsetMicros\":");
            Json.micros(r, o.offsetMicros());
            r.append(",\"boundMicros\":");
            Json.micros(r, o.boundMicros());
            r.append(",\"driftPpm\":").append(Double.isFinite(o.driftPpm()) ? o.driftPpm() : 0).append('}');
            rows.add(r.toString());
        }
        b.append(String.join(",\n", rows)).append("\n]}\n");
        Files.createDirectories(directory);
        Files.writeString(directory.resolve(TraceSettings.CLOCK_FILE), b, StandardCharsets.UTF_8);
    }
}
