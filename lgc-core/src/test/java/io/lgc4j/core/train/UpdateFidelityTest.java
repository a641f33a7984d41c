package io.lgc4j.core.train;

import io.lgc4j.core.layout.GradientLayout;
import io.lgc4j.core.layout.LayerPolicy;
import io.lgc4j.core.layout.ParamBlock;
import io.lgc4j.core.metrics.StepNotes;
import io.lgc4j.core.train.RunReport.Offer;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The diagnostic mode's recorder and measurement on hand-made offers, with every figure worked out by hand. */
class UpdateFidelityTest {

    /** Blocks: DENSE 3, LEARNED 70 (its bits cross a word), TOP_K 5, LEARNED 4. */
    private static final GradientLayout MIXED = layout(new int[] {3, 70, 5, 4}, LayerPolicy.DENSE,
            LayerPolicy.LEARNED, LayerPolicy.TOP_K, LayerPolicy.LEARNED);

    /** One LEARNED block of 4. */
    private static final GradientLayout FOUR = layout(new int[] {4}, LayerPolicy.LEARNED);

    private static GradientLayout layout(int[] lengths, LayerPolicy... policies) {
        List<ParamBlock> blocks = new ArrayList<>();
        int offset = 0;
        for (int i = 0; i < lengths.length; i++) {
            blocks.add(new ParamBlock(i, i, "layer" + i, "W", offset, lengths[i], new long[] {lengths[i]},
                    policies[i]));
            offset += lengths[i];
        }
        return GradientLayout.ofBlocks(blocks);
    }

    private static boolean taken(Offer o, int i) {
        return (o.taken()[i >>> 6] & (1L << i)) != 0;
    }

    @Test
    void aStepWithoutOfferShouldOfferTheWholeGradient() {
        UpdateFidelity.Recorder r = new UpdateFidelity(MIXED).recorder();
        float[] gradient = new float[82];
        for (int i = 0; i < gradient.length; i++) {
            gradient[i] = i;
        }
        r.begin(gradient);
        Offer o = r.offer();
        assertFalse(r.shown());
        assertEquals(74, o.values().length);
        assertEquals(3f, o.values()[0]);      // block 1 starts at element 3
        assertEquals(78f, o.values()[70]);    // block 3 starts at element 78
        for (int i = 0; i < 74; i++) {
            assertTrue(taken(o, i), "position " + i);
        }
        assertEquals(0, o.taken()[1] >>> 10, "no bit past position 73");
    }

    @Test
    void aCompressorsOfferShouldReplaceItsBlockOnlyAndIgnoreBlocksThatAreNotLearned() {
        UpdateFidelity.Recorder r = new UpdateFidelity(MIXED).recorder();
        r.begin(new float[82]);
        float[] compensated = new float[100];
        for (int i = 0; i < compensated.length; i++) {
            compensated[i] = -i;
        }
        ParamBlock learned = MIXED.blocks().get(1);
        r.offered(learned, compensated, 10, new int[] {0, 65, 99}, 2); // only the first two count
        r.offered(MIXED.blocks().get(2), compensated, 0, new int[] {1}, 1); // TOP_K: not measured
        assertTrue(r.shown());
        Offer o = r.offer();
        assertEquals(-10f, o.values()[0]);
        assertEquals(-79f, o.values()[69]);
        assertEquals(0f, o.values()[70], "block 3 keeps the gradient");
        for (int i = 0; i < 70; i++) {
            assertEquals(i == 0 || i == 65, taken(o, i), "position " + i);
        }
        for (int i = 70; i < 74; i++) {
            assertTrue(taken(o, i), "block 3 stays taken whole: position " + i);
        }
        r.begin(new float[82]);
        assertFalse(r.shown(), "a new step starts without an offer");
    }

    @Test
    void shouldCompareTheAppliedUpdateWithTheMeanOfTheOffers() {
        UpdateFidelity f = new UpdateFidelity(FOUR);
        // mean m = [2, 1, 0, 2]; the union support S = {0, 1}: m_S = [2, 1], ||m_S||² = 5, ||m||² = 9
        List<Offer> offers = List.of(new Offer(new float[] {1, 2, 0, 0}, new long[] {0b11}),
                new Offer(new float[] {3, 0, 0, 4}, new long[] {0b01}));

        Map<String, Double> exact = f.measure(offers, new float[] {2, 1, 5, 0});
        assertEquals(0.0, exact.get(StepNotes.APPLIED_REL_ERR), 1e-15);
        assertEquals(1.0, exact.get(StepNotes.APPLIED_COS), 1e-15);
        assertEquals(5 / (Math.sqrt(30) * 3), exact.get(StepNotes.APPLIED_COS_ALL), 1e-15);
        assertEquals(Math.sqrt(5.0 / 9), exact.get(StepNotes.OFFER_SHARE), 1e-15);

        Map<String, Double> lossy = f.measure(offers, new float[] {1, 0, 0, 0});
        assertEquals(Math.sqrt(2.0 / 5), lossy.get(StepNotes.APPLIED_REL_ERR), 1e-15);
        assertEquals(2 / Math.sqrt(5), lossy.get(StepNotes.APPLIED_COS), 1e-15);
        assertEquals(2 / 3.0, lossy.get(StepNotes.APPLIED_COS_ALL), 1e-15);

        Map<String, Double> nothing = f.measure(offers, new float[4]);
        assertEquals(1.0, nothing.get(StepNotes.APPLIED_REL_ERR));
        assertEquals(0.0, nothing.get(StepNotes.APPLIED_COS));
        assertEquals(0.0, nothing.get(StepNotes.APPLIED_COS_ALL));
    }

    @Test
    void shouldLeaveOutWhatItCannotDefine() {
        UpdateFidelity f = new UpdateFidelity(FOUR);
        // nothing taken: no support, so no error or cosine on it
        Map<String, Double> noSupport = f.measure(List.of(new Offer(new float[] {1, 0, 0, 0}, new long[] {0})),
                new float[4]);
        assertEquals(Map.of(StepNotes.APPLIED_COS_ALL, 0.0, StepNotes.OFFER_SHARE, 0.0), noSupport);
        // a zero mean: nothing to compare with
        assertEquals(Map.of(), f.measure(List.of(new Offer(new float[4], new long[] {0b1111})), new float[4]));
        assertFalse(new UpdateFidelity(layout(new int[] {4}, LayerPolicy.TOP_K)).measurable());
    }

    @Test
    void anOfferShouldSurviveTheNextStep() {
        UpdateFidelity.Recorder r = new UpdateFidelity(FOUR).recorder();
        r.begin(new float[] {1, 2, 3, 4});
        Offer first = r.offer();
        r.begin(new float[] {5, 6, 7, 8});
        assertArrayEquals(new float[] {1, 2, 3, 4}, first.values());
    }
}
