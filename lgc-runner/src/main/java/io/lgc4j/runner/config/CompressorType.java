package io.lgc4j.runner.config;

import com.fasterxml.jackson.annotation.JsonValue;
import io.lgc4j.core.method.Methods;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The gradient compressor of the non-dense blocks ({@code compressor.type}): the name of a registered
 * {@link io.lgc4j.core.compress.CompressorProvider}. Not an enum: the names are whatever the class path registers
 * ({@link Methods#installed()}), so a compressor from another jar is chosen in YAML like a shipped one. Read, like
 * the configuration's enums, in any case with {@code -} or {@code _}; written in lower case.
 *
 * <pre>{@code
 * compressor:
 *   type: dgc
 * }</pre>
 *
 * <pre>{@code
 * CompressorType dgc = CompressorType.of("DGC");      // equals CompressorType.DGC
 * CompressorType.of("signsgd");                       // IllegalArgumentException listing the registered types
 * }</pre>
 *
 * <p>The constants name the compressors this project ships, for code and tests that pick one; a new compressor
 * needs none.
 */
public final class CompressorType {

    /** No compression: every step dense. */
    public static final CompressorType NONE = new CompressorType("none");
    /** Sparse GD: top-k per block with error feedback. */
    public static final CompressorType TOPK = new CompressorType("topk");
    /** Deep Gradient Compression: momentum correction, masking, clipping, exponential sparsity warm-up. */
    public static final CompressorType DGC = new CompressorType("dgc");
    /** ScaleCom: cyclic leader's top-k support shared by all ranks, low-pass filtered memory (summable). */
    public static final CompressorType SCALECOM = new CompressorType("scalecom");
    /** S2 Reducer's sparse sketch: count-sketch + group bitmap, summable (rides the ring allreduce). */
    public static final CompressorType S2 = new CompressorType("s2");
    /** Random-k: values at indices every rank draws from the run's seed, summable, no index on the wire. */
    public static final CompressorType RANDOMK = new CompressorType("randomk");
    /** LGC: top-k on a shared leader's support, then the LEARNED blocks through the autoencoder (seeds/003). */
    public static final CompressorType LGC = new CompressorType("lgc");

    private final String name;

    private CompressorType(String name) {
        this.name = name;
    }

    /**
     * The registered compressor {@code spelling} names.
     *
     * @throws IllegalArgumentException when none is registered under that name; the message lists those that are
     */
    public static CompressorType of(String spelling) {
        Objects.requireNonNull(spelling, "spelling");
        return new CompressorType(Methods.installed().compressor(spelling).type());
    }

    /** The registered compressor {@code spelling} names, or empty. */
    public static Optional<CompressorType> find(String spelling) {
        if (spelling == null) {
            return Optional.empty();
        }
        try {
            return Optional.of(of(spelling));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    /** @return the registered compressor types, sorted (the order error messages use) */
    public static List<String> names() {
        return Methods.installed().compressorTypes();
    }

    /** @return the YAML spelling, e.g. {@code scalecom} */
    @JsonValue
    @Override
    public String toString() {
        return name;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CompressorType other && other.name.equals(name);
    }

    @Override
    public int hashCode() {
        return name.hashCode();
    }
}
