package io.lgc4j.bench;

import io.lgc4j.core.layout.GradientLayout;
import io.lgc4j.core.layout.LayerPolicy;
import io.lgc4j.core.layout.ParamBlock;
import io.lgc4j.core.train.ReplicaModel;
import io.lgc4j.data.FashionMnist;
import io.lgc4j.data.LabeledImages;
import io.lgc4j.data.PixelPreprocessing;
import io.lgc4j.runner.Nd4jEnvironment;
import io.lgc4j.zoo.ModelZoo;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A tiny real recording: the small CNN on Fashion-MNIST, K = 4, 2 dense warm-up steps and 3 recorded steps. The
 * compact vectors have μ = Σ ceil(0.001·n_l) over the LEARNED blocks, hold finite nonzero values in every block's
 * segment, and read back from the file as written.
 */
class CompactVectorRecorderTest {

    private static final CompactVectorRecorder.Settings TINY =
            new CompactVectorRecorder.Settings(4, 32, 2, 3, 0.001, 7);

    @Test
    void shouldRecordTheCompactVectorsOfTheLearnedBlocks(@TempDir Path dir) throws IOException {
        Nd4jEnvironment.configure();
        LabeledImages train = FashionMnist.load(FashionMnist.DEFAULT_DIR, FashionMnist.Split.TRAIN, 512,
                PixelPreprocessing.STANDARDIZE);
        MultiLayerNetwork net = ModelZoo.smallCnn(TINY.seed(), ModelZoo.defaultUpdater());
        GradientLayout layout = GradientLayout.of(net);
        int expectedMu = 0;
        for (ParamBlock b : layout.blocks(LayerPolicy.LEARNED)) {
            expectedMu += (int) Math.ceil(0.001 * b.length());
        }
        // conv2/b 50 -> 1, conv2/W 25,000 -> 25, fc1/W 400,000 -> 400, fc1/b 500 -> 1
        assertEquals(427, expectedMu);
        assertEquals(expectedMu, CompactVectorRecorder.compactLength(layout, 0.001));

        Path file = dir.resolve("cv.bin");
        List<int[]> leaders = new ArrayList<>();
        CompactVectorRecorder.Summary summary;
        try (CompactVectorFile.Writer writer = CompactVectorFile.create(file, 4, expectedMu, 3)) {
            summary = CompactVectorRecorder.record(ReplicaModel.wrap(net), train, TINY, (step, leader, compacts) -> {
                leaders.add(new int[] {step, leader});
                writer.append(leader, compacts);
            }, new PrintStream(PrintStream.nullOutputStream()));
        }

        assertEquals(expectedMu, summary.mu());
        assertEquals(5, summary.meanLoss().length);
        assertEquals(List.of("conv2/b", "conv2/W", "fc1/W", "fc1/b"), // DL4J keeps a convolution's bias first
                summary.shares().stream().map(s -> s.block().qualifiedName()).toList());
        CompactVectorFile.Recording r = CompactVectorFile.readAll(file);
        assertEquals(new CompactVectorFile.Header(4, expectedMu, 3), r.header());
        for (int s = 0; s < 3; s++) {
            assertEquals(s, leaders.get(s)[0]);
            assertEquals(leaders.get(s)[1], r.steps().get(s).leader());
            float[][] compacts = r.steps().get(s).compacts();
            int leader = r.steps().get(s).leader();
            for (int k = 0; k < 4; k++) {
                double sumSquares = 0;
                for (float v : compacts[k]) {
                    assertTrue(Float.isFinite(v), "finite");
                    sumSquares += (double) v * v;
                }
                assertNotEquals(0.0, sumSquares, "step " + s + ", rank " + k + ": all zeros");
            }
            // The leader's values are its top-k by magnitude: in every block's segment, none is zero (another rank
            // may hold a zero where, say, a ReLU unit was dead for its batch)
            int position = 0;
            for (CompactVectorRecorder.Share share : summary.shares()) {
                for (int i = position; i < position + share.selected(); i++) {
                    assertNotEquals(0f, compacts[leader][i], "step " + s + ", leader " + leader + ", block "
                            + share.block().qualifiedName() + ", position " + i);
                }
                position += share.selected();
            }
        }
    }

    /**
     * With a low-pass memory the first recorded step offers what plain error feedback offers (both memories start at
     * zero, so a rank offers its gradient); from the second step on, the filtered memory holds (1 − β)·m + β·(m + g −
     * sent) and the offers differ.
     */
    @Test
    void shouldFilterTheMemoryAsTheTrainingRunsDo() throws IOException {
        Nd4jEnvironment.configure();
        LabeledImages train = FashionMnist.load(FashionMnist.DEFAULT_DIR, FashionMnist.Split.TRAIN, 512,
                PixelPreprocessing.STANDARDIZE);
        List<float[][]> plain = record(train, TINY);
        List<float[][]> filtered = record(train, new CompactVectorRecorder.Settings(4, 32, 2, 3, 0.001, 7, 0.1));
        for (int k = 0; k < 4; k++) {
            assertTrue(java.util.Arrays.equals(plain.get(0)[k], filtered.get(0)[k]), "step 0, rank " + k);
        }
        assertTrue(!java.util.Arrays.equals(plain.get(2)[0], filtered.get(2)[0]), "step 2 must differ");
        List<float[][]> one = record(train, new CompactVectorRecorder.Settings(4, 32, 2, 3, 0.001, 7, 1.0));
        for (int s = 0; s < 3; s++) {
            for (int k = 0; k < 4; k++) {
                assertTrue(java.util.Arrays.equals(plain.get(s)[k], one.get(s)[k]), "β = 1 is plain: step " + s);
            }
        }
    }

    private static List<float[][]> record(LabeledImages train, CompactVectorRecorder.Settings settings)
            throws IOException {
        List<float[][]> steps = new ArrayList<>();
        CompactVectorRecorder.record(ReplicaModel.wrap(ModelZoo.smallCnn(settings.seed(), ModelZoo.defaultUpdater())),
                train, settings, (step, leader, compacts) -> steps.add(compacts),
                new PrintStream(PrintStream.nullOutputStream()));
        return steps;
    }

    @Test
    void shouldRejectSettingsOutOfRangeNamingTheOption() {
        assertEquals("lowPass must be in (0, 1], got 0.0", assertThrows(IllegalArgumentException.class,
                () -> new CompactVectorRecorder.Settings(4, 32, 2, 3, 0.001, 1, 0)).getMessage());
        assertEquals("workers must be in [1, 65536], got 0", assertThrows(IllegalArgumentException.class,
                () -> new CompactVectorRecorder.Settings(0, 32, 2, 3, 0.001, 1)).getMessage());
        assertEquals("ratio must be in (0, 1], got 0.0", assertThrows(IllegalArgumentException.class,
                () -> new CompactVectorRecorder.Settings(4, 32, 2, 3, 0, 1)).getMessage());
        assertEquals("steps must be >= 1, got 0", assertThrows(IllegalArgumentException.class,
                () -> new CompactVectorRecorder.Settings(4, 32, 2, 0, 0.001, 1)).getMessage());
    }
}
