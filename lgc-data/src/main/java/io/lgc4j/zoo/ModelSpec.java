package io.lgc4j.zoo;

import java.util.Arrays;
import java.util.Objects;
import java.util.stream.Collectors;

import org.deeplearning4j.nn.api.Model;
import org.nd4j.linalg.learning.config.IUpdater;

/**
 * The zoo's models by the names configuration files use ({@code model.name}), so a config names a model and the zoo
 * builds it:
 *
 * <pre>{@code
 * Model net = ModelSpec.fromName("small-cnn").build(42L, ModelZoo.defaultUpdater());
 * }</pre>
 */
public enum ModelSpec {
    /** LeNet-5, {@link ModelZoo#smallCnn(long, IUpdater)}: a {@code MultiLayerNetwork}. */
    SMALL_CNN("small-cnn") {
        @Override
        public Model build(long seed, IUpdater updater) {
            return ModelZoo.smallCnn(seed, updater);
        }
    },
    /** A small ResNet with batch normalization, {@link ModelZoo#smallResNet(long, IUpdater)}: a graph. */
    SMALL_RESNET("small-resnet") {
        @Override
        public Model build(long seed, IUpdater updater) {
            return ModelZoo.smallResNet(seed, updater);
        }
    },
    /** LeNet-5's layers at a fraction of its widths, {@link ModelZoo#tinyCnn(long, IUpdater)}: for smoke runs. */
    TINY_CNN("tiny-cnn") {
        @Override
        public Model build(long seed, IUpdater updater) {
            return ModelZoo.tinyCnn(seed, updater);
        }
    };

    private final String modelName;

    ModelSpec(String modelName) {
        this.modelName = modelName;
    }

    /** @return the name configuration files use, e.g. {@code "small-cnn"} */
    public String modelName() {
        return modelName;
    }

    /** @return {@link #modelName()}, the spelling a config and a message use */
    @Override
    public String toString() {
        return modelName;
    }

    /**
     * Builds the model, initialized.
     *
     * @param seed    fixes the initial parameters
     * @param updater the optimizer
     * @return a {@code MultiLayerNetwork} or a {@code ComputationGraph}
     */
    public abstract Model build(long seed, IUpdater updater);

    /**
     * @param name a model name, e.g. {@code "small-cnn"}
     * @return the model with that name
     * @throws IllegalArgumentException naming the known models if there is none
     */
    public static ModelSpec fromName(String name) {
        Objects.requireNonNull(name, "name");
        for (ModelSpec spec : values()) {
            if (spec.modelName.equals(name)) {
                return spec;
            }
        }
        throw new IllegalArgumentException("unknown model '" + name + "'; known models: " + knownNames());
    }

    /** @return the known model names, comma-separated */
    public static String knownNames() {
        return Arrays.stream(values()).map(ModelSpec::modelName).collect(Collectors.joining(", "));
    }
}
