package io.lgc4j.ring.topology;

import io.lgc4j.core.codec.IndexCodecs;
import io.lgc4j.core.compress.Compressor;
import io.lgc4j.core.compress.DgcCompressor;
import io.lgc4j.core.compress.ScaleComCompressor;
import io.lgc4j.core.train.CompressedTopologyContract;
import io.lgc4j.core.train.Topology;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The ring runs the compressed-topology contract, and refuses gather-only payloads when told to. */
class CompressedRingTest extends CompressedTopologyContract {
    @Override
    protected Topology topology(Compressor compressor) {
        return new RingTopology(compressor);
    }

    @Override
    protected Topology denseTopology() {
        return new RingTopology();
    }

    @Test
    void shouldRefuseAGatherOnlyCompressorWhenAllGatherIsRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new RingTopology(
                new DgcCompressor(0.001, 0.9, 0, 0), IndexCodecs.defaultCodec(), RingTopology.GatherPolicy.REFUSE));
        assertEquals("the ring cannot carry compressor 'dgc': its payloads are not summable (each rank picks its own"
                + " support), and this ring refuses all-gather; use a summable compressor (scalecom),"
                + " GatherPolicy.ALL_GATHER, or the parameter server", e.getMessage());
        new RingTopology(new ScaleComCompressor(0.001, 1.0), IndexCodecs.defaultCodec(),
                RingTopology.GatherPolicy.REFUSE);
    }
}
