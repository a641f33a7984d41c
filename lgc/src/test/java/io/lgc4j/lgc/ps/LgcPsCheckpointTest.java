package io.lgc4j.lgc.ps;

import io.lgc4j.lgc.LgcControl;
import io.lgc4j.core.checkpoint.CheckpointException;
import io.lgc4j.core.checkpoint.CheckpointPart;
import io.lgc4j.core.layout.GradientLayout;
import io.lgc4j.core.metrics.StepNotes;
import io.lgc4j.core.stage.StageSchedule;
import io.lgc4j.core.train.DryRun;
import io.lgc4j.core.comm.StepTag;
import io.lgc4j.lgc.ps.LgcPsTopology.SupportPolicy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * LGC-PS checkpointed between two steps and resumed on fresh endpoints (K = 3 workers and the server, each through
 * its own part's bytes) goes on exactly as the uninterrupted run: every rank's aggregate, the server's notes (the
 * autoencoder's losses, the drift) and the autoencoder's loss history, bit for bit, whether the checkpoint is taken
 * before the autoencoder's first training step, in the middle of TOP_K, after the switch (weights shipped, a drift
 * check due) or during a fallback. A section that does not fit is refused, naming it.
 */
class LgcPsCheckpointTest {

    private static final int K = 3;
    private static final int N = 1003;
    /** FULL for steps 0-1, TOP_K for 2-7, COMPRESSED from 8 on. */
    private static final StageSchedule STAGES = new StageSchedule(2, 6);
    private static final int STEPS = 16;
    /** A guard that trips at the first check (step 8) and never recovers: every later step is a fallback. */
    private static final LgcControl STRICT = new LgcControl(1e-12, 1, 1, 4, true, true, 1.0);

    /**
     * LENIENT checks at compressed steps 8, 11 and 14 with a window of 2, so a checkpoint at step 10 carries a
     * half-full window and a check count.
     */
    @ParameterizedTest(name = "{0}, checkpoint before step {1}")
    @CsvSource({"LEADER, 2", "LEADER, 5", "LEADER, 10", "OWN, 2", "OWN, 10"})
    void resumedRunShouldEndBitForBitWhereTheUninterruptedRunEnds(SupportPolicy policy, int checkpointAt)
            throws Exception {
        Resumed run = resume(LgcPsTopologyContractTest.lgc(policy), LgcPsTopologyContractTest.lgc(policy),
                checkpointAt);
        assertTrue(run.notes().stream().anyMatch(n -> n.containsKey(StepNotes.AE_DRIFT)), "a check after the resume");
    }

    @Test
    void resumedRunShouldEndBitForBitWhereTheUninterruptedRunEndsDuringAFallback() throws Exception {
        Resumed run = resume(strict(), strict(), 11);
        for (Map<String, Double> n : run.notes()) {
            assertEquals(1.0, n.get(StepNotes.LGC_FALLBACK), "every step after the checkpoint falls back: " + n);
        }
    }

    @Test
    void shouldRefuseAWorkersProtocolStateOfTheWrongLength() throws Exception {
        List<CheckpointPart> parts = savedAtStart();
        parts.set(1, replaced(parts.get(1), "exchange/protocol/state", new byte[] {0, 1, 3}));
        CheckpointException e = assertThrows(CheckpointException.class, () -> restoreFresh(parts));
        assertEquals("section 'exchange/protocol/state' of rank-1.lgcc: expected an int (4 bytes), found 1 byte",
                e.getMessage());
    }

    @Test
    void shouldRefuseAWorkersMemoryOfTheWrongLength() throws Exception {
        List<CheckpointPart> parts = savedAtStart();
        parts.set(0, replaced(parts.get(0), "exchange/memory", new byte[4 * 702]));
        CheckpointException e = assertThrows(CheckpointException.class, () -> restoreFresh(parts));
        assertEquals("section 'exchange/memory' of rank-0.lgcc: expected 703 floats (2,812 bytes), found 2,808 bytes",
                e.getMessage());
    }

    @Test
    void shouldRefuseAServersDecoderOfTheWrongLength() throws Exception {
        List<CheckpointPart> parts = savedAtStart();
        CheckpointPart server = parts.get(K);
        byte[] decoder = server.bytes("service/ae/decoder-1");
        parts.set(K, replaced(server, "service/ae/decoder-1", Arrays.copyOf(decoder, decoder.length - 4)));
        CheckpointException e = assertThrows(CheckpointException.class, () -> restoreFresh(parts));
        assertEquals("section 'service/ae/decoder-1' of server-0.lgcc: expected the PS_DECODER weights ("
                + String.format("%,d", decoder.length) + " bytes), found " + String.format("%,d", decoder.length - 4)
                + " bytes", e.getMessage());
    }

    /** What the resumed run noted, step by step after the checkpoint (each step's notes equal the original's). */
    private record Resumed(List<Map<String, Double>> notes) {
    }

    /**
     * Runs {@code original} to step {@code checkpointAt}, saves every endpoint, restores into {@code resumed} (built
     * the same way) and runs both to {@link #STEPS}, asserting every output and note equal on the way.
     */
    private static Resumed resume(LgcPsTopology original, LgcPsTopology resumed, int checkpointAt) throws Exception {
        StepNotes originalNotes = new StepNotes();
        StepNotes resumedNotes = new StepNotes();
        original.attachNotes(originalNotes);
        resumed.attachNotes(resumedNotes);
        GradientLayout layout = LgcPsTopologyContractTest.mixedLayout(N);
        List<Map<String, Double>> notes = new ArrayList<>();
        try (DryRun a = new DryRun(original, K, layout)) {
            for (int s = 0; s < checkpointAt; s++) {
                a.step(tag(s), inputs(s));
            }
            List<CheckpointPart> parts = a.save();
            try (DryRun b = new DryRun(resumed, K, layout)) {
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
        assertEquals(original.autoencoderLosses(), resumed.autoencoderLosses());
        assertFalse(resumed.autoencoderLosses().isEmpty());
        return new Resumed(notes);
    }

    /** A fresh run's parts before its first step. */
    private static List<CheckpointPart> savedAtStart() throws CheckpointException {
        try (DryRun live = new DryRun(LgcPsTopologyContractTest.lgc(SupportPolicy.LEADER), K,
                LgcPsTopologyContractTest.mixedLayout(N))) {
            return new ArrayList<>(live.save());
        }
    }

    private static void restoreFresh(List<CheckpointPart> parts) throws CheckpointException {
        try (DryRun live = new DryRun(LgcPsTopologyContractTest.lgc(SupportPolicy.LEADER), K,
                LgcPsTopologyContractTest.mixedLayout(N))) {
            live.restore(parts);
        }
    }

    /** {@code part} with section {@code name}'s body replaced, under the same label. */
    static CheckpointPart replaced(CheckpointPart part, String name, byte[] body) throws CheckpointException {
        CheckpointPart.Builder b = CheckpointPart.builder(part.kind());
        for (String section : part.sectionNames()) {
            b.section(section).putBytes(section.equals(name) ? body : part.bytes(section));
        }
        return CheckpointPart.parse(b.build().toBytes(), part.label());
    }

    private static LgcPsTopology strict() {
        return LgcPsTopology.builder().ratio(LgcPsTopologyContractTest.RATIO).spec(LgcPsTopologyContractTest.SMALL)
                .seed(LgcPsTopologyContractTest.SEED).control(STRICT).build();
    }

    private static StepTag tag(int step) {
        return new StepTag(step, STAGES.stageAt(step));
    }

    /** Step {@code step}'s K gradients of N Gaussian floats. */
    private static float[][] inputs(int step) {
        Random random = new Random(1000 + step);
        float[][] g = new float[K][N];
        for (float[] rank : g) {
            for (int i = 0; i < N; i++) {
                rank[i] = (float) random.nextGaussian();
            }
        }
        return g;
    }
}
