package io.lgc4j.net;

import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.function.IntFunction;

import static org.junit.jupiter.api.Assertions.*;

class NetSettingsTest {
    private static final InetSocketAddress MASTER = new InetSocketAddress("127.0.0.1", 7070);
    private static final byte[] TOKEN = NetFixtures.TOKEN;

    private static NetSettings of(int endpoint, int endpoints, int attempt, InetSocketAddress master, String bindHost,
                                  int bindPort, String advertise, byte[] token, Duration receive, Duration heartbeat,
                                  Duration idle, IntFunction<String> names) {
        return new NetSettings(endpoint, endpoints, 9, attempt, master, bindHost, bindPort, advertise, token,
                Duration.ofSeconds(10), receive, Duration.ofSeconds(60), heartbeat, idle, names, null, NetSettings.Plan.NONE);
    }

    private static NetSettings good() {
        return NetSettings.defaults(1, 3, 9, MASTER, TOKEN);
    }

    private static void rejects(String message, Runnable build) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, build::run);
        assertEquals(message, e.getMessage());
    }

    @Test
    void shouldRejectEachBadValueNamingTheFieldTheValueAndWhatWasExpected() {
        NetSettings g = good();
        Duration s1 = Duration.ofSeconds(1);
        Duration s5 = Duration.ofSeconds(5);
        rejects("endpoints: expected 1..65536, found 0",
                () -> of(0, 0, 0, MASTER, "0.0.0.0", 0, null, TOKEN, s5, s1, s5, g.names()));
        rejects("endpoint: expected 0..2 (endpoints=3), found 3",
                () -> of(3, 3, 0, MASTER, "0.0.0.0", 0, null, TOKEN, s5, s1, s5, g.names()));
        rejects("attempt: expected at least 0, found -1",
                () -> of(1, 3, -1, MASTER, "0.0.0.0", 0, null, TOKEN, s5, s1, s5, g.names()));
        rejects("master: expected endpoint 0's host and a port in 1..65535 (everyone dials it), found 127.0.0.1:0",
                () -> of(1, 3, 0, new InetSocketAddress("127.0.0.1", 0), "0.0.0.0", 0, null, TOKEN, s5, s1, s5,
                        g.names()));
        rejects("master: expected endpoint 0's host and a port in 1..65535 (everyone dials it; when it is not known"
                + " yet, TcpCluster.listen first and join(master) once it is), found null",
                () -> TcpCluster.join(of(1, 3, 0, null, "0.0.0.0", 0, null, TOKEN, s5, s1, s5, g.names())));
        rejects("bindHost: expected a host name or address (\"0.0.0.0\" for every interface), found \" \"",
                () -> of(1, 3, 0, MASTER, " ", 0, null, TOKEN, s5, s1, s5, g.names()));
        rejects("bindPort: expected 0..65535 (0 for any free port), found 70000",
                () -> of(1, 3, 0, MASTER, "0.0.0.0", 70000, null, TOKEN, s5, s1, s5, g.names()));
        rejects("bindPort: expected 0 or master's port 7070 (endpoint 0 listens on master's port), found 5000",
                () -> of(0, 3, 0, MASTER, "0.0.0.0", 5000, null, TOKEN, s5, s1, s5, g.names()));
        rejects("advertiseHost: expected null or a host name of 1..255 UTF-8 bytes, found \"\"",
                () -> of(1, 3, 0, MASTER, "0.0.0.0", 0, "", TOKEN, s5, s1, s5, g.names()));
        rejects("token: expected at least 16 bytes, found 8 bytes",
                () -> of(1, 3, 0, MASTER, "0.0.0.0", 0, null, new byte[8], s5, s1, s5, g.names()));
        rejects("token: expected at least 16 bytes, found null",
                () -> of(1, 3, 0, MASTER, "0.0.0.0", 0, null, null, s5, s1, s5, g.names()));
        rejects("receiveTimeout: expected a duration of at least 1 ms, found 0 ms",
                () -> of(1, 3, 0, MASTER, "0.0.0.0", 0, null, TOKEN, Duration.ZERO, s1, s5, g.names()));
        rejects("receiveTimeout: expected a duration of at least 1 ms, found null",
                () -> of(1, 3, 0, MASTER, "0.0.0.0", 0, null, TOKEN, null, s1, s5, g.names()));
        rejects("heartbeatInterval: expected shorter than idleTimeout=5000 ms (a live peer must be heard from before"
                        + " it is declared lost), found 5000 ms",
                () -> of(1, 3, 0, MASTER, "0.0.0.0", 0, null, TOKEN, s5, s5, s5, g.names()));
        rejects("names: expected a function naming endpoints, found null",
                () -> of(1, 3, 0, MASTER, "0.0.0.0", 0, null, TOKEN, s5, s1, s5, null));
    }

    @Test
    void shouldKeepItsOwnCopyOfTheTokenAndNeverShowIt() {
        byte[] token = TOKEN.clone();
        NetSettings s = NetSettings.defaults(0, 2, 9, MASTER, token);
        token[0] = 'X';
        assertArrayEquals(TOKEN, s.token());
        s.token()[1] = 'Y';
        assertArrayEquals(TOKEN, s.token());
        assertFalse(s.toString().contains(new String(TOKEN, java.nio.charset.StandardCharsets.US_ASCII)));
        assertTrue(s.toString().contains("token=<32 bytes>"), s.toString());
    }

    @Test
    void shouldGiveTheDocumentedDefaults() {
        NetSettings s = good();
        assertEquals("0.0.0.0", s.bindHost());
        assertEquals(0, s.bindPort());
        assertNull(s.advertiseHost());
        assertEquals(0, s.attempt());
        assertEquals(Duration.ofSeconds(1), s.heartbeatInterval());
        assertEquals(Duration.ofSeconds(15), s.idleTimeout());
        assertEquals("endpoint 2", s.name(2));
        assertEquals(Duration.ofSeconds(3), s.withTimeouts(Duration.ofSeconds(1), Duration.ofSeconds(2),
                Duration.ofSeconds(3), Duration.ofMillis(4), Duration.ofMillis(5)).firstReceiveTimeout());
    }
}
