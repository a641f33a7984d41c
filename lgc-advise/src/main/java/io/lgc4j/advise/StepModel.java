package io.lgc4j.advise;

import java.util.Locale;
import java.util.Objects;

/**
 * The time of one step of one stage of a method, from what was measured of the user's model and of the method's
 * exchange: a pure function, so a recorded measurement predicts the same again. The step is the largest of the chain
 * local + wire + legs (less what backward overlap hides, with a core per process only), the CPU at the process's
 * quota, and a service's CPU + wire + legs (the terms: docs/architecture/runner.md).
 * <pre>{@code
 * StepModel.Prediction p = StepModel.predict(new StepModel.Inputs(new StepModel.Local(37, 3.3, 0.4),
 *         new StepModel.Wire(2_586_600, 2_586_600, false, 9.6, 0), new StepModel.Legs(6, 0.05, 0),
 *         StepModel.Server.NONE, StepModel.Overlap.NONE));
 * p.stepMs();   // 2195.8: 40.3 ms of CPU + 2155.5 ms of wire + 6 legs
 * p.bound();    // LINK
 * }</pre>
 */
final class StepModel {

    private StepModel() {
    }

    /** What bounds a step: the largest of its terms. */
    public enum Bound {
        /** The pass, the update and the exchange's CPU, at the process's share. */
        COMPUTE,
        /** Bytes over the busiest link and the legs of the pattern. */
        LINK,
        /** A service's CPU (a parameter server's decoding, an autoencoder's training). */
        SERVER;

        /** The label the table prints. */
        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * One stage's measurements for one method, in the parts of the model: the ranks' CPU, the busiest link, the legs
     * of the pattern, the busiest service and what backward overlap can hide. Each part checks its figures, naming
     * the figure.
     *
     * @param local   the pass, the update and the exchange's CPU of a rank, and its cores
     * @param wire    the busiest link's bytes and rate
     * @param legs    the receives on the step's critical chain
     * @param server  the busiest service's CPU and cores
     * @param overlap the backward pass the exchange can hide behind
     */
    public record Inputs(Local local, Wire wire, Legs legs, Server server, Overlap overlap) {

        /** Rejects a missing part. */
        public Inputs {
            Objects.requireNonNull(local, "local");
            Objects.requireNonNull(wire, "wire");
            Objects.requireNonNull(legs, "legs");
            Objects.requireNonNull(server, "server");
            Objects.requireNonNull(overlap, "overlap");
        }
    }

    /**
     * A rank's CPU per step.
     *
     * @param passCpuMs forward, backward and the update of one step: CPU time at one core, ms
     * @param cpuMs     the exchange's select, encode, decode and framing of one step: CPU time at one core, ms
     * @param share     the worker process's cores (its quota; 1 or more: a core of its own)
     */
    public record Local(double passCpuMs, double cpuMs, double share) {

        /** Checks every figure. */
        public Local {
            nonNegative("passCpuMs", passCpuMs);
            nonNegative("cpuMs", cpuMs);
            positive("share", share);
        }
    }

    /**
     * The busiest link of a step.
     *
     * @param upBytes   bytes per step the busiest link carries one way (a worker's sends on a ring; all the pushes
     *                  into a server)
     * @param downBytes bytes per step it carries the other way
     * @param serial    whether the two directions take turns (a parameter server) rather than flow at once (a ring)
     * @param rateMbit  the link's effective rate for the pattern, Mbit/s
     * @param psOverlap for a serial pattern, the fraction of the shorter direction that overlaps the longer, [0, 1]
     */
    public record Wire(long upBytes, long downBytes, boolean serial, double rateMbit, double psOverlap) {

        /** Checks every figure. */
        public Wire {
            nonNegative("upBytes", upBytes);
            nonNegative("downBytes", downBytes);
            positive("rateMbit", rateMbit);
            if (!(psOverlap >= 0 && psOverlap <= 1)) {
                throw new IllegalArgumentException("psOverlap must be in [0, 1], found " + psOverlap);
            }
        }
    }

    /**
     * The receives on a step's critical chain.
     *
     * @param count       receives on the chain (the figure {@code legs})
     * @param hopMs       the loaded cost of one leg, ms
     * @param stragglerMs the slowest rank's pass minus the mean, ms
     */
    public record Legs(int count, double hopMs, double stragglerMs) {

        /** Checks every figure. */
        public Legs {
            nonNegative("legs", count);
            nonNegative("hopMs", hopMs);
            nonNegative("stragglerMs", stragglerMs);
        }
    }

    /**
     * The busiest service of a step ({@link #NONE} without one).
     *
     * @param cpuMs the busiest service's CPU per step at one core, ms (0 without a service; the figure
     *              {@code serverCpuMs})
     * @param share that service's cores (the figure {@code serverShare})
     */
    public record Server(double cpuMs, double share) {

        /** No service: no CPU, a core. */
        public static final Server NONE = new Server(0, 1);

        /** Checks every figure. */
        public Server {
            nonNegative("serverCpuMs", cpuMs);
            positive("serverShare", share);
        }
    }

    /**
     * What backward overlap can hide ({@link #NONE}: nothing).
     *
     * @param backwardMs the backward pass, ms, when the step overlaps its exchange with it
     *                   ({@code training.overlap: backward}); 0 otherwise
     * @param ownCore    whether every process has a core of its own (the pass and the exchange do not compete)
     */
    public record Overlap(double backwardMs, boolean ownCore) {

        /** No overlap, shared cores. */
        public static final Overlap NONE = new Overlap(0, false);

        /** Checks the figure. */
        public Overlap {
            nonNegative("backwardMs", backwardMs);
        }
    }

    private static void nonNegative(String name, double value) {
        if (!(value >= 0) || Double.isInfinite(value)) {
            throw new IllegalArgumentException(name + " must be a finite number >= 0, found " + value);
        }
    }

    private static void positive(String name, double value) {
        if (!(value > 0) || Double.isInfinite(value)) {
            throw new IllegalArgumentException(name + " must be a finite number > 0, found " + value);
        }
    }

    /**
     * A step's predicted time and its terms, ms.
     *
     * @param localMs  the pass, the update and the exchange's CPU at one core
     * @param quotaMs  {@code localMs} at the process's share: the least a step can take under its quota
     * @param hiddenMs what backward overlap hides of wire + legs
     */
    public record Prediction(double stepMs, double localMs, double quotaMs, double wireMs, double legsMs,
                             double serverMs, double hiddenMs, Bound bound) {
    }

    /** The step time of {@code in}. */
    public static Prediction predict(Inputs in) {
        Objects.requireNonNull(in, "in");
        Local cpu = in.local();
        Wire link = in.wire();
        double local = cpu.passCpuMs() + cpu.cpuMs();
        double quota = local / Math.min(1, cpu.share());
        double up = transferMs(link.upBytes(), link.rateMbit());
        double down = transferMs(link.downBytes(), link.rateMbit());
        double wire = link.serial() ? up + down - link.psOverlap() * Math.min(up, down) : Math.max(up, down);
        double legs = in.legs().count() * in.legs().hopMs() + in.legs().stragglerMs();
        double server = in.server().cpuMs() / Math.min(1, in.server().share());
        double hidden = in.overlap().ownCore() ? Math.min(wire + legs, in.overlap().backwardMs()) : 0;
        double chain = local + wire + legs - hidden;
        double served = server + wire + legs;
        double step = Math.max(chain, Math.max(quota, served));
        Bound bound = served >= step && server > local ? Bound.SERVER
                : wire + legs - hidden >= Math.max(quota, server) ? Bound.LINK : Bound.COMPUTE;
        return new Prediction(step, local, quota, wire, legs, server, hidden, bound);
    }

    /** The kernel's CFS period, ms: a quota of q cores runs q × this of every period, then waits. */
    public static final double CFS_PERIOD_MS = 100;

    /**
     * What a throttled process adds to a step's chain for each of its wake-ups on it: a quota of {@code cores} runs
     * {@code cores × P} of every period P and waits the rest, so a frame that arrives at a random time waits
     * (P − Q)² / (2P) on average (18 ms at 0.4 cores and P = 100 ms); 0 with a core or more.
     */
    public static double throttleWaitMs(double cores) {
        if (cores >= 1) {
            return 0;
        }
        double off = CFS_PERIOD_MS * (1 - cores);
        return off * off / (2 * CFS_PERIOD_MS);
    }

    /**
     * {@code p} with a service's lane counted ({@code docs/results/advise/lane/}): a service whose lane
     * wants more CPU a step than its quota leaves is throttled, and the step waits {@code waitMs} more on its chain;
     * a step that waits for the lane's work ({@code Topology#waitsForLane}) takes at least {@code laneBoundMs}, the
     * service's and its lane's CPU over the quota. Either bounding the step makes it server-bound.
     */
    public static Prediction withLane(Prediction p, double waitMs, double laneBoundMs) {
        if (!(waitMs >= 0) || !(laneBoundMs >= 0)) {
            throw new IllegalArgumentException("a lane's wait and bound are >= 0 ms, found " + waitMs + " and "
                    + laneBoundMs);
        }
        double step = Math.max(p.stepMs() + waitMs, laneBoundMs);
        if (step <= p.stepMs()) {
            return p;
        }
        return new Prediction(step, p.localMs(), p.quotaMs(), p.wireMs(), p.legsMs() + waitMs,
                Math.max(p.serverMs(), laneBoundMs), p.hiddenMs(), Bound.SERVER);
    }

    /** Milliseconds to move {@code bytes} at {@code rateMbit} Mbit/s. */
    public static double transferMs(long bytes, double rateMbit) {
        return bytes * 8.0 / (rateMbit * 1e3);
    }
}
