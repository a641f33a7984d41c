/**
 * How a process becomes an endpoint of a job: how it joins a cluster ({@link io.lgc4j.core.runtime.ClusterConnector}),
 * what a launcher told it ({@link io.lgc4j.core.runtime.LaunchEnvironment}) and what it tells the launcher when it
 * stops ({@link io.lgc4j.core.runtime.StopReport}). The reports the endpoints send rank 0 during a run, and the planes
 * that carry them, are the rank loop's own (package {@code io.lgc4j.core.train}).
 */
package io.lgc4j.core.runtime;
