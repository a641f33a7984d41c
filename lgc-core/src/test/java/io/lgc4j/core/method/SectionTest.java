package io.lgc4j.core.method;

import io.lgc4j.core.settings.Section;
import io.lgc4j.core.settings.SettingsException;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Binding a settings record from a section by component name, and the messages that name the key. */
class SectionTest {

    enum Policy { LEADER, OWN_SUPPORT }

    record Shape(int rows, double width) {
        Shape {
            SettingsException.require(rows % 2 == 1, "rows", "must be odd, found " + rows);
        }
    }

    record Sample(double ratio, int count, long seed, boolean on, String name, Policy policy, List<Integer> sizes,
                  Shape shape) {
    }

    private static Map<String, Object> sample() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("ratio", 0.5);
        m.put("count", 3);
        m.put("seed", 42L);
        m.put("on", true);
        m.put("name", "x");
        m.put("policy", "own-support");
        m.put("sizes", List.of(1, 2));
        m.put("shape", Map.of("rows", 3, "width", 2));
        m.put("unrelated", "left alone");
        return m;
    }

    private static String error(Map<String, Object> values) {
        return assertThrows(SettingsException.class, () -> Section.of("compressor", values).bind(Sample.class))
                .getMessage();
    }

    @Test
    void shouldBindEveryComponentByNameIgnoringOtherKeys() {
        assertEquals(new Sample(0.5, 3, 42, true, "x", Policy.OWN_SUPPORT, List.of(1, 2), new Shape(3, 2.0)),
                Section.of("compressor", sample()).bind(Sample.class));
    }

    @Test
    void shouldReadAnIntegerAsANumberAndEnumsInAnySpelling() {
        Map<String, Object> m = sample();
        m.put("ratio", 1);
        m.put("policy", "OWN_SUPPORT");
        Sample s = Section.of("compressor", m).bind(Sample.class);
        assertEquals(1.0, s.ratio());
        assertEquals(Policy.OWN_SUPPORT, s.policy());
    }

    @Test
    void shouldNameTheDottedKeyOfWhatIsMissingOrOfTheWrongKind() {
        Map<String, Object> m = sample();
        m.remove("count");
        assertEquals("compressor.count is required", error(m));
        m = sample();
        m.put("count", 2.5);
        assertEquals("compressor.count expects an integer, found 2.5", error(m));
        m = sample();
        m.put("ratio", "half");
        assertEquals("compressor.ratio expects a number, found \"half\"", error(m));
        m = sample();
        m.put("on", "yes");
        assertEquals("compressor.on expects a boolean, found \"yes\"", error(m));
        m = sample();
        m.put("policy", "mine");
        assertEquals("compressor.policy expects one of [leader, own-support], found \"mine\"", error(m));
        m = sample();
        m.put("sizes", List.of(1, "two"));
        assertEquals("compressor.sizes[1] expects an integer, found \"two\"", error(m));
        m = sample();
        m.put("shape", 5);
        assertEquals("compressor.shape expects a mapping, found 5", error(m));
        m = sample();
        m.put("count", 1L << 40);
        assertEquals("compressor.count expects an integer, found 1099511627776 (out of range)", error(m));
    }

    @Test
    void shouldPutTheRecordsOwnCheckUnderTheSectionsPath() {
        Map<String, Object> m = sample();
        m.put("shape", Map.of("rows", 4, "width", 2));
        SettingsException e = assertThrows(SettingsException.class,
                () -> Section.of("compressor", m).bind(Sample.class));
        assertEquals("compressor.shape.rows", e.key());
        assertEquals("must be odd, found 4", e.problem());
        assertEquals("compressor.shape.rows must be odd, found 4", e.getMessage());
    }

    @Test
    void shouldTakeMissingKeysFromTheDefaults() {
        Sample defaults = new Sample(0.1, 1, 7, false, "d", Policy.LEADER, List.of(), new Shape(5, 1));
        Sample bound = Section.of("compressor", Map.of("count", 9, "shape", Map.of("width", 3)))
                .bind(Sample.class, defaults);
        assertEquals(new Sample(0.1, 9, 7, false, "d", Policy.LEADER, List.of(), new Shape(5, 3)), bound);
    }

    @Test
    void shouldReadSingleKeysWithTheSameMessages() {
        Section s = Section.of("autoencoder", sample());
        assertEquals(0.5, s.number("ratio"));
        assertEquals(3, s.integer("count"));
        assertEquals(Policy.OWN_SUPPORT, s.choice("policy", Policy.class));
        assertEquals("autoencoder.missing is required",
                assertThrows(SettingsException.class, () -> s.number("missing")).getMessage());
        assertEquals("autoencoder.name expects a number, found \"x\"",
                assertThrows(SettingsException.class, () -> s.number("name")).getMessage());
        assertEquals(3, s.section("shape").integer("rows"));
        assertEquals("autoencoder.shape.depth is required",
                assertThrows(SettingsException.class, () -> s.section("shape").integer("depth")).getMessage());
    }
}
