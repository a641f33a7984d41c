package io.lgc4j.runner.config;

import com.fasterxml.jackson.annotation.JsonValue;
import io.lgc4j.core.codec.IndexCodecs;
import io.lgc4j.core.compress.Compressor;
import io.lgc4j.core.compress.BoundCompressor;
import io.lgc4j.core.method.Methods;
import io.lgc4j.core.settings.ResolvedConfig;
import io.lgc4j.core.settings.SettingsException;
import io.lgc4j.core.method.TopologyProvider;
import io.lgc4j.core.method.TopologyRequest;
import io.lgc4j.core.warmup.Warmup;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * One experiment, as read from a {@code configs/*.yaml} file: every section non-null and checked, a missing section
 * holding its defaults (only {@code run.name} has none). Immutable. Built once, concluded once: the sections bound,
 * the rules across them checked, and the method they name resolved through the registry ({@link #method()}: the
 * compressor bound to its settings, the topology provider, the stage schedule), so nothing reads the sections again.
 * <pre>{@code
 * ExperimentConfig config = ConfigLoader.load(Path.of("configs/quickstart.yaml"));
 * ExperimentConfig smoke = config.withTraining(config.training().withMaxSteps(20));
 * String resolved = smoke.toYaml();   // every default spelled out; ConfigLoader.parse(resolved, ...) equals smoke
 * Topology topology = smoke.method().newTopology();
 * }</pre>
 */
public final class ExperimentConfig {

    /**
     * The sections, in the order {@code config.yaml} writes them: the runner's, then those the registered providers
     * declare ({@link Methods#sections()}, by name: {@code autoencoder}), then {@code runtime}.
     */
    public static final List<String> SECTIONS = sectionNames();

    private final RunConfig run;
    private final DataConfig data;
    private final ModelConfig model;
    private final TrainingConfig training;
    private final TopologyConfig topology;
    private final CompressorConfig compressor;
    private final StagesConfig stages;
    private final WarmupConfig warmup;
    /** The sections the providers declare, every one present, in {@link Methods#sections()}' order. */
    private final Map<String, Record> sections;
    private final RuntimeConfig runtime;
    private final ConfiguredMethod method;

    /**
     * Checks every component; rejects a null section.
     *
     * @param run      name, seed and output directory
     * @param data     dataset, location, limits and preprocessing
     * @param model    architecture and optimiser
     * @param training workers, batch size and length of training
     * @param topology how the workers exchange gradients
     * @param compressor how the non-dense blocks are compressed after the FULL stage
     * @param stages     how many steps are dense first
     * @param warmup     how those FULL steps travel
     * @param sections   the sections the providers declare ({@link Methods#sections()}: {@code autoencoder}), by
     *                   name; one left out holds its defaults
     * @param runtime    where the ranks live and the deadlines
     * @throws ConfigException if a component is missing or out of range, or components disagree: a value the
     *         compressor's settings reject, {@code dgc} with an updater other than {@code sgd}, a {@code trainLimit}
     *         below one global batch, {@code support: own} other than LGC on the parameter server, a topology
     *         without a provider for the compressor or rejecting a setting, a provider's rule across sections
     *         ({@code autoencoder.ablation} without {@code lgc})
     * @throws IllegalArgumentException if {@code sections} names a section no provider declares, or holds a record
     *         of another type than the declared defaults
     */
    public ExperimentConfig(RunConfig run, DataConfig data, ModelConfig model, TrainingConfig training,
                            TopologyConfig topology, CompressorConfig compressor, StagesConfig stages,
                            WarmupConfig warmup, Map<String, ? extends Record> sections, RuntimeConfig runtime) {
        // Only nulls to reject: each section checked its own keys when it was built.
        this.run = Checks.required("run", run);
        this.data = Checks.required("data", data);
        this.model = Checks.required("model", model);
        this.training = Checks.required("training", training);
        this.topology = Checks.required("topology", topology);
        this.compressor = Checks.required("compressor", compressor);
        this.stages = Checks.required("stages", stages);
        this.warmup = Checks.required("warmup", warmup);
        this.sections = declared(Checks.required("sections", sections));
        this.runtime = Checks.required("runtime", runtime);
        this.method = conclude(run, data, model, training, topology, compressor, stages, warmup, this.sections);
    }

    /** {@code given} over the declared sections' defaults, in their order. */
    private static Map<String, Record> declared(Map<String, ? extends Record> given) {
        Map<String, Record> declared = Methods.installed().sections();
        for (String name : given.keySet()) {
            if (!declared.containsKey(name)) {
                throw new IllegalArgumentException("no provider declares a section '" + name + "'; declared: "
                        + declared.keySet());
            }
        }
        Map<String, Record> sections = new LinkedHashMap<>();
        declared.forEach((name, defaults) -> {
            Record section = given.get(name);
            if (section != null && section.getClass() != defaults.getClass()) {
                throw new IllegalArgumentException("section '" + name + "' is a " + defaults.getClass().getName()
                        + ", found a " + section.getClass().getName());
            }
            sections.put(name, section == null ? defaults : section);
        });
        return Collections.unmodifiableMap(sections);
    }

    private static List<String> sectionNames() {
        List<String> names = new ArrayList<>(List.of("run", "data", "model", "training", "topology", "compressor",
                "stages", "warmup"));
        names.addAll(Methods.installed().sections().keySet());
        names.add("runtime");
        return List.copyOf(names);
    }

    /**
     * A config with the default {@code warmup} section (dense).
     *
     * @param run         name, seed and output directory
     * @param data        dataset, location, limits and preprocessing
     * @param model       architecture and optimiser
     * @param training    workers, batch size and length of training
     * @param topology    how the workers exchange gradients
     * @param compressor  how the non-dense blocks are compressed after the FULL stage
     * @param stages      how many steps are dense first
     * @param sections    the sections the providers declare, by name; one left out holds its defaults
     * @param runtime     where the ranks live and the deadlines
     */
    public ExperimentConfig(RunConfig run, DataConfig data, ModelConfig model, TrainingConfig training,
                            TopologyConfig topology, CompressorConfig compressor, StagesConfig stages,
                            Map<String, ? extends Record> sections, RuntimeConfig runtime) {
        this(run, data, model, training, topology, compressor, stages, WarmupConfig.defaults(), sections, runtime);
    }

    /**
     * The sections as the registered providers read them ({@link io.lgc4j.core.compress.CompressorProvider#settings}):
     * each section as {@code config.yaml} writes it, every default filled in.
     */
    public ResolvedConfig resolved() {
        return method.request().config();
    }

    /** The method the sections name, resolved through the registry when this config was built. */
    public ConfiguredMethod method() {
        return method;
    }

    /** The sections the providers read (all but {@code runtime}), in {@link #SECTIONS}' order. */
    private static Map<String, Object> sections(RunConfig run, DataConfig data, ModelConfig model,
                                                TrainingConfig training, TopologyConfig topology,
                                                CompressorConfig compressor, StagesConfig stages, WarmupConfig warmup,
                                                Map<String, Record> declared) {
        Map<String, Object> sections = new LinkedHashMap<>();
        sections.put("run", run);
        sections.put("data", data);
        sections.put("model", model);
        sections.put("training", training);
        sections.put("topology", topology);
        sections.put("compressor", compressor);
        sections.put("stages", stages);
        sections.put("warmup", warmup);
        sections.putAll(declared);
        return sections;
    }

    /**
     * The method the sections name, after the rules that tie keys of different sections together, so that a config
     * that cannot run fails here, at load, rather than as a stack trace after the data is read.
     */
    private static ConfiguredMethod conclude(RunConfig run, DataConfig data, ModelConfig model,
                                             TrainingConfig training, TopologyConfig topology,
                                             CompressorConfig compressor, StagesConfig stages, WarmupConfig warmup,
                                             Map<String, Record> declared) {
        // the compressor's settings record checks its own keys (a registered compressor's extension keys included)
        ResolvedConfig resolved = ConfigMethods.resolved(sections(run, data, model, training, topology, compressor,
                stages, warmup, declared));
        BoundCompressor<?> bound = ConfigMethods.bind(compressor.type(), resolved);
        boolean appliesMomentum = bound.create(run.seed()).map(Compressor::appliesMomentum).orElse(false);
        if (appliesMomentum && model.updater().type() != UpdaterType.SGD) {
            throw ConfigException.forKey("model.updater.type", "must be sgd with compressor.type " + compressor.type()
                    + ", found " + model.updater().type() + ": " + compressor.type().toString().toUpperCase(Locale.ROOT)
                    + " applies momentum itself (compressor.momentum), so the model's updater must not add its own");
        }
        Warmup fullStage;
        try {
            fullStage = Warmup.of(resolved, run.seed(), Methods.installed());
        } catch (SettingsException e) {
            throw ConfigException.forKey(e.key(), e.problem());
        }
        if (fullStage.compressor() != null && fullStage.compressor().appliesMomentum()
                && model.updater().type() != UpdaterType.SGD) {
            throw ConfigException.forKey("warmup.type", "cannot be " + warmup.type() + " with model.updater.type "
                    + model.updater().type() + ": " + warmup.type().toUpperCase(Locale.ROOT) + " applies momentum"
                    + " itself (compressor.momentum), so the model's updater must be sgd; or choose another warm-up");
        }
        long globalBatch = (long) training.workers() * training.batchSizePerWorker();
        if (data.trainLimit() != DataConfig.NO_LIMIT && data.trainLimit() < globalBatch) {
            // The whole data set against the global batch is checked where the data is read (the trainer's build).
            throw ConfigException.forKey("data.trainLimit", "must be at least one global batch, training.workers ×"
                    + " training.batchSizePerWorker = " + training.workers() + " × " + training.batchSizePerWorker()
                    + " = " + globalBatch + " (every worker reads one batch per step), found " + data.trainLimit());
        }
        try {
            // the providers' rules for the keys they declare, the topologies' first (LGC-PS's support: own, the
            // sharded server's servers), then the compressors' (LGC's autoencoder.ablation); the topology built
            // below checks which of their settings it runs
            Methods.installed().checkAcross(resolved);
        } catch (SettingsException e) {
            throw ConfigException.forKey(e.key(), e.problem());
        }
        TopologyProvider provider;
        try {
            provider = Methods.installed().topology(topology.type().toString(), compressor.type().toString());
        } catch (IllegalArgumentException e) {
            throw ConfigException.forKey("topology.type", "cannot carry compressor.type " + compressor.type() + ": "
                    + e.getMessage());
        }
        // A topology is built here and dropped: its provider reads the settings of its own (LGC-PS's support and
        // innovation share, the ablations LGC-PS and LGC-RAR run) and rejects here what the run would reject.
        TopologyRequest request = new TopologyRequest(bound, IndexCodecs.byName(compressor.codec()), run.seed(),
                resolved);
        try {
            provider.create(request);
        } catch (SettingsException e) {
            throw ConfigException.forKey(e.key(), e.problem());
        } catch (IllegalArgumentException e) {
            throw ConfigException.forKey("topology.type", "cannot carry compressor.type " + compressor.type() + ": "
                    + e.getMessage());
        }
        return new ConfiguredMethod(bound, provider, request,
                bound.schedule(stages.fullIterations(), stages.aeTrainingIterations()));
    }

    /**
     * A config whose provider sections ({@code autoencoder}) hold their defaults.
     *
     * @param run        name, seed and output directory
     * @param data       dataset, location, limits and preprocessing
     * @param model      architecture and optimiser
     * @param training   workers, batch size and length of training
     * @param topology   how the workers exchange gradients
     * @param compressor how the non-dense blocks are compressed after the FULL stage
     * @param stages     how many steps are dense first
     */
    public ExperimentConfig(RunConfig run, DataConfig data, ModelConfig model, TrainingConfig training,
                            TopologyConfig topology, CompressorConfig compressor, StagesConfig stages) {
        this(run, data, model, training, topology, compressor, stages, Map.of());
    }

    /**
     * A config with the default {@code runtime} section (in-process).
     *
     * @param run         name, seed and output directory
     * @param data        dataset, location, limits and preprocessing
     * @param model       architecture and optimiser
     * @param training    workers, batch size and length of training
     * @param topology    how the workers exchange gradients
     * @param compressor  how the non-dense blocks are compressed after the FULL stage
     * @param stages      how many steps are dense first
     * @param sections    the sections the providers declare, by name; one left out holds its defaults
     */
    public ExperimentConfig(RunConfig run, DataConfig data, ModelConfig model, TrainingConfig training,
                            TopologyConfig topology, CompressorConfig compressor, StagesConfig stages,
                            Map<String, ? extends Record> sections) {
        this(run, data, model, training, topology, compressor, stages, sections, RuntimeConfig.defaults());
    }

    /**
     * @param runName the run's name (the one key without a default)
     * @return a config with that name and every other key at its default
     */
    public static ExperimentConfig defaults(String runName) {
        return new ExperimentConfig(RunConfig.named(runName), DataConfig.defaults(), ModelConfig.defaults(),
                TrainingConfig.defaults(), TopologyConfig.defaults(), CompressorConfig.defaults(),
                StagesConfig.defaults());
    }

    /**
     * @param newRun the run section
     * @return this config with {@code run} replaced
     */
    public ExperimentConfig withRun(RunConfig newRun) {
        return new ExperimentConfig(newRun, data, model, training, topology, compressor, stages, warmup,
                sections, runtime);
    }

    /**
     * @param newData the data section
     * @return this config with {@code data} replaced
     */
    public ExperimentConfig withData(DataConfig newData) {
        return new ExperimentConfig(run, newData, model, training, topology, compressor, stages, warmup,
                sections, runtime);
    }

    /**
     * @param newTraining the training section
     * @return this config with {@code training} replaced
     */
    public ExperimentConfig withTraining(TrainingConfig newTraining) {
        return new ExperimentConfig(run, data, model, newTraining, topology, compressor, stages, warmup,
                sections, runtime);
    }

    /**
     * @param newTopology the topology section
     * @return this config with {@code topology} replaced
     */
    public ExperimentConfig withTopology(TopologyConfig newTopology) {
        return new ExperimentConfig(run, data, model, training, newTopology, compressor, stages, warmup,
                sections, runtime);
    }

    /**
     * @param newCompressor the compressor section
     * @return this config with {@code compressor} replaced
     */
    public ExperimentConfig withCompressor(CompressorConfig newCompressor) {
        return new ExperimentConfig(run, data, model, training, topology, newCompressor, stages, warmup,
                sections, runtime);
    }

    /**
     * @param newWarmup the warmup section
     * @return this config with {@code warmup} replaced
     */
    public ExperimentConfig withWarmup(WarmupConfig newWarmup) {
        return new ExperimentConfig(run, data, model, training, topology, compressor, stages, newWarmup, sections,
                runtime);
    }

    /**
     * @param name       a section a provider declares ({@link Methods#sections()}), e.g. {@code autoencoder}
     * @param newSection the section, a record of the declared defaults' type
     * @return this config with section {@code name} replaced
     * @throws IllegalArgumentException if no provider declares {@code name}, or {@code newSection} is of another type
     */
    public ExperimentConfig withSection(String name, Record newSection) {
        Map<String, Record> replaced = new LinkedHashMap<>(sections);
        if (!replaced.containsKey(name)) {
            declared(Map.of(name, newSection));
        }
        replaced.put(name, Checks.required(name, newSection));
        return new ExperimentConfig(run, data, model, training, topology, compressor, stages, warmup, replaced,
                runtime);
    }

    /**
     * @param newRuntime the runtime section
     * @return this config with {@code runtime} replaced
     */
    public ExperimentConfig withRuntime(RuntimeConfig newRuntime) {
        return new ExperimentConfig(run, data, model, training, topology, compressor, stages, warmup,
                sections, newRuntime);
    }

    /** @return name, seed and output directory */
    public RunConfig run() {
        return run;
    }

    /** @return dataset, location, limits and preprocessing */
    public DataConfig data() {
        return data;
    }

    /** @return architecture and optimiser */
    public ModelConfig model() {
        return model;
    }

    /** @return workers, batch size and length of training */
    public TrainingConfig training() {
        return training;
    }

    /** @return how the workers exchange gradients */
    public TopologyConfig topology() {
        return topology;
    }

    /** @return how the non-dense blocks are compressed after the FULL stage */
    public CompressorConfig compressor() {
        return compressor;
    }

    /** @return how many steps are dense first */
    public StagesConfig stages() {
        return stages;
    }

    /** @return how the FULL steps travel: dense (the default), or through a compressor or value encoding */
    public WarmupConfig warmup() {
        return warmup;
    }

    /**
     * A section a provider declares, e.g. LGC's gradient autoencoders:
     * {@code config.section("autoencoder", AutoencoderSection.class)}.
     *
     * @param name the section's name
     * @param type its record type (the declared defaults' type)
     * @param <R>  that type
     * @return the section, its defaults when the file left it out
     * @throws IllegalArgumentException if no provider declares {@code name}, or declares it of another type
     */
    public <R extends Record> R section(String name, Class<R> type) {
        Record section = sections.get(name);
        if (section == null) {
            throw new IllegalArgumentException("no provider declares a section '" + name + "'; declared: "
                    + sections.keySet());
        }
        if (!type.isInstance(section)) {
            throw new IllegalArgumentException("section '" + name + "' is a " + section.getClass().getName()
                    + ", not a " + type.getName());
        }
        return type.cast(section);
    }

    /** @return the sections the providers declare, by name, each at its defaults when the file left it out */
    public Map<String, Record> sections() {
        return sections;
    }

    /** @return where the ranks live (threads of one JVM, or one process each over TCP) and the deadlines */
    public RuntimeConfig runtime() {
        return runtime;
    }

    /** Each section's record type, in {@link #SECTIONS}' order (what the key listing walks). */
    static Map<String, Class<?>> sectionTypes() {
        Map<String, Class<?>> types = new LinkedHashMap<>();
        List<Class<?>> classes = List.of(RunConfig.class, DataConfig.class, ModelConfig.class, TrainingConfig.class,
                TopologyConfig.class, CompressorConfig.class, StagesConfig.class, WarmupConfig.class);
        for (int i = 0; i < classes.size(); i++) {
            types.put(SECTIONS.get(i), classes.get(i));
        }
        Methods.installed().sections().forEach((name, defaults) -> types.put(name, defaults.getClass()));
        types.put("runtime", RuntimeConfig.class);
        return types;
    }

    /** The sections as {@code config.yaml} writes them, in {@link #SECTIONS}' order. */
    @JsonValue
    private Map<String, Object> yaml() {
        Map<String, Object> all = sections(run, data, model, training, topology, compressor, stages, warmup,
                sections);
        all.put("runtime", runtime);
        return all;
    }

    /** Equal when every section is: the method follows from them. */
    @Override
    public boolean equals(Object o) {
        return o instanceof ExperimentConfig c && c.yaml().equals(yaml());
    }

    @Override
    public int hashCode() {
        return yaml().hashCode();
    }

    @Override
    public String toString() {
        StringBuilder text = new StringBuilder("ExperimentConfig[");
        yaml().forEach((name, section) -> text.append(text.length() > 17 ? ", " : "").append(name).append('=')
                .append(section));
        return text.append(']').toString();
    }

    /**
     * @return the fully resolved config as YAML, every default written out; see {@link ConfigWriter#toYaml}
     */
    public String toYaml() {
        return ConfigWriter.toYaml(this);
    }

    /**
     * The config of the sections a file gave, each absent one ({@code null}) at its defaults; what
     * {@link ExperimentConfigDeserializer} builds.
     *
     * @throws ConfigException {@code run.name is required} when {@code run} is absent, else as the constructor
     */
    static ExperimentConfig fromYaml(RunConfig run, DataConfig data, ModelConfig model, TrainingConfig training,
                                     TopologyConfig topology, CompressorConfig compressor, StagesConfig stages,
                                     WarmupConfig warmup, Map<String, Record> sections, RuntimeConfig runtime) {
        if (run == null) {
            // Report the key the user has to write, not the section that holds it.
            throw ConfigException.forKey("run.name", "is required");
        }
        return new ExperimentConfig(run,
                data == null ? DataConfig.defaults() : data,
                model == null ? ModelConfig.defaults() : model,
                training == null ? TrainingConfig.defaults() : training,
                topology == null ? TopologyConfig.defaults() : topology,
                compressor == null ? CompressorConfig.defaults() : compressor,
                stages == null ? StagesConfig.defaults() : stages,
                warmup == null ? WarmupConfig.defaults() : warmup,
                sections,
                runtime == null ? RuntimeConfig.defaults() : runtime);
    }
}
