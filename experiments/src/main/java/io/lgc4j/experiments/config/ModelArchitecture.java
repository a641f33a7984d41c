package io.lgc4j.experiments.config;

/**
 * The network every worker trains a replica of ({@code model.name}); built by the experiments model zoo.
 *
 * <pre>{@code
 * model:
 *   name: small-resnet
 * }</pre>
 */
public enum ModelArchitecture {
    /** A small convolutional network (MultiLayerNetwork). */
    SMALL_CNN,
    /** A small residual network (ComputationGraph). */
    SMALL_RESNET;

    /** @return the YAML spelling, e.g. {@code small-cnn} */
    @Override
    public String toString() {
        return ConfigEnums.yamlName(this);
    }
}
