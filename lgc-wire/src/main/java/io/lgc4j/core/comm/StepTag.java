package io.lgc4j.core.comm;

import io.lgc4j.core.stage.Stage;

import java.util.Objects;

/**
 * The step and stage stamped on every frame an exchange sends, and the encoding its float payloads travel in.
 * Encoders of values that may travel in half precision (dense values, values on a support, sparse values, ring
 * chunks, latents, innovation values) use {@link #values()}; those that always send float32 (the drift guard's
 * sample, the autoencoder's training samples) ignore it, and a sum that must stay float32 is given
 * {@link #withValues withValues(FP32)}.
 *
 * <pre>{@code
 * StepTag tag = new StepTag(step, Stage.TOP_K, ValueEncoding.FP16);
 * byte[] frame = new Values(values).encode(tag);   // an fp16 VALUES frame of that step and stage
 * }</pre>
 *
 * @param step   0-based global step
 * @param stage  the step's stage
 * @param values the encoding of the step's values (the run's {@code compressor.values})
 */
public record StepTag(int step, Stage stage, ValueEncoding values) {

    /** Rejects a null encoding. */
    public StepTag {
        Objects.requireNonNull(values, "values");
    }

    /** A step whose values travel in float32. */
    public StepTag(int step, Stage stage) {
        this(step, stage, ValueEncoding.FP32);
    }

    /** The same step and stage, its values in {@code encoding}. */
    public StepTag withValues(ValueEncoding encoding) {
        return encoding == values ? this : new StepTag(step, stage, encoding);
    }
}
