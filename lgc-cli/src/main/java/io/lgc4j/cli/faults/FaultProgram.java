package io.lgc4j.cli.faults;

import io.lgc4j.core.compress.DgcCompressor;
import io.lgc4j.core.stage.StageSchedule;
import io.lgc4j.core.train.DistributedTrainer;
import io.lgc4j.core.train.Topology;
import io.lgc4j.datasource.CsvSource;
import io.lgc4j.lgc.ps.LgcPsTopology;
import io.lgc4j.lgc.ring.LgcRingTopology;
import io.lgc4j.ps.topology.ParameterServerTopology;
import io.lgc4j.ring.topology.RingTopology;

import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.nd4j.common.primitives.Pair;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.activations.BaseActivationFunction;
import org.nd4j.linalg.activations.impl.ActivationReLU;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.learning.config.Sgd;
import org.nd4j.linalg.lossfunctions.LossFunctions;

import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A user's program for the fault campaign ({@code scripts/fault-campaign.py}): an MLP of its own on CSV files (784
 * features, the label last, 10 classes), trained by {@code lgc launch --nproc K [--servers S] -- java … FaultProgram}
 * with one of the campaign's methods, and optionally a fault of its own: its model throws on one rank at one step.
 * Faults from outside (SIGKILL, SIGSTOP, a bad row in the files) are the script's.
 *
 * <pre>
 * FaultProgram DATA_DIR METHOD EPOCHS [THROW_RANK THROW_STEP]
 *   METHOD: dense-ps | dgc | lgc-ps | lgc-rar | dense-ring
 * </pre>
 */
public final class FaultProgram {

    private FaultProgram() {
    }

    /** ReLU that throws on its {@code n}th training pass in the process of {@code LGC_RANK} = {@code rank}. */
    public static final class FailingRelu extends BaseActivationFunction {
        private static final long serialVersionUID = 1L;
        private static final AtomicInteger PASSES = new AtomicInteger();
        private final ActivationReLU relu = new ActivationReLU();
        private int rank = -1;
        private int pass = -1;

        /** For DL4J's configuration copies. */
        public FailingRelu() {
        }

        /**
         * @param rank the {@code LGC_RANK} of the process whose model throws
         * @param pass the training pass that throws, from 1
         */
        public FailingRelu(int rank, int pass) {
            this.rank = rank;
            this.pass = pass;
        }

        @Override
        public INDArray getActivation(INDArray in, boolean training) {
            if (training && String.valueOf(rank).equals(System.getenv("LGC_RANK"))
                    && PASSES.incrementAndGet() == pass) {
                throw new IllegalStateException("the model threw on purpose in its training pass " + pass);
            }
            return relu.getActivation(in, training);
        }

        @Override
        public Pair<INDArray, INDArray> backprop(INDArray in, INDArray epsilon) {
            return relu.backprop(in, epsilon);
        }

        @Override
        public String toString() {
            return "failingrelu";
        }
    }

    /**
     * Trains and prints {@code done <rank> <checksums>}.
     *
     * @param args DATA_DIR METHOD EPOCHS [THROW_RANK THROW_STEP]
     */
    public static void main(String[] args) throws Exception {
        if (args.length != 3 && args.length != 5) {
            System.err.println("usage: FaultProgram DATA_DIR METHOD EPOCHS [THROW_RANK THROW_STEP]");
            System.exit(2);
        }
        int throwRank = args.length == 5 ? Integer.parseInt(args[3]) : -1;
        int throwStep = args.length == 5 ? Integer.parseInt(args[4]) : -1;
        MultiLayerNetwork net = new MultiLayerNetwork(new NeuralNetConfiguration.Builder().seed(7)
                .dataType(DataType.FLOAT).updater(new Sgd(0.05)).list()
                .layer(new DenseLayer.Builder().nIn(784).nOut(64).activation(Activation.RELU).build())
                .layer(new DenseLayer.Builder().nIn(64).nOut(32).activation(new FailingRelu(throwRank,
                        throwStep + 1)).build())
                .layer(new OutputLayer.Builder(LossFunctions.LossFunction.MCXENT).nIn(32).nOut(10)
                        .activation(Activation.SOFTMAX).build())
                .build());
        net.init();
        StageSchedule lgcStages = new StageSchedule(4, 8);
        DistributedTrainer.Builder b = DistributedTrainer.builder().model(net).seed(3).batchSizePerWorker(32);
        Topology topology = switch (args[1]) {
            case "dense-ps" -> new ParameterServerTopology();
            case "dense-ring" -> new RingTopology();
            case "dgc" -> new ParameterServerTopology(new DgcCompressor(0.01, 0.9, 0, 0));
            case "lgc-ps" -> LgcPsTopology.builder().ratio(0.05).seed(1).build();
            case "lgc-rar" -> LgcRingTopology.builder().ratio(0.05).seed(1).build();
            default -> throw new IllegalArgumentException("METHOD must be dense-ps, dense-ring, dgc, lgc-ps or"
                    + " lgc-rar, found " + args[1]);
        };
        if (args[1].startsWith("lgc")) {
            b.stages(lgcStages);
        }
        try (CsvSource data = CsvSource.in(Path.of(args[0])).label(784, 10)) {
            var result = b.data(data).topology(topology).fromEnvironment().build().fit(Integer.parseInt(args[2]));
            System.out.println("done " + System.getenv().getOrDefault("LGC_RANK", "in-process") + " "
                    + String.join(",", result.replicaChecksums()));
        }
    }
}
