package io.lgc4j.core.comm;

import org.junit.jupiter.api.Test;

import java.util.Random;
import java.util.zip.CRC32C;

import static org.junit.jupiter.api.Assertions.assertEquals;

class Crc32cShiftTest {

    private static int crc(byte[] message) {
        CRC32C c = new CRC32C();
        c.update(message);
        return (int) c.getValue();
    }

    /** Changing a few bytes and shifting the CRC over the rest gives the CRC of the changed message, at any length. */
    @Test
    void theUpdatedCrcShouldBeTheChangedMessagesCrc() {
        Random random = new Random(9);
        for (int length : new int[] {8, 9, 33, 255, 256, 257, 4_096, 65_537, 1_000_003}) {
            for (int at : new int[] {0, 1, (length - 6) / 2, length - 6}) {
                byte[] message = new byte[length];
                random.nextBytes(message);
                int before = crc(message);
                byte[] old = new byte[6];
                System.arraycopy(message, at, old, 0, 6);
                byte[] changed = new byte[6];
                random.nextBytes(changed);
                System.arraycopy(changed, 0, message, at, 6);
                assertEquals(crc(message), Crc32cShift.update(before, old, changed, length - at - 6),
                        "length " + length + ", bytes " + at + ".." + (at + 6));
            }
        }
    }
}
