package io.lgc4j.core.protocol;

/**
 * A summable sparse sketch: count-sketch counters of every compressible block laid end to end, and a bitmap of
 * the element groups that hold a selected entry. Two sketches combine by adding counters and OR-ing bitmaps.
 *
 * @param counters count-sketch counters (rows × columns per block, blocks end to end)
 * @param bitmap   one bit per group of elements, 64 per word
 */
public record Sketch(float[] counters, long[] bitmap) {

    /** Adds {@code other} into this sketch (counters summed, bitmaps OR-ed). */
    public void addInPlace(Sketch other) {
        if (other.counters.length != counters.length || other.bitmap.length != bitmap.length) {
            throw new IllegalArgumentException("sketches of different shapes: " + counters.length + "+"
                    + bitmap.length + " vs " + other.counters.length + "+" + other.bitmap.length);
        }
        for (int i = 0; i < counters.length; i++) {
            counters[i] += other.counters[i];
        }
        for (int i = 0; i < bitmap.length; i++) {
            bitmap[i] |= other.bitmap[i];
        }
    }
}
