package io.lgc4j.core.compress;

import io.lgc4j.core.settings.ResolvedConfig;
import io.lgc4j.core.settings.SettingsException;
import io.lgc4j.core.stage.Stage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Each compressor's settings record: checks naming the component, and the compressor describing itself by it. */
class CompressorSettingsTest {

    private static void rejects(String key, String message, Executable build) {
        SettingsException e = assertThrows(SettingsException.class, build);
        assertEquals(key, e.key());
        assertEquals(message, e.getMessage());
    }

    @Test
    void shouldNameTheComponentThatIsOutOfRange() {
        rejects("ratio", "ratio must be > 0, found 0.0", () -> new TopKCompressor.Settings(0, 0));
        rejects("ratio", "ratio must be > 0, found NaN", () -> new TopKCompressor.Settings(Double.NaN, 0));
        rejects("warmupSteps", "warmupSteps must be >= 0, found -1", () -> new TopKCompressor.Settings(0.1, -1));
        rejects("momentum", "momentum must be in [0, 1), found 1.0", () -> new DgcCompressor.Settings(0.1, 1, 0, 0));
        rejects("clipNorm", "clipNorm must be finite, found Infinity",
                () -> new DgcCompressor.Settings(0.1, 0.9, Double.POSITIVE_INFINITY, 0));
        rejects("warmupSteps", "warmupSteps must be >= 0, found -2", () -> new DgcCompressor.Settings(0.1, 0.9, 0, -2));
        rejects("lowPass", "lowPass must be <= 1.0, found 1.5", () -> new ScaleComCompressor.Settings(0.1, 1.5));
        rejects("rows", "rows must be odd, found 4", () -> new S2SketchCompressor.Shape(4, 4, 8));
        rejects("columnsPerSelected", "columnsPerSelected must be > 0, found 0.0",
                () -> new S2SketchCompressor.Shape(3, 0, 8));
        rejects("groupSize", "groupSize must be >= 1, found 0", () -> new S2SketchCompressor.Shape(3, 4, 0));
        rejects("sketch", "sketch is required", () -> new S2SketchCompressor.Settings(0.1, null));
        rejects("ratio", "ratio must be <= 1.0, found 1.5", () -> new RandomKCompressor.Settings(1.5));
    }

    @Test
    void shouldRejectALearnedRatioOutsideZeroToOneInEveryCompressorThatHasOne() {
        for (double bad : new double[] {0, -0.1, 1.5, Double.NaN}) {
            String message = "learnedRatio must be in (0, 1], found " + bad;
            rejects("learnedRatio", message, () -> new TopKCompressor.Settings(0.1, 0, bad));
            rejects("learnedRatio", message, () -> new DgcCompressor.Settings(0.1, 0.9, 0, 0, bad));
            rejects("learnedRatio", message, () -> new ScaleComCompressor.Settings(0.1, 0.1, bad));
            rejects("learnedRatio", message, () -> new RandomKCompressor.Settings(0.1, bad));
        }
        // the ratio is checked first, as the components come
        rejects("ratio", "ratio must be > 0, found 0.0", () -> new RandomKCompressor.Settings(0, 2));
    }

    /** From a configuration: learnedRatio as given, or, absent, the ratio; out of range, named by its dotted key. */
    @Test
    void shouldBindTheLearnedRatioOrTakeTheRatioWhenItIsAbsent() {
        ResolvedConfig without = ResolvedConfig.of(Map.of("compressor", Map.of("ratio", 0.01, "warmupSteps", 0,
                "momentum", 0.9, "clipNorm", 0.0, "lowPass", 0.1)));
        assertEquals(new TopKCompressor.Settings(0.01, 0, 0.01), new TopKCompressor.Provider().settings(without));
        assertEquals(new DgcCompressor.Settings(0.01, 0.9, 0.0, 0, 0.01), new DgcCompressor.Provider()
                .settings(without));
        assertEquals(new ScaleComCompressor.Settings(0.01, 0.1, 0.01), new ScaleComCompressor.Provider()
                .settings(without));
        // random-k takes the memory filter of the section (a YAML config always has one: 0.1 by default) ...
        assertEquals(new RandomKCompressor.Settings(0.01, 0.01, 0.1), new RandomKCompressor.Provider()
                .settings(without));
        ResolvedConfig with = ResolvedConfig.of(Map.of("compressor", Map.of("ratio", 0.01, "learnedRatio", 0.04)));
        // ... and without one, plain error feedback
        assertEquals(new RandomKCompressor.Settings(0.01, 0.04, 1.0), new RandomKCompressor.Provider().settings(with));
        rejects("lowPass", "lowPass must be > 0, found 0.0", () -> new RandomKCompressor.Settings(0.1, 0.1, 0));
        ResolvedConfig bad = ResolvedConfig.of(Map.of("compressor", Map.of("ratio", 0.01, "learnedRatio", 2)));
        rejects("compressor.learnedRatio", "compressor.learnedRatio must be in (0, 1], found 2.0",
                () -> new RandomKCompressor.Provider().settings(bad));
        rejects("compressor.ratio", "compressor.ratio is required", () -> new RandomKCompressor.Provider().settings(
                ResolvedConfig.of(Map.of("compressor", Map.of()))));
    }

    @Test
    void shouldKeepTheConstructorsMessagesAndCheckTheRatioFirst() {
        assertEquals("ratio must be <= 1.0, found 2.0", assertThrows(IllegalArgumentException.class,
                () -> new S2SketchCompressor(2, 4, 4, 8)).getMessage());
        assertEquals("rows must be odd, found 4", assertThrows(IllegalArgumentException.class,
                () -> new S2SketchCompressor(0.1, 4, 4, 8)).getMessage());
        assertEquals("momentum must be in [0, 1), found -0.1", assertThrows(IllegalArgumentException.class,
                () -> new DgcCompressor(0.1, -0.1, 0, 0)).getMessage());
    }

    @Test
    void shouldDescribeItselfByTheSettingsItWasBuiltWith() {
        assertEquals(new TopKCompressor.Settings(0.01, 5), new TopKCompressor(0.01, 5).settings());
        assertEquals(new DgcCompressor.Settings(0.01, 0.9, 1.5, 5), new DgcCompressor(0.01, 0.9, 1.5, 5).settings());
        assertEquals(new ScaleComCompressor.Settings(0.01, 0.1), new ScaleComCompressor(0.01, 0.1).settings());
        assertEquals(new S2SketchCompressor.Settings(0.01, new S2SketchCompressor.Shape(5, 4.0, 8)),
                new S2SketchCompressor(0.01, 5, 4.0, 8).settings());
        assertEquals(new RandomKCompressor.Settings(0.01, 0.01), new RandomKCompressor(0.01, 42).settings());
        assertEquals("randomk(ratio=0.01, seed=42)", new RandomKCompressor(0.01, 42).toString());
        assertEquals("randomk(ratio=0.01, learnedRatio=0.05, seed=42)",
                new RandomKCompressor(new RandomKCompressor.Settings(0.01, 0.05), 42).toString());
        assertEquals("topk(ratio=0.01, learnedRatio=0.05, warmupSteps=5)",
                new TopKCompressor(new TopKCompressor.Settings(0.01, 5, 0.05)).toString());
        assertEquals("topk(ratio=0.01, warmupSteps=5)", new TopKCompressor(0.01, 5).toString());
    }

    @Test
    void shouldCreateFromItsProviderACompressorNamedAsTheType() {
        check(new TopKCompressor.Provider(), new TopKCompressor.Settings(0.01, 0));
        check(new DgcCompressor.Provider(), new DgcCompressor.Settings(0.01, 0.9, 0, 0));
        check(new ScaleComCompressor.Provider(), new ScaleComCompressor.Settings(0.01, 0.1));
        check(new S2SketchCompressor.Provider(), new S2SketchCompressor.Settings(0.01,
                new S2SketchCompressor.Shape(5, 4.0, 8)));
        check(new RandomKCompressor.Provider(), new RandomKCompressor.Settings(0.01, 0.02));
        assertEquals(List.of("ratio", "learnedRatio", "lowPass"),
                List.copyOf(new RandomKCompressor.Provider().sectionKeys()));
        assertEquals(List.of("ratio", "warmupSteps", "learnedRatio"),
                List.copyOf(new TopKCompressor.Provider().sectionKeys()));
        assertEquals(Optional.empty(), new NoCompression().create(new NoCompression.Settings(), 1));
        assertEquals(EnumSet.of(Stage.FULL), new NoCompression().stages());
        assertEquals(List.of("ratio", "sketch"), List.copyOf(new S2SketchCompressor.Provider().sectionKeys()));
    }

    private static <S extends Record> void check(CompressorProvider<S> provider, S settings) {
        Compressor c = provider.create(settings, 7).orElseThrow();
        assertEquals(provider.type(), c.name());
        assertEquals(settings, c.settings());
        assertTrue(provider.settingsType().isInstance(c.settings()));
        assertEquals(EnumSet.of(Stage.FULL, Stage.TOP_K), provider.stages(), provider.type());
    }
}
