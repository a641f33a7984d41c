package io.lgc4j.core.data;

import io.lgc4j.core.train.ShardPlan;

import org.junit.jupiter.api.Test;

import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

/**
 * The order every indexed source gives, pinned: these indices are what the trainer read before the data sources
 * existed ({@link ShardPlan} at commit 79d1b01); a change here changes every run.
 */
class EpochOrderTest {

    @Test
    void theOrderShouldBeTheOneRunsHaveAlwaysRead() {
        assertArrayEquals(new int[] {12, 63, 62, 57, 95, 65, 15, 48, 36, 84, 28, 77, 42, 1, 25, 69},
                Arrays.copyOf(EpochOrder.of(100, 42, 0), 16));
        assertArrayEquals(new int[] {12, 25, 88, 39, 8, 33, 59, 93, 99, 72, 3, 1, 60, 57, 76, 40},
                Arrays.copyOf(EpochOrder.of(100, 42, 1), 16));
        // rank 2 of 3, step 2 of epoch 1, b = 8: ⌊100/3⌋ = 33, from 2·33 + 2·8 = 82
        assertArrayEquals(new int[] {80, 15, 46, 94, 37, 14, 71, 13}, new ShardPlan(100, 3, 8, 42).batch(1, 2, 2));
        assertArrayEquals(new int[] {80, 15, 46, 94, 37, 14, 71, 13},
                Arrays.copyOfRange(EpochOrder.of(100, 42, 1), 82, 90));
    }
}
