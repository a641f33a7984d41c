package io.lgc4j.core.warmup;

import io.lgc4j.core.checkpoint.CheckpointPart;
import io.lgc4j.core.checkpoint.PartKind;
import io.lgc4j.core.comm.StepTag;
import io.lgc4j.core.comm.ValueEncoding;
import io.lgc4j.core.compress.TopKCompressor;
import io.lgc4j.core.metrics.PhaseClock;
import io.lgc4j.core.stage.Stage;
import io.lgc4j.core.train.GradientExchange;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * How {@link WarmupExchange} routes steps and carries memory: no wrapper for {@link Warmup#NONE}; FULL steps to the
 * warm-up exchange (its values in the warm-up's encoding), the others to the main one; the warm-up's residual
 * absorbed once, before the first step after FULL, only with {@code carryMemory}; and not again after a resume from a
 * checkpoint taken after the switch.
 */
class WarmupExchangeTest {

    /** Records the tags it is given and the residuals it absorbs; its memory is a fixed vector. */
    private static final class Recorder implements GradientExchange {
        final List<StepTag> tags = new ArrayList<>();
        final List<float[]> absorbed = new ArrayList<>();
        final float[] memory;

        Recorder(float... memory) {
            this.memory = memory;
        }

        @Override
        public void allReduceMean(StepTag tag, float[] gradient, PhaseClock clock) {
            tags.add(tag);
        }

        @Override
        public Optional<float[]> memory() {
            return Optional.of(memory.clone());
        }

        @Override
        public boolean absorb(float[] residual) {
            absorbed.add(residual);
            return true;
        }
    }

    private static final Warmup TOP_K = new Warmup(new TopKCompressor(0.1), ValueEncoding.FP16, true);

    private static void step(GradientExchange exchange, int step, Stage stage) {
        exchange.allReduceMean(new StepTag(step, stage), new float[2], new PhaseClock());
    }

    @Test
    void shouldBeTheMainExchangeItselfWithoutAWarmup() {
        Recorder main = new Recorder();
        assertSame(main, WarmupExchange.wrap(main, Warmup.NONE, () -> {
            throw new AssertionError("no warm-up exchange is built for the dense warm-up");
        }));
    }

    @Test
    void shouldRouteFullStepsToTheWarmupInItsEncodingAndAbsorbItsResidualOnceAtTheSwitch() {
        Recorder main = new Recorder();
        Recorder warm = new Recorder(1f, -2f);
        GradientExchange exchange = WarmupExchange.wrap(main, TOP_K, () -> warm);
        step(exchange, 0, Stage.FULL);
        step(exchange, 1, Stage.FULL);
        assertEquals(List.of(new StepTag(0, Stage.FULL, ValueEncoding.FP16), new StepTag(1, Stage.FULL,
                ValueEncoding.FP16)), warm.tags);
        assertTrue(main.tags.isEmpty() && main.absorbed.isEmpty());
        step(exchange, 2, Stage.TOP_K);
        step(exchange, 3, Stage.TOP_K);
        assertEquals(List.of(new StepTag(2, Stage.TOP_K), new StepTag(3, Stage.TOP_K)), main.tags);
        assertEquals(1, main.absorbed.size());
        assertArrayEquals(new float[] {1f, -2f}, main.absorbed.get(0));
        assertEquals(2, warm.tags.size());
    }

    @Test
    void shouldDropTheResidualWithoutCarryMemory() {
        Recorder main = new Recorder();
        GradientExchange exchange = WarmupExchange.wrap(main, new Warmup(new TopKCompressor(0.1), null, false),
                () -> new Recorder(1f, 1f));
        step(exchange, 0, Stage.FULL);
        step(exchange, 1, Stage.TOP_K);
        assertTrue(main.absorbed.isEmpty());
    }

    @Test
    void aDenseWarmupInAnotherEncodingShouldRunFullStepsThroughTheMainExchange() {
        Recorder main = new Recorder();
        GradientExchange exchange = WarmupExchange.wrap(main, new Warmup(null, ValueEncoding.BF16, true), () -> {
            throw new AssertionError("a dense warm-up has no exchange of its own");
        });
        step(exchange, 0, Stage.FULL);
        step(exchange, 1, Stage.TOP_K);
        assertEquals(List.of(new StepTag(0, Stage.FULL, ValueEncoding.BF16), new StepTag(1, Stage.TOP_K)), main.tags);
        assertTrue(main.absorbed.isEmpty());
    }

    @Test
    void shouldNotAbsorbAgainWhenResumedAfterTheSwitch() throws Exception {
        GradientExchange before = WarmupExchange.wrap(new Recorder(), TOP_K, () -> new Recorder(3f, 4f));
        step(before, 0, Stage.FULL);
        step(before, 1, Stage.TOP_K);
        CheckpointPart.Builder part = CheckpointPart.builder(PartKind.RANK);
        before.save(part, "exchange");
        CheckpointPart saved = CheckpointPart.parse(part.build().toBytes(), "test");
        assertTrue(saved.has("exchange/warmup/switched"));

        Recorder main = new Recorder();
        GradientExchange resumed = WarmupExchange.wrap(main, TOP_K, () -> new Recorder(3f, 4f));
        resumed.restore(saved, "exchange");
        step(resumed, 2, Stage.TOP_K);
        assertTrue(main.absorbed.isEmpty(), "absorbed before the checkpoint already");
    }
}
