package io.lgc4j.lgc;

import io.lgc4j.lgc.DriftGuard.Measurement;
import io.lgc4j.core.checkpoint.CheckpointException;
import io.lgc4j.core.checkpoint.CheckpointPart;
import io.lgc4j.core.checkpoint.PartKind;
import io.lgc4j.core.checkpoint.Persistent;
import io.lgc4j.core.stage.Stage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The drift guard's window and the LGC protocol's flags saved into a checkpoint part (through its bytes) and restored
 * into fresh objects: from there on they decide exactly as the originals; a section that does not fit is refused,
 * naming it.
 */
class ControlStateCheckpointTest {

    /** Bound 1, window 4: the restored window holds a broken measurement (NaN, kept as an infinite error). */
    @Test
    void driftGuardRestoredMidWindowShouldDecideAsTheOriginal() throws Exception {
        DriftGuard original = new DriftGuard(1.0, 4);
        original.observe(new Measurement(0.5, 1));
        original.observe(new Measurement(Double.NaN, 1));
        DriftGuard restored = new DriftGuard(1.0, 4);
        restored.restore(roundTrip(original, "guard"), "guard");

        List<Boolean> expected = List.of(false, true, false, false, false, true, false);
        List<Boolean> fromOriginal = new ArrayList<>();
        List<Boolean> fromRestored = new ArrayList<>();
        Measurement[] next = {new Measurement(0.2, 1), new Measurement(0.2, 1)};
        for (Measurement m : next) {
            fromOriginal.add(original.observe(m));
            fromRestored.add(restored.observe(m));
        }
        for (int i = 0; i < 5; i++) {
            Measurement m = new Measurement(0.1 * (i + 1), 1);
            fromOriginal.add(original.recovered(m));
            fromRestored.add(restored.recovered(m));
        }
        // the trip at the 4th measurement is the restored infinity's; then four recovery steps fill the window
        assertEquals(expected, fromOriginal);
        assertEquals(expected, fromRestored);
    }

    /**
     * A guarded protocol checking every third compressed step, restored at each point of a run that ships the
     * weights, checks, falls back, resumes and ships them again: every later plan is the original's.
     */
    @ParameterizedTest(name = "restored after {0} events")
    @ValueSource(ints = {0, 2, 4, 6, 8})
    void protocolStateRestoredAnywhereShouldPlanAsTheOriginal(int restoreAt) throws Exception {
        LgcControl control = new LgcControl(0.9, 5, 3, 32, false, true, 0.1);
        LgcProtocolState original = new LgcProtocolState(control);
        List<String> events = List.of("TOP_K", "TOP_K", "COMPRESSED", "flag true", "COMPRESSED", "COMPRESSED",
                "COMPRESSED", "flag false", "COMPRESSED", "flag true", "COMPRESSED", "COMPRESSED", "COMPRESSED",
                "COMPRESSED");
        List<String> fromOriginal = new ArrayList<>();
        for (int i = 0; i < restoreAt; i++) {
            apply(original, events.get(i));
        }
        LgcProtocolState restored = new LgcProtocolState(control);
        restored.restore(roundTrip(original, "protocol"), "protocol");
        List<String> fromRestored = new ArrayList<>();
        for (int i = restoreAt; i < events.size(); i++) {
            fromOriginal.add(apply(original, events.get(i)));
            fromRestored.add(apply(restored, events.get(i)));
        }
        assertEquals(fromOriginal, fromRestored);
    }

    @Test
    void shouldRefuseAGuardWindowOfTheWrongLength() {
        CheckpointPart.Builder b = CheckpointPart.builder(PartKind.RANK);
        b.section("guard/window").putInt(2).putDouble(0.5).putDouble(1);
        CheckpointException e = assertThrows(CheckpointException.class,
                () -> new DriftGuard(0.9, 5).restore(parse(b), "guard"));
        assertEquals("section 'guard/window' of x: expected 2 measurements (32 bytes after the count), found 16 bytes",
                e.getMessage());
    }

    @Test
    void shouldRefuseAGuardWindowLongerThanThisGuards() {
        DriftGuard wide = new DriftGuard(0.9, 6);
        for (int i = 0; i < 6; i++) {
            wide.observe(new Measurement(0.1, 1));
        }
        CheckpointException e = assertThrows(CheckpointException.class,
                () -> new DriftGuard(0.9, 5).restore(roundTrip(wide, "guard"), "guard"));
        assertEquals("section 'guard/window' of x: holds 6 measurements, this guard's window at most 5",
                e.getMessage());
    }

    @Test
    void shouldRefuseAProtocolStateOfTheWrongLength() {
        CheckpointPart.Builder b = CheckpointPart.builder(PartKind.RANK);
        b.section("protocol/state").putBoolean(false).putBoolean(true).putByte(3);
        CheckpointException e = assertThrows(CheckpointException.class,
                () -> new LgcProtocolState(LgcControl.DEFAULT).restore(parse(b), "protocol"));
        assertEquals("section 'protocol/state' of x: expected an int (4 bytes), found 1 byte", e.getMessage());
    }

    /** Feeds one event to {@code state}: a plan of a stage's step, or the flag that ends a step; says what it did. */
    private static String apply(LgcProtocolState state, String event) {
        if (event.startsWith("flag ")) {
            state.nextStepCompressed(Boolean.parseBoolean(event.substring(5)));
            return event + " -> fallback " + state.fallback();
        }
        LgcProtocolState.Plan plan = state.plan(Stage.valueOf(event));
        if (plan.shipWeights()) {
            state.weightsShipped();
        }
        return event + " -> " + plan;
    }

    private static CheckpointPart roundTrip(Persistent state, String prefix) {
        CheckpointPart.Builder b = CheckpointPart.builder(PartKind.RANK);
        state.save(b, prefix);
        return parse(b);
    }

    private static CheckpointPart parse(CheckpointPart.Builder b) {
        try {
            return CheckpointPart.parse(b.build().toBytes(), "x");
        } catch (CheckpointException e) {
            throw new AssertionError("a part just built must parse", e);
        }
    }
}
