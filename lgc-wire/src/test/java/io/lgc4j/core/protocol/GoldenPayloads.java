package io.lgc4j.core.protocol;

import io.lgc4j.core.comm.Frame;
import io.lgc4j.core.comm.FrameCodec;
import io.lgc4j.core.comm.StepTag;
import io.lgc4j.core.comm.TrafficKind;
import io.lgc4j.core.comm.ValueEncoding;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.zip.DataFormatException;
import java.util.zip.Inflater;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Golden payload files for the protocol's tests and LGC's: a payload's bytes (without the frame header) as hex in
 * {@code src/test/resources/golden/payload-*.hex} of the module that writes it, read back, put in a frame as a
 * receiver gets it, and compared by structure where they hold DEFLATE bits (zlib builds may differ there).
 */
public final class GoldenPayloads {
    /** Where each module keeps its golden files, relative to the module (the tests' working directory). */
    public static final Path DIRECTORY = Path.of("src/test/resources/golden");

    private GoldenPayloads() {
    }

    /** The bytes of golden file {@code name}. */
    public static byte[] golden(String name) {
        try {
            return HexFormat.of().parseHex(Files.readString(DIRECTORY.resolve(name), StandardCharsets.US_ASCII)
                    .trim());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Rewrites each golden file from {@code payloads} (name to bytes): by hand only, when a layout changes. */
    public static void write(Map<String, byte[]> payloads) throws IOException {
        Files.createDirectories(DIRECTORY);
        for (Map.Entry<String, byte[]> e : payloads.entrySet()) {
            Files.writeString(DIRECTORY.resolve(e.getKey()), HexFormat.of().formatHex(e.getValue()) + "\n",
                    StandardCharsets.US_ASCII);
        }
    }

    /** A golden payload in a frame of {@code kind} at {@code tag}, decoded as a receiver gets it. */
    public static Frame frame(String name, TrafficKind kind, StepTag tag) {
        return FrameCodec.decode(FrameCodec.encode(kind, tag.stage(), tag.step(), ByteBuffer.wrap(golden(name))));
    }

    /** A golden payload in a frame of {@code kind} whose flags name {@code encoding}, decoded. */
    public static Frame frame(String name, TrafficKind kind, StepTag tag, ValueEncoding encoding) {
        byte[] bytes = golden(name);
        ByteBuffer payload = FrameCodec.allocate(bytes.length);
        payload.put(bytes);
        return FrameCodec.decode(FrameCodec.seal(payload, kind, tag.stage(), tag.step(), 0, encoding.wireId()));
    }

    /** The payload bytes of an encoded frame. */
    public static byte[] payload(byte[] frame) {
        Frame f = FrameCodec.decode(frame);
        byte[] bytes = new byte[f.payloadLength()];
        f.payload().duplicate().get(bytes);
        return bytes;
    }

    /** {@code bytes} as a little-endian buffer, as the layouts read them. */
    public static ByteBuffer le(byte[] bytes) {
        return ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    }

    /** A support payload as its block lengths' structure and each block's inflated codec content. */
    public static List<String> inflatedBlocks(byte[] support) {
        ByteBuffer in = le(support);
        List<String> blocks = new ArrayList<>();
        while (in.hasRemaining()) {
            byte[] coded = new byte[in.getInt()];
            in.get(coded);
            blocks.add(inflated(coded));
        }
        return blocks;
    }

    /** The inflated content of a zlib stream, as hex. */
    public static String inflated(byte[] zlib) {
        Inflater inflater = new Inflater();
        inflater.setInput(zlib);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buffer = new byte[256];
        try {
            while (!inflater.finished()) {
                int n = inflater.inflate(buffer);
                if (n == 0 && (inflater.needsInput() || inflater.needsDictionary())) {
                    throw new AssertionError("truncated zlib stream");
                }
                out.write(buffer, 0, n);
            }
        } catch (DataFormatException e) {
            throw new AssertionError("not a zlib stream: " + e.getMessage(), e);
        } finally {
            inflater.end();
        }
        return HexFormat.of().formatHex(out.toByteArray());
    }

    /**
     * Asserts that {@code frames} are one frame of each of {@code kinds}, in order, each at {@code tag}'s step and
     * stage: what a payload family's contract test checks of every kind.
     */
    public static void assertSealedInOrder(List<TrafficKind> kinds, byte[][] frames, StepTag tag) {
        List<TrafficKind> sealed = new ArrayList<>();
        for (byte[] f : frames) {
            Frame frame = FrameCodec.decode(f);
            sealed.add(frame.kind());
            assertEquals(tag.step(), frame.step());
            assertEquals(tag.stage(), frame.stage());
        }
        assertEquals(kinds, sealed);
    }

    /** Asserts that golden file {@code name} holds exactly {@code written}, compared as hex. */
    public static void assertGolden(String name, byte[] written) {
        assertEquals(HexFormat.of().formatHex(golden(name)), HexFormat.of().formatHex(written), name);
    }
}
