package io.lgc4j.core.runtime;

import io.lgc4j.core.train.InProcessRuntime;
import io.lgc4j.core.train.TrainingRuntime;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The one reader of the launcher's {@code LGC_*} variables: what it holds, and errors that name the variable. */
class LaunchEnvironmentTest {

    @Test
    void shouldReadEveryVariableAndKeepTheTokenOutOfToString() {
        LaunchEnvironment env = LaunchEnvironment.read(Map.ofEntries(Map.entry("LGC_RANK", "1"),
                Map.entry("LGC_WORLD_SIZE", "2"), Map.entry("LGC_MASTER_ADDR", "127.0.0.1"),
                Map.entry("LGC_MASTER_PORT", "29500"), Map.entry("LGC_JOB_ID", "job-a"),
                Map.entry("LGC_ATTEMPT", "3"), Map.entry("LGC_TOKEN", "0123456789abcdef-secret"),
                Map.entry("LGC_RUN_DIR", "/tmp/run"), Map.entry("LGC_RESUME_STEP", "8"),
                Map.entry("LGC_LAUNCHER_PID", "4711")));
        assertTrue(env.launched());
        assertEquals(1, env.requireRank());
        assertEquals(2, env.requireWorldSize());
        assertEquals(3, env.rendezvous().attempt());
        assertEquals(Path.of("/tmp/run"), env.resume().runDir());
        assertEquals(8, env.resume().resumeStep());
        assertEquals(4711L, env.launcherPid());
        assertEquals("127.0.0.1", env.bindAddress(), "a loopback master: listen there");
        assertTrue(env.shards().colocated(), "LGC_SERVERS unset: the shards run inside the workers");
        assertFalse(env.toString().contains("secret"), env.toString());
        assertFalse(env.credentials().toString().contains("secret"), env.credentials().toString());
    }

    @Test
    void shouldNameTheVariableAndTheOptionThatIsMissingOrWrong() {
        LaunchEnvironment none = LaunchEnvironment.read(Map.of());
        assertFalse(none.launched());
        assertEquals("the master port is missing: set LGC_MASTER_PORT or --master-port",
                assertThrows(IllegalArgumentException.class, none::requireMasterPort).getMessage());
        assertEquals("LGC_RANK (--rank) must be a whole number, found 'two'", assertThrows(
                IllegalArgumentException.class, () -> LaunchEnvironment.read(Map.of("LGC_RANK", "two"))).getMessage());
        assertEquals("--resume-step needs --run-dir (or LGC_RUN_DIR): the directory whose checkpoints/ holds"
                + " step-000008", assertThrows(IllegalArgumentException.class,
                () -> LaunchEnvironment.read(Map.of("LGC_RESUME_STEP", "8"))).getMessage());
    }

    @Test
    void shouldRunInProcessWhenNotLaunchedAndNameTheMissingConnectorWhenLaunched() {
        assertInstanceOf(InProcessRuntime.class, TrainingRuntime.fromEnvironment(LaunchEnvironment.NONE));
        // lgc-core's tests have no connector on their class path
        LaunchEnvironment launched = LaunchEnvironment.read(Map.of("LGC_RANK", "0", "LGC_WORLD_SIZE", "2"));
        assertEquals("LGC_RANK is set but no cluster connector is on the class path (add io.lgc4j:lgc-net)",
                assertThrows(IllegalStateException.class, () -> TrainingRuntime.fromEnvironment(launched))
                        .getMessage());
    }
}
