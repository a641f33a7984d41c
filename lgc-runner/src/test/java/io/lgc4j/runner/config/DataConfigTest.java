package io.lgc4j.runner.config;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The data section's new keys (issue 40): source, prefetch and csv, with the exact messages of their rules. */
class DataConfigTest {

    private static final String RUN = "run:\n  name: q\n";

    private static String parseError(String yaml) {
        return assertThrows(ConfigException.class, () -> ConfigLoader.parse(yaml, "x.yaml")).getMessage();
    }

    @Test
    void theNewKeysShouldDefaultToTheInMemoryPath() {
        DataConfig data = ConfigLoader.parse(RUN, "x.yaml").data();
        assertEquals(SourceKind.MEMORY, data.source());
        assertEquals(2, data.prefetch());
        assertEquals(CsvConfig.defaults(), data.csv());
        assertEquals(DataConfig.defaults(), data);
    }

    @Test
    void aCsvConfigShouldLoad() {
        DataConfig data = ConfigLoader.parse(RUN + "data: {dataset: csv, source: files, path: /d, prefetch: 0,"
                + " csv: {labelColumn: 784, classes: 10, skipLines: 1, delimiter: \";\"}}\n", "x.yaml").data();
        assertEquals(DatasetName.CSV, data.dataset());
        assertEquals(SourceKind.FILES, data.source());
        assertEquals(0, data.prefetch());
        assertEquals(new CsvConfig(784, 10, 1, ";"), data.csv());
        assertEquals("csv", DatasetName.CSV.toString());
        assertEquals("files", SourceKind.FILES.toString());
    }

    @Test
    void badValuesShouldNameTheirKey() {
        assertEquals("x.yaml: key 'data.prefetch' must be >= 0, found -1",
                parseError(RUN + "data: {prefetch: -1}\n"));
        assertEquals("x.yaml: key 'data.source' expects one of [files, memory], found \"disk\"",
                parseError(RUN + "data: {source: disk}\n"));
        assertEquals("x.yaml: key 'data.csv.delimiter' must be one character other than a quote or a line break,"
                + " found \"ab\"", parseError(RUN + "data: {dataset: csv, source: files,"
                + " csv: {labelColumn: 0, classes: 2, delimiter: ab}}\n"));
        assertEquals("x.yaml: key 'data.csv.labelColumn' must be >= -1, found -2",
                parseError(RUN + "data: {csv: {labelColumn: -2}}\n"));
    }

    @Test
    void csvShouldBeStreamedWithItsLabelSet() {
        assertEquals("x.yaml: key 'data.source' must be files with data.dataset csv (each worker streams its rows of"
                + " the CSV files), found memory", parseError(RUN + "data: {dataset: csv,"
                + " csv: {labelColumn: 0, classes: 2}}\n"));
        assertEquals("x.yaml: key 'data.csv.labelColumn' must be set with data.dataset csv: the column (from 0) that"
                + " holds the class", parseError(RUN + "data: {dataset: csv, source: files}\n"));
        assertEquals("x.yaml: key 'data.csv.classes' must be set with data.dataset csv: how many classes the labels"
                + " count (0 … classes-1)", parseError(RUN + "data: {dataset: csv, source: files,"
                + " csv: {labelColumn: 3}}\n"));
        assertEquals("x.yaml: key 'data.preprocessing' applies to Fashion-MNIST's pixels; data.dataset csv reads its"
                + " values as they are, found scale; remove it", parseError(RUN + "data: {dataset: csv, source: files,"
                + " preprocessing: scale, csv: {labelColumn: 3, classes: 4}}\n"));
        assertEquals("x.yaml: key 'data.testLimit' limits the test rows of data.testPath, which is not set (the run"
                + " evaluates nothing), found 500; set data.testPath or remove it", parseError(RUN + "data: {dataset:"
                + " csv, source: files, testLimit: 500, csv: {labelColumn: 3, classes: 4}}\n"));
        assertEquals("x.yaml: key 'data.testPath' applies to data.dataset csv only (Fashion-MNIST's test split is in"
                + " data.path), found \"t\"; remove it", parseError(RUN + "data: {testPath: t}\n"));
        assertEquals("x.yaml: key 'data.check' must be full, sample or none, found \"half\"", parseError(RUN
                + "data: {check: half}\n"));
        assertEquals("x.yaml: key 'data.csv' applies to data.dataset csv only, found 3/4/0/\",\""
                + " (labelColumn/classes/skipLines/delimiter) with data.dataset fashion-mnist; remove it",
                parseError(RUN + "data: {source: files, csv: {labelColumn: 3, classes: 4}}\n"));
    }
}
