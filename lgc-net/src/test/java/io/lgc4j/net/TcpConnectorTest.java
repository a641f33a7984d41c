package io.lgc4j.net;

import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.function.IntFunction;

import static org.junit.jupiter.api.Assertions.*;

class TcpConnectorTest {
    private static final InetSocketAddress MASTER = new InetSocketAddress("127.0.0.1", 7070);
    private static final byte[] TOKEN = NetFixtures.TOKEN;

    private static TcpConnector.Builder good(int endpoint) {
        return TcpConnector.builder().endpoint(endpoint).job(9).master(MASTER).token(TOKEN);
    }

    private static void rejects(String message, TcpConnector.Builder builder) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, builder::build);
        assertEquals(message, e.getMessage());
    }

    @Test
    void shouldJoinWithWhatTheOldPositionalConstructorGaveForTheSameValues() {
        IntFunction<String> names = e -> "rank " + e;
        TcpConnector tcp = TcpConnector.builder()
                .endpoint(3).job(0xCAFE).attempt(2).master(MASTER)
                .bindHost("127.0.0.1").bindPort(0).advertiseHost("node-3").token(TOKEN)
                .rendezvousTimeout(Duration.ofSeconds(11)).receiveTimeout(Duration.ofSeconds(12))
                .firstReceiveTimeout(Duration.ofSeconds(13)).heartbeatInterval(Duration.ofMillis(14))
                .idleTimeout(Duration.ofSeconds(15)).tls(null)
                .build();
        // what TcpConnector(3, 0xCAFE, 2, MASTER, "127.0.0.1", 0, "node-3", TOKEN, 11 s, 12 s, 13 s, 14 ms, 15 s,
        // null).settings(5, names) built
        NetSettings positional = new NetSettings(new NetSettings.Identity(3, 5, 0xCAFE, 2),
                new NetSettings.Addressing(MASTER, "127.0.0.1", 0, "node-3"), TOKEN,
                new NetSettings.Deadlines(Duration.ofSeconds(11), Duration.ofSeconds(12), Duration.ofSeconds(13),
                        Duration.ofMillis(14), Duration.ofSeconds(15)), names, null, NetSettings.Plan.NONE);
        assertEquals(positional, tcp.settings(5, names));
        assertEquals(3, tcp.endpoint());
        assertEquals("TcpConnector[endpoint=3, job=51966, attempt=2, master=" + MASTER + "]", tcp.toString());
    }

    @Test
    void shouldTakeNetSettingsDefaults() {
        IntFunction<String> names = e -> "endpoint " + e;
        NetSettings expected = NetSettings.builder().endpoint(1).endpoints(4).job(9).master(MASTER).token(TOKEN)
                .names(names).build();
        assertEquals(expected, good(1).build().settings(4, names));
    }

    @Test
    void shouldNameEachBadSettingAtBuild() {
        rejects("endpoint: expected a value (it has no default), found nothing",
                TcpConnector.builder().job(9).master(MASTER).token(TOKEN));
        rejects("endpoint: expected 0..65535, found -1", good(-1));
        rejects("endpoint: expected 0..65535, found 65536", good(65536));
        rejects("job: expected a value (it has no default), found nothing",
                TcpConnector.builder().endpoint(1).master(MASTER).token(TOKEN));
        rejects("token: expected at least 16 bytes, found null", good(1).token(null));
        rejects("attempt: expected at least 0, found -1", good(1).attempt(-1));
        rejects("bindPort: expected 0 or master's port 7070 (endpoint 0 listens on master's port), found 5000",
                good(0).bindPort(5000));
        rejects("idleTimeout: expected a duration of at least 1 ms, found null", good(1).idleTimeout(null));
        rejects("heartbeatInterval: expected shorter than idleTimeout=5000 ms (a live peer must be heard from before"
                + " it is declared lost), found 5000 ms",
                good(1).heartbeatInterval(Duration.ofSeconds(5)).idleTimeout(Duration.ofSeconds(5)));
    }

    @Test
    void shouldCheckTheTrainersEndpointCountAtConnect() {
        TcpConnector tcp = good(3).build();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> tcp.settings(3, i -> "endpoint " + i));
        assertEquals("endpoint: expected 0..2 (endpoints=3), found 3", e.getMessage());
    }

    @Test
    void shouldKeepItsOwnTokenAndNeverShowIt() {
        byte[] token = TOKEN.clone();
        TcpConnector.Builder builder = good(1).token(token);
        token[0] = 'X';
        TcpConnector tcp = builder.build();
        assertArrayEquals(TOKEN, tcp.settings(2, e -> "endpoint " + e).token());
        assertFalse(tcp.toString().contains(new String(TOKEN, java.nio.charset.StandardCharsets.US_ASCII)));
    }
}
