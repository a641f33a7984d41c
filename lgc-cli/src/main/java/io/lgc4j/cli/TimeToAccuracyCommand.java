package io.lgc4j.cli;

import io.lgc4j.cli.netem.FabricException;
import io.lgc4j.cli.netem.HostCommands;
import io.lgc4j.cli.netem.LinkProbe;
import io.lgc4j.cli.netem.LinkShape;
import io.lgc4j.cli.netem.NetnsFabric;
import io.lgc4j.cli.tables.PeerRun;
import io.lgc4j.cli.tables.Suite;
import io.lgc4j.cli.tables.SuiteKind;
import io.lgc4j.cli.tables.SuiteRuns;
import io.lgc4j.cli.tables.TimeToAccuracySettings;
import io.lgc4j.cli.tables.TimeToAccuracyTable;
import io.lgc4j.cli.tables.UntilTarget;
import io.lgc4j.core.train.TrainingListener;
import io.lgc4j.runner.config.ExperimentConfig;
import io.lgc4j.runner.RunInputException;
import picocli.CommandLine.Command;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;

/**
 * {@code lgc table time-to-accuracy}: every method of the suite as an {@code lgc launch} with one network
 * namespace per process, the links capped at each of the suite's rates and every process held to the same CPU share,
 * beside the PyTorch DDP peer under the same fabric; then {@link TimeToAccuracyTable}. Needs root, and says so before
 * anything trains. Resumable: a finished run under {@code <out>/<rate>/runs/} (or a peer run under
 * {@code <out>/<rate>/peers/}) with the same config is reused; the link probe is measured again on every invocation.
 * With {@code network.untilTarget} every method first trains once in this JVM without caps over its whole schedule
 * (under {@code <out>/reference/}, the peer on loopback), and under each cap only until the step where its reference
 * reached the target ({@link UntilTarget}).
 */
@Command(name = "time-to-accuracy", mixinStandardHelpOptions = true,
        description = {"Time to a target test accuracy of every method over links capped with tc tbf (one network"
                + " namespace per process, equal CPU shares), beside PyTorch DDP; needs root.",
            "Output: table.md, table.csv, one PNG per link, provenance.json, runs under <out>/<rate>/."})
final class TimeToAccuracyCommand extends SuiteCommand {

    TimeToAccuracyCommand() {
        super(SuiteKind.TIME_TO_ACCURACY, (suite, profile, commandLine, runs, out) -> {
            throw new IllegalStateException("time-to-accuracy writes its table from its runs per link");
        });
    }

    @Override
    public Integer call() {
        if (!HostCommands.isRoot()) {
            System.err.println("lgc table time-to-accuracy: needs root (network namespaces, tc qdiscs, cgroups);"
                    + " run it as root, e.g. with sudo. Nothing was set up and nothing trained.");
            return 2;
        }
        return super.call();
    }

    @Override
    void produce(Suite suite, Suite.Profile profile, Path out, String commandLine, PrintStream log,
                 Supplier<List<TrainingListener>> progress) throws IOException {
        TimeToAccuracySettings settings = suite.timeToAccuracy();
        List<Suite.PlannedRun> plan = suite.plan(profile);
        Path script = Path.of(settings.peerScript());
        String peerNote = null;
        if (!settings.peers().isEmpty()) {
            peerNote = !Files.isRegularFile(script) ? "not run: no peer script at " + script.toAbsolutePath()
                    + " (network.peerScript)" : PeerRunner.unavailable();
            if (peerNote != null) {
                log.println("lgc table time-to-accuracy: the PyTorch peer will not run: " + peerNote);
            }
        }
        double target = settings.targetAccuracy(profile);
        boolean until = settings.untilTarget(profile);
        List<SuiteRuns.Finished> reference = List.of();
        Map<String, PeerRun> peerReference = new LinkedHashMap<>();
        List<Suite.PlannedRun> capped = plan;
        if (until) {
            log.printf(Locale.ROOT, "reference: every method once in this JVM, no caps, its whole schedule: the step"
                    + " where it first reaches %.1f%% and its final accuracy%n", target * 100);
            reference = SuiteRuns.execute(plan, out.resolve("reference"), log, progress);
            Map<String, SuiteRuns.Finished> byKey = new LinkedHashMap<>();
            reference.forEach(f -> byKey.put(f.planned().key(), f));
            capped = UntilTarget.plan(plan, byKey, target);
            if (peerNote == null) {
                for (SeededPeer p : seededPeers(settings.peers(), plan)) {
                    peerReference.put(p.peer().id(), PeerRunner.run(p.peer(), p.config(), null, 0, script,
                            out.resolve("reference").resolve("peers").resolve(p.peer().id()), log));
                }
            }
        }
        List<TimeToAccuracyTable.RateResult> results = new ArrayList<>();
        for (LinkShape shape : settings.rates(profile)) {
            Path dir = out.resolve(shape.label());
            LinkProbe.Result probe;
            Map<String, Object> setup = new LinkedHashMap<>();
            try (NetnsFabric fabric = NetnsFabric.create(2, shape)) {
                probe = LinkProbe.measure(fabric, 0, 1, settings.probeSeconds(profile));
                if (shape.shaped()) {
                    setup.put("qdiscs", fabric.qdiscs());
                }
            } catch (FabricException e) {
                throw new RunInputException("cannot set up or probe the links at " + shape.label() + ": "
                        + e.getMessage(), e);
            }
            log.printf(Locale.ROOT, "links %s: a raw TCP stream between two namespaces gets %.1f Mbit/s%n",
                    shape.label(), probe.megabitsPerSecond());
            List<SuiteRuns.Finished> runs = SuiteRuns.execute(capped, dir, log, progress, new LaunchedRuns(run ->
                    options(shape, settings, suite.method(run.methodId()).colocate())));
            List<PeerRun> peers = new ArrayList<>();
            if (peerNote == null) {
                for (SeededPeer p : seededPeers(settings.peers(), plan)) {
                    TimeToAccuracySettings.Peer peer = p.peer();
                    ExperimentConfig config = p.config();
                    if (until) {
                        int steps = UntilTarget.stepsToTarget(peerReference.get(peer.id()), target);
                        if (steps <= 0) {
                            continue;
                        }
                        config = config.withTraining(config.training().withMaxSteps(steps));
                    }
                    peers.add(PeerRunner.run(peer, config, shape, settings.cpuPerProcess(), script,
                            dir.resolve("peers").resolve(peer.id()), log));
                }
            }
            setup.put("cpu", "each process capped at " + settings.cpuPerProcess() + " cores by a cgroup CFS quota"
                    + " (lgc launch --cpu-share; cgroup v2 cpu.max where the cpu controller is on v2, else v1's"
                    + " cpu.cfs_quota_us)");
            results.add(new TimeToAccuracyTable.RateResult(shape, probe, setup, runs, peers, peerNote));
        }
        TimeToAccuracyTable.write(suite, profile, commandLine, results, reference, peerReference, out);
    }

    /**
     * A peer with the schedule it trains: the first planned run of its seed.
     *
     * @param peer   the suite's peer; its id ends in {@code -s<seed>} when the plan has several seeds
     * @param config the run whose K, batch, steps, evaluation and seed it takes
     */
    record SeededPeer(TimeToAccuracySettings.Peer peer, ExperimentConfig config) {
    }

    /** Every peer once per seed of the plan (one seed: the peers as the suite names them), seed by seed. */
    static List<SeededPeer> seededPeers(List<TimeToAccuracySettings.Peer> peers, List<Suite.PlannedRun> plan) {
        Map<Long, ExperimentConfig> bySeed = new LinkedHashMap<>();
        for (Suite.PlannedRun run : plan) {
            bySeed.putIfAbsent(run.config().run().seed(), run.config());
        }
        List<SeededPeer> seeded = new ArrayList<>();
        for (Map.Entry<Long, ExperimentConfig> seed : bySeed.entrySet()) {
            for (TimeToAccuracySettings.Peer p : peers) {
                seeded.add(new SeededPeer(bySeed.size() == 1 ? p : new TimeToAccuracySettings.Peer(p.id() + "-s"
                        + seed.getKey(), p.label(), p.method(), p.rank(), p.startIter(), p.period()),
                        seed.getValue()));
            }
        }
        return seeded;
    }

    private static List<String> options(LinkShape shape, TimeToAccuracySettings settings, boolean colocate) {
        List<String> o = new ArrayList<>(List.of("--netns-rate", shape.label(), "--netns-latency-ms",
                String.valueOf(settings.latencyMs()), "--cpu-share", String.valueOf(settings.cpuPerProcess())));
        if (colocate) {
            o.add("--colocate");
        }
        return o;
    }
}
