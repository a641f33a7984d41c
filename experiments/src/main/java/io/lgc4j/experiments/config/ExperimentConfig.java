package io.lgc4j.experiments.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/**
 * One experiment, as read from a {@code configs/*.yaml} file: the top-level record of the configuration.
 *
 * <p>Every component is non-null and already checked; a section missing from the YAML holds its defaults. Only
 * {@code run.name} has no default.
 *
 * <pre>{@code
 * ExperimentConfig config = ConfigLoader.load(Path.of("configs/quickstart.yaml"));
 * ExperimentConfig smoke = config.withTraining(config.training().withMaxSteps(20));
 * String resolved = smoke.toYaml();   // every default spelled out; ConfigLoader.parse(resolved, ...) equals smoke
 * }</pre>
 *
 * @param run      name, seed and output directory
 * @param data     dataset, location, limits and preprocessing
 * @param model    architecture and optimiser
 * @param training workers, batch size and length of training
 * @param topology how the workers exchange gradients
 */
@JsonPropertyOrder({"run", "data", "model", "training", "topology"})
public record ExperimentConfig(RunConfig run, DataConfig data, ModelConfig model, TrainingConfig training,
                               TopologyConfig topology) {

    /**
     * Checks every component; rejects a null section.
     *
     * @param run      name, seed and output directory
     * @param data     dataset, location, limits and preprocessing
     * @param model    architecture and optimiser
     * @param training workers, batch size and length of training
     * @param topology how the workers exchange gradients
     * @throws ConfigException if a component is missing or out of range
     */
    public ExperimentConfig {
        // Only nulls to reject: each section checked its own keys when it was built.
        Checks.required("run", run);
        Checks.required("data", data);
        Checks.required("model", model);
        Checks.required("training", training);
        Checks.required("topology", topology);
    }

    /**
     * @param runName the run's name (the one key without a default)
     * @return a config with that name and every other key at its default
     */
    public static ExperimentConfig defaults(String runName) {
        return new ExperimentConfig(RunConfig.named(runName), DataConfig.defaults(), ModelConfig.defaults(),
                TrainingConfig.defaults(), TopologyConfig.defaults());
    }

    /**
     * @param newRun the run section
     * @return this config with {@code run} replaced
     */
    public ExperimentConfig withRun(RunConfig newRun) {
        return new ExperimentConfig(newRun, data, model, training, topology);
    }

    /**
     * @param newData the data section
     * @return this config with {@code data} replaced
     */
    public ExperimentConfig withData(DataConfig newData) {
        return new ExperimentConfig(run, newData, model, training, topology);
    }

    /**
     * @param newTraining the training section
     * @return this config with {@code training} replaced
     */
    public ExperimentConfig withTraining(TrainingConfig newTraining) {
        return new ExperimentConfig(run, data, model, newTraining, topology);
    }

    /**
     * @return the fully resolved config as YAML, every default written out; see {@link ConfigWriter#toYaml}
     */
    public String toYaml() {
        return ConfigWriter.toYaml(this);
    }

    @JsonCreator
    private static ExperimentConfig fromYaml(@JsonProperty("run") RunConfig run,
                                             @JsonProperty("data") DataConfig data,
                                             @JsonProperty("model") ModelConfig model,
                                             @JsonProperty("training") TrainingConfig training,
                                             @JsonProperty("topology") TopologyConfig topology) {
        if (run == null) {
            // Report the key the user has to write, not the section that holds it.
            throw ConfigException.forKey("run.name", "is required");
        }
        return new ExperimentConfig(run,
                data == null ? DataConfig.defaults() : data,
                model == null ? ModelConfig.defaults() : model,
                training == null ? TrainingConfig.defaults() : training,
                topology == null ? TopologyConfig.defaults() : topology);
    }
}
