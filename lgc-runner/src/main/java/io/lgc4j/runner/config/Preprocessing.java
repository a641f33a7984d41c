package io.lgc4j.runner.config;

/**
 * How pixel values are transformed before training ({@code data.preprocessing}).
 *
 * <pre>{@code
 * data:
 *   preprocessing: scale
 * }</pre>
 */
public enum Preprocessing {
    /** Subtract the training-set mean and divide by its standard deviation. */
    STANDARDIZE,
    /** Divide by 255, mapping pixels to [0, 1]. */
    SCALE;

    /** @return the YAML spelling, e.g. {@code standardize} */
    @Override
    public String toString() {
        return ConfigEnums.yamlName(this);
    }
}
