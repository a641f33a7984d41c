package io.lgc4j.bench;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code lgc bench compressors} at its smallest: every method's rows, the payload sizes, the PyTorch rows' fate. */
class CompressorBenchmarkTest {

    @Test
    void shouldPrintEveryMethodsOperationsAndPayloads() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        CompressorBenchmark.run(new PrintStream(bytes, true, StandardCharsets.UTF_8), 1, 2, "/nonexistent/python3");
        String out = bytes.toString(StandardCharsets.UTF_8);
        for (String row : new String[] {"| Sparse GD (top-k 0.1 %) | select (top-k, error feedback) |",
            "| PowerSGD r = 1 | round 1: M = memory + g, P = M·Q |", "| PowerSGD r = 4 |",
            "| LGC autoencoder, μ = 427 | encode, one rank (ring) |",
            // LeNet at rank 2 as PyTorch plans it: P 2·(50 + 500 + 10), plain 50 + 500 + 10, Q 2·(500 + 800 + 500)
            "21,120 (P 1,120 + plain 560 + Q 3,600 floats)",
            "PyTorch rows skipped: /nonexistent/python3 not found"}) {
            assertTrue(out.contains(row), "missing " + row + " in\n" + out);
        }
    }
}
