package io.lgc4j.spark;

import org.apache.spark.BarrierTaskContext;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

import java.util.List;
import java.util.TreeSet;

/**
 * A driver program for {@link LgcEstimatorExitTest}: fits a small estimator and compares its parameters with
 * {@code DistributedTrainer}'s over the same partitions in one JVM (or, mode {@code plain}, runs a plain Spark barrier
 * stage, the control), prints the JVM's live non-daemon threads and "fit returned", and returns from {@code main}
 * without stopping Spark or calling {@code System.exit}.
 *
 * <p>Arguments: MASTER [estimator|plain] [stop]; "stop" stops the session before returning.
 */
public final class EstimatorExitProgram {
    /** What the program prints once fit returned. */
    static final String FIT_RETURNED = "fit returned";
    /** What the program prints after comparing the estimator's parameters with the in-process run's. */
    static final String EQUAL = "equal to the in-process run: ";

    private EstimatorExitProgram() {
    }

    /** Runs it. */
    public static void main(String[] args) {
        String master = args.length > 0 ? args[0] : "local[2]";
        String mode = args.length > 1 ? args[1] : "estimator";
        SparkSession spark = SparkSession.builder().master(master).appName("lgc-exit-program")
                .config("spark.driver.host", "127.0.0.1").config("spark.driver.bindAddress", "127.0.0.1")
                .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "2").getOrCreate();
        if (mode.equals("plain")) {
            org.apache.spark.api.java.JavaSparkContext.fromSparkContext(spark.sparkContext())
                    .parallelize(List.of(1, 2), 2).rdd().barrier()
                    .mapPartitions(new Plain(), false, scala.reflect.ClassTag$.MODULE$.apply(String.class))
                    .collect();
        } else {
            Dataset<Row> train = EstimatorData.frame(spark, EstimatorData.rows(96, 1), EstimatorData.SCHEMA, 48, 48);
            LgcModel model = new LgcEstimator().setModelFactory(EstimatorData::graph).setWorkers(2)
                    .setBatchSizePerWorker(16).setSortCol("id").setSeed(7).fit(train);
            // the same partitions in one JVM: the estimator must have trained exactly this
            io.lgc4j.core.train.DistributedTrainer inProcess = io.lgc4j.core.train.DistributedTrainer.builder()
                    .model(EstimatorData.graph()).workers(2).batchSizePerWorker(16).seed(7)
                    .data(io.lgc4j.core.data.RankLocalSource.of(96, 48 / 16, EstimatorData.partitions(train)::get))
                    .topology(new io.lgc4j.ring.topology.RingTopology()).build();
            inProcess.fit(1);
            System.out.println(EQUAL + java.util.Arrays.equals(inProcess.trainedModel().params().toFloatVector(),
                    model.model().params().toFloatVector()));
        }
        System.out.println("non-daemon threads: " + nonDaemonThreads());
        if (args.length > 2 && args[2].equals("stop")) {
            spark.stop();
            System.out.println("non-daemon threads after stop: " + nonDaemonThreads());
        }
        System.out.println(FIT_RETURNED);
        System.out.flush();
    }

    /** The names of the live non-daemon threads but this one, sorted. */
    static TreeSet<String> nonDaemonThreads() {
        TreeSet<String> names = new TreeSet<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.isAlive() && !t.isDaemon() && t != Thread.currentThread()) {
                names.add(t.getName());
            }
        }
        return names;
    }

    /** A barrier task that only calls barrier(): the control of Spark's own timer. */
    private static final class Plain extends scala.runtime.AbstractFunction1<scala.collection.Iterator<Integer>,
            scala.collection.Iterator<String>> implements java.io.Serializable {
        private static final long serialVersionUID = 1L;

        @Override
        public scala.collection.Iterator<String> apply(scala.collection.Iterator<Integer> rows) {
            BarrierTaskContext.get().barrier();
            return scala.collection.JavaConverters.asScalaIterator(List.of("done").iterator());
        }
    }
}
