package io.lgc4j.core.protocol;

import io.lgc4j.core.comm.Frame;
import io.lgc4j.core.comm.FrameAllocator;
import io.lgc4j.core.comm.FrameBuffer;
import io.lgc4j.core.comm.FrameException;
import io.lgc4j.core.comm.TrafficKind;
import io.lgc4j.core.comm.ValueEncoding;
import io.lgc4j.core.stage.Stage;
import io.lgc4j.core.comm.StepTag;

import java.nio.ByteBuffer;
import java.nio.LongBuffer;

/**
 * The sketch layout (S2, {@link SketchPayload}): a {@link Sketch} as two frames, its counters as a
 * {@link TrafficKind#VALUES} frame in the {@link FloatFrames} layout, always fp32 (S2's decoder needs counters to
 * agree to 10^-5), and its bitmap as a {@link TrafficKind#INDICES} frame of {@code n} little-endian int64 words, bit
 * g (least significant first) of word w marking element group {@code 64·w + g}; {@code n} is known to the receiver.
 * The ring's OR-allreduce sends the bitmap in chunks of the same layout ({@link #encodeWords}, {@link #orInto},
 * {@link #copyInto}).
 *
 * <pre>{@code
 * byte[][] frames = SketchFrames.encode(sketch, tag);                        // counters, bitmap
 * Sketch back = SketchFrames.decode(counters, bitmap, counterCount, words);  // FrameException on a wrong size
 * }</pre>
 */
public final class SketchFrames {
    /** Offset of the first bitmap word. */
    public static final int WORDS_OFFSET = 0;
    /** Bytes per bitmap word (int64). */
    public static final int WORD_SIZE = Long.BYTES;

    private SketchFrames() {
    }

    /** Payload bytes of {@code words} bitmap words. */
    public static int wordsLength(int words) {
        return Math.multiplyExact(WORD_SIZE, words);
    }

    /** The two frames of {@code sketch}: counters (float32, whatever the tag's value encoding), then bitmap. */
    public static byte[][] encode(Sketch sketch, StepTag tag) {
        byte[] counters = FloatFrames.encode(sketch.counters(), 0, sketch.counters().length, TrafficKind.VALUES,
                tag.stage(), tag.step(), ValueEncoding.FP32);
        byte[] bitmap = encodeWords(sketch.bitmap(), 0, sketch.bitmap().length, TrafficKind.INDICES, tag.stage(),
                tag.step());
        return new byte[][] {counters, bitmap};
    }

    /**
     * Decodes a sketch of exactly {@code counterCount} counters and {@code words} bitmap words.
     *
     * @throws FrameException if either frame has another length
     */
    public static Sketch decode(Frame counters, Frame bitmap, int counterCount, int words) {
        float[] c = FloatFrames.read(counters, counterCount);
        if (bitmap.payloadLength() != wordsLength(words)) {
            throw new FrameException("expected a sketch bitmap of " + words + " words (" + wordsLength(words)
                    + " bytes) in step " + bitmap.step() + ", found " + bitmap.payloadLength() + " bytes");
        }
        long[] b = new long[words];
        view(bitmap).get(b);
        return new Sketch(c, b);
    }

    /** Seals a frame carrying the bitmap words {@code words[from, to)} (a whole bitmap, or one ring chunk). */
    public static byte[] encodeWords(long[] words, int from, int to, TrafficKind kind, Stage stage, int step) {
        return encodeWords(FrameAllocator.HEAP, words, from, to, kind, stage, step).arrayOrNull();
    }

    /** As {@link #encodeWords(long[], int, int, TrafficKind, Stage, int)}, in a frame from {@code memory}. */
    public static FrameBuffer encodeWords(FrameAllocator memory, long[] words, int from, int to, TrafficKind kind,
                                          Stage stage, int step) {
        FrameBuffer frame = memory.allocate(WORDS_OFFSET + wordsLength(to - from));
        ByteBuffer payload = frame.payload();
        payload.position(WORDS_OFFSET);
        payload.asLongBuffer().put(words, from, to - from);
        return frame.seal(kind, stage, step);
    }

    /** ORs the frame's words into {@code dst[from, to)}; the frame must carry exactly {@code to - from}. */
    public static void orInto(Frame frame, long[] dst, int from, int to) {
        LongBuffer in = checkedView(frame, to - from);
        for (int i = from, j = 0; i < to; i++, j++) {
            dst[i] |= in.get(j);
        }
    }

    /** Copies the frame's words into {@code dst[from, to)}; the frame must carry exactly {@code to - from}. */
    public static void copyInto(Frame frame, long[] dst, int from, int to) {
        checkedView(frame, to - from).get(dst, from, to - from);
    }

    private static LongBuffer checkedView(Frame frame, int expectedWords) {
        if (frame.payloadLength() != wordsLength(expectedWords)) {
            throw new FrameException("expected " + expectedWords + " bitmap words (" + wordsLength(expectedWords)
                    + " bytes) in a " + frame.kind() + " frame of step " + frame.step() + ", found "
                    + frame.payloadLength() + " bytes");
        }
        return view(frame);
    }

    private static LongBuffer view(Frame frame) {
        ByteBuffer payload = frame.payload().duplicate().order(frame.payload().order());
        payload.position(payload.position() + WORDS_OFFSET);
        return payload.asLongBuffer();
    }
}
