package io.lgc4j.runner.config;

/** How LGC on the parameter server picks the step's support ({@code topology.support}; ARCHITECTURE §4.4). */
public enum SupportPolicyType {
    /** The step's leader picks it and the server relays its indices: every rank sends values on one support. */
    LEADER,
    /** Paper-literal: every rank its own top-k, whose indices travel too. */
    OWN;

    @Override
    public String toString() {
        return ConfigEnums.yamlName(this);
    }
}
