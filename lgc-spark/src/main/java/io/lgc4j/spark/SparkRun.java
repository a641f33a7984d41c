package io.lgc4j.spark;

import io.lgc4j.runner.RunSummary;

import java.nio.file.Path;

/**
 * A finished Spark run: where the driver wrote its results, what they say, and where the wall time went.
 *
 * @param directory        {@code <outputDir>/<run-id>/} on the driver: config.yaml, provenance.json, metrics.csv,
 *                         summary.json, model.zip, spark.json
 * @param summary          the content of summary.json
 * @param stageAttempts    how many attempts the barrier stage took (1: no retry); for an elastic fit, how many
 *                         barrier jobs ({@link SparkOptions.Elastic}: spark.json's {@code elasticAttempts} says each
 *                         one's K)
 * @param resumedFrom      the checkpoint step the last attempt resumed from, or -1 for step 0
 * @param wallMs           from submitting the stage to collecting its results
 * @param untilTasksMs     from submitting the stage until its first task started (executors, scheduling); -1 when
 *                         the stage was retried (the last attempt's submission is Spark's)
 * @param preparingMs      the slowest task's start until it listened (reading data, building model and trainer)
 * @param rendezvousMs     the first endpoint listening until the last one's links were up (the allGather, the mesh)
 * @param trainingMs       the last link up until the last task ended
 */
public record SparkRun(Path directory, RunSummary summary, int stageAttempts, long resumedFrom, long wallMs,
                       long untilTasksMs, long preparingMs, long rendezvousMs, long trainingMs) {
}
