package io.lgc4j.cli.tables;

import io.lgc4j.runner.config.CompressorType;
import io.lgc4j.runner.config.ConfigException;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Suite files: the shipped ones load in both profiles; malformed ones fail whole, naming file, place and fix. */
class SuiteLoaderTest {

    private static final Path FILE = Path.of("suite.yaml");

    private static final String GOOD = """
            suite: compression
            title: test
            models: [small-cnn, small-resnet]
            base:
              training: {workers: 4, epochs: 3}
              stages: {fullIterations: 200}
            quick:
              training: {maxSteps: 60}
              stages: {fullIterations: 20}
            methods:
              - {id: baseline, label: Baseline, config: {compressor: {type: none}}}
              - id: dgc
                label: DGC
                config: {compressor: {type: dgc}, model: {updater: {type: sgd}}, stages: {fullIterations: 100}}
                quick: {stages: {fullIterations: 10}}
            """;

    private static String message(String yaml, SuiteKind kind) {
        return assertThrows(ConfigException.class, () -> SuiteLoader.parse(yaml, FILE, kind)).getMessage();
    }

    @Test
    void shouldLoadEveryShippedSuiteForItsCommand() throws Exception {
        for (SuiteKind kind : SuiteKind.values()) {
            Path file = Path.of("..", "configs", "tables", kind.spelling() + ".yaml");
            assertTrue(Files.isRegularFile(file), "missing " + file);
            Suite suite = SuiteLoader.load(file, kind);
            assertEquals(kind, suite.kind());
            if (kind.trainsMethods()) {
                assertTrue(suite.plan(Suite.Profile.QUICK).size() >= 2, kind + " plans at least two runs");
            } else {
                assertTrue(suite.analysis(Suite.Profile.QUICK).steps() < suite.analysis(Suite.Profile.FULL).steps());
            }
        }
    }

    @Test
    void shouldLoadEverySuiteFileShippedBesideThemForTheCommandItNames() throws Exception {
        try (var files = Files.list(Path.of("..", "configs", "tables"))) {
            for (Path file : files.filter(f -> f.toString().endsWith(".yaml")).toList()) {
                String kind = Files.readAllLines(file).stream().filter(l -> l.startsWith("suite:")).findFirst()
                        .orElseThrow(() -> new AssertionError(file + " names no suite")).substring(6).trim();
                Suite suite = SuiteLoader.load(file, SuiteKind.bySpelling(kind));
                if (suite.kind().trainsMethods()) {
                    assertFalse(suite.plan(Suite.Profile.FULL).isEmpty(), file.toString());
                }
            }
        }
    }

    @Test
    void shouldMergeBaseQuickMethodAndMethodQuickInThatOrder() {
        Suite suite = SuiteLoader.parse(GOOD, FILE, SuiteKind.COMPRESSION);
        List<Suite.PlannedRun> full = suite.plan(Suite.Profile.FULL);
        List<Suite.PlannedRun> quick = suite.plan(Suite.Profile.QUICK);
        assertEquals(List.of("baseline-small-cnn", "dgc-small-cnn", "baseline-small-resnet", "dgc-small-resnet"),
                full.stream().map(Suite.PlannedRun::key).toList());
        var dgcFull = full.get(1).config();
        var dgcQuick = quick.get(1).config();
        assertEquals(CompressorType.DGC, dgcFull.compressor().type());
        assertEquals("dgc-small-cnn", dgcFull.run().name());
        assertEquals(100, dgcFull.stages().fullIterations());
        assertEquals(0, dgcFull.training().maxSteps());
        assertEquals(10, dgcQuick.stages().fullIterations());
        assertEquals(60, dgcQuick.training().maxSteps());
        assertEquals(3, dgcQuick.training().epochs());
        assertEquals(20, quick.get(0).config().stages().fullIterations());
        assertEquals("small-resnet", full.get(3).config().model().name().toString());
    }

    @Test
    void shouldNameTheMethodModelProfileAndKeyOfAnInvalidMergedConfig() {
        String bad = GOOD.replace("quick: {stages: {fullIterations: 10}}", "quick: {compressor: {typ: dgc}}");
        assertEquals("suite.yaml (method 'dgc', model small-cnn, quick profile): unknown key 'compressor.typ';"
                + " allowed keys under 'compressor': clipNorm, codec, learnedRatio, lowPass, momentum, ratio, sketch,"
                + " type, values, warmupSteps", message(bad, SuiteKind.COMPRESSION));
    }

    @Test
    void shouldRejectUnknownTopLevelKeys() {
        assertEquals("suite.yaml: unknown key 'metods'; allowed keys at the top level: base, diagnosticSeeds,"
                + " methods, models, quick, seeds, suite, title", message(GOOD.replace("methods:", "metods:"), SuiteKind.COMPRESSION));
    }

    @Test
    void shouldRunEveryMethodAndModelOncePerSeed() {
        Suite suite = SuiteLoader.parse(GOOD + "seeds: [7, 42]\n", FILE, SuiteKind.COMPRESSION);
        List<Suite.PlannedRun> plan = suite.plan(Suite.Profile.QUICK);
        assertEquals(List.of("baseline-small-cnn-s7", "baseline-small-cnn-s42", "dgc-small-cnn-s7",
                        "dgc-small-cnn-s42", "baseline-small-resnet-s7", "baseline-small-resnet-s42",
                        "dgc-small-resnet-s7", "dgc-small-resnet-s42"),
                plan.stream().map(Suite.PlannedRun::key).toList());
        assertEquals(42, plan.get(3).config().run().seed());
        assertEquals("dgc-small-cnn-s42", plan.get(3).config().run().name());
        assertEquals("dgc-small-cnn", plan.get(3).pair());
        assertEquals(List.of(1L), suite.withSeeds(List.of(1L)).plan(Suite.Profile.FULL).stream()
                .map(Suite.PlannedRun::seed).distinct().toList());
        assertEquals(List.of("baseline-small-cnn", "dgc-small-cnn", "baseline-small-resnet", "dgc-small-resnet"),
                SuiteLoader.parse(GOOD, FILE, SuiteKind.COMPRESSION).plan(Suite.Profile.FULL).stream()
                        .map(Suite.PlannedRun::key).toList(), "without seeds, one run per pair, named as before");
    }

    @Test
    void shouldTrainTheDiagnosticSeedsRunsInTheDiagnosticMode() {
        Suite suite = SuiteLoader.parse(GOOD + "seeds: [7, 42, 43]\ndiagnosticSeeds: [42]\n", FILE,
                SuiteKind.COMPRESSION);
        for (Suite.Profile profile : Suite.Profile.values()) {
            for (Suite.PlannedRun run : suite.plan(profile)) {
                assertEquals(run.seed() == 42, run.config().training().diagnostics(), run.key());
            }
        }
        assertTrue(suite.withSeeds(List.of(7L, 43L)).plan(Suite.Profile.FULL).stream()
                .noneMatch(r -> r.config().training().diagnostics()), "--seeds without 42: no diagnostic run");
    }

    @Test
    void shouldRejectDiagnosticSeedsThatAreNotSeeds() {
        assertEquals("suite.yaml: key 'diagnosticSeeds[1]' expects one of the seeds [1, 2, 3], found 4",
                message(GOOD + "seeds: [1, 2, 3]\ndiagnosticSeeds: [1, 4]\n", SuiteKind.COMPRESSION));
        assertEquals("suite.yaml: key 'diagnosticSeeds[1]' repeats 1; diagnostic seeds must be unique",
                message(GOOD + "seeds: [1, 2, 3]\ndiagnosticSeeds: [1, 1]\n", SuiteKind.COMPRESSION));
        assertEquals("suite.yaml: key 'diagnosticSeeds' expects a non-empty list of seeds from 'seeds' [1, 2, 3],"
                + " e.g. [1]", message(GOOD + "seeds: [1, 2, 3]\ndiagnosticSeeds: 1\n", SuiteKind.COMPRESSION));
        assertEquals("suite.yaml: key 'diagnosticSeeds' needs 'seeds': it names which of them train in the"
                + " diagnostic mode, e.g. seeds: [1, 2, 3] with diagnosticSeeds: [1]",
                message(GOOD + "diagnosticSeeds: [1]\n", SuiteKind.COMPRESSION));
        assertEquals("suite.yaml: key 'diagnosticSeeds' is for compression suites (their tables show the diagnostic"
                + " mode's columns), not phases", message(GOOD.replace("suite: compression", "suite: phases")
                + "seeds: [1]\ndiagnosticSeeds: [1]\n", SuiteKind.PHASES));
    }

    @Test
    void shouldRejectMalformedSeeds() {
        assertEquals("suite.yaml: key 'seeds' expects a non-empty list of seeds (integers >= 0), e.g. [42, 43, 44]",
                message(GOOD + "seeds: []\n", SuiteKind.COMPRESSION));
        assertEquals("suite.yaml: key 'seeds[1]' repeats 42; seeds must be unique",
                message(GOOD + "seeds: [42, 42]\n", SuiteKind.COMPRESSION));
        assertEquals("suite.yaml: key 'seeds[0]' expects an integer >= 0, found -1",
                message(GOOD + "seeds: [-1]\n", SuiteKind.COMPRESSION));
        assertEquals("suite.yaml: key 'seeds[0]' expects an integer >= 0, found \"x\"",
                message(GOOD + "seeds: [x]\n", SuiteKind.COMPRESSION));
    }

    @Test
    void shouldReadTheLinksAndPeersOfATimeToAccuracySuiteAndNameABadKey() {
        String tta = GOOD.replace("suite: compression", "suite: time-to-accuracy") + """
                network: {rates: [unshaped, 10mbit], cpuPerProcess: 0.4, targetAccuracy: 0.8,
                          quick: {rates: [10mbit], targetAccuracy: 0.5}}
                peers: [{id: ddp-dense, method: dense}]
                """;
        Suite suite = SuiteLoader.parse(tta, FILE, SuiteKind.TIME_TO_ACCURACY);
        TimeToAccuracySettings s = suite.timeToAccuracy();
        assertEquals(List.of("unshaped", "10mbit"), s.rates(Suite.Profile.FULL).stream()
                .map(io.lgc4j.cli.netem.LinkShape::label).toList());
        assertEquals(1, s.rates(Suite.Profile.QUICK).size());
        assertEquals(0.5, s.targetAccuracy(Suite.Profile.QUICK));
        assertEquals(5_000, s.rates(Suite.Profile.QUICK).get(0).burstBytes());   // rate / 250
        assertFalse(s.untilTarget(Suite.Profile.FULL));
        TimeToAccuracySettings until = SuiteLoader.parse(tta.replace("targetAccuracy: 0.8,",
                "targetAccuracy: 0.8, untilTarget: true,"), FILE, SuiteKind.TIME_TO_ACCURACY).timeToAccuracy();
        assertTrue(until.untilTarget(Suite.Profile.FULL));
        assertTrue(until.untilTarget(Suite.Profile.QUICK));    // the quick profile inherits it
        assertEquals("suite.yaml: key 'network.quick.untilTarget' expects true or false, found \"maybe\"",
                message(tta.replace("targetAccuracy: 0.5}", "targetAccuracy: 0.5, untilTarget: maybe}"),
                        SuiteKind.TIME_TO_ACCURACY));
        assertEquals("suite.yaml: key 'network.rates[1]' expects 'unshaped' or a rate such as 100mbit (kbit, mbit or"
                        + " gbit: tc's units, powers of 1000), found \"10mbps\"",
                message(tta.replace("unshaped, 10mbit]", "unshaped, 10mbps]"), SuiteKind.TIME_TO_ACCURACY));
        assertEquals("suite.yaml: key 'network.cpuPerProcess' is required (a number in 0.0..1024.0)",
                message(tta.replace("cpuPerProcess: 0.4, ", ""), SuiteKind.TIME_TO_ACCURACY));
        assertEquals("suite.yaml: key 'peers[0].method' expects one of [dense, fp16, powersgd, localsgd], found"
                + " \"topk\"", message(tta.replace("method: dense", "method: topk"), SuiteKind.TIME_TO_ACCURACY));
    }

    /** Each peer at its best documented setting unless the suite says otherwise: PowerSGD from step 2. */
    @Test
    void shouldStartPowerSgdPeersAtTheirEarliestStepAndReadLocalSgd() {
        String tta = GOOD.replace("suite: compression", "suite: time-to-accuracy") + """
                network: {rates: [10mbit], cpuPerProcess: 0.4, targetAccuracy: 0.8}
                peers: [{id: psgd, method: powersgd, rank: 2}, {id: psgd-late, method: powersgd, startIter: 50},
                        {id: local, method: localsgd, startIter: 0, period: 8}]
                """;
        List<TimeToAccuracySettings.Peer> peers = SuiteLoader.parse(tta, FILE, SuiteKind.TIME_TO_ACCURACY)
                .timeToAccuracy().peers();
        assertEquals(new TimeToAccuracySettings.Peer("psgd", "psgd", "powersgd", 2, 2, 4), peers.get(0));
        assertEquals(50, peers.get(1).startIter());
        assertEquals(new TimeToAccuracySettings.Peer("local", "local", "localsgd", 1, 0, 8), peers.get(2));
        assertEquals("suite.yaml: key 'peers[1].startIter' expects a number in 2.0..100000.0, found 1",
                message(tta.replace("startIter: 50", "startIter: 1"), SuiteKind.TIME_TO_ACCURACY));
    }

    @Test
    void shouldRejectASuiteMeantForAnotherCommand() {
        assertEquals("suite.yaml: key 'suite' is \"compression\": this file is for 'lgc table compression', not"
                + " 'phases'", message(GOOD, SuiteKind.PHASES));
        assertEquals("suite.yaml: key 'suite' expects one of [compression, phases, mutual-information,"
                        + " sparsification, ae-convergence, time-to-accuracy], found \"tables\"",
                message(GOOD.replace("suite: compression", "suite: tables"), SuiteKind.COMPRESSION));
    }

    @Test
    void shouldRejectRepeatedAndMalformedMethodIds() {
        assertEquals("suite.yaml: key 'methods[1].id' repeats \"baseline\"; method ids must be unique",
                message(GOOD.replace("id: dgc", "id: baseline"), SuiteKind.COMPRESSION));
        assertEquals("suite.yaml: key 'methods[1].id' must match [a-z0-9][a-z0-9-]*, found \"D G C\"",
                message(GOOD.replace("id: dgc", "id: D G C"), SuiteKind.COMPRESSION));
    }

    @Test
    void shouldRejectMethodsThatNameTheirRunOrModel() {
        assertEquals("suite.yaml: key 'methods[0].config' must not set run.name or model.name: the suite names each"
                        + " run <method>-<model> and takes the models from 'models'",
                message(GOOD.replace("config: {compressor: {type: none}}",
                        "config: {model: {name: small-resnet}}"), SuiteKind.COMPRESSION));
    }

    @Test
    void shouldRejectMissingMethodsAndBadModels() {
        String noMethods = GOOD.substring(0, GOOD.indexOf("methods:"));
        assertEquals("suite.yaml: key 'methods' is required: a list of {id, label, config}",
                message(noMethods, SuiteKind.COMPRESSION));
        assertTrue(message(GOOD.replace("small-resnet]", "vgg16]"), SuiteKind.COMPRESSION)
                .startsWith("suite.yaml (method 'baseline', model vgg16, full profile): key 'model.name' expects"
                        + " one of"));
    }

    @Test
    void shouldReportMalformedYamlWithItsLine() {
        assertEquals("suite.yaml: malformed YAML at line 2, column 9: mapping values are not allowed here",
                message("suite: compression\ntitle: a: b\n", SuiteKind.COMPRESSION));
    }

    @Test
    void shouldRejectASuiteFileAboveOneMebibyteBeforeReadingIt(@org.junit.jupiter.api.io.TempDir Path dir)
            throws java.io.IOException {
        Path big = Files.writeString(dir.resolve("big.yaml"), "suite: compression\ntitle: " + "t".repeat(2 << 20));
        ConfigException e = assertThrows(ConfigException.class, () -> SuiteLoader.load(big, SuiteKind.COMPRESSION));
        assertEquals(big + ": file is " + Files.size(big) + " bytes, above the 1 MiB limit (1048576 bytes); a config"
                + " is a few hundred", e.getMessage());
    }

    @Test
    void shouldCheckTheMutualInformationSettings() {
        String mi = """
                suite: mutual-information
                base: {training: {workers: 4}}
                analysis: {steps: 100, every: 10, rankA: 0, rankB: 1, bins: [64, float32], quick: {steps: 20}}
                """;
        Suite suite = SuiteLoader.parse(mi, FILE, SuiteKind.MUTUAL_INFORMATION);
        assertEquals(List.of(64, MutualInformationSettings.FLOAT32), suite.analysis(Suite.Profile.FULL).bins());
        assertEquals(20, suite.analysis(Suite.Profile.QUICK).steps());
        assertEquals(10, suite.analysis(Suite.Profile.QUICK).every());
        assertEquals("suite.yaml: key 'analysis.rankB' must differ from rankA (0): the MI of a gradient with itself"
                + " is its entropy", message(mi.replace("rankB: 1", "rankB: 0"), SuiteKind.MUTUAL_INFORMATION));
        assertEquals("suite.yaml: key 'analysis.bins' expects level counts >= 2 or float32, found 1",
                message(mi.replace("[64, float32]", "[1]"), SuiteKind.MUTUAL_INFORMATION));
        assertEquals("suite.yaml: key 'analysis.rankA' and rankB must be ranks of training.workers = 4 (which must"
                + " be >= 2), found 0 and 7", message(mi.replace("rankB: 1", "rankB: 7"),
                SuiteKind.MUTUAL_INFORMATION));
        assertEquals("suite.yaml: unknown key 'analysis.quick.stpes'; allowed keys under 'analysis.quick': bins,"
                + " every, quick, rankA, rankB, steps", message(mi.replace("quick: {steps: 20}",
                "quick: {stpes: 20}"), SuiteKind.MUTUAL_INFORMATION));
    }
}
