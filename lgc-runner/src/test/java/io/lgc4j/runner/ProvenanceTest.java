package io.lgc4j.runner;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class ProvenanceTest {

    /** The commit is that of the code's checkout (asked where the classes live), which here is this repository's. */
    @Test
    void shouldNameTheCommitOfTheCheckoutTheCodeCameFrom() throws IOException, InterruptedException {
        Process git = new ProcessBuilder("git", "rev-parse", "HEAD").redirectErrorStream(true).start();
        String head = new String(git.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        assumeTrue(git.waitFor() == 0, "not in a git checkout: " + head);
        Map<String, Object> p = Provenance.collect("c.yaml", 7);
        assertEquals(head, p.get("gitCommit"));
        assertTrue(p.get("gitDirty").equals("true") || p.get("gitDirty").equals("false"), p.toString());
        assertEquals(7L, ((Number) p.get("seed")).longValue());
    }

    /** Results reproduce bit for bit only on the same kind of CPU, so the provenance names it. */
    @Test
    void shouldNameTheCpu() {
        String cpu = (String) Provenance.collect("c.yaml", 7).get("cpu");
        if (java.nio.file.Files.isReadable(java.nio.file.Path.of("/proc/cpuinfo"))) {
            assertTrue(cpu.matches(".+ \\(family \\S+, model \\S+, (avx512f|avx2|avx|no avx)\\)"), cpu);
        } else {
            assertEquals("unknown", cpu);
        }
    }

    /** The JIT as provenance.json names it: what lgc launch's C1 and a user's own flags look like there. */
    @Test
    void namesTheJitAndItsThresholds() {
        assertEquals("C1 only (TieredStopAtLevel=1, CompileThresholdScaling=0.01)", Provenance.jit(true, 1, "0.01"));
        assertEquals("C1 only (TieredStopAtLevel=1)", Provenance.jit(true, 1, "1.000000"));
        assertEquals("tiered", Provenance.jit(true, 4, "1.000000"));
        assertEquals("tiered (CompileThresholdScaling=0.5)", Provenance.jit(true, 4, "0.5"));
        assertEquals("C2 only", Provenance.jit(false, 4, "1.0"));
        assertTrue(Provenance.jit().startsWith("tiered") || Provenance.jit().startsWith("C1 only"),
                Provenance.jit());
    }
}
