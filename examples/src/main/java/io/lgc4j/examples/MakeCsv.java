package io.lgc4j.examples;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Random;

/**
 * Writes a small classification data set as CSV, to stand in for yours: {@code FEATURES} numeric columns and a
 * label column (4 classes, each a Gaussian cloud around a centre of its own), a header line in every file, the
 * training rows split over several files under {@code train/} and the test rows in {@code test/}.
 *
 * <pre>
 * java -cp … io.lgc4j.examples.MakeCsv data 20000 4000     # data/train/part-0.csv … part-3.csv, data/test/part-0.csv
 * </pre>
 */
public final class MakeCsv {
    /** Numeric columns before the label. */
    public static final int FEATURES = 16;
    /** Classes, in the last column. */
    public static final int CLASSES = 4;
    private static final int TRAIN_FILES = 4;

    private MakeCsv() {
    }

    public static void main(String[] args) throws IOException {
        Path dir = Path.of(args.length > 0 ? args[0] : "data");
        int train = args.length > 1 ? Integer.parseInt(args[1]) : 20_000;
        int test = args.length > 2 ? Integer.parseInt(args[2]) : 4_000;
        write(dir, train, test, 7);
        System.out.println("wrote " + train + " training rows to " + dir.resolve("train") + " and " + test
                + " test rows to " + dir.resolve("test"));
    }

    /** Writes {@code train} training rows and {@code test} test rows under {@code dir}, from {@code seed}. */
    public static void write(Path dir, int train, int test, long seed) throws IOException {
        Random random = new Random(seed);
        double[][] centres = new double[CLASSES][FEATURES];
        for (double[] centre : centres) {
            for (int f = 0; f < FEATURES; f++) {
                centre[f] = random.nextGaussian() * 0.5;
            }
        }
        for (int file = 0; file < TRAIN_FILES; file++) {
            int from = train * file / TRAIN_FILES;
            int to = train * (file + 1) / TRAIN_FILES;
            rows(dir.resolve("train").resolve("part-" + file + ".csv"), to - from, centres, random);
        }
        rows(dir.resolve("test").resolve("part-0.csv"), test, centres, random);
    }

    private static void rows(Path file, int count, double[][] centres, Random random) throws IOException {
        Files.createDirectories(file.getParent());
        try (BufferedWriter out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            StringBuilder header = new StringBuilder();
            for (int f = 0; f < FEATURES; f++) {
                header.append('x').append(f).append(',');
            }
            out.write(header.append("label\n").toString());
            for (int i = 0; i < count; i++) {
                int label = random.nextInt(CLASSES);
                StringBuilder row = new StringBuilder();
                for (int f = 0; f < FEATURES; f++) {
                    row.append(String.format(Locale.ROOT, "%.4f,", centres[label][f] + random.nextGaussian()));
                }
                out.write(row.append(label).append('\n').toString());
            }
        }
    }
}
