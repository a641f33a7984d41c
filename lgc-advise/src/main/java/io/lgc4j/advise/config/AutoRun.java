package io.lgc4j.advise.config;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.lgc4j.advise.Advice;
import io.lgc4j.advise.AdviseSession;
import io.lgc4j.advise.ComputeProbe;
import io.lgc4j.advise.Link;
import io.lgc4j.core.compute.CpuLimits;
import io.lgc4j.core.data.DataSource;
import io.lgc4j.core.layout.GradientLayout;
import io.lgc4j.core.metrics.Phase;
import io.lgc4j.core.metrics.StepMetrics;
import io.lgc4j.core.runtime.ClusterConnection;
import io.lgc4j.core.runtime.ClusterConnector;
import io.lgc4j.core.stage.Stage;
import io.lgc4j.core.train.TrainingResult;
import io.lgc4j.runner.BuildInfo;
import io.lgc4j.runner.ExperimentRunner;
import io.lgc4j.runner.Nd4jEnvironment;
import io.lgc4j.runner.RunInputException;
import io.lgc4j.runner.config.ExperimentConfig;
import org.deeplearning4j.nn.api.Model;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.IntFunction;

/**
 * {@code compressor: auto} before step 0: the advisor chooses the method and the run trains the chosen candidate's
 * config, an ordinary config: {@link #inProcess} predicts on {@link Link#IN_PROCESS}; {@link #asEndpoint} measures
 * the links in an {@link AdviseSession} on a connection of its own and learns rank 0's choice; {@link #recorded}
 * takes a restart's or resume's choice from {@code advice.json}, refusing other candidates. The run directory gets
 * {@code advice.json} (choice, candidates' digest, link) and {@code advice.csv} (one row per candidate and stage).
 * Details: {@code docs/architecture/runner.md}.
 *
 * <pre>{@code
 * AutoMethod auto = AutoMethod.read(Path.of("my-auto.yaml")).orElseThrow();
 * AutoRun.Resolved r = AutoRun.inProcess(auto, System.err);
 * new ExperimentRunner().records(r.files(), r.provenance(), r::summary).run(r.config(), "my-auto.yaml", List.of());
 * }</pre>
 */
public final class AutoRun {

    /** The file that records the choice in a run directory. */
    public static final String ADVICE_JSON = "advice.json";
    /** The table beside it. */
    public static final String ADVICE_CSV = "advice.csv";
    /** A run's first steps, which pay the JIT on the same quota: the summary's measured steady steps leave them out. */
    public static final int JIT_STEPS = 25;

    private AutoRun() {
    }

    /**
     * A choice.
     *
     * @param chosen  the candidate trained
     * @param config  its config, under the user's run name
     * @param advice  the advice (on the process that decided; empty elsewhere and when recorded)
     * @param probe   the session's measurements (on rank 0 of a launched run)
     * @param digest  the candidates' digest ({@link AutoMethod#digest()})
     * @param seconds what choosing cost on this process
     * @param how     {@code in process}, {@code advise session} or {@code recorded in DIR}
     */
    public record Resolved(AdviseCandidate chosen, ExperimentConfig config, Optional<Advice> advice,
                           Optional<AdviseSession.Probe> probe, String digest, double seconds, String how) {

        /** {@code advice.json} and {@code advice.csv}, when this process decided. */
        public Map<String, String> files() {
            if (advice.isEmpty()) {
                return Map.of();
            }
            Map<String, Object> json = new LinkedHashMap<>();
            json.put("chosen", chosen.id());
            json.put("label", chosen.label());
            json.put("candidatesDigest", digest);
            json.put("how", how);
            json.put("seconds", seconds);
            json.put("link", advice.get().link());
            probe.ifPresent(p -> json.put("probe", p));
            json.put("cores", advice.get().cores());
            json.put("computeMs", advice.get().computeMs());
            json.put("target", advice.get().target());
            json.put("denseSteps", advice.get().denseSteps().orElse(null));
            json.put("table", advice.get().table());
            json.put("version", BuildInfo.version());
            try {
                return Map.of(ADVICE_JSON, MAPPER.writeValueAsString(json) + System.lineSeparator(),
                        ADVICE_CSV, advice.get().csv());
            } catch (JsonProcessingException e) {
                throw new IllegalStateException("cannot write advice.json: " + e.getMessage(), e);
            }
        }

        /**
         * What {@code summary.json} records of the choice once the run is over: the chosen candidate, each of its
         * stages' predicted steady step beside the steady step the run took (rank 0's wall time less evaluation, the
         * stage's first step and the run's first {@value #JIT_STEPS} steps left out, as the prediction leaves out
         * the one-offs) and their difference, and the predicted time to the target; null without an advice (a
         * recorded choice).
         */
        public Map<String, Object> summary(TrainingResult result) {
            if (advice.isEmpty()) {
                return null;
            }
            Advice.Row row = advice.get().rows().stream().filter(r -> r.id().equals(chosen.id())).findFirst()
                    .orElseThrow();
            Map<String, double[]> took = new LinkedHashMap<>();
            Set<Stage> seen = EnumSet.noneOf(Stage.class);
            for (StepMetrics m : result.steps()) {
                boolean first = seen.add(m.stage());
                if (first || m.step() < JIT_STEPS || m.evaluated()) {
                    continue;
                }
                double[] sum = took.computeIfAbsent(m.stage().name(), s -> new double[2]);
                sum[0] += (m.wallNanos() - m.nanos(Phase.EVALUATE)) / 1e6;
                sum[1]++;
            }
            Map<String, Object> stages = new LinkedHashMap<>();
            for (Advice.StageRow s : row.stages()) {
                Map<String, Object> st = new LinkedHashMap<>();
                double predicted = s.prediction().stepMs();
                st.put("predictedStepMs", round(predicted));
                st.put("bound", s.prediction().bound().label());
                double[] sum = took.get(s.stage().name());
                if (sum != null && sum[1] > 0) {
                    double measured = sum[0] / sum[1];
                    st.put("measuredStepMs", round(measured));
                    st.put("steps", (int) sum[1]);
                    st.put("errorPct", round(100 * (predicted - measured) / measured));
                }
                stages.put(s.stage().name(), st);
            }
            Map<String, Object> a = new LinkedHashMap<>();
            a.put("chosen", chosen.id());
            a.put("how", how);
            row.timeToTargetS().ifPresent(t -> a.put("predictedTimeToTargetS", round(t)));
            a.put("stages", stages);
            return a;
        }

        private static double round(double v) {
            return Math.round(v * 10) / 10.0;
        }

        /** What {@code provenance.json} records of the choice. */
        public Map<String, Object> provenance() {
            Map<String, Object> p = new LinkedHashMap<>();
            p.put("chosen", chosen.id());
            p.put("how", how);
            p.put("candidatesDigest", digest);
            p.put("seconds", seconds);
            if (advice.isPresent()) {
                p.put("file", ADVICE_JSON);
                p.put("link", advice.get().link().describe());
            }
            return Map.of("advice", p);
        }
    }

    private static final ObjectMapper MAPPER = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    /**
     * Chooses for a run whose ranks are threads of this JVM.
     *
     * @throws IOException       when the data cannot be read
     * @throws RunInputException when nothing can be chosen
     */
    public static Resolved inProcess(AutoMethod auto, PrintStream log) throws IOException {
        long start = System.nanoTime();
        ExperimentConfig base = auto.base();
        double cores = CpuLimits.ofThisProcess().cores() / base.training().workers();
        Advice advice = ConfigAdvisor.advise(base, auto.candidates(), Link.IN_PROCESS, auto.target(), cores,
                auto.denseSteps(), auto.penalties(), log);
        log.print(advice.table());
        String id = advice.chosen().orElseThrow(() -> new RunInputException("compressor: auto chose nothing: no"
                + " candidate has a predicted time to the target (see the table above)"));
        return resolved(auto, id, Optional.of(advice), Optional.empty(), start, "in process");
    }

    /**
     * This endpoint's part of the advise session of a launched run; every endpoint returns the same choice.
     *
     * @param endpoints every process the launch started (the workers, then the server processes)
     * @param endpoint  this process's endpoint
     * @throws IOException           when the data cannot be read
     * @throws IllegalStateException when the processes disagree about the candidates, or nothing can be chosen
     */
    public static Resolved asEndpoint(AutoMethod auto, ClusterConnector connector, int endpoints, int endpoint,
                                      PrintStream log) throws IOException {
        long start = System.nanoTime();
        ExperimentConfig base = auto.base();
        int workers = base.training().workers();
        Nd4jEnvironment.configure();
        Nd4jEnvironment.threads(base.model().compute().threads(), 1);
        Model model = ExperimentRunner.buildModel(base.model(), base.run().seed());
        int probeBytes = AdviseSession.probeBytes(GradientLayout.of(model).length(), workers);
        Runnable pass = null;
        if (endpoint < workers) {
            try (DataSource data = ExperimentRunner.trainingData(base.data())) {
                pass = ComputeProbe.warmedPass(model, data, endpoint, workers,
                        base.training().batchSizePerWorker(), base.run().seed(), base.model().compute().settings());
            }
        }
        IntFunction<String> names = e -> e < workers ? "rank " + e : "server process " + (e - workers);
        AdviseSession.Outcome outcome;
        try (ClusterConnection c = connector.connect(endpoints, names, AdviseSession.PLAN,
                AdviseSession.PLAN_MEANING)) {
            outcome = AdviseSession.run(c.transport(), workers, auto.digest(), probeBytes, pass, probe -> {
                Advice advice = ConfigAdvisor.advise(base, auto.candidates(), probe.link(), auto.target(), probe.cores(),
                        auto.denseSteps(), auto.penalties(), log);
                log.print(advice.table());
                return advice;
            }, log);
        }
        return resolved(auto, outcome.chosen(), outcome.advice(), outcome.probe(), start, "advise session");
    }

    /**
     * The choice {@code runDir/advice.json} recorded, if the directory has one.
     *
     * @throws RunInputException when it was made among other candidates, or cannot be read
     */
    public static Optional<Resolved> recorded(AutoMethod auto, Path runDir) throws RunInputException {
        Path file = runDir.resolve(ADVICE_JSON);
        if (!Files.isRegularFile(file)) {
            return Optional.empty();
        }
        JsonNode json;
        try {
            json = MAPPER.readTree(file.toFile());
        } catch (IOException e) {
            throw new RunInputException("cannot read " + file + ": " + e.getMessage(), e);
        }
        String chosen = json.path("chosen").asText("");
        String digest = json.path("candidatesDigest").asText("");
        if (!digest.equals(auto.digest())) {
            throw new RunInputException("cannot continue " + runDir + " with compressor: auto: its " + ADVICE_JSON
                    + " chose '" + chosen + "' among candidates " + digest + ", this config's are " + auto.digest()
                    + "; resume with the run's config.yaml");
        }
        AdviseCandidate c;
        try {
            c = auto.candidate(chosen);
        } catch (IllegalArgumentException e) {
            throw new RunInputException(file + ": " + e.getMessage(), e);
        }
        return Optional.of(new Resolved(c, c.config().withRun(auto.base().run()), Optional.empty(), Optional.empty(),
                digest, 0, "recorded in " + runDir));
    }

    private static Resolved resolved(AutoMethod auto, String id, Optional<Advice> advice,
                                     Optional<AdviseSession.Probe> probe, long start, String how) {
        AdviseCandidate c = auto.candidate(id);
        return new Resolved(c, c.config().withRun(auto.base().run()), advice, probe, auto.digest(),
                (System.nanoTime() - start) / 1e9, how);
    }

    /** Writes {@code r}'s files into {@code dir} (which exists). */
    public static void write(Resolved r, Path dir) {
        try {
            for (Map.Entry<String, String> f : r.files().entrySet()) {
                Files.writeString(dir.resolve(f.getKey()), f.getValue());
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the advice into " + dir + ": " + e.getMessage(), e);
        }
    }
}
