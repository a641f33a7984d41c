package io.lgc4j.lgc.ring;

import io.lgc4j.lgc.autoencoder.AeTraining;
import io.lgc4j.lgc.LgcControl;
import io.lgc4j.core.codec.IndexCodecs;
import io.lgc4j.core.layout.GradientLayout;
import io.lgc4j.core.stage.StageSchedule;
import io.lgc4j.core.train.Topology;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * LGC-RAR with the linear code ({@code autoencoder.linearLatent}) runs the same topology contract as with the
 * autoencoder: replicas of K = 1 to 4 ranks stay bit-identical through FULL, TOP_K (rank 0 accumulates the code's
 * second moment, its loss noted every step) and COMPRESSED (rank 0 fits and ships the basis at the switch; every
 * rank encodes, the codes ride the allreduce, every rank decodes the mean code).
 */
class LinearLgcRingTopologyContractTest extends LgcRingTopologyContractTest {

    @Override
    protected Topology topology() {
        return new LgcRingTopology(0.05, IndexCodecs.defaultCodec(), SMALL, AeTraining.DEFAULT, 42,
                new LgcControl(1e9, 2, 3, 4, true, true, 0.1)).withLinearCode(6);
    }

    /** A code longer than the vector it codes is refused when the trainer is built, naming both lengths. */
    @Test
    void shouldRefuseACodeLongerThanTheCompactVector() {
        GradientLayout layout = meanLayout(1003); // a LEARNED block of 500 at ratio 0.05: μ = 25
        LgcRingTopology tooLong = new LgcRingTopology(0.05, IndexCodecs.defaultCodec(), SMALL, AeTraining.DEFAULT, 42)
                .withLinearCode(26);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> tooLong.check(layout, new StageSchedule(4, 8), true));
        assertEquals("autoencoder.linearLatent is 26 floats, more than the compact vector it codes: μ = 25 values (the"
                + " LEARNED blocks at ratio 0.05); choose 1 to 25", e.getMessage());
        new LgcRingTopology(0.05, IndexCodecs.defaultCodec(), SMALL, AeTraining.DEFAULT, 42).withLinearCode(25)
                .check(layout, new StageSchedule(4, 8), true);
        assertEquals("linearLatent must be 0 (the convolutional autoencoder) or a positive number of floats, got -1",
                assertThrows(IllegalArgumentException.class, () -> tooLong.withLinearCode(-1)).getMessage());
    }
}
