package io.lgc4j.runner.config;

/**
 * How the workers get the training data ({@code data.source}).
 *
 * <pre>{@code
 * data:
 *   source: files     # each worker streams its own rows; servers read nothing
 * }</pre>
 */
public enum SourceKind {
    /** Every process reads the whole training set into memory first (the in-memory source). */
    MEMORY,
    /**
     * Each worker streams only the rows of its shard from the files under {@code data.path}, by offset: Fashion-MNIST's
     * uncompressed IDX files, or CSV files ({@code dataset: csv}); the same order as {@link #MEMORY}.
     */
    FILES;

    /** @return the YAML spelling, e.g. {@code files} */
    @Override
    public String toString() {
        return ConfigEnums.yamlName(this);
    }
}
