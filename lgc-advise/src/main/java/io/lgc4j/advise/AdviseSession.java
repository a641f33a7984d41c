package io.lgc4j.advise;

import com.fasterxml.jackson.annotation.JsonUnwrapped;
import io.lgc4j.core.comm.Frame;
import io.lgc4j.core.comm.FrameBuffer;
import io.lgc4j.core.comm.FrameCodec;
import io.lgc4j.core.comm.FrameException;
import io.lgc4j.core.comm.TrafficKind;
import io.lgc4j.core.comm.Transport;
import io.lgc4j.core.compute.CpuLimits;
import io.lgc4j.core.stage.Stage;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.IntStream;

/**
 * The advise session: every endpoint of a run, on a connection of its own, measures the links it will train over,
 * and rank 0 decides the method and tells every endpoint. It runs before a trainer is built, because the endpoint
 * count and the training connection's plan depend on the choice; it touches no model but a throwaway copy. Every
 * endpoint throws when the candidates disagree or nothing is chosen (the phases: docs/architecture/runner.md).
 * <pre>{@code
 * try (ClusterConnection c = connector.connect(n, names, AdviseSession.PLAN, AdviseSession.PLAN_MEANING)) {
 *     AdviseSession.Outcome o = AdviseSession.run(c.transport(), workers, digest, probeBytes, pass,
 *             probe -> advisor.link(probe.link()).advise(), System.err);
 *     String chosen = o.chosen();   // the same on every endpoint
 * }
 * }</pre>
 */
public final class AdviseSession {

    /** The plan every endpoint of a session connects with, so a process still advising never joins a training. */
    public static final long PLAN = 0x6c67633461647631L; // "lgc4adv1"
    /** What {@link #PLAN} stands for, in a refusal. */
    public static final String PLAN_MEANING = "the advise session (lgc4j advise session v1)";

    /** Idle round trips per endpoint. */
    public static final int RTT_ROUNDS = 8;
    /** The warm-up round's frame size. */
    public static final int WARM_BYTES = 64 * 1024;
    /** The largest probe frame. */
    public static final int MAX_PROBE_BYTES = 4 << 20;
    /** A loaded round's hop frame. */
    public static final int SMALL_BYTES = 1024;
    /** Loaded rounds, after one that is not counted. */
    public static final int LOADED_ROUNDS = 5;

    static final int HELLO = 1;
    static final int VERDICT = 2;
    static final int RTT = 3;
    static final int RING = 4;
    static final int FAN = 5;
    static final int FAN_ACK = 6;
    static final int LOADED = 7;
    static final int MEASURED = 8;
    static final int CHOSEN = 9;
    static final int GO = 10;
    static final int MORE = 11;

    /** Rounds at the probe size stop once they took this long ... */
    static final double SIZE_ROUNDS_MS = 1000;
    /** ... or after this many. */
    static final int MAX_SIZE_ROUNDS = 3;

    private static final String[] PHASES = {"", "hello", "verdict", "round trip", "ring", "fan", "fan ack",
        "loaded round", "measured", "chosen", "go", "another round"};

    private AdviseSession() {
    }

    /** Rank 0's decision on the measured link: the advice, whose {@link Advice#chosen()} every endpoint trains. */
    @FunctionalInterface
    public interface Decision {
        /**
         * Advises on {@code probe}'s link.
         *
         * @throws Exception anything that keeps it from advising: every endpoint then fails with its message
         */
        Advice decide(Probe probe) throws Exception;
    }

    /**
     * What the session ended with on this endpoint.
     *
     * @param chosen  the chosen candidate's id, the same on every endpoint
     * @param advice  rank 0's advice (empty elsewhere)
     * @param probe   rank 0's measurements (empty elsewhere)
     * @param seconds the session's wall time on this endpoint
     */
    public record Outcome(String chosen, Optional<Advice> advice, Optional<Probe> probe, double seconds) {
        /** Checks the parts. */
        public Outcome {
            Objects.requireNonNull(chosen, "chosen");
            Objects.requireNonNull(advice, "advice");
            Objects.requireNonNull(probe, "probe");
        }
    }

    /**
     * What the session measured, on rank 0. In {@code advice.json} the parts' figures stand beside the others, in
     * the order of these components.
     *
     * @param endpoints   the session's endpoints
     * @param workers     the workers among them
     * @param probeBytes  the size of the ring and fan frames
     * @param rates       the patterns' rates at the probe size
     * @param times       the round trip, the loaded leg, the straggler and the pass
     * @param seconds     the probes' wall time on rank 0
     * @param hostWorkers the workers on rank 0's host (by host name), itself included: they share its cores
     */
    public record Probe(int endpoints, int workers, int probeBytes, @JsonUnwrapped Rates rates,
                        @JsonUnwrapped Times times, double seconds, int hostWorkers) {

        /**
         * The rates the session measured.
         *
         * @param ringMbit       the ring pattern's rate at the probe size, Mbit/s (NaN with one worker)
         * @param serviceInMbit  the hub's rate with every worker sending to it, Mbit/s (NaN without a hub)
         * @param serviceOutMbit the hub's rate sending to every worker, Mbit/s (NaN without a hub)
         */
        public record Rates(double ringMbit, double serviceInMbit, double serviceOutMbit) {
        }

        /**
         * The times the session measured, ms.
         *
         * @param idleRttMs   the least idle round trip between rank 0 and any endpoint, ms (NaN alone)
         * @param hopMs       a leg's loaded cost, ms: the median over the loaded rounds
         * @param stragglerMs the slowest worker's pass minus the mean, ms: the median over the loaded rounds
         * @param passMs      a pass's wall time under this process's share, ms: the median of the workers' means
         */
        public record Times(double idleRttMs, double hopMs, double stragglerMs, double passMs) {
        }

        /** Rejects a missing part. */
        public Probe {
            Objects.requireNonNull(rates, "rates");
            Objects.requireNonNull(times, "times");
        }

        Probe sharing(int workersOnHost) {
            return new Probe(endpoints, workers, probeBytes, rates, times, seconds, workersOnHost);
        }

        /**
         * The link the advisor predicts on: the ring's rate for every worker (unbounded with one worker), the fan's
         * two directions for a server (their harmonic mean: a step sends both), the loaded leg and straggler.
         */
        public Link link() {
            double ring = Double.isNaN(rates.ringMbit()) ? Link.IN_PROCESS.rateMbit() : rates.ringMbit();
            double service = Double.isNaN(rates.serviceInMbit()) || Double.isNaN(rates.serviceOutMbit()) ? ring
                    : 2 / (1 / rates.serviceInMbit() + 1 / rates.serviceOutMbit());
            return new Link(ring, service, orZero(times.hopMs()), orZero(times.stragglerMs()), 0,
                    String.format(Locale.ROOT, "probed on %d endpoints in %.1f s", endpoints, seconds));
        }

        /**
         * The cores each worker has, as rank 0 sees it: its own quota, and no more than its machine's CPUs shared by
         * the {@link #hostWorkers} that run on it.
         */
        public double cores() {
            CpuLimits limits = CpuLimits.ofThisProcess();
            int machine = limits.affinityCpus() > 0 ? limits.affinityCpus() : limits.onlineCpus();
            return Math.min(limits.cores(), machine / (double) hostWorkers);
        }

        private static double orZero(double ms) {
            return Double.isNaN(ms) ? 0 : Math.max(0, ms);
        }

        /** One line: the rates, the round trip, the loaded leg and the straggler. */
        public String describe() {
            return String.format(Locale.ROOT, "ring %.1f Mbit/s at %d B a hop, server in %.1f / out %.1f Mbit/s,"
                            + " idle round trip %.2f ms, loaded leg %.2f ms, straggler %.1f ms, a pass %.1f ms"
                            + " (%d endpoints, %d workers on rank 0's host, %.1f s)", rates.ringMbit(), probeBytes,
                    rates.serviceInMbit(), rates.serviceOutMbit(), times.idleRttMs(), times.hopMs(),
                    times.stragglerMs(), times.passMs(), endpoints, hostWorkers, seconds);
        }
    }

    /**
     * The probe size for a model of {@code gradientLength} floats on {@code workers} workers: the dense ring's chunk,
     * between {@value #WARM_BYTES} and {@value #MAX_PROBE_BYTES} bytes.
     */
    public static int probeBytes(long gradientLength, int workers) {
        long chunk = 4 * ((gradientLength + workers - 1) / workers);
        return (int) Math.max(WARM_BYTES, Math.min(MAX_PROBE_BYTES, chunk));
    }

    /**
     * Runs this endpoint's part of the session.
     *
     * @param t          this endpoint's transport (the session's own connection)
     * @param workers    K: endpoints 0..K−1 are workers, the rest server processes
     * @param digest     what identifies the candidates this process advises among (every endpoint's must match)
     * @param probeBytes the ring and fan frames' size ({@link #probeBytes}), the same on every endpoint
     * @param pass       a worker's forward and backward pass on a throwaway copy of the model, warmed up; null on a
     *                   server process
     * @param decision   rank 0's decision; not called elsewhere
     * @param log        where rank 0 says what it measured
     * @throws IllegalStateException naming the disagreement, or why nothing was chosen
     * @throws FrameException        when a frame comes out of turn
     */
    public static Outcome run(Transport t, int workers, String digest, int probeBytes, Runnable pass,
                              Decision decision, PrintStream log) {
        return run(t, workers, digest, hostName(), probeBytes, pass, decision, log);
    }

    /**
     * As {@link #run(Transport, int, String, int, Runnable, Decision, java.io.PrintStream)}, with this process's host
     * named: the workers whose host is rank 0's share its cores ({@link Probe#hostWorkers()}).
     */
    static Outcome run(Transport t, int workers, String digest, String host, int probeBytes, Runnable pass,
                       Decision decision, PrintStream log) {
        int n = t.endpointCount();
        int me = t.endpoint();
        if (workers < 1 || workers > n) {
            throw new IllegalArgumentException("workers must be in 1.." + n + ", found " + workers);
        }
        if (me < workers) {
            Objects.requireNonNull(pass, "a worker's pass");
        }
        if (probeBytes < SMALL_BYTES || probeBytes > MAX_PROBE_BYTES) {
            throw new IllegalArgumentException("probeBytes must be in " + SMALL_BYTES + ".." + MAX_PROBE_BYTES
                    + ", found " + probeBytes);
        }
        long start = System.nanoTime();
        int sharing = hello(t, workers, digest, host);
        double[] rtt = me == 0 ? roundTrips(t) : echo(t);
        double ringMs = me < workers && workers > 1 ? ring(t, workers, probeBytes) : Double.NaN;
        double[] fan = fan(t, workers, probeBytes);
        double[][] loaded = me < workers && workers > 1 ? loaded(t, workers, pass) : new double[2][0];
        Measured mine = new Measured(ringMs, fan[0], fan[1], loaded[0], loaded[1]);
        if (me != 0) {
            t.send(0, frame(MEASURED, mine.encode()));
            t.extendNextReceive(0); // rank 0 dry-runs every candidate before it answers
            String chosen = verdict(t, CHOSEN);
            return new Outcome(chosen, Optional.empty(), Optional.empty(), (System.nanoTime() - start) / 1e9);
        }
        Measured[] all = new Measured[n];
        all[0] = mine;
        for (int e = 1; e < n; e++) {
            all[e] = Measured.decode(expect(t, e, MEASURED).payload(), e);
        }
        Probe probe = probe(all, workers, probeBytes, rtt, (System.nanoTime() - start) / 1e9).sharing(sharing);
        log.println("lgc advise: measured " + probe.describe());
        Advice advice;
        try {
            advice = decision.decide(probe);
        } catch (Exception e) {
            String why = "rank 0 could not advise: " + e.getMessage();
            broadcast(t, CHOSEN, false, why);
            throw new IllegalStateException(why, e);
        }
        if (advice.chosen().isEmpty()) {
            String why = "nothing chosen: no candidate has a predicted time to the target";
            broadcast(t, CHOSEN, false, why);
            throw new IllegalStateException(why);
        }
        broadcast(t, CHOSEN, true, advice.chosen().get());
        return new Outcome(advice.chosen().get(), Optional.of(advice), Optional.of(probe),
                (System.nanoTime() - start) / 1e9);
    }

    /** Rank 0: how many workers run on its host (itself included); elsewhere 0. */
    private static int hello(Transport t, int workers, String digest, String host) {
        if (t.endpoint() != 0) {
            t.send(0, frame(HELLO, string(digest + "\n" + host)));
            verdict(t, VERDICT);
            return 0;
        }
        String problem = null;
        int sharing = 1;
        for (int e = 1; e < t.endpointCount(); e++) {
            String[] hello = readString(expect(t, e, HELLO).payload()).split("\n", 2);
            String theirs = hello[0];
            if (e < workers && hello.length == 2 && hello[1].equals(host)) {
                sharing++;
            }
            if (problem == null && !theirs.equals(digest)) {
                problem = name(e, workers) + " advises among other candidates than rank 0 (" + theirs + " vs "
                        + digest + "): every process must read the same config";
            }
        }
        broadcast(t, VERDICT, problem == null, problem == null ? "" : problem);
        if (problem != null) {
            throw new IllegalStateException(problem);
        }
        return sharing;
    }

    /** Rank 0's least round trip to any endpoint, ms, per endpoint (index 0: NaN). */
    private static double[] roundTrips(Transport t) {
        double[] least = new double[t.endpointCount()];
        least[0] = Double.NaN;
        for (int e = 1; e < t.endpointCount(); e++) {
            least[e] = Double.POSITIVE_INFINITY;
            for (int i = 0; i < RTT_ROUNDS; i++) {
                long t0 = System.nanoTime();
                t.send(e, frame(RTT, new byte[8]));
                expect(t, e, RTT);
                least[e] = Math.min(least[e], (System.nanoTime() - t0) / 1e6);
                t.releaseReceived();
            }
        }
        return least;
    }

    private static double[] echo(Transport t) {
        for (int i = 0; i < RTT_ROUNDS; i++) {
            expect(t, 0, RTT);
            t.send(0, frame(RTT, new byte[8]));
            t.releaseReceived();
        }
        return new double[0];
    }

    /**
     * A warm round, then rounds of K − 1 hops of {@code bytes} round the workers' ring until they have taken
     * {@value #SIZE_ROUNDS_MS} ms or {@value #MAX_SIZE_ROUNDS} rounds (rank 0 says whether another follows): the
     * fastest round's ms. A round can only be slowed (a cold JIT, a throttled process), so the fastest is the rate.
     */
    private static double ring(Transport t, int workers, int bytes) {
        int me = t.endpoint();
        int right = (me + 1) % workers;
        int left = (me + workers - 1) % workers;
        hops(t, right, left, workers - 1, WARM_BYTES, RING);
        double fastest = Double.POSITIVE_INFINITY;
        double spent = 0;
        for (int round = 1; ; round++) {
            long t0 = System.nanoTime();
            hops(t, right, left, workers - 1, bytes, RING);
            double ms = (System.nanoTime() - t0) / 1e6;
            fastest = Math.min(fastest, ms);
            spent += ms;
            if (!more(t, 0, range(1, workers), round, spent)) {
                return fastest;
            }
        }
    }

    /** Whether another round follows: {@code decider} says so to {@code others} and every one reads it. */
    private static boolean more(Transport t, int decider, int[] others, int round, double spentMs) {
        if (t.endpoint() == decider) {
            boolean again = round < MAX_SIZE_ROUNDS && spentMs < SIZE_ROUNDS_MS;
            byte[] f = frame(MORE, new byte[] {(byte) (again ? 1 : 0)});
            for (int e : others) {
                t.send(e, f);
            }
            return again;
        }
        boolean again = expect(t, decider, MORE).payload().get(0) == 1;
        t.releaseReceived();
        return again;
    }

    private static int[] range(int from, int to) {
        return IntStream.range(from, to).toArray();
    }

    private static void hops(Transport t, int right, int left, int hops, int bytes, int phase) {
        for (int h = 0; h < hops; h++) {
            t.send(right, data(t, bytes, phase));
            Frame in = expect(t, left, phase);
            if (in.payloadLength() != bytes) {
                throw new FrameException("expected a " + PHASES[phase] + " frame of " + bytes + " bytes from endpoint "
                        + left + ", found " + in.payloadLength());
            }
            t.releaseReceived();
        }
    }

    /**
     * The fan: the hub says go, every worker but the hub sends {@code bytes} to it, then the hub sends {@code bytes}
     * to each and each acknowledges; a warm round, then rounds as the ring's, the hub deciding. On the hub, the
     * fastest round's ms of each direction; elsewhere NaN.
     */
    private static double[] fan(Transport t, int workers, int bytes) {
        int n = t.endpointCount();
        int hub = workers < n ? workers : 0;
        int me = t.endpoint();
        int[] senders = IntStream.range(0, workers).filter(w -> w != hub).toArray();
        if (senders.length == 0 || me != hub && me >= workers) {
            return new double[] {Double.NaN, Double.NaN};
        }
        double[] fastest = {Double.POSITIVE_INFINITY, Double.POSITIVE_INFINITY};
        double spent = 0;
        for (int round = 0; ; round++) {
            int size = round == 0 ? WARM_BYTES : bytes;
            if (me == hub) {
                // every sender starts on the hub's word, so no frame is on its way before the clock starts
                long t0 = System.nanoTime();
                byte[] go = frame(GO, new byte[0]);
                for (int w : senders) {
                    t.send(w, go);
                }
                for (int w : senders) {
                    expect(t, w, FAN);
                    t.releaseReceived();
                }
                double in = (System.nanoTime() - t0) / 1e6;
                t0 = System.nanoTime();
                for (int w : senders) {
                    t.send(w, data(t, size, FAN));
                }
                for (int w : senders) {
                    expect(t, w, FAN_ACK);
                }
                double out = (System.nanoTime() - t0) / 1e6;
                t.releaseReceived();
                if (round > 0) {
                    fastest[0] = Math.min(fastest[0], in);
                    fastest[1] = Math.min(fastest[1], out);
                    spent += in + out;
                }
            } else {
                expect(t, hub, GO);
                t.releaseReceived();
                t.send(hub, data(t, size, FAN));
                expect(t, hub, FAN);
                t.send(hub, frame(FAN_ACK, new byte[0]));
                t.releaseReceived();
            }
            if (round > 0 && !more(t, hub, senders, round, spent)) {
                return me == hub ? fastest : new double[] {Double.NaN, Double.NaN};
            }
        }
    }

    /** The loaded rounds: per counted round, this worker's pass ms and the ms from the round's start to its end. */
    private static double[][] loaded(Transport t, int workers, Runnable pass) {
        int me = t.endpoint();
        int right = (me + 1) % workers;
        int left = (me + workers - 1) % workers;
        int hops = 2 * (workers - 1);
        double[] passMs = new double[LOADED_ROUNDS];
        double[] roundMs = new double[LOADED_ROUNDS];
        for (int r = -1; r < LOADED_ROUNDS; r++) {
            long t0 = System.nanoTime();
            pass.run();
            long t1 = System.nanoTime();
            hops(t, right, left, hops, SMALL_BYTES, LOADED);
            if (r >= 0) {
                passMs[r] = (t1 - t0) / 1e6;
                roundMs[r] = (System.nanoTime() - t0) / 1e6;
            }
        }
        return new double[][] {passMs, roundMs};
    }

    /** One endpoint's figures. */
    record Measured(double ringMs, double fanInMs, double fanOutMs, double[] passMs, double[] roundMs) {
        byte[] encode() {
            ByteBuffer out = ByteBuffer.allocate(24 + 2 + 16 * passMs.length).order(ByteOrder.LITTLE_ENDIAN);
            out.putDouble(ringMs).putDouble(fanInMs).putDouble(fanOutMs).putShort((short) passMs.length);
            for (int r = 0; r < passMs.length; r++) {
                out.putDouble(passMs[r]).putDouble(roundMs[r]);
            }
            return out.array();
        }

        static Measured decode(ByteBuffer payload, int from) {
            ByteBuffer in = payload.duplicate().order(ByteOrder.LITTLE_ENDIAN);
            if (in.remaining() < 26) {
                throw new FrameException("a measured frame from endpoint " + from + " holds " + in.remaining()
                        + " bytes, expected at least 26");
            }
            double ring = in.getDouble();
            double fanIn = in.getDouble();
            double fanOut = in.getDouble();
            int rounds = Short.toUnsignedInt(in.getShort());
            if (in.remaining() != 16 * rounds) {
                throw new FrameException("a measured frame from endpoint " + from + " says " + rounds
                        + " loaded rounds but holds " + in.remaining() + " bytes for them, expected " + 16 * rounds);
            }
            double[] pass = new double[rounds];
            double[] round = new double[rounds];
            for (int r = 0; r < rounds; r++) {
                pass[r] = in.getDouble();
                round[r] = in.getDouble();
            }
            return new Measured(ring, fanIn, fanOut, pass, round);
        }
    }

    /** Rank 0's reading of every endpoint's figures. */
    static Probe probe(Measured[] all, int workers, int probeBytes, double[] rtt, double seconds) {
        int n = all.length;
        double[] ringMs = new double[workers];
        for (int w = 0; w < workers; w++) {
            ringMs[w] = all[w].ringMs();
        }
        double ringMbit = workers > 1 ? (workers - 1) * (double) probeBytes * 8 / median(ringMs) / 1e3 : Double.NaN;
        Measured hub = all[workers < n ? workers : 0];
        int senders = workers - (workers < n ? 0 : 1);
        double in = senders * (double) probeBytes * 8 / hub.fanInMs() / 1e3;
        double out = senders * (double) probeBytes * 8 / hub.fanOutMs() / 1e3;
        double leastRtt = Arrays.stream(rtt).filter(x -> !Double.isNaN(x)).min().orElse(Double.NaN);
        int rounds = workers > 1 ? all[0].passMs().length : 0;
        double[] hop = new double[rounds];
        double[] straggler = new double[rounds];
        double[] passMean = new double[workers];
        int hops = 2 * (workers - 1);
        double smallWireMs = workers > 1 ? SMALL_BYTES * 8 / ringMbit / 1e3 : 0;
        for (int r = 0; r < rounds; r++) {
            double slowest = 0;
            double sum = 0;
            double end = 0;
            for (int w = 0; w < workers; w++) {
                slowest = Math.max(slowest, all[w].passMs()[r]);
                sum += all[w].passMs()[r];
                end = Math.max(end, all[w].roundMs()[r]);
                passMean[w] += all[w].passMs()[r] / rounds;
            }
            hop[r] = (end - slowest) / hops - smallWireMs;
            straggler[r] = slowest - sum / workers;
        }
        return new Probe(n, workers, probeBytes, new Probe.Rates(ringMbit, in, out), new Probe.Times(leastRtt,
                rounds > 0 ? median(hop) : Double.NaN, rounds > 0 ? median(straggler) : Double.NaN,
                rounds > 0 ? median(passMean) : Double.NaN), seconds, 1);
    }

    static double median(double[] values) {
        double[] v = values.clone();
        Arrays.sort(v);
        int m = v.length / 2;
        return v.length % 2 == 1 ? v[m] : (v[m - 1] + v[m]) / 2;
    }

    private static void broadcast(Transport t, int phase, boolean ok, String text) {
        byte[] s = string(text);
        byte[] payload = new byte[1 + s.length];
        payload[0] = (byte) (ok ? 1 : 0);
        System.arraycopy(s, 0, payload, 1, s.length);
        byte[] f = frame(phase, payload);
        for (int e = 1; e < t.endpointCount(); e++) {
            t.send(e, f);
        }
    }

    /** Rank 0's go (the text) or its refusal, thrown. */
    private static String verdict(Transport t, int phase) {
        ByteBuffer p = expect(t, 0, phase).payload().duplicate();
        boolean ok = p.get() == 1;
        String text = readString(p);
        t.releaseReceived();
        if (!ok) {
            throw new IllegalStateException(text);
        }
        return text;
    }

    private static Frame expect(Transport t, int peer, int phase) {
        Frame f = t.receive(peer, TrafficKind.REPORT);
        if (f.stage() != Stage.SETUP || f.step() != phase) {
            throw new FrameException("endpoint " + t.endpoint() + " expected the advise session's " + PHASES[phase]
                    + " frame from endpoint " + peer + ", found " + (f.stage() != Stage.SETUP ? "a " + f.stage()
                    + " frame (is it training already?)" : "its " + (f.step() > 0 && f.step() < PHASES.length
                    ? PHASES[f.step()] : "step " + f.step()) + " frame"));
        }
        return f;
    }

    private static byte[] frame(int phase, byte[] payload) {
        return FrameCodec.encode(TrafficKind.REPORT, Stage.SETUP, phase, ByteBuffer.wrap(payload));
    }

    private static FrameBuffer data(Transport t, int bytes, int phase) {
        FrameBuffer out = t.allocate(bytes);
        ByteBuffer p = out.payload();
        while (p.remaining() >= 8) {
            p.putLong(0x5a5a5a5a5a5a5a5aL);
        }
        while (p.hasRemaining()) {
            p.put((byte) 0x5a);
        }
        return out.seal(TrafficKind.REPORT, Stage.SETUP, phase);
    }

    private static byte[] string(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String readString(ByteBuffer payload) {
        ByteBuffer p = payload.duplicate();
        byte[] b = new byte[p.remaining()];
        p.get(b);
        return new String(b, StandardCharsets.UTF_8);
    }

    /** This machine's name (network namespaces on one machine share it, and its cores). */
    static String hostName() {
        try {
            return Files.readString(Path.of("/proc/sys/kernel/hostname")).strip();
        } catch (IOException | RuntimeException e) {
            return System.getenv().getOrDefault("HOSTNAME", "unknown");
        }
    }

    private static String name(int endpoint, int workers) {
        return endpoint < workers ? "rank " + endpoint : "server process " + (endpoint - workers);
    }
}
