package io.lgc4j.spark;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.deeplearning4j.nn.api.Model;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;

import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;

/**
 * Builds the DL4J model an {@link LgcEstimator} trains: called once on the driver (to learn the model's input and
 * output widths) and once per endpoint in every barrier task. It travels to the executors inside the task, so it
 * must be serializable, and it must build the same initialized parameters in every JVM: give the configuration a
 * seed ({@code new NeuralNetConfiguration.Builder().seed(42)}); the tasks check the parameters against the
 * driver's and refuse a factory that builds other ones.
 *
 * <pre>{@code
 * ModelFactory factory = () -> {                                  // a serializable lambda
 *     ComputationGraph graph = new ComputationGraph(MyModels.graphConfiguration(42));
 *     graph.init();
 *     return graph;
 * };
 * ModelFactory same = ModelFactory.fromJson(graphConfiguration.toJson());
 * }</pre>
 */
@FunctionalInterface
public interface ModelFactory extends Serializable {

    /** A new model, a {@link MultiLayerNetwork} or a {@link ComputationGraph}; initialized or not. */
    Model create();

    /**
     * The model of a configuration's JSON ({@code MultiLayerConfiguration.toJson()} or {@code
     * ComputationGraphConfiguration.toJson()}), initialized.
     *
     * @throws IllegalArgumentException when the text is neither
     */
    static ModelFactory fromJson(String json) {
        return new JsonModelFactory(json);
    }

    /** A model built from its configuration's JSON; the kind is read from the JSON's keys. */
    record JsonModelFactory(String json) implements ModelFactory {
        private static final long serialVersionUID = 1L;

        /** Reads the JSON's keys once, so that a wrong text fails when it is set, not in a task. */
        public JsonModelFactory {
            graph(json);
        }

        private static boolean graph(String json) {
            JsonNode tree;
            try {
                tree = new ObjectMapper().readTree(json);
            } catch (IOException e) {
                throw new IllegalArgumentException("the model's configuration is not JSON: " + e.getMessage(), e);
            }
            if (tree != null && tree.has("vertices")) {
                return true;
            }
            if (tree != null && tree.has("confs")) {
                return false;
            }
            throw new IllegalArgumentException("the model's configuration JSON has neither 'vertices' (a"
                    + " ComputationGraphConfiguration) nor 'confs' (a MultiLayerConfiguration)");
        }

        @Override
        public Model create() {
            try {
                if (graph(json)) {
                    ComputationGraph net = new ComputationGraph(ComputationGraphConfiguration.fromJson(json));
                    net.init();
                    return net;
                }
                MultiLayerNetwork net = new MultiLayerNetwork(MultiLayerConfiguration.fromJson(json));
                net.init();
                return net;
            } catch (RuntimeException e) {
                if (e.getCause() instanceof IOException io) {
                    throw new UncheckedIOException(io);
                }
                throw e;
            }
        }

        @Override
        public String toString() {
            return "the model of a configuration JSON (" + json.length() + " characters)";
        }
    }
}
