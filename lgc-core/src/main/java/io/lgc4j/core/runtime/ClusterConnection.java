package io.lgc4j.core.runtime;

import io.lgc4j.core.comm.Transport;

/**
 * This process's place in a cluster of OS processes: the one endpoint it hosts and that endpoint's plain
 * transport (the trainer stacks metering and the control plane on it).
 *
 * <pre>{@code
 * try (ClusterConnection c = connector.connect(endpoints, names)) {
 *     run(c.endpoint(), c.transport());
 * } catch (RuntimeException e) {
 *     c.abort(lost, e.getMessage());   // every other process learns which endpoint was lost first
 * }
 * }</pre>
 */
public interface ClusterConnection extends AutoCloseable {

    /** The endpoint this process hosts. */
    int endpoint();

    /** The endpoint's transport, without a meter. */
    Transport transport();

    /**
     * Tells every live peer that {@code lostEndpoint} was lost (this endpoint itself when it fails on its own) and
     * closes the links; peers' receives then fail naming {@code lostEndpoint} and {@code reason}.
     */
    void abort(int lostEndpoint, String reason);

    /** Closes the links in order after a finished run. */
    @Override
    void close();
}
