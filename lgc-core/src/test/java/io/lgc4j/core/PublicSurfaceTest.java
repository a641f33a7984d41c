package io.lgc4j.core;

import io.lgc4j.core.train.DistributedTrainer;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * lgc-core's public surface, pinned: every public top-level type of the compiled main classes is listed in
 * {@code golden/public-types.txt} with the role it has (user, extension, runner, engine), and nothing else is, so the
 * surface grows only on purpose and a reader can see what a user's program touches on one page.
 */
class PublicSurfaceTest {
    private static final Path GOLDEN = Path.of("src/test/resources/golden/public-types.txt");
    private static final Set<String> ROLES = Set.of("user", "extension", "runner", "engine");

    @Test
    void everyPublicTypeShouldBeListedWithItsRoleAndNothingElse() throws IOException, URISyntaxException {
        Map<String, String> listed = listed();
        Set<String> compiled = publicTopLevelTypes();
        assertTrue(compiled.size() > 50, "read the compiled classes: " + compiled.size() + " public types");
        Set<String> unlisted = new TreeSet<>(compiled);
        unlisted.removeAll(listed.keySet());
        Set<String> gone = new TreeSet<>(listed.keySet());
        gone.removeAll(compiled);
        assertEquals(Set.of(), unlisted, "public types of lgc-core not in " + GOLDEN + ": add each as a line"
                + " '<role> <type>' (roles " + new TreeSet<>(ROLES) + "), or make it package-private");
        assertEquals(Set.of(), gone, "types listed in " + GOLDEN + " that are not public top-level types of lgc-core"
                + " (any more): remove their lines");
    }

    /** The listed types by name, their roles checked. */
    private static Map<String, String> listed() throws IOException {
        Map<String, String> roles = new TreeMap<>();
        List<String> bad = new ArrayList<>();
        for (String line : Files.readAllLines(GOLDEN)) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            String[] parts = line.trim().split("\\s+");
            if (parts.length != 2 || !ROLES.contains(parts[0]) || roles.put(parts[1], parts[0]) != null) {
                bad.add(line);
            }
        }
        assertEquals(List.of(), bad, "lines of " + GOLDEN + " that are not '<role> <type>' with a role of "
                + new TreeSet<>(ROLES) + ", or list a type twice");
        return roles;
    }

    /** The public top-level types of lgc-core's compiled main classes. */
    private static Set<String> publicTopLevelTypes() throws IOException, URISyntaxException {
        Path classes = Path.of(DistributedTrainer.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        assertTrue(Files.isDirectory(classes), "lgc-core's main classes as a directory, found " + classes);
        Set<String> names = new TreeSet<>();
        try (Stream<Path> files = Files.walk(classes)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".class")).toList()) {
                String name = classes.relativize(file).toString().replace(file.getFileSystem().getSeparator(), ".");
                name = name.substring(0, name.length() - ".class".length());
                if (name.contains("$") || name.endsWith("package-info") || name.endsWith("module-info")) {
                    continue;
                }
                try {
                    if (Modifier.isPublic(Class.forName(name, false, PublicSurfaceTest.class.getClassLoader())
                            .getModifiers())) {
                        names.add(name);
                    }
                } catch (ClassNotFoundException e) {
                    throw new IllegalStateException("compiled but not loadable: " + name, e);
                }
            }
        }
        return names;
    }
}
