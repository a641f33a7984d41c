package io.lgc4j.experiments.runner;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.lgc4j.core.train.DistributedTrainer;
import io.lgc4j.core.train.Topology;
import io.lgc4j.core.train.TrainingListener;
import io.lgc4j.core.train.TrainingResult;
import io.lgc4j.core.codec.IndexCodec;
import io.lgc4j.core.codec.IndexCodecs;
import io.lgc4j.core.compress.Compressor;
import io.lgc4j.core.compress.DgcCompressor;
import io.lgc4j.core.compress.S2SketchCompressor;
import io.lgc4j.core.compress.ScaleComCompressor;
import io.lgc4j.core.compress.TopKCompressor;
import io.lgc4j.core.stage.StageSchedule;
import io.lgc4j.experiments.config.CompressorConfig;
import io.lgc4j.experiments.config.CompressorType;
import io.lgc4j.experiments.config.DataConfig;
import io.lgc4j.experiments.config.ExperimentConfig;
import io.lgc4j.experiments.config.ModelConfig;
import io.lgc4j.experiments.config.UpdaterConfig;
import io.lgc4j.experiments.config.AutoencoderConfig;
import io.lgc4j.experiments.config.SupportPolicyType;
import io.lgc4j.ps.lgc.LgcPsTopology;
import io.lgc4j.ring.lgc.LgcRingTopology;
import io.lgc4j.core.compress.LgcSupportCompressor;
import io.lgc4j.data.FashionMnist;
import io.lgc4j.data.LabeledImages;
import io.lgc4j.data.PixelPreprocessing;
import io.lgc4j.zoo.ModelZoo;
import io.lgc4j.ps.topology.ParameterServerTopology;
import io.lgc4j.ring.topology.RingTopology;
import org.deeplearning4j.nn.api.Model;
import org.nd4j.linalg.learning.config.Adam;
import org.nd4j.linalg.learning.config.IUpdater;
import org.nd4j.linalg.learning.config.Nesterovs;
import org.nd4j.linalg.learning.config.Sgd;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs one {@link ExperimentConfig}: loads the data, builds the model and the topology, trains with
 * {@link DistributedTrainer}, and writes {@code results/<run-id>/} with {@code config.yaml} (resolved),
 * {@code provenance.json}, {@code metrics.csv} and {@code summary.json}.
 *
 * <pre>{@code
 * ExperimentConfig config = ConfigLoader.load(Path.of("configs/quickstart.yaml"));
 * RunOutcome outcome = new ExperimentRunner().run(config, "configs/quickstart.yaml", List.of());
 * System.out.println(outcome.summary().finalTestAccuracy());
 * }</pre>
 */
public final class ExperimentRunner {

    /** The file a finished run writes last. */
    public static final String SUMMARY = "summary.json";

    /**
     * What a run produced.
     *
     * @param directory the result directory
     * @param result    the trainer's result
     * @param summary   the content of summary.json
     */
    public record RunOutcome(Path directory, TrainingResult result, RunSummary summary) {
    }

    /**
     * Runs {@code config}; {@code extraListeners} (a progress bar) observe the training too.
     *
     * @throws IOException when the data cannot be read (a missing dataset names where it looked and how to install
     *                     it) or the result directory cannot be written
     */
    public RunOutcome run(ExperimentConfig config, String configSource, List<TrainingListener> extraListeners)
            throws IOException {
        Path dir = createRunDirectory(Path.of(config.run().outputDir()), config.run().name());
        return runInto(dir, config, configSource, extraListeners);
    }

    /**
     * Runs {@code config} into the given directory (created if absent; files of an earlier attempt are replaced).
     * {@code summary.json} is written last and atomically, so its presence marks a finished run: the table
     * commands use it to resume a suite without rerunning what already finished.
     *
     * @throws IOException as for {@link #run}
     */
    public RunOutcome runInto(Path dir, ExperimentConfig config, String configSource,
                              List<TrainingListener> extraListeners) throws IOException {
        Nd4jEnvironment.configure();
        Files.createDirectories(dir);
        Files.deleteIfExists(dir.resolve(SUMMARY));
        DataConfig data = config.data();
        PixelPreprocessing pixels = switch (data.preprocessing()) {
            case STANDARDIZE -> PixelPreprocessing.STANDARDIZED;
            case SCALE -> PixelPreprocessing.UNIT_RANGE;
        };
        Path dataDir = Path.of(data.path());
        LabeledImages train = FashionMnist.load(dataDir, FashionMnist.Split.TRAIN,
                data.trainLimit() == 0 ? FashionMnist.ALL : data.trainLimit(), pixels);
        LabeledImages test = FashionMnist.load(dataDir, FashionMnist.Split.TEST,
                data.testLimit() == 0 ? FashionMnist.ALL : data.testLimit(), pixels);
        Model model = buildModel(config.model(), config.run().seed());
        Topology topology = topology(config);

        Files.writeString(dir.resolve("config.yaml"), config.toYaml());
        ObjectMapper json = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        json.writeValue(dir.resolve("provenance.json").toFile(),
                Provenance.collect(configSource, config.run().seed()));

        TrainingResult result;
        DistributedTrainer trainer;
        try (MetricsCsvWriter csv = new MetricsCsvWriter(dir.resolve("metrics.csv"))) {
            DistributedTrainer.Builder builder = DistributedTrainer.builder()
                    .model(model)
                    .data(train.toDataSet())
                    .workers(config.training().workers())
                    .batchSizePerWorker(config.training().batchSizePerWorker())
                    .seed(config.run().seed())
                    .topology(topology)
                    .evaluation(test.iterator(1000), config.training().evalEverySteps())
                    .maxSteps(config.training().maxSteps())
                    .stages(stages(config))
                    .listener(csv);
            extraListeners.forEach(builder::listener);
            trainer = builder.build();
            result = trainer.fit(config.training().epochs());
        }
        RunSummary summary = RunSummary.of(config, result, trainer.layout().length(), replicaChecksums(trainer));
        summary.writeAtomically(dir.resolve(SUMMARY));
        return new RunOutcome(dir, result, summary);
    }

    /**
     * CRC32C of every rank's parameters (their float bits) at the end of the run: all equal when the replicas stayed
     * bit-identical, which the topologies guarantee and a reader of the summary can check.
     */
    static List<String> replicaChecksums(DistributedTrainer trainer) {
        List<String> sums = new ArrayList<>();
        for (var replica : trainer.replicas()) {
            float[] params = replica.params().toFloatVector();
            java.nio.ByteBuffer bytes = java.nio.ByteBuffer.allocate(4 * params.length);
            bytes.asFloatBuffer().put(params);
            java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
            crc.update(bytes.array());
            sums.add(String.format("%08x", crc.getValue()));
        }
        return sums;
    }

    /** The zoo model a config names, with its updater. */
    public static Model buildModel(ModelConfig model, long seed) {
        IUpdater updater = updater(model.updater());
        return switch (model.name()) {
            case SMALL_CNN -> ModelZoo.smallCnn(seed, updater);
            case SMALL_RESNET -> ModelZoo.smallResNet(seed, updater);
        };
    }

    /** The DL4J updater of an updater config. */
    public static IUpdater updater(UpdaterConfig u) {
        return switch (u.type()) {
            case NESTEROVS -> new Nesterovs(u.learningRate(), u.momentum());
            case SGD -> new Sgd(u.learningRate());
            case ADAM -> new Adam(u.learningRate());
        };
    }

    /**
     * The stage schedule a config implies: all FULL without a compressor; FULL then TOP_K for the rest with one;
     * FULL, TOP_K while the autoencoder trains, then COMPRESSED for LGC.
     */
    public static StageSchedule stages(ExperimentConfig config) {
        return switch (config.compressor().type()) {
            case NONE -> StageSchedule.ALWAYS_FULL;
            case LGC -> new StageSchedule(config.stages().fullIterations(), config.stages().aeTrainingIterations());
            default -> StageSchedule.denseWarmup(config.stages().fullIterations());
        };
    }

    /** The topology a config names, carrying its compressor (if any). */
    public static Topology topology(ExperimentConfig config) {
        if (config.compressor().type() == CompressorType.LGC) {
            return lgcTopology(config);
        }
        Compressor compressor = compressor(config.compressor());
        if (compressor == null) {
            return switch (config.topology().type()) {
                case RING -> new RingTopology();
                case PS -> new ParameterServerTopology();
            };
        }
        IndexCodec codec = IndexCodecs.byName(config.compressor().codec());
        return switch (config.topology().type()) {
            case RING -> new RingTopology(compressor, codec, RingTopology.GatherPolicy.ALL_GATHER);
            case PS -> new ParameterServerTopology(compressor, codec);
        };
    }

    private static Topology lgcTopology(ExperimentConfig config) {
        IndexCodec codec = IndexCodecs.byName(config.compressor().codec());
        AutoencoderConfig ae = config.autoencoder();
        return switch (config.topology().type()) {
            case RING -> new LgcRingTopology(config.compressor().ratio(), codec, ae.spec(), ae.training(),
                    config.run().seed(), ae.control().withLowPass(config.compressor().lowPass()));
            case PS -> new LgcPsTopology(config.compressor().ratio(), codec, ae.spec(), ae.training(),
                    ae.innovationShare(), config.topology().support() == SupportPolicyType.OWN
                            ? LgcPsTopology.SupportPolicy.OWN : LgcPsTopology.SupportPolicy.LEADER,
                    config.run().seed(), ae.control().withLowPass(config.compressor().lowPass()));
        };
    }

    /** The compressor a config names, or {@code null} for none (LGC builds its own, see {@link #topology}). */
    public static Compressor compressor(CompressorConfig c) {
        return switch (c.type()) {
            case NONE -> null;
            case TOPK -> new TopKCompressor(c.ratio(), c.warmupSteps());
            case DGC -> new DgcCompressor(c.ratio(), c.momentum(), c.clipNorm(), c.warmupSteps());
            case SCALECOM -> new ScaleComCompressor(c.ratio(), c.lowPass());
            case S2 -> new S2SketchCompressor(c.ratio(), c.sketch().rows(), c.sketch().columnsPerSelected(),
                    c.sketch().groupSize());
            case LGC -> new LgcSupportCompressor(c.ratio(), 0, c.lowPass());
        };
    }

    private static Path createRunDirectory(Path root, String name) throws IOException {
        Files.createDirectories(root);
        String stamp = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
        Path dir = root.resolve(name + "-" + stamp);
        for (int i = 2; Files.exists(dir); i++) {
            dir = root.resolve(name + "-" + stamp + "-" + i);
        }
        return Files.createDirectories(dir);
    }
}
