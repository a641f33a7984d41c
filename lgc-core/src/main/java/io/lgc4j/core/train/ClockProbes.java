package io.lgc4j.core.train;

import io.lgc4j.core.metrics.ClockOffset;
import io.lgc4j.core.metrics.TraceClock;
import io.lgc4j.core.metrics.TraceMerge;
import io.lgc4j.core.stage.Stage;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/**
 * A traced cluster run's clock estimates: rank 0 probes every endpoint's trace clock a few times before step 0 and
 * after the last step ({@link RunReport.ClockProbe}), keeps the round with the least round trip, and writes the
 * offsets to the trace's {@code clock.json}; the other ranks answer at once. Every process must be told the same (the
 * same {@code --trace} on every process). In process there are no probes: every endpoint shares one clock.
 */
final class ClockProbes {
    private final RankLoop.Run run;
    private final ControlPlane link;
    private final TraceClock clock;
    private final int rounds;
    /** Rank 0: per endpoint {θ ns, RTT ns, at ns} of the least-RTT round before step 0. */
    private long[][] before;

    ClockProbes(RankLoop.Run run, ControlPlane link, TraceClock clock, int rounds) {
        this.run = run;
        this.link = link;
        this.clock = clock;
        this.rounds = rounds;
    }

    /** Before step 0, on every rank. */
    void beforeFirstStep(int rank) {
        if (rank == 0) {
            before = probe(-1);
        } else {
            answer(-1);
        }
    }

    /** Not rank 0, after its last step and before its final report. */
    void answerAfterLastStep(int lastStep) {
        answer(lastStep);
    }

    /** Rank 0, after the last step, when the links are idle: probes again and writes {@code clock.json}. */
    void writeAfterLastStep(int lastStep) {
        long[][] after = probe(lastStep);
        List<ClockOffset> offsets = new ArrayList<>();
        for (int e = 1; e < run.endpoints(); e++) {
            long[] a = before[e];
            long[] b = after[e];
            double drift = b[2] == a[2] ? 0 : (b[0] - a[0]) * 1e6 / (b[2] - a[2]);
            // the merge shifts by the estimate before step 0: drift over a run is within the bound on one host
            offsets.add(new ClockOffset(e, -a[0] / 1_000.0, a[1] / 2_000.0, drift));
        }
        try {
            TraceMerge.writeOffsets(run.trace().directory(), offsets);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the trace's clock offsets into "
                    + run.trace().directory() + ": " + e, e);
        }
    }

    /**
     * Rank 0: the probes to every other endpoint, one at a time.
     *
     * @return per endpoint (0: null) {θ, RTT, midpoint} in nanoseconds of the round with the least round trip, θ being
     *         how far the endpoint's trace clock is ahead of rank 0's
     */
    private long[][] probe(int s) {
        long anchor = clock.anchorNanos();
        long[][] best = new long[run.endpoints()][];
        for (int e = 1; e < run.endpoints(); e++) {
            String who = e < run.workers() ? "rank " + e : "service endpoint " + e;
            for (int i = 0; i < rounds; i++) {
                long t0 = System.nanoTime() - anchor;
                link.sendReport(e, s, Stage.SETUP, new RunReport.ClockProbe(t0));
                RunReport.ClockEcho echo = link.receiveReport(e, RunReport.ClockEcho.class, s, who);
                long t3 = System.nanoTime() - anchor;
                long mid = t0 + (t3 - t0) / 2;
                if (best[e] == null || t3 - t0 < best[e][1]) {
                    best[e] = new long[] {echo.endpointNanos() - mid, t3 - t0, mid};
                }
            }
        }
        return best;
    }

    /** Not rank 0: answers rank 0's probes at once with this process's trace clock. */
    private void answer(int s) {
        for (int i = 0; i < rounds; i++) {
            RunReport.ClockProbe probe = link.receiveReport(0, RunReport.ClockProbe.class, s, "rank 0");
            link.sendReport(0, s, Stage.SETUP, new RunReport.ClockEcho(probe.rank0Nanos(),
                    System.nanoTime() - clock.anchorNanos()));
        }
    }
}
