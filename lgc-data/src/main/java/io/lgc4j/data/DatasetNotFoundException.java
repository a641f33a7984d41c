package io.lgc4j.data;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * A data set's files are not where they were looked for. The message lists the full path of every missing file and
 * says how to install the data set, for example:
 * <pre>{@code
 * Fashion-MNIST test split not found in /data/fmnist (the directory does not exist):
 *     missing /data/fmnist/t10k-images-idx3-ubyte.gz, /data/fmnist/t10k-labels-idx1-ubyte.gz;
 *     install it with: sudo apt-get install dataset-fashion-mnist (Debian/Ubuntu), or pass the directory
 *     holding the four IDX .gz files with data.path
 * }</pre>
 */
public final class DatasetNotFoundException extends IOException {
    private static final long serialVersionUID = 1L;

    /** Missing files, in the order they were looked for. */
    private final transient List<Path> missingFiles;

    /**
     * @param message      the full message, listing the missing files and the install hint
     * @param missingFiles the files that were looked for and not found
     */
    public DatasetNotFoundException(String message, List<Path> missingFiles) {
        super(message);
        this.missingFiles = List.copyOf(missingFiles);
    }

    /** @return the files that were looked for and not found, in lookup order */
    public List<Path> missingFiles() {
        return missingFiles;
    }
}
