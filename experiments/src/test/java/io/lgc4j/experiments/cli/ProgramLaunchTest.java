package io.lgc4j.experiments.cli;

import io.lgc4j.ps.topology.ParameterServerTopology;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

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

        String java = ProcessHandle.current().info().command().orElse("java");
        String classPath = System.getProperty("java.class.path");
        Path log = tmp.resolve("plain.log");
        ProcessBuilder plain = new ProcessBuilder(java, "-Xmx512m", "-cp", classPath,
                NoisyGraphProgram.class.getName()).redirectErrorStream(true).redirectOutput(log.toFile());
        plain.environment().put("OMP_NUM_THREADS", "2");
        Process p = plain.start();
        assertTrue(p.waitFor(2, TimeUnit.MINUTES), "the plain run did not end within 2 minutes");
        String output = Files.readString(log, StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), output);
        assertTrue(output.contains("checksums in-process " + inProcess), "a plain java run with two threads: "
                + output);
        assertTrue(output.contains("OMP_NUM_THREADS=2 but the run computes with 1 thread per rank"), output);

        Map<Integer, String> byRank = checksums(launchTwice(tmp, NoisyGraphProgram.class, "2"));
        assertEquals(Map.of(0, inProcess, 1, inProcess), byRank, "launched, two threads in each process's ND4J");
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
     * {@code lgc launch --nproc 2 -- java … PROGRAM}, this JVM's class path, {@code OMP_NUM_THREADS=threads}; its
     * output once it ended with 0.
     */
    private static String launchTwice(Path tmp, Class<?> program, String threads)
            throws IOException, InterruptedException {
        String java = ProcessHandle.current().info().command().orElse("java");
        String classPath = System.getProperty("java.class.path");
        Path log = tmp.resolve("launch.log");
        List<String> cmd = new ArrayList<>(List.of(java, "-Xmx256m", "-cp", classPath, LgcCommand.class.getName(),
                "launch", "--nproc", "2", "--", java, "-Xmx512m", "-cp", classPath, program.getName()));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().put("OMP_NUM_THREADS", threads);
        Process launch = pb.start();
        assertTrue(launch.waitFor(3, TimeUnit.MINUTES), "the launch did not end within 3 minutes");
        String output = Files.readString(log, StandardCharsets.UTF_8);
        assertEquals(0, launch.exitValue(), output);
        return output;
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
