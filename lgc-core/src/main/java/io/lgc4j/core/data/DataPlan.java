package io.lgc4j.core.data;

/**
 * What every worker of a run must agree on before step 0: how many examples the data holds, how many synchronous
 * steps one epoch takes at the run's K and b, and which data it is.
 *
 * @param examples      examples the source holds
 * @param stepsPerEpoch steps one epoch takes: {@code ⌊examples / (workers × batchSize)⌋} for an indexed source
 * @param fingerprint   identifies the data (CRC32C of the examples, or of the files' names, sizes and row counts);
 *                      0 when the source cannot say
 */
public record DataPlan(long examples, int stepsPerEpoch, long fingerprint) {

    /**
     * The plan of {@code examples} examples read by {@code workers} ranks in batches of {@code batchSize}.
     *
     * @throws IllegalArgumentException when the data does not hold one global batch
     */
    public static DataPlan of(long examples, int workers, int batchSize, long fingerprint) {
        long globalBatch = (long) workers * batchSize;
        if (examples < globalBatch) {
            throw new IllegalArgumentException("the training data holds " + examples + " examples, fewer than one"
                    + " global batch: workers × batchSizePerWorker = " + workers + " × " + batchSize + " = "
                    + globalBatch + " (every rank reads one batch per step); give more data, fewer workers or a"
                    + " smaller batch");
        }
        long steps = examples / globalBatch;
        if (steps > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("one epoch of " + examples + " examples takes " + steps
                    + " steps, more than " + Integer.MAX_VALUE);
        }
        return new DataPlan(examples, (int) steps, fingerprint);
    }
}
