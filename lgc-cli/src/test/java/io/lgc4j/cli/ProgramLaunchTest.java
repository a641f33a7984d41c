package io.lgc4j.cli;

import io.lgc4j.ps.topology.ParameterServerTopology;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * {@code lgc launch --nproc 2 -- java -cp … LaunchedProgram}: a user's program, one process per rank over loopback
 * TCP with the parameter server inside rank 0's process, computes what the same program computes in one JVM.
 */
class ProgramLaunchTest {

    private static final Pattern CHECKSUMS = Pattern.compile("\\[rank (\\d)] checksums (\\d) (\\S+)");

    @Test
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void aLaunchedProgramShouldComputeWhatItComputesInOneJvm(@TempDir Path tmp)
            throws IOException, InterruptedException {
        List<String> inProcess = LaunchedProgram.train(2).replicaChecksums();
        assertEquals(2, inProcess.size());
        String output = launchTwice(tmp, LaunchedProgram.class, "1");
        Map<Integer, String> byRank = checksums(output);
        assertEquals(2, byRank.size(), "both ranks finish: " + output);
        assertEquals(String.join(",", inProcess), byRank.get(0), "rank 0: every replica, as in one JVM");
        assertEquals(String.join(",", inProcess), byRank.get(1), "rank 1: every replica, from rank 0's last word");
        assertEquals(1, inProcess.stream().distinct().count(), "replicas equal: " + inProcess);
        assertTrue(output.contains("as 2 worker processes on 127.0.0.1"), output);
    }

    /**
     * The manual's other form of a program, {@code --main CLASS --classpath CP}: the launcher builds each process's
     * java command itself, with the JIT it resolved (it once built the command before resolving it, and failed).
     */
    @Test
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void aProgramGivenAsMainClassShouldComputeWhatItComputesInOneJvm(@TempDir Path tmp)
            throws IOException, InterruptedException {
        List<String> inProcess = LaunchedProgram.train(2).replicaChecksums();
        String java = ProcessHandle.current().info().command().orElse("java");
        String classPath = System.getProperty("java.class.path");
        ProcessBuilder pb = new ProcessBuilder(java, "-Xmx256m", "-cp", classPath, LgcCommand.class.getName(),
                "launch", "--nproc", "2", "--main", LaunchedProgram.class.getName(), "--classpath", classPath,
                "--java-opts", "-Xmx512m").redirectErrorStream(true).redirectOutput(tmp.resolve("launch.log").toFile());
        pb.environment().put("OMP_NUM_THREADS", "1");
        Process launch = pb.start();
        assertTrue(launch.waitFor(3, TimeUnit.MINUTES), "the launch did not end within 3 minutes");
        String output = Files.readString(tmp.resolve("launch.log"), StandardCharsets.UTF_8);
        assertEquals(0, launch.exitValue(), output);
        Map<Integer, String> byRank = checksums(output);
        assertEquals(Map.of(0, String.join(",", inProcess), 1, String.join(",", inProcess)), byRank, output);
    }

    /**
     * A model that draws random numbers while it trains (Dropout, Gaussian noise, alpha dropout, DropConnect) beside
     * a convolution, batch normalization and a residual merge: the same bits in this JVM twice (one OpenMP thread), in
     * a plain {@code java} run whose ND4J has two ({@code OMP_NUM_THREADS=2}), and launched as two processes with two.
     */
    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void aModelWithDropoutShouldComputeTheSameBitsInEveryRuntimeAtAnyThreadCount(@TempDir Path tmp)
            throws IOException, InterruptedException {
        String inProcess = String.join(",", NoisyGraphProgram.train(2, new ParameterServerTopology())
                .replicaChecksums());
        assertEquals(inProcess, String.join(",", NoisyGraphProgram.train(2, new ParameterServerTopology())
                .replicaChecksums()), "a rerun in this JVM, on new rank threads");

        assertTrue(plainJava(tmp, "2", "ps").contains("checksums in-process " + inProcess),
                "a plain java run with two threads");

        Map<Integer, String> byRank = checksums(launchTwice(tmp, NoisyGraphProgram.class, "2"));
        assertEquals(Map.of(0, inProcess, 1, inProcess), byRank, "launched, two threads in each process's ND4J");
    }

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void anLgcRunShouldComputeTheSameBitsWhateverPoolNd4jStartedWith(@TempDir Path tmp)
            throws IOException, InterruptedException {
        // this JVM's ND4J pool has 1 thread (surefire's OMP_NUM_THREADS), the plain java's 2: LGC's encode, decode and
        // autoencoder training compute the same bits in both (OpenBLAS's count: Nd4jThreadsTest)
        String inProcess = String.join(",", NoisyGraphProgram.train("lgc-ps", 2).replicaChecksums());
        String output = plainJava(tmp, "2", "lgc-ps");
        assertTrue(output.contains("checksums in-process " + inProcess), "LGC-PS in a plain java with a pool of 2: "
                + output);
    }

    /** {@link NoisyGraphProgram} with {@code args} in a plain java started with OMP_NUM_THREADS={@code omp}. */
    private static String plainJava(Path tmp, String omp, String... args) throws IOException, InterruptedException {
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> command = new ArrayList<>(List.of(java, "-Xmx512m", "-cp", System.getProperty("java.class.path"),
                NoisyGraphProgram.class.getName()));
        command.addAll(List.of(args));
        Path log = Files.createTempFile(tmp, "plain", ".log");
        ProcessBuilder plain = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        plain.environment().put("OMP_NUM_THREADS", omp);
        Process p = plain.start();
        if (!p.waitFor(2, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            fail("the plain run did not end within 2 minutes");
        }
        String output = Files.readString(log, StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), output);
        return output;
    }

    private static Map<Integer, String> checksums(String output) {
        Map<Integer, String> byRank = new TreeMap<>();
        Matcher m = CHECKSUMS.matcher(output);
        while (m.find()) {
            assertEquals(m.group(1), m.group(2), "the prefix names the process's LGC_RANK");
            byRank.put(Integer.parseInt(m.group(1)), m.group(3));
        }
        return byRank;
    }

    private static final Pattern CHOSEN = Pattern.compile("\\[rank (\\d)] chosen (\\d) (\\S+) (\\S+)");

    /**
     * The builder's {@code compressor: auto}: both processes of a launched program join the advise session, learn the
     * same choice, and train it as the same program trains that method in one JVM.
     */
    @Test
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void aLaunchedProgramShouldChooseOneMethodOnEveryProcessAndTrainIt(@TempDir Path tmp)
            throws IOException, InterruptedException {
        String output = launchTwice(tmp, AutoProgram.class, "1");
        Map<Integer, String[]> byRank = new TreeMap<>();
        Matcher m = CHOSEN.matcher(output);
        while (m.find()) {
            byRank.put(Integer.parseInt(m.group(1)), new String[] {m.group(3), m.group(4)});
        }
        assertEquals(2, byRank.size(), "both ranks finish: " + output);
        String id = byRank.get(0)[0];
        assertEquals(id, byRank.get(1)[0], "one choice on every process");
        // no evidence and no dense steps: only a method of dense's math can be chosen, both are
        assertTrue(List.of("ps", "ring").contains(id), id);
        List<String> inProcess = AutoProgram.train(AutoProgram.chosen(AutoProgram.candidates(), id), 2)
                .replicaChecksums();
        assertEquals(String.join(",", inProcess), byRank.get(0)[1], "the choice trains as in one JVM");
        assertEquals(byRank.get(0)[1], byRank.get(1)[1]);
    }

    /**
     * The model throws in one rank's process, the parameter server inside rank 0's: the launcher names that rank as
     * the one that failed first, with its message, and the other as the one that lost it — whichever exits first.
     */
    @ParameterizedTest(name = "rank {0} throws")
    @ValueSource(strings = {"0", "1"})
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void theLauncherShouldNameTheRankWhoseModelThrew(String failing, @TempDir Path tmp) throws Exception {
        Process launch = start(tmp, "2", FaultyProgram.class.getName(), failing);
        assertTrue(launch.waitFor(3, TimeUnit.MINUTES), "the launch did not end within 3 minutes");
        String output = Files.readString(tmp.resolve("launch.log"), StandardCharsets.UTF_8);
        assertEquals(1, launch.exitValue(), output);
        String other = failing.equals("0") ? "1" : "0";
        assertTrue(output.contains("lgc launch: rank " + failing + " failed first (exit status 1): rank " + failing
                + " stopped at step 29 (FULL): failed: the model threw on purpose in its training pass 30; rank "
                + other + " stopped because it lost it (exit status 1); every other process has stopped"), output);
        assertTrue(output.contains("rank " + failing + " aborts the job: rank " + failing + " stopped"), output);
    }

    /** A process killed by SIGKILL while the parameter server runs inside rank 0: named, rank 0 lost it. */
    @Test
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void theLauncherShouldNameAKilledRankNotTheRankHostingTheServer(@TempDir Path tmp) throws Exception {
        Process launch = start(tmp, "1", NoisyGraphProgram.class.getName(), "ps", "1000");
        ProcessHandle rank1 = awaitRank(launch, 1);
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        while (!Files.readString(tmp.resolve("launch.log"), StandardCharsets.UTF_8).contains("rank 1 joined job")) {
            assertTrue(System.nanoTime() < deadline && launch.isAlive(), "rank 1 did not join within 2 minutes");
            Thread.sleep(100);
        }
        Thread.sleep(2_000); // training
        rank1.destroyForcibly();
        assertTrue(launch.waitFor(2, TimeUnit.MINUTES), "the launch did not end within 2 minutes");
        String output = Files.readString(tmp.resolve("launch.log"), StandardCharsets.UTF_8);
        assertEquals(137, launch.exitValue(), output);
        assertTrue(output.contains("lgc launch: rank 1 failed first (exit status 137, killed by signal 9); rank 0"
                + " stopped because it lost it (exit status 1); every other process has stopped"), output);
    }

    /**
     * Program mode's restarts: the parameter server as a process of its own ({@code --servers 1}), checkpoints every
     * 20 steps into {@code --run-dir}; rank 1 killed after the first checkpoint fails the launch; {@code --resume}
     * goes on from it with {@code --max-restarts 1}, rank 1 is killed again after the next checkpoint, the launcher
     * starts every process again from there, and the run ends where the uninterrupted run in one JVM ends, bit for bit
     * (Dropout included).
     */
    @Test
    @Timeout(value = 6, unit = TimeUnit.MINUTES)
    void aProgramShouldResumeAndRestartWithItsServerApartAndEndWhereTheUninterruptedRunEnds(@TempDir Path tmp)
            throws Exception {
        String uninterrupted = String.join(",", NoisyGraphProgram.trainPs(2, 40).replicaChecksums());
        Path run = tmp.resolve("run");
        Process first = start(tmp, "1", List.of("--servers", "1", "--run-dir", run.toString()),
                NoisyGraphProgram.class.getName(), "ps", "40", "20");
        long checkpoint = killRank1After(first, run, 0);
        assertTrue(first.waitFor(2, TimeUnit.MINUTES), "the first launch did not end");
        assertEquals(137, first.exitValue(), Files.readString(tmp.resolve("launch.log")));

        Process resumed = start(tmp, "1", List.of("--servers", "1", "--resume", run.toString(), "--max-restarts",
                "1"), NoisyGraphProgram.class.getName(), "ps", "40", "20");
        killRank1After(resumed, run, checkpoint);
        assertTrue(resumed.waitFor(3, TimeUnit.MINUTES), "the resumed launch did not end");
        String output = Files.readString(tmp.resolve("launch.log"), StandardCharsets.UTF_8);
        assertEquals(0, resumed.exitValue(), output);
        assertTrue(output.matches("(?s).*lgc launch: attempt 0 failed at \\S+ \\(rank 1 failed first with exit"
                + " status 137 \\(signal 9\\)\\); restart 1 of 1: every process again, from the checkpoint after"
                + " \\d+ steps in .*"), output);
        assertEquals(Map.of(0, uninterrupted, 1, uninterrupted), checksums(output));
    }

    /**
     * Waits until {@code run} holds a complete checkpoint after more than {@code after} steps, then kills rank 1 of
     * {@code launch}; returns that checkpoint's next step.
     */
    private static long killRank1After(Process launch, Path run, long after) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        while (System.nanoTime() < deadline) {
            java.util.Optional<io.lgc4j.core.checkpoint.Checkpoint> latest = Files.isDirectory(run)
                    ? io.lgc4j.core.checkpoint.CheckpointDirectory.in(run).latest() : java.util.Optional.empty();
            if (latest.isPresent() && latest.get().nextStep() > after) {
                awaitRank(launch, 1).destroyForcibly();
                return latest.get().nextStep();
            }
            assertTrue(launch.isAlive(), "the launch ended before a checkpoint after step " + after);
            Thread.sleep(50);
        }
        throw new AssertionError("no checkpoint after step " + after + " within 2 minutes");
    }

    /** A model built differently in each process (seeded by its rank): refused before step 0 by rank 0, named. */
    @Test
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void ranksThatBuiltDifferentModelsShouldBeRefusedBeforeStepZero(@TempDir Path tmp) throws Exception {
        Process launch = start(tmp, "1", UnseededProgram.class.getName());
        assertTrue(launch.waitFor(3, TimeUnit.MINUTES), "the launch did not end within 3 minutes");
        String output = Files.readString(tmp.resolve("launch.log"), StandardCharsets.UTF_8);
        assertEquals(1, launch.exitValue(), output);
        assertTrue(output.matches("(?s).*lgc launch: rank 0 failed first \\(exit status 1\\): rank 0 stopped: failed:"
                + " rank 1 built another initial model than rank 0 \\(parameters' digest [0-9a-f]{16} vs [0-9a-f]{16}\\):"
                + " the processes initialize it differently, so no run of it would repeat; seed it"
                + " \\(NeuralNetConfiguration.Builder#seed\\) or load one saved model in every process; rank 1"
                + " stopped because it lost it.*"), output);
    }

    /** The process of {@code LGC_RANK=rank} among the launch's descendants, once it runs. */
    private static ProcessHandle awaitRank(Process launch, int rank) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
        while (System.nanoTime() < deadline) {
            for (ProcessHandle h : (Iterable<ProcessHandle>) launch.descendants()::iterator) {
                try {
                    String env = Files.readString(Path.of("/proc", String.valueOf(h.pid()), "environ"),
                            StandardCharsets.ISO_8859_1);
                    if (List.of(env.split("\0")).contains("LGC_RANK=" + rank)) {
                        return h;
                    }
                } catch (IOException gone) {
                    // ended between the listing and the read
                }
            }
            assertTrue(launch.isAlive(), "the launch ended before rank " + rank + " started");
            Thread.sleep(100);
        }
        throw new AssertionError("rank " + rank + " did not start within a minute");
    }

    /**
     * {@code lgc launch --nproc 2 -- java … PROGRAM}, this JVM's class path, {@code OMP_NUM_THREADS=threads}; its
     * output once it ended with 0.
     */
    private static String launchTwice(Path tmp, Class<?> program, String threads)
            throws IOException, InterruptedException {
        Process launch = start(tmp, threads, program.getName());
        assertTrue(launch.waitFor(3, TimeUnit.MINUTES), "the launch did not end within 3 minutes");
        String output = Files.readString(tmp.resolve("launch.log"), StandardCharsets.UTF_8);
        assertEquals(0, launch.exitValue(), output);
        return output;
    }

    /** Starts {@code lgc launch --nproc 2 -- java … PROGRAM ARGS}, its output in {@code tmp/launch.log}. */
    private static Process start(Path tmp, String threads, String... programAndArgs) throws IOException {
        return start(tmp, threads, List.of(), programAndArgs);
    }

    /** Starts {@code lgc launch --nproc 2 OPTIONS -- java … PROGRAM ARGS}, its output in {@code tmp/launch.log}. */
    private static Process start(Path tmp, String threads, List<String> options, String... programAndArgs)
            throws IOException {
        String java = ProcessHandle.current().info().command().orElse("java");
        String classPath = System.getProperty("java.class.path");
        List<String> cmd = new ArrayList<>(List.of(java, "-Xmx256m", "-cp", classPath, LgcCommand.class.getName(),
                "launch", "--nproc", "2"));
        cmd.addAll(options);
        cmd.addAll(List.of("--", java, "-Xmx512m", "-cp", classPath));
        cmd.addAll(List.of(programAndArgs));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(tmp.resolve("launch.log").toFile());
        pb.environment().put("OMP_NUM_THREADS", threads);
        return pb.start();
    }

    @Test
    void theLaunchLineShouldShowALongClassPathByItsLength() {
        String cp = String.join(java.io.File.pathSeparator, "/home/user/.m2/repository/a/lib-one-1.0.jar",
                "/home/user/.m2/repository/b/lib-two-2.0.jar", "app/classes");
        assertEquals("java -Xmx1g -cp <class path of 3 entries> com.example.Train --epochs 3",
                LaunchCommand.shortened(List.of("java", "-Xmx1g", "-cp", cp, "com.example.Train", "--epochs", "3")));
        assertEquals("java -cp app.jar com.example.Train", LaunchCommand.shortened(List.of("java", "-cp", "app.jar",
                "com.example.Train")));
    }
}
