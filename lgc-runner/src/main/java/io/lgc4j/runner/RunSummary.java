package io.lgc4j.runner;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.annotation.JsonValue;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.ObjectCodec;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import com.fasterxml.jackson.databind.deser.std.StdDeserializer;
import com.fasterxml.jackson.databind.ser.std.StdSerializer;
import io.lgc4j.core.comm.Direction;
import io.lgc4j.core.comm.TrafficKind;
import io.lgc4j.core.comm.TrafficMeter;
import io.lgc4j.core.metrics.Phase;
import io.lgc4j.core.metrics.StepMetrics;
import io.lgc4j.core.metrics.StepNotes;
import io.lgc4j.core.stage.Stage;
import io.lgc4j.core.method.Methods;
import io.lgc4j.core.train.TopologyDescription;
import io.lgc4j.core.train.TrainingResult;
import io.lgc4j.core.warmup.Warmup;
import io.lgc4j.runner.config.ExperimentConfig;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.function.ToDoubleFunction;

/**
 * What a run's {@code summary.json} holds: the runner builds it ({@link #of}) and writes it ({@link #write}), the
 * tables read it back ({@link #read}); older summaries read with the newer fields null or empty (key names and absent
 * fields: docs/architecture/runner.md).
 * <pre>{@code
 * RunSummary s = RunSummary.read(Path.of("results/lgc-ps-20260101-120000/summary.json"));
 * double bytesPerStep = s.bytesByStage().get(Stage.COMPRESSED).workerSentPerStep().information();
 * }</pre>
 *
 * @param run                         the run's name ({@code run.name})
 * @param topology                    {@code topology.type} as written in YAML ({@code ps}, {@code ring})
 * @param workers                     K (the last step's, when the run changed K)
 * @param steps                       training steps run
 * @param finalTestAccuracy           test accuracy after the last step (NaN without test data)
 * @param finalLoss                   the last step's loss (NaN when no step ran)
 * @param bytesSentPerEndpoint        bytes each endpoint sent over the run, setup included (workers, then services)
 * @param bytesReceivedPerEndpoint    bytes each endpoint received over the whole run
 * @param meanBytesSentPerStepWorker0 mean bytes worker 0 sent per step
 * @param compressor                  {@code compressor.type} as written in YAML ({@code none}, {@code lgc}, ...)
 * @param bytesByStage                the figures of every stage a step ran in, in stage order
 * @param meanPhaseTimesPerStep       mean time per step of each phase over the whole run (no wall time)
 * @param wallMs                      the run's wall time (key {@code wall_ms})
 * @param parameters                  the model's parameter count
 * @param replicaChecksums            CRC32C of every rank's final parameters (hex), equal when the replicas agree
 * @param method                      the method as the trained topology described itself
 *                                    ({@link io.lgc4j.core.train.TopologyDescription#toMap()})
 * @param advice                      what {@code compressor: auto} chose, or null for a run that named its method
 * @param workersFromStep             a run resumed at another K: each stretch's first step and K, in step order;
 *                                    null (absent) for a run that kept one K
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({"run", "topology", "workers", "steps", "finalTestAccuracy", "finalLoss", "bytesSentPerEndpoint",
    "bytesReceivedPerEndpoint", "meanBytesSentPerStepWorker0", "compressor", "bytesByStage", "meanPhaseTimesPerStep",
    "wall_ms", "parameters", "replicaChecksums", "method", "advice", "workersFromStep"})
public record RunSummary(String run, String topology, int workers, int steps, double finalTestAccuracy,
                         double finalLoss, List<Long> bytesSentPerEndpoint, List<Long> bytesReceivedPerEndpoint,
                         double meanBytesSentPerStepWorker0, String compressor,
                         Map<Stage, StageSummary> bytesByStage, PhaseTimes meanPhaseTimesPerStep,
                         @JsonProperty("wall_ms") double wallMs, Integer parameters,
                         List<String> replicaChecksums, Map<String, Object> method, Map<String, Object> advice,
                         List<WorkersFrom> workersFromStep) {

    /**
     * A stretch of a run at one K, from {@code step} on (until the next stretch's first step).
     *
     * @param step    the stretch's first step
     * @param workers its K
     */
    public record WorkersFrom(int step, int workers) {
    }

    /**
     * This summary with {@code record}: what {@code compressor: auto} chose and how its predicted steps compare with
     * the steps the run took (null for a run that named its method).
     */
    public RunSummary withAdvice(Map<String, Object> record) {
        return new RunSummary(run, topology, workers, steps, finalTestAccuracy, finalLoss, bytesSentPerEndpoint,
                bytesReceivedPerEndpoint, meanBytesSentPerStepWorker0, compressor, bytesByStage,
                meanPhaseTimesPerStep, wallMs, parameters, replicaChecksums, method, record, workersFromStep);
    }

    /** Indented, so people read the file too. */
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    /** Copies the lists; orders the stages (an absent {@code bytesByStage} reads as empty). */
    public RunSummary {
        bytesSentPerEndpoint = bytesSentPerEndpoint == null ? List.of() : List.copyOf(bytesSentPerEndpoint);
        bytesReceivedPerEndpoint = bytesReceivedPerEndpoint == null ? List.of()
                : List.copyOf(bytesReceivedPerEndpoint);
        bytesByStage = orderedStages(bytesByStage);
        replicaChecksums = replicaChecksums == null ? null : List.copyOf(replicaChecksums);
        method = method == null ? null : asJson(method);
    }

    /**
     * {@code method} as it reads back from the file (numbers, text, lists and maps as Jackson reads them), so a
     * summary written and read back equals the one built.
     */
    private static Map<String, Object> asJson(Map<String, Object> method) {
        try {
            return Collections.unmodifiableMap(JSON.readValue(JSON.writeValueAsBytes(method),
                    new TypeReference<LinkedHashMap<String, Object>>() {
                    }));
        } catch (IOException e) {
            throw new IllegalArgumentException("method is not plain JSON data: " + e.getMessage(), e);
        }
    }

    /**
     * The figures of one stage.
     *
     * @param steps                   steps run in this stage
     * @param worker0SentByKind       mean bytes worker 0 sent per step, by kind (only kinds it sent; written as
     *                                {@code worker0Sent<KIND>PerStep})
     * @param worker0SentPerStep      mean bytes worker 0 sent per step
     * @param worker0ReceivedPerStep  mean bytes worker 0 received per step
     * @param workerSentPerStep       mean bytes a worker sent per step, over all workers
     * @param latentSenderSentPerStep the same over the workers that sent a latent that step (LGC-PS: the leader)
     * @param otherWorkerSentPerStep  the same over the workers that sent none
     * @param meanPhaseTimesPerStep   mean time per step of each phase, with the wall time
     * @param diagnostics             the diagnostic mode's notes ({@code applied_rel_err}, {@code applied_cos},
     *                                {@code applied_cos_all}, {@code offer_share}) averaged over the stage's steps
     *                                that have them; empty when the mode was off (then absent from the JSON)
     */
    @JsonSerialize(using = StageSummary.Writer.class)
    @JsonDeserialize(using = StageSummary.Reader.class)
    public record StageSummary(long steps, Map<TrafficKind, Double> worker0SentByKind, double worker0SentPerStep,
                               double worker0ReceivedPerStep, SentBytes workerSentPerStep,
                               SentBytes latentSenderSentPerStep, SentBytes otherWorkerSentPerStep,
                               PhaseTimes meanPhaseTimesPerStep, Map<String, Double> diagnostics) {

        private static final String KIND_PREFIX = "worker0Sent";
        private static final String KIND_SUFFIX = "PerStep";

        /** Orders the kinds; an absent per-worker figure (summaries before it existed) reads as {@link SentBytes#NONE}. */
        public StageSummary {
            worker0SentByKind = orderedKinds(worker0SentByKind);
            workerSentPerStep = workerSentPerStep == null ? SentBytes.NONE : workerSentPerStep;
            latentSenderSentPerStep = latentSenderSentPerStep == null ? SentBytes.NONE : latentSenderSentPerStep;
            otherWorkerSentPerStep = otherWorkerSentPerStep == null ? SentBytes.NONE : otherWorkerSentPerStep;
            diagnostics = diagnostics == null ? Map.of() : Collections.unmodifiableMap(new TreeMap<>(diagnostics));
        }

        /** A stage's figures without diagnostics. */
        public StageSummary(long steps, Map<TrafficKind, Double> worker0SentByKind, double worker0SentPerStep,
                            double worker0ReceivedPerStep, SentBytes workerSentPerStep,
                            SentBytes latentSenderSentPerStep, SentBytes otherWorkerSentPerStep,
                            PhaseTimes meanPhaseTimesPerStep) {
            this(steps, worker0SentByKind, worker0SentPerStep, worker0ReceivedPerStep, workerSentPerStep,
                    latentSenderSentPerStep, otherWorkerSentPerStep, meanPhaseTimesPerStep, Map.of());
        }

        /** The JSON key of worker 0's bytes of {@code kind}: {@code worker0Sent<KIND>PerStep}. */
        static String kindKey(TrafficKind kind) {
            return KIND_PREFIX + kind.name() + KIND_SUFFIX;
        }

        /** Writes the per-kind keys of worker 0 between {@code steps} and {@code worker0SentPerStep}. */
        static final class Writer extends StdSerializer<StageSummary> {
            Writer() {
                super(StageSummary.class);
            }

            @Override
            public void serialize(StageSummary s, JsonGenerator gen, SerializerProvider provider) throws IOException {
                gen.writeStartObject();
                gen.writeNumberField("steps", s.steps());
                for (Map.Entry<TrafficKind, Double> e : s.worker0SentByKind().entrySet()) {
                    gen.writeNumberField(kindKey(e.getKey()), e.getValue());
                }
                gen.writeNumberField("worker0SentPerStep", s.worker0SentPerStep());
                gen.writeNumberField("worker0ReceivedPerStep", s.worker0ReceivedPerStep());
                provider.defaultSerializeField("workerSentPerStep", s.workerSentPerStep(), gen);
                provider.defaultSerializeField("latentSenderSentPerStep", s.latentSenderSentPerStep(), gen);
                provider.defaultSerializeField("otherWorkerSentPerStep", s.otherWorkerSentPerStep(), gen);
                if (s.meanPhaseTimesPerStep() != null) {
                    provider.defaultSerializeField("meanPhaseTimesPerStep", s.meanPhaseTimesPerStep(), gen);
                }
                if (!s.diagnostics().isEmpty()) {
                    provider.defaultSerializeField("diagnostics", s.diagnostics(), gen);
                }
                gen.writeEndObject();
            }
        }

        /** Reads what {@link Writer} writes; an unknown key is an error naming it. */
        static final class Reader extends StdDeserializer<StageSummary> {
            Reader() {
                super(StageSummary.class);
            }

            @Override
            public StageSummary deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
                ObjectCodec codec = p.getCodec();
                JsonNode node = codec.readTree(p);
                long steps = 0;
                Map<TrafficKind, Double> byKind = new EnumMap<>(TrafficKind.class);
                double sent = Double.NaN;
                double received = Double.NaN;
                SentBytes every = null;
                SentBytes latent = null;
                SentBytes others = null;
                PhaseTimes phases = null;
                Map<String, Double> diagnostics = new TreeMap<>();
                for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
                    Map.Entry<String, JsonNode> field = it.next();
                    JsonNode v = field.getValue();
                    switch (field.getKey()) {
                        case "steps" -> steps = v.asLong();
                        case "worker0SentPerStep" -> sent = v.asDouble();
                        case "worker0ReceivedPerStep" -> received = v.asDouble();
                        case "workerSentPerStep" -> every = codec.treeToValue(v, SentBytes.class);
                        case "latentSenderSentPerStep" -> latent = codec.treeToValue(v, SentBytes.class);
                        case "otherWorkerSentPerStep" -> others = codec.treeToValue(v, SentBytes.class);
                        case "meanPhaseTimesPerStep" -> phases = codec.treeToValue(v, PhaseTimes.class);
                        case "diagnostics" -> v.fields().forEachRemaining(d -> diagnostics.put(d.getKey(),
                                d.getValue().asDouble()));
                        default -> byKind.put(kindOfKey(field.getKey(), ctxt), v.asDouble());
                    }
                }
                return new StageSummary(steps, byKind, sent, received, every, latent, others, phases, diagnostics);
            }

            private static TrafficKind kindOfKey(String key, DeserializationContext ctxt) throws IOException {
                if (key.startsWith(KIND_PREFIX) && key.endsWith(KIND_SUFFIX)
                        && key.length() > KIND_PREFIX.length() + KIND_SUFFIX.length()) {
                    String name = key.substring(KIND_PREFIX.length(), key.length() - KIND_SUFFIX.length());
                    for (TrafficKind kind : TrafficKind.values()) {
                        if (kind.name().equals(name)) {
                            return kind;
                        }
                    }
                }
                throw ctxt.weirdKeyException(StageSummary.class, key, "not a figure of a stage (steps, "
                        + "worker0Sent<KIND>PerStep with KIND one of " + List.of(TrafficKind.values())
                        + ", worker0SentPerStep, worker0ReceivedPerStep, workerSentPerStep, latentSenderSentPerStep,"
                        + " otherWorkerSentPerStep, meanPhaseTimesPerStep, diagnostics)");
            }
        }
    }

    /**
     * Mean bytes a worker sent per step, by kind and in total, over a selection of workers; in JSON an object with a
     * key per kind it sent ({@code VALUES}, {@code INDICES}, ...) and {@code total}, or empty when no worker was
     * selected ({@link #NONE}).
     *
     * @param byKind the kinds sent, in {@link TrafficKind} order
     * @param total  all bytes, or NaN for {@link #NONE}
     */
    public record SentBytes(Map<TrafficKind, Double> byKind, double total) {

        /** No worker was selected (an empty object in JSON). */
        public static final SentBytes NONE = new SentBytes(Map.of(), Double.NaN);

        private static final String TOTAL = "total";

        /** Orders the kinds. */
        public SentBytes {
            byKind = orderedKinds(byKind);
        }

        /** True for {@link #NONE}. */
        public boolean isEmpty() {
            return Double.isNaN(total);
        }

        /** Bytes of {@code kind}; 0 when none were sent. */
        public double bytes(TrafficKind kind) {
            return byKind.getOrDefault(kind, 0.0);
        }

        /**
         * The information a node sends per step: everything it sent but the one-off weight shipments (the autoencoder's
         * weights at the switch; the model's initial broadcast in runs made before every rank started from its own),
         * which the run totals count instead; NaN for {@link #NONE}.
         */
        public double information() {
            return isEmpty() ? Double.NaN
                    : total - bytes(TrafficKind.MODEL_WEIGHTS) - bytes(TrafficKind.AE_WEIGHTS);
        }

        @JsonValue
        Map<String, Double> toJson() {
            Map<String, Double> json = new LinkedHashMap<>();
            byKind.forEach((kind, bytes) -> json.put(kind.name(), bytes));
            if (!isEmpty()) {
                json.put(TOTAL, total);
            }
            return json;
        }

        @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
        static SentBytes fromJson(Map<String, Double> json) {
            if (json.isEmpty()) {
                return NONE;
            }
            Map<TrafficKind, Double> kinds = new EnumMap<>(TrafficKind.class);
            json.forEach((key, bytes) -> {
                if (!key.equals(TOTAL)) {
                    kinds.put(TrafficKind.valueOf(key), bytes);
                }
            });
            return new SentBytes(kinds, json.getOrDefault(TOTAL, Double.NaN));
        }
    }

    /**
     * Mean milliseconds per step of each {@link Phase}, and of the whole step where a stage reports it.
     *
     * @param wallMs the mean wall time of a step (in a stage), or {@code null} (the run's means, whose wall time is
     *               the run's {@link RunSummary#wallMs})
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonPropertyOrder({"cpu_wait_ms", "compute_ms", "select_ms", "encode_ms", "communicate_ms", "decode_ms",
        "apply_ms", "evaluate_ms", "wall_ms"})
    public record PhaseTimes(@JsonProperty("cpu_wait_ms") double cpuWaitMs,
                             @JsonProperty("compute_ms") double computeMs,
                             @JsonProperty("select_ms") double selectMs,
                             @JsonProperty("encode_ms") double encodeMs,
                             @JsonProperty("communicate_ms") double communicateMs,
                             @JsonProperty("decode_ms") double decodeMs,
                             @JsonProperty("apply_ms") double applyMs,
                             @JsonProperty("evaluate_ms") double evaluateMs,
                             @JsonProperty("wall_ms") Double wallMs) {

        /** The times {@code ms} gives for every phase, with the wall time (or {@code null}). */
        public static PhaseTimes of(ToDoubleFunction<Phase> ms, Double wallMs) {
            return new PhaseTimes(ms.applyAsDouble(Phase.CPU_WAIT), ms.applyAsDouble(Phase.COMPUTE),
                    ms.applyAsDouble(Phase.SELECT), ms.applyAsDouble(Phase.ENCODE),
                    ms.applyAsDouble(Phase.COMMUNICATE), ms.applyAsDouble(Phase.DECODE),
                    ms.applyAsDouble(Phase.APPLY), ms.applyAsDouble(Phase.EVALUATE), wallMs);
        }

        /** Mean milliseconds per step of {@code phase}. */
        public double ms(Phase phase) {
            // exhaustive: a new Phase does not compile until it has a field here
            return switch (phase) {
                case CPU_WAIT -> cpuWaitMs;
                case COMPUTE -> computeMs;
                case SELECT -> selectMs;
                case ENCODE -> encodeMs;
                case COMMUNICATE -> communicateMs;
                case DECODE -> decodeMs;
                case APPLY -> applyMs;
                case EVALUATE -> evaluateMs;
            };
        }
    }

    /** The run's last stage: where a method spends the rest of training (FULL, TOP_K or COMPRESSED). */
    public Stage steadyStage() {
        Stage last = null;
        for (Stage stage : bytesByStage.keySet()) {
            last = stage;
        }
        if (last == null) {
            throw new IllegalArgumentException("summary of run '" + run + "' has no stage: no step ran");
        }
        return last;
    }

    /** Bytes sent by the endpoints {@code [from, to)} over the whole run, setup included. */
    public long sentTotal(int from, int to) {
        long sum = 0;
        for (int e = from; e < Math.min(to, bytesSentPerEndpoint.size()); e++) {
            sum += bytesSentPerEndpoint.get(e);
        }
        return sum;
    }

    /** Writes this summary to {@code file} (indented JSON). */
    public void write(Path file) throws IOException {
        JSON.writeValue(file.toFile(), this);
    }

    /**
     * Writes this summary to {@code file} atomically: through {@code <file>.partial}, so the file's presence means
     * the run finished.
     */
    public void writeAtomically(Path file) throws IOException {
        Path partial = file.resolveSibling(file.getFileName() + ".partial");
        write(partial);
        Files.move(partial, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    /** Reads a summary the runner wrote (of this version or an earlier one). */
    public static RunSummary read(Path file) throws IOException {
        return JSON.readValue(file.toFile(), RunSummary.class);
    }

    /**
     * The summary of a finished run.
     *
     * @param config           what ran
     * @param result           the trainer's result
     * @param parameters       the model's parameter count
     * @param replicaChecksums CRC32C of every rank's final parameters
     */
    public static RunSummary of(ExperimentConfig config, TrainingResult result, int parameters,
                                List<String> replicaChecksums) {
        List<StepMetrics> steps = result.steps();
        int workers = config.training().workers();
        TrafficMeter.Snapshot total = result.traffic();
        List<Long> sent = new ArrayList<>();
        List<Long> received = new ArrayList<>();
        for (int e = 0; e < total.endpoints(); e++) {
            sent.add(total.bytes(e, Direction.SENT));
            received.add(total.bytes(e, Direction.RECEIVED));
        }
        double perStep = 0;
        for (StepMetrics m : steps) {
            perStep += m.traffic().bytes(0, Direction.SENT);
        }
        Map<Stage, StageSummary> byStage = new EnumMap<>(Stage.class);
        for (Stage stage : Stage.values()) {
            List<StepMetrics> ofStage = steps.stream().filter(m -> m.stage() == stage).toList();
            if (!ofStage.isEmpty()) {
                byStage.put(stage, stage(stage, ofStage, total));
            }
        }
        PhaseTimes phases = PhaseTimes.of(p -> {
            double sum = 0;
            for (StepMetrics m : steps) {
                sum += m.nanos(p);
            }
            return steps.isEmpty() ? 0 : sum / steps.size() / 1e6;
        }, null);
        return new RunSummary(config.run().name(), config.topology().type().toString(), workers, steps.size(),
                result.finalAccuracy(), steps.isEmpty() ? Double.NaN : steps.get(steps.size() - 1).loss(), sent,
                received, steps.isEmpty() ? 0 : perStep / steps.size(), config.compressor().type().toString(),
                byStage, phases, result.wallNanos() / 1e6, parameters, replicaChecksums, method(config, result.method()),
                null, stretches(steps));
    }

    /** Each stretch of {@code steps} at one K, or null when every step had the same K. */
    private static List<WorkersFrom> stretches(List<StepMetrics> steps) {
        List<WorkersFrom> stretches = new ArrayList<>();
        for (StepMetrics m : steps) {
            if (stretches.isEmpty() || stretches.get(stretches.size() - 1).workers() != m.workers()) {
                stretches.add(new WorkersFrom(m.step(), m.workers()));
            }
        }
        return stretches.size() > 1 ? List.copyOf(stretches) : null;
    }

    /**
     * The method as the topology described itself, with the resolved warm-up ({@code warmup}: type, its settings,
     * values, carryMemory) when the FULL stage is not the default dense one (so a default run's summary is as before).
     */
    public static Map<String, Object> method(ExperimentConfig config, TopologyDescription described) {
        Map<String, Object> method = described.toMap();
        if (config.warmup().section().isDefault()) {
            return method;
        }
        Map<String, Object> withWarmup = new LinkedHashMap<>(method);
        withWarmup.put(Warmup.SECTION, Warmup.of(config.resolved(), config.run().seed(), Methods.installed())
                .describe());
        return withWarmup;
    }

    private static StageSummary stage(Stage stage, List<StepMetrics> ofStage, TrafficMeter.Snapshot total) {
        long count = ofStage.size();
        Map<TrafficKind, Double> byKind = new EnumMap<>(TrafficKind.class);
        for (TrafficKind kind : TrafficKind.values()) {
            long bytes = total.bytes(0, Direction.SENT, stage, kind);
            if (bytes > 0) {
                byKind.put(kind, (double) bytes / count);
            }
        }
        PhaseTimes phases = PhaseTimes.of(p -> ofStage.stream().mapToLong(m -> m.nanos(p)).average().orElse(0) / 1e6,
                ofStage.stream().mapToLong(StepMetrics::wallNanos).average().orElse(0) / 1e6);
        return new StageSummary(count, byKind, (double) total.bytes(0, Direction.SENT, stage) / count,
                (double) total.bytes(0, Direction.RECEIVED, stage) / count,
                sentBytes(ofStage, latent -> true),
                // LGC-PS: the step's leader sends the latent, the others only their innovation; shown apart
                sentBytes(ofStage, latent -> latent), sentBytes(ofStage, latent -> !latent), phases,
                diagnostics(ofStage));
    }

    /** The mean of each diagnostic note over the steps that have it. */
    private static Map<String, Double> diagnostics(List<StepMetrics> steps) {
        Map<String, Double> means = new TreeMap<>();
        for (String name : StepNotes.DIAGNOSTICS) {
            steps.stream().mapToDouble(m -> m.note(name)).filter(v -> !Double.isNaN(v)).average()
                    .ifPresent(mean -> means.put(name, mean));
        }
        return means;
    }

    /**
     * Mean bytes a worker sent per step, by kind and in total, over the workers {@code pick} selects by whether
     * they sent a latent that step (all workers: {@code r -> true}); {@link SentBytes#NONE} when none was selected.
     */
    private static SentBytes sentBytes(List<StepMetrics> steps, Predicate<Boolean> pick) {
        Map<TrafficKind, Double> sums = new EnumMap<>(TrafficKind.class);
        double sumTotal = 0;
        long samples = 0;
        for (StepMetrics m : steps) {
            // the step's own K: a run resumed at another K has steps of each
            for (int r = 0; r < m.workers(); r++) {
                boolean latent = m.traffic().bytes(r, Direction.SENT, TrafficKind.LATENT) > 0;
                if (!pick.test(latent)) {
                    continue;
                }
                samples++;
                for (TrafficKind kind : TrafficKind.values()) {
                    long b = m.traffic().bytes(r, Direction.SENT, kind);
                    if (b > 0) {
                        sums.merge(kind, (double) b, Double::sum);
                    }
                }
                sumTotal += m.traffic().bytes(r, Direction.SENT);
            }
        }
        if (samples == 0) {
            return SentBytes.NONE;
        }
        final double n = samples;
        sums.replaceAll((k, v) -> v / n);
        return new SentBytes(sums, sumTotal / n);
    }

    /** An unmodifiable copy in the enum's order ({@code null} reads as empty). */
    private static <K extends Enum<K>, V> Map<K, V> ordered(Map<K, V> map) {
        return map == null || map.isEmpty() ? Map.of() : Collections.unmodifiableMap(new EnumMap<>(map));
    }

    private static Map<Stage, StageSummary> orderedStages(Map<Stage, StageSummary> map) {
        return ordered(map);
    }

    private static Map<TrafficKind, Double> orderedKinds(Map<TrafficKind, Double> map) {
        return ordered(map);
    }
}
