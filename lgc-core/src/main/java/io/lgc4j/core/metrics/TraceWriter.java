package io.lgc4j.core.metrics;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;

/**
 * A {@link Timeline} that streams one endpoint's events to a file in Chrome's JSON Array Format, one event per line:
 * {@code [} before the first event, a {@code ,} ending every line but the last event's, and {@code ]} on a line of its
 * own when closed. The format tolerates a missing {@code ]}, so the trace of a crashed run still opens. The emitting
 * threads only put a small record on a bounded queue; a daemon thread formats and writes, and a full queue makes the
 * emitter wait rather than lose events. Times are microseconds from the process's {@link TraceClock}; {@code pid} is
 * the endpoint.
 *
 * <pre>{@code
 * try (TraceWriter trace = TraceWriter.open(dir.resolve("e0.json"), 0, clock, StepRange.ALL)) {
 *     trace.processName("rank 0");
 *     trace.threadName(Timeline.RANK_THREAD, "rank loop");
 *     ... new PhaseClock(trace, Timeline.RANK_THREAD) ...
 * }
 * }</pre>
 */
public final class TraceWriter implements Timeline, AutoCloseable {
    /** Events waiting for the writer thread; about 50 per endpoint and step. */
    static final int QUEUE_CAPACITY = 1 << 14;

    private record Event(char ph, int tid, String name, String cat, long start, long end, Map<String, ?> args,
                         long id) {
    }

    private static final Event END = new Event('E', 0, "", "", 0, 0, null, 0);

    private final Path file;
    private final int pid;
    private final TraceClock clock;
    private final StepRange steps;
    private final BlockingQueue<Event> queue = new ArrayBlockingQueue<>(QUEUE_CAPACITY);
    private final BufferedWriter out;
    private final Thread thread;
    private volatile IOException failure;
    private boolean first = true;
    private volatile boolean closed;

    private TraceWriter(Path file, int pid, TraceClock clock, StepRange steps) throws IOException {
        this.file = file;
        this.pid = pid;
        this.clock = clock;
        this.steps = steps;
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        this.out = Files.newBufferedWriter(file, StandardCharsets.UTF_8);
        this.thread = new Thread(this::drain, "lgc-trace-e" + pid);
        thread.setDaemon(true);
        thread.start();
    }

    /**
     * Creates (or replaces) {@code file} and starts its writer thread.
     *
     * @param pid   the endpoint, the trace's process id
     * @param steps the steps whose events are recorded ({@link #covers}); events outside steps (start, end) are
     *              always recorded
     * @throws IOException naming the file when it cannot be created
     */
    public static TraceWriter open(Path file, int pid, TraceClock clock, StepRange steps) throws IOException {
        return new TraceWriter(file, pid, clock, steps);
    }

    /** The file written. */
    public Path file() {
        return file;
    }

    /** The endpoint this trace is of. */
    public int pid() {
        return pid;
    }

    /** Names this endpoint's process track, e.g. "rank 2 (host, pid 123)". */
    public void processName(String name) {
        put(new Event('M', 0, "process_name", "", 0, 0, Map.of("name", name), 0));
        put(new Event('M', 0, "process_sort_index", "", 0, 0, Map.of("sort_index", pid), 0));
    }

    /**
     * Records the process's {@link TraceClock} (a {@code trace_clock} metadata event, which viewers pass over): what
     * lets a check on one host compare the probed offsets with the true ones.
     */
    public void clockAnchor() {
        put(new Event('M', 0, "trace_clock", "", 0, 0, Map.of("anchor_ns", clock.anchorNanos(),
                "anchor_epoch_us", clock.anchorEpochMicros()), 0));
    }

    /** Names a thread track of this endpoint. */
    @Override
    public void threadName(int tid, String name) {
        put(new Event('M', tid, "thread_name", "", 0, 0, Map.of("name", name), 0));
    }

    @Override
    public boolean on() {
        return true;
    }

    @Override
    public boolean covers(int step) {
        return steps.contains(step);
    }

    @Override
    public void span(int tid, String name, String cat, long startNanos, long endNanos, Map<String, ?> args) {
        put(new Event('X', tid, name, cat, startNanos, endNanos, args, 0));
    }

    @Override
    public void instant(int tid, String name, long atNanos, Map<String, ?> args) {
        put(new Event('i', tid, name, "", atNanos, atNanos, args, 0));
    }

    @Override
    public void counter(String name, long atNanos, Map<String, ? extends Number> values) {
        put(new Event('C', 0, name, "", atNanos, atNanos, values, 0));
    }

    @Override
    public void flow(int tid, long id, boolean out, long atNanos) {
        put(new Event(out ? 's' : 'f', tid, "frame", "flow", atNanos, atNanos, null, id));
    }

    private void put(Event e) {
        if (closed && e != END) {
            return; // e.g. a batch reader still finishing its read when the run has ended: no one would write it
        }
        try {
            queue.put(e);
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Writes what is queued, closes the array and the file, and waits for the writer thread.
     *
     * @throws UncheckedIOException naming the file when a write failed
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        put(END);
        try {
            thread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            out.close();
        } catch (IOException e) {
            if (failure == null) {
                failure = e;
            }
        }
        if (failure != null) {
            throw new UncheckedIOException("cannot write the trace " + file + ": " + failure.getMessage(), failure);
        }
    }

    private void drain() {
        StringBuilder line = new StringBuilder(256);
        try {
            while (true) {
                Event e = queue.take();
                if (e == END) {
                    out.write(first ? "[\n]\n" : "\n]\n");
                    return;
                }
                line.setLength(0);
                line.append(first ? "[" : ",\n");
                first = false;
                format(e, line);
                if (failure == null) {
                    try {
                        out.append(line);
                        if (queue.isEmpty()) {
                            out.flush();
                        }
                    } catch (IOException io) {
                        failure = io; // keep taking, so no emitter blocks on a full queue
                    }
                }
            }
        } catch (InterruptedException | IOException e) {
            if (e instanceof IOException io && failure == null) {
                failure = io;
            }
        }
    }

    private void format(Event e, StringBuilder b) {
        b.append("{\"name\":");
        Json.string(b, e.name());
        if (!e.cat().isEmpty()) {
            b.append(",\"cat\":");
            Json.string(b, e.cat());
        }
        b.append(",\"ph\":\"").append(e.ph()).append("\",\"pid\":").append(pid).append(",\"tid\":").append(e.tid());
        if (e.ph() != 'M') {
            b.append(",\"ts\":");
            Json.micros(b, clock.micros(e.start()));
        }
        if (e.ph() == 'X') {
            b.append(",\"dur\":");
            Json.micros(b, (e.end() - e.start()) / 1_000.0);
        }
        if (e.ph() == 's' || e.ph() == 'f') {
            b.append(",\"id\":").append(e.id());
            if (e.ph() == 'f') {
                b.append(",\"bp\":\"e\"");
            }
        }
        if (e.ph() == 'i') {
            b.append(",\"s\":\"t\"");
        }
        if (e.args() != null && !e.args().isEmpty()) {
            b.append(",\"args\":");
            Json.object(b, e.args());
        }
        b.append('}');
    }
}
