/**
 * Micro-benchmarks of the parts a compressed step is made of, each printing a Markdown table: for example
 * {@link io.lgc4j.experiments.bench.CodecBenchmark} (index codecs: bits per index against the bound, encode and
 * decode throughput). They measure; tests elsewhere assert behaviour.
 */
package io.lgc4j.experiments.bench;
