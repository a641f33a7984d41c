package io.lgc4j.lgc.autoencoder;

import org.junit.jupiter.api.Test;
import org.nd4j.autodiff.samediff.SDVariable;
import org.nd4j.autodiff.samediff.SameDiff;
import org.nd4j.linalg.api.buffer.DataType;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Building an autoencoder's gradient graph prints nothing: SameDiff's "Added differentiated op ..." lines (a bare
 * System.out.println in ND4J) never reach the console.
 */
class QuietGradientsTest {

    /** What {@code body} printed to System.out; System.out is restored afterwards. */
    private static String stdoutOf(Runnable body) {
        PrintStream original = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            body.run();
        } finally {
            System.setOut(original);
        }
        return captured.toString(StandardCharsets.UTF_8);
    }

    private static SameDiff smallGraph() {
        SameDiff sd = SameDiff.create();
        SDVariable x = sd.placeHolder("x", DataType.FLOAT, 2, 3);
        SDVariable w = sd.var("w", DataType.FLOAT, 3, 1);
        x.mmul(w).mul(x.mmul(w)).sum().rename("loss");
        sd.setLossVariables("loss");
        return sd;
    }

    @Test
    void sameDiffItselfShouldPrintTheLinesThisGuardsAgainst() {
        // the test below is only meaningful while ND4J still prints them
        String out = stdoutOf(() -> smallGraph().createGradFunction());
        assertTrue(out.contains(QuietGradients.NOISE), out);
    }

    @Test
    void buildingAGradientFunctionQuietlyShouldPrintNothingAndRestoreStdout() {
        PrintStream before = System.out;
        String out = stdoutOf(() -> QuietGradients.build(smallGraph()));
        assertFalse(out.contains("differentiated"), out);
        assertSame(before, System.out);
    }

    @Test
    void trainingEitherAutoencoderShouldPrintNoDifferentiatedOpLines() {
        SyntheticGradients data = new SyntheticGradients(64, 3, 0.2, 7);
        Consumer<AutoencoderTrainer> twoSteps = t -> {
            t.step(data.next());
            t.step(data.next());
        };
        String ps = stdoutOf(() -> twoSteps.accept(AutoencoderTrainer.ps(
                new PsAutoencoder(AutoencoderSpec.PAPER, 64, 3, 0.1, AeTraining.DEFAULT, 5), 6)));
        String ring = stdoutOf(() -> twoSteps.accept(AutoencoderTrainer.ring(
                new RingAutoencoder(AutoencoderSpec.PAPER, 64, 3, AeTraining.DEFAULT, 5), 6)));
        assertFalse(ps.contains("differentiated"), ps);
        assertFalse(ring.contains("differentiated"), ring);
    }
}
