package io.lgc4j.core.runtime;

import io.lgc4j.core.comm.PeerLostException;

import java.io.IOException;
import java.io.Reader;
import java.io.StringWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;

/**
 * What a launched process leaves for its launcher when its run fails: whether it failed itself or stopped because it
 * lost a peer, and which. The launcher reads every report once all processes stopped and names the one whose own
 * failure came first; a process without a report failed itself. Process {@code i} (a worker's rank, or K + s for a
 * parameter-server process) writes the properties file {@code process-i.stop} in the directory {@value #ENV_DIR} names.
 *
 * <pre>{@code
 * StopReport.of(process, "rank 0", failure, placement).leaveForLauncher();   // ClusterRuntime, on failure
 * Map<Integer, StopReport> all = StopReport.readAll(dir);                    // the launcher
 * }</pre>
 *
 * @param process      this process's place in the launch
 * @param failedItself whether the process failed itself; false: it stopped because it lost {@code peerProcess}
 * @param peerProcess  the process it lost, or -1 when it failed itself
 * @param peer         that process's endpoint as the run names it ("rank 1"), empty when it failed itself
 * @param atMillis     when it stopped, milliseconds since the epoch
 * @param message      why, the first line of its error
 */
public record StopReport(int process, boolean failedItself, int peerProcess, String peer, long atMillis,
                         String message) {

    /** Where the launcher tells each process to leave its report. */
    public static final String ENV_DIR = "LGC_FAILURE_DIR";

    /** The exit status of {@code lgc worker} when it stopped because it lost a peer (one that failed itself: 1). */
    public static final int LOST_PEER_STATUS = 4;

    private static final int MESSAGE_CHARS = 300;

    /** Checks the components. */
    public StopReport {
        if (failedItself != (peerProcess < 0)) {
            throw new IllegalArgumentException("a process that failed itself names no peer, one that lost a peer"
                    + " names it: failedItself " + failedItself + ", peerProcess " + peerProcess);
        }
        peer = peer == null ? "" : peer;
        message = firstLine(message == null ? "" : message);
    }

    /**
     * The endpoint a failure says this process lost, or empty when it failed itself: the peer of the first
     * {@link PeerLostException} in its causes.
     */
    public static Optional<PeerLostException> lostPeer(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof PeerLostException p) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }

    /** Writes this report where {@value #ENV_DIR} says, if it says; a report that cannot be written is skipped. */
    public void leaveForLauncher() {
        String dir = System.getenv(ENV_DIR);
        if (dir == null || dir.isBlank()) {
            return;
        }
        try {
            writeTo(Path.of(dir));
        } catch (IOException | RuntimeException e) {
            System.err.println("lgc: cannot leave the launcher this process's stop report in " + dir + ": " + e);
        }
    }

    /** Writes {@code dir/process-i.stop} (atomically: the launcher never reads half of it). */
    public void writeTo(Path dir) throws IOException {
        Properties p = new Properties();
        p.setProperty("process", String.valueOf(process));
        p.setProperty("failedItself", String.valueOf(failedItself));
        p.setProperty("peerProcess", String.valueOf(peerProcess));
        p.setProperty("peer", peer);
        p.setProperty("atMillis", String.valueOf(atMillis));
        p.setProperty("message", message);
        StringWriter text = new StringWriter();
        p.store(text, null);
        Path tmp = dir.resolve("process-" + process + ".stop.tmp");
        try (Writer w = Files.newBufferedWriter(tmp, StandardCharsets.UTF_8)) {
            w.write(text.toString());
        }
        Files.move(tmp, dir.resolve("process-" + process + ".stop"), StandardCopyOption.ATOMIC_MOVE,
                StandardCopyOption.REPLACE_EXISTING);
    }

    /** Every report in {@code dir} by process; a file that does not parse is passed over. */
    public static Map<Integer, StopReport> readAll(Path dir) throws IOException {
        Map<Integer, StopReport> reports = new TreeMap<>();
        if (!Files.isDirectory(dir)) {
            return reports;
        }
        try (var files = Files.newDirectoryStream(dir, "process-*.stop")) {
            for (Path f : files) {
                Properties p = new Properties();
                try (Reader r = Files.newBufferedReader(f, StandardCharsets.UTF_8)) {
                    p.load(r);
                    StopReport report = new StopReport(Integer.parseInt(p.getProperty("process")),
                            Boolean.parseBoolean(p.getProperty("failedItself")),
                            Integer.parseInt(p.getProperty("peerProcess")), p.getProperty("peer"),
                            Long.parseLong(p.getProperty("atMillis")), p.getProperty("message"));
                    reports.put(report.process(), report);
                } catch (IOException | RuntimeException e) {
                    // a report the launcher cannot read counts as none: the process failed itself
                }
            }
        }
        return reports;
    }

    private static String firstLine(String message) {
        int nl = message.indexOf('\n');
        String line = nl < 0 ? message : message.substring(0, nl);
        return line.length() <= MESSAGE_CHARS ? line : line.substring(0, MESSAGE_CHARS - 1) + "…";
    }
}
