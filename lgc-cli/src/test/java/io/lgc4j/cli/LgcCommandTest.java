package io.lgc4j.cli;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The command line turns bad input into a clear message and exit status 2, before any training. */
class LgcCommandTest {
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private PrintStream originalErr;

    @BeforeEach
    void captureErr() {
        originalErr = System.err;
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @AfterEach
    void restoreErr() {
        System.setErr(originalErr);
    }

    private String error() {
        return err.toString(StandardCharsets.UTF_8).trim();
    }

    private static Path psConfig(Path dir) throws IOException {
        Path config = dir.resolve("ps.yaml");
        Files.writeString(config, "run: {name: x}\ntraining: {workers: 2}\ntopology: {type: ps}\n");
        return config;
    }

    @Test
    void workerShouldNameTheMissingIdentityBeforeConnecting(@TempDir Path dir) throws IOException {
        Path config = psConfig(dir);
        assertEquals(2, LgcCommand.execute("worker", config.toString(), "--master-addr", "127.0.0.1",
                "--master-port", "29500", "--job-id", "j"));
        assertEquals("lgc worker: the rank is missing: set LGC_RANK or --rank", error());
        err.reset();
        assertEquals(2, LgcCommand.execute("worker", config.toString(), "--rank", "0"));
        assertEquals("lgc worker: the master address is missing: set LGC_MASTER_ADDR or --master-addr", error());
    }

    @Test
    void workerShouldRejectARankOutsideTheJob(@TempDir Path dir) throws IOException {
        assertEquals(2, LgcCommand.execute("worker", psConfig(dir).toString(), "--rank", "3"));
        assertEquals("lgc worker: rank must be in 0..2 (2 workers, then 1 parameter-server process), found 3",
                error());
    }

    @Test
    void workerShouldRefuseATokenOthersCanReadAndHalfATlsSetting(@TempDir Path dir) throws IOException {
        Path config = psConfig(dir);
        Path token = dir.resolve("token");
        Files.writeString(token, "0123456789abcdef0123456789abcdef");
        Files.setPosixFilePermissions(token, java.nio.file.attribute.PosixFilePermissions.fromString("rw-r--r--"));
        String[] identity = {"--rank", "1", "--master-addr", "127.0.0.1", "--master-port", "29500", "--job-id", "j",
            "--token-file", token.toString()};
        assertEquals(2, LgcCommand.execute(concat(new String[] {"worker", config.toString()}, identity)));
        assertEquals("lgc worker: token file " + token + " is accessible to its group or others (rw-r--r--): make it"
                + " readable by its owner only (chmod 600 " + token + ")", error());
        err.reset();
        Files.setPosixFilePermissions(token, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
        assertEquals(2, LgcCommand.execute(concat(new String[] {"worker", config.toString(), "--tls-cert",
            token.toString()}, identity)));
        assertEquals("lgc worker: mutual TLS needs all three of --tls-cert, --tls-key and --tls-ca (or LGC_TLS_CERT,"
                + " LGC_TLS_KEY, LGC_TLS_CA), found 1", error());
    }

    @Test
    void launchShouldNameWhatAProgramNeeds() {
        assertEquals(2, LgcCommand.execute("launch", "--", "java", "-cp", "app.jar", "com.example.Train"));
        assertEquals("lgc launch: a program needs --nproc K (no config says how many workers it has)", error());
        err.reset();
        assertEquals(2, LgcCommand.execute("launch", "--nproc", "2", "--main", "com.example.Train"));
        assertEquals("lgc launch: --main com.example.Train needs --classpath CP", error());
        err.reset();
        assertEquals(2, LgcCommand.execute("launch", "--nproc", "2", "--cpu-share", "-1", "--", "java", "Train"));
        assertEquals("lgc launch: --cpu-share must be >= 0 cores, found -1.0", error(), "a program's CPU share too");
        err.reset();
        assertEquals(2, LgcCommand.execute("launch", "--nproc", "2", "--cpu-period-ms", "0", "--", "java", "Train"));
        assertEquals("lgc launch: --cpu-period-ms must be 1 to 1000 ms (the kernel's bounds), found 0.0", error());
        err.reset();
        assertEquals(2, LgcCommand.execute("launch", "--nproc", "2", "--threads", "0", "--", "java", "Train"));
        assertEquals("lgc launch: --threads must be 'auto' or a number of threads of at least 1, found '0'", error());
        err.reset();
        assertEquals(2, LgcCommand.execute("launch", "--nproc", "2", "--trace-steps", "0..9", "--", "java", "Train"));
        assertEquals("lgc launch: --trace-steps 0..9 has no trace to bound: add --trace FILE", error());
        err.reset();
        assertEquals(2, LgcCommand.execute("launch", "a.yaml", "b.yaml"));
        assertEquals("lgc launch: launch takes one CONFIG, found 2 arguments [a.yaml, b.yaml] (to start a program:"
                + " lgc launch --nproc K -- java -cp app.jar your.Main)", error());
    }

    private static Path autoConfig(Path dir) throws IOException {
        Path config = dir.resolve("auto.yaml");
        Files.writeString(config, "run: {name: x}\ntraining: {workers: 2}\ncompressor: auto\n");
        return config;
    }

    @Test
    void autoShouldNameWhatALaunchOrAWorkerCannotDo(@TempDir Path dir) throws IOException {
        Path auto = autoConfig(dir);
        assertEquals(2, LgcCommand.execute("launch", auto.toString(), "--servers", "1"));
        assertEquals("lgc launch: --servers sets one method's shards; with compressor: auto each candidate has its"
                + " own (the launch starts the most any needs)", error());
        err.reset();
        assertEquals(2, LgcCommand.execute("worker", auto.toString(), "--rank", "0", "--servers", "1"));
        assertEquals("lgc worker: --servers (LGC_SERVERS) sets one method's shards; with compressor: auto each"
                + " candidate has its own (the launch starts the most any needs)", error());
        err.reset();
        assertEquals(2, LgcCommand.execute("worker", auto.toString(), "--rank", "5", "--session-endpoints", "3"));
        assertEquals("lgc worker: rank must be in 0..2 (2 workers and 1 server process started for compressor:"
                + " auto), found 5", error());
        err.reset();
        assertEquals(2, LgcCommand.execute("worker", auto.toString(), "--rank", "0", "--session-endpoints", "1"));
        assertEquals("lgc worker: --session-endpoints must be at least the workers (2), found 1", error());
        err.reset();
        Files.writeString(auto, "run: {name: x}\ncompressor: auto\nadvise: {budget: 3}\n");
        assertEquals(2, LgcCommand.execute("run", auto.toString()));
        assertEquals("lgc: " + auto + ": advise.budget: unknown key; allowed: candidates, target, denseSteps,"
                + " penalties", error());
        err.reset();
        Files.writeString(auto, "run: {name: x}\ncompressor: auto\n");
        Path run = Files.createDirectories(dir.resolve("a-run"));
        assertEquals(2, LgcCommand.execute("run", "--resume", run.toString(), auto.toString()));
        assertEquals("lgc: cannot resume " + run + " with compressor: auto: it has no advice.json; resume with the"
                + " run's config.yaml", error());
    }

    @Test
    void everyCommandThatTrainsShouldTakeTheSameCommonFlags() {
        picocli.CommandLine lgc = new picocli.CommandLine(new LgcCommand());
        for (String command : List.of("run", "launch", "worker")) {
            picocli.CommandLine.Model.CommandSpec spec = lgc.getSubcommands().get(command).getCommandSpec();
            for (String flag : List.of("--max-steps", "--output-dir", "--no-progress", "--trace", "--trace-steps")) {
                assertTrue(spec.findOption(flag) != null, "lgc " + command + " takes " + flag);
            }
        }
    }

    @Test
    void traceFlagsShouldNameWhatIsWrongAndWhatIsExpected(@TempDir Path dir) throws IOException {
        Path config = psConfig(dir);
        Path trace = dir.resolve("t.json");
        assertEquals(2, LgcCommand.execute("run", config.toString(), "--trace", trace.toString(), "--trace-steps",
                "5..2"));
        assertEquals("lgc: --trace-steps: '5..2': the last step 2 is before the first 5; expected first..last with"
                + " 0 <= first <= last (e.g. 0..99), first.. or one step", error());
        err.reset();
        assertEquals(2, LgcCommand.execute("run", config.toString(), "--trace", trace.toString(), "--seeds", "1,2"));
        assertEquals("lgc: the trace " + trace + " is one file, and --seeds trains 2 runs: trace one seed at a time,"
                + " or give training.trace.file a relative path (each run writes it in its own directory)", error());
        err.reset();
        assertEquals(2, LgcCommand.execute("launch", config.toString(), "--trace-steps", "3"));
        assertEquals("lgc launch: key 'training.trace.file' is not set, so --trace-steps 3 has no trace to bound: add"
                + " --trace FILE", error());
        err.reset();
        assertEquals(2, LgcCommand.execute("trace", "summary", trace.toString()));
        assertEquals("lgc trace summary: " + trace + ": no such file; expected a merged trace (lgc run --trace FILE,"
                + " or lgc trace merge DIR... -o FILE)", error());
        err.reset();
        assertEquals(2, LgcCommand.execute("trace", "merge", dir.resolve("none").toString(), "-o", trace.toString()));
        assertEquals("lgc trace merge: " + dir.resolve("none") + ": not a directory of endpoint traces"
                + " (e<endpoint>.json)", error());
    }

    @Test
    void runShouldLaunchWhenTheConfigSaysTcpAndRefuseSeedsThere(@TempDir Path dir) throws IOException {
        Path config = dir.resolve("tcp.yaml");
        Files.writeString(config, "run: {name: x}\ntraining: {workers: 2}\nruntime: {type: tcp}\n");
        assertEquals(2, LgcCommand.execute("run", config.toString(), "--seeds", "1,2"));
        assertEquals("lgc: --seeds trains its runs in this JVM; with runtime.type tcp run lgc launch once per seed"
                + " (run.seed)", error());
    }

    @Test
    void eachBenchmarkShouldPrintItsOwnHelp() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrintStream originalOut = System.out;
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        try {
            assertEquals(0, LgcCommand.execute("bench", "dense", "--help"));
            String dense = out.toString(StandardCharsets.UTF_8);
            assertTrue(dense.startsWith("Usage: lgc bench dense"), dense);
            assertTrue(dense.contains("--threads") && !dense.contains("--real-steps"), dense);
            out.reset();
            assertEquals(0, LgcCommand.execute("bench", "codec", "--help"));
            String codec = out.toString(StandardCharsets.UTF_8);
            assertTrue(codec.startsWith("Usage: lgc bench codec"), codec);
            assertTrue(codec.contains("--real-steps") && !codec.contains("--threads"), codec);
        } finally {
            System.setOut(originalOut);
        }
        assertEquals(2, LgcCommand.execute("bench", "dense", "--real-steps", "5"));
        assertTrue(error().startsWith("Unknown options: '--real-steps'"), error());
    }

    @Test
    void launchAndKeysShouldRejectBadArguments(@TempDir Path dir) throws IOException {
        assertEquals(2, LgcCommand.execute("launch", "--nproc", "0", psConfig(dir).toString()));
        assertEquals("lgc launch: --nproc must be >= 1, found 0", error());
        err.reset();
        assertEquals(2, LgcCommand.execute("keys", dir.resolve("keys").toString(), "--hosts", "a/b"));
        assertEquals("lgc keys: host \"a/b\": expected a host name or address (letters, digits, '.', ':', '_', '-')",
                error());
    }

    @Test
    void runShouldTrainOncePerSeedAndPrintTheSpread(@TempDir Path dir) throws IOException {
        Path config = dir.resolve("tiny.yaml");
        Files.writeString(config, "run: {name: tiny, outputDir: " + dir.resolve("out") + "}\n"
                + "data: {trainLimit: 256, testLimit: 100}\n"
                + "training: {workers: 2, batchSizePerWorker: 16, maxSteps: 2, evalEverySteps: 0}\n");
        PrintStream originalOut = System.out;
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        try {
            assertEquals(0, LgcCommand.execute("run", config.toString(), "--seeds", "3,4", "--no-progress"), error());
        } finally {
            System.setOut(originalOut);
        }
        String printed = out.toString(StandardCharsets.UTF_8);
        assertTrue(printed.contains("seed 3: test accuracy "), printed);
        assertTrue(printed.contains("seed 4: test accuracy "), printed);
        assertTrue(printed.matches("(?s).*test accuracy over 2 seeds: \\d+\\.\\d\\d ± \\d+\\.\\d\\d%.*"), printed);
        try (var runs = Files.list(dir.resolve("out"))) {
            List<String> names = runs.map(p -> p.getFileName().toString()).sorted().toList();
            assertEquals(2, names.size(), names.toString());
            assertTrue(names.get(0).startsWith("tiny-s3") && names.get(1).startsWith("tiny-s4"), names.toString());
        }
        err.reset();
        assertEquals(2, LgcCommand.execute("run", config.toString(), "--seeds", "1,1"));
        assertEquals("lgc: --seeds expects distinct integers >= 0, found [1, 1], e.g. --seeds 1,2,3", error());
    }

    private static String[] concat(String[] a, String[] b) {
        String[] all = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }

    @Test
    void shouldRejectUnknownYamlKeyNamingFileKeyAndAllowedKeys(@TempDir Path dir) throws IOException {
        Path config = dir.resolve("bad.yaml");
        Files.writeString(config, "run: {name: x}\ntraining: {wrokers: 4}\n");
        assertEquals(2, LgcCommand.execute("run", config.toString()));
        assertEquals("lgc: " + config + ": unknown key 'training.wrokers'; allowed keys under 'training':"
                + " batchSizePerWorker, bucketBytes, checkpointEverySteps, diagnostics, epochs, evalEverySteps,"
                + " maxSteps, overlap, trace, workers",
                err.toString(StandardCharsets.UTF_8).trim());
    }

    @Test
    void runAndLaunchShouldSayWhatAResumeNeeds(@TempDir Path dir) {
        assertEquals(2, LgcCommand.execute("run"));
        assertEquals("lgc: run needs a CONFIG (e.g. lgc run configs/quickstart.yaml) or --resume RUN_DIR", error());
        err.reset();
        assertEquals(2, LgcCommand.execute("run", "--resume", dir.toString(), "--seeds", "1,2"));
        assertEquals("lgc: --resume continues one run in its own directory; it takes neither --seeds nor"
                + " --output-dir", error());
        err.reset();
        assertEquals(2, LgcCommand.execute("run", "--resume", dir.resolve("absent").toString()));
        assertEquals("lgc: cannot resume " + dir.resolve("absent") + ": no such directory", error());
        err.reset();
        assertEquals(2, LgcCommand.execute("launch", "--nproc", "2"));
        assertEquals("lgc launch: launch needs a CONFIG or --resume RUN_DIR", error());
        err.reset();
        assertEquals(2, LgcCommand.execute("launch", "--nproc", "2", "--max-restarts", "-1", "configs/x.yaml"));
        assertEquals("lgc launch: --max-restarts must be >= 0, found -1", error());
    }

    @Test
    void theResizeAndElasticOptionsShouldSayWhatTheyGoWith(@TempDir Path dir) {
        assertEquals(2, LgcCommand.execute("run", "configs/x.yaml", "--workers", "3"));
        assertEquals("lgc: --workers K and --servers S go with --resume RUN_DIR (a new run takes training.workers and"
                + " topology.servers from its config)", error());
        err.reset();
        assertEquals(2, LgcCommand.execute("run", "configs/x.yaml", "--servers", "2"));
        assertEquals("lgc: --workers K and --servers S go with --resume RUN_DIR (a new run takes training.workers and"
                + " topology.servers from its config)", error());
        err.reset();
        assertEquals(2, LgcCommand.execute("launch", "--nproc", "1", "--nnodes", "2:1", "--rdzv", "127.0.0.1:1",
                "configs/x.yaml"));
        assertEquals("lgc launch: --nnodes expects MIN:MAX hosts (1 <= MIN <= MAX) or N, found 2:1", error());
        err.reset();
        assertEquals(2, LgcCommand.execute("launch", "--nproc", "1", "--nnodes", "2", "configs/x.yaml"));
        assertEquals("lgc launch: --rdzv expects HOST:PORT of the store (a host every host reaches), found none",
                error());
        err.reset();
        assertEquals(2, LgcCommand.execute("launch", "--nproc", "1", "--nnodes", "1:2", "--rdzv", "127.0.0.1:1",
                "--netns-rate", "10mbit", "configs/x.yaml"));
        assertEquals("lgc launch: --nnodes runs on real hosts: --netns-rate and --cpu-share emulate one host's links"
                + " and cores and do not go with it", error());
        err.reset();
        if (System.getenv("LGC_TOKEN_FILE") == null) {
            assertEquals(2, LgcCommand.execute("launch", "--nproc", "1", "--nnodes", "1:2", "--rdzv", "127.0.0.1:1",
                    "configs/x.yaml"));
            assertEquals("lgc launch: --nnodes needs the job token in LGC_TOKEN_FILE: the same file (chmod 600) on"
                    + " every host", error());
            err.reset();
        }
        assertEquals(2, LgcCommand.execute("launch", "--nproc", "2", "--nnodes", "2", "--rdzv", "no-such-host.invalid:1",
                "--", "java", "Main"));
        assertEquals("lgc launch: --rdzv expects HOST:PORT of the store (a host every host reaches), found"
                + " no-such-host.invalid:1", error());
        err.reset();
        assertEquals(2, LgcCommand.execute("launch", "--nproc", "2", "--resize", "configs/x.yaml"));
        assertEquals("lgc launch: --resize goes with --resume RUN_DIR: it lets a run go on at another --nproc or"
                + " --servers", error());
        err.reset();
        assertEquals(2, LgcCommand.execute("launch", "--nproc", "4", "--min-nproc", "2", "configs/x.yaml"));
        assertEquals("lgc launch: --min-nproc goes on after a failure, which is a restart: give --max-restarts N"
                + " (N >= 1)", error());
        err.reset();
        assertEquals(2, LgcCommand.execute("launch", "--nproc", "4", "--min-nproc", "5", "--max-restarts", "1",
                "configs/x.yaml"));
        assertEquals("lgc launch: --min-nproc must be in [1, --nproc], found 5", error());
        err.reset();
        assertEquals(2, LgcCommand.execute("launch", "--nproc", "4", "--rejoin-after", "5", "configs/x.yaml"));
        assertEquals("lgc launch: --rejoin-after goes with --min-nproc", error());
    }

    @Test
    void anElasticLaunchShouldNotPromiseToGrowAMethodThatCannot(@TempDir Path dir) throws IOException {
        Path config = dir.resolve("lgc-ps.yaml");
        Files.writeString(config, "run: {name: x}\ntopology: {type: ps}\ncompressor: {type: lgc}\n"
                + "autoencoder: {driftBound: 0}\n");
        assertEquals(2, LgcCommand.execute("launch", "--nproc", "3", "--min-nproc", "2", "--max-restarts", "1",
                "--rejoin-after", "5", config.toString()));
        assertEquals("lgc launch: --rejoin-after grows the job back, which this method refuses: LGC-PS cannot resume at"
                + " K = 3 from a checkpoint of K = 2 without the drift guard (autoencoder.driftBound is 0): a new"
                + " worker's decoder is a copy of another worker's, and only the guard would fall back to training it"
                + " when it reconstructs badly; turn the guard on, or go on with fewer workers (K <= 2)", error());
    }

    @Test
    void shouldRejectZeroWorkers(@TempDir Path dir) throws IOException {
        Path config = dir.resolve("zero.yaml");
        Files.writeString(config, "run: {name: x}\ntraining: {workers: 0}\n");
        assertEquals(2, LgcCommand.execute("run", config.toString()));
        assertEquals("lgc: " + config + ": key 'training.workers' must be >= 1, found 0",
                err.toString(StandardCharsets.UTF_8).trim());
    }

    @Test
    void shouldRejectNonPositiveBatch(@TempDir Path dir) throws IOException {
        Path config = dir.resolve("batch.yaml");
        Files.writeString(config, "run: {name: x}\ntraining: {batchSizePerWorker: 0}\n");
        assertEquals(2, LgcCommand.execute("run", config.toString()));
        assertEquals("lgc: " + config + ": key 'training.batchSizePerWorker' must be > 0, found 0",
                err.toString(StandardCharsets.UTF_8).trim());
    }

    @Test
    void shouldSayHowToInstallAMissingDataset(@TempDir Path dir) throws IOException {
        Path config = dir.resolve("nodata.yaml");
        Files.writeString(config, "run: {name: x, outputDir: " + dir + "}\ndata: {path: " + dir.resolve("empty") + "}\n");
        assertEquals(2, LgcCommand.execute("run", config.toString()));
        String message = err.toString(StandardCharsets.UTF_8);
        assertTrue(message.contains(dir.resolve("empty").toString()), message);
        assertTrue(message.contains("apt-get install dataset-fashion-mnist"), message);
    }

    @Test
    void shouldRejectAnUnknownIndexCodec(@TempDir Path dir) throws IOException {
        Path config = dir.resolve("codec.yaml");
        Files.writeString(config, "run: {name: x}\ncompressor: {type: topk, codec: zip}\n");
        assertEquals(2, LgcCommand.execute("run", config.toString()));
        assertEquals("lgc: " + config + ": key 'compressor.codec' expects one of " + io.lgc4j.core.codec.IndexCodecs
                .names() + ", found \"zip\"", err.toString(StandardCharsets.UTF_8).trim());
    }

    @Test
    void shouldRejectAnUnknownValueEncodingNamingTheAllowedOnes(@TempDir Path dir) throws IOException {
        Path config = dir.resolve("values.yaml");
        Files.writeString(config, "run: {name: x}\ncompressor: {type: none, values: fp8}\n");
        assertEquals(2, LgcCommand.execute("run", config.toString()));
        assertEquals("lgc: " + config + ": key 'compressor.values' expects one of [fp32, fp16, bf16], found \"fp8\"",
                err.toString(StandardCharsets.UTF_8).trim());
    }

    @Test
    void shouldRejectAMissingConfigFile(@TempDir Path dir) {
        Path config = dir.resolve("absent.yaml");
        assertEquals(2, LgcCommand.execute("run", config.toString()));
        assertEquals("lgc: " + config + ": config file not found", err.toString(StandardCharsets.UTF_8).trim());
    }

    /** Runs {@code lgc run} on {@code yaml} with its output under {@code dir/out}; returns stderr, trimmed. */
    private String runRejected(Path dir, String yaml) throws IOException {
        Path config = dir.resolve("c.yaml");
        Files.writeString(config, yaml);
        assertEquals(2, LgcCommand.execute("run", config.toString(), "--output-dir", dir.resolve("out").toString()));
        assertFalse(Files.exists(dir.resolve("out")), "a rejected run must leave no result directory");
        return err.toString(StandardCharsets.UTF_8).trim();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', value = {
        "compressor: {type: dgc}                            | key 'model.updater.type' must be sgd with compressor.type"
                + " dgc, found nesterovs: DGC applies momentum itself (compressor.momentum), so the model's updater"
                + " must not add its own",
        "data: {trainLimit: 100}                            | key 'data.trainLimit' must be at least one global batch,"
                + " training.workers × training.batchSizePerWorker = 4 × 32 = 128 (every worker reads one batch per"
                + " step), found 100",
        "`topology: {type: ring, support: own}\\ncompressor: {type: lgc}` | key 'topology.support' applies to the"
                + " parameter server only (topology.type ps with compressor.type lgc), found own with topology.type"
                + " ring; remove it or write leader",
        "compressor: {type: topk, ratio: .nan}              | key 'compressor.ratio' expects a finite number, found .nan",
        "training: {workers: &k 2, batchSizePerWorker: *k}  | key 'training.batchSizePerWorker' uses the YAML alias *k;"
                + " aliases are not supported in a config: write the value out",
    })
    void shouldRejectAtLoadWithExitStatusTwoAndNoResultDirectory(String yaml, String expected, @TempDir Path dir)
            throws IOException {
        String message = runRejected(dir, "run: {name: x}\n" + yaml.replace("\\n", "\n") + "\n");
        assertEquals("lgc: " + dir.resolve("c.yaml") + ": " + expected, message);
    }

    @Test
    void shouldRejectARunNameAbove100CharactersEchoingOnlyItsStart(@TempDir Path dir) throws IOException {
        String message = runRejected(dir, "run: {name: " + "n".repeat(300) + "}\n");
        assertEquals("lgc: " + dir.resolve("c.yaml") + ": key 'run.name' must be at most 100 characters, found \""
                + "n".repeat(40) + "…\" (300 characters)", message);
    }

    @Test
    void shouldRejectAConfigAboveOneMebibyte(@TempDir Path dir) throws IOException {
        String yaml = "run: {name: " + "n".repeat(2 * 1024 * 1024) + "}\n";
        String message = runRejected(dir, yaml);
        assertEquals("lgc: " + dir.resolve("c.yaml") + ": file is " + yaml.length() + " bytes, above the 1 MiB limit"
                + " (1048576 bytes); a config is a few hundred", message);
    }

    @Test
    void shouldRejectAnOutputDirThatIsAFile(@TempDir Path dir) throws IOException {
        Path file = Files.writeString(dir.resolve("results"), "not a directory");
        Path config = Files.writeString(dir.resolve("c.yaml"), "run: {name: x, outputDir: " + file + "}\n");
        assertEquals(2, LgcCommand.execute("run", config.toString()));
        assertEquals("lgc: run.outputDir " + file + " is a file, not a directory",
                err.toString(StandardCharsets.UTF_8).trim());
        assertEquals("not a directory", Files.readString(file));
    }

    @Test
    void shouldRejectAnOutputDirBelowAFile(@TempDir Path dir) throws IOException {
        Path file = Files.writeString(dir.resolve("results"), "not a directory");
        Path config = Files.writeString(dir.resolve("c.yaml"), "run: {name: x}\n");
        assertEquals(2, LgcCommand.execute("run", config.toString(), "--output-dir", file.resolve("runs").toString()));
        assertEquals("lgc: run.outputDir " + file.resolve("runs") + " cannot be created: " + file + " is a file, not a"
                + " directory", err.toString(StandardCharsets.UTF_8).trim());
    }

    @Test
    void shouldSayADataPathThatIsAFileIsNotADirectory(@TempDir Path dir) throws IOException {
        Path file = Files.writeString(dir.resolve("fashion.tar"), "an archive");
        String message = runRejected(dir, "run: {name: x}\ndata: {path: " + file + "}\n");
        assertEquals("lgc: Fashion-MNIST train split not found in " + file + ": it is a file, not a directory; "
                + io.lgc4j.data.FashionMnist.INSTALL_HINT, message);
    }

    @Test
    void shouldLeaveNoResultDirectoryWhenTheDatasetIsMissing(@TempDir Path dir) throws IOException {
        String message = runRejected(dir, "run: {name: x}\ndata: {path: " + dir.resolve("empty") + "}\n");
        assertTrue(message.startsWith("lgc: Fashion-MNIST train split not found in " + dir.resolve("empty")
                + " (the directory does not exist)"), message);
    }

    @Test
    void shouldRejectADataSetSmallerThanOneGlobalBatchBeforeWritingAnything(@TempDir Path dir) throws IOException {
        Path data = Files.createDirectories(dir.resolve("tiny"));
        writeIdx(data, "train", 10);
        writeIdx(data, "t10k", 5);
        String message = runRejected(dir, "run: {name: x}\ndata: {path: " + data + "}\n");
        assertEquals("lgc: cannot train on " + data + ": the training data holds 10 examples, fewer than one global"
                + " batch: workers × batchSizePerWorker = 4 × 32 = 128 (every rank reads one batch per step); give"
                + " more data, fewer workers or a smaller batch", message);
    }

    /** A PowerSGD rank no block of the model can take fails when the trainer is built, naming the key. */
    @Test
    void shouldRejectAPowerSgdRankAboveEveryMatrixOfTheModelBeforeWritingAnything(@TempDir Path dir)
            throws IOException {
        Path data = Files.createDirectories(dir.resolve("tiny"));
        writeIdx(data, "train", 200);
        writeIdx(data, "t10k", 5);
        String message = runRejected(dir, "run: {name: x}\ndata: {path: " + data + "}\n"
                + "compressor: {type: powersgd, rank: 600}\n");
        assertEquals("lgc: key 'compressor.rank' must be at most the smaller side of the largest matrix, fc1/W "
                + "(500 × 800): at most 500, found 600 (model small-cnn)", message);
    }

    @Test
    void evidenceShouldRefuseABadTargetOrRootAndStillWriteFromARunDirectory(@TempDir Path dir) throws IOException {
        assertEquals(2, LgcCommand.execute("evidence", "step-penalties", "--target", "80"));
        assertEquals("lgc evidence step-penalties: --target must be a fraction in (0, 1], found 80.0", error());
        err.reset();
        assertEquals(2, LgcCommand.execute("evidence", "step-penalties", dir.resolve("none").toString()));
        assertEquals("lgc evidence step-penalties: " + dir.resolve("none") + " is not a directory; expected a"
                + " results root such as docs/results", error());
        err.reset();
        // a dense run and a fp16 run of one seed: two rows, the fp16 one at 150 ÷ 100 steps
        for (String[] run : new String[][] {{"dense", "fp32", "0.85"}, {"fp16", "fp16", "0.7"}}) {
            Path r = Files.createDirectories(dir.resolve("results").resolve(run[0]));
            Files.writeString(r.resolve("config.yaml"), "run: {name: " + run[0] + "}\ntraining: {evalEverySteps: 50}\n"
                    + "compressor: {type: none, values: " + run[1] + "}\n");
            Files.writeString(r.resolve("metrics.csv"), "step,test_accuracy\n49,0.5\n99," + run[2] + "\n149,0.9\n");
        }
        Path out = dir.resolve("penalties.csv");
        assertEquals(0, LgcCommand.execute("evidence", "step-penalties", dir.resolve("results").toString(),
                "--output", out.toString()));
        var read = io.lgc4j.advise.StepPenalties.read(out);
        assertEquals(2, read.rows().size(), Files.readString(out));
        assertEquals(java.util.List.of(150), read.rows().get(1).steps());
        assertEquals(java.util.List.of(100), read.rows().get(1).denseSteps());
        assertEquals("lgc evidence step-penalties: 2 runs counted, 0 skipped; 1 settings with dense runs, 1 method"
                + " rows (1 reached the target on every seed); wrote " + out, error());
    }

    /** An uncompressed IDX images and labels pair of {@code count} blank 28×28 images of class 0. */
    private static void writeIdx(Path dir, String prefix, int count) throws IOException {
        java.nio.ByteBuffer images = java.nio.ByteBuffer.allocate(16 + count * 784);
        images.putInt(0x803).putInt(count).putInt(28).putInt(28);
        Files.write(dir.resolve(prefix + "-images-idx3-ubyte"), images.array());
        java.nio.ByteBuffer labels = java.nio.ByteBuffer.allocate(8 + count);
        labels.putInt(0x801).putInt(count);
        Files.write(dir.resolve(prefix + "-labels-idx1-ubyte"), labels.array());
    }
}
