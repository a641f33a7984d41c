package io.lgc4j.experiments.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.lgc4j.core.codec.IndexCodecs;

/**
 * The {@code compressor} section: how the non-dense blocks (policy TOP_K and LEARNED) travel after the FULL stage.
 *
 * <pre>{@code
 * compressor:
 *   type: dgc          # none | topk | dgc | scalecom
 *   ratio: 0.001       # fraction of each block sent per step, (0, 1]
 *   momentum: 0.9      # dgc: momentum correction factor, [0, 1); the model updater must then be sgd
 *   clipNorm: 0        # dgc: local gradient clipping (L2 norm), 0 = off
 *   warmupSteps: 0     # dgc, topk: steps of exponential sparsity warm-up (DGC's schedule)
 *   lowPass: 0.1       # scalecom and lgc: memory filter beta, (0, 1]; 1 = plain error feedback
 *   codec: deflate     # index codec: see IndexCodecs (deflate, rice, ...)
 *   sketch: {rows: 5, columnsPerSelected: 4.0, groupSize: 8}   # s2: count-sketch shape and bitmap grouping
 * }</pre>
 *
 * @param type        the compressor
 * @param ratio       fraction of each block sent
 * @param momentum    DGC momentum factor
 * @param clipNorm    DGC local clipping norm, 0 = off
 * @param warmupSteps steps of DGC's exponential sparsity warm-up (dgc and topk)
 * @param lowPass     the memory filter of ScaleCom and LGC
 * @param codec       the index codec's name
 * @param sketch      S2 sketch shape
 */
@JsonPropertyOrder({"type", "ratio", "momentum", "clipNorm", "warmupSteps", "lowPass", "codec", "sketch"})
public record CompressorConfig(CompressorType type, double ratio, double momentum, double clipNorm, int warmupSteps,
                               double lowPass, String codec, SketchConfig sketch) {

    /** Default of {@code compressor.type}. */
    public static final CompressorType DEFAULT_TYPE = CompressorType.NONE;
    /** Default of {@code compressor.ratio}: 0.1% (seeds/003, Section VI-A). */
    public static final double DEFAULT_RATIO = 0.001;
    /** Default of {@code compressor.momentum}. */
    public static final double DEFAULT_MOMENTUM = 0.9;
    /**
     * Default of {@code compressor.lowPass}: 0.1, measured (small CNN, K = 4, 0.1%, 3 epochs: 88.99% against
     * 87.06% with plain error feedback, β = 1; docs/results/sparsification).
     */
    public static final double DEFAULT_LOW_PASS = 0.1;
    /** Default of {@code compressor.codec}. */
    public static final String DEFAULT_CODEC = "deflate";

    /**
     * Checks every component; the first bad one is reported by its key.
     *
     * @param type        the compressor
     * @param ratio       fraction of each block sent
     * @param momentum    DGC momentum factor
     * @param clipNorm    DGC local clipping norm, 0 = off
     * @param warmupSteps steps of DGC's exponential sparsity warm-up (dgc and topk)
     * @param lowPass     ScaleCom memory filter
     * @param codec       the index codec's name
     * @param sketch      S2 sketch shape
     * @throws ConfigException if a component is missing or out of range
     */
    public CompressorConfig {
        Checks.required("compressor.sketch", sketch);
        Checks.required("compressor.type", type);
        Checks.positive("compressor.ratio", ratio);
        Checks.atMostDouble("compressor.ratio", ratio, 1.0);
        Checks.inUnitInterval("compressor.momentum", momentum);
        Checks.atLeastDouble("compressor.clipNorm", clipNorm, 0.0);
        Checks.atLeast("compressor.warmupSteps", warmupSteps, 0);
        Checks.positive("compressor.lowPass", lowPass);
        Checks.atMostDouble("compressor.lowPass", lowPass, 1.0);
        Checks.notEmpty("compressor.codec", codec);
        if (!IndexCodecs.names().contains(codec)) {
            throw ConfigException.forKey("compressor.codec", "expects one of " + IndexCodecs.names() + ", found "
                    + Checks.quote(codec));
        }
    }

    /** @return the compressor section with every key at its default (no compression) */
    public static CompressorConfig defaults() {
        return new CompressorConfig(DEFAULT_TYPE, DEFAULT_RATIO, DEFAULT_MOMENTUM, 0.0, 0, DEFAULT_LOW_PASS,
                DEFAULT_CODEC, SketchConfig.defaults());
    }

    @JsonCreator
    private static CompressorConfig fromYaml(@JsonProperty("type") CompressorType type,
                                             @JsonProperty("ratio") Double ratio,
                                             @JsonProperty("momentum") Double momentum,
                                             @JsonProperty("clipNorm") Double clipNorm,
                                             @JsonProperty("warmupSteps") Integer warmupSteps,
                                             @JsonProperty("lowPass") Double lowPass,
                                             @JsonProperty("codec") String codec,
                                             @JsonProperty("sketch") SketchConfig sketch) {
        return new CompressorConfig(Checks.orDefault(type, DEFAULT_TYPE), Checks.orDefault(ratio, DEFAULT_RATIO),
                Checks.orDefault(momentum, DEFAULT_MOMENTUM), Checks.orDefault(clipNorm, 0.0),
                Checks.orDefault(warmupSteps, 0), Checks.orDefault(lowPass, DEFAULT_LOW_PASS),
                Checks.orDefault(codec, DEFAULT_CODEC), Checks.orDefault(sketch, SketchConfig.defaults()));
    }
}
