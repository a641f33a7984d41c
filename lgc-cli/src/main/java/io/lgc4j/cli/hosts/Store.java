package io.lgc4j.cli.hosts;

import io.lgc4j.core.checkpoint.CheckpointDirectory;

import java.io.IOException;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

/**
 * The membership store of an elastic job on several hosts: the hosts' {@link Agent}s join it, and it runs the job as
 * rounds. A round takes the hosts present in the order they joined (at most {@code --nnodes}' MAX), deals ranks to
 * them (rank 0 on the first, with the parameter-server processes of their own), and resumes from the latest complete
 * checkpoint in the shared run directory at K = the hosts' slots. A round ends
 *
 * <ul>
 *   <li>when every host's processes finished: the job is over;</li>
 *   <li>when a process fails: the store stops every other host's and starts the next round with the same hosts (a
 *       restart, counted against {@code --max-restarts}), naming the process that failed first across the hosts;</li>
 *   <li>when a host is lost (its agent's link broke, or it was silent for {@code --host-timeout}): the next round
 *       without it, at a smaller K (not counted), once at least MIN hosts are there;</li>
 *   <li>when a host joins during a round and there is room for it: at the next complete checkpoint after it joined,
 *       every process stops and the next round takes it in (not counted).</li>
 * </ul>
 *
 * Everything it decides it says on {@code log}, one line each.
 */
public final class Store implements Runnable {
    /** After MIN hosts are there, how long the first round waits for more (up to MAX). */
    static final Duration LAST_CALL = Duration.ofSeconds(3);

    /**
     * What the store is told.
     *
     * @param minHosts    the fewest hosts a round runs with
     * @param maxHosts    the most hosts a round takes
     * @param joinTimeout how long to wait for MIN hosts (at the start, and after a loss), then give up
     * @param hostTimeout how long an agent may be silent before its host counts as lost
     * @param maxRestarts how many rounds after a failed process the job may start
     * @param servers     the config's parameter-server shards (0: none)
     * @param colocate    whether the shards run inside the workers' processes (S' = min(S, K))
     * @param runDir      the run's directory, shared by every host
     * @param resumeStep  the checkpoint the first round resumes from, or -1
     */
    public record Settings(int minHosts, int maxHosts, Duration joinTimeout, Duration hostTimeout, int maxRestarts,
                           int servers, boolean colocate, Path runDir, long resumeStep) {
    }

    private final ServerSocket server;
    private final byte[] token;
    private final String job;
    private final Settings settings;
    private final PrintStream log;
    private final BlockingQueue<Event> events = new LinkedBlockingQueue<>();
    /** The hosts present, in the order they joined; changed by the store's thread only, read by the beat's. */
    private final List<Member> alive = new CopyOnWriteArrayList<>();
    private final AtomicInteger joined = new AtomicInteger();
    private volatile int status = -1;

    /** One host's agent, as the store sees it. */
    private static final class Member {
        final int id;
        final String host;
        final int slots;
        final String advertise;
        final ControlLink link;
        volatile int port;
        long joinedAtCheckpoint;

        Member(int id, Message join, ControlLink link) {
            this.id = id;
            this.host = join.host();
            this.slots = join.slots();
            this.advertise = join.advertise();
            this.port = join.port();
            this.link = link;
        }

        @Override
        public String toString() {
            return "host " + host + " (" + advertise + ")";
        }
    }

    private sealed interface Event permits Joined, Done, Lost {
    }

    private record Joined(Member member) implements Event {
    }

    private record Done(Member member, Message message) implements Event {
    }

    private record Lost(Member member, String why) implements Event {
    }

    /** A store on {@code server} (already bound), for the job {@code job} with {@code token}. */
    public Store(ServerSocket server, byte[] token, String job, Settings settings, PrintStream log) {
        this.server = server;
        this.token = token.clone();
        this.job = job;
        this.settings = settings;
        this.log = log;
    }

    /** The job's status once {@link #run()} returned: 0 when every round's last finished, else the failure's. */
    public int status() {
        return status;
    }

    @Override
    public void run() {
        Thread acceptor = daemon("lgc-store-accept", this::accept);
        Thread beats = daemon("lgc-store-beat", this::beat);
        try {
            status = rounds();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            status = end(1, "the store was interrupted");
        } catch (RuntimeException e) {
            status = end(1, "the store failed: " + e);
        } finally {
            acceptor.interrupt();
            beats.interrupt();
            try {
                server.close();
            } catch (IOException e) {
                // closing
            }
        }
    }

    private int rounds() throws InterruptedException {
        if (!awaitHosts(settings.joinTimeout(), true)) {
            return end(1, "fewer than " + settings.minHosts() + " hosts joined within "
                    + settings.joinTimeout().toSeconds() + " s (" + alive.size() + " did)");
        }
        String marker;
        try {
            marker = mark(settings.runDir());
        } catch (IOException e) {
            return end(1, "cannot write into the run directory " + settings.runDir() + ": " + e.getMessage());
        }
        long resume = settings.resumeStep();
        for (int round = 0, restarts = 0; ; round++) {
            List<Member> members = new ArrayList<>(alive.subList(0, Math.min(alive.size(), settings.maxHosts())));
            int workers = members.stream().mapToInt(m -> m.slots).sum();
            int shards = settings.colocate() ? Math.min(settings.servers(), workers) : settings.servers();
            String roundJob = "hosts-" + randomHex(4);
            log.println("lgc launch: round " + round + " at K = " + workers + " on " + members.size() + " host"
                    + (members.size() == 1 ? "" : "s") + " (" + describe(members) + ")" + (resume < 0 ? ", from step 0"
                    : ", from the checkpoint after " + resume + " steps"));
            int first = 0;
            for (Member m : members) {
                send(m, Message.round(round, workers, first, m == members.get(0), shards, members.get(0).advertise,
                        members.get(0).port, roundJob, settings.runDir().toString(), marker, resume, resume >= 0));
                first += m.slots;
            }
            RoundEnd end = watch(round, members);
            if (end.kind == RoundEnd.Kind.FINISHED) {
                return end(0, "every process of round " + round + " finished");
            }
            if (end.kind == RoundEnd.Kind.FAILED) {
                if (end.usage) {
                    return end(2, end.why);
                }
                if (restarts >= settings.maxRestarts()) {
                    return end(end.status, "round " + round + " failed (" + end.why + "), after " + restarts
                            + " restart" + (restarts == 1 ? "" : "s") + " of " + settings.maxRestarts());
                }
                restarts++;
                log.println("lgc launch: round " + round + " failed (" + end.why + "); restart " + restarts + " of "
                        + settings.maxRestarts());
            } else {
                log.println("lgc launch: round " + round + " stopped: " + end.why);
            }
            if (alive.size() < settings.minHosts() && !awaitHosts(settings.joinTimeout(), false)) {
                return end(1, alive.size() + " host" + (alive.size() == 1 ? "" : "s") + " left and none joined within "
                        + settings.joinTimeout().toSeconds() + " s: --nnodes needs at least " + settings.minHosts());
            }
            try {
                resume = latestStep();
            } catch (IOException e) {
                return end(1, "cannot read the checkpoints in " + settings.runDir() + ": " + e.getMessage());
            }
        }
    }

    /** The file of the run directory whose random content proves to an agent that it sees the store's directory. */
    public static final String MARKER = ".lgc-store";

    /** Writes {@link #MARKER} into {@code runDir} with a fresh random text, and returns the text. */
    static String mark(Path runDir) throws IOException {
        String marker = randomHex(16);
        Files.writeString(runDir.resolve(MARKER), marker);
        return marker;
    }

    private static String randomHex(int bytes) {
        byte[] b = new byte[bytes];
        new SecureRandom().nextBytes(b);
        return HexFormat.of().formatHex(b);
    }

    /** How a round ended, and the status and line that say why. */
    private record RoundEnd(Kind kind, int status, String why, boolean usage) {
        enum Kind { FINISHED, FAILED, LOST, GROW }
    }

    /** Follows round {@code round} until every member's agent said DONE or was lost. */
    private RoundEnd watch(int round, List<Member> members) throws InterruptedException {
        Set<Member> pending = new LinkedHashSet<>(members);
        String stopping = null;
        Message culprit = null;
        Member culpritHost = null;
        List<Member> lost = new ArrayList<>();
        boolean usage = false;
        boolean stopped = false; // some host's processes were stopped, not finished
        while (!pending.isEmpty()) {
            Event e = events.poll(500, TimeUnit.MILLISECONDS);
            if (e instanceof Done d && d.message().round() != null && d.message().round() == round) {
                pending.remove(d.member());
                d.member().port = d.message().port();
                Message m = d.message();
                stopped |= Boolean.TRUE.equals(m.stopped());
                if (m.status() != 0 && (culprit == null || m.failedItself() && !culprit.failedItself())) {
                    culprit = m;
                    culpritHost = d.member();
                    usage |= m.status() == 2;
                }
                if (m.status() != 0 && stopping == null) {
                    stopping = "a process failed on " + d.member();
                    stopAll(pending, round, stopping);
                }
            } else if (e instanceof Lost l) {
                alive.remove(l.member());
                if (pending.remove(l.member())) {
                    lost.add(l.member());
                    log.println("lgc launch: lost " + l.member() + ": " + l.why());
                    if (stopping == null) {
                        stopping = l.member() + " was lost";
                        stopAll(pending, round, stopping);
                    }
                }
            } else if (e instanceof Joined j) {
                j.member().joinedAtCheckpoint = manifestStep();
                alive.add(j.member());
                log.println(joined(j.member()) + (members.size() < settings.maxHosts()
                        ? "; it takes part from the next complete checkpoint" : "; it waits: the job has its "
                        + settings.maxHosts() + " hosts"));
            } else if (e == null && stopping == null && members.size() < settings.maxHosts()) {
                Member back = alive.stream().filter(m -> !members.contains(m)).findFirst().orElse(null);
                if (back != null && manifestStep() > back.joinedAtCheckpoint) {
                    stopping = "grow";
                    stopAll(pending, round, back + " is back and a checkpoint after it joined is complete");
                }
            }
        }
        if (!lost.isEmpty()) {
            return new RoundEnd(RoundEnd.Kind.LOST, 1, lost.stream().map(Member::toString)
                    .collect(Collectors.joining(", ")) + " lost", false);
        }
        if (culprit != null) {
            return new RoundEnd(RoundEnd.Kind.FAILED, culprit.status(), culpritHost + ": " + culprit.why(), usage);
        }
        if ("grow".equals(stopping) && stopped) {
            return new RoundEnd(RoundEnd.Kind.GROW, 0, "a host is back, every process stopped at a checkpoint", false);
        }
        return new RoundEnd(RoundEnd.Kind.FINISHED, 0, "", false);
    }

    /**
     * Waits until MAX hosts are there, or at least MIN and {@link #LAST_CALL} passed (the first round) — at most
     * {@code patience} for MIN.
     */
    private boolean awaitHosts(Duration patience, boolean first) throws InterruptedException {
        long deadline = System.nanoTime() + patience.toNanos();
        long lastCall = Long.MAX_VALUE;
        while (alive.size() < settings.maxHosts()) {
            if (alive.size() >= settings.minHosts()) {
                lastCall = Math.min(lastCall, System.nanoTime() + (first ? LAST_CALL.toNanos() : 0));
                if (System.nanoTime() >= lastCall) {
                    break;
                }
            } else if (System.nanoTime() >= deadline) {
                return false;
            }
            Event e = events.poll(200, TimeUnit.MILLISECONDS);
            if (e instanceof Joined j) {
                alive.add(j.member());
                log.println(joined(j.member()));
            } else if (e instanceof Lost l) {
                alive.remove(l.member());
            }
        }
        return true;
    }

    /** {@code lgc launch: host b (10.0.0.2) joined with 2 slots}. */
    private static String joined(Member m) {
        return "lgc launch: " + m + " joined with " + m.slots + " slot" + (m.slots == 1 ? "" : "s");
    }

    private int end(int code, String why) {
        log.println("lgc launch: the job is over" + (code == 0 ? "" : " (status " + code + ")") + ": " + why);
        for (Member m : List.copyOf(alive)) {
            try {
                m.link.send(Message.end(code, why));
            } catch (IOException e) {
                // a host gone at the end: nothing to tell it
            }
        }
        return code;
    }

    private void stopAll(Set<Member> members, int round, String why) {
        for (Member m : members) {
            send(m, Message.stop(round, why));
        }
    }

    private void send(Member m, Message message) {
        try {
            m.link.send(message);
        } catch (IOException e) {
            events.add(new Lost(m, e.getMessage()));
        }
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket socket = server.accept();
                daemon("lgc-store-join", () -> join(socket));
            } catch (IOException e) {
                return;
            }
        }
    }

    private void join(Socket socket) {
        Member member;
        try {
            ControlLink link = ControlLink.accept(socket, token, job, settings.hostTimeout());
            Message join = link.receive();
            if (!join.is("JOIN") || join.slots() == null || join.slots() < 1) {
                link.close();
                return;
            }
            member = new Member(joined.getAndIncrement(), join, link);
        } catch (IOException e) {
            log.println("lgc launch: " + e.getMessage());
            try {
                socket.close();
            } catch (IOException ignored) {
                // already closed
            }
            return;
        }
        events.add(new Joined(member));
        try {
            while (true) {
                Message m = member.link.receive();
                if (m.is("DONE")) {
                    events.add(new Done(member, m));
                }
            }
        } catch (IOException e) {
            events.add(new Lost(member, e.getMessage()));
        }
    }

    private void beat() {
        while (!Thread.currentThread().isInterrupted()) {
            for (Member m : List.copyOf(alive)) {
                try {
                    m.link.send(Message.BEAT);
                } catch (IOException e) {
                    // the member's reader notices
                }
            }
            try {
                Thread.sleep(1_000);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private long latestStep() throws IOException {
        return latestStep(settings.runDir(), log);
    }

    private long manifestStep() {
        return manifestStep(settings.runDir());
    }

    /** The next step of the latest complete checkpoint in {@code runDir}, or -1 when it has none; bad ones logged. */
    public static long latestStep(Path runDir, PrintStream log) throws IOException {
        return CheckpointDirectory.in(runDir).latest(skipped -> log.println("lgc launch: passing over a checkpoint"
                + " that fails its checks: " + skipped.getMessage())).map(c -> c.nextStep()).orElse(-1L);
    }

    /** The largest step of a checkpoint of {@code runDir} that holds a manifest (-1: none); no file read. */
    public static long manifestStep(Path runDir) {
        CheckpointDirectory checkpoints = CheckpointDirectory.in(runDir);
        try {
            List<Long> steps = checkpoints.steps();
            for (int i = steps.size() - 1; i >= 0; i--) {
                if (Files.exists(checkpoints.stepDirectory(steps.get(i)).resolve(CheckpointDirectory.MANIFEST_FILE))) {
                    return steps.get(i);
                }
            }
        } catch (IOException e) {
            // being written: the next look sees it
        }
        return -1;
    }

    private static String describe(List<Member> members) {
        List<String> parts = new ArrayList<>();
        for (Member m : members) {
            parts.add(m.host + " " + m.slots);
        }
        return String.join(", ", parts);
    }

    /** A daemon thread running {@code body}, started (the store's and the agents' links' readers and beats). */
    static Thread daemon(String name, Runnable body) {
        Thread t = new Thread(body, name);
        t.setDaemon(true);
        t.start();
        return t;
    }
}
