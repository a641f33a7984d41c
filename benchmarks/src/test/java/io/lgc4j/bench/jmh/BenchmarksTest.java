package io.lgc4j.bench.jmh;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Each benchmark's setup and methods called once directly, small sizes, no JMH: they do the work they name. */
class BenchmarksTest {

    @Test
    void topKShouldSelectKEntriesAboveTheRest() {
        TopKSelectBenchmark b = new TopKSelectBenchmark();
        b.n = 10_000;
        b.ratio = 0.01;
        b.setUp();
        assertEquals(100, b.select());
        float smallestSelected = Float.MAX_VALUE;
        boolean[] in = new boolean[b.n];
        for (int i : b.selected) {
            in[i] = true;
            smallestSelected = Math.min(smallestSelected, Math.abs(b.values[i]));
        }
        for (int i = 0; i < b.n; i++) {
            assertTrue(in[i] || Math.abs(b.values[i]) <= smallestSelected, "index " + i);
        }
    }

    @Test
    void everyCodecShouldDecodeWhatItEncodes() {
        for (String codec : new String[] {"deflate", "rice"}) {
            IndexCodecBenchmark b = new IndexCodecBenchmark();
            b.codec = codec;
            b.n = 100_000;
            b.density = 0.001;
            b.setUp();
            assertEquals(100, b.indices.length);
            assertArrayEquals(b.encoded, b.encode(), codec);
            assertArrayEquals(b.indices, b.decode(), codec);
        }
    }

    @Test
    void framesShouldCarryTheValues() {
        FrameBenchmark b = new FrameBenchmark();
        b.payloadBytes = 65_536;
        b.setUp();
        assertTrue(b.encode().length > b.payloadBytes);
        assertArrayEquals(b.values, b.decode());
    }
}
