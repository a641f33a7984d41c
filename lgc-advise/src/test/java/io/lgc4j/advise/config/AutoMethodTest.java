package io.lgc4j.advise.config;

import io.lgc4j.runner.config.ConfigException;
import io.lgc4j.runner.config.ConfigLoader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code compressor: auto} as a config says it: what is read, what is refused and how. */
class AutoMethodTest {

    private static final String USER = """
            run: {name: mine, seed: 7}
            data: {trainLimit: 640}
            training: {workers: 3, batchSizePerWorker: 16}
            """;

    private static Optional<AutoMethod> parse(String yaml) {
        return AutoMethod.parse(yaml, "mine.yaml", Path.of("."));
    }

    @Test
    void shouldReadTheShorthandAndTheTypeAndLeaveANamedMethodToTheLoader() {
        AutoMethod a = parse(USER + "compressor: auto\n").orElseThrow();
        AutoMethod b = parse(USER + "compressor: {type: auto}\nadvise: {candidates: default, target: 0.8}\n")
                .orElseThrow();
        assertEquals(a.digest(), b.digest(), "the same candidates and target");
        assertEquals("default", a.source());
        assertEquals(0.80, a.target(), 0);
        assertEquals(8, a.candidates().size());
        assertEquals("mine", a.base().run().name());
        assertEquals(3, a.candidate("dense-fp16").config().training().workers());
        // the most server processes any default candidate needs: dense PS and LGC-PS, one each
        assertEquals(1, a.maxServices(3));
        assertTrue(parse(USER + "compressor: {type: topk}\n").isEmpty());
        assertNotEquals(a.digest(), parse(USER + "compressor: auto\nadvise: {target: 0.85}\n").orElseThrow()
                .digest(), "another target is another choice");
    }

    @Test
    void shouldReadTheUsersOwnEvidenceIntoTheDigest() {
        AutoMethod a = parse(USER + "compressor: auto\nadvise: {denseSteps: 300, penalties: {dense-fp16: 1}}\n")
                .orElseThrow();
        assertEquals(300, a.denseSteps(), 0);
        assertEquals(java.util.Map.of("dense-fp16", 1.0), a.penalties());
        assertNotEquals(parse(USER + "compressor: auto\n").orElseThrow().digest(), a.digest(),
                "other evidence may choose otherwise");
        assertEquals(a.penalties(), a.map(c -> c).penalties());
    }

    @Test
    void shouldApplyAChangeToTheBaseAndEveryCandidate() {
        AutoMethod a = parse(USER + "compressor: auto\n").orElseThrow()
                .map(c -> c.withTraining(c.training().withWorkers(5)));
        assertEquals(5, a.base().training().workers());
        a.candidates().forEach(c -> assertEquals(5, c.config().training().workers(), c.id()));
        assertEquals(parse(USER + "compressor: auto\n").orElseThrow().digest(), a.digest(),
                "the workers are not the candidates' method");
    }

    @Test
    void shouldReadACandidatesFileBesideTheConfig(@TempDir Path dir) throws IOException {
        Files.writeString(dir.resolve("mine-candidates.yaml"), """
                candidates:
                  - {id: ring, config: {topology: {type: ring}}}
                  - {id: ps-topk, config: {topology: {type: ps}, compressor: {type: topk, ratio: 0.01}}}
                """);
        Path config = dir.resolve("auto.yaml");
        Files.writeString(config, USER + "compressor: auto\nadvise: {candidates: mine-candidates.yaml}\n");
        AutoMethod a = AutoMethod.read(config).orElseThrow();
        assertEquals("mine-candidates.yaml", a.source());
        assertEquals(2, a.candidates().size());
        assertEquals("topk", a.candidate("ps-topk").config().compressor().type().toString());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> a.candidate("dgc"));
        assertEquals("no candidate 'dgc' among [ring, ps-topk]", e.getMessage());
    }

    @Test
    void shouldNameWhatIsWrong() {
        assertEquals("mine.yaml: advise: applies with compressor: auto only (it says among what the run chooses its"
                + " method); remove it, or write compressor: auto", assertThrows(ConfigException.class, () ->
                parse(USER + "advise: {target: 0.8}\n")).getMessage());
        assertEquals("mine.yaml: compressor.ratio: compressor: auto takes no other key; each candidate sets its own"
                + " method (advise.candidates)", assertThrows(ConfigException.class, () ->
                parse(USER + "compressor: {type: auto, ratio: 0.01}\n")).getMessage());
        assertEquals("mine.yaml: advise.budget: unknown key; allowed: candidates, target, denseSteps, penalties",
                assertThrows(ConfigException.class, () ->
                        parse(USER + "compressor: auto\nadvise: {budget: 3}\n")).getMessage());
        assertEquals("mine.yaml: advise.target: expected a test accuracy in (0, 1], found 80",
                assertThrows(ConfigException.class, () ->
                        parse(USER + "compressor: auto\nadvise: {target: 80}\n")).getMessage());
        assertEquals("mine.yaml: advise.candidates: expected default or a file, found 3",
                assertThrows(ConfigException.class, () ->
                        parse(USER + "compressor: auto\nadvise: {candidates: 3}\n")).getMessage());
        assertTrue(assertThrows(ConfigException.class, () -> parse(USER
                + "compressor: auto\nadvise: {candidates: no-such.yaml}\n")).getMessage()
                .startsWith(Path.of(".").resolve("no-such.yaml") + ": cannot read the candidates: "));
        assertEquals("mine.yaml: advise.penalties.fp16x: no candidate 'fp16x' among [dense-ring, dense-ps, dense-fp16,"
                + " powersgd, powersgd-from-0, scalecom-psgd-warmup, lgc-ps-psgd-warmup, powersgd-from-0-bf16]",
                assertThrows(ConfigException.class, () ->
                parse(USER + "compressor: auto\nadvise: {penalties: {fp16x: 1}}\n")).getMessage());
        assertEquals("mine.yaml: advise.penalties.dense-fp16: a candidate's steps to the target as a multiple of"
                + " dense's, > 0, found 0.0", assertThrows(ConfigException.class, () ->
                parse(USER + "compressor: auto\nadvise: {penalties: {dense-fp16: 0}}\n")).getMessage());
        assertEquals("mine.yaml: advise.penalties.dense-fp16: expected a number, found \"same\"",
                assertThrows(ConfigException.class, () ->
                        parse(USER + "compressor: auto\nadvise: {penalties: {dense-fp16: same}}\n")).getMessage());
        assertEquals("mine.yaml: advise.denseSteps: expected dense's steps to the target, > 0 (0: from the evidence),"
                + " found -3", assertThrows(ConfigException.class, () ->
                parse(USER + "compressor: auto\nadvise: {denseSteps: -3}\n")).getMessage());
        // a command that needs a named method says where auto is resolved
        assertEquals("mine.yaml: compressor: auto is chosen when a run starts (lgc run, lgc launch and lgc worker"
                + " resolve it: io.lgc4j.advise.config.AutoRun); here the config must name its method",
                assertThrows(ConfigException.class, () -> ConfigLoader.parse(USER + "compressor: auto\n",
                        "mine.yaml")).getMessage());
    }
}
