/**
 * Where each worker rank's examples come from: a {@link io.lgc4j.core.data.DataSource} that every worker opens for its
 * own {@link io.lgc4j.core.data.Shard} of each epoch, so that no process holds more than its batches in flight
 * (service endpoints open nothing). {@link io.lgc4j.core.data.MemorySource} is the in-memory source;
 * {@link io.lgc4j.core.data.IndexedSource} is the base of every source that can read any example by its number, and
 * gives all of them the same order ({@link io.lgc4j.core.data.EpochOrder}).
 */
package io.lgc4j.core.data;
