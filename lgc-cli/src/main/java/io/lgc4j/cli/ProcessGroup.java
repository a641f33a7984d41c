package io.lgc4j.cli;

import io.lgc4j.core.runtime.StopReport;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * The processes of one job, started and watched together ({@code lgc launch}'s workers, the PyTorch peer's ranks):
 * each one's output prefixed with its name ({@code [rank 2] ...}); {@link #await} waits for all and, after the first
 * failure, gives the others a grace period and then kills them (a stopped process at once); {@link #close()} and a
 * shutdown hook kill whatever still runs, so none outlives the JVM that started it.
 *
 * <p>The process named as the one that failed first is the one whose own failure came first, not the first to exit:
 * each process of a run leaves a {@link StopReport} in {@link #failureDir()} (given to it as
 * {@value StopReport#ENV_DIR}, in start order), saying whether it failed itself or stopped because it lost a peer; a
 * process that ended without one (killed, or failed outside the trainer) failed itself, when it exited.
 *
 * <pre>{@code
 * try (ProcessGroup group = new ProcessGroup("lgc launch")) {
 *     group.start("rank 0", new ProcessBuilder(command));
 *     ProcessGroup.Outcome outcome = group.await(5);
 * }
 * }</pre>
 */
final class ProcessGroup implements AutoCloseable {

    /** How long a member may stay stopped by a signal before it counts as failed and is killed. */
    static final long STOPPED_FAILS_MS = 3_000;

    private final String who;
    private final List<Member> members = new CopyOnWriteArrayList<>();
    private final Thread hook;
    private final Path failureDir;

    /** A group whose messages start with {@code who}, e.g. {@code lgc launch}. */
    ProcessGroup(String who) throws IOException {
        this.who = who;
        this.failureDir = Files.createTempDirectory("lgc-stops-");
        this.hook = new Thread(this::destroyAll, "lgc-process-group-cleanup");
        Runtime.getRuntime().addShutdownHook(hook);
    }

    /** Where the processes leave their {@link StopReport}s: put it in each one's {@value StopReport#ENV_DIR}. */
    Path failureDir() {
        return failureDir;
    }

    /**
     * How a group ended: the first process that failed (null when none did), its exit status, what was killed, and
     * whether it was stopped as asked (the {@code stop} of {@link #await(int, BooleanSupplier)}) rather than finished.
     */
    record Outcome(String firstFailed, int status, List<String> killed, boolean stoppedAsAsked) {
        Outcome(String firstFailed, int status, List<String> killed) {
            this(firstFailed, status, killed, false);
        }

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
     * stopped process, state T, at once: it cannot stop by itself). A member stopped by a signal (state T, not a
     * debugger's t) for {@value #STOPPED_FAILS_MS} ms is a failure too, killed at once: its peers would otherwise wait
     * for their idle timeout to notice. Prints one line saying how it ended, naming the process that failed first: a
     * stopped process found after the first exit is that one (it stopped before anyone could notice; the first to exit
     * is the peer that lost it).
     */
    Outcome await(int graceSeconds) throws InterruptedException {
        return await(graceSeconds, () -> false);
    }

    /**
     * As {@link #await(int)}, and while no member has failed, kills every member as soon as {@code stop} says so
     * (asked every 100 ms; the elastic launcher's regroup at a checkpoint): the outcome then names no failure.
     */
    Outcome await(int graceSeconds, BooleanSupplier stop) throws InterruptedException {
        Watch watch = new Watch(graceSeconds);
        while (!watch.running.isEmpty()) {
            if (watch.first == null && stop.getAsBoolean()) {
                watch.stopAll();
                break;
            }
            watch.look();
        }
        for (Member c : members) {
            for (Thread pump : c.pumps()) {
                pump.join(2_000);   // the last lines of a process that ended
            }
        }
        return watch.outcome();
    }

    /**
     * One {@link #await}: the members still running, the first failure (and when it came), the first member found
     * stopped, what was killed after the grace period, and when each member exited.
     */
    private final class Watch {
        private final int graceSeconds;
        private final List<Member> running = new ArrayList<>(members);
        private final List<String> killed = new ArrayList<>();
        private final Map<Member, Long> exitedAtMillis = new HashMap<>();
        private final Map<Member, Long> stoppedSince = new HashMap<>();
        private Member first;
        private Member stoppedFirst;
        private long failedAt;
        private long lastLook = System.nanoTime();
        private boolean stoppedOnRequest;

        Watch(int graceSeconds) {
            this.graceSeconds = graceSeconds;
        }

        /**
         * One look at the members: kills one stopped too long (before any failure), notes the exits, kills the
         * stopped ones (after a failure) and, once the grace period is over, all the others; then waits up to 100 ms.
         */
        void look() throws InterruptedException {
            long now = System.nanoTime();
            if (now - lastLook > TimeUnit.SECONDS.toNanos(1)) {
                stoppedSince.clear(); // this launcher was stopped itself (^Z): what it saw before proves nothing
            }
            lastLook = now;
            if (first == null) {
                killStoppedTooLong(now);
            }
            noteExits();
            if (first != null) {
                killStopped();
            }
            if (first != null && System.nanoTime() - failedAt > TimeUnit.SECONDS.toNanos(graceSeconds)) {
                killTheRest();
            }
            if (!running.isEmpty()) {
                running.get(0).process.waitFor(100, TimeUnit.MILLISECONDS);
            }
        }

        /**
         * Before any failure: a member stopped by a signal for {@value ProcessGroup#STOPPED_FAILS_MS} ms is killed,
         * and is the first failure.
         */
        private void killStoppedTooLong(long now) throws InterruptedException {
            for (Member c : List.copyOf(running)) {
                if (!stopped(c.process)) {
                    stoppedSince.remove(c);
                } else if (now - stoppedSince.computeIfAbsent(c, m -> now)
                        >= TimeUnit.MILLISECONDS.toNanos(STOPPED_FAILS_MS)) {
                    c.process.destroyForcibly();
                    c.process.waitFor(5, TimeUnit.SECONDS);
                    running.remove(c);
                    System.err.println(who + ": " + c.name + " was stopped (state T) for "
                            + STOPPED_FAILS_MS / 1000 + " s and was killed");
                    stoppedFirst = c;
                    first = c;
                    failedAt = now;
                }
            }
        }

        /** The members that exited: when, and the first that failed. */
        private void noteExits() {
            for (Member c : List.copyOf(running)) {
                if (!c.process.isAlive()) {
                    running.remove(c);
                    exitedAtMillis.put(c, System.currentTimeMillis());
                    if (c.process.exitValue() != 0 && first == null) {
                        first = c;
                        failedAt = System.nanoTime();
                    }
                }
            }
        }

        /** After a failure: a stopped member cannot stop by itself, so it is killed at once. */
        private void killStopped() throws InterruptedException {
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

        /** Stopped on request: kills every member still running, none of them a failure. */
        void stopAll() throws InterruptedException {
            for (Member c : running) {
                c.process.destroyForcibly();
                c.process.waitFor(5, TimeUnit.SECONDS);
            }
            running.clear();
            stoppedOnRequest = true;
        }

        /** The grace period is over: kills every member still running. */
        private void killTheRest() throws InterruptedException {
            for (Member c : running) {
                c.process.destroyForcibly();
                c.process.waitFor(5, TimeUnit.SECONDS);
                killed.add(c.name);
            }
            running.clear();
        }

        /** How the group ended, said in one line: every process finished, or which one failed first. */
        Outcome outcome() {
            if (stoppedOnRequest) {
                System.out.println(who + ": every process stopped, as asked");
                return new Outcome(null, 0, List.of(), true);
            }
            if (first == null) {
                System.out.println(who + ": all " + members.size() + " processes finished");
                return new Outcome(null, 0, List.of());
            }
            String others = killed.isEmpty() ? "; every other process has stopped"
                    : "; killed after " + graceSeconds + " s: " + String.join(", ", killed);
            return stoppedFirst != null ? stoppedOutcome(others) : reportedOutcome(others);
        }

        /** A stopped member failed first: it stopped before anyone could notice, the first to exit lost it. */
        private Outcome stoppedOutcome(String others) {
            int status = stoppedFirst.process.exitValue();
            System.err.println(who + ": " + stoppedFirst.name + " failed first (it was stopped, state T, and killed"
                    + (first == stoppedFirst ? "" : "; " + first.name + " noticed first and exited with status "
                    + first.process.exitValue()) + ")" + others);
            return new Outcome(stoppedFirst.name, status, List.copyOf(killed));
        }

        /** The member whose own failure came first by the reports, and the members that noticed it. */
        private Outcome reportedOutcome(String others) {
            Map<Integer, StopReport> reports = readReports();
            Member culprit = firstOwnFailure(reports, exitedAtMillis, killed);
            if (culprit == null) {
                culprit = first; // every report says it lost a peer: the first to exit is all there is to go by
            }
            int status = culprit.process.exitValue();
            StopReport own = reports.get(members.indexOf(culprit));
            System.err.println(who + ": " + culprit.name + " failed first (exit status " + status
                    + (status > 128 ? ", killed by signal " + (status - 128) : "") + ")"
                    + (own != null && own.failedItself() && !own.message().isEmpty() ? ": " + own.message() : "")
                    + noticed(reports, culprit) + others);
            return new Outcome(culprit.name, status, List.copyOf(killed));
        }
    }

    /**
     * The member whose own failure came first: by its report's time when it left one saying it failed itself, by
     * its exit when it left none; members that said they lost a peer, exited 0 or were killed here are passed over.
     */
    private Member firstOwnFailure(Map<Integer, StopReport> reports, Map<Member, Long> exitedAtMillis,
                                   List<String> killed) {
        Member culprit = null;
        long earliest = Long.MAX_VALUE;
        for (int i = 0; i < members.size(); i++) {
            Member c = members.get(i);
            if (killed.contains(c.name) || c.process.exitValue() == 0) {
                continue;
            }
            StopReport r = reports.get(i);
            if (r != null && !r.failedItself()) {
                continue;
            }
            long at = r != null ? r.atMillis() : exitedAtMillis.getOrDefault(c, Long.MAX_VALUE - 1);
            if (at < earliest) {
                earliest = at;
                culprit = c;
            }
        }
        return culprit;
    }

    /** "; rank 0 stopped because it lost it (exit status 4)" for every member that said it lost a peer. */
    private String noticed(Map<Integer, StopReport> reports, Member culprit) {
        int culpritIndex = members.indexOf(culprit);
        StringBuilder s = new StringBuilder();
        for (StopReport r : reports.values()) {
            if (r.failedItself() || r.process() < 0 || r.process() >= members.size()) {
                continue;
            }
            Member m = members.get(r.process());
            s.append("; ").append(m.name).append(" stopped because it lost ")
                    .append(r.peerProcess() == culpritIndex ? "it" : r.peer())
                    .append(m.process.isAlive() ? "" : " (exit status " + m.process.exitValue() + ")");
        }
        return s.toString();
    }

    private Map<Integer, StopReport> readReports() {
        try {
            return StopReport.readAll(failureDir);
        } catch (IOException e) {
            return Map.of();
        }
    }

    /** Kills every member still running; removes the reports. */
    @Override
    public void close() {
        destroyAll();
        try (var files = Files.list(failureDir)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                Files.deleteIfExists(f);
            }
            Files.deleteIfExists(failureDir);
        } catch (IOException e) {
            // a temporary directory left behind
        }
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

    /** Whether the process is stopped by a signal (state T in /proc/PID/stat); false when that cannot be read. */
    private static boolean stopped(Process p) {
        try {
            String stat = Files.readString(Path.of("/proc", String.valueOf(p.pid()), "stat"));
            int close = stat.lastIndexOf(')');
            char state = stat.charAt(close + 2);
            return state == 'T'; // not t: a debugger holds it
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }
}
