package io.lgc4j.net;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;

/**
 * Layout of the handshake messages a link exchanges before it carries frames, version 2 (version 1 had no plan). Every message is
 * {@code type u8 | body length u32 | body}, multi-byte fields little-endian, and every body has a bound known
 * before it is read.
 *
 * <pre>
 *  HELLO    (1)  0 magic "LGCH" (the bytes 4C 47 43 48), 4 protocol version u8,
 *                5 job u32, 9 attempt u32, 13 endpoint u16, 15 nonce (16 random bytes),
 *                31 plan u64 (the run's plan fingerprint, 0 for none)                             = 39 bytes
 *  PROOF    (2)  HMAC-SHA256(token, label || own endpoint u16 || peer's nonce || own nonce || job u32 ||
 *                attempt u32), label "LGC4J link v1 dialer" or "LGC4J link v1 acceptor"        = 32 bytes
 *  REFUSED  (3)  the reason, UTF-8                                                           &lt;= 1024 bytes
 *  REGISTER (4)  port u16, host length u8, host UTF-8                                        &lt;= 258 bytes
 *  TABLE    (5)  count u32, then per endpoint: port u16, host length u8, host UTF-8    &lt;= 4 + 258 * count
 * </pre>
 *
 * <p>A link's first bytes are the HELLO, so a peer of another protocol version is told so, not misread.
 */
final class Handshake {
    static final int HELLO = 1;
    static final int PROOF = 2;
    static final int REFUSED = 3;
    static final int REGISTER = 4;
    static final int TABLE = 5;

    /** "LGCH" as the bytes 4C 47 43 48, read little-endian. */
    static final int MAGIC = 0x4843474C;
    static final int VERSION = 2;

    static final int TYPE_OFFSET = 0;
    static final int LENGTH_OFFSET = 1;
    static final int MESSAGE_HEADER_LENGTH = 5;

    static final int HELLO_MAGIC_OFFSET = 0;
    static final int HELLO_VERSION_OFFSET = 4;
    static final int HELLO_JOB_OFFSET = 5;
    static final int HELLO_ATTEMPT_OFFSET = 9;
    static final int HELLO_ENDPOINT_OFFSET = 13;
    static final int HELLO_NONCE_OFFSET = 15;
    static final int NONCE_LENGTH = 16;
    static final int HELLO_PLAN_OFFSET = HELLO_NONCE_OFFSET + NONCE_LENGTH;
    static final int HELLO_LENGTH = HELLO_PLAN_OFFSET + Long.BYTES;
    static final int PROOF_LENGTH = 32;
    static final int MAX_REASON_LENGTH = 1024;
    static final int MAX_ADDRESS_LENGTH = 2 + 1 + NetSettings.MAX_HOST_LENGTH;

    static final String DIALER_LABEL = "LGC4J link v1 dialer";
    static final String ACCEPTOR_LABEL = "LGC4J link v1 acceptor";

    private Handshake() {
    }

    /** A HELLO as received. */
    record Hello(int magic, int version, int job, int attempt, int endpoint, byte[] nonce, long plan) {
    }

    /** Largest body a message of {@code type} may have in a job of {@code endpoints} endpoints; -1 if unknown. */
    static long maxBodyLength(int type, int endpoints) {
        return switch (type) {
            case HELLO -> HELLO_LENGTH;
            case PROOF -> PROOF_LENGTH;
            case REFUSED -> MAX_REASON_LENGTH;
            case REGISTER -> MAX_ADDRESS_LENGTH;
            case TABLE -> 4L + (long) MAX_ADDRESS_LENGTH * endpoints;
            default -> -1;
        };
    }

    static String typeName(int type) {
        return switch (type) {
            case HELLO -> "HELLO";
            case PROOF -> "PROOF";
            case REFUSED -> "REFUSED";
            case REGISTER -> "REGISTER";
            case TABLE -> "TABLE";
            default -> "unknown message type " + type;
        };
    }

    static ByteBuf hello(ByteBufAllocator alloc, int job, int attempt, int endpoint, byte[] nonce) {
        return hello(alloc, job, attempt, endpoint, nonce, 0L);
    }

    static ByteBuf hello(ByteBufAllocator alloc, int job, int attempt, int endpoint, byte[] nonce, long plan) {
        ByteBuf b = message(alloc, HELLO, HELLO_LENGTH);
        b.writeIntLE(MAGIC).writeByte(VERSION).writeIntLE(job).writeIntLE(attempt).writeShortLE(endpoint)
                .writeBytes(nonce).writeLongLE(plan);
        return b;
    }

    static Hello readHello(ByteBuf body) {
        int magic = body.readIntLE();
        int version = body.readUnsignedByte();
        int job = body.readIntLE();
        int attempt = body.readIntLE();
        int endpoint = body.readUnsignedShortLE();
        byte[] nonce = new byte[NONCE_LENGTH];
        body.readBytes(nonce);
        long plan = body.readableBytes() >= Long.BYTES ? body.readLongLE() : 0L; // a version-1 HELLO has none
        return new Hello(magic, version, job, attempt, endpoint, nonce, plan);
    }

    static ByteBuf proof(ByteBufAllocator alloc, byte[] mac) {
        return message(alloc, PROOF, PROOF_LENGTH).writeBytes(mac);
    }

    static ByteBuf refused(ByteBufAllocator alloc, String reason) {
        byte[] text = truncate(reason.getBytes(StandardCharsets.UTF_8), MAX_REASON_LENGTH);
        return message(alloc, REFUSED, text.length).writeBytes(text);
    }

    static ByteBuf register(ByteBufAllocator alloc, String host, int port) {
        byte[] name = host.getBytes(StandardCharsets.UTF_8);
        ByteBuf b = message(alloc, REGISTER, 3 + name.length);
        return b.writeShortLE(port).writeByte(name.length).writeBytes(name);
    }

    static ByteBuf table(ByteBufAllocator alloc, List<InetSocketAddress> table) {
        List<byte[]> names = new ArrayList<>(table.size());
        int length = 4;
        for (InetSocketAddress a : table) {
            byte[] name = a.getHostString().getBytes(StandardCharsets.UTF_8);
            names.add(name);
            length += 3 + name.length;
        }
        ByteBuf b = message(alloc, TABLE, length).writeIntLE(table.size());
        for (int i = 0; i < table.size(); i++) {
            b.writeShortLE(table.get(i).getPort()).writeByte(names.get(i).length).writeBytes(names.get(i));
        }
        return b;
    }

    /**
     * Reads one address (port, host) of a REGISTER or TABLE body.
     *
     * @throws IllegalArgumentException saying what is wrong with it
     */
    static InetSocketAddress readAddress(ByteBuf body) {
        if (body.readableBytes() < 3) {
            throw new IllegalArgumentException("truncated address: " + body.readableBytes() + " bytes left, at least"
                    + " 3 expected");
        }
        int port = body.readUnsignedShortLE();
        int length = body.readUnsignedByte();
        if (port == 0 || length == 0 || body.readableBytes() < length) {
            throw new IllegalArgumentException("bad address: port " + port + ", host of " + length + " bytes, "
                    + body.readableBytes() + " bytes left");
        }
        String host = body.readCharSequence(length, StandardCharsets.UTF_8).toString();
        return InetSocketAddress.createUnresolved(host, port);
    }

    /** Reads a TABLE body of exactly {@code endpoints} addresses. */
    static List<InetSocketAddress> readTable(ByteBuf body, int endpoints) {
        int count = body.readIntLE();
        if (count != endpoints) {
            throw new IllegalArgumentException("endpoint table of " + Integer.toUnsignedString(count)
                    + " endpoints, this job has " + endpoints);
        }
        List<InetSocketAddress> table = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            table.add(readAddress(body));
        }
        if (body.isReadable()) {
            throw new IllegalArgumentException(body.readableBytes() + " bytes after the endpoint table");
        }
        return List.copyOf(table);
    }

    /** The proof an endpoint sends: its knowledge of the token, bound to both nonces, the job and the attempt. */
    static byte[] mac(byte[] token, String label, int ownEndpoint, byte[] peerNonce, byte[] ownNonce, int job,
                      int attempt) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(token, "HmacSHA256"));
            mac.update(label.getBytes(StandardCharsets.US_ASCII));
            mac.update(new byte[]{(byte) ownEndpoint, (byte) (ownEndpoint >>> 8)});
            mac.update(peerNonce);
            mac.update(ownNonce);
            mac.update(littleEndian(job));
            mac.update(littleEndian(attempt));
            return mac.doFinal();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is not available in this JVM", e);
        }
    }

    /** Constant-time comparison of a received proof with the expected one. */
    static boolean proofMatches(byte[] expected, byte[] found) {
        return MessageDigest.isEqual(expected, found);
    }

    private static byte[] littleEndian(int v) {
        return new byte[]{(byte) v, (byte) (v >>> 8), (byte) (v >>> 16), (byte) (v >>> 24)};
    }

    private static ByteBuf message(ByteBufAllocator alloc, int type, int bodyLength) {
        return alloc.buffer(MESSAGE_HEADER_LENGTH + bodyLength).writeByte(type).writeIntLE(bodyLength);
    }

    private static byte[] truncate(byte[] bytes, int max) {
        if (bytes.length <= max) {
            return bytes;
        }
        byte[] out = new byte[max];
        System.arraycopy(bytes, 0, out, 0, max);
        return out;
    }
}
