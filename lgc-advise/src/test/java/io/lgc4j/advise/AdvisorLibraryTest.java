package io.lgc4j.advise;

import io.lgc4j.advise.Advice;
import io.lgc4j.advise.Advisor;
import io.lgc4j.advise.Link;
import io.lgc4j.advise.MethodCandidate;
import io.lgc4j.core.comm.ValueEncoding;
import io.lgc4j.core.compress.PowerSgdCompressor;
import io.lgc4j.core.data.MemorySource;
import io.lgc4j.core.stage.Stage;
import io.lgc4j.core.stage.StageSchedule;
import io.lgc4j.core.train.TestModels;
import io.lgc4j.ring.topology.RingTopology;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The advisor from the library: a model and data of one's own, candidates built from topologies. */
class AdvisorLibraryTest {

    private static final MethodCandidate RING = MethodCandidate.of("ring", "Dense ring", RingTopology::new);
    private static final MethodCandidate FP16 = MethodCandidate.of("fp16", "Dense fp16", RingTopology::new)
            .values(ValueEncoding.FP16).penalty(1.0, "my 3 seeds");
    private static final MethodCandidate PSGD = MethodCandidate.of("psgd", "PowerSGD r = 1",
            () -> new RingTopology(new PowerSgdCompressor(new PowerSgdCompressor.Settings(1, 1.0, true, true), 7)))
            .stages(StageSchedule.denseWarmup(10)).penalty(1.5, "my guess");

    private static Advisor.Builder advisor(ByteArrayOutputStream log) {
        return Advisor.builder().model(TestModels.mlp(3)).data(MemorySource.of(TestModels.data(400, 5)))
                .workers(3).batchSizePerWorker(8).link(new Link(1, 2, 0, 0, "given")).cores(1)
                .log(new PrintStream(log, true, StandardCharsets.UTF_8));
    }

    @Test
    void shouldPredictEachCandidateAndChooseTheFastestToTheTarget() throws IOException {
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        Advice advice = advisor(log).candidates(List.of(RING, FP16, PSGD)).denseSteps(100).advise();
        assertTrue(log.toString(StandardCharsets.UTF_8).startsWith("lgc advise: a pass takes "), log.toString());
        Advice.Row ring = advice.rows().get(0);
        assertEquals(Optional.of(1.0), ring.penalty());
        assertEquals(Advisor.DENSE_MATH, ring.penaltySource(), "a dense fp32 ring computes dense's math");
        assertEquals(List.of(Stage.FULL), ring.stages().stream().map(Advice.StageRow::stage).toList());
        assertEquals(4, ring.stages().get(0).legs(), "2(K - 1) hops at K = 3");
        Advice.Row psgd = advice.rows().get(2);
        assertEquals(List.of(Stage.FULL, Stage.TOP_K), psgd.stages().stream().map(Advice.StageRow::stage).toList());
        assertEquals(Optional.of(150.0), psgd.steps());
        // its low-rank steps move fewer bytes than dense's (a little fewer on a model this small)
        assertTrue(psgd.stages().get(1).busiestUp() < ring.stages().get(0).busiestUp(),
                psgd.stages().get(1) + " vs " + ring.stages().get(0));
        // every time is its schedule's steps at its stages' step times
        double ringMs = ring.stages().get(0).prediction().stepMs();
        assertEquals(100 * ringMs / 1e3 + ring.stages().get(0).oneOffMs() / 1e3, ring.timeToTargetS().orElseThrow(),
                1e-9);
        String chosen = advice.chosen().orElseThrow();
        double best = advice.rows().stream().mapToDouble(r -> r.timeToTargetS().orElseThrow()).min().orElseThrow();
        assertEquals(best, advice.rows().stream().filter(r -> r.id().equals(chosen)).findFirst().orElseThrow()
                .timeToTargetS().orElseThrow(), 1e-12);
        assertTrue(advice.table().contains("<- chosen"), advice.table());
        assertTrue(advice.table().contains("target 80 %: dense takes 100 steps (given)"), advice.table());
    }

    @Test
    void withoutDenseStepsItShouldShowBreakEvensAndChooseOnlyAmongDensesMath() throws IOException {
        Advice advice = advisor(new ByteArrayOutputStream()).candidates(List.of(RING, PSGD)).advise();
        // PowerSGD's steps to the target are unknown, dense ring's are dense's, whatever they are
        assertEquals(Optional.of(RING.id()), advice.chosen());
        assertTrue(advice.table().contains("chosen by step time among the methods of dense's math"), advice.table());
        Advice onlyPsgd = advisor(new ByteArrayOutputStream()).candidates(List.of(PSGD)).advise();
        assertTrue(onlyPsgd.chosen().isEmpty(), "nothing to compare it with");
        assertTrue(onlyPsgd.table().contains("nothing chosen"), onlyPsgd.table());
        Advice.Row psgd = advice.rows().get(1);
        assertTrue(psgd.timeToTargetS().isEmpty());
        assertEquals(advice.rows().get(0).stages().get(0).prediction().stepMs()
                / psgd.stages().get(1).prediction().stepMs(), psgd.breakEven().orElseThrow(), 1e-9);
        assertTrue(advice.rows().get(0).breakEven().isEmpty());
    }

    @Test
    void shouldNameTheSettingThatIsWrong() {
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        assertEquals("candidates: at least one method to advise among", assertThrows(IllegalArgumentException.class,
                () -> advisor(log).advise()).getMessage());
        assertEquals("candidates: 'ring' names two candidates", assertThrows(IllegalArgumentException.class,
                () -> advisor(log).candidates(List.of(RING, RING)).advise()).getMessage());
        assertEquals("link: the link between the processes", assertThrows(NullPointerException.class,
                () -> Advisor.builder().model(TestModels.mlp(3)).data(MemorySource.of(TestModels.data(40, 5)))
                        .candidates(List.of(RING)).advise()).getMessage());
        assertEquals("candidate x: a penalty is a number of times dense's steps, > 0, found 0.0", assertThrows(
                IllegalArgumentException.class, () -> RING.penalty(0, "none")).getMessage().replace("ring", "x"));
    }
}
