package io.lgc4j.core.compress;

import io.lgc4j.core.codec.IndexCodecs;
import io.lgc4j.core.comm.ValueEncoding;
import io.lgc4j.core.settings.Require;

/**
 * The keys every {@code compressor} section has, whatever its type, defined once: default, range and refusal
 * wording. Settings records call its checks ({@link #requireRatio} and the like) and take {@link #DEFAULT}'s
 * defaults, so a key cannot mean two things; a configuration binds this record from the section and writes it back.
 *
 * <pre>{@code
 * compressor: {type: dgc, ratio: 0.001, momentum: 0.9, codec: deflate, values: fp32}
 * }</pre>
 *
 * @param ratio       fraction of each block sent per step, in (0, 1]
 * @param momentum    DGC's momentum correction factor, in [0, 1)
 * @param clipNorm    DGC's local clipping norm, {@code >= 0}; 0 = off
 * @param warmupSteps steps of DGC's exponential sparsity warm-up, {@code >= 0}
 * @param lowPass     the memory filter β of ScaleCom, random-k and LGC, in (0, 1]; 1 = plain error feedback
 * @param codec       the index codec's name ({@link IndexCodecs#names()})
 * @param values      the value encoding's name ({@link ValueEncoding#names()}): how every value travels
 * @param sketch      the S2 sketch's shape
 */
public record CompressorKeys(double ratio, double momentum, double clipNorm, int warmupSteps, double lowPass,
                             String codec, String values, S2SketchCompressor.Shape sketch) {

    /** Default of {@code ratio}: 0.1% (seeds/003, Section VI-A). */
    public static final double DEFAULT_RATIO = 0.001;
    /** Default of {@code momentum}. */
    public static final double DEFAULT_MOMENTUM = 0.9;
    /**
     * Default of {@code lowPass}: 0.1, measured (small CNN, K = 4, 0.1%, 3 epochs: 88.99% against 87.06% with plain
     * error feedback, β = 1; docs/results/sparsification).
     */
    public static final double DEFAULT_LOW_PASS = 0.1;
    /** Default of {@code codec}. */
    public static final String DEFAULT_CODEC = "deflate";
    /** Default of {@code values}: float32, the bytes LGC4J always sent. */
    public static final String DEFAULT_VALUES = "fp32";

    /** Every key at its default. */
    public static final CompressorKeys DEFAULT = new CompressorKeys(DEFAULT_RATIO, DEFAULT_MOMENTUM, 0.0, 0,
            DEFAULT_LOW_PASS, DEFAULT_CODEC, DEFAULT_VALUES, S2SketchCompressor.Shape.DEFAULT);

    /** Checks every key, in the order they are listed, naming the first that is wrong. */
    public CompressorKeys {
        Require.required("sketch", sketch);
        requireRatio(ratio);
        requireMomentum(momentum);
        requireClipNorm(clipNorm);
        requireWarmupSteps(warmupSteps);
        requireLowPass(lowPass);
        Require.oneOf("codec", codec, IndexCodecs.names());
        Require.oneOf("values", values, ValueEncoding.names());
    }

    /** @throws io.lgc4j.core.settings.SettingsException unless {@code ratio} is in (0, 1] */
    public static double requireRatio(double ratio) {
        return Require.fraction("ratio", ratio);
    }

    /** @throws io.lgc4j.core.settings.SettingsException unless {@code momentum} is in [0, 1) */
    public static double requireMomentum(double momentum) {
        return Require.inUnitInterval("momentum", momentum);
    }

    /** @throws io.lgc4j.core.settings.SettingsException unless {@code clipNorm} is finite and {@code >= 0} */
    public static double requireClipNorm(double clipNorm) {
        return Require.atLeast("clipNorm", clipNorm, 0.0);
    }

    /** @throws io.lgc4j.core.settings.SettingsException unless {@code warmupSteps >= 0} */
    public static int requireWarmupSteps(int warmupSteps) {
        return (int) Require.atLeast("warmupSteps", warmupSteps, 0);
    }

    /** @throws io.lgc4j.core.settings.SettingsException unless {@code lowPass} is in (0, 1] */
    public static double requireLowPass(double lowPass) {
        return Require.fraction("lowPass", lowPass);
    }

    /** @return the same keys with {@code values} set; refused as the constructor refuses a bad name */
    public CompressorKeys withValues(String newValues) {
        return new CompressorKeys(ratio, momentum, clipNorm, warmupSteps, lowPass, codec, newValues, sketch);
    }
}
