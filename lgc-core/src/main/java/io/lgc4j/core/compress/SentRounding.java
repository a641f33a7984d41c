package io.lgc4j.core.compress;

import io.lgc4j.core.comm.ValueEncoding;
import io.lgc4j.core.sparse.SparseVector;

import java.util.List;

/**
 * Rounds what a rank sends to what its receivers decode, and keeps the difference in the rank's memory: the error
 * feedback of a half-precision value encoding. The values are rounded as one frame (fp16: one scale for all of
 * them), the frame they travel in; a frame holding only a part of them (a ring chunk) carries them unchanged, since
 * a value rounded at one fp16 scale is exact at every finer one ({@link ValueEncoding}).
 */
final class SentRounding {

    private SentRounding() {
    }

    /**
     * Rounds the values of {@code sent} (one vector per block of {@code region}, in block order: one frame) in place,
     * and sets {@code memory} at every sent position to the value minus its rounding, so that memory = compensated
     * − decoded there (the caller has zeroed those positions: memory = compensated − sent). Nothing for fp32.
     */
    static void round(ValueEncoding encoding, List<SparseVector> sent, Region region, float[] memory) {
        if (encoding == ValueEncoding.FP32) {
            return;
        }
        float max = 0f;
        for (SparseVector v : sent) {
            max = Math.max(max, ValueEncoding.maxAbs(v.values(), 0, v.nnz()));
        }
        int exponent = encoding.exponentFor(max);
        for (int b = 0; b < sent.size(); b++) {
            int start = region.start(b);
            int[] indices = sent.get(b).indices();
            float[] values = sent.get(b).values();
            for (int j = 0; j < values.length; j++) {
                float decoded = encoding.round(values[j], exponent);
                memory[start + indices[j]] = values[j] - decoded; // exact: decoded is within 2× of the value, or 0
                values[j] = decoded;
            }
        }
    }
}
