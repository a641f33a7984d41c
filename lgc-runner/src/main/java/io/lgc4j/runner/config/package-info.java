/**
 * The experiment configuration: a {@code configs/*.yaml} file bound into validated, immutable records.
 *
 * <p>{@link io.lgc4j.runner.config.ConfigLoader} reads a file into an
 * {@link io.lgc4j.runner.config.ExperimentConfig}, whose sections are
 * {@link io.lgc4j.runner.config.RunConfig run}, {@link io.lgc4j.runner.config.DataConfig data},
 * {@link io.lgc4j.runner.config.ModelConfig model} (with its
 * {@link io.lgc4j.runner.config.UpdaterConfig updater}),
 * {@link io.lgc4j.runner.config.TrainingConfig training} and
 * {@link io.lgc4j.runner.config.TopologyConfig topology}.
 * {@link io.lgc4j.runner.config.ConfigWriter} writes the fully resolved config back, and reading that output
 * gives an equal record.
 *
 * <p>Rules kept here:
 * <ul>
 *   <li>Every key has a default except {@code run.name}; a missing section takes all its defaults.</li>
 *   <li>Unknown keys are errors, never ignored: a typo must not silently fall back to a default.</li>
 *   <li>Range checks live in the records' compact constructors, so a config built in code is checked the same way
 *       as one read from YAML.</li>
 *   <li>Every problem is one {@link io.lgc4j.runner.config.ConfigException} whose message starts with the
 *       file name and names the key path, e.g.
 *       {@code configs/x.yaml: key 'training.workers' must be >= 1, found 0}.</li>
 *   <li>Enum values are written in kebab case ({@code small-cnn}) and read case-insensitively in kebab, snake or
 *       plain spelling ({@code SMALL_CNN}, {@code Small-Cnn});
 *       see {@link io.lgc4j.runner.config.ConfigEnums}.</li>
 * </ul>
 */
package io.lgc4j.runner.config;
