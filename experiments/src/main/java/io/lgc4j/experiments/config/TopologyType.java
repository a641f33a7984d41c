package io.lgc4j.experiments.config;

/**
 * How the K workers exchange gradients ({@code topology.type}).
 *
 * <pre>{@code
 * topology:
 *   type: ps
 * }</pre>
 */
public enum TopologyType {
    /** Ring allreduce: reduce-scatter then all-gather between neighbours; carries only summable payloads. */
    RING,
    /** Parameter server: every worker pushes to the server, which broadcasts the mean. */
    PS;

    /** @return the YAML spelling, e.g. {@code ring} */
    @Override
    public String toString() {
        return ConfigEnums.yamlName(this);
    }
}
