package io.lgc4j.cli.tables;

import io.lgc4j.cli.LgcCommand;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every table and figure command on a tiny budget of real Fashion-MNIST (K = 2, 512 training images, a few steps):
 * the files it writes and their structure, resuming without retraining, the same table.csv twice for one seed
 * (timing columns excepted), and a malformed suite failing before anything trains.
 */
class TableCommandsTest {

    private static final String TINY_BASE = """
            base:
              run: {seed: 11}
              data: {trainLimit: 512, testLimit: 200}
              training: {workers: 2, batchSizePerWorker: 16, epochs: 1, maxSteps: 6, evalEverySteps: 0}
              stages: {fullIterations: 2, aeTrainingIterations: 2}
            """;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private PrintStream originalOut;
    private PrintStream originalErr;

    @BeforeEach
    void capture() {
        originalOut = System.out;
        originalErr = System.err;
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @AfterEach
    void restore() {
        System.setOut(originalOut);
        System.setErr(originalErr);
    }

    private int lgc(String... args) {
        out.reset();
        err.reset();
        return LgcCommand.execute(args);
    }

    private static Path suite(Path dir, String text) throws IOException {
        Path file = dir.resolve("suite.yaml");
        Files.writeString(file, text);
        return file;
    }

    private static List<String> csv(Path file) throws IOException {
        return Files.readAllLines(file.resolve("table.csv"));
    }

    /** The CSV with every timing column (name ending in _s or _ms) removed. */
    private static List<String> withoutTimings(List<String> lines) {
        String[] header = lines.get(0).split(",", -1);
        List<String> kept = new ArrayList<>();
        for (String line : lines) {
            String[] cells = line.split(",", -1);
            List<String> row = new ArrayList<>();
            for (int c = 0; c < header.length; c++) {
                if (!header[c].endsWith("_s") && !header[c].endsWith("_ms")) {
                    row.add(cells[c]);
                }
            }
            kept.add(String.join(",", row));
        }
        return kept;
    }

    private static void assertPng(Path file) throws IOException {
        byte[] head = Arrays.copyOf(Files.readAllBytes(file), 8);
        assertArrayEquals(new byte[] {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'}, head, file + " is a PNG");
    }

    private static void assertReport(Path dir, int runs) throws IOException {
        String md = Files.readString(dir.resolve("table.md"));
        assertTrue(md.startsWith("# "), "table.md has a title");
        assertTrue(md.contains("| --- |"), "table.md has a table");
        String provenance = Files.readString(dir.resolve("provenance.json"));
        assertTrue(provenance.contains("\"suiteSha256\""), provenance);
        assertTrue(provenance.contains("\"gitCommit\""), provenance);
        assertEquals(runs, provenance.split("\"reused\"", -1).length - 1, "one provenance entry per run");
    }

    @Test
    void compressionTableShouldWriteItsFilesResumeAndRepeat(@TempDir Path dir) throws IOException {
        Path file = suite(dir, "suite: compression\ntitle: tiny\n" + TINY_BASE + """
                methods:
                  - {id: baseline, label: Baseline, config: {topology: {type: ring}, compressor: {type: none}}}
                  - {id: dgc, label: DGC, config: {topology: {type: ps}, compressor: {type: dgc}, model: {updater: {type: sgd}}}}
                  - {id: lgc-ps, label: LGC-PS, config: {topology: {type: ps}, compressor: {type: lgc}}}
                """);
        Path first = dir.resolve("first");
        assertEquals(0, lgc("table", "compression", "--suite", file.toString(), "--output-dir", first.toString(),
                "--no-progress"), err.toString(StandardCharsets.UTF_8));
        assertPng(first.resolve("compression.png"));
        assertReport(first, 3);
        for (String run : List.of("baseline-small-cnn", "dgc-small-cnn", "lgc-ps-small-cnn")) {
            assertTrue(Files.isRegularFile(first.resolve("runs").resolve(run).resolve("summary.json")), run);
        }
        List<String> table = csv(first);
        assertEquals("model,method,topology,rank,stage,seeds,top1_pct,top1_sd,vs_baseline_pp,info_bytes_per_step,"
                + "index_bytes_per_step,ratio,run_total_mb,run_total_ratio,steps,wall_s", table.get(0));
        assertEquals(List.of("Baseline", "DGC", "LGC-PS", "LGC-PS"),
                table.subList(1, table.size()).stream().map(l -> l.split(",")[1]).toList());
        assertTrue(table.get(3).contains(",leader,COMPRESSED,"), table.get(3));
        assertTrue(table.get(4).contains(",others,COMPRESSED,"), table.get(4));
        assertTrue(table.get(1).contains(",1.0,"), "the baseline's ratio is 1: " + table.get(1));
        String md = Files.readString(first.resolve("table.md"));
        assertTrue(md.contains("**Ordering on small-cnn**"), md);

        assertEquals(0, lgc("table", "compression", "--suite", file.toString(), "--output-dir", first.toString(),
                "--no-progress"));
        assertEquals(3, out.toString(StandardCharsets.UTF_8).split("finished before, reused", -1).length - 1,
                out.toString(StandardCharsets.UTF_8));
        assertEquals(table, csv(first), "a resumed table reads the same runs");

        Path second = dir.resolve("second");
        assertEquals(0, lgc("table", "compression", "--suite", file.toString(), "--output-dir", second.toString(),
                "--no-progress"));
        assertEquals(withoutTimings(table), withoutTimings(csv(second)), "same seed, same table.csv but timings");
    }

    @Test
    void compressionTableShouldRunEverySeedAndReportTheSpread(@TempDir Path dir) throws IOException {
        Path file = suite(dir, "suite: compression\ntitle: seeds\n" + TINY_BASE + """
                seeds: [11, 12]
                methods:
                  - {id: baseline, label: Baseline, config: {topology: {type: ring}, compressor: {type: none}}}
                  - {id: topk, label: Sparse GD, config: {topology: {type: ps}, compressor: {type: topk}}}
                """);
        Path o = dir.resolve("out");
        assertEquals(0, lgc("table", "compression", "--suite", file.toString(), "--output-dir", o.toString(),
                "--no-progress"), err.toString(StandardCharsets.UTF_8));
        for (String run : List.of("baseline-small-cnn-s11", "baseline-small-cnn-s12", "topk-small-cnn-s11",
                "topk-small-cnn-s12")) {
            String config = Files.readString(o.resolve("runs").resolve(run).resolve("config.yaml"));
            assertTrue(config.contains("seed: " + run.substring(run.length() - 2)), run + ":\n" + config);
        }
        List<String> table = csv(o);
        assertEquals(3, table.size(), "one row per method, the seeds pooled: " + table);
        String[] baseline = table.get(1).split(",", -1);
        String[] topk = table.get(2).split(",", -1);
        assertEquals("2", baseline[5]);
        assertEquals("2", topk[5]);
        assertFalse(baseline[7].isEmpty(), "a standard deviation over two seeds: " + table.get(1));
        assertEquals("–", baseline[8]);
        assertTrue(topk[8].matches("[+-]\\d+\\.\\d\\d( \\(tie\\))?"), table.get(2));
        String md = Files.readString(o.resolve("table.md"));
        assertTrue(md.contains("seeds 11, 12"), md);

        Path one = dir.resolve("one");
        assertEquals(0, lgc("table", "compression", "--suite", file.toString(), "--output-dir", one.toString(),
                "--no-progress", "--seeds", "12"), err.toString(StandardCharsets.UTF_8));
        assertTrue(Files.isRegularFile(one.resolve("runs/topk-small-cnn-s12/summary.json")));
        assertEquals(2, lgc("table", "compression", "--suite", file.toString(), "--seeds", "3,3"));
        assertEquals("lgc: --seeds repeats a seed, found [3, 3]; expected distinct integers >= 0, e.g. --seeds"
                + " 42,43,44\n", err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void compressionTableShouldShowTheDiagnosticModesFiguresFromItsDiagnosticSeeds(@TempDir Path dir)
            throws IOException {
        Path file = suite(dir, "suite: compression\ntitle: diagnosed\nseeds: [11, 12]\ndiagnosticSeeds: [12]\n"
                + TINY_BASE + """
                methods:
                  - {id: baseline, label: Baseline, config: {topology: {type: ring}, compressor: {type: none}}}
                  - {id: lgc-ps, label: LGC-PS, config: {topology: {type: ps}, compressor: {type: lgc}}}
                """);
        Path o = dir.resolve("out");
        assertEquals(0, lgc("table", "compression", "--suite", file.toString(), "--output-dir", o.toString(),
                "--no-progress"), err.toString(StandardCharsets.UTF_8));
        assertTrue(Files.readString(o.resolve("runs/lgc-ps-small-cnn-s12/config.yaml")).contains("diagnostics: true"));
        assertTrue(Files.readString(o.resolve("runs/lgc-ps-small-cnn-s11/config.yaml")).contains("diagnostics: false"));
        List<String> table = csv(o);
        assertTrue(table.get(0).endsWith(",wall_s,applied_rel_err,applied_cos,applied_cos_all,offer_share"),
                table.get(0));
        String[] baseline = table.get(1).split(",", -1);
        assertEquals("0.000", baseline[16], "the dense baseline applies what was offered: " + table.get(1));
        assertEquals("1.000", baseline[18], table.get(1));
        String[] lgc = table.get(2).split(",", -1);
        assertEquals("2", lgc[5], "both seeds count for the accuracy: " + table.get(2));
        double relErr = Summaries.read(o.resolve("runs/lgc-ps-small-cnn-s12")).bytesByStage()
                .get(io.lgc4j.core.stage.Stage.COMPRESSED).diagnostics().get("applied_rel_err");
        assertTrue(relErr > 0, "the autoencoder is lossy: " + table.get(2));
        assertEquals(String.format(java.util.Locale.ROOT, "%.3f", relErr), lgc[16],
                "the diagnostic columns are the diagnostic seed's alone: " + table.get(2));
        assertPng(o.resolve("diagnostics-cos.png"));
        assertPng(o.resolve("diagnostics-error.png"));
        assertTrue(Files.readString(o.resolve("table.md")).contains("diagnostic mode (seed 12 of each method)"));
    }

    @Test
    void compressionTableShouldGiveTheSameTableWhenEveryRankIsAProcess(@TempDir Path dir) throws IOException {
        Path file = suite(dir, "suite: compression\ntitle: processes\n" + TINY_BASE + """
                methods:
                  - {id: baseline, label: Baseline, config: {topology: {type: ring}, compressor: {type: none}}}
                  - {id: lgc-ps, label: LGC-PS, config: {topology: {type: ps}, compressor: {type: lgc}}}
                """);
        Path threads = dir.resolve("threads");
        assertEquals(0, lgc("table", "compression", "--suite", file.toString(), "--output-dir", threads.toString(),
                "--no-progress"), err.toString(StandardCharsets.UTF_8));
        Path processes = dir.resolve("processes");
        assertEquals(0, lgc("table", "compression", "--suite", file.toString(), "--output-dir", processes.toString(),
                "--no-progress", "--processes"), err.toString(StandardCharsets.UTF_8));
        assertTrue(Files.readString(processes.resolve("runs/lgc-ps-small-cnn/config.yaml")).contains("type: tcp"));
        assertEquals(withoutTimings(csv(threads)), withoutTimings(csv(processes)),
                "one process per rank (and the server) gives the in-process table bit for bit");
        assertEquals(0, lgc("table", "compression", "--suite", file.toString(), "--output-dir", processes.toString(),
                "--no-progress"));
        assertEquals(2, out.toString(StandardCharsets.UTF_8).split("finished before, reused", -1).length - 1,
                "runs trained as processes are reused in process: " + out.toString(StandardCharsets.UTF_8));
    }

    @Test
    void phasesTableShouldSplitEveryStage(@TempDir Path dir) throws IOException {
        Path file = suite(dir, "suite: phases\n" + TINY_BASE + """
                  compressor: {type: lgc}
                methods:
                  - {id: lgc-rar, label: LGC-RAR, config: {topology: {type: ring}}}
                """);
        Path o = dir.resolve("out");
        assertEquals(0, lgc("table", "phases", "--suite", file.toString(), "--output-dir", o.toString(),
                "--no-progress"), err.toString(StandardCharsets.UTF_8));
        assertPng(o.resolve("phases.png"));
        assertReport(o, 1);
        List<String> table = csv(o);
        assertEquals("model,method,stage,steps,sent_bytes_per_step,iteration_s,compute_s,select_s,encode_s,"
                + "communicate_s,decode_s,apply_s,cpu_wait_s", table.get(0));
        assertEquals(List.of("FULL", "TOP_K", "COMPRESSED"),
                table.subList(1, table.size()).stream().map(l -> l.split(",")[2]).toList());
        assertEquals(List.of("2", "2", "2"), table.subList(1, table.size()).stream().map(l -> l.split(",")[3])
                .toList());
    }

    @Test
    void sparsificationFigureShouldWriteEveryStepsLoss(@TempDir Path dir) throws IOException {
        Path file = suite(dir, "suite: sparsification\n" + TINY_BASE + """
                  topology: {type: ps}
                  compressor: {type: topk}
                methods:
                  - {id: fixed, label: fixed, config: {stages: {fullIterations: 0}}}
                  - {id: exponential, label: exponential, config: {stages: {fullIterations: 0}, compressor: {warmupSteps: 4}}}
                  - {id: warmup, label: warm-up, config: {stages: {fullIterations: 3}}}
                """);
        Path o = dir.resolve("out");
        assertEquals(0, lgc("figure", "sparsification", "--suite", file.toString(), "--output-dir", o.toString(),
                "--no-progress"), err.toString(StandardCharsets.UTF_8));
        assertPng(o.resolve("sparsification-small-cnn.png"));
        assertReport(o, 3);
        List<String> series = Files.readAllLines(o.resolve("series.csv"));
        assertEquals("model,method,step,stage,loss", series.get(0));
        assertEquals(1 + 3 * 6, series.size());
        assertTrue(series.contains("small-cnn,warmup,2,FULL," + series.get(15).split(",")[4])
                || series.get(15).startsWith("small-cnn,warmup,2,FULL,"), series.get(15));
        assertTrue(series.get(1).startsWith("small-cnn,fixed,0,TOP_K,"), series.get(1));
        assertEquals(4, csv(o).size(), "a header and one row per method");
    }

    @Test
    void aeConvergenceFigureShouldPlotTheTopKStagesLosses(@TempDir Path dir) throws IOException {
        Path file = suite(dir, "suite: ae-convergence\n" + TINY_BASE.replace("aeTrainingIterations: 2",
                "aeTrainingIterations: 3") + """
                  compressor: {type: lgc}
                  topology: {type: ps}
                methods:
                  - {id: l0, label: "λ2 = 0", config: {autoencoder: {lambdaSim: 0.0}}}
                  - {id: l05, label: "λ2 = 0.5", config: {autoencoder: {lambdaSim: 0.5}}}
                """);
        Path o = dir.resolve("out");
        assertEquals(0, lgc("figure", "ae-convergence", "--suite", file.toString(), "--output-dir", o.toString(),
                "--no-progress"), err.toString(StandardCharsets.UTF_8));
        assertPng(o.resolve("ae-convergence-small-cnn.png"));
        assertReport(o, 2);
        List<String> series = Files.readAllLines(o.resolve("series.csv"));
        assertEquals("model,method,step,ae_step,ae_rec_loss,ae_sim_loss", series.get(0));
        assertEquals(1 + 2 * 3, series.size(), "three autoencoder steps per run");
        assertTrue(series.get(1).startsWith("small-cnn,l0,2,0,"), series.get(1));
        List<String> table = csv(o);
        assertEquals(List.of("0.00", "0.50"), table.subList(1, 3).stream().map(l -> l.split(",")[3]).toList());
    }

    @Test
    void mutualInformationFigureShouldEstimateEveryLayerUnderEveryQuantizer(@TempDir Path dir) throws IOException {
        Path file = suite(dir, """
                suite: mutual-information
                base:
                  run: {seed: 5}
                  data: {trainLimit: 512}
                  training: {workers: 3, batchSizePerWorker: 16}
                analysis: {steps: 5, every: 2, rankA: 0, rankB: 2, bins: [16, float32]}
                """);
        Path o = dir.resolve("out");
        assertEquals(0, lgc("figure", "mutual-information", "--suite", file.toString(), "--output-dir",
                o.toString(), "--no-progress"), err.toString(StandardCharsets.UTF_8));
        for (String png : List.of("mi-small-cnn.png", "mi-layers-small-cnn.png", "mi-share-small-cnn.png")) {
            assertPng(o.resolve(png));
        }
        assertReport(o, 1);
        List<String> series = Files.readAllLines(o.resolve("runs/mi-small-cnn/series.csv"));
        assertEquals("model,step,layer,layer_name,elements,quantizer,entropy_x_bits,entropy_y_bits,"
                + "joint_entropy_bits,mi_bits,mi_share,shuffled_mi_bits", series.get(0));
        List<String> table = csv(o);
        int layers = table.size() - 1;
        assertEquals(0, layers % 2, "one row per layer and quantizer");
        assertEquals(1 + 3 * layers, series.size(), "steps 0, 2 and 4, every layer and quantizer");
        for (String row : table.subList(1, table.size())) {
            String[] c = row.split(",");
            double h = Double.parseDouble(c[5]);
            double mi = Double.parseDouble(c[6]);
            assertTrue(mi >= 0 && mi <= h + 1e-9, "0 <= I <= H: " + row);
            assertEquals("3", c[4], row);
        }
        String md = Files.readString(o.resolve("table.md"));
        assertTrue(md.contains("small-cnn, float32: I/H averaged over the"), md);

        assertEquals(0, lgc("figure", "mutual-information", "--suite", file.toString(), "--output-dir",
                o.toString(), "--no-progress"));
        assertTrue(out.toString(StandardCharsets.UTF_8).contains("finished before, reused"));
        assertEquals(table, csv(o), "the same table from the reused series");
    }

    @Test
    void malformedSuiteShouldFailBeforeAnyTraining(@TempDir Path dir) throws IOException {
        Path file = suite(dir, "suite: compression\n" + TINY_BASE + """
                methods:
                  - {id: baseline, label: Baseline, config: {compressor: {type: none}}}
                  - {id: dgc, label: DGC, config: {compressor: {type: dgx}}}
                """);
        Path o = dir.resolve("out");
        assertEquals(2, lgc("table", "compression", "--suite", file.toString(), "--output-dir", o.toString()));
        // the registered compressors: the shipped ones and the test source set's third-party boosted-topk
        assertEquals("lgc: " + file + " (method 'dgc', model small-cnn, full profile): key 'compressor.type'"
                + " expects one of [boosted-topk, dgc, lgc, none, powersgd, randomk, s2, scalecom, topk],"
                + " found \"dgx\"",
                err.toString(StandardCharsets.UTF_8).trim());
        assertFalse(Files.exists(o), "nothing was written, the baseline did not train");
        assertEquals(2, lgc("table", "phases", "--suite", dir.resolve("missing.yaml").toString()));
        assertEquals("lgc: " + dir.resolve("missing.yaml") + ": suite file not found",
                err.toString(StandardCharsets.UTF_8).trim());
    }
}
