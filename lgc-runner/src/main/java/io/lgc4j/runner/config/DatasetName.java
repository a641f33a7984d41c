package io.lgc4j.runner.config;

/**
 * The dataset an experiment trains on ({@code data.dataset}).
 *
 * <pre>{@code
 * data:
 *   dataset: fashion-mnist
 * }</pre>
 */
public enum DatasetName {
    /** Fashion-MNIST: 60,000 training and 10,000 test 28×28 grey images in 10 classes, read from IDX files. */
    FASHION_MNIST,
    /**
     * Labelled rows in CSV files under {@code data.path} ({@code data.csv} says which column is the class), streamed
     * by each worker ({@code data.source: files}); no test data.
     */
    CSV;

    /** @return the YAML spelling, e.g. {@code fashion-mnist} */
    @Override
    public String toString() {
        return ConfigEnums.yamlName(this);
    }
}
