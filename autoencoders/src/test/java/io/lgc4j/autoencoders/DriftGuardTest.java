package io.lgc4j.autoencoders;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DriftGuardTest {

    @Test
    void shouldNotTripBeforeTheWindowIsFull() {
        DriftGuard g = new DriftGuard(1.0, 3);
        assertFalse(g.observe(5.0), "a window not yet full never trips");
        assertFalse(g.observe(0.1));
        assertTrue(g.observe(0.2), "mean (5 + 0.1 + 0.2) / 3 = 1.77 > 1");
    }

    @Test
    void shouldTripOnTheMeanOfTheLastWindow() {
        DriftGuard g = new DriftGuard(1.0, 3);
        g.observe(0.5);
        g.observe(0.5);
        assertFalse(g.observe(1.9), "mean 0.97");
        assertTrue(g.observe(0.7), "mean (0.5 + 1.9 + 0.7) / 3 = 1.03");
        assertFalse(g.recovered(0.2));
        assertFalse(g.recovered(0.2), "two of three");
        assertTrue(g.recovered(0.2));
        assertFalse(g.observe(Double.NaN), "the window restarts after a recovery");
        g.observe(0.1);
        assertTrue(g.observe(0.1), "a NaN error counts as infinite");
    }

    @Test
    void shouldRejectBadSettings() {
        assertEquals("bound must be positive and finite and window at least 1, got 0.0 and 3",
                assertThrows(IllegalArgumentException.class, () -> new DriftGuard(0, 3)).getMessage());
    }
}
