package io.lgc4j.runner.config;

/**
 * The optimiser that turns the aggregated gradient into a parameter update ({@code model.updater.type}).
 *
 * <pre>{@code
 * model:
 *   updater:
 *     type: adam
 * }</pre>
 */
public enum UpdaterType {
    /** SGD with Nesterov momentum; the only type that reads {@code momentum}. */
    NESTEROVS,
    /** Plain stochastic gradient descent. */
    SGD,
    /** Adam with its usual default betas and epsilon. */
    ADAM;

    /** @return the YAML spelling, e.g. {@code nesterovs} */
    @Override
    public String toString() {
        return ConfigEnums.yamlName(this);
    }
}
