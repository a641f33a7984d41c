package io.lgc4j.core.checkpoint;

import io.lgc4j.core.layout.GradientLayout;
import io.lgc4j.core.layout.ParamBlock;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Objects;

/**
 * Which model a checkpoint's parameters belong to: the parameter count and a fingerprint of the parameter layout.
 * Two models with the same count but other blocks (names, shapes, order) have different fingerprints, so a resume
 * refuses a checkpoint of another model before any state is read.
 * <pre>{@code
 * ModelIdentity model = ModelIdentity.of(GradientLayout.of(network));
 * // ModelIdentity[parameterCount=61706, fingerprint=sha256:3f1c…]
 * }</pre>
 *
 * @param parameterCount the length of the flattened parameter vector
 * @param fingerprint    a string that changes whenever the parameter layout does ({@link #of} hashes it)
 */
public record ModelIdentity(long parameterCount, String fingerprint) {

    /** Checks the count and the fingerprint. */
    public ModelIdentity {
        if (parameterCount < 0) {
            throw new IllegalArgumentException("parameterCount must be >= 0, found " + parameterCount);
        }
        Objects.requireNonNull(fingerprint, "fingerprint");
        if (fingerprint.isEmpty()) {
            throw new IllegalArgumentException("fingerprint must not be empty");
        }
    }

    /**
     * The identity of a layout: its length, and {@code sha256:} with the first 16 bytes (32 hex digits) of the
     * SHA-256 of one line per block, in layout order: {@code layer/param shape offset length}. The blocks' policies
     * are left out: they follow from the config, which the manifest compares key by key.
     */
    public static ModelIdentity of(GradientLayout layout) {
        StringBuilder text = new StringBuilder();
        for (ParamBlock b : layout.blocks()) {
            text.append(b.qualifiedName()).append(' ').append(Arrays.toString(b.shape())).append(' ')
                    .append(b.offset()).append(' ').append(b.length()).append('\n');
        }
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(text.toString()
                    .getBytes(StandardCharsets.UTF_8));
            return new ModelIdentity(layout.length(), "sha256:" + HexFormat.of().formatHex(digest, 0, 16));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform provides SHA-256", e);
        }
    }
}
