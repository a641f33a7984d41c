/**
 * JMH microbenchmarks of the engine's hot paths: top-k selection ({@link io.lgc4j.bench.jmh.TopKSelectBenchmark}), the
 * index codecs ({@link io.lgc4j.bench.jmh.IndexCodecBenchmark}) and dense frame encode and decode
 * ({@link io.lgc4j.bench.jmh.FrameBenchmark}). Build with {@code mvn -DskipTests package}, run with
 * {@code java -jar benchmarks/target/benchmarks.jar} (JMH's options, e.g. {@code -f 1 -wi 1 -i 2 TopK}).
 */
package io.lgc4j.bench.jmh;
