package io.lgc4j.lgc;

import io.lgc4j.lgc.DriftGuard.Measurement;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DriftGuardTest {

    @Test
    void shouldNotTripBeforeTheWindowIsFull() {
        DriftGuard g = new DriftGuard(1.0, 3);
        assertFalse(g.observe(new Measurement(5, 1)), "a window not yet full never trips");
        assertFalse(g.observe(new Measurement(0.1, 1)));
        assertTrue(g.observe(new Measurement(0.2, 1)), "(5 + 0.1 + 0.2) / 3 = 1.77 > 1");
    }

    @Test
    void shouldPoolTheWindowsSumsNotAverageItsRatios() {
        DriftGuard g = new DriftGuard(0.9, 3);
        // ratios 3.0, 0.2, 0.2 (mean 1.13 would trip); pooled (0.3 + 2 + 2) / (0.1 + 10 + 10) = 0.21 does not
        g.observe(new Measurement(0.3, 0.1));
        g.observe(new Measurement(2, 10));
        assertFalse(g.observe(new Measurement(2, 10)));
        // then reconstructions no better than nothing: pooled 14 / 30 = 0.47, 22 / 30 = 0.73, then 30 / 30 = 1.0
        assertFalse(g.observe(new Measurement(10, 10)));
        assertFalse(g.observe(new Measurement(10, 10)));
        assertTrue(g.observe(new Measurement(10, 10)));
    }

    @Test
    void shouldRecoverWhenAFullWindowIsBackUnderTheBoundAndRestartAfterwards() {
        DriftGuard g = new DriftGuard(1.0, 3);
        g.observe(new Measurement(0.5, 1));
        g.observe(new Measurement(0.5, 1));
        assertFalse(g.observe(new Measurement(1.9, 1)), "pooled 0.97");
        assertTrue(g.observe(new Measurement(0.7, 1)), "pooled (0.5 + 1.9 + 0.7) / 3 = 1.03");
        assertFalse(g.recovered(new Measurement(0.2, 1)));
        assertFalse(g.recovered(new Measurement(0.2, 1)), "two of three");
        assertTrue(g.recovered(new Measurement(0.2, 1)));
        assertFalse(g.observe(new Measurement(Double.NaN, 1)), "the window restarts after a recovery");
        g.observe(new Measurement(0.1, 1));
        assertTrue(g.observe(new Measurement(0.1, 1)), "a NaN error counts as infinite");
    }

    @Test
    void shouldMeasureAtTheGivenPositionsOrEverywhere() {
        float[] truth = {1, 2, 0, -2};
        float[] approx = {1, 1, 1, 0};
        assertEquals(new Measurement(1 + 1 + 4, 1 + 4 + 0 + 4), DriftGuard.measure(approx, truth, null));
        assertEquals(new Measurement(1 + 4, 4 + 4), DriftGuard.measure(approx, truth, new int[] {1, 3}));
        assertEquals(0.0, new Measurement(0, 0).relative());
        assertEquals(Double.POSITIVE_INFINITY, new Measurement(1, 0).relative());
    }

    @Test
    void samplePositionsShouldBeDistinctAscendingAndAFunctionOfSeedAndStep() {
        int[] a = DriftGuard.samplePositions(42, 7, 100, 10);
        assertArrayEquals(a, DriftGuard.samplePositions(42, 7, 100, 10));
        assertEquals(10, a.length);
        for (int i = 1; i < a.length; i++) {
            assertTrue(a[i] > a[i - 1] && a[i] < 100, java.util.Arrays.toString(a));
        }
        assertFalse(java.util.Arrays.equals(a, DriftGuard.samplePositions(42, 8, 100, 10)), "another step");
        assertArrayEquals(new int[] {0, 1, 2}, DriftGuard.samplePositions(1, 1, 3, 10), "at most mu positions");
    }

    @Test
    void shouldRejectBadSettings() {
        assertEquals("bound must be positive and finite and window at least 1, got 0.0 and 3",
                assertThrows(IllegalArgumentException.class, () -> new DriftGuard(0, 3)).getMessage());
    }
}
