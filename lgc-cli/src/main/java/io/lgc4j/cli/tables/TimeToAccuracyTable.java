package io.lgc4j.cli.tables;

import com.fasterxml.jackson.databind.JsonNode;
import io.lgc4j.cli.netem.LinkProbe;
import io.lgc4j.cli.netem.LinkShape;
import io.lgc4j.runner.RunSummary;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/**
 * {@code lgc table time-to-accuracy}: for every link cap of the suite and every method, the training time
 * until the test accuracy first reaches the target, the final accuracy, the run's training and wall time, the bytes
 * each rank sent and the split of a step into compute, select + encode, communicate, decode and apply; the raw
 * throughput a TCP stream gets through each cap beside it; one PNG per link of test accuracy against training time;
 * the PyTorch DDP peer's rows under the same caps and CPU shares.
 *
 * <p>Training time excludes evaluations: for LGC4J the sum over steps of rank 0's wall time without its evaluation
 * ({@link TrainingSteps}), for the peer its {@code train_s} (evaluations and timing probes excluded). Phase means
 * leave out the first step and each step after an evaluation, where the other ranks wait for rank 0's.
 */
public final class TimeToAccuracyTable {

    private TimeToAccuracyTable() {
    }

    /**
     * What ran under one link setting.
     *
     * @param shape the cap
     * @param probe the raw stream's measurement through it
     * @param setup how the hosts were set up (qdiscs, CPU shares), for provenance
     * @param runs  the LGC4J runs
     * @param peers the PyTorch peer's runs
     * @param peerNote why the peer did not run (null when it did or none is listed)
     */
    public record RateResult(LinkShape shape, LinkProbe.Result probe, Map<String, Object> setup,
                             List<SuiteRuns.Finished> runs, List<PeerRun> peers, String peerNote) {
    }

    /**
     * One row's figures.
     *
     * @param accuracy the final accuracy: the reference's (whole schedule) when there is one, else the run's
     * @param check    with a reference: "yes" when the run's last evaluation equals the reference's at that step,
     *                 "NO" when not, "–" without a run; else empty
     * @param busiestBytes the most bytes any endpoint sent or received (a link is capped in each direction)
     */
    private record Row(String method, long steps, double toTarget, double accuracy, double trainS, double wallS,
                       double bytesPerRank, double computeMs, double encodeMs, double communicateMs, double decodeMs,
                       double applyMs, double stepMs, double[] curveS, double[] curveAcc, String check,
                       long stepsToTarget, double computeToTargetS, double busiestBytes) {

        /** A method whose reference never reached the target: nothing ran under the cap. */
        static Row notReached(String method, long referenceSteps, double referenceAccuracy) {
            return new Row(method, referenceSteps, Double.NaN, referenceAccuracy, Double.NaN, Double.NaN, Double.NaN,
                    Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, new double[0],
                    new double[0], "–", 0, Double.NaN, Double.NaN);
        }

        /**
         * The floor of this run: every step's compute plus {@code bytes} through a link of {@code mbitPerSecond},
         * as if nothing else (waiting, latency, encoding, throttling) cost anything. With a worker's mean bytes it is
         * the per-rank floor; with the busiest endpoint's (a single server's K pushes) the link's.
         */
        double floorS(double bytes, double mbitPerSecond) {
            return steps * computeMs / 1000 + bytes * 8 / (mbitPerSecond * 1e6);
        }

        /**
         * The time to the target had every step's compute (forward and backward) taken {@code computeMs}: the
         * measured time minus this run's compute up to the target plus the same number of steps at that rate. NaN
         * when the target was not reached or the rate is unknown.
         */
        double toTargetAtCompute(double computeMs) {
            return toTarget - computeToTargetS + stepsToTarget * computeMs / 1000;
        }
    }

    /** As {@link #write(Suite, Suite.Profile, String, List, List, Map, Path)} without reference runs. */
    public static void write(Suite suite, Suite.Profile profile, String commandLine, List<RateResult> rates, Path out)
            throws IOException {
        write(suite, profile, commandLine, rates, List.of(), Map.of(), out);
    }

    /**
     * Builds table.md, table.csv, one PNG per link and provenance.json in {@code out}.
     *
     * @param reference     the methods' reference runs in plan order ({@link UntilTarget}), or empty when every
     *                      capped run trained its whole schedule
     * @param peerReference the peer's reference runs by peer id, or empty
     */
    public static void write(Suite suite, Suite.Profile profile, String commandLine, List<RateResult> rates,
                             List<SuiteRuns.Finished> reference, Map<String, PeerRun> peerReference, Path out)
            throws IOException {
        TimeToAccuracySettings settings = suite.timeToAccuracy();
        double target = settings.targetAccuracy(profile);
        boolean until = !reference.isEmpty();
        CrossoverInputs crossoverInputs = new CrossoverInputs();
        Table stages = stageTable();
        Table table = rowsTable(until, target);
        Map<String, String> figures = new LinkedHashMap<>();
        List<String> findings = new ArrayList<>();
        List<Map<String, Object>> links = new ArrayList<>();
        List<SuiteRuns.Finished> all = new ArrayList<>();
        for (RateResult rate : rates) {
            all.addAll(rate.runs());
            String measured = Table.number(rate.probe().megabitsPerSecond(), 1);
            LinkRows link = linkRows(rate, reference, peerReference, target, stages);
            crossoverInputs.add(rate, link);
            addRows(table, rate, measured, link);
            accuracyFigure(rate, measured, link.lines(), out, figures);
            String denseRingFinding = denseRingFinding(rate, measured, target, link);
            if (denseRingFinding != null) {
                findings.add(denseRingFinding);
            }
            if (rate.peerNote() != null) {
                findings.add("PyTorch peer at " + rate.shape().label() + ": " + rate.peerNote());
            }
            links.add(linkProvenance(rate));
        }
        List<String> intro = intro(settings, until, target, until ? reference : all);
        Map<String, Object> provenance = provenance(rates, reference, links, settings, target, until, out);
        String crossover = crossoverInputs.paragraph(pct(target));
        if (crossover != null) {
            findings.add(crossover);
        }
        if (stages.size() > 0) {
            stages.writeCsv(out.resolve("stages.csv"));
            findings.add("**Where the time went, per stage** (`stages.csv`): the steps each LGC4J run spent in each"
                    + " stage up to where it stopped, their training time (evaluations excluded), the mean split of"
                    + " such a step (the first step and the steps after an evaluation left out: there the other"
                    + " ranks wait for rank 0's evaluation) and the bytes a worker sent per step.\n\n"
                    + stages.markdown().strip());
        }
        new Report(suite, profile, commandLine, intro, table, figures, findings).write(out, all, provenance);
    }

    /**
     * The rows of one link.
     *
     * @param rows          LGC4J's methods in plan order (those whose reference never reached the target as not
     *                      reached), then the peer's that did not run under this cap, then the peer's that did
     * @param denseRing     dense ring's row, or null when the suite has none
     * @param lines         a curve of test accuracy against training time for every run (dashed: the peer's)
     * @param peerComputeMs the compute per step of the peer's first method (PyTorch DDP dense) under this cap, which
     *                      the "at PyTorch's compute" times are put at; NaN when it did not run
     */
    private record LinkRows(List<Row> rows, Row denseRing, List<Charts.Line> lines, double peerComputeMs) {
    }

    /**
     * The rows of one link from its runs (with {@code reference}: one per reference run, a run to the target or not
     * reached) and the peer's; adds every LGC4J run's stages to {@code stages}.
     */
    private static LinkRows linkRows(RateResult rate, List<SuiteRuns.Finished> reference,
                                     Map<String, PeerRun> peerReference, double target, Table stages)
            throws IOException {
        boolean until = !reference.isEmpty();
        List<Charts.Line> lines = new ArrayList<>();
        Row denseRing = null;
        List<Row> rows = new ArrayList<>();
        for (SuiteRuns.Finished ref : until ? reference : rate.runs()) {
            SuiteRuns.Finished run = until ? rate.runs().stream().filter(f -> f.planned().key()
                    .equals(ref.planned().key())).findFirst().orElse(null) : ref;
            Row r = run == null ? Row.notReached(ref.planned().label(), ref.summary().steps(),
                    ref.summary().finalTestAccuracy()) : lgcRow(run, until ? ref : null, target);
            rows.add(r);
            if (ref.planned().methodId().equals("dense-ring")) {
                denseRing = r;
            }
            if (run != null) {
                lines.add(new Charts.Line(r.method(), r.curveS(), r.curveAcc(), false));
                addStages(stages, rate.shape().label(), run);
            }
        }
        for (PeerRun ref : until && rate.peerNote() == null ? peerReference.values() : List.<PeerRun>of()) {
            TimeToAccuracySettings.Peer p = ref.peer();
            if (rate.peers().stream().noneMatch(run -> run.peer().id().equals(p.id()))) {
                JsonNode s = ref.summary();
                rows.add(Row.notReached(p.label(), s.path("steps").asLong(),
                        s.path("final_test_accuracy").asDouble()));
            }
        }
        for (PeerRun peer : rate.peers()) {
            Row r = peerRow(peer, until ? peerReference.get(peer.peer().id()) : null, target);
            rows.add(r);
            lines.add(new Charts.Line(r.method(), r.curveS(), r.curveAcc(), true));
        }
        String peerDense = rate.peers().isEmpty() ? null : rate.peers().get(0).peer().label();
        double peerCompute = rows.stream().filter(r -> r.method().equals(peerDense)).findFirst()
                .map(Row::computeMs).orElse(Double.NaN);
        return new LinkRows(rows, denseRing, lines, peerCompute);
    }

    /** The table's rows of one link, {@code measured} its probe's rate as the table spells it. */
    private static void addRows(Table table, RateResult rate, String measured, LinkRows link) {
        double mbit = rate.probe().megabitsPerSecond();
        double peerCompute = link.peerComputeMs();
        for (Row r : link.rows()) {
            double floor = r.floorS(r.bytesPerRank(), mbit);
            double linkFloor = r.floorS(r.busiestBytes(), mbit);
            table.add(rate.shape().label(), measured, r.method(), String.valueOf(r.steps()),
                    Double.isNaN(r.toTarget()) ? "not reached" : Table.number(r.toTarget(), 1),
                    Table.number(r.toTargetAtCompute(peerCompute), 1), Table.number(r.accuracy(), 4), r.check(),
                    Table.number(r.trainS(), 1), Table.number(r.wallS(), 1),
                    Table.number(r.bytesPerRank() / 1e6, 2), Table.number(r.computeMs(), 1),
                    Table.number(r.encodeMs(), 1), Table.number(r.communicateMs(), 1),
                    Table.number(r.decodeMs(), 1), Table.number(r.applyMs(), 1), Table.number(r.stepMs(), 1),
                    Table.number(floor, 1), Table.number(r.trainS() / floor, 2), Table.number(linkFloor, 1),
                    Table.number(r.trainS() / linkFloor, 2));
        }
    }

    /** The link's PNG of test accuracy against training time, a curve per run, and its caption. */
    private static void accuracyFigure(RateResult rate, String measured, List<Charts.Line> lines, Path out,
                                       Map<String, String> figures) throws IOException {
        String png = "accuracy-" + rate.shape().label() + ".png";
        Charts.lines("Test accuracy against training time, links " + rate.shape().label(),
                "training time (s, evaluations excluded)", "test accuracy", lines, false, out.resolve(png));
        figures.put(png, "Test accuracy against training time, every link capped at " + rate.shape().label()
                + " (measured " + measured + " Mbit/s); dashed: PyTorch DDP");
    }

    /**
     * The link's finding: every row's time to the target as a multiple of dense ring's; null when dense ring did not
     * run or did not reach the target.
     */
    private static String denseRingFinding(RateResult rate, String measured, double target, LinkRows link) {
        Row denseRing = link.denseRing();
        if (denseRing == null || Double.isNaN(denseRing.toTarget())) {
            return null;
        }
        StringBuilder f = new StringBuilder(String.format(Locale.ROOT, "**%s** (measured %s Mbit/s): dense"
                + " ring reaches %s in %.1f s;", rate.shape().label(), measured, pct(target),
                denseRing.toTarget()));
        for (Row r : link.rows()) {
            if (r != denseRing) {
                f.append(Double.isNaN(r.toTarget()) ? String.format(Locale.ROOT, " %s does not reach it;",
                        r.method()) : String.format(Locale.ROOT, " %s in %.2f× its time;", r.method(),
                        r.toTarget() / denseRing.toTarget()));
            }
        }
        return f.substring(0, f.length() - 1) + ".";
    }

    /** The link's entry in provenance.json: its cap, the probe's measurement and how its hosts were set up. */
    private static Map<String, Object> linkProvenance(RateResult rate) {
        Map<String, Object> link = new LinkedHashMap<>();
        link.put("cap", rate.shape().label());
        link.put("tbf", rate.shape().describe());
        link.put("probeBytes", rate.probe().bytes());
        link.put("probeSeconds", rate.probe().seconds());
        link.put("measuredMbitPerSecond", rate.probe().megabitsPerSecond());
        link.putAll(rate.setup());
        return link;
    }

    /**
     * What the crossover paragraph fits, gathered link by link: the measured rates, every method's times to the
     * target as measured and at PyTorch's compute, and the two baselines' labels (dense ring, the peer's first).
     */
    private static final class CrossoverInputs {
        private final List<Double> measuredRates = new ArrayList<>();
        private final Map<String, List<Double>> timesByMethod = new LinkedHashMap<>();
        private final Map<String, List<Double>> equalTimesByMethod = new LinkedHashMap<>();
        private final List<String> peerLabels = new ArrayList<>();
        private String denseRingLabel;

        /** Adds one link's rate and rows. */
        void add(RateResult rate, LinkRows link) {
            if (link.denseRing() != null) {
                denseRingLabel = link.denseRing().method();
            }
            measuredRates.add(rate.probe().megabitsPerSecond());
            for (Row r : link.rows()) {
                timesByMethod.computeIfAbsent(r.method(), m -> new ArrayList<>()).add(r.toTarget());
                equalTimesByMethod.computeIfAbsent(r.method(), m -> new ArrayList<>())
                        .add(r.toTargetAtCompute(link.peerComputeMs()));
            }
            rate.peers().forEach(p -> {
                if (!peerLabels.contains(p.peer().label())) {
                    peerLabels.add(p.peer().label());
                }
            });
        }

        /** The paragraph ({@link #crossover}); null with fewer than two rates or no dense ring. */
        String paragraph(String target) {
            return crossover(measuredRates, timesByMethod, equalTimesByMethod, denseRingLabel, peerLabels, target);
        }
    }

    /** The table's columns; with {@code until}, steps and accuracy are those to the target. */
    private static Table rowsTable(boolean until, double target) {
        return new Table(List.of(Table.column("link", "link cap"), Table.timing("measured_mbit_s",
                        "measured (Mbit/s)"), Table.column("method", "method"),
                Table.column("steps", until ? "steps to " + pct(target) : "steps"),
                Table.timing("time_to_target_s", "time to " + pct(target) + " (s)"),
                Table.timing("time_at_peer_compute_s", "at PyTorch's compute (s)"),
                Table.column("final_accuracy", until ? "final accuracy (whole schedule)" : "final accuracy"),
                Table.column("same_as_reference", "same as reference"), Table.timing("train_s", "train time (s)"),
                Table.timing("wall_s", "wall (s)"), Table.column("sent_mb_per_rank", "sent (MB / rank)"),
                Table.timing("compute_ms", "compute (ms/step)"),
                Table.timing("encode_ms", "select+encode (ms/step)"),
                Table.timing("communicate_ms", "communicate (ms/step)"), Table.timing("decode_ms", "decode (ms/step)"),
                Table.timing("apply_ms", "apply (ms/step)"), Table.timing("step_ms", "step (ms)"),
                Table.timing("floor_s", "floor (s)"), Table.timing("floor_x", "× floor"),
                Table.timing("floor_link_s", "busiest link's floor (s)"),
                Table.timing("floor_link_x", "× busiest link's floor")));
    }

    /** The paragraphs before the table: how every run was made, compute on equal terms, floors, until the target. */
    private static List<String> intro(TimeToAccuracySettings settings, boolean until, double target,
                                      List<SuiteRuns.Finished> described) {
        List<String> intro = new ArrayList<>(List.of("Every run: " + CompressionTable.describe(described)
                + ". Every process (worker,"
                + " parameter-server shard, PyTorch rank) runs in its own Linux network namespace; the namespaces are"
                + " joined through a bridge by veth links whose both directions are capped with `tc qdisc … tbf` at"
                + " the row's rate (`unshaped`: namespaces, no cap). Each process is held to "
                + Table.number(settings.cpuPerProcess(), 2) + " cores by a cgroup CFS quota, the same for every"
                + " method, so compute per step is equal and reported on its own (compute column): multiply it by "
                + Table.number(settings.cpuPerProcess(), 2) + " to re-scale the table to one core per rank. Time to"
                + " target is the training time at the first evaluation whose test accuracy reaches " + pct(target)
                + ": rank 0's wall clock without the evaluations (every worker evaluates a share of the test set"
                + " and rank 0 waits for the slowest; in runs from before the shares, rank 0 evaluated alone while"
                + " the other ranks waited in the next step's exchange, so the phase means leave the step after each"
                + " evaluation out). `measured` is a single raw"
                + " TCP stream between two namespaces through the same cap. PyTorch DDP rows (gloo) split a step into"
                + " compute and exposed communication only (their encode and decode are inside communicate); its"
                + " bytes are computed from the hooks.",
                "**Compute on equal terms.** PyTorch's forward and backward are several times faster than DL4J's on"
                + " the same cores, which has nothing to do with the links. `at PyTorch's compute` is the time to the"
                + " target had every step's compute taken what PyTorch DDP dense's took under the same cap and CPU"
                + " share: the measured time, minus the run's own compute (forward + backward, summed over the steps"
                + " up to the target), plus as many steps of PyTorch's. Everything else (selection, encoding,"
                + " communication, waiting, decoding, applying) stays as measured. It compares ours with PyTorch's"
                + " methods on their communication alone; it is not a prediction of what a faster DL4J would do,"
                + " since shorter compute would also shorten the waits at 0.4 cores.",
                "**Floors.** A run's *floor* is the time it would take if nothing but computing and moving its own"
                + " bytes cost anything: steps × compute per step + the bytes a worker sent ÷ the measured rate."
                + " `× floor` is the train time over it: what waiting for the slowest rank, round trips, latency,"
                + " encoding, decoding, applying and CPU throttling added. With one parameter server the busiest link"
                + " is the server's, which carries K workers' bytes: the *busiest link's floor* puts the most bytes"
                + " any endpoint sent or received through the rate instead, a bound no scheduling of the same bytes"
                + " beats."));
        if (until) {
            intro.add("**Trained until the target.** A run's results are fixed by its config and seed, not by its links"
                    + " (a process per rank computes what one JVM computes, bit for bit). So every method first trained"
                    + " once in one JVM without caps over its whole schedule (its *reference*, `reference/runs/`; the"
                    + " PyTorch peer on loopback, `reference/peers/`): the final accuracy column is the reference's."
                    + " Under each cap it then trained only the steps its reference needed to reach " + pct(target)
                    + " (the steps column), so train time, wall, bytes and the step split are those of the run to the"
                    + " target. `same as reference`: the capped run's last evaluation (and, for LGC4J, its loss)"
                    + " equals the reference's at the same step. A method whose reference never reached the target"
                    + " did not run under the caps (`not reached`; steps: its whole schedule).");
        }
        return intro;
    }

    /** What ran: the kernel, the target, the CPU share, each link's probe and setup, the references and peers. */
    private static Map<String, Object> provenance(List<RateResult> rates, List<SuiteRuns.Finished> reference,
                                                  List<Map<String, Object>> links, TimeToAccuracySettings settings,
                                                  double target, boolean until, Path out) {
        Map<String, Object> provenance = new LinkedHashMap<>();
        provenance.put("kernel", System.getProperty("os.name") + " " + System.getProperty("os.version"));
        provenance.put("targetAccuracy", target);
        provenance.put("cpuPerProcess", settings.cpuPerProcess());
        provenance.put("links", links);
        if (until) {
            provenance.put("reference", reference.stream().map(f -> out.relativize(f.directory()).toString())
                    .toList());
        }
        List<Map<String, Object>> peers = new ArrayList<>();
        for (RateResult rate : rates) {
            for (PeerRun p : rate.peers()) {
                // in this order in every JVM (Map.of's iteration order is not fixed from one run to the next)
                Map<String, Object> peer = new LinkedHashMap<>();
                peer.put("cap", rate.shape().label());
                peer.put("peer", p.peer().id());
                peer.put("directory", out.relativize(p.directory()).toString());
                peer.put("reused", p.reused());
                peers.add(peer);
            }
        }
        provenance.put("peers", peers);
        return provenance;
    }

    /**
     * The crossover paragraph ({@link Crossover}): every method's times to the target fitted over the measured rates,
     * LGC4J's methods against dense ring, the PyTorch peer's against its first method (dense); null with fewer than
     * two rates or no dense ring.
     */
    private static String crossover(List<Double> rates, Map<String, List<Double>> times,
                                    Map<String, List<Double>> equalTimes, String ours, List<String> peerLabels,
                                    String target) {
        if (rates.size() < 2 || ours == null) {
            return null;
        }
        double[] x = rates.stream().mapToDouble(Double::doubleValue).toArray();
        String theirs = peerLabels.isEmpty() ? null : peerLabels.get(0);
        StringBuilder b = new StringBuilder(String.format(Locale.ROOT, "**Crossover.** Each method's time to %s"
                + " at the measured rates, fitted with T = a + b / rate: *a* is the seconds no bandwidth removes"
                + " (compute, encoding, waiting for the slowest rank, latency), *b* the megabits through the busiest"
                + " link before the target. Where the two lines of a method and its baseline (%s for LGC4J, %s for"
                + " PyTorch) cross is the rate below (or above) which the method is faster. The last column fits the"
                + " times at PyTorch's compute instead and compares every method with %s there, ours and"
                + " PyTorch's alike.%n%n"
                + "| method | a (s) | b (Mbit) | worst fit residual | against its baseline | at PyTorch's compute,"
                + " against %s |%n"
                + "| --- | ---: | ---: | ---: | --- | --- |", target, ours, theirs == null ? "–" : theirs, ours,
                ours));
        Crossover.Fit oursFit = fitOrNull(x, times.get(ours));
        Crossover.Fit theirsFit = theirs == null ? null : fitOrNull(x, times.get(theirs));
        Crossover.Fit oursEqualFit = fitOrNull(x, equalTimes.get(ours));
        for (Map.Entry<String, List<Double>> e : times.entrySet()) {
            Crossover.Fit fit = fitOrNull(x, e.getValue());
            Crossover.Fit base = peerLabels.contains(e.getKey()) ? theirsFit : oursFit;
            String against = fit == null ? "not reached at two rates" : e.getKey().equals(ours)
                    || e.getKey().equals(theirs) ? "(baseline)" : base == null ? "–"
                    : Crossover.against(fit, base).describe();
            Crossover.Fit equalFit = fitOrNull(x, equalTimes.get(e.getKey()));
            String equal = equalFit == null ? "–" : e.getKey().equals(ours) ? "(baseline)" : oursEqualFit == null
                    ? "–" : Crossover.against(equalFit, oursEqualFit).describe();
            b.append(String.format(Locale.ROOT, "%n| %s | %s | %s | %s | %s | %s |", e.getKey(),
                    fit == null ? "" : Table.number(fit.a(), 1), fit == null ? "" : Table.number(fit.b(), 1),
                    fit == null ? "" : String.format(Locale.ROOT, "%.0f%%", fit.maxRelResidual() * 100), against,
                    equal));
        }
        return b.toString();
    }

    private static Table stageTable() {
        return new Table(List.of(Table.column("link", "link cap"), Table.column("method", "method"),
                Table.column("stage", "stage"), Table.column("steps", "steps"),
                Table.timing("train_s", "train time (s)"), Table.timing("compute_ms", "compute (ms/step)"),
                Table.timing("encode_ms", "select+encode (ms/step)"),
                Table.timing("communicate_ms", "communicate (ms/step)"), Table.timing("decode_ms", "decode (ms/step)"),
                Table.timing("apply_ms", "apply (ms/step)"), Table.column("sent_kb_per_step", "sent (kB / worker /"
                        + " step)")));
    }

    /** One row per stage of {@code run}, in the order the stages came. */
    private static void addStages(Table stages, String link, SuiteRuns.Finished run) throws IOException {
        MetricsTable m = run.metrics();
        String[] stage = m.text("stage");
        int k = run.summary().workers();
        TrainingSteps steps = new TrainingSteps(m, k);
        String[] phases = {"compute_ms", "select_ms", "encode_ms", "communicate_ms", "decode_ms", "apply_ms"};
        Map<String, double[]> columns = new LinkedHashMap<>();
        for (String c : phases) {
            columns.put(c, m.numbers(c));
        }
        List<double[]> sent = new ArrayList<>();
        for (int w = 0; w < k; w++) {
            sent.add(m.numbers("bytes_sent_w" + w));
        }
        // stage -> steps, train ms, bytes, typical steps, then the phases' sums over the typical steps
        Map<String, double[]> sums = new LinkedHashMap<>();
        for (int i = 0; i < stage.length; i++) {
            double[] acc = sums.computeIfAbsent(stage[i], s -> new double[phases.length + 4]);
            acc[0]++;
            acc[1] += steps.trainMs(i);
            for (double[] w : sent) {
                acc[2] += (Double.isNaN(w[i]) ? 0 : w[i]) / k;
            }
            if (steps.typical(i)) {
                acc[3]++;
                for (int p = 0; p < phases.length; p++) {
                    double v = columns.get(phases[p])[i];
                    acc[4 + p] += Double.isNaN(v) ? 0 : v;
                }
            }
        }
        for (Map.Entry<String, double[]> e : sums.entrySet()) {
            double[] a = e.getValue();
            double n = a[3] == 0 ? Double.NaN : a[3];
            stages.add(link, run.planned().label(), e.getKey(), String.valueOf((long) a[0]),
                    Table.number(a[1] / 1000, 1), Table.number(a[4] / n, 1), Table.number((a[5] + a[6]) / n, 1),
                    Table.number(a[7] / n, 1), Table.number(a[8] / n, 1), Table.number(a[9] / n, 1),
                    Table.number(a[2] / a[0] / 1000, 1));
        }
    }

    private static Crossover.Fit fitOrNull(double[] rates, List<Double> times) {
        if (times == null || times.size() != rates.length || times.stream().filter(t -> !t.isNaN()).count() < 2) {
            return null;
        }
        return Crossover.fit(rates, times.stream().mapToDouble(Double::doubleValue).toArray());
    }

    private static Row lgcRow(SuiteRuns.Finished run, SuiteRuns.Finished ref, double target) throws IOException {
        MetricsTable m = run.metrics();
        RunSummary s = run.summary();
        int k = s.workers();
        TrainingSteps steps = new TrainingSteps(m, k);
        double[] acc = m.numbers("test_accuracy");
        List<Double> xs = new ArrayList<>(List.of(0.0));
        List<Double> ys = new ArrayList<>(List.of(Double.NaN));
        double[] compute = m.numbers("compute_ms");
        double train = 0;
        double computed = 0;
        double toTarget = Double.NaN;
        double computeToTarget = Double.NaN;
        long stepsToTarget = 0;
        for (int i = 0; i < steps.size(); i++) {
            train += steps.trainMs(i) / 1000;
            computed += (Double.isNaN(compute[i]) ? 0 : compute[i]) / 1000;
            if (!Double.isNaN(acc[i])) {
                xs.add(train);
                ys.add(acc[i]);
                if (acc[i] >= target && Double.isNaN(toTarget)) {
                    toTarget = train;
                    computeToTarget = computed;
                    stepsToTarget = i + 1;
                }
            }
        }
        double bytes = s.bytesSentPerEndpoint().stream().limit(k).mapToLong(Long::longValue).average().orElse(0);
        double busiest = Stream.concat(s.bytesSentPerEndpoint().stream(),
                s.bytesReceivedPerEndpoint().stream()).mapToLong(Long::longValue).max().orElse(0);
        return new Row(run.planned().label(), s.steps(), toTarget,
                ref == null ? s.finalTestAccuracy() : ref.summary().finalTestAccuracy(), train, s.wallMs() / 1000,
                bytes, steps.mean(m.numbers("compute_ms")),
                steps.mean(m.numbers("select_ms")) + steps.mean(m.numbers("encode_ms")),
                steps.mean(m.numbers("communicate_ms")), steps.mean(m.numbers("decode_ms")),
                steps.mean(m.numbers("apply_ms")), steps.meanTrainMs(),
                xs.stream().mapToDouble(Double::doubleValue).toArray(),
                ys.stream().mapToDouble(Double::doubleValue).toArray(),
                ref == null ? "" : UntilTarget.sameAsReference(m, ref.metrics()) ? "yes" : "NO", stepsToTarget,
                computeToTarget, busiest);
    }

    private static Row peerRow(PeerRun peer, PeerRun ref, double target) throws IOException {
        JsonNode s = peer.summary();
        List<JsonNode> evals = peer.evaluations();
        double[] xs = new double[evals.size()];
        double[] ys = new double[evals.size()];
        double toTarget = Double.NaN;
        long stepsToTarget = 0;
        for (int i = 0; i < evals.size(); i++) {
            xs[i] = evals.get(i).path("train_s").asDouble();
            ys[i] = evals.get(i).path("test_accuracy").asDouble();
            if (ys[i] >= target && Double.isNaN(toTarget)) {
                toTarget = xs[i];
                stepsToTarget = evals.get(i).path("step").asLong();
            }
        }
        double computeMs = ms(s, "compute_s_mean");
        return new Row(peer.peer().label(), s.path("steps").asLong(), toTarget,
                (ref == null ? s : ref.summary()).path("final_test_accuracy").asDouble(), s.path("train_s").asDouble(),
                s.path("wall_s").asDouble(), s.path("bytes_per_rank_total").asDouble(), computeMs,
                Double.NaN, ms(s, "comm_s_mean"), Double.NaN, Double.NaN, ms(s, "step_s_mean"), xs, ys,
                ref == null ? "" : UntilTarget.sameAsReference(peer, ref) ? "yes" : "NO", stepsToTarget,
                stepsToTarget * computeMs / 1000, s.path("bytes_per_rank_total").asDouble());
    }

    private static double ms(JsonNode s, String field) {
        JsonNode v = s.get(field);
        return v == null || !v.isNumber() ? Double.NaN : v.asDouble() * 1000;
    }

    private static String pct(double accuracy) {
        return String.format(Locale.ROOT, "%.1f%%", accuracy * 100);
    }
}
