package io.lgc4j.spark;

import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.api.java.function.MapPartitionsFunction;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.ml.linalg.SQLDataTypes;
import org.apache.spark.ml.linalg.Vectors;
import org.apache.spark.ml.param.IntParam;
import org.apache.spark.ml.param.Param;
import org.apache.spark.ml.param.ParamMap;
import org.apache.spark.ml.param.ParamValidators;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.deeplearning4j.nn.api.Model;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;

/**
 * The DL4J model an {@link LgcEstimator} trained, as a Spark ML {@link org.apache.spark.ml.Model}: {@link
 * #transform} adds the predicted class index ({@code predictionCol}, double) and the class probabilities
 * ({@code probabilityCol}, a Vector: the model's output) to every row, evaluating the model on each partition in
 * batches of {@code transformBatchSize} rows from a broadcast copy of its bytes.
 *
 * <pre>{@code
 * LgcModel model = estimator.fit(train);
 * double accuracy = model.transform(test).filter("prediction = label").count() / (double) test.count();
 * ComputationGraph net = (ComputationGraph) model.model();     // with the updater state: training can go on
 * }</pre>
 *
 * The model is held as DL4J's {@code ModelSerializer} bytes ({@link #modelBytes()}); write them to a file to keep
 * it ({@code ModelSerializer.restoreComputationGraph} reads it back).
 */
public final class LgcModel extends org.apache.spark.ml.Model<LgcModel> {
    private static final long serialVersionUID = 1L;

    private final String uid;
    private final byte[] bytes;
    private final boolean graph;
    private final int width;
    private final int numClasses;
    private final FitReport report;
    private final Param<String> featuresCol;
    private final Param<String> predictionCol;
    private final Param<String> probabilityCol;
    private final IntParam transformBatchSize;
    private transient Model model;

    LgcModel(String uid, byte[] bytes, boolean graph, int width, int numClasses, FitReport report) {
        this.uid = uid;
        this.bytes = bytes.clone();
        this.graph = graph;
        this.width = width;
        this.numClasses = numClasses;
        this.report = report;
        featuresCol = new Param<>(this, "featuresCol", "features column: a Vector, array<double> or array<float>");
        predictionCol = new Param<>(this, "predictionCol", "predicted class index column (double)");
        probabilityCol = new Param<>(this, "probabilityCol", "class probabilities column (Vector)");
        transformBatchSize = new IntParam(this, "transformBatchSize", "rows evaluated at once by transform",
                ParamValidators.gtEq(1));
        setDefault(featuresCol, "features");
        setDefault(predictionCol, "prediction");
        setDefault(probabilityCol, "probability");
        setDefault(transformBatchSize, 256);
    }

    @Override
    public String uid() {
        return uid;
    }

    /** The features column parameter. */
    public Param<String> featuresCol() {
        return featuresCol;
    }

    /** The prediction column parameter. */
    public Param<String> predictionCol() {
        return predictionCol;
    }

    /** The probability column parameter. */
    public Param<String> probabilityCol() {
        return probabilityCol;
    }

    /** The transform batch size parameter. */
    public IntParam transformBatchSize() {
        return transformBatchSize;
    }

    /** Sets the features column. */
    public LgcModel setFeaturesCol(String column) {
        set(featuresCol, column);
        return this;
    }

    /** Sets the prediction column. */
    public LgcModel setPredictionCol(String column) {
        set(predictionCol, column);
        return this;
    }

    /** Sets the probability column. */
    public LgcModel setProbabilityCol(String column) {
        set(probabilityCol, column);
        return this;
    }

    /** Sets how many rows transform evaluates at once. */
    public LgcModel setTransformBatchSize(int rows) {
        set(transformBatchSize, rows);
        return this;
    }

    /** The trained DL4J model (a {@link MultiLayerNetwork} or {@link ComputationGraph}), with its updater state. */
    public synchronized Model model() {
        if (model == null) {
            model = Models.fromBytes(bytes, graph);
        }
        return model;
    }

    /** The trained model in DL4J's {@code ModelSerializer} format, updater state included (a copy). */
    public byte[] modelBytes() {
        return bytes.clone();
    }

    /** The features' width the model reads. */
    public int numFeatures() {
        return width;
    }

    /** The classes the model tells apart. */
    public int numClasses() {
        return numClasses;
    }

    /** The steps the run trained; after a resume, the steps before its checkpoint included. */
    public int trainingSteps() {
        return report.steps();
    }

    /** CRC32C of every rank's final parameters, in rank order: all equal (the replicas stayed identical). */
    public List<String> replicaChecksums() {
        return report.replicaChecksums();
    }

    /**
     * The attempts of the estimator's barrier stage: 1 when the first trained the model; more when Spark retried the
     * stage after a task failed (only with {@link LgcEstimator#setCheckpointDir checkpoints}).
     */
    public int stageAttempts() {
        return report.stageAttempts();
    }

    /**
     * The step of the checkpoint the last stage attempt resumed every rank from (its next step), or -1 when it
     * started at step 0 (the first attempt, or a retry that found no complete checkpoint).
     */
    public long resumedFromStep() {
        return report.resumedFromStep();
    }

    /** The run's checkpoint directory, {@code checkpointDir/<run id>}, or null when the fit saved no checkpoints. */
    public String checkpointRunDir() {
        return report.checkpointRunDir();
    }

    /** The candidate {@code compressor: auto} chose (its id), or null when the method was named. */
    public String chosenMethod() {
        return report.chosenMethod();
    }

    /** The advice table that chose it (rank 0's: step times by stage, times to the target, why), or null. */
    public String advice() {
        return report.advice();
    }

    @Override
    public LgcModel copy(ParamMap extra) {
        LgcModel copy = new LgcModel(uid, bytes, graph, width, numClasses, report);
        return copyValues(copy, extra).setParent(parent());
    }

    /** {@code schema} with a double prediction column and a Vector probability column, refusing names in use. */
    static StructType outputSchema(StructType schema, String prediction, String probability) {
        for (String column : new String[] {prediction, probability}) {
            if (Arrays.asList(schema.fieldNames()).contains(column)) {
                throw new IllegalArgumentException("the DataFrame has a column '" + column + "' already: the model"
                        + " adds it (set predictionCol and probabilityCol to free names)");
            }
        }
        return schema.add(prediction, DataTypes.DoubleType, false).add(probability, SQLDataTypes.VectorType(), false);
    }

    @Override
    public StructType transformSchema(StructType schema) {
        Columns.featureKind(schema, getOrDefault(featuresCol), "featuresCol");
        return outputSchema(schema, getOrDefault(predictionCol), getOrDefault(probabilityCol));
    }

    @Override
    public Dataset<Row> transform(Dataset<?> dataset) {
        StructType out = transformSchema(dataset.schema());
        Dataset<Row> df = dataset.toDF();
        String features = getOrDefault(featuresCol);
        Columns.Kind kind = Columns.featureKind(df.schema(), features, "featuresCol");
        Broadcast<byte[]> shared = JavaSparkContext.fromSparkContext(df.sparkSession().sparkContext())
                .broadcast(bytes);
        return df.mapPartitions(new Predict(shared, graph, df.schema().fieldIndex(features), kind, width,
                (Integer) getOrDefault(transformBatchSize)), Encoders.row(out));
    }

    /** One partition's rows with the model's prediction and probabilities, evaluated in batches. */
    private record Predict(Broadcast<byte[]> bytes, boolean graph, int column, Columns.Kind kind, int width,
                           int batch) implements MapPartitionsFunction<Row, Row> {
        private static final long serialVersionUID = 1L;

        @Override
        public Iterator<Row> call(Iterator<Row> rows) {
            return new Iterator<>() {
                private Model model;
                private final List<Row> out = new ArrayList<>();
                private int next;

                @Override
                public boolean hasNext() {
                    if (next < out.size()) {
                        return true;
                    }
                    out.clear();
                    next = 0;
                    List<Row> in = new ArrayList<>(batch);
                    while (in.size() < batch && rows.hasNext()) {
                        in.add(rows.next());
                    }
                    if (in.isEmpty()) {
                        return false;
                    }
                    if (model == null) {
                        model = Models.fromBytes(bytes.value(), graph);
                    }
                    INDArray x = Nd4j.create(Columns.features(in, column, kind, width), new long[] {in.size(), width},
                            'c');
                    INDArray p = graph ? ((ComputationGraph) model).outputSingle(false, x)
                            : ((MultiLayerNetwork) model).output(x, false);
                    double[][] probabilities = p.toDoubleMatrix();
                    for (int r = 0; r < in.size(); r++) {
                        double[] pr = probabilities[r];
                        int best = 0;
                        for (int c = 1; c < pr.length; c++) {
                            if (pr[c] > pr[best]) {
                                best = c;
                            }
                        }
                        Row row = in.get(r);
                        Object[] values = new Object[row.length() + 2];
                        for (int i = 0; i < row.length(); i++) {
                            values[i] = row.get(i);
                        }
                        values[row.length()] = (double) best;
                        values[row.length() + 1] = Vectors.dense(pr);
                        out.add(RowFactory.create(values));
                    }
                    return true;
                }

                @Override
                public Row next() {
                    if (!hasNext()) {
                        throw new NoSuchElementException();
                    }
                    return out.get(next++);
                }
            };
        }
    }
}
