/**
 * How a run's endpoints talk about the run rather than train: the step reports every rank and service sends rank 0
 * ({@link io.lgc4j.core.runtime.RunReport}), the decorators that carry them over any transport
 * ({@link io.lgc4j.core.runtime.ControlPlane}, {@link io.lgc4j.core.runtime.ServiceReporter}), and how a process
 * joins a cluster ({@link io.lgc4j.core.runtime.ClusterConnector}). Nothing here knows threads or processes: the
 * same frames cross the in-process cluster and TCP.
 */
package io.lgc4j.core.runtime;
