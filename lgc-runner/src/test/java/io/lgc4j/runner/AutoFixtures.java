package io.lgc4j.runner;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The candidates the {@code compressor: auto} tests choose among: the dense ring, and top-k on a parameter server
 * (one server process). Without evidence for the test's model only the ring, of dense's math, can be chosen, so a
 * test knows the choice and still starts a server process the choice has no use for.
 */
public final class AutoFixtures {

    private AutoFixtures() {
    }

    /** Writes {@code dir/candidates.yaml} and returns it. */
    public static Path candidates(Path dir) throws IOException {
        return Files.writeString(dir.resolve("candidates.yaml"), """
                candidates:
                  - {id: dense-ring, label: Dense ring, config: {topology: {type: ring}}}
                  - {id: ps-topk, label: Top-k on a PS, config: {topology: {type: ps},
                     compressor: {type: topk, ratio: 0.01}, stages: {fullIterations: 4}}}
                """);
    }
}
