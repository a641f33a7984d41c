package io.lgc4j.cli;

import io.lgc4j.cli.tables.TimeToAccuracySettings.Peer;
import io.lgc4j.runner.config.ConfigLoader;
import io.lgc4j.runner.config.ExperimentConfig;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PeerRunnerTest {
    private static final ExperimentConfig CONFIG = ConfigLoader.parse("""
            run: {name: peer, seed: 7}
            model: {name: small-cnn, updater: {type: nesterovs, learningRate: 0.05, momentum: 0.9}}
            data: {trainLimit: 12800}
            training: {workers: 4, batchSizePerWorker: 32, epochs: 1, evalEverySteps: 5}
            stages: {fullIterations: 50}
            """, "peer.yaml");

    private static List<String> tail(Peer peer) {
        List<String> o = PeerRunner.options(peer, CONFIG);
        return o.subList(o.indexOf("--data") + 2, o.size());
    }

    /** The peer's PowerSGD starts where the suite says (step 2 by default), not at LGC4J's fullIterations. */
    @Test
    void powerSgdStartsAtThePeersOwnStepAndLocalSgdAveragesEveryPeriod() {
        assertEquals(List.of("--rank", "2", "--start-iter", "2"),
                tail(new Peer("p", "p", "powersgd", 2, Peer.EARLIEST_POWERSGD_START, 4)));
        assertEquals(List.of("--start-iter", "0", "--period", "8"), tail(new Peer("l", "l", "localsgd", 1, 0, 8)));
        assertEquals(List.of(), tail(new Peer("d", "d", "fp16", 1, 2, 4)));
        List<String> o = PeerRunner.options(new Peer("d", "d", "dense", 1, 2, 4), CONFIG);
        assertEquals("100", o.get(o.indexOf("--steps") + 1));       // 12,800 / (4 × 32)
        assertEquals("5", o.get(o.indexOf("--eval-every") + 1));
        assertEquals("7", o.get(o.indexOf("--seed") + 1));
    }

    /** A finished peer run is the same run wherever its output went; any other option makes it another. */
    @Test
    void aRunIsReusedFromAnotherOutputDirectoryButNotWithOtherOptions() {
        String recorded = "/usr/bin/python3 /p/ddp_peer.py --method powersgd --steps 90 --seed 42 --out"
                + " /a/reference/peers/ddp-powersgd-s42/evals.jsonl\nK=4 link loopback, no namespaces no CPU cap\n";
        assertTrue(PeerRunner.sameRun(recorded, recorded.replace("/a/", "/b/")));
        assertFalse(PeerRunner.sameRun(recorded, recorded.replace("--seed 42", "--seed 1")));
        assertFalse(PeerRunner.sameRun(recorded, recorded.replace("no CPU cap", "cores 0.4")));
    }
}
