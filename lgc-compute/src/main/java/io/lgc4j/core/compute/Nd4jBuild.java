package io.lgc4j.core.compute;

import org.bytedeco.javacpp.Loader;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Which of ND4J's native builds this process runs, and why: the widest build the CPU runs whose jar is on the class
 * path ({@code linux-x86_64-onednn-avx512}, else {@code -onednn-avx2}, ...), chosen by {@link Nd4jBuildHook} in every
 * JVM with LGC4J before ND4J loads its native library. Another build gives other bits.
 *
 * <p>Override with {@code LGC_ND4J_BUILD} (or {@code -Dlgc.nd4j.build}): a build's suffix, or {@code default} for
 * JavaCPP's own choice; a {@code -Dorg.bytedeco.javacpp.platform.extension} on the command line is always kept.
 *
 * <pre>{@code
 * Nd4jBuild.current();   // loaded=linux-x86_64-onednn-avx512, reason="the CPU has AVX-512 ..."
 * }</pre>
 *
 * @param loaded the classifier of the build ND4J loaded ({@code linux-x86_64-onednn-avx512}), or {@value #NOT_LOADED}
 * @param reason why that build: the CPU, the jars, or who asked
 */
public record Nd4jBuild(String loaded, String reason) {

    /** The environment variable that asks for a build: {@code auto} (the default), {@code default}, or a suffix. */
    public static final String REQUEST_ENV = "LGC_ND4J_BUILD";
    /** The system property that asks for a build, before {@link #REQUEST_ENV}. */
    public static final String REQUEST_PROPERTY = "lgc.nd4j.build";
    /** What {@link #loaded} says before ND4J has loaded its native library. */
    public static final String NOT_LOADED = "not loaded";

    static final String JAVACPP_EXTENSION = "org.bytedeco.javacpp.platform.extension";
    private static final String PLATFORM = "linux-x86_64";
    private static final Set<String> AVX512 = Set.of("avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl");
    private static final Set<String> AVX2 = Set.of("avx2", "fma");
    private static final Pattern BINDINGS = Pattern.compile("/bindings/([^/]+)/");

    /** The choice made before ND4J loaded (or when first asked); null until then. */
    private static volatile Choice chosen;

    /**
     * @throws NullPointerException if a component is null
     */
    public Nd4jBuild {
        Objects.requireNonNull(loaded, "loaded");
        Objects.requireNonNull(reason, "reason");
    }

    /** ND4J's linux-x86_64 builds, best first: oneDNN before a wider vector unit, a wider unit before a narrower. */
    enum Variant {
        ONEDNN_AVX512("-onednn-avx512", AVX512),
        ONEDNN_AVX2("-onednn-avx2", AVX2),
        ONEDNN("-onednn", Set.of()),
        AVX512_ONLY("-avx512", AVX512),
        AVX2_ONLY("-avx2", AVX2),
        GENERIC("", Set.of());

        final String extension;
        final Set<String> needs;

        Variant(String extension, Set<String> needs) {
            this.extension = extension;
            this.needs = needs;
        }

        String classifier() {
            return PLATFORM + extension;
        }

        /** The native library its jar holds, as a class path resource. */
        String resource() {
            return "org/nd4j/linalg/cpu/nativecpu/bindings/" + classifier() + "/libjnind4jcpu.so";
        }

        /** The Maven coordinates of its jar. */
        String coordinates() {
            return "org.nd4j:nd4j-native:<dl4j version>:" + classifier();
        }

        static Variant named(String name) {
            String n = name.strip().toLowerCase(Locale.ROOT);
            for (Variant v : values()) {
                if (n.equals(v.classifier()) || (v.extension.isEmpty() ? n.equals("generic")
                        : n.equals(v.extension) || n.equals(v.extension.substring(1)))) {
                    return v;
                }
            }
            return null;
        }
    }

    /**
     * What to tell JavaCPP.
     *
     * @param extension the platform extension to set, or null to leave JavaCPP's choice alone
     * @param reason    why, in words a provenance file can hold
     */
    record Choice(String extension, String reason) {
    }

    /**
     * The build a process should load.
     *
     * @param request   {@value #REQUEST_PROPERTY} or {@value #REQUEST_ENV}, or null
     * @param given     JavaCPP's platform extension as set before LGC4J chose, or null
     * @param os        {@code os.name}
     * @param arch      {@code os.arch}
     * @param cpu       the CPU
     * @param onPath    whether a build's jar is on the class path
     */
    static Choice choose(String request, String given, String os, String arch, CpuInfo cpu,
                         Predicate<Variant> onPath) {
        if (given != null) {
            return new Choice(null, "set by -D" + JAVACPP_EXTENSION + "=" + given);
        }
        if (!os.toLowerCase(Locale.ROOT).startsWith("linux") || !(arch.equals("amd64") || arch.equals("x86_64"))) {
            return new Choice(null, "JavaCPP's choice for " + os + "/" + arch + " (LGC4J chooses among "
                    + PLATFORM + " builds only)");
        }
        String asked = request == null ? "auto" : request.strip().toLowerCase(Locale.ROOT);
        if (asked.equals("default")) {
            return new Choice(null, REQUEST_ENV + "=default: JavaCPP's choice");
        }
        if (!asked.equals("auto")) {
            Variant v = Variant.named(asked);
            if (v == null) {
                return new Choice(null, REQUEST_ENV + "=" + request + " names no build (expected auto, default or one"
                        + " of onednn-avx512, onednn-avx2, onednn, avx512, avx2, generic): JavaCPP's choice");
            }
            if (!cpu.flags().containsAll(v.needs)) {
                return new Choice(null, REQUEST_ENV + "=" + request + " asks for " + v.classifier() + ", which this"
                        + " CPU cannot run (it lacks " + missing(cpu, v) + "): JavaCPP's choice");
            }
            if (!onPath.test(v)) {
                return new Choice(null, REQUEST_ENV + "=" + request + " asks for " + v.classifier() + ", whose jar is"
                        + " not on the class path (add " + v.coordinates() + "): JavaCPP's choice");
            }
            return new Choice(v.extension, "asked for by " + REQUEST_ENV + "=" + request);
        }
        if (cpu.flags().isEmpty()) {
            return new Choice(null, "the CPU's extensions are unknown (no /proc/cpuinfo): JavaCPP's choice");
        }
        List<String> passedOver = new ArrayList<>();
        for (Variant v : Variant.values()) {
            if (!cpu.flags().containsAll(v.needs)) {
                continue;
            }
            if (!onPath.test(v)) {
                if (v == Variant.ONEDNN_AVX512 || v == Variant.ONEDNN_AVX2) {
                    passedOver.add(v.classifier() + " would run here, but its jar is not on the class path (add "
                            + v.coordinates() + ")");
                }
                continue;
            }
            String has = v.needs.containsAll(AVX512) ? "the CPU has AVX-512" : v.needs.containsAll(AVX2)
                    ? "the CPU has AVX2" + (cpu.flags().contains("avx512f") ? "" : " and no AVX-512")
                    : "the widest build whose jar is on the class path";
            return new Choice(v.extension, has + "; " + v.classifier() + " is on the class path"
                    + (passedOver.isEmpty() ? "" : "; " + String.join("; ", passedOver)));
        }
        return new Choice(null, "no " + PLATFORM + " build this CPU runs is on the class path: JavaCPP's choice");
    }

    private static String missing(CpuInfo cpu, Variant v) {
        return String.join(", ", v.needs.stream().filter(f -> !cpu.flags().contains(f)).sorted().toList());
    }

    /**
     * Chooses this process's build and tells JavaCPP, once, before ND4J loads its native library
     * ({@link Nd4jBuildHook}); later calls do nothing.
     */
    static synchronized void beforeNd4jLoads() {
        if (chosen != null) {
            return;
        }
        String request = System.getProperty(REQUEST_PROPERTY, System.getenv(REQUEST_ENV));
        ClassLoader loader = Nd4jBuild.class.getClassLoader();
        Choice c = choose(request, System.getProperty(JAVACPP_EXTENSION), System.getProperty("os.name", "?"),
                System.getProperty("os.arch", "?"), CpuInfo.ofThisMachine(),
                v -> loader.getResource(v.resource()) != null);
        if (c.extension() != null) {
            System.setProperty(JAVACPP_EXTENSION, c.extension());
        }
        chosen = c;
    }

    /** The build this process runs, or {@value #NOT_LOADED} with the build it would choose, and why. */
    public static Nd4jBuild current() {
        beforeNd4jLoads(); // before JavaCPP's Loader is touched: it reads its properties once
        Choice c = chosen;
        String loaded = loadedClassifier();
        if (loaded != null && c.extension() != null && !loaded.equals(PLATFORM + c.extension())) {
            return new Nd4jBuild(loaded, "LGC4J chose " + PLATFORM + c.extension() + " (" + c.reason()
                    + "), but ND4J had loaded before, without LGC4J's Nd4jBackend service "
                    + Nd4jBuildHook.class.getName() + " on its class path: JavaCPP's choice");
        }
        return new Nd4jBuild(loaded == null ? NOT_LOADED : loaded, c.reason());
    }

    /** The classifier of the ND4J native library JavaCPP loaded in this process, or null. */
    private static String loadedClassifier() {
        String path = Loader.getLoadedLibraries().get("jnind4jcpu");
        if (path == null) {
            return null;
        }
        Matcher m = BINDINGS.matcher(path.replace('\\', '/'));
        return m.find() ? m.group(1) : path;
    }

    /** Whether the CPU has AVX-512 and the build loaded is not one: a faster build would run here. */
    public boolean narrowerThanTheCpu(CpuInfo cpu) {
        return cpu.flags().containsAll(AVX512) && !loaded.endsWith("avx512") && !loaded.equals(NOT_LOADED);
    }
}
