package io.lgc4j.core.checkpoint;

/**
 * The byte layout of a checkpoint part file ({@code *.lgcc}): the container every part of a checkpoint uses — a
 * rank's, a service's and the manifest. All multi-byte fields are little-endian.
 *
 * <pre>
 *  offset  size  field
 *  0       4     magic "LGCK" (bytes 4C 47 43 4B)
 *  4       1     format version ({@value #VERSION})
 *  5       1     part kind: {@value #KIND_RANK} rank, {@value #KIND_SERVER} server, {@value #KIND_MANIFEST} manifest
 *  6       2     reserved, 0
 *  8       4     section count N (uint32)
 *  12            N sections, in the order they were added, each:
 *                  2  name length L (uint16, 1..{@value #MAX_NAME_LENGTH})
 *                  L  name, UTF-8, unique within the part
 *                  8  body length B (uint64)
 *                  4  CRC32C of the body
 *                  B  body (its layout is the section owner's: little-endian values, counts known to the reader)
 *  end-4   4     CRC32C of every byte before it
 * </pre>
 *
 * <p>Each body carries its own CRC so that a reader names the section that is corrupt; the trailer covers the
 * headers (names, lengths, the kind), which no body CRC does. A part is read whole into memory, so a file holds at
 * most {@value #MAX_PART_LENGTH} bytes; the length fields are 64 bits wide so that the layout need not change when
 * a reader maps larger files. {@link CheckpointPart} writes and reads this layout.
 */
final class CheckpointDescriptor {
    /** The magic bytes "LGCK". */
    public static final byte[] MAGIC = {'L', 'G', 'C', 'K'};
    /** The format version this build writes and reads. */
    public static final int VERSION = 1;
    public static final int MAGIC_OFFSET = 0;
    public static final int VERSION_OFFSET = 4;
    public static final int KIND_OFFSET = 5;
    public static final int RESERVED_OFFSET = 6;
    public static final int SECTION_COUNT_OFFSET = 8;
    /** Bytes before the first section. */
    public static final int HEADER_LENGTH = 12;
    /** Bytes of a section's name length (uint16). */
    public static final int NAME_LENGTH_SIZE = 2;
    /** Bytes of a section's body length (uint64). */
    public static final int BODY_LENGTH_SIZE = 8;
    /** Bytes of a section's body CRC32C. */
    public static final int BODY_CRC_SIZE = 4;
    /** Bytes after the last section (the CRC32C of everything before it). */
    public static final int TRAILER_LENGTH = 4;
    /** The shortest part: a header, no section, the trailer. */
    public static final int MIN_LENGTH = HEADER_LENGTH + TRAILER_LENGTH;
    /** The longest section name, in UTF-8 bytes. */
    public static final int MAX_NAME_LENGTH = 255;
    /** The longest part file this build reads (the largest Java array it can safely allocate). */
    public static final int MAX_PART_LENGTH = Integer.MAX_VALUE - 8;
    /** Part kind of a rank's part. */
    public static final int KIND_RANK = 1;
    /** Part kind of a service's part (the parameter server's). */
    public static final int KIND_SERVER = 2;
    /** Part kind of a checkpoint's manifest. */
    public static final int KIND_MANIFEST = 3;

    private CheckpointDescriptor() {
    }

    /** Bytes of a section's header (name length, name, body length, CRC) for a name of {@code nameLength} bytes. */
    public static int sectionHeaderLength(int nameLength) {
        return NAME_LENGTH_SIZE + nameLength + BODY_LENGTH_SIZE + BODY_CRC_SIZE;
    }
}
