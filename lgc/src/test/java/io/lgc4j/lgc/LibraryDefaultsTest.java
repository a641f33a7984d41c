package io.lgc4j.lgc;

import io.lgc4j.core.train.Topology;
import io.lgc4j.lgc.ps.LgcPsTopology;
import io.lgc4j.lgc.ring.LgcRingTopology;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The manual's "Library defaults" table says what LGC's builders give for a setting not named: every row is checked
 * against the built topology's {@code describe()}, so the manual cannot drift from the code.
 */
class LibraryDefaultsTest {

    private static final Map<String, Supplier<Topology>> BUILDERS = Map.of(
            "LgcPsTopology.builder()", () -> LgcPsTopology.builder().build(),
            "LgcRingTopology.builder()", () -> LgcRingTopology.builder().build());

    private static final Pattern ROW = Pattern.compile("^\\| `([A-Za-z]+\\.builder\\(\\))` \\| `([A-Za-z.]+)` \\| (.+?) \\|$",
            Pattern.MULTILINE);

    @Test
    void everyDefaultInTheManualShouldBeTheBuildersOwn() throws IOException {
        String manual = Files.readString(repositoryRoot().resolve("docs/manual.md"));
        int table = manual.indexOf("**Library defaults.**");
        assertTrue(table >= 0, "docs/manual.md lost its \"Library defaults\" table");
        Matcher m = ROW.matcher(manual.substring(table, manual.indexOf("\n\n", manual.indexOf("| --- |", table))));
        int rows = 0;
        for (; m.find(); rows++) {
            Supplier<Topology> builder = BUILDERS.get(m.group(1));
            assertTrue(builder != null, "the manual names a builder this test does not know: " + m.group(1));
            Map<String, Object> described = flatten("", builder.get().describe().toMap());
            assertTrue(described.containsKey(m.group(2)), m.group(1) + " describes no " + m.group(2) + ": "
                    + described.keySet());
            assertEquals(m.group(3), String.valueOf(described.get(m.group(2))), m.group(1) + " " + m.group(2));
        }
        assertTrue(rows >= 10, "the table has " + rows + " rows");
        // the prose below the table: both train with AeTraining.DEFAULT, Adam at 1e-3
        for (Supplier<Topology> builder : BUILDERS.values()) {
            assertTrue(String.valueOf(flatten("", builder.get().describe().toMap())
                    .get("compressorSettings.training.updater")).startsWith("Adam(learningRate=0.001"));
        }
    }

    private static Map<String, Object> flatten(String prefix, Map<?, ?> map) {
        Map<String, Object> flat = new TreeMap<>();
        for (Map.Entry<?, ?> e : map.entrySet()) {
            String key = prefix.isEmpty() ? String.valueOf(e.getKey()) : prefix + "." + e.getKey();
            if (e.getValue() instanceof Map<?, ?> inner) {
                flat.putAll(flatten(key, inner));
            } else {
                flat.put(key, e.getValue() instanceof List<?> l ? l.toString() : e.getValue());
            }
        }
        return flat;
    }

    private static Path repositoryRoot() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve("docs/manual.md"))) {
                return dir;
            }
        }
        throw new IllegalStateException("no docs/manual.md above " + Path.of("").toAbsolutePath());
    }
}
