package io.lgc4j.examples.spark;

import io.lgc4j.examples.MakeCsv;

import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** The Spark example as a user runs it, on {@code local[2]} at a tiny budget. */
class TrainOnDataFrameTest {

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void theEstimatorShouldLearnTheCsvClasses(@TempDir Path data) throws Exception {
        MakeCsv.write(data, 2_000, 400, 7);
        SparkSession spark = SparkSession.builder().master("local[2]").appName("example test")
                .config("spark.ui.enabled", "false").getOrCreate();
        try {
            double accuracy = TrainOnDataFrame.train(spark, data, 2);
            assertTrue(accuracy > 0.6, "4 classes: chance is 0.25, found " + accuracy);
        } finally {
            spark.stop();
        }
    }
}
