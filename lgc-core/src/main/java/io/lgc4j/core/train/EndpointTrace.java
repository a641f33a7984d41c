package io.lgc4j.core.train;

import io.lgc4j.core.metrics.TracedTransport;
import io.lgc4j.core.comm.Transport;
import io.lgc4j.core.metrics.Timeline;
import io.lgc4j.core.metrics.TraceClock;
import io.lgc4j.core.metrics.TraceSettings;
import io.lgc4j.core.metrics.TraceWriter;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;

/**
 * How a runtime gives an endpoint its trace: the endpoint's {@link TraceWriter} when the run is traced, named and with
 * its thread tracks named, else {@link Timeline#NOOP}; and the exchange's transport wrapped in a
 * {@link TracedTransport} only when traced, so a run without a trace runs exactly today's code.
 */
final class EndpointTrace {
    private EndpointTrace() {
    }

    /**
     * Opens endpoint {@code endpoint}'s trace file, or returns {@link Timeline#NOOP} when {@code settings} is null.
     *
     * @param name how the trace names the endpoint's process track, e.g. "rank 1"
     * @throws UncheckedIOException naming the file when it cannot be created
     */
    static Timeline open(TraceSettings settings, int endpoint, boolean worker, TraceClock clock, String name) {
        if (settings == null) {
            return Timeline.NOOP;
        }
        TraceWriter writer;
        try {
            writer = TraceWriter.open(settings.endpointFile(endpoint), endpoint, clock, settings.steps());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the trace of endpoint " + endpoint + " in "
                    + settings.directory() + ": " + e, e);
        }
        writer.processName(name);
        writer.clockAnchor();
        writer.threadName(Timeline.RANK_THREAD, worker ? "rank loop" : "service loop");
        if (worker) {
            writer.threadName(Timeline.DATA_THREAD, "batch reader");
        }
        return writer;
    }

    /** {@code transport}, traced on {@code timeline} when it records. */
    static Transport wrap(Transport transport, Timeline timeline) {
        return timeline.on() ? new TracedTransport(transport, timeline, Timeline.RANK_THREAD) : transport;
    }

    /** Closes {@code timeline} when it is a file. */
    static void close(Timeline timeline) {
        if (timeline instanceof TraceWriter w) {
            w.close();
        }
    }

    /**
     * Closes every timeline, each even when another failed; a failure to write a trace is thrown only when
     * {@code failed} is false, so it never hides the failure that ended the run.
     */
    static void closeAll(List<Timeline> timelines, boolean failed) {
        UncheckedIOException first = null;
        for (Timeline t : timelines) {
            try {
                close(t);
            } catch (UncheckedIOException e) {
                first = first == null ? e : first;
            }
        }
        if (first != null && !failed) {
            throw first;
        }
    }
}
