package io.lgc4j.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import java.util.NoSuchElementException;

import org.junit.jupiter.api.Test;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.dataset.api.iterator.DataSetIterator;

class LabeledImagesTest {

    /** Ten 1x2 images; image i has features (i, -i) and label i % 3. */
    private static LabeledImages tenImages() {
        float[] features = new float[20];
        int[] labels = new int[10];
        for (int i = 0; i < 10; i++) {
            features[2 * i] = i;
            features[2 * i + 1] = -i;
            labels[i] = i % 3;
        }
        return new LabeledImages(features, labels, 1, 2, List.of("a", "b", "c"), PixelPreprocessing.SCALE);
    }

    @Test
    void shouldIterateInStorageOrderKeepingThePartialBatch() {
        DataSetIterator it = tenImages().iterator(4);

        List<Integer> sizes = new ArrayList<>();
        List<Integer> firstFeature = new ArrayList<>();
        while (it.hasNext()) {
            DataSet batch = it.next();
            sizes.add(batch.numExamples());
            for (int r = 0; r < batch.numExamples(); r++) {
                firstFeature.add(batch.getFeatures().getInt(r, 0));
            }
        }

        assertEquals(List.of(4, 4, 2), sizes);
        assertEquals(List.of(0, 1, 2, 3, 4, 5, 6, 7, 8, 9), firstFeature);
        assertEquals(2, it.inputColumns());
        assertEquals(3, it.totalOutcomes());
        assertEquals(List.of("a", "b", "c"), it.getLabels());
    }

    @Test
    void shouldPairFeaturesWithTheirOneHotLabels() {
        DataSet batch = tenImages().shuffledIterator(10, 7L, PartialBatch.KEEP).next();

        for (int r = 0; r < 10; r++) {
            int example = batch.getFeatures().getInt(r, 0);
            assertEquals(-example, batch.getFeatures().getInt(r, 1));
            assertEquals(example % 3, batch.getLabels().getRow(r).argMax().getInt(0));
            assertEquals(1.0, batch.getLabels().getRow(r).sumNumber().doubleValue(), 0.0);
        }
    }

    @Test
    void shouldDropThePartialBatchWhenAsked() {
        LabeledImagesIterator it = (LabeledImagesIterator) tenImages().shuffledIterator(4, 1L, PartialBatch.DROP);

        assertEquals(2, it.batchesPerPass());
        assertEquals(4, it.next().numExamples());
        assertEquals(4, it.next().numExamples());
        assertFalse(it.hasNext());
        assertThrows(NoSuchElementException.class, it::next);
    }

    @Test
    void shouldGiveTheSameOrderForTheSameSeed() {
        assertEquals(order(tenImages().shuffledIterator(3, 42L, PartialBatch.KEEP), 3),
                order(tenImages().shuffledIterator(3, 42L, PartialBatch.KEEP), 3));
    }

    @Test
    void shouldVisitEveryExampleOncePerPassInANewOrderEachPass() {
        List<List<Integer>> passes = order(tenImages().shuffledIterator(3, 42L, PartialBatch.KEEP), 3);

        for (List<Integer> pass : passes) {
            assertEquals(List.of(0, 1, 2, 3, 4, 5, 6, 7, 8, 9), pass.stream().sorted().toList());
        }
        assertFalse(passes.get(0).equals(passes.get(1)) && passes.get(1).equals(passes.get(2)),
                "three identical permutations: " + passes);
    }

    @Test
    void shouldNotAdvanceThePassOnAResetBeforeAnyBatch() {
        DataSetIterator fresh = tenImages().shuffledIterator(10, 5L, PartialBatch.KEEP);
        DataSetIterator resetFirst = tenImages().shuffledIterator(10, 5L, PartialBatch.KEEP);
        resetFirst.reset();
        resetFirst.reset();

        assertEquals(fresh.next().getFeatures(), resetFirst.next().getFeatures());
    }

    @Test
    void shouldSliceImagesAndLabels() {
        LabeledImages slice = tenImages().slice(3, 5);

        assertArrayEquals(new int[] {0, 1}, slice.labels());
        assertArrayEquals(new float[] {3, -3, 4, -4}, slice.features());
    }

    @Test
    void shouldRejectLabelOutsideTheClasses() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new LabeledImages(new float[2], new int[] {3}, 1, 2, List.of("a", "b", "c"),
                        PixelPreprocessing.SCALE));

        assertEquals("labels[0]=3 is outside 0..2", e.getMessage());
    }

    /** First value of every example, per pass, over {@code passes} passes. */
    private static List<List<Integer>> order(DataSetIterator it, int passes) {
        List<List<Integer>> result = new ArrayList<>();
        for (int p = 0; p < passes; p++) {
            List<Integer> pass = new ArrayList<>();
            while (it.hasNext()) {
                DataSet batch = it.next();
                for (int r = 0; r < batch.numExamples(); r++) {
                    pass.add(batch.getFeatures().getInt(r, 0));
                }
            }
            result.add(pass);
            it.reset();
        }
        return result;
    }
}
