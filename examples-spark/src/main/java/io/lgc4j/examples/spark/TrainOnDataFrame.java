package io.lgc4j.examples.spark;

import io.lgc4j.examples.MakeCsv;
import io.lgc4j.examples.TrainOnCsv;
import io.lgc4j.spark.LgcEstimator;
import io.lgc4j.spark.LgcModel;

import org.apache.spark.ml.feature.VectorAssembler;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;

import java.nio.file.Path;

/**
 * The model of {@link TrainOnCsv} on a Spark DataFrame: Spark reads the CSV files, a {@code VectorAssembler} makes
 * the features column, {@link LgcEstimator} trains one rank per partition (top-k 10 % through a parameter server whose
 * shard runs in task 0) and {@link LgcModel#transform} adds the prediction.
 *
 * <pre>
 * spark-submit --master local[2] --class io.lgc4j.examples.spark.TrainOnDataFrame app.jar data 3
 * java -cp "$CP" io.lgc4j.examples.spark.TrainOnDataFrame data 3 local[2]     # or from your IDE
 * </pre>
 */
public final class TrainOnDataFrame {

    private TrainOnDataFrame() {
    }

    public static void main(String[] args) {
        Path data = Path.of(args.length > 0 ? args[0] : "data");
        int epochs = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        SparkSession.Builder builder = SparkSession.builder().appName("lgc4j example");
        if (args.length > 2) {
            builder.master(args[2]);
        }
        SparkSession spark = builder.getOrCreate();
        try {
            System.out.printf("test accuracy %.4f%n", train(spark, data, epochs));
        } finally {
            spark.stop();
        }
    }

    /** Fits on {@code data/train}, returns the accuracy on {@code data/test}. */
    public static double train(SparkSession spark, Path data, int epochs) {
        LgcEstimator estimator = new LgcEstimator()
                .setModelFactory(TrainOnCsv::model)       // serializable: each task builds the same model
                .setFeaturesCol("features").setLabelCol("label").setNumClasses(MakeCsv.CLASSES)
                .setWorkers(2)                            // K ranks = K partitions, one barrier task each
                .setBatchSizePerWorker(32).setEpochs(epochs).setSeed(42)
                .setSortCol("id")                         // the same rows in the same order every time
                .setMethod("topology: {type: ps}\ncompressor: {type: topk, ratio: 0.1}");
        LgcModel model = estimator.fit(frame(spark, data.resolve("train")));
        Dataset<Row> scored = model.transform(frame(spark, data.resolve("test")));
        long correct = scored.filter(functions.col("prediction").equalTo(functions.col("label"))).count();
        return correct / (double) scored.count();
    }

    /** The CSV files under {@code dir} as (id, features, label): the 16 feature columns assembled into a vector. */
    static Dataset<Row> frame(SparkSession spark, Path dir) {
        Dataset<Row> rows = spark.read().option("header", "true").option("inferSchema", "true").csv(dir.toString());
        String[] inputs = new String[MakeCsv.FEATURES];
        for (int f = 0; f < inputs.length; f++) {
            inputs[f] = "x" + f;
        }
        return new VectorAssembler().setInputCols(inputs).setOutputCol("features").transform(rows)
                .withColumn("label", functions.col("label").cast("double"))
                .withColumn("id", functions.monotonically_increasing_id())
                .select("id", "features", "label");
    }
}
