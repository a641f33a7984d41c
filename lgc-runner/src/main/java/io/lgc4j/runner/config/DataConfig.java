package io.lgc4j.runner.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.lgc4j.data.PixelPreprocessing;

/**
 * The {@code data} section: which dataset, where its files are, how much of it, and how it is preprocessed.
 *
 * <pre>{@code
 * data:
 *   dataset: fashion-mnist                    # only value for now
 *   path: /usr/share/datasets/fashion-mnist   # directory of the IDX files (Debian: dataset-fashion-mnist)
 *   trainLimit: 0                             # first N training examples, >= workers × batchSizePerWorker; 0 = all
 *   testLimit: 0                              # first N test examples; 0 = all
 *   preprocessing: standardize                # standardize | scale
 * }</pre>
 *
 * <pre>{@code
 * DataConfig small = DataConfig.defaults().withTrainLimit(2_000).withTestLimit(500);
 * }</pre>
 *
 * @param dataset       the dataset
 * @param path          the directory holding the dataset's files
 * @param trainLimit    how many training examples to use, 0 for all
 * @param testLimit     how many test examples to use, 0 for all
 * @param preprocessing the transform applied to pixel values
 */
@JsonPropertyOrder({"dataset", "path", "trainLimit", "testLimit", "preprocessing"})
public record DataConfig(DatasetName dataset, String path, int trainLimit, int testLimit,
                         PixelPreprocessing preprocessing) {

    /** Default of {@code data.dataset}. */
    public static final DatasetName DEFAULT_DATASET = DatasetName.FASHION_MNIST;
    /** Default of {@code data.path}: where Debian's {@code dataset-fashion-mnist} package installs the files. */
    public static final String DEFAULT_PATH = "/usr/share/datasets/fashion-mnist";
    /** Default of {@code data.trainLimit} and {@code data.testLimit}: use everything. */
    public static final int NO_LIMIT = 0;
    /** Default of {@code data.preprocessing}. */
    public static final PixelPreprocessing DEFAULT_PREPROCESSING = PixelPreprocessing.STANDARDIZE;

    /**
     * Checks every component; the first bad one is reported by its key.
     *
     * @param dataset       the dataset
     * @param path          the directory holding the dataset's files
     * @param trainLimit    how many training examples to use, 0 for all
     * @param testLimit     how many test examples to use, 0 for all
     * @param preprocessing the transform applied to pixel values
     * @throws ConfigException if a component is missing or out of range
     */
    public DataConfig {
        // Checked here rather than in the loader so that records built in code are held to the same rules.
        Checks.required("data.dataset", dataset);
        Checks.notEmpty("data.path", path);
        Checks.atLeast("data.trainLimit", trainLimit, 0);
        Checks.atLeast("data.testLimit", testLimit, 0);
        Checks.required("data.preprocessing", preprocessing);
    }

    /** @return the data section with every key at its default */
    public static DataConfig defaults() {
        return new DataConfig(DEFAULT_DATASET, DEFAULT_PATH, NO_LIMIT, NO_LIMIT, DEFAULT_PREPROCESSING);
    }

    /**
     * @param newTrainLimit how many training examples to use, 0 for all
     * @return this section with {@code trainLimit} replaced
     */
    public DataConfig withTrainLimit(int newTrainLimit) {
        return new DataConfig(dataset, path, newTrainLimit, testLimit, preprocessing);
    }

    /**
     * @param newTestLimit how many test examples to use, 0 for all
     * @return this section with {@code testLimit} replaced
     */
    public DataConfig withTestLimit(int newTestLimit) {
        return new DataConfig(dataset, path, trainLimit, newTestLimit, preprocessing);
    }

    @JsonCreator
    private static DataConfig fromYaml(@JsonProperty("dataset") DatasetName dataset,
                                       @JsonProperty("path") String path,
                                       @JsonProperty("trainLimit") Integer trainLimit,
                                       @JsonProperty("testLimit") Integer testLimit,
                                       @JsonProperty("preprocessing") PixelPreprocessing preprocessing) {
        return new DataConfig(
                Checks.orDefault(dataset, DEFAULT_DATASET),
                Checks.orDefault(path, DEFAULT_PATH),
                Checks.orDefault(trainLimit, NO_LIMIT),
                Checks.orDefault(testLimit, NO_LIMIT),
                Checks.orDefault(preprocessing, DEFAULT_PREPROCESSING));
    }
}
