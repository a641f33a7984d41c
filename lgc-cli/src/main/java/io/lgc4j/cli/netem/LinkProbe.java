package io.lgc4j.cli.netem;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * The raw throughput of one shaped link, so a table can show what a cap delivers beside the cap: one TCP stream
 * from host {@code from} to host {@code to} of a {@link NetnsFabric} for a few seconds, plain sockets, 64 KiB writes.
 * The receiver counts the bytes between the first and the last it reads, so neither the connection's start nor the
 * queue draining after the sender stops is counted. Both ends are this class's {@link #main} in a JVM of their own,
 * each started in its namespace ({@link NetnsFabric#wrap}).
 *
 * <pre>{@code
 * LinkProbe.Result r = LinkProbe.measure(fabric, 0, 1, 3);
 * System.out.printf("%.1f Mbit/s%n", r.megabitsPerSecond());
 * }</pre>
 */
public final class LinkProbe {

    /** The port the receiver listens on inside its namespace. */
    static final int PORT = 29_999;
    private static final int CHUNK = 64 * 1024;

    private LinkProbe() {
    }

    /**
     * A measurement.
     *
     * @param bytes   payload bytes the receiver read
     * @param seconds between its first and last read
     */
    public record Result(long bytes, double seconds) {
        /** Payload throughput in Mbit/s (10^6 bit/s, as tc counts). */
        public double megabitsPerSecond() {
            return seconds <= 0 ? Double.NaN : bytes * 8 / seconds / 1e6;
        }
    }

    /**
     * Streams from host {@code from} to host {@code to} for {@code seconds} and returns what arrived.
     *
     * @throws FabricException when either end fails, naming it and its output
     */
    public static Result measure(NetnsFabric fabric, int from, int to, double seconds) {
        List<String> java = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx64m",
                "-cp", System.getProperty("java.class.path"), LinkProbe.class.getName());
        Process receiver = null;
        Process sender = null;
        try {
            List<String> rx = new ArrayList<>(java);
            rx.addAll(List.of("receive", fabric.address(to), String.valueOf(PORT)));
            receiver = new ProcessBuilder(fabric.wrap(to, rx)).redirectErrorStream(true).start();
            BufferedReader out = new BufferedReader(new InputStreamReader(receiver.getInputStream(),
                    StandardCharsets.UTF_8));
            String ready = out.readLine();
            if (!"ready".equals(ready)) {
                throw new FabricException("the link probe's receiver in " + fabric.namespace(to) + " did not start: "
                        + ready);
            }
            List<String> tx = new ArrayList<>(java);
            tx.addAll(List.of("send", fabric.address(to), String.valueOf(PORT), String.valueOf(seconds)));
            sender = new ProcessBuilder(fabric.wrap(from, tx)).redirectErrorStream(true).start();
            String sent = new String(sender.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            long deadline = (long) Math.ceil(seconds) + 30;
            if (!sender.waitFor(deadline, TimeUnit.SECONDS) || sender.exitValue() != 0) {
                throw new FabricException("the link probe's sender in " + fabric.namespace(from) + " failed: " + sent);
            }
            String line = out.readLine();
            if (!receiver.waitFor(30, TimeUnit.SECONDS) || receiver.exitValue() != 0 || line == null
                    || !line.startsWith("received ")) {
                throw new FabricException("the link probe's receiver in " + fabric.namespace(to) + " failed: " + line);
            }
            String[] parts = line.split(" ");
            return new Result(Long.parseLong(parts[1]), Double.parseDouble(parts[2]));
        } catch (IOException e) {
            throw new FabricException("the link probe could not run: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new FabricException("interrupted while probing the link", e);
        } finally {
            if (sender != null) {
                sender.destroyForcibly();
            }
            if (receiver != null) {
                receiver.destroyForcibly();
            }
        }
    }

    /**
     * One end of the probe: {@code receive HOST PORT} prints {@code ready}, accepts one connection, reads it to its
     * end and prints {@code received BYTES SECONDS}; {@code send HOST PORT SECONDS} writes for that long and closes.
     */
    public static void main(String[] args) throws IOException {
        if (args.length == 3 && args[0].equals("receive")) {
            try (ServerSocket server = new ServerSocket()) {
                server.bind(new InetSocketAddress(InetAddress.getByName(args[1]), Integer.parseInt(args[2])), 1);
                System.out.println("ready");
                System.out.flush();
                try (Socket s = server.accept(); InputStream in = s.getInputStream()) {
                    byte[] buf = new byte[CHUNK];
                    long bytes = 0;   // read after the first read, which only starts the clock
                    long first = -1;
                    long last = 0;
                    for (int n = in.read(buf); n >= 0; n = in.read(buf)) {
                        last = System.nanoTime();
                        if (first < 0) {
                            first = last;
                        } else {
                            bytes += n;
                        }
                    }
                    first = Math.max(first, 0);
                    System.out.printf(Locale.ROOT, "received %d %.6f%n", bytes, (last - first) / 1e9);
                }
            }
        } else if (args.length == 4 && args[0].equals("send")) {
            long end = System.nanoTime() + (long) (Double.parseDouble(args[3]) * 1e9);
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress(args[1], Integer.parseInt(args[2])), 10_000);
                OutputStream out = s.getOutputStream();
                byte[] buf = new byte[CHUNK];
                while (System.nanoTime() < end) {
                    out.write(buf);
                }
            }
        } else {
            System.err.println("usage: LinkProbe receive HOST PORT | send HOST PORT SECONDS");
            System.exit(2);
        }
    }
}
