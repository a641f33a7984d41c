package io.lgc4j.runner.config;

import io.lgc4j.core.link.Shortcuts;
import io.lgc4j.lgc.ps.LgcPsTopology;
import io.lgc4j.ps.topology.Shards;
import io.lgc4j.ring.topology.LocalSgdTopology;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The topology section holds the keys the providers declare, in their declared order. */
class TopologyConfigTest {

    private record Undeclared(int x) {
    }

    @Test
    void shouldHoldEveryDeclaredRecordInRankOrderEachAtItsDefaultsWhenLeftOut() {
        TopologyConfig ps = new TopologyConfig(TopologyType.PS, List.of(new Shards(2, 1024, Shards.DEFAULT.shardBy())));
        assertEquals(List.of(LgcPsTopology.Support.DEFAULT, new Shards(2, 1024, Shards.DEFAULT.shardBy()),
                Shortcuts.DEFAULT, LocalSgdTopology.Settings.DEFAULT), ps.keys());
        assertEquals(2, ps.keys(Shards.class).servers());
        assertEquals(Shortcuts.DEFAULT, ps.shortcuts());
        assertEquals(new TopologyConfig(TopologyType.RING), TopologyConfig.defaults());
    }

    @Test
    void shouldSetOneKeyAsAFileWould() {
        assertEquals(4, TopologyConfig.defaults().with("servers", 4).keys(Shards.class).servers());
        assertEquals("key 'topology.servers' must be >= 1, found 0",
                assertThrows(ConfigException.class, () -> TopologyConfig.defaults().with("servers", 0)).getMessage());
        assertEquals("unknown key 'topology.server'; allowed keys under 'topology': directBelowBytes,"
                + " fusionBufferBytes, localFrom, period, servers, shardBy, support, supportPath, type",
                assertThrows(ConfigException.class, () -> TopologyConfig.defaults().with("server", 4)).getMessage());
    }

    @Test
    void shouldRefuseTypeOnlyKeysWithAnotherTypeAndUndeclaredRecords() {
        assertEquals("key 'topology.period' applies to topology.type local-sgd only, found 8 with topology.type ring;"
                + " remove it or change the type", assertThrows(ConfigException.class, () -> new TopologyConfig(
                TopologyType.RING, List.of(new LocalSgdTopology.Settings(8, 0)))).getMessage());
        assertThrows(IllegalArgumentException.class,
                () -> new TopologyConfig(TopologyType.RING, List.of(new Undeclared(1))));
        assertThrows(IllegalArgumentException.class, () -> TopologyConfig.defaults().keys(Undeclared.class));
    }
}
