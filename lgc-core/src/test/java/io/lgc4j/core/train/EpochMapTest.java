package io.lgc4j.core.train;

import io.lgc4j.core.data.EpochCursor;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Which epoch each step is in: a run that never changed K, and one resized inside an epoch. */
class EpochMapTest {

    @Test
    void aRunThatNeverChangedKShouldCountEpochsByTheStepAlone() {
        EpochMap fresh = EpochMap.plain(4, 8, 12);
        // resumed at the same K after step 30 (epoch 2, step 6 of 12), with the plan's own T
        EpochMap resumed = EpochMap.resumed(400, 4, 8, 12, 30, EpochMap.derived(30, 4, 12), false);
        for (EpochMap m : List.of(fresh, resumed)) {
            assertTrue(m.isPlain());
            assertEquals(2, m.epochOf(30));
            assertEquals(6, m.partStep(30));
            assertTrue(m.epochEnd(35));
            assertEquals(3, m.epochOf(36));
            assertEquals(36, m.totalSteps(3));
            assertEquals(List.of(), m.before(30));
        }
        // a source whose epoch is not ⌊N/(K·b)⌋ (the estimator's rank-local rows: the smallest partition's): the
        // plan's T, never the examples', counts the epoch a same-K resume goes on in
        EpochMap rankLocal = EpochMap.resumed(1_000_000, 4, 8, 12, 30, EpochMap.derived(30, 4, 12), false);
        assertEquals(12, rankLocal.partSteps(30));
        assertEquals(36, rankLocal.totalSteps(3));
    }

    @Test
    void aRunResizedInsideAnEpochShouldReadTheRestOfItThenWholeEpochs() {
        // N = 100, b = 4: K = 4 read 2 of its 6 steps; at K' = 3 the rest is ⌊68 / 12⌋ = 5 steps, then epochs of 8
        EpochMap m = EpochMap.resumed(100, 3, 4, 8, 2, EpochMap.derived(2, 4, 6), false);
        assertFalse(m.isPlain());
        assertEquals(List.of(new EpochCursor.Part(4, 2)), m.before(2));
        assertEquals(0, m.epochOf(6));
        assertTrue(m.epochEnd(6));
        assertEquals(1, m.epochOf(7));
        assertEquals(List.of(), m.before(7));
        assertEquals(2 + 5 + 8, m.totalSteps(2));
        assertEquals(new EpochCursor(0, List.of(new EpochCursor.Part(4, 2), new EpochCursor.Part(3, 3))),
                m.cursorAt(5));
        assertEquals(EpochCursor.start(1).after(3, 2), m.cursorAt(9));
        // resumed again at K' = 3 from its own cursor after step 5: the same map
        EpochMap again = EpochMap.resumed(100, 3, 4, 8, 5, m.cursorAt(5), false);
        for (int s = 5; s < 15; s++) {
            assertEquals(m.epochOf(s), again.epochOf(s), "epoch of step " + s);
            assertEquals(m.partStep(s), again.partStep(s), "place of step " + s);
        }
        assertEquals(m.totalSteps(2), again.totalSteps(2));
    }

    @Test
    void aSourceThatCannotResplitShouldEndTheEpochAtTheResize() {
        // rank-local rows: K = 4 read 2 of its 6 steps of epoch 0; at K' = 3 (T' = 8) epoch 0 ends at step 2
        EpochMap m = EpochMap.resumed(100, 3, 4, 8, 2, EpochMap.derived(2, 4, 6), true);
        assertTrue(m.endedAtResume());
        assertFalse(m.isPlain());
        assertEquals(1, m.epochOf(2));
        assertEquals(0, m.partStep(2));
        assertEquals(List.of(), m.before(2), "no shard of the cut epoch is opened");
        assertTrue(m.epochEnd(9));
        assertEquals(2, m.epochOf(10));
        assertEquals(2 + 8, m.totalSteps(2));
        assertEquals(EpochCursor.start(1), m.cursorAt(2));
        assertEquals(EpochCursor.start(1).after(3, 3), m.cursorAt(5));
        // its own checkpoints resume it at K' = 3 as it goes on
        EpochMap again = EpochMap.resumed(100, 3, 4, 8, 5, m.cursorAt(5), true);
        assertFalse(again.endedAtResume());
        for (int s = 5; s < 20; s++) {
            assertEquals(m.epochOf(s), again.epochOf(s), "epoch of step " + s);
            assertEquals(m.partStep(s), again.partStep(s), "place of step " + s);
        }
        // at an epoch's first step nothing is cut
        EpochMap boundary = EpochMap.resumed(100, 3, 4, 8, 6, EpochMap.derived(6, 4, 6), true);
        assertFalse(boundary.endedAtResume());
        assertEquals(1, boundary.epochOf(6));
        assertEquals(6 + 8, boundary.totalSteps(2));
    }
}
