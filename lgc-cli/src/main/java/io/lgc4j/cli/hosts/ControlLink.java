package io.lgc4j.cli.hosts;

import com.fasterxml.jackson.databind.ObjectMapper;

import io.lgc4j.net.JobToken;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Map;

/**
 * A connection between an {@link Agent} and the {@link Store}: lines of JSON, each a {@link Message}, after a
 * challenge-response on both sides with the job token ({@link JobToken#proof}: the token never crosses the wire, and a
 * side without it, or of another job, is refused). Every receive has a deadline: a side silent that long is lost (each
 * side sends {@link Message#BEAT} every second).
 *
 * <pre>
 * store → agent   {"nonce": Ns}
 * agent → store   {"nonce": Na, "proof": HMAC(token, "lgc-store/agent " + job, Ns, Na)}
 * store → agent   {"proof": HMAC(token, "lgc-store/store " + job, Na, Ns)}   or {"refused": why}
 * </pre>
 */
public final class ControlLink implements Closeable {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HexFormat HEX = HexFormat.of();

    private final Socket socket;
    private final BufferedReader in;
    private final BufferedWriter out;

    private ControlLink(Socket socket, Duration silence) throws IOException {
        this.socket = socket;
        socket.setSoTimeout(Math.toIntExact(silence.toMillis()));
        socket.setTcpNoDelay(true);
        this.in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
        this.out = new BufferedWriter(new OutputStreamWriter(socket.getOutputStream(), StandardCharsets.UTF_8));
    }

    /** The store's side of a connection an agent opened: proves itself once the agent has. */
    static ControlLink accept(Socket socket, byte[] token, String job, Duration silence) throws IOException {
        ControlLink link = new ControlLink(socket, silence);
        byte[] nonce = nonce();
        link.write(Map.of("nonce", HEX.formatHex(nonce)));
        Map<?, ?> answer = link.readMap();
        byte[] theirs = hex(answer.get("nonce"));
        byte[] expected = JobToken.proof(token, "lgc-store/agent " + job, nonce, theirs);
        if (!MessageDigest.isEqual(expected, hex(answer.get("proof")))) {
            link.write(Map.of("refused", "wrong job token or job id (this store's job is '" + job + "')"));
            link.close();
            throw new IOException("refused an agent from " + socket.getRemoteSocketAddress() + ": wrong job token or"
                    + " job id");
        }
        link.write(Map.of("proof", HEX.formatHex(JobToken.proof(token, "lgc-store/store " + job, theirs, nonce))));
        return link;
    }

    /** An agent's connection to the store at {@code store}, retried until {@code patience} has passed. */
    static ControlLink connect(InetSocketAddress store, byte[] token, String job, Duration silence, Duration patience)
            throws IOException, InterruptedException {
        long deadline = System.nanoTime() + patience.toNanos();
        IOException last = null;
        while (System.nanoTime() < deadline) {
            Socket socket = new Socket();
            try {
                socket.connect(store, 2_000);
                return handshake(new ControlLink(socket, silence), token, job, store);
            } catch (RefusedException e) {
                throw e;
            } catch (IOException e) {
                socket.close();
                last = e;
                Thread.sleep(250);
            }
        }
        throw new IOException("no store at " + store + " within " + patience.toSeconds() + " s (" + (last == null
                ? "no attempt" : last.getMessage()) + "): is the launcher given --rdzv " + store.getHostString() + ":"
                + store.getPort() + " running there?", last);
    }

    private static ControlLink handshake(ControlLink link, byte[] token, String job, InetSocketAddress store)
            throws IOException {
        byte[] theirs = hex(link.readMap().get("nonce"));
        byte[] nonce = nonce();
        link.write(Map.of("nonce", HEX.formatHex(nonce), "proof", HEX.formatHex(JobToken.proof(token,
                "lgc-store/agent " + job, theirs, nonce))));
        Map<?, ?> answer = link.readMap();
        if (answer.containsKey("refused")) {
            link.close();
            throw new RefusedException("the store at " + store + " refused this host: " + answer.get("refused"));
        }
        byte[] expected = JobToken.proof(token, "lgc-store/store " + job, nonce, theirs);
        if (!MessageDigest.isEqual(expected, hex(answer.get("proof")))) {
            link.close();
            throw new RefusedException("the store at " + store + " could not prove it holds this job's token");
        }
        return link;
    }

    /** A refusal by the other side: retrying would not help. */
    static final class RefusedException extends IOException {
        private static final long serialVersionUID = 1L;

        RefusedException(String message) {
            super(message);
        }
    }

    /** Sends one message; safe from several threads. */
    void send(Message m) throws IOException {
        write(m);
    }

    /** The next message; heartbeats are passed over. */
    Message receive() throws IOException {
        while (true) {
            String line = readLine();
            Message m = JSON.readValue(line, Message.class);
            if (!m.is("BEAT")) {
                return m;
            }
        }
    }

    /** The address of this side of the connection (an agent's default advertised address). */
    String localAddress() {
        return socket.getLocalAddress().getHostAddress();
    }

    /** The other side's address. */
    String remoteAddress() {
        return socket.getInetAddress().getHostAddress();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }

    private String readLine() throws IOException {
        try {
            String line = in.readLine();
            if (line == null) {
                throw new IOException("the connection closed");
            }
            return line;
        } catch (SocketTimeoutException e) {
            throw new IOException("nothing heard for " + socket.getSoTimeout() / 1000 + " s", e);
        }
    }

    /** One line of JSON: a handshake's map or a message. */
    private synchronized void write(Object value) throws IOException {
        out.write(JSON.writeValueAsString(value));
        out.write('\n');
        out.flush();
    }

    private Map<?, ?> readMap() throws IOException {
        return JSON.readValue(readLine(), Map.class);
    }

    private static byte[] nonce() {
        byte[] n = new byte[32];
        new SecureRandom().nextBytes(n);
        return n;
    }

    private static byte[] hex(Object value) throws IOException {
        if (!(value instanceof String s) || s.length() != 64) {
            throw new IOException("a malformed handshake message: expected 64 hexadecimal characters, found " + value);
        }
        try {
            return HEX.parseHex(s);
        } catch (IllegalArgumentException e) {
            throw new IOException("a malformed handshake message: " + e.getMessage(), e);
        }
    }
}
