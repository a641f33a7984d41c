package io.lgc4j.cli.hosts;

import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

/**
 * A host's part of an elastic job on several hosts: joins the {@link Store} with its slots, runs each round's
 * processes of this host as the store says ({@link RoundRunner}), stops them when the store says STOP, reports how
 * they ended, and ends with the job's status when the store says END. A store gone (its link broke, or silent for
 * {@code --host-timeout}) stops this host's processes and ends the agent with status 1: the job cannot go on without
 * it.
 */
public final class Agent {

    /**
     * How a round's processes on this host ended: the status, the process that failed first, and whether they were
     * stopped as the store asked rather than finished.
     */
    public record Result(int status, boolean failedItself, String why, boolean stopped) {
    }

    /**
     * Runs a round's processes on this host until they end or {@code stop} says so; {@code advertise} is the address
     * the other hosts reach this one at.
     */
    @FunctionalInterface
    public interface RoundRunner {
        Result run(Message round, String advertise, BooleanSupplier stop) throws IOException, InterruptedException;
    }

    /** Where the store is, and what this host offers. */
    public record Settings(InetSocketAddress store, String host, int slots, String advertise, Duration hostTimeout,
                           Duration joinTimeout) {
    }

    private final byte[] token;
    private final String job;
    private final Settings settings;
    private final PrintStream log;

    public Agent(byte[] token, String job, Settings settings, PrintStream log) {
        this.token = token.clone();
        this.job = job;
        this.settings = settings;
        this.log = log;
    }

    /**
     * Joins, runs every round it is given, and returns the job's status.
     *
     * @param freePort a port free on this host (for rank 0, should this host hold it), asked before each round
     */
    public int run(RoundRunner runner, PortSource freePort) throws IOException, InterruptedException {
        ControlLink link = ControlLink.connect(settings.store(), token, job, settings.hostTimeout(),
                settings.joinTimeout());
        String advertise = settings.advertise() != null ? settings.advertise() : link.localAddress();
        BlockingQueue<Object> inbox = new LinkedBlockingQueue<>();
        AtomicInteger stopRound = new AtomicInteger(-1);
        Thread reader = Store.daemon("lgc-agent-read", () -> {
            try {
                while (true) {
                    Message m = link.receive();
                    if (m.is("STOP")) {
                        stopRound.set(m.round());
                        log.println("lgc launch: the store stops round " + m.round() + ": " + m.why());
                    } else {
                        inbox.add(m);
                    }
                }
            } catch (IOException e) {
                inbox.add(e);
            }
        });
        Thread beats = Store.daemon("lgc-agent-beat", () -> {
            try {
                while (true) {
                    link.send(Message.BEAT);
                    Thread.sleep(1_000);
                }
            } catch (IOException | InterruptedException e) {
                // the reader notices a broken link
            }
        });
        try (link) {
            link.send(Message.join(settings.host(), settings.slots(), freePort.next(), advertise));
            log.println("lgc launch: joined the store at " + settings.store() + " as host " + settings.host()
                    + " with " + settings.slots() + " slot" + (settings.slots() == 1 ? "" : "s") + ", advertising "
                    + advertise);
            while (true) {
                Object next = inbox.take();
                if (next instanceof IOException e) {
                    log.println("lgc launch: lost the store at " + settings.store() + ": " + e.getMessage());
                    return 1;
                }
                Message m = (Message) next;
                if (m.is("END")) {
                    return m.status();
                }
                if (m.is("ROUND")) {
                    int round = m.round();
                    Result r = runner.run(m, advertise, () -> stopRound.get() == round || !reader.isAlive());
                    try {
                        link.send(Message.done(round, r.status(), r.failedItself(), r.why(), r.stopped(),
                                freePort.next()));
                    } catch (IOException e) {
                        // the store is gone: the reader has said so in the inbox
                    }
                }
            }
        } finally {
            beats.interrupt();
        }
    }

    /**
     * Why the run directory a round names is not the store's on this host ({@link Store#MARKER} missing or with
     * another text: no such directory, or one of that path on another file system), or null when it is.
     */
    public static String notShared(Path runDir, String marker) throws IOException {
        Path file = runDir.resolve(Store.MARKER);
        if (Files.isRegularFile(file) && Files.readString(file).equals(marker)) {
            return null;
        }
        return "the run directory " + runDir + " that the store made is not on this host" + (Files.isDirectory(runDir)
                ? " (a directory of that path is, without the store's " + Store.MARKER + ": another file system)" : "")
                + ": run.outputDir must be a file system every host shares, at the same path";
    }

    /** A port free on this host. */
    @FunctionalInterface
    public interface PortSource {
        int next() throws IOException;
    }
}
