package io.lgc4j.core.codec;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * What every {@link IndexCodec} must do: round trips from the empty set to 25M-long vectors, the same argument
 * errors, and decoders that answer every truncation, flip and garbage with a valid set or a {@link CodecException}.
 * Each codec's test extends this class.
 */
abstract class IndexCodecContract {

    /** The codec under test. */
    abstract IndexCodec codec();

    private byte[] roundTrip(int[] indices, int n) {
        byte[] bytes = codec().encode(indices, indices.length, n);
        assertArrayEquals(indices, codec().decode(bytes, n, indices.length), codec().name() + " n=" + n);
        return bytes;
    }

    /** Decodes {@code bytes}, which may be anything: a valid set within bounds or a CodecException, nothing else. */
    private void decodeOrReject(byte[] bytes, int n, int maxCount) {
        int[] decoded;
        try {
            decoded = codec().decode(bytes, n, maxCount);
        } catch (CodecException expected) {
            return;
        } catch (RuntimeException | Error e) {
            throw new AssertionError(codec().name() + " threw " + e + " on "
                    + HexFormat.of().formatHex(bytes, 0, Math.min(bytes.length, 64)), e);
        }
        assertTrue(decoded.length <= maxCount, "more than maxCount");
        for (int i = 0; i < decoded.length; i++) {
            if (decoded[i] < 0 || decoded[i] >= n || (i > 0 && decoded[i] <= decoded[i - 1])) {
                fail(codec().name() + " returned an invalid index " + decoded[i] + " at " + i);
            }
        }
    }

    /** Sets the fuzz tests start from. */
    private static List<int[]> fuzzSets() {
        return List.of(new int[0], new int[] {0}, new int[] {9_999}, IndexSets.run(0, 40),
                IndexSets.uniform(10_000, 60, 7), IndexSets.concat(IndexSets.run(100, 130), new int[] {5_000, 9_999}));
    }

    @Test
    void shouldRoundTripTheEmptySet() {
        roundTrip(new int[0], 0);
        roundTrip(new int[0], 1_000);
    }

    @Test
    void shouldRoundTripOneIndexAndBothEnds() {
        roundTrip(new int[] {0}, 1);
        roundTrip(new int[] {0}, 1_000);
        roundTrip(new int[] {999}, 1_000);
        roundTrip(new int[] {500}, 1_000);
        roundTrip(new int[] {0, 999}, 1_000);
    }

    @Test
    void shouldRoundTripTheLargestVectorAndGap() {
        roundTrip(new int[] {Integer.MAX_VALUE - 1}, Integer.MAX_VALUE);
        roundTrip(new int[] {0, Integer.MAX_VALUE - 1}, Integer.MAX_VALUE);
        roundTrip(new int[] {0, 1, 1 << 24, (1 << 24) + 1, Integer.MAX_VALUE - 1}, Integer.MAX_VALUE);
    }

    @Test
    void shouldRoundTripDenseRuns() {
        roundTrip(IndexSets.run(0, 1_000), 1_000);
        roundTrip(IndexSets.run(0, 100), 1_000_000);
        roundTrip(IndexSets.concat(IndexSets.run(500_000, 501_000), IndexSets.run(999_000, 1_000_000)), 1_000_000);
    }

    @ParameterizedTest
    @ValueSource(doubles = {0.0001, 0.001, 0.01, 0.1, 0.5, 0.9})
    void shouldRoundTripRandomSetsAtEveryDensity(double density) {
        int n = 200_000;
        for (long seed = 1; seed <= 3; seed++) {
            roundTrip(IndexSets.uniform(n, (int) Math.round(density * n), seed), n);
        }
    }

    @Test
    void shouldRoundTripTwentyFiveMillionAtTenthAndOnePercent() {
        int n = 25_000_000;
        roundTrip(IndexSets.uniform(n, n / 1_000, 11), n);
        roundTrip(IndexSets.uniform(n, n / 100, 12), n);
    }

    @Test
    void shouldEncodeOnlyTheFirstCountIndicesAndLeaveTheInputAlone() {
        int[] indices = {1, 5, 9, -4, 3};
        byte[] bytes = codec().encode(indices, 3, 10);
        assertArrayEquals(new int[] {1, 5, 9, -4, 3}, indices);
        assertArrayEquals(new int[] {1, 5, 9}, codec().decode(bytes, 10, 3));
        assertArrayEquals(codec().encode(new int[] {1, 5, 9}, 3, 10), bytes);
    }

    @Test
    void shouldRejectBadEncodeArgumentsNamingThePosition() {
        IndexCodec codec = codec();
        assertEquals("sortedIndices[2] = 5 is not greater than sortedIndices[1] = 7 (indices must be strictly "
                + "increasing)", assertThrows(IllegalArgumentException.class,
                        () -> codec.encode(new int[] {1, 7, 5}, 3, 10)).getMessage());
        assertEquals("sortedIndices[1] = 7 is not greater than sortedIndices[0] = 7 (indices must be strictly "
                + "increasing)", assertThrows(IllegalArgumentException.class,
                        () -> codec.encode(new int[] {7, 7}, 2, 10)).getMessage());
        assertEquals("sortedIndices[0] = -1 is negative", assertThrows(IllegalArgumentException.class,
                () -> codec.encode(new int[] {-1, 2}, 2, 10)).getMessage());
        assertEquals("sortedIndices[2] = 10 is not < n = 10", assertThrows(IllegalArgumentException.class,
                () -> codec.encode(new int[] {0, 4, 10}, 3, 10)).getMessage());
        assertEquals("count must be in [0, 2] (the array length), found 3", assertThrows(
                IllegalArgumentException.class, () -> codec.encode(new int[] {0, 4}, 3, 10)).getMessage());
        assertEquals("count must be in [0, 2] (the array length), found -1", assertThrows(
                IllegalArgumentException.class, () -> codec.encode(new int[] {0, 4}, -1, 10)).getMessage());
        assertEquals("n must be >= 0, found -1", assertThrows(IllegalArgumentException.class,
                () -> codec.encode(new int[0], 0, -1)).getMessage());
    }

    @Test
    void shouldRejectBadDecodeArguments() {
        byte[] bytes = codec().encode(new int[] {1}, 1, 10);
        assertEquals("n must be >= 0, found -1", assertThrows(IllegalArgumentException.class,
                () -> codec().decode(bytes, -1, 1)).getMessage());
        assertEquals("maxCount must be >= 0, found -2", assertThrows(IllegalArgumentException.class,
                () -> codec().decode(bytes, 10, -2)).getMessage());
    }

    @Test
    void shouldRejectDeclaredCountAboveMaxCount() {
        byte[] bytes = codec().encode(IndexSets.run(0, 10), 10, 1_000);
        assertEquals("declared count exceeds maxCount: expected <= 9, found 10",
                assertThrows(CodecException.class, () -> codec().decode(bytes, 1_000, 9)).getMessage());
        assertEquals("declared count exceeds maxCount: expected <= 0, found 10",
                assertThrows(CodecException.class, () -> codec().decode(bytes, 1_000, 0)).getMessage());
    }

    @Test
    void shouldRejectDeclaredCountAboveN() {
        byte[] bytes = codec().encode(IndexSets.run(0, 10), 10, 1_000);
        assertEquals("declared count exceeds n: expected <= 5, found 10",
                assertThrows(CodecException.class, () -> codec().decode(bytes, 5, 10)).getMessage());
    }

    @Test
    void shouldRejectAnIndexAtOrAboveTheReceiversN() {
        byte[] bytes = codec().encode(new int[] {3, 7, 12}, 3, 100);
        String message = assertThrows(CodecException.class, () -> codec().decode(bytes, 12, 3)).getMessage();
        assertTrue(message.startsWith("index out of range at position 2: expected 0 <= index < n=12, found "),
                message);
    }

    @Test
    void shouldRejectEveryTruncation() {
        for (int[] indices : fuzzSets()) {
            byte[] bytes = codec().encode(indices, indices.length, 10_000);
            for (int length = 0; length < bytes.length; length++) {
                byte[] truncated = Arrays.copyOf(bytes, length);
                int at = length;
                assertThrows(CodecException.class, () -> codec().decode(truncated, 10_000, indices.length),
                        () -> codec().name() + " accepted " + at + " of " + bytes.length + " bytes");
            }
        }
    }

    @Test
    void shouldRejectTrailingBytes() {
        for (int[] indices : fuzzSets()) {
            byte[] bytes = codec().encode(indices, indices.length, 10_000);
            for (int extra : new int[] {0x00, 0xFF}) {
                byte[] longer = Arrays.copyOf(bytes, bytes.length + 1);
                longer[bytes.length] = (byte) extra;
                String message = assertThrows(CodecException.class,
                        () -> codec().decode(longer, 10_000, indices.length)).getMessage();
                assertTrue(message.startsWith("trailing garbage: "), message);
            }
        }
    }

    @Test
    void shouldDecodeOrRejectRandomByteFlips() {
        SplittableRandom random = new SplittableRandom(42);
        for (int[] indices : fuzzSets()) {
            byte[] bytes = codec().encode(indices, indices.length, 10_000);
            for (int trial = 0; trial < 3_000; trial++) {
                byte[] mutated = bytes.clone();
                int flips = 1 + random.nextInt(3);
                for (int f = 0; f < flips; f++) {
                    int at = random.nextInt(mutated.length);
                    if (random.nextBoolean()) {
                        mutated[at] ^= (byte) (1 << random.nextInt(8));
                    } else {
                        mutated[at] = (byte) random.nextInt(256);
                    }
                }
                decodeOrReject(mutated, 10_000, Math.max(indices.length, random.nextInt(200)));
                decodeOrReject(mutated, random.nextInt(10_001), indices.length + random.nextInt(3));
            }
        }
    }

    @Test
    void shouldDecodeOrRejectRandomGarbage() {
        SplittableRandom random = new SplittableRandom(43);
        for (int trial = 0; trial < 20_000; trial++) {
            byte[] garbage = new byte[random.nextInt(48)];
            for (int i = 0; i < garbage.length; i++) {
                garbage[i] = (byte) random.nextInt(256);
            }
            decodeOrReject(garbage, 1 + random.nextInt(Integer.MAX_VALUE - 1), random.nextInt(Integer.MAX_VALUE));
            decodeOrReject(garbage, random.nextInt(100), random.nextInt(100));
        }
    }
}
