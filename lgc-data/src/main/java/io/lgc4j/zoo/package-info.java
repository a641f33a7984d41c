/**
 * The model zoo: the networks the experiments train, built initialized from a seed so that every rank of a
 * data-parallel run can build an identical replica ({@link io.lgc4j.zoo.ModelZoo}), and the names that
 * configuration files use for them ({@link io.lgc4j.zoo.ModelSpec}).
 *
 * <pre>{@code
 * Model net = ModelSpec.fromName("small-cnn").build(42L, ModelZoo.defaultUpdater());
 * }</pre>
 */
package io.lgc4j.zoo;
