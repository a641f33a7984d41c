package io.lgc4j.cli;

import io.lgc4j.cli.tables.Suite;
import io.lgc4j.cli.tables.SuiteKind;
import io.lgc4j.cli.tables.SuiteLoader;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

class SeededPeersTest {
    private static final String SUITE = """
            suite: time-to-accuracy
            title: test
            models: [small-cnn]
            seeds: [42, 1]
            base:
              training: {workers: 2, epochs: 1, evalEverySteps: 2}
            methods:
              - {id: dense-ring, label: Dense ring, config: {compressor: {type: none}}}
              - {id: topk, label: Top-k, config: {compressor: {type: topk}}}
            network: {rates: [10mbit], cpuPerProcess: 0.5, targetAccuracy: 0.8}
            peers: [{id: ddp-psgd, label: PowerSGD, method: powersgd, rank: 2}, {id: ddp-fp16, method: fp16}]
            """;

    /** Each peer trains once per seed of the plan, as each method does, with that seed's schedule. */
    @Test
    void everyPeerRunsOncePerSeedWithThatSeedsSchedule() {
        Suite suite = SuiteLoader.parse(SUITE, Path.of("suite.yaml"), SuiteKind.TIME_TO_ACCURACY);
        List<TimeToAccuracyCommand.SeededPeer> seeded = TimeToAccuracyCommand.seededPeers(
                suite.timeToAccuracy().peers(), suite.plan(Suite.Profile.FULL));
        assertEquals(List.of("ddp-psgd-s42", "ddp-fp16-s42", "ddp-psgd-s1", "ddp-fp16-s1"),
                seeded.stream().map(p -> p.peer().id()).toList());
        assertEquals(List.of(42L, 42L, 1L, 1L), seeded.stream().map(p -> p.config().run().seed()).toList());
        assertEquals("PowerSGD", seeded.get(2).peer().label(), "one label: the table's rows are the seeds' repeats");
        assertEquals(2, seeded.get(2).peer().rank());
        List<TimeToAccuracyCommand.SeededPeer> one = TimeToAccuracyCommand.seededPeers(
                suite.timeToAccuracy().peers(), suite.plan(Suite.Profile.FULL).subList(0, 1));
        assertEquals(List.of("ddp-psgd", "ddp-fp16"), one.stream().map(p -> p.peer().id()).toList(),
                "one seed: the ids the suite gives");
    }
}
