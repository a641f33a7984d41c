package io.lgc4j.runner;

import io.lgc4j.core.compute.ComputeThreads;
import io.lgc4j.core.compute.CpuLimits;
import io.lgc4j.core.compute.Nd4jBuild;
import io.lgc4j.core.compute.Nd4jThreads;

import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.nativeblas.Nd4jCpu;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;

/**
 * The one place that sets ND4J's global state for the command line (ARCHITECTURE §5): float32 by default, and
 * the description of the backend that provenance records.
 */
public final class Nd4jEnvironment {
    private static boolean configured;

    private Nd4jEnvironment() {
    }

    /** Sets the global defaults once; later calls do nothing. */
    public static synchronized void configure() {
        if (configured) {
            return;
        }
        Nd4j.setDefaultDataTypes(DataType.FLOAT, DataType.FLOAT);
        configured = true;
    }

    /**
     * Whether ND4J's native operations may run on oneDNN (its default: yes, on the {@code *-onednn*} classifiers).
     * SameDiff's ops, the autoencoders' convolutions among them, go straight to these; DL4J's layers need their
     * helpers besides ({@link io.lgc4j.core.compute.LayerHelpers}). For benchmarks that measure the difference.
     *
     * @param use false to run every native op on ND4J's own kernels
     */
    public static void nativeOneDnn(boolean use) {
        configure();
        Nd4jCpu.Environment.getInstance().setUseMKLDNN(use);
    }

    /**
     * The threads this process computes with for {@code requested} ({@code model.compute.threads}), checked against
     * ND4J's thread pool: a count as asked; {@code auto} as the launcher resolved it for this process
     * ({@link ComputeThreads#ENV_THREADS}), else from this process's limits shared by {@code sharing} processes
     * computing at once (one JVM's ranks take turns computing: 1).
     *
     * @throws IllegalStateException when ND4J's thread pool has fewer threads, naming both and the fix
     */
    public static ComputeThreads threads(String requested, int sharing) {
        configure();
        String launched = System.getenv(ComputeThreads.ENV_THREADS);
        ComputeThreads t;
        if (requested.equals(ComputeThreads.AUTO) && launched != null) {
            String why = System.getenv(ComputeThreads.ENV_REASON);
            t = new ComputeThreads(requested, Integer.parseInt(launched.strip()), "resolved by lgc launch: "
                    + (why == null ? "" : why));
        } else {
            t = ComputeThreads.resolve(requested, CpuLimits.ofThisProcess(), sharing);
        }
        t.check("model.compute.threads", String.valueOf(Nd4jThreads.pool()));
        return t;
    }

    /** Backend class, native variant (the build loaded, and why), BLAS vendor and thread counts, for provenance. */
    public static Map<String, String> describe() {
        configure();
        Map<String, String> d = new LinkedHashMap<>();
        d.put("backend", Nd4j.getBackend().getClass().getSimpleName());
        Nd4jBuild build = Nd4jBuild.current();
        d.put("nativeVariant", build.loaded());
        d.put("nativeVariantReason", build.reason());
        d.put("dl4jVersion", BuildInfo.dl4jVersion());
        Properties env = Nd4j.getExecutioner().getEnvironmentInformation();
        for (String key : new String[] {"blas.vendor", "omp.threads", "cores"}) {
            Object v = env.get(key);
            if (v != null) {
                d.put(key, String.valueOf(v));
            }
        }
        return d;
    }
}
