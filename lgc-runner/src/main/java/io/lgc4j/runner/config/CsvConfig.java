package io.lgc4j.runner.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/**
 * The {@code data.csv} keys: how the CSV files of {@code data.dataset: csv} are read. Every line is one example; one
 * column holds its class, every other column a numeric feature.
 *
 * <pre>{@code
 * data:
 *   dataset: csv
 *   source: files
 *   path: /data/train                  # a directory of CSV files (read in name order) or one file
 *   csv: {labelColumn: 784, classes: 10, skipLines: 1, delimiter: ","}
 * }</pre>
 *
 * @param labelColumn the column (from 0) holding the class; -1 (the default) is unset and refused with {@code csv}
 * @param classes     how many classes, labels one-hot; 0 (the default) is unset and refused with {@code csv}
 * @param skipLines   lines skipped at the top of every file (a header)
 * @param delimiter   the field delimiter, one character
 */
@JsonPropertyOrder({"labelColumn", "classes", "skipLines", "delimiter"})
public record CsvConfig(int labelColumn, int classes, int skipLines, String delimiter) {

    /** Default of {@code data.csv.labelColumn}: unset. */
    public static final int NO_LABEL_COLUMN = -1;
    /** Default of {@code data.csv.classes}: unset. */
    public static final int NO_CLASSES = 0;
    /** Default of {@code data.csv.delimiter}. */
    public static final String DEFAULT_DELIMITER = ",";

    /**
     * Checks every component.
     *
     * @throws ConfigException if a component is out of range
     */
    public CsvConfig {
        Checks.atLeast("data.csv.labelColumn", labelColumn, NO_LABEL_COLUMN);
        Checks.atLeast("data.csv.classes", classes, NO_CLASSES);
        Checks.atLeast("data.csv.skipLines", skipLines, 0);
        Checks.required("data.csv.delimiter", delimiter);
        if (delimiter.length() != 1 || delimiter.equals("\"") || delimiter.equals("\n") || delimiter.equals("\r")) {
            throw ConfigException.forKey("data.csv.delimiter", "must be one character other than a quote or a line"
                    + " break, found " + Checks.quote(delimiter));
        }
    }

    /** @return the keys at their defaults (unset: {@code dataset: csv} must set labelColumn and classes) */
    public static CsvConfig defaults() {
        return new CsvConfig(NO_LABEL_COLUMN, NO_CLASSES, 0, DEFAULT_DELIMITER);
    }

    @JsonCreator
    private static CsvConfig fromYaml(@JsonProperty("labelColumn") Integer labelColumn,
                                      @JsonProperty("classes") Integer classes,
                                      @JsonProperty("skipLines") Integer skipLines,
                                      @JsonProperty("delimiter") String delimiter) {
        return new CsvConfig(Checks.orDefault(labelColumn, NO_LABEL_COLUMN), Checks.orDefault(classes, NO_CLASSES),
                Checks.orDefault(skipLines, 0), Checks.orDefault(delimiter, DEFAULT_DELIMITER));
    }
}
