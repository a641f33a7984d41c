package io.lgc4j.bench;

import io.lgc4j.runner.Nd4jEnvironment;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The autoencoder benchmark prints one timed row per operation and the sizes the autoencoders report. */
class AutoencoderBenchmarkTest {

    @Test
    void shouldPrintEveryOperationAndTheMeasuredSizes() {
        Nd4jEnvironment.configure();
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        AutoencoderBenchmark.run(new PrintStream(bytes, true, StandardCharsets.UTF_8),
                new AutoencoderBenchmark.Settings(List.of(40), 2, 1, 2, 3));
        String out = bytes.toString(StandardCharsets.UTF_8);

        for (AutoencoderBenchmark.Operation op : AutoencoderBenchmark.Operation.values()) {
            assertEquals(2, out.lines().filter(l -> l.startsWith("| " + op.label + " |")).count(),
                    op + ": one timed row and one first-call row\n" + out);
        }
        assertTrue(out.contains("| encode, one rank (ring) |"), out);
        String timed = "\\| encode, one rank \\(ring\\) \\| [0-9.]+ / [0-9.]+ \\| 0.007 \\|";
        assertTrue(out.lines().anyMatch(l -> l.matches(timed)), out);
        assertTrue(out.contains("| latent (floats) | 12 |"), out);
        assertTrue(out.contains("| padded length L (floats) | 48 |"), out);
        // The paper's architecture's weight files, counted by hand in WeightCodecTest (whatever μ): encoder
        // 18 + 202 + 4 × 172,996 = 692,204 bytes; ring decoder 18 + 256 + 4 × 43,733 = 175,206; a PS decoder
        // 18 + 256 + 4 × 43,734 = 175,210, two of them (K = 2) 350,420.
        assertTrue(out.contains("| encoder weights (bytes, WeightCodec) | 692,204 |"), out);
        assertTrue(out.contains("| ring decoder weights (bytes) | 175,206 |"), out);
        assertTrue(out.contains("| PS decoders, all K (bytes) | 350,420 |"), out);
    }

    @Test
    void shouldRejectSettingsNamingTheOption() {
        assertEquals("mu must be a non-empty list of positive lengths, got [1000, 0]",
                assertThrows(IllegalArgumentException.class,
                        () -> new AutoencoderBenchmark.Settings(List.of(1000, 0), 4, 5, 50, 1)).getMessage());
        assertEquals("warmup must be >= 1 (the first run builds the graphs), got 0",
                assertThrows(IllegalArgumentException.class,
                        () -> new AutoencoderBenchmark.Settings(List.of(1000), 4, 0, 50, 1)).getMessage());
    }
}
