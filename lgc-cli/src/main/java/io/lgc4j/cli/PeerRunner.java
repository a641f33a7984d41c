package io.lgc4j.cli;

import io.lgc4j.cli.netem.EmulatedHosts;
import io.lgc4j.cli.netem.LinkShape;
import io.lgc4j.cli.tables.PeerRun;
import io.lgc4j.cli.tables.TimeToAccuracySettings;
import io.lgc4j.runner.config.ExperimentConfig;
import io.lgc4j.runner.RunFailedException;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Runs the PyTorch DDP peer ({@code ddp_peer.py}, gloo) as K processes, each in its own namespace of an
 * {@link EmulatedHosts} with the same link cap and CPU share the LGC4J runs get, and the same schedule (K, batch per
 * rank, steps, evaluation interval, seed, Nesterov lr and momentum); each peer at the setting its suite entry names,
 * by default its best documented one (PowerSGD from step 2, not from LGC4J's {@code stages.fullIterations}: a peer
 * started later is a dense peer until then).
 * A peer run whose {@code summary.json} exists and whose {@code command.txt} is the planned command is reused, wherever
 * its directory now is (the command's {@code --out} aside): a suite run into another output directory with a copy of
 * the reference runs trains none of them again.
 *
 * <pre>{@code
 * PeerRun r = PeerRunner.run(peer, config, shape, 0.4, script, dir, System.out);
 * }</pre>
 */
final class PeerRunner {

    /** The interpreter with Debian's python3-torch. */
    static final String PYTHON = "/usr/bin/python3";
    private static final int MASTER_PORT = 29_500;

    private PeerRunner() {
    }

    /** Whether {@code /usr/bin/python3} imports torch; else why not. */
    static String unavailable() {
        try {
            Process p = new ProcessBuilder(PYTHON, "-c", "import torch").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            return p.waitFor() == 0 ? null : PYTHON + " cannot import torch (apt-get install -y python3-torch): "
                    + out.lines().reduce((a, b) -> b).orElse("");
        } catch (IOException e) {
            return "cannot run " + PYTHON + ": " + e.getMessage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        }
    }

    /** The peer's options for the schedule of {@code config} (every rank gets the same). */
    static List<String> options(TimeToAccuracySettings.Peer peer, ExperimentConfig config) {
        var t = config.training();
        int perEpoch = (config.data().trainLimit() > 0 ? config.data().trainLimit() : 60_000)
                / (t.workers() * t.batchSizePerWorker());
        long steps = (long) t.epochs() * perEpoch;
        if (t.maxSteps() > 0) {
            steps = Math.min(steps, t.maxSteps());
        }
        List<String> o = new ArrayList<>(List.of("--method", peer.method(), "--steps", String.valueOf(steps),
                "--eval-every", String.valueOf(t.evalEverySteps() > 0 ? t.evalEverySteps() : perEpoch),
                "--batch", String.valueOf(t.batchSizePerWorker()), "--seed", String.valueOf(config.run().seed()),
                "--lr", String.valueOf(config.model().updater().learningRate()),
                "--momentum", String.valueOf(config.model().updater().momentum()), "--threads", "1",
                "--data", config.data().path().toString()));
        if (peer.method().equals("powersgd")) {
            o.addAll(List.of("--rank", String.valueOf(peer.rank()), "--start-iter", String.valueOf(peer.startIter())));
        }
        if (peer.method().equals("localsgd")) {
            o.addAll(List.of("--start-iter", String.valueOf(peer.startIter()), "--period",
                    String.valueOf(peer.period())));
        }
        return o;
    }

    /**
     * Runs (or reuses) {@code peer} into {@code dir}.
     *
     * @param shape the links' cap, or null for loopback without namespaces (a reference run)
     * @param cores each process's CPU share, or 0 for none
     *
     * @throws RunFailedException when a rank fails
     */
    static PeerRun run(TimeToAccuracySettings.Peer peer, ExperimentConfig config, LinkShape shape, double cores,
                       Path script, Path dir, PrintStream log) throws IOException {
        int k = config.training().workers();
        List<String> command = new ArrayList<>(List.of(PYTHON, script.toAbsolutePath().toString()));
        command.addAll(options(peer, config));
        command.addAll(List.of("--out", dir.resolve("evals.jsonl").toAbsolutePath().toString()));
        String link = shape == null ? "loopback, no namespaces" : shape.describe();
        String planned = String.join(" ", command) + "\nK=" + k + " link " + link + (cores > 0 ? " cores " + cores
                : " no CPU cap") + "\n";
        Path summary = dir.resolve("summary.json");
        Path commandFile = dir.resolve("command.txt");
        if (Files.isRegularFile(summary) && Files.isRegularFile(commandFile)
                && sameRun(Files.readString(commandFile, StandardCharsets.UTF_8), planned)) {
            log.println("  " + peer.label() + ": finished before, reused (" + dir + ")");
            return new PeerRun(peer, dir, true);
        }
        Files.createDirectories(dir);
        Files.deleteIfExists(summary);
        Files.writeString(commandFile, planned, StandardCharsets.UTF_8);
        log.println("  " + peer.label() + ": training (" + k + " processes, " + (shape == null ? "loopback"
                : shape.label()) + ")");
        try (EmulatedHosts hosts = EmulatedHosts.create(k, shape, cores);
             ProcessGroup group = new ProcessGroup("ddp peer")) {
            for (int r = 0; r < k; r++) {
                ProcessBuilder pb = new ProcessBuilder(hosts.wrap(r, command));
                Map<String, String> env = pb.environment();
                env.put("RANK", String.valueOf(r));
                env.put("WORLD_SIZE", String.valueOf(k));
                env.put("MASTER_ADDR", hosts.address(0));
                env.put("MASTER_PORT", String.valueOf(MASTER_PORT));
                env.put("OMP_NUM_THREADS", "1");
                if (r == 0) {
                    pb.redirectOutput(dir.resolve("summary.partial").toFile());   // its one JSON line
                }
                group.start("peer rank " + r, pb);
            }
            ProcessGroup.Outcome outcome = group.await(5);
            if (!outcome.succeeded()) {
                throw new RunFailedException(dir, new IllegalStateException("the PyTorch peer " + peer.id()
                        + " failed: " + outcome.describe() + "; its output is above"));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while the PyTorch peer " + peer.id() + " trained", e);
        }
        List<String> lines = Files.readAllLines(dir.resolve("summary.partial"), StandardCharsets.UTF_8).stream()
                .filter(l -> l.startsWith("{")).toList();
        if (lines.isEmpty()) {
            throw new RunFailedException(dir, new IllegalStateException("the PyTorch peer " + peer.id()
                    + " printed no summary line"));
        }
        Files.writeString(summary, lines.get(lines.size() - 1) + "\n", StandardCharsets.UTF_8);
        Files.delete(dir.resolve("summary.partial"));
        return new PeerRun(peer, dir, false);
    }

    /** Whether two {@code command.txt} texts name the same run: equal but for where {@code --out} wrote. */
    static boolean sameRun(String recorded, String planned) {
        return withoutOut(recorded).equals(withoutOut(planned));
    }

    private static String withoutOut(String command) {
        return command.replaceAll(" --out \\S+", " --out -");
    }
}
