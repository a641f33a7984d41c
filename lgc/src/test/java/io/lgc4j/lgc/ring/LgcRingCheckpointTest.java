package io.lgc4j.lgc.ring;

import io.lgc4j.lgc.autoencoder.AeTraining;
import io.lgc4j.lgc.autoencoder.AutoencoderSpec;
import io.lgc4j.lgc.LgcControl;
import io.lgc4j.core.checkpoint.CheckpointException;
import io.lgc4j.core.checkpoint.CheckpointPart;
import io.lgc4j.core.codec.IndexCodecs;
import io.lgc4j.core.layout.GradientLayout;
import io.lgc4j.core.layout.LayerPolicy;
import io.lgc4j.core.layout.ParamBlock;
import io.lgc4j.core.metrics.StepNotes;
import io.lgc4j.core.stage.StageSchedule;
import io.lgc4j.core.train.DryRun;
import io.lgc4j.core.comm.StepTag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * LGC-RAR checkpointed between two steps and resumed on fresh ranks (K = 3, each through its own part's bytes) goes
 * on exactly as the uninterrupted run: every rank's aggregate and the notes (the trainer's losses, the drift), bit
 * for bit, whether the checkpoint is taken before the autoencoder's first training step, in the middle of TOP_K,
 * after the switch (weights shipped to every rank, a drift check due) or during a fallback. A section that does not
 * fit is refused, naming it.
 */
class LgcRingCheckpointTest {

    /** Two stride-2 convolutions of 4 filters, a latent of 2 channels. */
    private static final AutoencoderSpec SMALL = new AutoencoderSpec(List.of(4, 4), 2, 3, 2, List.of(4, 4),
            List.of(2, 2), 0.01);
    /** Checks at compressed steps 8, 11 and 14 with a window of 2; never trips. */
    private static final LgcControl LENIENT = new LgcControl(1e9, 2, 3, 4, true, true, 0.1);
    /** Trips at the first check (step 8) and never recovers: every later step is a fallback. */
    private static final LgcControl STRICT = new LgcControl(1e-12, 1, 1, 4, true, true, 1.0);
    private static final int K = 3;
    private static final int N = 1003;
    /** FULL for steps 0-1, TOP_K for 2-7, COMPRESSED from 8 on. */
    private static final StageSchedule STAGES = new StageSchedule(2, 6);
    private static final int STEPS = 16;

    @ParameterizedTest(name = "checkpoint before step {0}")
    @ValueSource(ints = {2, 5, 10})
    void resumedRunShouldEndBitForBitWhereTheUninterruptedRunEnds(int checkpointAt) throws Exception {
        List<Map<String, Double>> notes = resume(LENIENT, checkpointAt);
        assertTrue(notes.stream().anyMatch(n -> n.containsKey(StepNotes.AE_DRIFT)), "a check after the resume");
    }

    @Test
    void resumedRunShouldEndBitForBitWhereTheUninterruptedRunEndsDuringAFallback() throws Exception {
        List<Map<String, Double>> notes = resume(STRICT, 11);
        for (Map<String, Double> n : notes) {
            assertEquals(1.0, n.get(StepNotes.LGC_FALLBACK), "every step after the checkpoint falls back: " + n);
            assertTrue(n.get(StepNotes.AE_RECONSTRUCTION) > 0, "the trainer trains again: " + n);
        }
    }

    @Test
    void shouldRefuseATrainersHistoryOfTheWrongLength() throws Exception {
        List<CheckpointPart> parts = savedAtStart();
        byte[] twoStepsOneLoss = ByteBuffer.allocate(4 + 3 * 8).order(ByteOrder.LITTLE_ENDIAN).putInt(2)
                .putDouble(0.5).putDouble(0).putDouble(0.5).array();
        parts.set(0, replaced(parts.get(0), "exchange/trainer/history", twoStepsOneLoss));
        CheckpointException e = assertThrows(CheckpointException.class, () -> restoreFresh(parts));
        assertEquals("section 'exchange/trainer/history' of rank-0.lgcc: expected the losses of 2 steps (48 bytes "
                + "after the count), found 24 bytes", e.getMessage());
    }

    @Test
    void shouldRefuseARanksDecoderOfTheWrongLength() throws Exception {
        List<CheckpointPart> parts = savedAtStart();
        byte[] decoder = parts.get(2).bytes("exchange/ae/decoder");
        parts.set(2, replaced(parts.get(2), "exchange/ae/decoder", Arrays.copyOf(decoder, decoder.length + 4)));
        CheckpointException e = assertThrows(CheckpointException.class, () -> restoreFresh(parts));
        assertEquals("section 'exchange/ae/decoder' of rank-2.lgcc: expected the RING_DECODER weights ("
                + String.format("%,d", decoder.length) + " bytes), found " + String.format("%,d", decoder.length + 4)
                + " bytes", e.getMessage());
    }

    /**
     * Runs LGC-RAR under {@code control} to step {@code checkpointAt}, saves every rank, restores into ranks of a
     * topology built the same way and runs both to {@link #STEPS}, asserting every output and note equal on the
     * way; returns the resumed run's notes, step by step.
     */
    private static List<Map<String, Double>> resume(LgcControl control, int checkpointAt) throws Exception {
        LgcRingTopology original = topology(control);
        LgcRingTopology resumed = topology(control);
        StepNotes originalNotes = new StepNotes();
        StepNotes resumedNotes = new StepNotes();
        original.attachNotes(originalNotes);
        resumed.attachNotes(resumedNotes);
        List<Map<String, Double>> notes = new ArrayList<>();
        try (DryRun a = new DryRun(original, K, layout())) {
            for (int s = 0; s < checkpointAt; s++) {
                a.step(tag(s), inputs(s));
            }
            List<CheckpointPart> parts = a.save();
            try (DryRun b = new DryRun(resumed, K, layout())) {
                b.restore(parts);
                for (int s = checkpointAt; s < STEPS; s++) {
                    float[][] expected = a.step(tag(s), inputs(s));
                    float[][] actual = b.step(tag(s), inputs(s));
                    for (int r = 0; r < K; r++) {
                        assertTrue(Arrays.equals(expected[r], actual[r]), "step " + s + ", rank " + r);
                    }
                    Map<String, Double> n = resumedNotes.take(s);
                    assertEquals(originalNotes.take(s), n, "notes of step " + s);
                    notes.add(n);
                }
            }
        }
        return notes;
    }

    /** A fresh run's parts before its first step. */
    private static List<CheckpointPart> savedAtStart() throws CheckpointException {
        try (DryRun live = new DryRun(topology(LENIENT), K, layout())) {
            return new ArrayList<>(live.save());
        }
    }

    private static void restoreFresh(List<CheckpointPart> parts) throws CheckpointException {
        try (DryRun live = new DryRun(topology(LENIENT), K, layout())) {
            live.restore(parts);
        }
    }

    /** {@code part} with section {@code name}'s body replaced, under the same label. */
    private static CheckpointPart replaced(CheckpointPart part, String name, byte[] body) throws CheckpointException {
        CheckpointPart.Builder b = CheckpointPart.builder(part.kind());
        for (String section : part.sectionNames()) {
            b.section(section).putBytes(section.equals(name) ? body : part.bytes(section));
        }
        return CheckpointPart.parse(b.build().toBytes(), part.label());
    }

    private static LgcRingTopology topology(LgcControl control) {
        return new LgcRingTopology(0.05, IndexCodecs.defaultCodec(), SMALL, AeTraining.DEFAULT, 42, control);
    }

    /** A DENSE block of 300, a LEARNED block of 500 and a TOP_K block of the rest. */
    private static GradientLayout layout() {
        return GradientLayout.ofBlocks(List.of(
                new ParamBlock(0, 0, "layer0", "W", 0, 300, new long[] {300}, LayerPolicy.DENSE),
                new ParamBlock(1, 1, "layer1", "W", 300, 500, new long[] {500}, LayerPolicy.LEARNED),
                new ParamBlock(2, 2, "layer2", "W", 800, N - 800, new long[] {N - 800}, LayerPolicy.TOP_K)));
    }

    private static StepTag tag(int step) {
        return new StepTag(step, STAGES.stageAt(step));
    }

    /** Step {@code step}'s K gradients of N Gaussian floats. */
    private static float[][] inputs(int step) {
        Random random = new Random(2000 + step);
        float[][] g = new float[K][N];
        for (float[] rank : g) {
            for (int i = 0; i < N; i++) {
                rank[i] = (float) random.nextGaussian();
            }
        }
        return g;
    }
}
