package io.lgc4j.runner.config;

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
    SMALL_RESNET,
    /** LeNet-5's layers at a fraction of its widths (MultiLayerNetwork): smoke runs and the test suite. */
    TINY_CNN;

    /** @return the YAML spelling, e.g. {@code small-cnn} */
    @Override
    public String toString() {
        return ConfigEnums.yamlName(this);
    }
}
