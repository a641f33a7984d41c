package io.lgc4j.core.runtime;

import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * No launched process outlives its launcher: when {@code LGC_LAUNCHER_PID} names a process, this one halts (status
 * {@value #STATUS}) as soon as that process is gone, after one line on standard error. It watches through
 * {@link ProcessHandle#onExit()}, so it leaves the program's standard input alone (unlike {@code lgc worker
 * --exit-with-stdin}). Started once per JVM; {@code TrainingRuntime.fromEnvironment()} starts it for a launched
 * program.
 *
 * <pre>{@code
 * LauncherWatch.start(LaunchEnvironment.current(), "train");   // "train: the launcher (pid 4711) is gone; exiting"
 * }</pre>
 */
public final class LauncherWatch {

    /** The exit status of a process whose launcher is gone. */
    public static final int STATUS = 3;

    private static final AtomicBoolean STARTED = new AtomicBoolean();

    private LauncherWatch() {
    }

    /**
     * Watches the launcher {@code env} names, if any; {@code who} begins the message. Does nothing the second time,
     * or when {@code LGC_LAUNCHER_PID} is unset; halts at once when the launcher is already gone.
     */
    public static void start(LaunchEnvironment env, String who) {
        if (env.launcherPid() == null || !STARTED.compareAndSet(false, true)) {
            return;
        }
        long pid = env.launcherPid();
        Optional<ProcessHandle> launcher = ProcessHandle.of(pid);
        String message = who + ": the launcher (pid " + pid + ") is gone; exiting";
        if (launcher.isEmpty() || !launcher.get().isAlive()) {
            halt(message);
        }
        launcher.get().onExit().thenRun(() -> halt(message));
    }

    private static void halt(String message) {
        System.err.println(message);
        System.err.flush();
        Runtime.getRuntime().halt(STATUS);
    }
}
