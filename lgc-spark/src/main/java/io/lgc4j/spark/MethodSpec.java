package io.lgc4j.spark;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.lgc4j.core.comm.ValueEncoding;
import io.lgc4j.core.stage.StageSchedule;
import io.lgc4j.core.train.Topology;
import io.lgc4j.ring.topology.RingTopology;
import io.lgc4j.advise.config.AutoMethod;
import io.lgc4j.runner.config.ConfigLoader;
import io.lgc4j.runner.config.ConfiguredMethod;
import io.lgc4j.runner.config.ExperimentConfig;
import io.lgc4j.runner.config.RuntimeConfig;

import java.io.Serializable;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

/**
 * The method of an estimator's run, as every endpoint builds it: a {@link TopologyFactory}, or lgc-runner's method
 * sections ({@code topology}, {@code compressor}, {@code stages}, {@code autoencoder}, and {@code runtime} for the
 * links' deadlines) resolved into a whole config, or neither (the dense ring all-reduce).
 *
 * @param factory the user's topology factory, or null
 * @param yaml    the resolved config of the method sections (run.seed, training.workers and batch size the
 *                estimator's), or null; with {@code auto}, the config without its method
 * @param auto    {@code compressor: auto}'s candidates, or null: the tasks choose the method before they train
 */
record MethodSpec(TopologyFactory factory, String yaml, BarrierTraining.AutoPlan auto) implements Serializable {
    private static final long serialVersionUID = 1L;
    /** The sections a method snippet may hold. */
    static final Set<String> SECTIONS = Set.of("topology", "compressor", "stages", "warmup", "autoencoder", "runtime");
    static final String SOURCE = "method";

    /** What one endpoint trains with. */
    record Endpoint(Topology topology, StageSchedule stages, ValueEncoding values, RuntimeConfig runtime) {
    }

    /**
     * The method of a factory or a snippet (at most one of them).
     *
     * @throws IllegalArgumentException when both are given, or the snippet holds another section
     * @throws io.lgc4j.runner.config.ConfigException when a section's key is wrong (named as {@code method: key ...})
     */
    static MethodSpec of(TopologyFactory factory, String snippet, long seed, int workers, int batchSize) {
        if (factory != null && snippet != null) {
            throw new IllegalArgumentException("both topologyFactory and method are set: set one of them (a method"
                    + " YAML names the topology and compressor lgc-runner builds, a factory builds them in code)");
        }
        if (snippet == null) {
            return new MethodSpec(factory, null, null);
        }
        JsonNode tree = ConfigLoader.readYamlTree(snippet, SOURCE);
        if (tree == null || !tree.isObject()) {
            throw new IllegalArgumentException("method: expected a mapping with sections " + sorted(SECTIONS)
                    + ", found " + (tree == null || tree.isMissingNode() ? "nothing" : tree.getNodeType()));
        }
        JsonNode compressor = tree.path("compressor");
        boolean auto = compressor.asText("").equals(AutoMethod.AUTO)
                || compressor.path("type").asText("").equals(AutoMethod.AUTO);
        List<String> others = new ArrayList<>();
        for (Iterator<String> names = tree.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!SECTIONS.contains(name) && !(auto && name.equals("advise"))) {
                others.add(name);
            }
        }
        if (!others.isEmpty()) {
            throw new IllegalArgumentException("method: section" + (others.size() > 1 ? "s " : " ") + others
                    + (others.size() > 1 ? " are" : " is") + " not a method section, expected " + sorted(SECTIONS)
                    + " (the estimator sets workers, batch size, seed and steps itself)");
        }
        JsonNodeFactory json = JsonNodeFactory.instance;
        ObjectNode config = ((ObjectNode) tree).deepCopy();
        config.set("run", json.objectNode().put("name", "lgc-estimator").put("seed", seed));
        config.set("training", json.objectNode().put("workers", workers).put("batchSizePerWorker", batchSize));
        // the model section describes lgc-runner's own models; the estimator's model is the factory's, whose updater
        // the trainer checks against the compressor itself
        config.set("model", json.objectNode().set("updater", json.objectNode().put("type", "sgd")));
        if (auto) {
            // the candidates' configs are resolved here, on the driver, where a candidates file is read
            AutoMethod method = AutoMethod.parse(config.toString(), SOURCE, Path.of("."))
                    .orElseThrow();
            return new MethodSpec(null, method.base().toYaml(), BarrierTraining.AutoPlan.of(method));
        }
        ExperimentConfig resolved = ConfigLoader.parse(config.toString(), SOURCE);
        return new MethodSpec(null, resolved.toYaml(), null);
    }

    /** An endpoint of the chosen candidate's method ({@code compressor: auto}). */
    static Endpoint endpointOf(ExperimentConfig chosen) {
        ConfiguredMethod method = chosen.method();
        return new Endpoint(method.newTopology(), method.stages(), chosen.compressor().valueEncoding(),
                chosen.runtime());
    }

    private static List<String> sorted(Set<String> names) {
        return names.stream().sorted().toList();
    }

    /** A new topology (and schedule, encoding, deadlines) for one endpoint. */
    Endpoint newEndpoint() {
        if (auto != null) {
            throw new IllegalStateException("compressor: auto has no method before the tasks choose it");
        }
        if (yaml != null) {
            ExperimentConfig config = ConfigLoader.parse(yaml, SOURCE);
            ConfiguredMethod method = config.method();
            return new Endpoint(method.newTopology(), method.stages(), config.compressor().valueEncoding(),
                    config.runtime());
        }
        Topology topology = factory == null ? new RingTopology() : factory.create();
        if (topology == null) {
            throw new IllegalArgumentException("the topology factory " + factory + " returned null");
        }
        return new Endpoint(topology, null, ValueEncoding.FP32, RuntimeConfig.defaults());
    }

    /** For messages: "topology ps, compressor topk". */
    static String describe(Topology topology) {
        return "topology " + topology.describe().topology() + ", compressor " + topology.describe().compressor();
    }
}
