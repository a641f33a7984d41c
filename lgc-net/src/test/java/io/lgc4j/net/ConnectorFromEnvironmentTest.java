package io.lgc4j.net;

import io.lgc4j.core.runtime.LaunchEnvironment;
import io.lgc4j.core.train.ClusterRuntime;
import io.lgc4j.core.train.TrainingRuntime;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.zip.CRC32C;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A launched program finds lgc-net's connector through the ServiceLoader and joins as the environment says. */
class ConnectorFromEnvironmentTest {

    private static Map<String, String> launched(String rank) {
        return Map.of("LGC_RANK", rank, "LGC_WORLD_SIZE", "2", "LGC_MASTER_ADDR", "127.0.0.1",
                "LGC_MASTER_PORT", "29500", "LGC_JOB_ID", "launch-abc", "LGC_TOKEN", "0123456789abcdef0123");
    }

    @Test
    void shouldFindTheTcpConnectorAndJoinAsTheEnvironmentSays() {
        TrainingRuntime runtime = TrainingRuntime.fromEnvironment(LaunchEnvironment.read(launched("1")));
        TcpConnector tcp = assertInstanceOf(TcpConnector.class, assertInstanceOf(ClusterRuntime.class, runtime)
                .connector());
        assertEquals(1, tcp.endpoint());
        assertTrue(tcp.colocatesServices(), "LGC_SERVERS unset: the shards run inside the workers");
        assertEquals(JobId.of("launch-abc"), tcp.settings(2, e -> "rank " + e).identity().job());
        TcpConnector shard = tcp.forEndpoint(2);
        assertEquals(2, shard.endpoint());
        assertEquals(0, shard.settings(3, e -> "x").addressing().bindPort(),
                "a colocated shard listens on any free port");
        Map<String, String> external = new java.util.HashMap<>(launched("2"));
        external.put("LGC_SERVERS", "1");
        assertFalse(TcpConnector.builder().fromEnvironment(LaunchEnvironment.read(external)).build()
                .colocatesServices());
    }

    @Test
    void jobIdsShouldMapAsTheCliAlwaysMappedThem() {
        assertEquals(42, JobId.of("42"));
        assertEquals(-1, JobId.of("4294967295"));
        CRC32C crc = new CRC32C();
        crc.update("launch-abc".getBytes(StandardCharsets.UTF_8));
        assertEquals((int) crc.getValue(), JobId.of("launch-abc"));
    }

    @Test
    void shouldNameTheMissingToken() {
        Map<String, String> noToken = new java.util.HashMap<>(launched("1"));
        noToken.remove("LGC_TOKEN");
        assertEquals("no job token: set LGC_TOKEN_FILE (or --token-file) to a file readable by its owner only, or"
                + " LGC_TOKEN to the token; every process of the job needs the same token", assertThrows(
                IllegalArgumentException.class, () -> TcpConnector.builder()
                        .fromEnvironment(LaunchEnvironment.read(noToken))).getMessage());
    }
}
