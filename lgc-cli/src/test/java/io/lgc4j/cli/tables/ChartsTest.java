package io.lgc4j.cli.tables;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertTrue;

class ChartsTest {

    /** A method run once per seed has one line per seed under the same name: the chart numbers the repeats. */
    @Test
    void linesOfTheSameNameShouldEachBeDrawn(@TempDir Path dir) throws Exception {
        double[] x = {1, 2, 3};
        Path png = dir.resolve("seeds.png");
        Charts.lines("seeds", "s", "accuracy", List.of(new Charts.Line("PowerSGD", x, new double[] {0.5, 0.7, 0.8},
                false), new Charts.Line("PowerSGD", x, new double[] {0.4, 0.7, 0.81}, false),
                new Charts.Line("PowerSGD", x, new double[] {0.5, 0.6, 0.8}, false)), false, png);
        assertTrue(Files.size(png) > 0);
    }
}
