package io.lgc4j.core.checkpoint;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.zip.CRC32C;

import static io.lgc4j.core.checkpoint.CheckpointDescriptor.BODY_CRC_SIZE;
import static io.lgc4j.core.checkpoint.CheckpointDescriptor.BODY_LENGTH_SIZE;
import static io.lgc4j.core.checkpoint.CheckpointDescriptor.HEADER_LENGTH;
import static io.lgc4j.core.checkpoint.CheckpointDescriptor.MAGIC;
import static io.lgc4j.core.checkpoint.CheckpointDescriptor.MAX_NAME_LENGTH;
import static io.lgc4j.core.checkpoint.CheckpointDescriptor.MAX_PART_LENGTH;
import static io.lgc4j.core.checkpoint.CheckpointDescriptor.NAME_LENGTH_SIZE;
import static io.lgc4j.core.checkpoint.CheckpointDescriptor.TRAILER_LENGTH;
import static io.lgc4j.core.checkpoint.CheckpointDescriptor.MAX_VERSION;
import static io.lgc4j.core.checkpoint.CheckpointDescriptor.VERSION;

/**
 * One immutable file of a checkpoint (a rank's part, a service's, or the manifest): an ordered list of named
 * sections whose bodies their owners write with a {@link SectionWriter} and read with a {@link SectionReader}. The
 * container knows names and lengths, never what a body means; no Java serialization, everything little-endian.
 * {@link CheckpointDescriptor} has the byte layout.
 *
 * <pre>{@code
 * CheckpointPart.Builder b = CheckpointPart.builder(PartKind.RANK);
 * b.section("compressor/residual").putFloats(residual);
 * PartInfo info = b.build().write(stepDir.resolve("rank-2.lgcc"));    // temp file, force, atomic rename
 * float[] back = CheckpointPart.read(stepDir.resolve("rank-2.lgcc")).floats("compressor/residual", n);
 * }</pre>
 *
 * <p>{@link #read} verifies everything (header, names, every body CRC, trailer) before it returns; each failure is a
 * {@link CheckpointException} whose message starts with the part's label (its file name, or
 * {@code step-000123/rank-2.lgcc} when read through a {@link CheckpointDirectory}).
 */
public final class CheckpointPart {
    private final PartKind kind;
    private final int version;
    private final String label;
    /** Read-only, little-endian views of the bodies, in order. */
    private final Map<String, ByteBuffer> sections;

    private CheckpointPart(PartKind kind, int version, String label, Map<String, ByteBuffer> sections) {
        this.kind = kind;
        this.version = version;
        this.label = label;
        this.sections = Collections.unmodifiableMap(sections);
    }

    /** A builder of a part of this kind, in format version {@value CheckpointDescriptor#VERSION}. */
    public static Builder builder(PartKind kind) {
        return new Builder(kind, VERSION);
    }

    /** A builder of a part of this kind in format {@code version} (1 or {@value CheckpointDescriptor#MAX_VERSION}). */
    static Builder builder(PartKind kind, int version) {
        if (version < VERSION || version > MAX_VERSION) {
            throw new IllegalArgumentException("format version must be in [" + VERSION + ", " + MAX_VERSION
                    + "], found " + version);
        }
        return new Builder(kind, version);
    }

    /** The format version the part was written in. */
    public int version() {
        return version;
    }

    /** What the part holds. */
    public PartKind kind() {
        return kind;
    }

    /** The name messages use for this part: its file name, or {@code new rank part} before it is written. */
    public String label() {
        return label;
    }

    /** The section names, in file order. */
    public List<String> sectionNames() {
        return List.copyOf(sections.keySet());
    }

    /** Whether the part has a section of this name. */
    public boolean has(String name) {
        return sections.containsKey(name);
    }

    /** A section's body length in bytes. */
    public int sectionLength(String name) throws CheckpointException {
        return body(name).remaining();
    }

    /**
     * A reader of the section's body, from its first byte.
     *
     * @throws CheckpointException naming the sections present when there is no such section
     */
    public SectionReader section(String name) throws CheckpointException {
        return new SectionReader(name, label, body(name));
    }

    /** A section that holds exactly {@code count} float32s. */
    public float[] floats(String name, int count) throws CheckpointException {
        SectionReader s = section(name);
        s.expectExactly(count, Float.BYTES, "float");
        return s.getFloats(count);
    }

    /**
     * Reads a section that holds exactly {@code into.length} float32s into {@code into} (a state restored in place).
     * On a bad section nothing is written into {@code into}.
     */
    public void floatsInto(String name, float[] into) throws CheckpointException {
        SectionReader s = section(name);
        s.expectExactly(into.length, Float.BYTES, "float");
        s.getFloats(into);
    }

    /** A section that holds exactly {@code count} int32s. */
    public int[] ints(String name, int count) throws CheckpointException {
        SectionReader s = section(name);
        s.expectExactly(count, Integer.BYTES, "int");
        return s.getInts(count);
    }

    /** A section that holds exactly {@code count} int64s. */
    public long[] longs(String name, int count) throws CheckpointException {
        SectionReader s = section(name);
        s.expectExactly(count, Long.BYTES, "long");
        return s.getLongs(count);
    }

    /** A section's whole body. */
    public byte[] bytes(String name) throws CheckpointException {
        SectionReader s = section(name);
        return s.getBytes(s.remaining());
    }

    /**
     * Checks the part's kind.
     *
     * @return this part
     * @throws CheckpointException {@code rank-1.lgcc: expected a rank part, found a server part}
     */
    public CheckpointPart requireKind(PartKind expected) throws CheckpointException {
        if (kind != expected) {
            throw new CheckpointException(label + ": expected a " + expected + " part, found a " + kind + " part");
        }
        return this;
    }

    /** The part's bytes, exactly as {@link #write} puts them in its file. */
    public byte[] toBytes() {
        ByteArrayOutputStream out = new ByteArrayOutputStream(Math.toIntExact(length()));
        try {
            writeTo(Channels.newChannel(out));
        } catch (IOException e) {
            throw new UncheckedIOException("writing to memory cannot fail", e);
        }
        return out.toByteArray();
    }

    /** The length of the part's file in bytes. */
    public long length() {
        long n = HEADER_LENGTH + TRAILER_LENGTH;
        for (Map.Entry<String, ByteBuffer> e : sections.entrySet()) {
            n += CheckpointDescriptor.sectionHeaderLength(utf8(e.getKey()).length) + e.getValue().remaining();
        }
        return n;
    }

    /**
     * Writes the part to {@code file} atomically: to a temporary file in the same directory, forced to the device,
     * then renamed over {@code file}, and the directory forced. A crash leaves {@code file} as it was (absent, or
     * the previous complete part), never a part of the new bytes.
     *
     * @return the file's name, size and CRC32C (its trailer's value), as the manifest lists it
     */
    public PartInfo write(Path file) throws IOException {
        int crc = AtomicFiles.write(file, this::writeTo);
        return new PartInfo(file.getFileName().toString(), length(), crc);
    }

    /** Writes the layout to a channel; returns the trailer's value, the CRC32C of every byte before it. */
    private int writeTo(WritableByteChannel channel) throws IOException {
        CRC32C trailer = new CRC32C();
        ByteBuffer header = ByteBuffer.allocate(HEADER_LENGTH).order(ByteOrder.LITTLE_ENDIAN)
                .put(MAGIC).put((byte) version).put((byte) kind.wireId()).putShort((short) 0)
                .putInt(sections.size());
        emit(channel, header.flip(), trailer);
        for (Map.Entry<String, ByteBuffer> e : sections.entrySet()) {
            byte[] name = utf8(e.getKey());
            ByteBuffer body = e.getValue().duplicate();
            CRC32C bodyCrc = new CRC32C();
            bodyCrc.update(body.duplicate());
            ByteBuffer sectionHeader = ByteBuffer.allocate(CheckpointDescriptor.sectionHeaderLength(name.length))
                    .order(ByteOrder.LITTLE_ENDIAN).putShort((short) name.length).put(name)
                    .putLong(body.remaining()).putInt((int) bodyCrc.getValue());
            emit(channel, sectionHeader.flip(), trailer);
            emit(channel, body, trailer);
        }
        ByteBuffer end = ByteBuffer.allocate(TRAILER_LENGTH).order(ByteOrder.LITTLE_ENDIAN)
                .putInt((int) trailer.getValue());
        emit(channel, end.flip(), null);
        return (int) trailer.getValue();
    }

    private static void emit(WritableByteChannel channel, ByteBuffer bytes, CRC32C trailer) throws IOException {
        if (trailer != null) {
            trailer.update(bytes.duplicate());
        }
        while (bytes.hasRemaining()) {
            channel.write(bytes);
        }
    }

    /**
     * Reads and checks a part file; messages name it by its file name.
     *
     * @throws CheckpointException if the file is missing, too large, or not a valid part (see the class comment)
     */
    public static CheckpointPart read(Path file) throws IOException {
        return read(file, file.getFileName().toString());
    }

    /** Reads and checks a part file; messages name it {@code label}. */
    static CheckpointPart read(Path file, String label) throws IOException {
        return parse(readFile(file, label), label);
    }

    /** A file's bytes, refusing a missing file or one too large to read whole with a message naming it. */
    static byte[] readFile(Path file, String label) throws IOException {
        try (FileChannel channel = FileChannel.open(file)) {
            long size = channel.size();
            if (size > MAX_PART_LENGTH) {
                throw new CheckpointException(label + ": " + Messages.bytes(size) + ", more than the "
                        + Messages.bytes(MAX_PART_LENGTH) + " this build reads");
            }
            ByteBuffer bytes = ByteBuffer.allocate((int) size);
            while (bytes.hasRemaining() && channel.read(bytes) >= 0) {
                // read until full or the file ends (it may shrink while being read)
            }
            return bytes.position() == size ? bytes.array() : Arrays.copyOf(bytes.array(),
                    bytes.position());
        } catch (NoSuchFileException e) {
            throw new CheckpointException(label + " is missing: no file " + file, e);
        }
    }

    /**
     * Checks and wraps the bytes of a part (a file's whole content); messages name it {@code label}. The part keeps
     * views of {@code bytes}, which the caller must not change afterwards.
     */
    public static CheckpointPart parse(byte[] bytes, String label) throws CheckpointException {
        return new Parser(bytes, label).parse();
    }

    /** Walks the layout, checking each field before it relies on it; the first problem found is thrown. */
    private static final class Parser {
        private final byte[] bytes;
        private final String label;
        private final ByteBuffer in;

        Parser(byte[] bytes, String label) {
            this.bytes = bytes;
            this.label = label;
            this.in = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        }

        CheckpointPart parse() throws CheckpointException {
            PartKind kind = header();
            long count = Integer.toUnsignedLong(in.getInt(CheckpointDescriptor.SECTION_COUNT_OFFSET));
            in.position(HEADER_LENGTH);
            Map<String, ByteBuffer> sections = new LinkedHashMap<>();
            List<String> order = new ArrayList<>();
            for (long i = 1; i <= count; i++) {
                section(i, count, sections, order);
            }
            trailer(count);
            return new CheckpointPart(kind, Byte.toUnsignedInt(bytes[CheckpointDescriptor.VERSION_OFFSET]), label,
                    sections);
        }

        /** The magic, the version, the kind and the reserved bytes of the part's header. */
        private PartKind header() throws CheckpointException {
            int magicPresent = Math.min(MAGIC.length, bytes.length);
            if (!Arrays.equals(bytes, 0, magicPresent, MAGIC, 0, magicPresent)) {
                throw new CheckpointException(label + " is not an LGC4J checkpoint part: expected magic LGCK, found "
                        + Messages.hex(bytes, 0, magicPresent));
            }
            if (bytes.length < HEADER_LENGTH) {
                throw new CheckpointException(label + ": truncated in the part header: expected "
                        + Messages.bytes(HEADER_LENGTH) + ", found " + Messages.bytes(bytes.length));
            }
            int version = Byte.toUnsignedInt(in.get(CheckpointDescriptor.VERSION_OFFSET));
            if (version < VERSION || version > MAX_VERSION) {
                throw new CheckpointException(label + ": checkpoint format version " + version
                        + ", this build reads versions " + VERSION + " to " + MAX_VERSION);
            }
            int kindId = Byte.toUnsignedInt(in.get(CheckpointDescriptor.KIND_OFFSET));
            PartKind kind = PartKind.ofWireId(kindId);
            if (kind == null) {
                throw new CheckpointException(label + ": unknown part kind " + kindId + " (1 rank, 2 server, "
                        + "3 manifest)");
            }
            int reserved = Short.toUnsignedInt(in.getShort(CheckpointDescriptor.RESERVED_OFFSET));
            if (reserved != 0) {
                throw new CheckpointException(String.format(Locale.ROOT,
                        "%s: reserved header bytes 6-7 are 0x%04x, expected 0", label, reserved));
            }
            return kind;
        }

        /** Section {@code i} of {@code count}: its name (unique), its body checked against its CRC32C. */
        private void section(long i, long count, Map<String, ByteBuffer> sections, List<String> order)
                throws CheckpointException {
            String where = "section " + Messages.count(i) + " of " + Messages.count(count);
            need(NAME_LENGTH_SIZE, where, "its name length");
            int nameLength = Short.toUnsignedInt(in.getShort());
            if (nameLength == 0) {
                throw new CheckpointException(label + ": " + where + " has an empty name");
            }
            if (nameLength > MAX_NAME_LENGTH) {
                throw new CheckpointException(label + ": " + where + " declares a name of "
                        + Messages.bytes(nameLength) + ", at most " + MAX_NAME_LENGTH);
            }
            need(nameLength, where, "its name");
            String name = name(nameLength, where);
            String named = "section '" + name + "' (" + Messages.count(i) + " of " + Messages.count(count) + ")";
            int earlier = order.indexOf(name);
            if (earlier >= 0) {
                throw new CheckpointException(label + ": " + where + " repeats the name '" + name
                        + "' of section " + (earlier + 1));
            }
            need(BODY_LENGTH_SIZE + BODY_CRC_SIZE, named, "its body length and CRC32C");
            long bodyLength = in.getLong();
            int storedCrc = in.getInt();
            if (bodyLength < 0 || bodyLength > in.remaining()) {
                throw new CheckpointException(label + ": truncated in " + named + ": expected a body of "
                        + Messages.unsignedCount(bodyLength) + " bytes, found " + Messages.bytes(in.remaining()));
            }
            ByteBuffer body = in.slice().limit((int) bodyLength);
            CRC32C crc = new CRC32C();
            crc.update(body.duplicate());
            if ((int) crc.getValue() != storedCrc) {
                throw new CheckpointException(label + ": " + named + " fails its CRC32C: stored "
                        + Messages.crc(storedCrc) + ", computed " + Messages.crc((int) crc.getValue())
                        + ": its body is corrupt");
            }
            in.position(in.position() + (int) bodyLength);
            sections.put(name, body.asReadOnlyBuffer().order(ByteOrder.LITTLE_ENDIAN));
            order.add(name);
        }

        /** The 4-byte trailer right after the last section: the CRC32C of everything before it. */
        private void trailer(long count) throws CheckpointException {
            if (in.remaining() < TRAILER_LENGTH) {
                throw new CheckpointException(label + ": truncated in the trailer: expected "
                        + Messages.bytes(TRAILER_LENGTH) + " (the CRC32C after the last section), found "
                        + Messages.bytes(in.remaining()));
            }
            if (in.remaining() > TRAILER_LENGTH) {
                throw new CheckpointException(label + ": " + Messages.bytes(in.remaining() - TRAILER_LENGTH)
                        + " follow the last of its " + Messages.plural(count, "section")
                        + ", expected only the 4-byte trailer");
            }
            CRC32C crc = new CRC32C();
            crc.update(bytes, 0, in.position());
            int stored = in.getInt();
            if (stored != (int) crc.getValue()) {
                throw new CheckpointException(label + ": the trailer's CRC32C fails: stored " + Messages.crc(stored)
                        + ", computed " + Messages.crc((int) crc.getValue())
                        + ": every section's body verifies, so a header byte or the trailer is corrupt");
            }
        }

        private void need(int length, String where, String what) throws CheckpointException {
            if (in.remaining() < length) {
                throw new CheckpointException(label + ": truncated in " + where + ": expected " + what + " ("
                        + Messages.bytes(length) + "), found " + Messages.bytes(in.remaining()));
            }
        }

        private String name(int length, String where) throws CheckpointException {
            int at = in.position();
            try {
                String name = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                        .onUnmappableCharacter(CodingErrorAction.REPORT)
                        .decode(in.slice().limit(length)).toString();
                in.position(at + length);
                return name;
            } catch (CharacterCodingException e) {
                throw new CheckpointException(label + ": " + where + "'s name is not valid UTF-8: "
                        + Messages.hex(bytes, at, length), e);
            }
        }
    }

    private ByteBuffer body(String name) throws CheckpointException {
        ByteBuffer body = sections.get(name);
        if (body == null) {
            throw new CheckpointException(label + " has no section '" + name + "'; its sections: "
                    + (sections.isEmpty() ? "none" : String.join(", ", sections.keySet())));
        }
        return body.duplicate().order(ByteOrder.LITTLE_ENDIAN);
    }

    private static byte[] utf8(String name) {
        return name.getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Collects a part's sections in order. Names are checked when a section is added (non-empty, at most 255 UTF-8
     * bytes, unique): a bad name is a programming error, an {@link IllegalArgumentException}.
     */
    public static final class Builder {
        private final PartKind kind;
        private final int version;
        private final Map<String, SectionWriter> sections = new LinkedHashMap<>();
        private boolean built;

        private Builder(PartKind kind, int version) {
            this.kind = Objects.requireNonNull(kind, "kind");
            this.version = version;
        }

        /**
         * Adds a section, empty until written to; sections keep the order they were added in.
         *
         * @throws IllegalArgumentException if the name is empty, longer than 255 UTF-8 bytes, not encodable, or
         *                                  already used in this part
         */
        public SectionWriter section(String name) {
            if (built) {
                throw new IllegalStateException("the " + kind + " part is already built");
            }
            byte[] utf8 = utf8(Objects.requireNonNull(name, "name"));
            if (utf8.length == 0) {
                throw new IllegalArgumentException("a section name must not be empty");
            }
            if (utf8.length > MAX_NAME_LENGTH) {
                throw new IllegalArgumentException("section name '" + name + "' has " + utf8.length
                        + " UTF-8 bytes, at most " + MAX_NAME_LENGTH);
            }
            if (!new String(utf8, StandardCharsets.UTF_8).equals(name)) {
                throw new IllegalArgumentException("section name '" + name + "' is not valid Unicode (an unpaired"
                        + " surrogate)");
            }
            if (sections.containsKey(name)) {
                throw new IllegalArgumentException("the " + kind + " part already has a section '" + name + "'");
            }
            SectionWriter w = new SectionWriter(name);
            sections.put(name, w);
            return w;
        }

        /**
         * The part, its section bodies fixed; the builder and its writers accept nothing more.
         *
         * @throws IllegalStateException if the part would be longer than a reader accepts
         */
        public CheckpointPart build() {
            built = true;
            Map<String, ByteBuffer> bodies = new LinkedHashMap<>();
            long length = HEADER_LENGTH + TRAILER_LENGTH;
            for (SectionWriter w : sections.values()) {
                byte[] body = w.close();
                bodies.put(w.name(), ByteBuffer.wrap(body).asReadOnlyBuffer().order(ByteOrder.LITTLE_ENDIAN));
                length += CheckpointDescriptor.sectionHeaderLength(utf8(w.name()).length) + body.length;
            }
            if (length > MAX_PART_LENGTH) {
                throw new IllegalStateException("the " + kind + " part would have " + Messages.bytes(length)
                        + ", more than the " + Messages.bytes(MAX_PART_LENGTH) + " a reader accepts");
            }
            return new CheckpointPart(kind, version, "new " + kind + " part", bodies);
        }
    }
}
