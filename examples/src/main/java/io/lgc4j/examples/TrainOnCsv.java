package io.lgc4j.examples;

import io.lgc4j.core.comm.Direction;
import io.lgc4j.core.compress.TopKCompressor;
import io.lgc4j.core.train.DistributedTrainer;
import io.lgc4j.core.train.TrainingResult;
import io.lgc4j.datasource.CsvSource;
import io.lgc4j.ps.topology.ParameterServerTopology;

import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.nn.weights.WeightInit;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.learning.config.Nesterovs;
import org.nd4j.linalg.lossfunctions.LossFunctions;

import java.io.IOException;
import java.nio.file.Path;

/**
 * Your model on your CSV files, data-parallel with compressed gradients: the same program in one JVM (two ranks as
 * threads) or as one process per rank.
 *
 * <pre>
 * java -cp app.jar io.lgc4j.examples.TrainOnCsv data 3                                   # one JVM, 2 ranks
 * lgc launch --nproc 2 -- java -cp app.jar io.lgc4j.examples.TrainOnCsv data 3           # 2 processes over TCP
 * </pre>
 *
 * <p>Each rank streams its own rows of {@code data/train/*.csv} (a header line, 16 features, the class in column 16),
 * reading ahead on a thread of its own; no process holds the data set. The gradients go through a parameter server
 * (inside rank 0's process when launched) as the top 10 % of every layer's entries, the rest kept in each rank's
 * error feedback. Rank 0 saves the trained model (with its updater) to {@code model.zip}.
 */
public final class TrainOnCsv {

    private TrainOnCsv() {
    }

    public static void main(String[] args) throws IOException {
        Path data = Path.of(args.length > 0 ? args[0] : "data");
        int epochs = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        Path model = Path.of(args.length > 2 ? args[2] : "model.zip");
        train(data, epochs, model);
    }

    /** Trains on {@code data/train}, evaluates on {@code data/test}, saves to {@code modelFile} on rank 0. */
    public static TrainingResult train(Path data, int epochs, Path modelFile) throws IOException {
        int label = MakeCsv.FEATURES; // the last column
        try (CsvSource train = CsvSource.in(data.resolve("train")).skipLines(1).label(label, MakeCsv.CLASSES);
             CsvSource test = CsvSource.in(data.resolve("test")).skipLines(1).label(label, MakeCsv.CLASSES)) {
            DistributedTrainer trainer = DistributedTrainer.builder()
                    .model(model())
                    .data(train)                                   // every rank reads only its own rows
                    .workers(2)                                    // in one JVM; launched, the launcher's --nproc
                    .batchSizePerWorker(32)
                    .topology(new ParameterServerTopology(new TopKCompressor(0.1)))
                    .evaluation(test.inOrder(500), 0)              // at every epoch's end
                    .seed(42)
                    .fromEnvironment()                             // launched: one endpoint of the cluster
                    .build();
            TrainingResult result = trainer.fit(epochs);
            boolean saved = trainer.saveModel(modelFile);
            System.out.printf("endpoint %d: %d steps, test accuracy %.4f, rank 0 sent %,d bytes, replicas %s%s%n",
                    result.endpoint(), result.stepCount(), result.finalAccuracy(),
                    result.traffic().bytes(0, Direction.SENT),
                    String.join(",", result.replicaChecksums()), saved ? ", model saved to " + modelFile : "");
            return result;
        }
    }

    /** Your model: any initialized MultiLayerNetwork or ComputationGraph. */
    public static MultiLayerNetwork model() {
        MultiLayerNetwork net = new MultiLayerNetwork(new NeuralNetConfiguration.Builder()
                .seed(12345).dataType(DataType.FLOAT).updater(new Nesterovs(0.05, 0.9))
                .weightInit(WeightInit.XAVIER).list()
                .layer(new DenseLayer.Builder().nOut(64).activation(Activation.RELU).build())
                .layer(new DenseLayer.Builder().nOut(64).activation(Activation.RELU).build())
                .layer(new OutputLayer.Builder(LossFunctions.LossFunction.MCXENT).nOut(MakeCsv.CLASSES)
                        .activation(Activation.SOFTMAX).build())
                .setInputType(InputType.feedForward(MakeCsv.FEATURES)).build());
        net.init();
        return net;
    }
}
