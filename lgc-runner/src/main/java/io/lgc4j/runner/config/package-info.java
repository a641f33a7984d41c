/**
 * The experiment configuration: a {@code configs/*.yaml} file bound into validated, immutable records.
 * {@link io.lgc4j.runner.config.ConfigLoader} reads a file into an {@link io.lgc4j.runner.config.ExperimentConfig}
 * (one record per section: run, data, model, training, topology, compressor, stages, warmup, autoencoder, runtime);
 * {@link io.lgc4j.runner.config.ConfigWriter} writes the fully resolved config back, and reading it gives an equal
 * record.
 *
 * <ul>
 *   <li>Every key has a default except {@code run.name}; a missing section takes all its defaults.</li>
 *   <li>Unknown keys are errors: a typo must not silently fall back to a default.</li>
 *   <li>Range checks live in the records' compact constructors, so a config built in code is checked the same way.</li>
 *   <li>Every problem is one {@link io.lgc4j.runner.config.ConfigException} naming the file and the key path.</li>
 *   <li>Enum values are written in kebab case ({@code small-cnn}) and read case-insensitively in kebab, snake or
 *       plain spelling ({@link io.lgc4j.runner.config.ConfigEnums}).</li>
 * </ul>
 */
package io.lgc4j.runner.config;
