package io.lgc4j.ring.lgc;

import io.lgc4j.autoencoders.AeTraining;
import io.lgc4j.autoencoders.LgcControl;
import io.lgc4j.core.codec.IndexCodecs;
import io.lgc4j.core.train.Topology;

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
}
