package io.lgc4j.cli;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code lgc advise}: the table and CSV of a small model's candidates on a given link, and bad input. */
class AdviseCommandTest {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private PrintStream savedOut;
    private PrintStream savedErr;

    @BeforeEach
    void capture() {
        savedOut = System.out;
        savedErr = System.err;
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @AfterEach
    void restore() {
        System.setOut(savedOut);
        System.setErr(savedErr);
    }

    private String error() {
        return err.toString(StandardCharsets.UTF_8).trim();
    }

    private static Path config(Path dir) throws IOException {
        Path config = dir.resolve("mine.yaml");
        Files.writeString(config, """
                run: {name: mine, seed: 3}
                data: {trainLimit: 640, testLimit: 100}
                model: {name: tiny-cnn}
                training: {workers: 2, batchSizePerWorker: 16}
                """);
        return config;
    }

    private static Path candidates(Path dir) throws IOException {
        Path file = dir.resolve("candidates.yaml");
        Files.writeString(file, """
                base: {compressor: {ratio: 0.01}, stages: {fullIterations: 5}}
                candidates:
                  - {id: dense-ring, label: Dense ring, config: {topology: {type: ring}, compressor: {type: none}}}
                  - {id: dense-ps, label: Dense PS, config: {topology: {type: ps}, compressor: {type: none}}}
                  - {id: fp16, label: Dense fp16, config: {topology: {type: ring},
                     compressor: {type: none, values: fp16}}}
                  - {id: scalecom, label: ScaleCom, config: {topology: {type: ring}, compressor: {type: scalecom}}}
                """);
        return file;
    }

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void shouldPredictEveryCandidatesStagesFromItsOwnDryRun(@TempDir Path dir) throws IOException {
        Path csv = dir.resolve("advice.csv");
        assertEquals(0, LgcCommand.execute("advise", config(dir).toString(), "--rate-mbit", "10", "--hop-ms", "2",
                "--cores", "1", "--candidates", candidates(dir).toString(), "--output", csv.toString()), error());
        String table = out.toString(StandardCharsets.UTF_8);
        assertTrue(table.contains("link 10.0 Mbit/s, 2.0 ms a leg, straggler 0.0 ms (given)"), table);
        // tiny-cnn has no committed evidence: no time to the target; of dense's math the faster step is chosen
        assertTrue(table.contains("no evidence of dense's steps for this model and data"), table);
        assertTrue(table.contains("chosen by step time among the methods of dense's math"), table);
        List<String> lines = Files.readAllLines(csv);
        assertEquals("candidate,label,stage,steps,step_ms,local_ms,quota_ms,wire_ms,legs,legs_ms,server_ms,"
                + "hidden_ms,busiest_up_bytes,busiest_down_bytes,one_off_ms,bound,penalty,penalty_source,"
                + "time_to_target_s,break_even,chosen", lines.get(0));
        Map<String, String[]> rows = new HashMap<>();
        for (String line : lines.subList(1, lines.size())) {
            String[] cells = line.split(",", -1);
            rows.put(cells[0] + "/" + cells[2], cells);
        }
        // dense ring at K = 2: a reduce-scatter hop and an all-gather hop; half the gradient each way
        String[] ring = rows.get("dense-ring/FULL");
        assertEquals("2", ring[8]);
        long ringUp = Long.parseLong(ring[12]);
        // fp16 halves the values (and adds a 2-byte scale per frame)
        long fp16Up = Long.parseLong(rows.get("fp16/FULL")[12]);
        assertTrue(Math.abs(fp16Up - ringUp / 2.0) < 64, fp16Up + " vs " + ringUp);
        // the parameter server's busiest link is the server's: both workers' pushes in, their means out, 2 legs
        String[] ps = rows.get("dense-ps/FULL");
        assertEquals("2", ps[8]);
        assertEquals(2 * ringUp, Long.parseLong(ps[12]), 64.0);
        // ScaleCom goes through FULL then TOP_K, where it moves a fraction of dense's bytes
        assertTrue(Long.parseLong(rows.get("scalecom/TOP_K")[12]) < ringUp / 10, rows.get("scalecom/TOP_K")[12]);
        assertEquals("dense's math", rows.get("dense-ps/ALL")[17]);
        assertEquals("no evidence of its steps to the target", rows.get("scalecom/ALL")[17]);
        assertTrue(Double.parseDouble(rows.get("scalecom/ALL")[19]) > 0, "a break-even for a compressed method");
        assertEquals("", rows.get("dense-ring/ALL")[19], "dense's own math has no break-even");
        // at 10 Mbit/s the ring's busiest link carries half the server's bytes: it is the faster of dense's math
        assertEquals("yes", rows.get("dense-ring/ALL")[20]);
        assertEquals("no", rows.get("scalecom/ALL")[20], "no evidence, never chosen");
    }

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void shouldAdviseAmongAnAutoConfigsOwnCandidates(@TempDir Path dir) throws IOException {
        candidates(dir);
        Path auto = dir.resolve("auto.yaml");
        Files.writeString(auto, Files.readString(config(dir)) + "compressor: auto\n"
                + "advise: {candidates: candidates.yaml, denseSteps: 200, penalties: {fp16: 1.0}}\n");
        Path csv = dir.resolve("advice.csv");
        assertEquals(0, LgcCommand.execute("advise", auto.toString(), "--rate-mbit", "10", "--hop-ms", "2",
                "--cores", "1", "--output", csv.toString()), error());
        String table = out.toString(StandardCharsets.UTF_8);
        for (String label : List.of("Dense ring", "Dense PS", "Dense fp16", "ScaleCom")) {
            assertTrue(table.contains("\n" + label + " "), label + " in\n" + table);
        }
        assertFalse(table.contains("LGC-PS"), "the shipped candidates are not this config's: " + table);
        // the user's own evidence: dense's 200 steps, fp16 needs as many; ScaleCom has none, so no time
        assertTrue(table.contains("target 80 %: dense takes 200 steps (given (advise.denseSteps))"), table);
        String fp16 = Files.readAllLines(csv).stream().filter(l -> l.startsWith("fp16,") && l.contains(",ALL,"))
                .findFirst().orElseThrow();
        assertTrue(fp16.contains(",ALL,200.0,") && fp16.contains(",1.0000,given (advise.penalties),"), fp16);
        String scalecom = Files.readAllLines(csv).stream().filter(l -> l.startsWith("scalecom,")
                && l.contains(",ALL,")).findFirst().orElseThrow();
        assertTrue(scalecom.contains(",ALL,,"), "no steps without evidence: " + scalecom);
    }

    @Test
    void shouldRefuseBadFiguresAndFiles(@TempDir Path dir) throws IOException {
        String config = config(dir).toString();
        assertEquals(2, LgcCommand.execute("advise", config));
        assertEquals("lgc advise: give the link: --rate-mbit R --hop-ms H (e.g. 100 and 5); or measure it on your own"
                + " processes with lgc launch CONFIG --advise-only [--nproc K, --netns-rate, --cpu-share], CONFIG a"
                + " config of compressor: auto", error());
        err.reset();
        assertEquals(2, LgcCommand.execute("advise", config, "--rate-mbit", "0", "--hop-ms", "2"));
        assertEquals("lgc advise: the link rate must be > 0 Mbit/s, found 0.0", error());
        err.reset();
        assertEquals(2, LgcCommand.execute("advise", config, "--rate-mbit", "10", "--hop-ms", "2", "--target",
                "1.5"));
        assertEquals("lgc advise: --target must be a fraction in (0, 1], found 1.5", error());
        err.reset();
        Path bad = dir.resolve("bad.yaml");
        Files.writeString(bad, "candidates: [{id: a, config: {data: {trainLimit: 5}}}]\n");
        assertEquals(2, LgcCommand.execute("advise", config, "--rate-mbit", "10", "--hop-ms", "2", "--candidates",
                bad.toString()));
        assertEquals("lgc advise: " + bad + ": candidates[0].config.data: not a method key; a candidate may set"
                + " compressor, warmup, topology, autoencoder, stages, training.overlap, training.bucketBytes", error());
        err.reset();
        assertEquals(2, LgcCommand.execute("advise", config, "--rate-mbit", "10"));
        assertTrue(error().startsWith("lgc advise: give the link: --rate-mbit R --hop-ms H"), error());
    }
}
