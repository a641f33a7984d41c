package my;

import io.lgc4j.core.compress.DgcCompressor;
import io.lgc4j.core.data.MemorySource;
import io.lgc4j.core.stage.StageSchedule;
import io.lgc4j.core.train.DistributedTrainer;
import io.lgc4j.core.train.TrainingResult;
import io.lgc4j.ps.topology.ParameterServerTopology;
import org.deeplearning4j.datasets.iterator.utilty.ListDataSetIterator;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.layers.BatchNormalization;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.DropoutLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.config.Sgd;
import org.nd4j.linalg.lossfunctions.LossFunctions;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.GZIPInputStream;

/** sklearn's digits with Dropout and batch norm, DGC through a parameter server, as many ranks as launched. */
public class Digits {
    static DataSet digits(Path csvGz) throws Exception {
        List<float[]> rows = new ArrayList<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(new GZIPInputStream(Files.newInputStream(csvGz))))) {
            for (String line; (line = r.readLine()) != null; ) {
                String[] c = line.split(",");
                float[] v = new float[c.length];
                for (int i = 0; i < c.length; i++) v[i] = Float.parseFloat(c[i]);
                rows.add(v);
            }
        }
        float[][] x = new float[rows.size()][64];
        float[][] y = new float[rows.size()][10];
        for (int i = 0; i < rows.size(); i++) {
            for (int j = 0; j < 64; j++) x[i][j] = rows.get(i)[j] / 16f;
            y[i][(int) rows.get(i)[64]] = 1f;
        }
        return new DataSet(Nd4j.create(x), Nd4j.create(y));
    }

    static MultiLayerNetwork model() {
        MultiLayerNetwork net = new MultiLayerNetwork(new NeuralNetConfiguration.Builder().seed(3).updater(new Sgd(0.1))
                .list()
                .layer(new DenseLayer.Builder().nIn(64).nOut(64).activation(Activation.RELU).build())
                .layer(new BatchNormalization.Builder().nOut(64).build())
                .layer(new DropoutLayer.Builder(0.8).build())
                .layer(new OutputLayer.Builder(LossFunctions.LossFunction.MCXENT).nIn(64).nOut(10)
                        .activation(Activation.SOFTMAX).build())
                .build());
        net.init();
        return net;
    }

    public static void main(String[] args) throws Exception {
        DataSet all = digits(Path.of(args[0]));
        DataSet data = (DataSet) all.getRange(0, 1500);
        DataSet test = (DataSet) all.getRange(1500, all.numExamples());
        int epochs = Integer.parseInt(args[1]);
        TrainingResult r = DistributedTrainer.builder().model(model()).data(MemorySource.of(data)).batchSizePerWorker(16)
                .evaluation(new ListDataSetIterator<>(test.asList(), 100), 0)
                .topology(new ParameterServerTopology(new DgcCompressor(0.05, 0.9, 0, 0)))
                .stages(StageSchedule.denseWarmup(5)).seed(7).checkpoints(Path.of("checkpoints-here"), 5)
                .fromEnvironment().build().fit(epochs);
        System.out.println("steps " + r.stepCount() + " test accuracy " + r.finalAccuracy() + " checksums "
                + r.replicaChecksums());
    }
}
