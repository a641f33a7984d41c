package io.lgc4j.advise;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.OptionalDouble;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class StepPenaltiesTest {

    private static final String EVIDENCE = "data.csv.delimiter=,;model.name=small-cnn;training.workers=4";
    private static final MethodKey SCALECOM = new MethodKey("compressor=scalecom;topology=ring;stages=50/rest");
    private static final MethodKey DELAYED = new MethodKey("compressor=none;stages=all/0;overlap=delayed");

    private static StepPenalties sample() {
        List<Long> seeds = List.of(1L, 2L, 3L);
        List<Integer> dense = List.of(100, 125, 100);
        return new StepPenalties(List.of(
                new StepPenalty(EVIDENCE, MethodKey.DENSE, 0.8, seeds, dense, dense, List.of("a/dense-s1", "a/d-s2")),
                new StepPenalty(EVIDENCE, SCALECOM, 0.8, seeds, List.of(250, 225, 175), dense, List.of("w/s1")),
                new StepPenalty(EVIDENCE, DELAYED, 0.8, seeds, List.of(StepPenalty.NOT_REACHED, 375, 350), dense,
                        List.of())));
    }

    @Test
    void shouldWriteTheFormatAndReadItBack() {
        StepPenalties penalties = sample();
        String text = penalties.write();
        assertEquals("""
                target,evidence,method,seeds,steps,dense_steps,penalty,runs
                0.8,"data.csv.delimiter=,;model.name=small-cnn;training.workers=4",dense,1 2 3,100 125 100,\
                100 125 100,1.0000,a/dense-s1 a/d-s2
                0.8,"data.csv.delimiter=,;model.name=small-cnn;training.workers=4",\
                compressor=scalecom;topology=ring;stages=50/rest,1 2 3,250 225 175,100 125 100,2.0000,w/s1
                0.8,"data.csv.delimiter=,;model.name=small-cnn;training.workers=4",\
                compressor=none;stages=all/0;overlap=delayed,1 2 3,- 375 350,100 125 100,,
                """, text);
        StepPenalties back = StepPenalties.parse(text, "x.csv");
        assertEquals(penalties.rows(), back.rows());
        assertEquals(text, back.write());
    }

    @Test
    void shouldFindRowsByEvidenceMethodAndTarget() {
        StepPenalties penalties = sample();
        assertEquals(OptionalDouble.of(2.0000), penalties.find(EVIDENCE, SCALECOM, 0.8).orElseThrow().penalty());
        assertEquals(325.0 / 3, penalties.dense(EVIDENCE, 0.8).orElseThrow().meanDenseSteps(), 1e-12);
        assertTrue(penalties.find(EVIDENCE, SCALECOM, 0.9).isEmpty());
        assertTrue(penalties.find(EVIDENCE + ";x=1", SCALECOM, 0.8).isEmpty());
        StepPenalty delayed = penalties.find(EVIDENCE, DELAYED, 0.8).orElseThrow();
        assertFalse(delayed.reachedEverySeed());
        assertTrue(delayed.penalty().isEmpty());
    }

    @Test
    void shouldNameTheLineAndColumnOfABadCell() {
        String header = String.join(",", StepPenalties.HEADER) + "\n";
        assertEquals("p.csv line 1: expected the header target,evidence,method,seeds,steps,dense_steps,penalty,"
                + "runs, found \"target,evidence\"", message("target,evidence\n"));
        assertEquals("p.csv line 1: expected the header target,evidence,method,seeds,steps,dense_steps,penalty,"
                + "runs, found an empty file", message(""));
        assertEquals("p.csv line 2: expected 8 cells (target,evidence,method,seeds,steps,dense_steps,penalty,runs),"
                + " found 7", message(header + "0.8,e,dense,1,100,100,1.0000\n"));
        assertEquals("p.csv line 2, column steps: expected whole numbers or - (not reached) separated by spaces,"
                + " found \"100 x\"", message(header + "0.8,e,m,1 2,100 x,100 100,,\n"));
        assertEquals("p.csv line 2, column target: expected a number, found \"eighty\"",
                message(header + "eighty,e,m,1,100,100,1.0000,\n"));
        assertEquals("p.csv line 2: 2 seeds need as many steps and dense steps, found 2 and 1",
                message(header + "0.8,e,m,1 2,100 100,100,1.0000,\n"));
        assertEquals("p.csv line 2, column penalty: \"1.5000\" does not follow from the steps, which give"
                + " \"2.0000\"; regenerate the file (lgc evidence step-penalties)",
                message(header + "0.8,e,m,1,200,100,1.5000,\n"));
        assertEquals("p.csv line 3: the same target, evidence and method as line 2",
                message(header + "0.8,e,m,1,200,100,2.0000,\n0.8,e,m,2,100,100,1.0000,\n"));
        assertEquals("p.csv line 2: a quoted cell is not closed", message(header + "0.8,\"e,m\n"));
    }

    private static String message(String text) {
        return assertThrows(IllegalArgumentException.class, () -> StepPenalties.parse(text, "p.csv")).getMessage();
    }

    @Test
    void shouldRefuseRowsThatCannotBeRight() {
        assertEquals("target must be a fraction in (0, 1], found 80.0", assertThrows(IllegalArgumentException.class,
                () -> new StepPenalty("e", SCALECOM, 80, List.of(1L), List.of(1), List.of(1), List.of()))
                .getMessage());
        assertEquals("seeds must ascend without repeats, found [2, 1]", assertThrows(IllegalArgumentException.class,
                () -> new StepPenalty("e", SCALECOM, 0.8, List.of(2L, 1L), List.of(1, 1), List.of(1, 1), List.of()))
                .getMessage());
        assertEquals("dense steps must be > 0, found -1 for seed 1", assertThrows(IllegalArgumentException.class,
                () -> new StepPenalty("e", SCALECOM, 0.8, List.of(1L), List.of(1), List.of(-1), List.of()))
                .getMessage());
    }
}
