package io.lgc4j.cli;

import io.lgc4j.core.compute.CpuLimits;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class WorkerJitTest {
    private static final CpuLimits TWO_CPUS = new CpuLimits(2, 2, 0, "");
    private static final List<String> OPTS = List.of("-Xmx2g");

    /** auto: C1 alone below a core per process (a quota, or more processes than CPUs), tiered from a core up. */
    @Test
    void autoRunsC1AloneOnlyBelowACorePerProcess() {
        WorkerJit shared = WorkerJit.resolve(null, TWO_CPUS, 4);
        assertTrue(shared.c1Only(), shared.reason());
        assertEquals("auto: 0.50 cores per process (4 processes on affinity 2 CPUs, 2 CPUs online): C2's compiler"
                + " threads would take CPU the ranks need", shared.reason());
        assertEquals(List.of("-Xmx2g", "-XX:TieredStopAtLevel=1", "-XX:CompileThresholdScaling=0.01"),
                shared.appliedTo(OPTS));

        WorkerJit quota = WorkerJit.resolve("auto", new CpuLimits(2, 2, 0.4, "--cpu-share"), 1);
        assertTrue(quota.c1Only(), quota.reason());
        assertTrue(quota.reason().startsWith("auto: 0.40 cores per process (its quota)"), quota.reason());

        WorkerJit whole = WorkerJit.resolve("", TWO_CPUS, 2);
        assertFalse(whole.c1Only(), whole.reason());
        assertEquals(OPTS, whole.appliedTo(OPTS));
    }

    /** c1 and tiered are taken as asked; options that choose a JIT themselves win; anything else is refused. */
    @Test
    void explicitChoicesAndTheUsersOwnFlagsWin() {
        assertTrue(WorkerJit.resolve("C1", TWO_CPUS, 1).c1Only());
        assertFalse(WorkerJit.resolve("tiered", TWO_CPUS, 8).c1Only());
        WorkerJit c1 = WorkerJit.resolve("c1", TWO_CPUS, 1);
        assertEquals(List.of("-XX:TieredStopAtLevel=3"), c1.appliedTo(List.of("-XX:TieredStopAtLevel=3")));
        assertEquals(List.of("-XX:-TieredCompilation"), c1.appliedTo(List.of("-XX:-TieredCompilation")));
        assertEquals(List.of("-XX:CompileThresholdScaling=0.5"),
                c1.appliedTo(List.of("-XX:CompileThresholdScaling=0.5")));
        assertEquals(List.of(), WorkerJit.resolve("tiered", TWO_CPUS, 8).flags());
        assertNull(WorkerJit.problem(null));
        assertEquals("expects auto, c1 or tiered, found 'c2'", WorkerJit.problem("c2"));
        assertEquals("expects auto, c1 or tiered, found 'c2'",
                assertThrows(IllegalArgumentException.class, () -> WorkerJit.resolve("c2", TWO_CPUS, 1))
                        .getMessage());
    }
}
