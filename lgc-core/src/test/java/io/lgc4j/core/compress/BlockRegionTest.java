package io.lgc4j.core.compress;

import io.lgc4j.core.layout.LayerPolicy;
import io.lgc4j.core.layout.ParamBlock;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * A region's blocks in a range of the flattened vector (a streamed step's piece): where they sit in the region, and
 * their gather and scatter, which leave every other element alone; a block cut by the range is refused.
 */
class BlockRegionTest {
    /** Blocks at 2..5 and 9..13 of a 16-element vector (the rest belongs to other policies). */
    private static final BlockRegion REGION = new BlockRegion(List.of(
            new ParamBlock(0, 0, "a", "W", 2, 3, new long[] {3}, LayerPolicy.DENSE),
            new ParamBlock(1, 1, "b", "W", 9, 4, new long[] {4}, LayerPolicy.DENSE)));

    @Test
    void shouldFindGatherAndScatterTheBlocksOfARange() {
        assertArrayEquals(new int[] {3, 7}, REGION.span(6, 16));
        assertArrayEquals(new int[] {0, 3}, REGION.span(0, 6));
        assertArrayEquals(new int[] {0, 7}, REGION.span(0, 16));
        assertArrayEquals(new int[] {0, 0}, REGION.span(5, 9));
        float[] flat = new float[16];
        for (int i = 0; i < flat.length; i++) {
            flat[i] = i;
        }
        float[] region = new float[REGION.length()];
        REGION.gather(flat, region, 6, 16);
        assertArrayEquals(new float[] {0, 0, 0, 9, 10, 11, 12}, region);
        float[] back = new float[16];
        REGION.scatter(new float[] {-1, -2, -3, -4, -5, -6, -7}, back, 6, 16);
        assertArrayEquals(new float[] {0, 0, 0, 0, 0, 0, 0, 0, 0, -4, -5, -6, -7, 0, 0, 0}, back);
    }

    @Test
    void shouldRefuseARangeThatCutsABlock() {
        assertEquals("block b/W (elements 9..13) straddles the range 10..16",
                assertThrows(IllegalArgumentException.class, () -> REGION.span(10, 16)).getMessage());
    }
}
