package io.lgc4j.core;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The packages of {@code lgc-core}, {@code lgc-wire} and {@code lgc-compute} import one another one way only: no
 * cycle. An arrow is any reference from code (imports and qualified names, not comments) of one package to a class of
 * another; the test lists every cycle it finds with the arrows that make it.
 */
class PackageArrowsTest {

    /** lgc-core's packages and those of the two modules under it, which share the {@code io.lgc4j.core} prefix. */
    private static final List<Path> SOURCES = List.of(Path.of("src/main/java/io/lgc4j/core"),
            Path.of("../lgc-wire/src/main/java/io/lgc4j/core"), Path.of("../lgc-compute/src/main/java/io/lgc4j/core"));
    private static final Pattern REFERENCE = Pattern.compile("io\\.lgc4j\\.core\\.([a-z]+)\\.[A-Z]");
    private static final Pattern COMMENTS = Pattern.compile("/\\*.*?\\*/|//[^\\n]*", Pattern.DOTALL);

    @Test
    void shouldHaveNoPackageCycle() throws IOException {
        Map<String, Set<String>> arrows = arrows();
        assertTrue(arrows.size() >= 15, "read the packages of " + SOURCES + ": " + arrows.keySet());
        List<List<String>> cycles = new ArrayList<>();
        for (List<String> component : stronglyConnected(arrows)) {
            if (component.size() > 1) {
                cycles.add(component);
            }
        }
        StringBuilder why = new StringBuilder();
        for (List<String> cycle : cycles) {
            why.append("cycle ").append(cycle).append(':');
            for (String from : cycle) {
                for (String to : arrows.get(from)) {
                    if (cycle.contains(to)) {
                        why.append(' ').append(from).append(" -> ").append(to).append(';');
                    }
                }
            }
            why.append('\n');
        }
        assertEquals(List.of(), cycles, why.toString());
    }

    /** Package → the packages its code refers to. */
    private static Map<String, Set<String>> arrows() throws IOException {
        Map<String, Set<String>> arrows = new TreeMap<>();
        for (Path root : SOURCES) {
            arrowsFrom(root, arrows);
        }
        return arrows;
    }

    private static void arrowsFrom(Path root, Map<String, Set<String>> arrows) throws IOException {
        try (Stream<Path> files = Files.walk(root)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
                Path dir = root.relativize(file.getParent());
                if (dir.getNameCount() != 1 || dir.toString().isEmpty()) {
                    continue; // only io.lgc4j.core.<package>
                }
                String from = dir.toString();
                Set<String> to = arrows.computeIfAbsent(from, k -> new TreeSet<>());
                String code = COMMENTS.matcher(read(file)).replaceAll("");
                Matcher m = REFERENCE.matcher(code);
                while (m.find()) {
                    if (!m.group(1).equals(from)) {
                        to.add(m.group(1));
                    }
                }
            }
        }
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Tarjan's strongly connected components. */
    private static List<List<String>> stronglyConnected(Map<String, Set<String>> arrows) {
        Map<String, Integer> index = new HashMap<>();
        Map<String, Integer> low = new HashMap<>();
        Deque<String> stack = new ArrayDeque<>();
        List<List<String>> out = new ArrayList<>();
        for (String v : arrows.keySet()) {
            if (!index.containsKey(v)) {
                visit(v, arrows, index, low, stack, out);
            }
        }
        return out;
    }

    private static void visit(String v, Map<String, Set<String>> arrows, Map<String, Integer> index,
                              Map<String, Integer> low, Deque<String> stack, List<List<String>> out) {
        index.put(v, index.size());
        low.put(v, index.get(v));
        stack.push(v);
        for (String w : arrows.getOrDefault(v, Set.of())) {
            if (!arrows.containsKey(w)) {
                continue;
            }
            if (!index.containsKey(w)) {
                visit(w, arrows, index, low, stack, out);
                low.put(v, Math.min(low.get(v), low.get(w)));
            } else if (stack.contains(w)) {
                low.put(v, Math.min(low.get(v), index.get(w)));
            }
        }
        if (low.get(v).equals(index.get(v))) {
            List<String> component = new ArrayList<>();
            String w;
            do {
                w = stack.pop();
                component.add(w);
            } while (!w.equals(v));
            out.add(component);
        }
    }
}
