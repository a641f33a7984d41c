/**
 * Sparsification primitives on plain float arrays and buffers: exact top-k selection by magnitude
 * ({@link io.lgc4j.core.sparse.TopK}) and sparse vectors of sorted indices and their values
 * ({@link io.lgc4j.core.sparse.SparseVector}). Random-k's support is its compressor's ({@code compress}).
 */
package io.lgc4j.core.sparse;
