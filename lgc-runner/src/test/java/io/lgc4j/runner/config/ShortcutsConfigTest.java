package io.lgc4j.runner.config;

import io.lgc4j.core.link.Shortcuts;
import io.lgc4j.lgc.ps.LgcPsTopology;
import io.lgc4j.lgc.ring.LgcRingTopology;
import io.lgc4j.ps.topology.ParameterServerTopology;
import io.lgc4j.ring.topology.RingTopology;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * {@code topology.supportPath} and {@code topology.directBelowBytes}: the defaults take no shortcut, the built
 * topologies carry what the file says, and a shortcut a method cannot take is refused naming the key and why.
 */
class ShortcutsConfigTest {

    private static final String RUN = "run:\n  name: q\n";

    private static ExperimentConfig parse(String yaml) {
        return ConfigLoader.parse(yaml, "x.yaml");
    }

    private static String error(String yaml) {
        return assertThrows(ConfigException.class, () -> parse(yaml)).getMessage(); // the file's check builds it
    }

    @Test
    void shouldDefaultToNoShortcut() {
        assertEquals(Shortcuts.DEFAULT, parse(RUN).topology().shortcuts());
        RingTopology ring = assertInstanceOf(RingTopology.class, parse(RUN
                + "compressor: {type: scalecom}\n").method().newTopology());
        assertEquals(Shortcuts.DEFAULT, ring.shortcuts());
    }

    @Test
    void shouldBuildTheTopologiesWithTheirShortcuts() {
        RingTopology ring = assertInstanceOf(RingTopology.class, parse(RUN
                + "topology: {type: ring, supportPath: direct, directBelowBytes: 8192}\ncompressor: {type: scalecom}\n")
                .method().newTopology());
        assertEquals(new Shortcuts(Shortcuts.SupportPath.DIRECT, 8192), ring.shortcuts());
        ParameterServerTopology ps = assertInstanceOf(ParameterServerTopology.class, parse(RUN
                + "topology: {type: ps, supportPath: direct}\ncompressor: {type: scalecom}\n").method().newTopology());
        assertEquals(new Shortcuts(Shortcuts.SupportPath.DIRECT, 0), ps.shortcuts());
        // a dense ring takes the small-allreduce route (a model of small tensors), and a ring's warm-up may carry the
        // support that goes direct
        assertInstanceOf(RingTopology.class, parse(RUN
                + "topology: {type: ring, directBelowBytes: 4096}\n").method().newTopology());
        assertInstanceOf(ParameterServerTopology.class, parse(RUN
                + "topology: {type: ps, supportPath: direct}\ncompressor: {type: topk}\nwarmup: {type: scalecom}\n")
                .method().newTopology());
        assertInstanceOf(LgcPsTopology.class, parse(RUN
                + "topology: {type: ps, supportPath: direct}\ncompressor: {type: lgc}\n").method().newTopology());
        assertInstanceOf(LgcRingTopology.class, parse(RUN
                + "topology: {type: ring, supportPath: direct, directBelowBytes: 4096}\ncompressor: {type: lgc}\n")
                .method().newTopology());
    }

    @Test
    void shouldRefuseAShortcutTheMethodCannotTake() {
        assertEquals("x.yaml: key 'topology.directBelowBytes' applies to topology.type ring (its allreduces), found 4096 with"
                + " topology.type ps; remove it",
                error(RUN + "topology: {type: ps, directBelowBytes: 4096}\ncompressor: {type: scalecom}\n"));
        assertEquals("x.yaml: key 'topology.directBelowBytes' applies to topology.type ring (its allreduces), found 1 with"
                + " topology.type ps; remove it",
                error(RUN + "topology: {type: ps, directBelowBytes: 1}\ncompressor: {type: lgc}\n"));
        assertEquals("x.yaml: key 'topology.supportPath' direct applies to a compressor whose step leader chooses the support"
                + " (scalecom, lgc), found topk, which sends no leader's support; remove it or use relay",
                error(RUN + "topology: {type: ring, supportPath: direct}\ncompressor: {type: topk}\n"));
        assertEquals("x.yaml: key 'topology.supportPath' direct applies to a compressor whose step leader chooses the support"
                + " (scalecom, lgc), found randomk, which sends no leader's support; remove it or use relay",
                error(RUN + "topology: {type: ps, supportPath: direct}\ncompressor: {type: randomk}\n"));
        assertEquals("x.yaml: key 'topology.supportPath' direct applies to a compressor whose step leader chooses the support"
                + " (scalecom, lgc), found none (dense), which sends no leader's support; remove it or use relay",
                error(RUN + "topology: {type: ring, supportPath: direct}\n"));
        assertEquals("x.yaml: key 'topology.supportPath' direct applies to topology.support leader (the leader's indices sent to"
                + " every worker), found own: every rank sends its own support to the server; remove it or use"
                + " support: leader",
                error(RUN + "topology: {type: ps, support: own, supportPath: direct}\ncompressor: {type: lgc}\n"));
    }
}
