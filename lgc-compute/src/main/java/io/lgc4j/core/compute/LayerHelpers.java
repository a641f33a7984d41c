package io.lgc4j.core.compute;

import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.api.Model;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.layers.LayerHelper;
import org.deeplearning4j.nn.layers.convolution.ConvolutionLayer;
import org.deeplearning4j.nn.layers.convolution.subsampling.SubsamplingLayer;
import org.deeplearning4j.nn.layers.mkldnn.MKLDNNConvHelper;
import org.deeplearning4j.nn.layers.normalization.BatchNormalization;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.nativeblas.Nd4jCpu;

import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Turns on DL4J's oneDNN layer helpers, which DL4J never uses by default, for the models LGC4J builds.
 * {@link #build} sets {@value #DISABLE_PROPERTY} only around the construction of a model and restores it, so models
 * built elsewhere in the JVM are untouched; {@link Nd4jCpu} answers the oneDNN check under the class name DL4J looks
 * up. Max pooling gets {@link NativePoolingHelper} and a convolution on the network's input gets
 * {@link InputConvolutionHelper} instead of DL4J's helpers.
 *
 * <pre>{@code
 * MultiLayerNetwork fast = LayerHelpers.build(true, net::clone);
 * LayerHelpers.helperName(fast.getLayer(0));   // Optional[MKLDNNConvHelper] on the onednn classifiers
 * }</pre>
 */
public final class LayerHelpers {
    /** The system property DL4J reads when a layer is constructed: helpers are created only when it is "false". */
    public static final String DISABLE_PROPERTY = "org.eclipse.deeplearning4j.helpers.disable";

    /**
     * The layer classes that get a helper on the CPU backend: DL4J M2.1's oneDNN helpers, and for pooling
     * {@link NativePoolingHelper} (exact classes: its 1D, 3D, depthwise,
     * separable and transposed variants have none, or inherit one that refuses them). Not
     * {@code LocalResponseNormalization}: DL4J M2.1 has {@code MKLDNNLocalResponseNormalizationHelper} but creates
     * it only when the backend is CUDA, so LRN runs DL4J's own code on the CPU whatever the settings.
     */
    private static final Set<Class<?>> WITH_ONEDNN_HELPER = Set.of(ConvolutionLayer.class, SubsamplingLayer.class,
            BatchNormalization.class);

    // the property is JVM-wide: one construction at a time sees the value it asked for
    private static final Object LOCK = new Object();

    private LayerHelpers() {
    }

    /**
     * Runs {@code construction} (a model's constructor and {@code init}, or a {@code clone()}) with DL4J's helpers
     * on or off, then restores the property as it was. With helpers on, max pooling layers get
     * {@link NativePoolingHelper}.
     *
     * @param helpers      whether the layers built meanwhile get their helpers
     * @param construction builds the model
     * @param <T>          the model's type
     * @return what {@code construction} returned
     */
    public static <T extends Model> T build(boolean helpers, Supplier<T> construction) {
        synchronized (LOCK) {
            String before = System.getProperty(DISABLE_PROPERTY);
            System.setProperty(DISABLE_PROPERTY, String.valueOf(!helpers));
            try {
                T model = construction.get();
                if (helpers) {
                    useNativePooling(model);
                    useInputConvolution(model);
                }
                return model;
            } finally {
                if (before == null) {
                    System.clearProperty(DISABLE_PROPERTY);
                } else {
                    System.setProperty(DISABLE_PROPERTY, before);
                }
            }
        }
    }

    /**
     * Gives every {@code SubsamplingLayer} that got DL4J's oneDNN helper {@link NativePoolingHelper} instead. A layer
     * without a helper (no oneDNN here) keeps DL4J's own path; where the field cannot be reached (another DL4J
     * version) nothing changes, and {@link ComputeReport} shows which helper each layer kept.
     */
    private static void useNativePooling(Model model) {
        replaceHelpers(SubsamplingLayer.class, List.of(layers(model)), layer -> layer.getHelper() != null,
                NativePoolingHelper::new);
    }

    /**
     * Gives every plain convolution layer that reads only network inputs, and got DL4J's oneDNN helper,
     * {@link InputConvolutionHelper} instead: its backward pass leaves out the input's gradient, which nobody reads.
     */
    private static void useInputConvolution(Model model) {
        replaceHelpers(ConvolutionLayer.class, inputLayers(model),
                layer -> layer.getHelper() instanceof MKLDNNConvHelper,
                InputConvolutionHelper::new);
    }

    /**
     * Sets a new helper into the {@code helper} field of each of {@code candidates} whose class is exactly
     * {@code type} and that {@code eligible} accepts; nothing where the field cannot be reached.
     */
    private static void replaceHelpers(Class<? extends Layer> type, List<Layer> candidates,
                                       Predicate<Layer> eligible,
                                       Supplier<? extends LayerHelper> helper) {
        Field field;
        try {
            field = type.getDeclaredField("helper");
            field.setAccessible(true);
        } catch (NoSuchFieldException | RuntimeException e) {
            return;
        }
        for (Layer layer : candidates) {
            if (layer.getClass() == type && eligible.test(layer)) {
                try {
                    field.set(layer, helper.get());
                } catch (IllegalAccessException e) {
                    return;
                }
            }
        }
    }

    /** The layers whose inputs are all network inputs: a network's first layer, a graph's layers fed by inputs. */
    private static List<Layer> inputLayers(Model model) {
        if (model instanceof MultiLayerNetwork net) {
            return net.getLayers().length == 0 ? List.of() : List.of(net.getLayer(0));
        }
        ComputationGraph graph = (ComputationGraph) model;
        List<String> inputs = graph.getConfiguration().getNetworkInputs();
        List<Layer> fed = new ArrayList<>();
        for (Layer layer : graph.getLayers()) {
            List<String> from = graph.getConfiguration().getVertexInputs()
                    .get(layer.conf().getLayer().getLayerName());
            if (from != null && !from.isEmpty() && inputs.containsAll(from)) {
                fed.add(layer);
            }
        }
        return fed;
    }

    /**
     * Whether ND4J's native library runs oneDNN here: the CPU backend, built with oneDNN (the {@code *-onednn*}
     * classifiers; the plain ones answer false) and with native helpers allowed.
     *
     * @return true when layers built with helpers on get oneDNN helpers
     */
    public static boolean oneDnnAvailable() {
        String backend = Nd4j.getExecutioner().getEnvironmentInformation().getProperty("backend");
        if (!"CPU".equalsIgnoreCase(backend)) {
            return false;
        }
        Nd4jCpu.Environment env = Nd4jCpu.Environment.getInstance();
        return env.helpersAllowed() && env.isUseMKLDNN();
    }

    /**
     * @param layer a layer of a built model
     * @return the simple class name of its helper ({@code MKLDNNConvHelper}, ...), empty when it runs DL4J's own code
     */
    public static Optional<String> helperName(Layer layer) {
        LayerHelper helper = layer.getHelper();
        return helper == null ? Optional.empty() : Optional.of(helper.getClass().getSimpleName());
    }

    /**
     * @param layer a layer of a built model
     * @return whether DL4J M2.1 has a oneDNN helper for this kind of layer
     */
    public static boolean hasOneDnnHelper(Layer layer) {
        return WITH_ONEDNN_HELPER.contains(layer.getClass());
    }

    /**
     * @param model a {@link MultiLayerNetwork} or {@link ComputationGraph}
     * @return its layers, in the model's order (a graph's in topological order)
     */
    static Layer[] layers(Model model) {
        if (model instanceof MultiLayerNetwork net) {
            return net.getLayers();
        }
        if (model instanceof ComputationGraph graph) {
            return graph.getLayers();
        }
        throw new IllegalArgumentException("expected a MultiLayerNetwork or a ComputationGraph, found "
                + (model == null ? "null" : model.getClass().getName()));
    }
}
