package io.lgc4j.experiments.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * The processes of one job, started and watched together ({@code lgc launch}'s workers, the PyTorch peer's ranks):
 * each one's output prefixed with its name ({@code [rank 2] ...}); {@link #await} waits for all and, after the first
 * failure, gives the others a grace period and then kills them (a stopped process at once); {@link #close()} and a
 * shutdown hook kill whatever still runs, so none outlives the JVM that started it.
 *
 * <pre>{@code
 * try (ProcessGroup group = new ProcessGroup("lgc launch")) {
 *     group.start("rank 0", new ProcessBuilder(command));
 *     ProcessGroup.Outcome outcome = group.await(5);
 * }
 * }</pre>
 */
final class ProcessGroup implements AutoCloseable {

    private final String who;
    private final List<Member> members = new CopyOnWriteArrayList<>();
    private final Thread hook;

    /** A group whose messages start with {@code who}, e.g. {@code lgc launch}. */
    ProcessGroup(String who) {
        this.who = who;
        this.hook = new Thread(this::destroyAll, "lgc-process-group-cleanup");
        Runtime.getRuntime().addShutdownHook(hook);
    }

    /** How a group ended: the first process that failed (null when none did), its exit status, what was killed. */
    record Outcome(String firstFailed, int status, List<String> killed) {
        /** Whether every process exited 0. */
        boolean succeeded() {
            return firstFailed == null;
        }

        /** {@code rank 2 failed first with exit status 137 (signal 9)}, or empty. */
        String describe() {
            return firstFailed == null ? "" : firstFailed + " failed first with exit status " + status
                    + (status > 128 ? " (signal " + (status - 128) + ")" : "");
        }
    }

    private record Member(String name, Process process, List<Thread> pumps) {
    }

    /** Starts {@code pb} as member {@code name}, its standard output and error prefixed with {@code [name] }. */
    Process start(String name, ProcessBuilder pb) throws IOException {
        Process p = pb.start();
        members.add(new Member(name, p, List.of(pump(p.getInputStream(), System.out, name),
                pump(p.getErrorStream(), System.err, name))));
        return p;
    }

    /**
     * Waits for every member; after the first failure, gives the others {@code graceSeconds}, then kills them (a
     * stopped process, state T, at once: it cannot stop by itself). Prints one line saying how it ended, naming the
     * process that failed first: a stopped process found after the first exit is that one (it stopped before anyone
     * could notice; the first to exit is the peer that lost it).
     */
    Outcome await(int graceSeconds) throws InterruptedException {
        Member first = null;
        Member stoppedFirst = null;
        long failedAt = 0;
        List<Member> running = new ArrayList<>(members);
        List<String> killed = new ArrayList<>();
        while (!running.isEmpty()) {
            for (Member c : List.copyOf(running)) {
                if (!c.process.isAlive()) {
                    running.remove(c);
                    if (c.process.exitValue() != 0 && first == null) {
                        first = c;
                        failedAt = System.nanoTime();
                    }
                }
            }
            if (first != null) {
                for (Member c : List.copyOf(running)) {
                    if (stopped(c.process)) {
                        c.process.destroyForcibly();
                        c.process.waitFor(5, TimeUnit.SECONDS);
                        running.remove(c);
                        System.err.println(who + ": " + c.name + " was stopped (state T) and was killed");
                        if (stoppedFirst == null) {
                            stoppedFirst = c;
                        }
                    }
                }
            }
            if (first != null && System.nanoTime() - failedAt > TimeUnit.SECONDS.toNanos(graceSeconds)) {
                for (Member c : running) {
                    c.process.destroyForcibly();
                    c.process.waitFor(5, TimeUnit.SECONDS);
                    killed.add(c.name);
                }
                running.clear();
            }
            if (!running.isEmpty()) {
                running.get(0).process.waitFor(100, TimeUnit.MILLISECONDS);
            }
        }
        for (Member c : members) {
            for (Thread pump : c.pumps()) {
                pump.join(2_000);   // the last lines of a process that ended
            }
        }
        if (first == null) {
            System.out.println(who + ": all " + members.size() + " processes finished");
            return new Outcome(null, 0, List.of());
        }
        String others = killed.isEmpty() ? "; every other process has stopped"
                : "; killed after " + graceSeconds + " s: " + String.join(", ", killed);
        if (stoppedFirst != null) {
            int status = stoppedFirst.process.exitValue();
            System.err.println(who + ": " + stoppedFirst.name + " failed first (it was stopped, state T, and killed; "
                    + first.name + " noticed first and exited with status " + first.process.exitValue() + ")"
                    + others);
            return new Outcome(stoppedFirst.name, status, List.copyOf(killed));
        }
        int status = first.process.exitValue();
        System.err.println(who + ": " + first.name + " failed first (exit status " + status
                + (status > 128 ? ", killed by signal " + (status - 128) : "") + ")" + others);
        return new Outcome(first.name, status, List.copyOf(killed));
    }

    /** Kills every member still running. */
    @Override
    public void close() {
        destroyAll();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            // the hook runs anyway
        }
    }

    private void destroyAll() {
        members.forEach(c -> c.process.destroyForcibly());
    }

    private static Thread pump(InputStream in, PrintStream out, String name) {
        Thread t = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    synchronized (out) {
                        out.println("[" + name + "] " + line);
                    }
                }
            } catch (IOException ignored) {
                // the process is gone
            }
        }, "lgc-process-" + name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    /** Whether the process is stopped (state T or t in /proc/PID/stat); false when that cannot be read. */
    private static boolean stopped(Process p) {
        try {
            String stat = Files.readString(Path.of("/proc", String.valueOf(p.pid()), "stat"));
            int close = stat.lastIndexOf(')');
            char state = stat.charAt(close + 2);
            return state == 'T' || state == 't';
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }
}
