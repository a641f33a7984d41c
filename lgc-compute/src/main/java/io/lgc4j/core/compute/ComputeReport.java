package io.lgc4j.core.compute;

import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.api.Model;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Which layer of a replica runs on which helper, for provenance and for the check that the fast path is on.
 *
 * <pre>{@code
 * ComputeReport report = trainer.compute();
 * report.missingHelpers();   // empty when every conv, pooling and batch-norm layer runs on oneDNN
 * report.toMap();            // {nd4jBuild=linux-x86_64-onednn-avx512, nd4jBuildReason=the CPU has AVX-512; ...,
 *                            //  oneDnn=true, oneDnnAvailable=true, cacheMode=HOST,
 *                            //  layers={conv1=MKLDNNConvHelper, ...}, missingHelpers=[]}
 * }</pre>
 *
 * @param settings        what the replicas were built with
 * @param oneDnnAvailable whether ND4J's native library runs oneDNN in this process ({@link LayerHelpers#oneDnnAvailable})
 * @param layers          every layer of the replica, in the model's order
 * @param build           ND4J's native build this process runs, and why ({@link Nd4jBuild})
 */
public record ComputeReport(ComputeSettings settings, boolean oneDnnAvailable, List<LayerCompute> layers,
                            Nd4jBuild build) {

    /** What {@link LayerCompute#helper} says of a layer that runs DL4J's own code. */
    public static final String BUILT_IN = "built-in";

    /**
     * One layer.
     *
     * @param name     the layer's name (its index when it has none)
     * @param type     the layer's class, simple name ({@code ConvolutionLayer}, ...)
     * @param helper   the helper's class, simple name, or {@link #BUILT_IN}
     * @param expected whether DL4J has a oneDNN helper for this kind of layer ({@link LayerHelpers#hasOneDnnHelper})
     */
    public record LayerCompute(String name, String type, String helper, boolean expected) {
        /**
         * @throws NullPointerException if a name is null
         */
        public LayerCompute {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(type, "type");
            Objects.requireNonNull(helper, "helper");
        }
    }

    /**
     * @throws NullPointerException if a component is null
     */
    public ComputeReport {
        Objects.requireNonNull(settings, "settings");
        Objects.requireNonNull(build, "build");
        layers = List.copyOf(layers);
    }

    /** A report of this process's build ({@link Nd4jBuild#current()}). */
    public ComputeReport(ComputeSettings settings, boolean oneDnnAvailable, List<LayerCompute> layers) {
        this(settings, oneDnnAvailable, layers, Nd4jBuild.current());
    }

    /**
     * Reads a built model's layers.
     *
     * @param model    a replica (a {@code MultiLayerNetwork} or {@code ComputationGraph})
     * @param settings what it was built with
     * @return the report
     */
    public static ComputeReport of(Model model, ComputeSettings settings) {
        List<LayerCompute> layers = new ArrayList<>();
        Layer[] all = LayerHelpers.layers(model);
        for (int i = 0; i < all.length; i++) {
            Layer layer = all[i];
            String name = layer.conf() != null && layer.conf().getLayer() != null
                    && layer.conf().getLayer().getLayerName() != null
                    ? layer.conf().getLayer().getLayerName() : String.valueOf(i);
            layers.add(new LayerCompute(name, layer.getClass().getSimpleName(),
                    LayerHelpers.helperName(layer).orElse(BUILT_IN), LayerHelpers.hasOneDnnHelper(layer)));
        }
        return new ComputeReport(settings, LayerHelpers.oneDnnAvailable(), layers);
    }

    /**
     * The layers that should run on a oneDNN helper and do not: none unless the settings ask for oneDNN and the
     * native library has it.
     *
     * @return those layers, in the model's order
     */
    public List<LayerCompute> missingHelpers() {
        if (!settings.oneDnn() || !oneDnnAvailable) {
            return List.of();
        }
        return layers.stream().filter(l -> l.expected() && l.helper().equals(BUILT_IN)).toList();
    }

    /**
     * @return a JSON-ready map: {@code nd4jBuild} and {@code nd4jBuildReason} ({@link #build}), {@code oneDnn},
     *         {@code oneDnnAvailable}, {@code cacheMode}, {@code layers}
     *         (name → helper, or {@value #BUILT_IN}, in the model's order) and {@code missingHelpers} (the names of
     *         {@link #missingHelpers()})
     */
    public Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("nd4jBuild", build.loaded());
        m.put("nd4jBuildReason", build.reason());
        m.put("oneDnn", settings.oneDnn());
        m.put("oneDnnAvailable", oneDnnAvailable);
        m.put("cacheMode", settings.cacheMode().toString());
        Map<String, String> byLayer = new LinkedHashMap<>();
        for (LayerCompute l : layers) {
            byLayer.put(l.name(), l.helper());
        }
        m.put("layers", byLayer);
        m.put("missingHelpers", missingHelpers().stream().map(LayerCompute::name).toList());
        return m;
    }
}
