package io.lgc4j.spark;

import io.lgc4j.runner.config.ConfigLoader;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaSparkContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** An application with dynamic allocation on is refused before anything runs (Spark would refuse the stage). */
class DynamicAllocationTest {

    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void dynamicAllocationShouldBeRefusedAtOnceSayingWhatToSet(@TempDir Path tmp) throws java.io.IOException {
        SparkConf conf = new SparkConf().setMaster("local[3]").setAppName("lgc-spark-test")
                .set("spark.driver.host", "127.0.0.1").set("spark.driver.bindAddress", "127.0.0.1")
                .set("spark.ui.enabled", "false").set("spark.dynamicAllocation.enabled", "true");
        try (JavaSparkContext sc = new JavaSparkContext(conf)) {
            LgcSparkException e = assertThrows(LgcSparkException.class, () -> LgcSpark.fit(sc,
                    ConfigLoader.parse(SparkBarrierRunTest.yaml("lgc-rar", tmp, ""), "lgc-rar.yaml"),
                    SparkOptions.defaults()));
            assertEquals("spark.dynamicAllocation.enabled is true: a barrier stage needs all its tasks at once, and"
                    + " Spark runs none under dynamic allocation (SPARK-24942); set spark.dynamicAllocation.enabled="
                    + "false for this application", e.getMessage());
        }
        try (var left = Files.list(tmp)) {
            assertEquals(0, left.count(), "nothing written into the output directory");
        }
    }
}
