package io.lgc4j.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.lgc4j.bench.CompactVectorFile;
import io.lgc4j.bench.CompactVectorRecorder;
import io.lgc4j.core.compute.ComputeSettings;
import io.lgc4j.core.layout.GradientLayout;
import io.lgc4j.core.train.ReplicaModel;
import io.lgc4j.data.DatasetNotFoundException;
import io.lgc4j.data.FashionMnist;
import io.lgc4j.data.IdxFormatException;
import io.lgc4j.data.LabeledImages;
import io.lgc4j.data.PixelPreprocessing;
import io.lgc4j.runner.Nd4jEnvironment;
import io.lgc4j.runner.Provenance;
import io.lgc4j.zoo.ModelZoo;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code lgc record compact-vectors}: trains the small CNN on Fashion-MNIST with K ranks (dense warm-up, then top-k
 * on the leader's support with error feedback) and writes every recorded step's K compact vectors and leader to a
 * {@link CompactVectorFile}, with a JSON sidecar ({@code <file>.json}) holding the settings, the LEARNED blocks
 * and provenance.
 */
@Command(name = "compact-vectors", mixinStandardHelpOptions = true,
        description = "Record the K ranks' compact vectors (the LGC autoencoder's training input) from real "
                + "Fashion-MNIST training of the small CNN.")
final class CompactVectorsCommand implements Callable<Integer> {

    @Option(names = {"-o", "--output"}, defaultValue = "results/compact-vectors.bin",
            description = "the recording (default ${DEFAULT-VALUE}); <file>.json gets the settings and provenance")
    private Path output;

    @Option(names = "--workers", defaultValue = "4", description = "K, ranks (default ${DEFAULT-VALUE})")
    private int workers;

    @Option(names = "--batch", defaultValue = "32",
            description = "examples per rank per step (default ${DEFAULT-VALUE})")
    private int batch;

    @Option(names = "--warmup", defaultValue = "200", description = "dense steps first (default ${DEFAULT-VALUE})")
    private int warmup;

    @Option(names = "--steps", defaultValue = "300", description = "recorded steps (default ${DEFAULT-VALUE})")
    private int steps;

    @Option(names = "--ratio", defaultValue = "0.001",
            description = "share of each LEARNED block selected (default ${DEFAULT-VALUE})")
    private double ratio;

    @Option(names = "--low-pass", defaultValue = "1",
            description = "the accumulators' low-pass factor β in (0, 1], as compressor.lowPass; 1 = plain error "
                    + "feedback (default ${DEFAULT-VALUE}; the LGC configs use 0.1)")
    private double lowPass;

    @Option(names = "--seed", defaultValue = "42",
            description = "model init, data order, leaders (default ${DEFAULT-VALUE})")
    private long seed;

    @Option(names = "--data", defaultValue = "/usr/share/datasets/fashion-mnist", description = "Fashion-MNIST dir")
    private Path data;

    /**
     * Whether {@code recording} is missing, saying so on standard error with the command that makes it (the commands
     * that read a recording share the message).
     */
    static boolean reportIfMissing(Path recording) {
        if (Files.isRegularFile(recording)) {
            return false;
        }
        System.err.println("lgc: recording " + recording + " not found; make one with: lgc record compact-vectors"
                + " --output " + recording);
        return true;
    }

    @Override
    public Integer call() {
        CompactVectorRecorder.Settings settings;
        try {
            settings = new CompactVectorRecorder.Settings(workers, batch, warmup, steps, ratio, seed, lowPass);
        } catch (IllegalArgumentException e) {
            System.err.println("lgc: bad option: " + e.getMessage());
            return 2;
        }
        try {
            Nd4jEnvironment.configure();
            LabeledImages train = FashionMnist.load(data, FashionMnist.Split.TRAIN, FashionMnist.ALL,
                    PixelPreprocessing.STANDARDIZE);
            if ((long) workers * batch > train.size()) {
                System.err.println("lgc: --workers × --batch = " + (long) workers * batch + " exceeds the "
                        + train.size() + " training images");
                return 2;
            }
            Map<String, Object> provenance = Provenance.collect("lgc record compact-vectors", seed);
            MultiLayerNetwork net = ModelZoo.smallCnn(seed, ModelZoo.defaultUpdater());
            ReplicaModel model = ReplicaModel.wrap(net).copy(ComputeSettings.DEFAULT);
            int mu = CompactVectorRecorder.compactLength(GradientLayout.of(net), ratio);
            System.out.printf(Locale.ROOT, "recording %d steps after %d dense warm-up steps: small CNN (%,d params),"
                    + " K = %d, batch %d per rank, ratio %s, low-pass β %s, μ = %d, seed %d -> %s%n", steps, warmup,
                    net.numParams(), workers, batch, ratio, lowPass, mu, seed, output);
            Path parent = output.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            CompactVectorRecorder.Summary summary;
            try (CompactVectorFile.Writer writer = CompactVectorFile.create(output, workers, mu, steps)) {
                summary = CompactVectorRecorder.record(model, train, settings,
                        (step, leader, compacts) -> writer.append(leader, compacts), System.out);
            }
            writeSidecar(settings, summary, provenance);
            System.out.println("| LEARNED block | n | selected |");
            System.out.println("|---|---:|---:|");
            for (CompactVectorRecorder.Share s : summary.shares()) {
                System.out.printf(Locale.ROOT, "| %s | %,d | %,d |%n", s.block().qualifiedName(), s.block().length(),
                        s.selected());
            }
            System.out.printf(Locale.ROOT, "| μ | | %,d |%n", summary.mu());
            System.out.printf(Locale.ROOT, "wrote %s (%,d bytes) and %s.json in %.0f s%n", output, Files.size(output),
                    output.getFileName(), summary.nanos() / 1e9);
            return 0;
        } catch (DatasetNotFoundException | IdxFormatException e) {
            System.err.println("lgc: " + e.getMessage());
            return 2;
        } catch (IOException e) {
            System.err.println("lgc: " + e);
            return 1;
        }
    }

    private void writeSidecar(CompactVectorRecorder.Settings settings, CompactVectorRecorder.Summary summary,
                              Map<String, Object> provenance) throws IOException {
        Map<String, Object> side = new LinkedHashMap<>();
        side.put("format", "LGCV version " + CompactVectorFile.VERSION + " (" + CompactVectorFile.class.getName()
                + ")");
        side.put("model", "ModelZoo.smallCnn, updater " + ModelZoo.defaultUpdater());
        side.put("settings", settings);
        side.put("mu", summary.mu());
        List<Map<String, Object>> blocks = new ArrayList<>();
        for (CompactVectorRecorder.Share s : summary.shares()) {
            Map<String, Object> b = new LinkedHashMap<>();
            b.put("block", s.block().qualifiedName());
            b.put("offset", s.block().offset());
            b.put("length", s.block().length());
            b.put("selected", s.selected());
            blocks.add(b);
        }
        side.put("learnedBlocks", blocks);
        side.put("meanLossPerStep", summary.meanLoss());
        side.put("seconds", summary.nanos() / 1e9);
        side.put("provenance", provenance);
        Path json = output.resolveSibling(output.getFileName() + ".json");
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(json.toFile(), side);
    }
}
