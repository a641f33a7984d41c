package io.lgc4j.core.compute;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The CPU this process runs on, as {@code /proc/cpuinfo} names its first processor: the model, and the instruction
 * set extensions that decide which ND4J build can run ({@link Nd4jBuild}) and which bits a run gives.
 *
 * @param model  the model name, family and model number, e.g. "Intel(R) Xeon(R) Processor (family 6, model 207)"
 * @param flags  the extensions, lower case ({@code avx2}, {@code avx512f}, ...); empty where unknown
 */
public record CpuInfo(String model, Set<String> flags) {

    /** What {@link #ofThisMachine()} says where there is no {@code /proc/cpuinfo}. */
    public static final CpuInfo UNKNOWN = new CpuInfo("unknown", Set.of());

    /**
     * @throws NullPointerException if a component is null
     */
    public CpuInfo {
        Objects.requireNonNull(model, "model");
        flags = Set.copyOf(flags);
    }

    /** This machine's CPU, or {@link #UNKNOWN}. */
    public static CpuInfo ofThisMachine() {
        try {
            return parse(Files.readAllLines(Path.of("/proc/cpuinfo"), StandardCharsets.UTF_8));
        } catch (IOException | RuntimeException e) {
            return UNKNOWN;
        }
    }

    /** Reads the first processor of a {@code /proc/cpuinfo} text. */
    static CpuInfo parse(List<String> lines) {
        Map<String, String> first = new LinkedHashMap<>();
        for (String line : lines) {
            if (line.isBlank() && !first.isEmpty()) {
                break;
            }
            int colon = line.indexOf(':');
            if (colon > 0) {
                first.putIfAbsent(line.substring(0, colon).trim(), line.substring(colon + 1).trim());
            }
        }
        if (first.isEmpty()) {
            return UNKNOWN;
        }
        String flags = first.getOrDefault("flags", "").strip();
        return new CpuInfo(first.getOrDefault("model name", "unknown model") + " (family "
                + first.getOrDefault("cpu family", "?") + ", model " + first.getOrDefault("model", "?") + ")",
                flags.isEmpty() ? Set.of() : Set.copyOf(Arrays.asList(flags.split("\\s+"))));
    }

    /** The widest vector extension: {@code avx512f}, {@code avx2}, {@code avx} or {@code no avx}. */
    public String widestVector() {
        return flags.contains("avx512f") ? "avx512f" : flags.contains("avx2") ? "avx2"
                : flags.contains("avx") ? "avx" : "no avx";
    }

    /** The model with its widest vector extension, e.g. "... (family 6, model 207, avx512f)". */
    @Override
    public String toString() {
        return this == UNKNOWN || model.equals("unknown") ? "unknown"
                : model.substring(0, model.length() - 1) + ", " + widestVector() + ")";
    }
}
