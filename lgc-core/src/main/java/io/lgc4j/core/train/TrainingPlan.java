package io.lgc4j.core.train;

import io.lgc4j.core.layout.GradientLayout;

/**
 * What a run is about to do.
 *
 * @param topology           the topology's name
 * @param workers            K
 * @param serviceEndpoints   endpoints beyond the workers (parameter-server roles)
 * @param batchSizePerWorker examples per rank per step
 * @param stepsPerEpoch      synchronous steps in one pass over the training data
 * @param totalSteps         steps the run will take
 * @param trainExamples      examples in the training data
 * @param layout             the model's gradient layout
 */
public record TrainingPlan(String topology, int workers, int serviceEndpoints, int batchSizePerWorker,
                           int stepsPerEpoch, int totalSteps, int trainExamples, GradientLayout layout) {
}
