/**
 * What {@code lgc bench} measures (the JMH microbenchmarks are in {@code io.lgc4j.bench.jmh}), as benchmarks that
 * print Markdown tables: top-k selection against the one-pass floor and PyTorch, index codecs against the entropy
 * bound, the gradient autoencoders' latency and convergence. Each has a {@code run(PrintStream, ...)}; the recorders ({@link io.lgc4j.bench.TopKRecorder},
 * {@link io.lgc4j.bench.CompactVectorRecorder}) take their data from real training, and
 * {@link io.lgc4j.bench.CompactVectorFile} stores compact vectors between runs.
 */
package io.lgc4j.bench;
