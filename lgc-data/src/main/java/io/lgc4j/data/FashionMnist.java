package io.lgc4j.data;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * Loads Fashion-MNIST (Zalando's 28x28 grey-scale clothing images, 10 classes; 60,000 training and 10,000 test images)
 * from its four IDX files into {@link LabeledImages}.
 *
 * <p>The files are looked for in a directory, by default {@link #DEFAULT_DIR} where the Debian/Ubuntu package
 * {@code dataset-fashion-mnist} installs them. Each file is taken as {@code <name>.gz} or, failing that, as the
 * uncompressed {@code <name>}. Missing files raise a {@link DatasetNotFoundException} listing every missing path and
 * {@link #INSTALL_HINT}; malformed ones an {@link IdxFormatException}.
 *
 * <pre>{@code
 * LabeledImages test = FashionMnist.load(FashionMnist.DEFAULT_DIR, FashionMnist.Split.TEST, FashionMnist.ALL);
 * DataSetIterator batches = test.iterator(1000);
 * }</pre>
 */
public final class FashionMnist {

    /** Where {@code apt-get install dataset-fashion-mnist} puts the files. */
    public static final Path DEFAULT_DIR = Path.of("/usr/share/datasets/fashion-mnist");
    /** How to get the data, quoted in {@link DatasetNotFoundException}'s message. */
    public static final String INSTALL_HINT = "install it with: sudo apt-get install dataset-fashion-mnist "
            + "(Debian/Ubuntu), or pass the directory holding the four IDX .gz files with data.path";
    /** {@code limit} value that keeps every image of a split. */
    public static final int ALL = Integer.MAX_VALUE;
    /** Image height and width. */
    public static final int SIDE = 28;
    /** Mean of the training images' pixels scaled to [0, 1]. */
    public static final double TRAIN_PIXEL_MEAN = 0.2860;
    /** Standard deviation of the training images' pixels scaled to [0, 1]. */
    public static final double TRAIN_PIXEL_STD = 0.3530;
    /** The preprocessing {@link #load(Path, Split, int)} applies; see {@link PixelPreprocessing#STANDARDIZE}. */
    public static final PixelPreprocessing DEFAULT_PREPROCESSING = PixelPreprocessing.STANDARDIZE;
    /** Class names, indexed by label. */
    public static final List<String> CLASS_NAMES = List.of("T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
            "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot");

    /** The two published splits, with their file-name prefix and size. */
    public enum Split {
        /** 60,000 training images. */
        TRAIN("train", 60_000),
        /** 10,000 test images. */
        TEST("t10k", 10_000);

        private final String prefix;
        private final int size;

        Split(String prefix, int size) {
            this.prefix = prefix;
            this.size = size;
        }

        /** @return the images file's name, without {@code .gz} */
        public String imagesFileName() {
            return prefix + "-images-idx3-ubyte";
        }

        /** @return the labels file's name, without {@code .gz} */
        public String labelsFileName() {
            return prefix + "-labels-idx1-ubyte";
        }

        /** @return the number of images in the published split */
        public int size() {
            return size;
        }
    }

    private FashionMnist() {
    }

    /**
     * Loads a split with {@link #DEFAULT_PREPROCESSING}.
     *
     * @param dir   the directory holding the IDX files
     * @param split which split
     * @param limit keep the first {@code limit} images (positive; {@link #ALL} for all)
     * @return the images and labels
     * @throws DatasetNotFoundException if a file is missing
     * @throws IdxFormatException       if a file is malformed, or images and labels do not match
     * @throws IOException              if a file cannot be read
     */
    public static LabeledImages load(Path dir, Split split, int limit) throws IOException {
        return load(dir, split, limit, DEFAULT_PREPROCESSING);
    }

    /**
     * Loads a split.
     *
     * @param dir           the directory holding the IDX files
     * @param split         which split
     * @param limit         keep the first {@code limit} images (positive; {@link #ALL} for all)
     * @param preprocessing how pixels become features
     * @return the images and labels
     * @throws DatasetNotFoundException if a file is missing
     * @throws IdxFormatException       if a file is malformed, or images and labels do not match
     * @throws IOException              if a file cannot be read
     */
    public static LabeledImages load(Path dir, Split split, int limit, PixelPreprocessing preprocessing)
            throws IOException {
        Objects.requireNonNull(dir, "dir");
        Objects.requireNonNull(split, "split");
        Objects.requireNonNull(preprocessing, "preprocessing");
        if (limit < 1) {
            throw new IllegalArgumentException("limit=" + limit + " must be positive (FashionMnist.ALL for all)");
        }
        Path imagesFile = find(dir, split.imagesFileName());
        Path labelsFile = find(dir, split.labelsFileName());
        List<Path> missing = new ArrayList<>();
        if (!Files.isRegularFile(imagesFile)) {
            missing.add(imagesFile);
        }
        if (!Files.isRegularFile(labelsFile)) {
            missing.add(labelsFile);
        }
        if (!missing.isEmpty()) {
            throw notFound(dir, split, missing);
        }

        IdxReader reader = new IdxReader();
        IdxImages images = reader.readImages(imagesFile, limit);
        IdxLabels labels = reader.readLabels(labelsFile, limit);
        if (images.rows() != SIDE || images.cols() != SIDE) {
            throw new IdxFormatException(imagesFile, "wrong image size: expected " + SIDE + "x" + SIDE
                    + " but found " + images.rows() + "x" + images.cols());
        }
        if (images.declaredCount() != labels.declaredCount()) {
            throw new IdxFormatException(labelsFile, "count mismatch: expected as many labels as "
                    + imagesFile.getFileName() + " has images (" + images.declaredCount() + ") but found "
                    + labels.declaredCount() + " labels");
        }
        return decode(images, labels, preprocessing);
    }

    private static LabeledImages decode(IdxImages images, IdxLabels labels, PixelPreprocessing preprocessing)
            throws IdxFormatException {
        int[] labelValues = new int[labels.count()];
        for (int i = 0; i < labelValues.length; i++) {
            labelValues[i] = labels.label(i);
            if (labelValues[i] >= CLASS_NAMES.size()) {
                throw new IdxFormatException(labels.source(), "bad label: expected 0.." + (CLASS_NAMES.size() - 1)
                        + " but found " + labelValues[i] + " at index " + i);
            }
        }
        byte[] pixels = images.pixels();
        float[] features = new float[pixels.length];
        for (int i = 0; i < pixels.length; i++) {
            features[i] = preprocessing.apply(Byte.toUnsignedInt(pixels[i]));
        }
        return new LabeledImages(features, labelValues, images.rows(), images.cols(), CLASS_NAMES, preprocessing);
    }

    /** The compressed file if present, else the plain one if present, else the compressed name (to report). */
    private static Path find(Path dir, String name) {
        Path gz = dir.resolve(name + ".gz");
        if (Files.isRegularFile(gz)) {
            return gz;
        }
        Path plain = dir.resolve(name);
        return Files.isRegularFile(plain) ? plain : gz;
    }

    private static DatasetNotFoundException notFound(Path dir, Split split, List<Path> missing) {
        StringBuilder message = new StringBuilder("Fashion-MNIST ")
                .append(split.name().toLowerCase(Locale.ROOT)).append(" split not found in ")
                .append(dir.toAbsolutePath());
        if (Files.exists(dir) && !Files.isDirectory(dir)) {
            // a path to one of the files, or to an archive: the files themselves are looked for inside it
            message.append(": it is a file, not a directory; ").append(INSTALL_HINT);
            return new DatasetNotFoundException(message.toString(), missing);
        }
        if (!Files.isDirectory(dir)) {
            message.append(" (the directory does not exist)");
        }
        message.append(": missing ");
        for (int i = 0; i < missing.size(); i++) {
            message.append(i == 0 ? "" : ", ").append(missing.get(i).toAbsolutePath());
        }
        message.append("; ").append(INSTALL_HINT);
        return new DatasetNotFoundException(message.toString(), missing);
    }
}
