package io.lgc4j.net;

import io.lgc4j.core.comm.FrameCodec;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.List;

/**
 * A peer on a plain blocking socket that speaks the handshake byte by byte, then does what a test needs: sends
 * corrupted frames, goes silent, or vanishes without a goodbye.
 */
final class RawPeer implements AutoCloseable {
    private static final UnpooledByteBufAllocator ALLOC = UnpooledByteBufAllocator.DEFAULT;

    final Socket socket;
    private final DataInputStream in;
    private final OutputStream out;
    final byte[] nonce = new byte[Handshake.NONCE_LENGTH];

    private RawPeer(Socket socket) throws IOException {
        this.socket = socket;
        socket.setSoTimeout(30_000);
        socket.setTcpNoDelay(true);
        this.in = new DataInputStream(socket.getInputStream());
        this.out = socket.getOutputStream();
        new SecureRandom().nextBytes(nonce);
    }

    static RawPeer connect(InetSocketAddress to) throws IOException {
        return new RawPeer(new Socket(to.getHostString(), to.getPort()));
    }

    /** Dials endpoint 0 as {@code endpoint}, authenticates, registers {@code port} and reads the table. */
    static RawPeer join(InetSocketAddress master, int endpoint, int endpoints, int port) throws IOException {
        RawPeer peer = connect(master);
        peer.write(Handshake.hello(ALLOC, NetFixtures.JOB, 0, endpoint, peer.nonce));
        Handshake.Hello hello = peer.readHello();
        peer.write(Handshake.proof(ALLOC, Handshake.mac(NetFixtures.TOKEN, Handshake.DIALER_LABEL, endpoint,
                hello.nonce(), peer.nonce, NetFixtures.JOB, 0)));
        Message proof = peer.read();
        if (proof.type != Handshake.PROOF) {
            throw new IOException("expected PROOF, found " + Handshake.typeName(proof.type) + ": "
                    + new String(proof.body, StandardCharsets.UTF_8));
        }
        peer.write(Handshake.register(ALLOC, "127.0.0.1", port));
        Message table = peer.read();
        List<InetSocketAddress> addresses = Handshake.readTable(Unpooled.wrappedBuffer(table.body), endpoints);
        if (addresses.size() != endpoints) {
            throw new IOException("table of " + addresses.size());
        }
        return peer;
    }

    void write(ByteBuf message) throws IOException {
        try {
            out.write(ByteBufUtil.getBytes(message));
            out.flush();
        } finally {
            message.release();
        }
    }

    /** Writes a frame as endpoint {@code sender} of the test job, exactly as given after stamping. */
    void sendFrame(byte[] frame, int sender) throws IOException {
        FrameCodec.stamp(frame, sender, NetFixtures.JOB);
        out.write(frame);
        out.flush();
    }

    void writeRaw(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    Handshake.Hello readHello() throws IOException {
        Message m = read();
        if (m.type != Handshake.HELLO) {
            throw new IOException("expected HELLO, found " + Handshake.typeName(m.type));
        }
        return Handshake.readHello(Unpooled.wrappedBuffer(m.body));
    }

    record Message(int type, byte[] body) {
    }

    Message read() throws IOException {
        int type = in.readUnsignedByte();
        byte[] length = new byte[4];
        in.readFully(length);
        int n = (length[0] & 0xFF) | (length[1] & 0xFF) << 8 | (length[2] & 0xFF) << 16 | (length[3] & 0xFF) << 24;
        if (n < 0 || n > 1 << 20) {
            throw new IOException("message of " + n + " bytes");
        }
        byte[] body = new byte[n];
        in.readFully(body);
        return new Message(type, body);
    }

    /** Reads until the other side closes; true if it did within the socket timeout. */
    boolean awaitClosedByPeer() throws IOException {
        byte[] sink = new byte[8192];
        try {
            while (in.read(sink) >= 0) {
                // discard
            }
            return true;
        } catch (EOFException e) {
            return true;
        } catch (java.net.SocketException e) {
            return true; // reset
        }
    }

    /** Closes with a reset rather than a FIN. */
    void reset() throws IOException {
        socket.setSoLinger(true, 0);
        socket.close();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
