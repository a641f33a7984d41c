/**
 * Runs LGC4J on Spark, as the tasks of one barrier stage: an experiment config ({@code LgcSpark}, spark-submit's
 * {@code LgcSparkMain}), or your DL4J model on a DataFrame as a Spark ML estimator ({@code LgcEstimator}, giving an
 * {@code LgcModel}).
 */
package io.lgc4j.spark;
