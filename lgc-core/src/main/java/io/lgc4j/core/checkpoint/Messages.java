package io.lgc4j.core.checkpoint;

import java.math.BigInteger;
import java.util.Locale;

/** How checkpoint messages write numbers: counts with thousands separators, CRCs and raw bytes in hex. */
final class Messages {
    private Messages() {
    }

    /** {@code 4,800}. */
    static String count(long n) {
        return String.format(Locale.ROOT, "%,d", n);
    }

    /** A uint64 read from a file, which may not fit a signed long: {@code 18,446,744,073,709,551,615}. */
    static String unsignedCount(long n) {
        return n >= 0 ? count(n) : String.format(Locale.ROOT, "%,d", new BigInteger(Long.toUnsignedString(n)));
    }

    /** {@code 1 byte}, {@code 4,800 bytes}. */
    static String bytes(long n) {
        return count(n) + (n == 1 ? " byte" : " bytes");
    }

    /** {@code 1 float}, {@code 1,200 floats}. */
    static String plural(long n, String noun) {
        return count(n) + " " + noun + (n == 1 ? "" : "s");
    }

    /** A CRC32C as {@code 0x1a2b3c4d}. */
    static String crc(int crc) {
        return String.format(Locale.ROOT, "0x%08x", crc);
    }

    /** Bytes as {@code 50 4B 03 04}. */
    static String hex(byte[] bytes, int offset, int length) {
        StringBuilder s = new StringBuilder();
        for (int i = offset; i < offset + length; i++) {
            if (s.length() > 0) {
                s.append(' ');
            }
            s.append(String.format(Locale.ROOT, "%02X", bytes[i]));
        }
        return s.toString();
    }
}
