package io.lgc4j.core.checkpoint;

/**
 * The byte layout of a checkpoint part file ({@code *.lgcc}), shared by rank, service and manifest parts; all
 * multi-byte fields are little-endian. {@link CheckpointPart} writes and reads it.
 *
 * <pre>
 *  0 magic "LGCK" (4) | 4 version {@value #VERSION} or {@value #MAX_VERSION} (1) | 5 kind: {@value #KIND_RANK} rank, {@value #KIND_SERVER}
 *  server, {@value #KIND_MANIFEST} manifest (1) | 6 reserved 0 (2) | 8 section count N (uint32)
 *  12 N sections in insertion order: name length L (uint16, 1..{@value #MAX_NAME_LENGTH}), name (UTF-8, unique),
 *     body length B (uint64), CRC32C of the body (4), body (B, little-endian, layout owned by the section's writer)
 *  end-4 CRC32C of every byte before it (covers the headers, which no body CRC does)
 * </pre>
 *
 * <p>A part is read whole into memory, so a file holds at most {@value #MAX_PART_LENGTH} bytes.
 */
final class CheckpointDescriptor {
    /** The magic bytes "LGCK". */
    public static final byte[] MAGIC = {'L', 'G', 'C', 'K'};
    /** The format version this build writes, unless a part holds what only a newer version says. */
    public static final int VERSION = 1;
    /**
     * The newest version this build reads and writes: 2, a manifest that records where its run is in an epoch (a
     * run resumed at another K), which a build that reads version 1 only must refuse rather than misread.
     */
    public static final int MAX_VERSION = 2;
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
