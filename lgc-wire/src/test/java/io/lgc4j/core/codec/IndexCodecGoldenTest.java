package io.lgc4j.core.codec;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.zip.DataFormatException;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Each codec's byte format, pinned on one small set: {@code src/test/resources/golden/codec/<name>.hex}.
 *
 * <p>The Rice stream is compared byte for byte. A DEFLATE stream is compared by its inflated content, byte for byte,
 * and by decoding the golden stream: the DEFLATE bits themselves may differ between zlib builds without the format
 * changing.
 */
class IndexCodecGoldenTest {
    private static final Path DIRECTORY = Path.of("src/test/resources/golden/codec");
    /** n and the set of every golden file: runs, a gap of each byte width, both ends. */
    static final int N = 100_000;
    static final int[] INDICES = {0, 1, 2, 3, 10, 300, 301, 70_000, 99_999};

    static List<String> names() {
        return IndexCodecs.names().stream().filter(name -> !name.equals(IndexCodecs.DEFAULT_NAME)).toList();
    }

    private static Path file(String name) {
        return DIRECTORY.resolve(name + ".hex");
    }

    /**
     * Rewrites every golden file. Run by hand, from {@code lgc-core}, only when a format changes on purpose (and
     * bump that codec's FORMAT_VERSION).
     */
    static void generateGoldenFiles() throws IOException {
        Files.createDirectories(DIRECTORY);
        for (String name : names()) {
            byte[] bytes = IndexCodecs.byName(name).encode(INDICES, INDICES.length, N);
            Files.writeString(file(name), HexFormat.of().formatHex(bytes) + "\n", StandardCharsets.US_ASCII);
        }
    }

    /** Entry point for {@link #generateGoldenFiles()}. */
    public static void main(String[] args) throws IOException {
        generateGoldenFiles();
    }

    @ParameterizedTest
    @MethodSource("names")
    void shouldDecodeTheGoldenFile(String name) throws IOException {
        byte[] golden = HexFormat.of().parseHex(Files.readString(file(name), StandardCharsets.US_ASCII).trim());
        assertArrayEquals(INDICES, IndexCodecs.byName(name).decode(golden, N, INDICES.length));
    }

    @ParameterizedTest
    @MethodSource("names")
    void shouldEncodeTheGoldenFormat(String name) throws IOException, DataFormatException {
        byte[] golden = HexFormat.of().parseHex(Files.readString(file(name), StandardCharsets.US_ASCII).trim());
        byte[] encoded = IndexCodecs.byName(name).encode(INDICES, INDICES.length, N);
        if (name.startsWith("deflate")) {
            assertEquals(HexFormat.of().formatHex(DeflateIndexCodecTest.inflate(golden)),
                    HexFormat.of().formatHex(DeflateIndexCodecTest.inflate(encoded)));
        } else {
            assertEquals(HexFormat.of().formatHex(golden), HexFormat.of().formatHex(encoded));
        }
    }
}
