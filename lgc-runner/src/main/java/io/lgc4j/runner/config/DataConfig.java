package io.lgc4j.runner.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.lgc4j.core.data.DataCheck;
import io.lgc4j.data.PixelPreprocessing;

import java.util.Locale;

/**
 * The {@code data} section: which dataset, where its files are, how the workers read it, how much, and how it is
 * preprocessed.
 * <pre>{@code
 * data:
 *   dataset: fashion-mnist                    # fashion-mnist | csv
 *   path: /usr/share/datasets/fashion-mnist   # the IDX files' directory; csv: a directory of CSV files or one file
 *   testPath: ""                              # csv: the test rows (directory or file); none: not evaluated
 *   source: memory                            # memory | files: each worker streams its own rows (uncompressed IDX)
 *   prefetch: 2                               # batches each worker reads ahead; 0 = on the rank's own thread
 *   check: full                               # files: rows each worker reads before step 0: full | sample | none
 *   csv: {labelColumn: -1, classes: 0, skipLines: 0, delimiter: ","}   # dataset: csv only; set the first two
 *   trainLimit: 0                             # first N training examples, >= workers × batchSizePerWorker; 0 = all
 *   testLimit: 0                              # first N test examples; 0 = all
 *   preprocessing: standardize                # standardize | scale (Fashion-MNIST's pixels)
 * }</pre>
 * <pre>{@code
 * DataConfig small = DataConfig.defaults().withTrainLimit(2_000).withTestLimit(500);
 * }</pre>
 * @param dataset       the dataset
 * @param path          the directory holding the dataset's files (csv: a directory of CSV files or one file)
 * @param testPath      csv: the test rows (a directory of CSV files or one file), "" for none
 * @param source        whether every process reads the data into memory or each worker streams its rows
 * @param prefetch      batches each worker reads ahead on a thread of its own; 0 reads on the rank's thread
 * @param check         how much of its share of the training rows each worker reads before step 0
 * @param csv           how CSV files are read ({@code dataset: csv} only)
 * @param trainLimit    how many training examples to use, 0 for all
 * @param testLimit     how many test examples to use, 0 for all
 * @param preprocessing the transform applied to pixel values
 */
@JsonPropertyOrder({"dataset", "path", "testPath", "source", "prefetch", "check", "csv", "trainLimit", "testLimit",
        "preprocessing"})
public record DataConfig(DatasetName dataset, String path, String testPath, SourceKind source, int prefetch,
                         @JsonIgnore DataCheck check, CsvConfig csv, int trainLimit, int testLimit,
                         PixelPreprocessing preprocessing) {

    /** Default of {@code data.dataset}. */
    public static final DatasetName DEFAULT_DATASET = DatasetName.FASHION_MNIST;
    /** Default of {@code data.path}: where Debian's {@code dataset-fashion-mnist} package installs the files. */
    public static final String DEFAULT_PATH = "/usr/share/datasets/fashion-mnist";
    /** Default of {@code data.source}. */
    public static final SourceKind DEFAULT_SOURCE = SourceKind.MEMORY;
    /** Default of {@code data.testPath}: no test rows of a CSV dataset. */
    public static final String NO_TEST_PATH = "";
    /** Default of {@code data.check}: every row, the trainer's. */
    public static final DataCheck DEFAULT_CHECK = DataCheck.FULL;
    /** Default of {@code data.prefetch}, the trainer's. */
    public static final int DEFAULT_PREFETCH = 2;
    /** Default of {@code data.trainLimit} and {@code data.testLimit}: use everything. */
    public static final int NO_LIMIT = 0;
    /** Default of {@code data.preprocessing}. */
    public static final PixelPreprocessing DEFAULT_PREPROCESSING = PixelPreprocessing.STANDARDIZE;

    /**
     * Checks every component and the rules between them; the first bad one is reported by its key.
     *
     * @param dataset       the dataset
     * @param path          the directory holding the dataset's files
     * @param testPath      csv: the test rows, "" for none
     * @param source        whether every process reads the data into memory or each worker streams its rows
     * @param prefetch      batches each worker reads ahead
     * @param check         how much of its share of the rows each worker reads before step 0
     * @param csv           how CSV files are read
     * @param trainLimit    how many training examples to use, 0 for all
     * @param testLimit     how many test examples to use, 0 for all
     * @param preprocessing the transform applied to pixel values
     * @throws ConfigException if a component is missing or out of range, or keys do not fit together
     */
    public DataConfig {
        // Checked here rather than in the loader so that records built in code are held to the same rules.
        Checks.required("data.dataset", dataset);
        Checks.notEmpty("data.path", path);
        testPath = testPath == null ? NO_TEST_PATH : testPath;
        Checks.required("data.source", source);
        Checks.atLeast("data.prefetch", prefetch, 0);
        Checks.required("data.check", check);
        Checks.required("data.csv", csv);
        Checks.atLeast("data.trainLimit", trainLimit, 0);
        Checks.atLeast("data.testLimit", testLimit, 0);
        Checks.required("data.preprocessing", preprocessing);
        if (dataset == DatasetName.CSV) {
            checkCsv(source, csv, testPath, testLimit, preprocessing);
        } else if (!testPath.isEmpty()) {
            throw ConfigException.forKey("data.testPath", "applies to data.dataset csv only (Fashion-MNIST's test"
                    + " split is in data.path), found " + Checks.quote(testPath) + "; remove it");
        } else if (!csv.equals(CsvConfig.defaults())) {
            throw ConfigException.forKey("data.csv", "applies to data.dataset csv only, found " + csv.labelColumn()
                    + "/" + csv.classes() + "/" + csv.skipLines() + "/" + Checks.quote(csv.delimiter())
                    + " (labelColumn/classes/skipLines/delimiter) with data.dataset " + dataset + "; remove it");
        }
    }

    private static void checkCsv(SourceKind source, CsvConfig csv, String testPath, int testLimit,
                                 PixelPreprocessing preprocessing) {
        if (source != SourceKind.FILES) {
            throw ConfigException.forKey("data.source", "must be files with data.dataset csv (each worker streams"
                    + " its rows of the CSV files), found " + source);
        }
        if (csv.labelColumn() == CsvConfig.NO_LABEL_COLUMN) {
            throw ConfigException.forKey("data.csv.labelColumn", "must be set with data.dataset csv: the column"
                    + " (from 0) that holds the class");
        }
        if (csv.classes() == CsvConfig.NO_CLASSES) {
            throw ConfigException.forKey("data.csv.classes", "must be set with data.dataset csv: how many classes"
                    + " the labels count (0 … classes-1)");
        }
        if (testLimit != NO_LIMIT && testPath.isEmpty()) {
            throw ConfigException.forKey("data.testLimit", "limits the test rows of data.testPath, which is not set"
                    + " (the run evaluates nothing), found " + testLimit + "; set data.testPath or remove it");
        }
        if (preprocessing != DEFAULT_PREPROCESSING) {
            throw ConfigException.forKey("data.preprocessing", "applies to Fashion-MNIST's pixels; data.dataset csv"
                    + " reads its values as they are, found " + preprocessing.name().toLowerCase(Locale.ROOT)
                    + "; remove it");
        }
    }

    /**
     * The in-memory Fashion-MNIST section of before {@code source}, {@code prefetch} and {@code csv}: those at their
     * defaults.
     *
     * @param dataset       the dataset
     * @param path          the directory holding the dataset's files
     * @param trainLimit    how many training examples to use, 0 for all
     * @param testLimit     how many test examples to use, 0 for all
     * @param preprocessing the transform applied to pixel values
     */
    public DataConfig(DatasetName dataset, String path, int trainLimit, int testLimit,
                      PixelPreprocessing preprocessing) {
        this(dataset, path, NO_TEST_PATH, DEFAULT_SOURCE, DEFAULT_PREFETCH, DEFAULT_CHECK, CsvConfig.defaults(),
                trainLimit, testLimit, preprocessing);
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
        return new DataConfig(dataset, path, testPath, source, prefetch, check, csv, newTrainLimit, testLimit,
                preprocessing);
    }

    /**
     * @param newTestLimit how many test examples to use, 0 for all
     * @return this section with {@code testLimit} replaced
     */
    public DataConfig withTestLimit(int newTestLimit) {
        return new DataConfig(dataset, path, testPath, source, prefetch, check, csv, trainLimit, newTestLimit,
                preprocessing);
    }

    /**
     * @param newSource whether every process reads the data into memory or each worker streams its rows
     * @return this section with {@code source} replaced
     */
    public DataConfig withSource(SourceKind newSource) {
        return new DataConfig(dataset, path, testPath, newSource, prefetch, check, csv, trainLimit, testLimit,
                preprocessing);
    }

    /**
     * @param newCheck how much of its share of the rows each worker reads before step 0
     * @return this section with {@code check} replaced
     */
    public DataConfig withCheck(DataCheck newCheck) {
        return new DataConfig(dataset, path, testPath, source, prefetch, newCheck, csv, trainLimit, testLimit,
                preprocessing);
    }

    /** {@code check} as the YAML spells it: {@code full}, {@code sample} or {@code none}. */
    @JsonProperty("check")
    String checkAsWritten() {
        return check.configName();
    }

    private static DataCheck parseCheck(String value) {
        try {
            return DataCheck.parse("data.check", value);
        } catch (IllegalArgumentException e) {
            throw ConfigException.forKey("data.check", "must be full, sample or none, found " + Checks.quote(value));
        }
    }

    @JsonCreator
    private static DataConfig fromYaml(@JsonProperty("dataset") DatasetName dataset,
                                       @JsonProperty("path") String path,
                                       @JsonProperty("testPath") String testPath,
                                       @JsonProperty("source") SourceKind source,
                                       @JsonProperty("prefetch") Integer prefetch,
                                       @JsonProperty("check") String check,
                                       @JsonProperty("csv") CsvConfig csv,
                                       @JsonProperty("trainLimit") Integer trainLimit,
                                       @JsonProperty("testLimit") Integer testLimit,
                                       @JsonProperty("preprocessing") PixelPreprocessing preprocessing) {
        return new DataConfig(
                Checks.orDefault(dataset, DEFAULT_DATASET),
                Checks.orDefault(path, DEFAULT_PATH),
                Checks.orDefault(testPath, NO_TEST_PATH),
                Checks.orDefault(source, DEFAULT_SOURCE),
                Checks.orDefault(prefetch, DEFAULT_PREFETCH),
                check == null ? DEFAULT_CHECK : parseCheck(check),
                Checks.orDefault(csv, CsvConfig.defaults()),
                Checks.orDefault(trainLimit, NO_LIMIT),
                Checks.orDefault(testLimit, NO_LIMIT),
                Checks.orDefault(preprocessing, DEFAULT_PREPROCESSING));
    }
}
