package io.lgc4j.core.compress;

import io.lgc4j.core.checkpoint.CheckpointException;
import io.lgc4j.core.checkpoint.CheckpointPart;
import io.lgc4j.core.checkpoint.Persistent.Regrouping;
import io.lgc4j.core.comm.ValueEncoding;
import io.lgc4j.core.layout.ParamBlock;
import io.lgc4j.core.sparse.SparseVector;

import java.util.List;
import java.util.Objects;

/**
 * One rank's error-feedback memory m over a {@link Region}: the rank compensates its gradient (c = m + g), the entries
 * sent (in a half-precision run, as the receivers decode them) are taken out of c, and what stays behind is the next
 * step's memory. {@link #inPlace} uses m itself as c (m = c − sent); {@link #lowPass} filters at {@link #update()}:
 * m ← (1 − β)·m + β·(c − sent). Saved in one checkpoint section, {@code prefix + "/" + section}.
 *
 * <pre>{@code
 * memory.compensate(b, gradient);                                   // c = m + g on block b
 * SparseVector sent = memory.take(b, indices, count);               // c − sent stays behind
 * memory.round(List.of(sent));                                      // and so does the rounding
 * memory.update();                                                  // m from what stayed (low-pass only)
 * }</pre>
 */
final class ErrorFeedback {
    private final Region region;
    private final String section;
    private final float beta;
    private final float[] memory;
    /** The memory itself when compensating in place. */
    private final float[] compensated;
    private OfferTap tap;
    private ValueEncoding encoding = ValueEncoding.FP32;

    private ErrorFeedback(Region region, String section, float beta, boolean inPlace) {
        this.region = region;
        this.section = section;
        this.beta = beta;
        this.memory = new float[region.length()];
        this.compensated = inPlace ? memory : new float[region.length()];
    }

    /**
     * A memory that is compensated in place: after the take it holds c − sent.
     *
     * @param section the checkpoint section's name after the prefix ({@code "residual"}, say)
     */
    static ErrorFeedback inPlace(Region region, String section) {
        return new ErrorFeedback(region, section, 1f, true);
    }

    /**
     * A memory low-pass filtered with {@code beta}: c is a vector of its own, and {@link #update()} sets
     * m ← (1 − β)·m + β·(c − sent) (β = 1: m ← c − sent).
     *
     * @param beta    β in (0, 1], used as a float
     * @param section the checkpoint section's name after the prefix ({@code "memory"}, say)
     */
    static ErrorFeedback lowPass(Region region, String section, double beta) {
        return new ErrorFeedback(region, section, (float) beta, false);
    }

    /**
     * The compensated vector c, live, region coordinates: what the step selects from. Compensated in place it is the
     * memory itself, and a compressor that accumulates its own way (DGC) or writes what stays behind itself (PowerSGD)
     * does so here.
     */
    float[] compensated() {
        return compensated;
    }

    /** c = m + g on block {@code b} ({@code gradient} flat, read at the block's offset). */
    void compensate(int b, float[] gradient) {
        ParamBlock block = region.block(b);
        int start = region.start(b);
        for (int i = 0; i < block.length(); i++) {
            compensated[start + i] = memory[start + i] + gradient[block.offset() + i];
        }
    }

    /**
     * Shows the tap block {@code b}'s offer, then takes c at {@code indices[0, count)} (relative to the block) out:
     * they become 0, so c − sent stays behind.
     *
     * @return what is taken, as block {@code b}'s vector
     */
    SparseVector take(int b, int[] indices, int count) {
        int start = region.start(b);
        int end = start + region.block(b).length();
        if (tap != null) {
            tap.offered(region.block(b), compensated, start, indices, count);
        }
        SparseVector sent = SparseVector.gather(compensated, start, end, indices, count);
        for (int j = 0; j < count; j++) {
            compensated[start + indices[j]] = 0f;
        }
        return sent;
    }

    /**
     * As {@link #take(int, int[], int)} for all of {@code indices}, the values written to {@code into} from
     * {@code at}.
     *
     * @return where the next block's values go
     */
    int take(int b, int[] indices, float[] into, int at) {
        int start = region.start(b);
        if (tap != null) {
            tap.offered(region.block(b), compensated, start, indices, indices.length);
        }
        for (int index : indices) {
            into[at++] = compensated[start + index];
            compensated[start + index] = 0f;
        }
        return at;
    }

    /** The encoding the sent values travel in, from the next {@link #round} on. */
    void values(ValueEncoding encoding) {
        this.encoding = Objects.requireNonNull(encoding, "encoding");
    }

    /**
     * Rounds {@code sent} (one vector per block, in block order: one frame) in place to what the receivers decode,
     * and keeps the rounding: c = c − decoded at every sent position (the take left c − sent = 0 there). Nothing for
     * fp32. A frame holding only a part of the values (a ring chunk) carries them unchanged, since a value rounded at
     * one fp16 scale is exact at every finer one ({@link ValueEncoding}).
     */
    void round(List<SparseVector> sent) {
        if (encoding == ValueEncoding.FP32) {
            return;
        }
        float max = 0f;
        for (SparseVector v : sent) {
            max = Math.max(max, ValueEncoding.maxAbs(v.values(), 0, v.nnz()));
        }
        int exponent = encoding.exponentFor(max);
        for (int b = 0; b < sent.size(); b++) {
            roundBlock(b, sent.get(b).indices(), sent.get(b).values(), 0, exponent);
        }
    }

    /**
     * As {@link #round(List)} for values on {@code support}, concatenated over the blocks in block order (as
     * {@link #take(int, int[], float[], int)} wrote them).
     */
    void round(int[][] support, float[] sent) {
        if (encoding == ValueEncoding.FP32) {
            return;
        }
        int exponent = encoding.exponentOf(sent, 0, sent.length);
        int at = 0;
        for (int b = 0; b < support.length; b++) {
            at = roundBlock(b, support[b], sent, at, exponent);
        }
    }

    private int roundBlock(int b, int[] indices, float[] sent, int at, int exponent) {
        int start = region.start(b);
        for (int index : indices) {
            float decoded = encoding.round(sent[at], exponent);
            compensated[start + index] = sent[at] - decoded; // exact: decoded is within 2× of the value, or 0
            sent[at++] = decoded;
        }
        return at;
    }

    /**
     * Makes what stayed behind the memory: low-pass, m ← (1 − β)·m + β·c over the whole region (β = 1: m ← c);
     * compensated in place, nothing (it is there already).
     */
    void update() {
        if (compensated == memory) {
            return;
        }
        for (int i = 0; i < memory.length; i++) {
            memory[i] = beta == 1f ? compensated[i] : (1 - beta) * memory[i] + beta * compensated[i];
        }
    }

    /**
     * Takes back what a lossy stage after the take lost: m += β·amount at {@code support} ({@code amounts}
     * concatenated over the blocks in block order). {@link #update()} left (1 − β)·m on the support, as if all of
     * c had been applied; of what was not, the filter keeps β (with β &lt; 1 adding it whole would count the old
     * memory twice: the accumulators grow ~(2 − β)× per step).
     */
    void feedBack(int[][] support, float[] amounts) {
        int at = 0;
        for (int b = 0; b < support.length; b++) {
            int start = region.start(b);
            for (int index : support[b]) {
                memory[start + index] += beta * amounts[at++];
            }
        }
        if (at != amounts.length) {
            throw new IllegalArgumentException("expected " + at + " feedback amounts, got " + amounts.length);
        }
    }

    /**
     * Adds {@code residual} (region coordinates) into the memory, m ← m + r: what another compressor did not send
     * (a warm-up's memory at the switch to this one) is sent by this one's error feedback, as its own would be.
     * Compensated in place, c is m and takes it too; low-pass, the next {@link #compensate} reads it.
     *
     * @throws IllegalArgumentException when {@code residual} is not as long as the region
     */
    void absorb(float[] residual) {
        if (residual.length != memory.length) {
            throw new IllegalArgumentException("a residual of " + residual.length + " floats cannot be absorbed by a"
                    + " memory of " + memory.length);
        }
        for (int i = 0; i < memory.length; i++) {
            memory[i] += residual[i];
        }
    }

    /** Shows {@code tap} each later take ({@code null} removes it). */
    void tap(OfferTap tap) {
        this.tap = tap;
    }

    void save(CheckpointPart.Builder part, String prefix) {
        part.section(prefix + "/" + section).putFloats(memory);
    }

    /** The memory is one: {@link Regrouping.Rule#MEMORY}. */
    Regrouping regrouping(String prefix) {
        return Regrouping.of(prefix + "/" + section, Regrouping.Rule.MEMORY);
    }

    void restore(CheckpointPart part, String prefix) throws CheckpointException {
        part.floatsInto(prefix + "/" + section, memory);
    }

    /** A copy of the memory, region coordinates. */
    float[] residual() {
        return memory.clone();
    }
}
