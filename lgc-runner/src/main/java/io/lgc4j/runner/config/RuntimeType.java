package io.lgc4j.runner.config;

/**
 * Where the ranks of a run live ({@code runtime.type}).
 *
 * <pre>{@code
 * runtime:
 *   type: tcp
 * }</pre>
 */
public enum RuntimeType {
    /** Every rank and service on threads of one JVM (the embedded default; {@code lgc run}). */
    IN_PROCESS,
    /** One OS process per rank and service, over authenticated TCP links ({@code lgc launch}, {@code lgc worker}). */
    TCP;

    /** @return the YAML spelling, e.g. {@code in-process} */
    @Override
    public String toString() {
        return ConfigEnums.yamlName(this);
    }
}
