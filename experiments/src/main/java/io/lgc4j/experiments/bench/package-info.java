/**
 * Benchmarks that print Markdown tables: top-k selection against the one-pass floor and PyTorch, index codecs
 * against the entropy bound. Each has a {@code run(PrintStream, ...)} and a {@code main}.
 */
package io.lgc4j.experiments.bench;
