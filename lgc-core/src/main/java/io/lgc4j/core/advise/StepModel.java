package io.lgc4j.core.advise;

import java.util.Objects;

/**
 * The time of one step of one stage of a method, from what was measured on the user's processes
 * ({@code docs/design/advise.md} §3.1): a pure function, so a recorded measurement predicts the same again.
 *
 * <pre>
 * compute = forward + backward at the process's share
 * cpu     = (select + encode + decode + apply + transport) at one core ÷ min(1, share)
 * wire    = the busiest link's bytes ÷ its rate for the pattern: both directions at once on a ring (max), in turn
 *           through a parameter server (up + down − psOverlap · min(up, down): the means to the first worker
 *           overlap the next pushes)
 * legs    = legs × the loaded cost of a hop + the straggler (the slowest rank's pass minus the mean)
 * server  = the busiest service's CPU ÷ min(1, its share)
 * step    = max(compute + cpu, server) + wire + legs, less what backward overlap hides
 * </pre>
 * Backward overlap ({@code training.overlap: backward}) hides min(wire + legs, backward) only when every process has a
 * core of its own: on shared cores the pass and the exchange compete for the CPU and it buys a few per cent
 * ({@code tta/backward/README.md}: −9.6 % with a core each, −3.2 % at 0.4 cores), which the model counts as nothing.
 *
 * <pre>{@code
 * StepModel.Prediction p = StepModel.predict(new StepModel.Inputs(53.8, 3.28, 0.4, 2_586_600, 2_586_600, false,
 *         9.6, 0, 0, 0, 0, 0, 1, 0, false));
 * p.stepMs();   // 2217.5: 53.8 + 3.28 / 0.4 + 2155.5 ms of wire
 * p.bound();    // LINK
 * }</pre>
 */
public final class StepModel {

    private StepModel() {
    }

    /** What bounds a step: the largest of its terms. */
    public enum Bound {
        /** The pass and the CPU of coding and applying. */
        COMPUTE,
        /** Bytes over the busiest link and the hops of the pattern. */
        LINK,
        /** A service's CPU (a parameter server's decoding, an autoencoder's training). */
        SERVER;

        /** The label the table prints. */
        public String label() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /**
     * One stage's measurements for one method.
     *
     * @param computeMs     forward and backward of one step at the process's share, ms
     * @param cpuMs         select, encode, decode, apply and transport CPU of one step at one core, ms
     * @param share         the worker process's cores (its quota; 1 or more: a core of its own)
     * @param upBytes       bytes per step the busiest link carries one way (a worker's sends on a ring; all the
     *                      pushes into a server)
     * @param downBytes     bytes per step it carries the other way
     * @param serial        whether the two directions take turns (a parameter server) rather than flow at once (a
     *                      ring)
     * @param rateMbit      the link's effective rate for the pattern, Mbit/s
     * @param psOverlap     for a serial pattern, the fraction of the shorter direction that overlaps the longer, in
     *                      [0, 1]
     * @param legs          receives on the step's critical chain
     * @param hopMs         the loaded cost of one leg, ms
     * @param stragglerMs   the slowest rank's pass minus the mean, ms
     * @param serverCpuMs   the busiest service's CPU per step at one core, ms (0 without a service)
     * @param serverShare   that service's cores
     * @param backwardMs    the backward pass, ms, when the step overlaps its exchange with it
     *                      ({@code training.overlap: backward}); 0 otherwise
     * @param ownCore       whether every process has a core of its own (the pass and the exchange do not compete)
     */
    public record Inputs(double computeMs, double cpuMs, double share, long upBytes, long downBytes, boolean serial,
                         double rateMbit, double psOverlap, int legs, double hopMs, double stragglerMs,
                         double serverCpuMs, double serverShare, double backwardMs, boolean ownCore) {

        /** Checks every figure. */
        public Inputs {
            nonNegative("computeMs", computeMs);
            nonNegative("cpuMs", cpuMs);
            positive("share", share);
            nonNegative("upBytes", upBytes);
            nonNegative("downBytes", downBytes);
            positive("rateMbit", rateMbit);
            if (!(psOverlap >= 0 && psOverlap <= 1)) {
                throw new IllegalArgumentException("psOverlap must be in [0, 1], found " + psOverlap);
            }
            nonNegative("legs", legs);
            nonNegative("hopMs", hopMs);
            nonNegative("stragglerMs", stragglerMs);
            nonNegative("serverCpuMs", serverCpuMs);
            positive("serverShare", serverShare);
            nonNegative("backwardMs", backwardMs);
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
    }

    /**
     * A step's predicted time and its terms, ms.
     *
     * @param hiddenMs what backward overlap hides of wire + legs
     */
    public record Prediction(double stepMs, double computeMs, double cpuMs, double wireMs, double legsMs,
                             double serverMs, double hiddenMs, Bound bound) {
    }

    /** The step time of {@code in}. */
    public static Prediction predict(Inputs in) {
        Objects.requireNonNull(in, "in");
        double cpu = in.cpuMs() / Math.min(1, in.share());
        double up = transferMs(in.upBytes(), in.rateMbit());
        double down = transferMs(in.downBytes(), in.rateMbit());
        double wire = in.serial() ? up + down - in.psOverlap() * Math.min(up, down) : Math.max(up, down);
        double legs = in.legs() * in.hopMs() + in.stragglerMs();
        double server = in.serverCpuMs() / Math.min(1, in.serverShare());
        double local = in.computeMs() + cpu;
        double hidden = in.ownCore() ? Math.min(wire + legs, in.backwardMs()) : 0;
        double step = Math.max(local, server) + wire + legs - hidden;
        Bound bound = wire + legs >= Math.max(local, server) ? Bound.LINK
                : server > local ? Bound.SERVER : Bound.COMPUTE;
        return new Prediction(step, in.computeMs(), cpu, wire, legs, server, hidden, bound);
    }

    /** Milliseconds to move {@code bytes} at {@code rateMbit} Mbit/s. */
    public static double transferMs(long bytes, double rateMbit) {
        return bytes * 8.0 / (rateMbit * 1e3);
    }
}
