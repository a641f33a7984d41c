/**
 * How a replica computes its forward and backward pass: DL4J's oneDNN layer helpers, which DL4J 1.0.0-M2.1 loses
 * unless told and helped ({@link io.lgc4j.core.compute.LayerHelpers}), the layers' cache mode
 * ({@link io.lgc4j.core.compute.ComputeSettings}), and the report of which layer runs on which helper
 * ({@link io.lgc4j.core.compute.ComputeReport}) that a run's provenance records.
 */
package io.lgc4j.core.compute;
