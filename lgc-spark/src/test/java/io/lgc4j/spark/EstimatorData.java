package io.lgc4j.spark;

import org.apache.spark.Partitioner;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.ml.linalg.SQLDataTypes;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.ml.linalg.Vectors;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.graph.MergeVertex;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.weights.WeightInit;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.config.Nesterovs;
import org.nd4j.linalg.lossfunctions.LossFunctions;
import scala.Tuple2;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;

/** The estimator tests' data and model: three Gaussian classes in four dimensions, a two-branch graph. */
final class EstimatorData {
    static final int WIDTH = 4;
    static final int CLASSES = 3;
    static final StructType SCHEMA = new StructType().add("id", DataTypes.LongType, false)
            .add("features", SQLDataTypes.VectorType(), false).add("label", DataTypes.DoubleType, false);

    private EstimatorData() {
    }

    /** Two dense branches of the input merged, then a softmax output: an initialized graph. */
    static ComputationGraph graph() {
        ComputationGraphConfiguration conf = new NeuralNetConfiguration.Builder().seed(5)
                .updater(new Nesterovs(0.1, 0.9)).weightInit(WeightInit.XAVIER).graphBuilder().addInputs("in")
                .addLayer("a", new DenseLayer.Builder().nIn(WIDTH).nOut(8).activation(Activation.TANH).build(), "in")
                .addLayer("b", new DenseLayer.Builder().nIn(WIDTH).nOut(8).activation(Activation.RELU).build(), "in")
                .addVertex("m", new MergeVertex(), "a", "b")
                .addLayer("out", new OutputLayer.Builder(LossFunctions.LossFunction.MCXENT).nIn(16)
                        .nOut(CLASSES).activation(Activation.SOFTMAX).build(), "m")
                .setOutputs("out").build();
        ComputationGraph graph = new ComputationGraph(conf);
        graph.init();
        return graph;
    }

    /**
     * A graph that draws random numbers while it trains: a dense stem, batch normalization, a hidden layer with
     * Dropout and DropConnect added back to the stem (a residual merge), a layer with Gaussian noise, Adam.
     */
    static ComputationGraph noisyGraph() {
        ComputationGraphConfiguration conf = new NeuralNetConfiguration.Builder().seed(5)
                .updater(new org.nd4j.linalg.learning.config.Adam(1e-2)).weightInit(WeightInit.XAVIER).graphBuilder()
                .addInputs("in")
                .addLayer("stem", new DenseLayer.Builder().nIn(WIDTH).nOut(8).activation(Activation.RELU).build(), "in")
                .addLayer("bn", new org.deeplearning4j.nn.conf.layers.BatchNormalization.Builder().nOut(8).build(),
                        "stem")
                .addLayer("hidden", new DenseLayer.Builder().nIn(8).nOut(8).activation(Activation.RELU).dropOut(0.5)
                        .weightNoise(new org.deeplearning4j.nn.conf.weightnoise.DropConnect(0.9)).build(), "bn")
                .addVertex("residual", new org.deeplearning4j.nn.conf.graph.ElementWiseVertex(
                        org.deeplearning4j.nn.conf.graph.ElementWiseVertex.Op.Add), "hidden", "stem")
                .addLayer("noisy", new DenseLayer.Builder().nIn(8).nOut(8).activation(Activation.TANH)
                        .dropOut(new org.deeplearning4j.nn.conf.dropout.GaussianNoise(0.1)).build(), "residual")
                .addLayer("out", new OutputLayer.Builder(LossFunctions.LossFunction.MCXENT).nIn(8)
                        .nOut(CLASSES).activation(Activation.SOFTMAX).build(), "noisy")
                .setOutputs("out").build();
        ComputationGraph graph = new ComputationGraph(conf);
        graph.init();
        return graph;
    }

    /** {@code n} rows (id, features, label): class c centred at 2 on axis c, noise 0.7. */
    static List<Row> rows(int n, long seed) {
        Random random = new Random(seed);
        List<Row> rows = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            int c = random.nextInt(CLASSES);
            double[] x = new double[WIDTH];
            for (int d = 0; d < WIDTH; d++) {
                x[d] = (d == c ? 2.0 : 0.0) + 0.7 * random.nextGaussian();
            }
            rows.add(RowFactory.create((long) i, Vectors.dense(x), (double) c));
        }
        return rows;
    }

    /** The rows as a DataFrame of exactly {@code sizes.length} partitions, partition p holding the next sizes[p]. */
    static Dataset<Row> frame(SparkSession spark, List<Row> rows, StructType schema, int... sizes) {
        JavaSparkContext jsc = JavaSparkContext.fromSparkContext(spark.sparkContext());
        List<Tuple2<Integer, Row>> keyed = new ArrayList<>();
        int p = 0;
        int left = sizes[0];
        for (Row row : rows) {
            while (left == 0) {
                left = sizes[++p];
            }
            keyed.add(new Tuple2<>(p, row));
            left--;
        }
        JavaRDD<Row> partitioned = jsc.parallelizePairs(keyed, sizes.length).partitionBy(new ByKey(sizes.length))
                .values();
        return spark.createDataFrame(partitioned, schema);
    }

    /** Partition = the key. */
    static final class ByKey extends Partitioner {
        private static final long serialVersionUID = 1L;
        private final int partitions;

        ByKey(int partitions) {
            this.partitions = partitions;
        }

        @Override
        public int numPartitions() {
            return partitions;
        }

        @Override
        public int getPartition(Object key) {
            return (Integer) key;
        }
    }

    /** The rows of every partition of {@code train} (id, features, label), sorted by id: what one JVM's ranks read. */
    static List<DataSet> partitions(Dataset<Row> train) {
        List<DataSet> perRank = new ArrayList<>();
        for (List<Row> partition : train.javaRDD().glom().collect()) {
            List<Row> sorted = new ArrayList<>(partition);
            sorted.sort(Comparator.comparingLong(r -> r.getLong(0)));
            float[] x = new float[sorted.size() * WIDTH];
            float[] y = new float[sorted.size() * CLASSES];
            for (int r = 0; r < sorted.size(); r++) {
                double[] f = ((Vector) sorted.get(r).get(1)).toArray();
                for (int d = 0; d < f.length; d++) {
                    x[r * WIDTH + d] = (float) f[d];
                }
                y[r * CLASSES + (int) sorted.get(r).getDouble(2)] = 1f;
            }
            perRank.add(new DataSet(Nd4j.create(x, new long[] {sorted.size(), WIDTH}, 'c'),
                    Nd4j.create(y, new long[] {sorted.size(), CLASSES}, 'c')));
        }
        return perRank;
    }
}
