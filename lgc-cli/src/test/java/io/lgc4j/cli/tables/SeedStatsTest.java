package io.lgc4j.cli.tables;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

class SeedStatsTest {

    @Test
    void shouldComputeMeanSampleDeviationAndStandardError() {
        SeedStats s = SeedStats.of(1, 2, 3, 4);
        assertEquals(4, s.n());
        assertEquals(2.5, s.mean(), 1e-12);
        assertEquals(Math.sqrt(5.0 / 3), s.sd(), 1e-12);
        assertEquals(Math.sqrt(5.0 / 3) / 2, s.standardError(), 1e-12);
        assertEquals("2.50 ± 1.29", s.format(2));
    }

    @Test
    void shouldShowASingleRunWithoutSpreadAndNeverCallItATie() {
        SeedStats one = SeedStats.of(88.5);
        assertTrue(Double.isNaN(one.sd()));
        assertEquals("88.50", one.format(2));
        assertFalse(one.ties(SeedStats.of(88.5)), "one seed cannot tell a tie from a difference");
    }

    @Test
    void shouldCallDifferencesUnderTwoStandardErrorsTies() {
        SeedStats a = SeedStats.of(88.0, 88.2, 88.4);           // se 0.1155
        assertTrue(a.ties(SeedStats.of(88.1, 88.3, 88.5)));     // 0.1 apart, 2·se(diff) = 0.327
        assertFalse(a.ties(SeedStats.of(89.0, 89.2, 89.4)));    // 1.0 apart
        assertEquals("no values: a figure needs at least one run",
                assertThrows(IllegalArgumentException.class, SeedStats::of).getMessage());
    }
}
