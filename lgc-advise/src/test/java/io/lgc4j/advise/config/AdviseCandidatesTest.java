package io.lgc4j.advise.config;

import io.lgc4j.core.comm.ValueEncoding;
import io.lgc4j.runner.config.ConfigException;
import io.lgc4j.runner.config.ConfigLoader;
import io.lgc4j.runner.config.ExperimentConfig;
import io.lgc4j.ps.topology.Shards;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class AdviseCandidatesTest {

    private static final ExperimentConfig USER = ConfigLoader.parse("""
            run: {name: mine, seed: 7}
            data: {trainLimit: 640}
            training: {workers: 3, batchSizePerWorker: 16, overlap: backward}
            topology: {type: ps, servers: 3, shardBy: blocks}
            compressor: {type: dgc, ratio: 0.01}
            model: {updater: {type: sgd}}
            warmup: {values: bf16}
            stages: {fullIterations: 7}
            """, "user.yaml");

    @Test
    void shouldLayEachCandidatesMethodOverTheUsersRunWithoutTheUsersMethod() {
        List<AdviseCandidate> candidates = AdviseCandidates.defaults(USER);
        assertEquals(List.of("dense-ring", "dense-ps", "dense-fp16", "powersgd", "powersgd-from-0",
                "scalecom-psgd-warmup", "lgc-ps-psgd-warmup", "powersgd-from-0-bf16"),
                candidates.stream().map(AdviseCandidate::id).toList());
        for (AdviseCandidate c : candidates) {
            ExperimentConfig config = c.config();
            assertEquals("mine-" + c.id(), config.run().name());
            assertEquals(7, config.run().seed());
            assertEquals(640, config.data().trainLimit());
            assertEquals(3, config.training().workers());
            assertEquals(16, config.training().batchSizePerWorker());
            // the user's method is gone: its overlap, shards, warm-up and stages are not the candidate's
            assertEquals("none", config.training().overlap(), c.id());
            assertEquals(1, config.topology().keys(Shards.class).servers(), c.id());
            assertEquals(50, config.stages().fullIterations(), c.id());
            assertEquals(0.001, config.compressor().ratio(), c.id());
        }
        ExperimentConfig denseRing = candidates.get(0).config();
        assertTrue(denseRing.warmup().section().isDefault(), "the user's bf16 warm-up is not dense ring's");
        assertEquals(ValueEncoding.FP16, candidates.get(2).config().compressor().valueEncoding());
        assertEquals("powersgd", candidates.get(4).config().warmup().section().type(), "compresses from step 0");
        assertEquals("powersgd", candidates.get(5).config().warmup().section().type());
        assertEquals(ValueEncoding.BF16, candidates.get(7).config().compressor().valueEncoding());
        assertEquals("powersgd", candidates.get(7).config().warmup().section().type(), "compresses from step 0");
    }

    @Test
    void shouldReadAFileOfCandidatesWithItsOwnBase() {
        List<AdviseCandidate> c = AdviseCandidates.parse("""
                base: {stages: {fullIterations: 20}, training: {overlap: backward}}
                candidates:
                  - {id: ring, label: "Ring, backward", config: {topology: {type: ring}, compressor: {type: none}}}
                  - {id: ring-sync, config: {topology: {type: ring}, training: {overlap: none}}}
                """, "mine.yaml", USER);
        assertEquals("Ring, backward", c.get(0).label());
        assertEquals("ring-sync", c.get(1).label());
        assertEquals("backward", c.get(0).config().training().overlap());
        assertEquals("none", c.get(1).config().training().overlap());
        assertEquals(20, c.get(1).config().stages().fullIterations());
    }

    @Test
    void shouldNameWhatIsWrongWithACandidate() {
        assertEquals("c.yaml: candidates[0].config.model: not a method key; a candidate may set compressor, warmup,"
                + " topology, autoencoder, stages, training.overlap, training.bucketBytes",
                message("candidates: [{id: a, config: {model: {name: tiny-cnn}}}]"));
        assertEquals("c.yaml: candidates[0].config.training.workers: not a method key; a candidate may set"
                + " compressor, warmup, topology, autoencoder, stages, training.overlap, training.bucketBytes",
                message("candidates: [{id: a, config: {training: {workers: 2}}}]"));
        assertEquals("c.yaml: candidates[1].id: 'a' names two candidates",
                message("candidates: [{id: a}, {id: a}]"));
        assertEquals("c.yaml: candidates[0].config.compressor.type: a candidate names a method; auto is what chooses"
                + " among them", message("candidates: [{id: a, config: {compressor: {type: auto}}}]"));
        assertEquals("c.yaml: 'candidates' must be a non-empty list of {id, label, config}",
                message("candidates: []"));
        assertEquals("c.yaml: unknown key 'methods'; allowed: base, candidates", message("methods: []"));
        assertEquals("c.yaml: candidates[0].id: 'A b' is not a short name (lower-case letters, digits and dashes)",
                message("candidates: [{id: A b}]"));
        assertEquals("c.yaml: candidates[0]: unknown key 'colocate'; allowed: id, label, config",
                message("candidates: [{id: a, colocate: true}]"));
        String bad = message("candidates: [{id: a, config: {compressor: {type: nope}}}]");
        assertTrue(bad.startsWith("c.yaml (candidate 'a'): "), bad);
    }

    private static String message(String yaml) {
        return assertThrows(ConfigException.class, () -> AdviseCandidates.parse(yaml, "c.yaml", USER)).getMessage();
    }

    @Test
    void shouldRefuseAFileThatIsNotThere() {
        var e = assertThrows(ConfigException.class, () -> AdviseCandidates.load(Path.of("no-such.yaml"), USER));
        assertTrue(e.getMessage().contains("no-such.yaml"), e.getMessage());
    }
}
