package io.lgc4j.core.compress;

import io.lgc4j.core.layout.ParamBlock;

import java.util.List;

/**
 * One rank's compressor state, whichever kind the compressor is: exactly one component is non-null. Topologies
 * branch on it to pick the exchange the payload needs (gather, shared support, or sketch).
 *
 * @param gather a gather-only compressor's state, or null
 * @param shared a shared-support compressor's state, or null
 * @param sketch a sketch compressor's state, or null
 */
public record RankCompressor(GatherCompressor.State gather, SharedSupportCompressor.State shared,
                             SketchCompressor.State sketch) {

    /** Seeds sketch hashes; every rank uses the same, so no message is needed to agree on them. */
    public static final long SKETCH_SEED = 0x53325F534B455443L;

    /** A fresh state of {@code compressor} for one rank over {@code blocks}. */
    public static RankCompressor of(Compressor compressor, List<ParamBlock> blocks) {
        if (compressor instanceof GatherCompressor g) {
            return new RankCompressor(g.newRank(blocks), null, null);
        }
        if (compressor instanceof SharedSupportCompressor s) {
            return new RankCompressor(null, s.newRank(blocks), null);
        }
        return new RankCompressor(null, null, ((SketchCompressor) compressor).newRank(blocks, SKETCH_SEED));
    }
}
