package io.lgc4j.core;

import io.lgc4j.core.comm.Frame;
import io.lgc4j.core.compute.ComputeSettings;
import io.lgc4j.core.train.DistributedTrainer;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The public surface of lgc-core and of the two modules under it, pinned: every public top-level type of each
 * module's compiled main classes is listed under that module in {@code golden/public-types.txt} with the role it has
 * (user, extension, runner, engine), and nothing else is, so the surface grows only on purpose and a reader can see
 * what a user's program touches on one page.
 */
class PublicSurfaceTest {
    private static final Path GOLDEN = Path.of("src/test/resources/golden/public-types.txt");
    private static final Set<String> ROLES = Set.of("user", "extension", "runner", "engine");
    /** Each module by a class of its own, whose code source is the module's classes (a directory or a jar). */
    private static final Map<String, Class<?>> MODULES = Map.of(
            "lgc-core", DistributedTrainer.class, "lgc-wire", Frame.class, "lgc-compute", ComputeSettings.class);

    @Test
    void everyPublicTypeShouldBeListedUnderItsModuleWithItsRoleAndNothingElse() throws Exception {
        Map<String, Map<String, String>> listed = listed();
        assertEquals(new TreeSet<>(MODULES.keySet()), new TreeSet<>(listed.keySet()),
                "the modules " + GOLDEN + " lists, as '[module]' lines");
        for (Map.Entry<String, Class<?>> module : MODULES.entrySet()) {
            String name = module.getKey();
            Set<String> compiled = publicTopLevelTypes(module.getValue());
            assertTrue(compiled.size() > 5, "read the compiled classes of " + name + ": " + compiled.size()
                    + " public types");
            Set<String> unlisted = new TreeSet<>(compiled);
            unlisted.removeAll(listed.get(name).keySet());
            Set<String> gone = new TreeSet<>(listed.get(name).keySet());
            gone.removeAll(compiled);
            assertEquals(Set.of(), unlisted, "public types of " + name + " not under [" + name + "] in " + GOLDEN
                    + ": add each as a line '<role> <type>' (roles " + new TreeSet<>(ROLES) + "), or make it"
                    + " package-private");
            assertEquals(Set.of(), gone, "types listed under [" + name + "] in " + GOLDEN + " that are not public"
                    + " top-level types of " + name + " (any more): remove their lines");
        }
    }

    /** Module → the types listed under it by name → their roles, the lines checked. */
    private static Map<String, Map<String, String>> listed() throws IOException {
        Map<String, Map<String, String>> modules = new LinkedHashMap<>();
        Map<String, String> roles = null;
        Set<String> seen = new TreeSet<>();
        List<String> bad = new ArrayList<>();
        for (String line : Files.readAllLines(GOLDEN)) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            if (line.startsWith("[") && line.endsWith("]")) {
                roles = modules.computeIfAbsent(line.substring(1, line.length() - 1), m -> new TreeMap<>());
                continue;
            }
            String[] parts = line.trim().split("\\s+");
            if (roles == null || parts.length != 2 || !ROLES.contains(parts[0]) || !seen.add(parts[1])) {
                bad.add(line);
            } else {
                roles.put(parts[1], parts[0]);
            }
        }
        assertEquals(List.of(), bad, "lines of " + GOLDEN + " that are not '<role> <type>' under a '[module]' line"
                + " with a role of " + new TreeSet<>(ROLES) + ", or list a type twice");
        return modules;
    }

    /** The public top-level types of the compiled main classes {@code anchor} was loaded from. */
    private static Set<String> publicTopLevelTypes(Class<?> anchor) throws IOException, URISyntaxException {
        Path location = Path.of(anchor.getProtectionDomain().getCodeSource().getLocation().toURI());
        if (Files.isDirectory(location)) {
            return publicTopLevelTypes(location);
        }
        try (FileSystem jar = FileSystems.newFileSystem(location)) {
            return publicTopLevelTypes(jar.getPath("/"));
        }
    }

    private static Set<String> publicTopLevelTypes(Path classes) throws IOException {
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
