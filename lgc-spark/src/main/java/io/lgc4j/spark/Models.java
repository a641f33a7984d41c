package io.lgc4j.spark;

import org.deeplearning4j.nn.api.Model;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.conf.graph.GraphVertex;
import org.deeplearning4j.nn.conf.graph.LayerVertex;
import org.deeplearning4j.nn.conf.layers.FeedForwardLayer;
import org.deeplearning4j.nn.conf.layers.Layer;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.util.ModelSerializer;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32C;

/** What the estimator needs to know of a DL4J model: its widths, its bytes, its parameters' checksum. */
final class Models {

    private Models() {
    }

    /** The model {@code factory} builds, initialized; a factory that throws or returns another kind is named. */
    static Model create(ModelFactory factory, String where) {
        Model model;
        try {
            model = factory.create();
        } catch (RuntimeException | Error e) {
            throw new IllegalArgumentException("the model factory " + factory + " failed " + where + ": " + e, e);
        }
        // init() is idempotent in both kinds: a factory may return its model initialized or not
        if (model instanceof MultiLayerNetwork net) {
            net.init();
            return net;
        }
        if (model instanceof ComputationGraph graph) {
            graph.init();
            return graph;
        }
        throw new IllegalArgumentException("the model factory " + factory + " returned "
                + (model == null ? "null" : model.getClass().getName()) + " " + where
                + ", expected a MultiLayerNetwork or a ComputationGraph");
    }

    /** The width of the model's one input when its first layers say it (dense layers, no preprocessor), or -1. */
    static int inputWidth(Model model) {
        if (model instanceof MultiLayerNetwork net) {
            MultiLayerConfiguration conf = net.getLayerWiseConfigurations();
            return conf.getInputPreProcess(0) == null ? nIn(conf.getConf(0).getLayer()) : -1;
        }
        ComputationGraphConfiguration conf = ((ComputationGraph) model).getConfiguration();
        if (conf.getNetworkInputs().size() != 1) {
            return -1;
        }
        String input = conf.getNetworkInputs().get(0);
        int width = -1;
        for (Map.Entry<String, List<String>> e : conf.getVertexInputs().entrySet()) {
            if (!e.getValue().contains(input)) {
                continue;
            }
            GraphVertex vertex = conf.getVertices().get(e.getKey());
            if (!(vertex instanceof LayerVertex lv) || lv.getPreProcessor() != null || e.getValue().size() != 1) {
                return -1;
            }
            int n = nIn(lv.getLayerConf().getLayer());
            if (n < 0 || width >= 0 && n != width) {
                return -1;
            }
            width = n;
        }
        return width;
    }

    /** The width of the model's one output layer when it is a dense-like layer, or -1. */
    static int outputWidth(Model model) {
        if (model instanceof MultiLayerNetwork net) {
            MultiLayerConfiguration conf = net.getLayerWiseConfigurations();
            return nOut(conf.getConf(conf.getConfs().size() - 1).getLayer());
        }
        ComputationGraphConfiguration conf = ((ComputationGraph) model).getConfiguration();
        if (conf.getNetworkOutputs().size() != 1) {
            return -1;
        }
        GraphVertex vertex = conf.getVertices().get(conf.getNetworkOutputs().get(0));
        return vertex instanceof LayerVertex lv ? nOut(lv.getLayerConf().getLayer()) : -1;
    }

    private static int nIn(Layer layer) {
        return layer instanceof FeedForwardLayer f && f.getNIn() > 0 ? Math.toIntExact(f.getNIn()) : -1;
    }

    private static int nOut(Layer layer) {
        return layer instanceof FeedForwardLayer f && f.getNOut() > 0 ? Math.toIntExact(f.getNOut()) : -1;
    }

    /** The model in DL4J's format ({@link ModelSerializer}), its updater state included. */
    static byte[] toBytes(Model model) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            ModelSerializer.writeModel(model, out, true);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot serialize the trained model", e);
        }
        return out.toByteArray();
    }

    /** The model of {@link #toBytes}, with its updater state. */
    static Model fromBytes(byte[] bytes, boolean graph) {
        try {
            return graph ? ModelSerializer.restoreComputationGraph(new ByteArrayInputStream(bytes), true)
                    : ModelSerializer.restoreMultiLayerNetwork(new ByteArrayInputStream(bytes), true);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the trained model's bytes", e);
        }
    }

    /** CRC32C of the model's parameters as float32, 8 hex digits: equal in every JVM that built the same model. */
    static String paramsChecksum(Model model) {
        INDArray params = model.params().castTo(DataType.FLOAT);
        float[] values = params.toFloatVector();
        ByteBuffer bytes = ByteBuffer.allocate(values.length * Float.BYTES).order(ByteOrder.LITTLE_ENDIAN);
        bytes.asFloatBuffer().put(values);
        CRC32C crc = new CRC32C();
        crc.update(bytes);
        return String.format("%08x", crc.getValue());
    }
}
