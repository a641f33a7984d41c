/**
 * Sparsification primitives on plain float arrays and buffers: exact top-k selection by magnitude
 * ({@link io.lgc4j.core.sparse.TopK}), a uniform random k-subset of a range
 * ({@link io.lgc4j.core.sparse.RandomSubset}, random-k's support) and sparse vectors of sorted indices and their
 * values ({@link io.lgc4j.core.sparse.SparseVector}).
 */
package io.lgc4j.core.sparse;
