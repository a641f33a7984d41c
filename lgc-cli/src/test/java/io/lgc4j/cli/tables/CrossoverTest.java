package io.lgc4j.cli.tables;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Fitting T = a + b / rate to times at several link rates, and where two methods' lines cross. */
class CrossoverTest {

    private static final double[] RATES = {20_000, 95.6, 9.6};

    private static double[] times(double a, double b) {
        double[] t = new double[RATES.length];
        for (int i = 0; i < t.length; i++) {
            t[i] = a + b / RATES[i];
        }
        return t;
    }

    @Test
    void shouldRecoverTheSecondsAndMegabitsOfAnExactLine() {
        Crossover.Fit fit = Crossover.fit(RATES, times(80, 2_000));
        assertEquals(80, fit.a(), 1e-9);
        assertEquals(2_000, fit.b(), 1e-6);
        assertEquals(0, fit.maxRelResidual(), 1e-12);
        assertEquals(3, fit.points());
        assertEquals(80 + 2_000 / 50.0, fit.at(50), 1e-9);
    }

    @Test
    void shouldSkipARateWhereTheTargetWasNotReachedAndRefuseFewerThanTwoPoints() {
        double[] t = times(10, 100);
        t[2] = Double.NaN;
        assertEquals(2, Crossover.fit(RATES, t).points());
        t[1] = Double.NaN;
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Crossover.fit(RATES, t));
        assertEquals("a crossover needs times at two or more different rates, found 1 point(s)", e.getMessage());
    }

    @Test
    void shouldSayOnWhichSideOfTheCrossingAMethodIsFaster() {
        Crossover.Fit dense = Crossover.fit(RATES, times(80, 3_000));
        // slower on fast links (more fixed seconds), fewer megabits: faster below (3000 - 500) / (120 - 80) = 62.5
        Crossover.Result compressed = Crossover.against(Crossover.fit(RATES, times(120, 500)), dense);
        assertEquals(Crossover.Side.FASTER_BELOW, compressed.side());
        assertEquals(62.5, compressed.mbitPerSecond(), 1e-6);
        assertEquals("faster below 62.5 Mbit/s", compressed.describe());
        Crossover.Result moreBytes = Crossover.against(Crossover.fit(RATES, times(40, 6_000)), dense);
        assertEquals("faster above 75.0 Mbit/s", moreBytes.describe());   // (3000 - 6000) / (40 - 80)
        assertEquals("faster at every rate", Crossover.against(Crossover.fit(RATES, times(60, 1_000)), dense)
                .describe());
        assertEquals("slower at every rate", Crossover.against(Crossover.fit(RATES, times(90, 4_000)), dense)
                .describe());
        assertEquals("slower at every rate", Crossover.against(dense, dense).describe());
    }
}
