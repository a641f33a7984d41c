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
        return NetSettings.builder().endpoint(endpoint).endpoints(endpoints).job(9).attempt(attempt).master(master)
                .bindHost(bindHost).bindPort(bindPort).advertiseHost(advertise).token(token)
                .rendezvousTimeout(Duration.ofSeconds(10)).receiveTimeout(receive)
                .firstReceiveTimeout(Duration.ofSeconds(60)).heartbeatInterval(heartbeat).idleTimeout(idle)
                .names(names).build();
    }

    private static NetSettings good() {
        return NetSettings.builder().endpoint(1).endpoints(3).job(9).master(MASTER).token(TOKEN).build();
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
        NetSettings.Builder builder = NetSettings.builder().endpoint(0).endpoints(2).job(9).master(MASTER).token(token);
        token[0] = 'X';
        NetSettings s = builder.build();
        assertArrayEquals(TOKEN, s.token());
        s.token()[1] = 'Y';
        assertArrayEquals(TOKEN, s.token());
        assertFalse(s.toString().contains(new String(TOKEN, java.nio.charset.StandardCharsets.US_ASCII)));
        assertTrue(s.toString().contains("token=<32 bytes>"), s.toString());
    }

    @Test
    void shouldGiveTheDocumentedDefaults() {
        NetSettings s = good();
        assertEquals("0.0.0.0", s.addressing().bindHost());
        assertEquals(0, s.addressing().bindPort());
        assertNull(s.addressing().advertiseHost());
        assertEquals(0, s.identity().attempt());
        assertEquals(Duration.ofSeconds(1), s.deadlines().heartbeatInterval());
        assertEquals(Duration.ofSeconds(15), s.deadlines().idleTimeout());
        assertEquals("endpoint 2", s.name(2));
        assertEquals(Duration.ofSeconds(120), s.deadlines().rendezvousTimeout());
        assertEquals(Duration.ofSeconds(120), s.deadlines().receiveTimeout());
        assertEquals(Duration.ofMinutes(10), s.deadlines().firstReceiveTimeout());
        assertNull(s.tls());
        assertEquals(NetSettings.Plan.NONE, s.plan());
        assertNull(NetSettings.builder().endpoint(1).endpoints(3).job(9).token(TOKEN).build().addressing().master());
    }

    @Test
    void shouldBuildWhatThePositionalConstructorBuildsForTheSameValues() {
        IntFunction<String> names = e -> "rank " + e;
        NetSettings.Plan plan = new NetSettings.Plan(0x1234L, "fusion plan");
        NetSettings positional = new NetSettings(new NetSettings.Identity(2, 5, 0xCAFE, 3),
                new NetSettings.Addressing(MASTER, "127.0.0.1", 7072, "node-2"), TOKEN,
                new NetSettings.Deadlines(Duration.ofSeconds(11), Duration.ofSeconds(12), Duration.ofSeconds(13),
                        Duration.ofMillis(14), Duration.ofSeconds(15)), names, null, plan);
        NetSettings built = NetSettings.builder()
                .endpoint(2).endpoints(5).job(0xCAFE).attempt(3).master(MASTER)
                .bindHost("127.0.0.1").bindPort(7072).advertiseHost("node-2").token(TOKEN)
                .rendezvousTimeout(Duration.ofSeconds(11)).receiveTimeout(Duration.ofSeconds(12))
                .firstReceiveTimeout(Duration.ofSeconds(13)).heartbeatInterval(Duration.ofMillis(14))
                .idleTimeout(Duration.ofSeconds(15)).names(names).tls(null).plan(plan)
                .build();
        assertEquals(positional, built);
        assertEquals(positional.hashCode(), built.hashCode());
        assertEquals(positional.toString(), built.toString());
        assertEquals(positional, positional.toBuilder().build());
        assertNotEquals(positional, positional.toBuilder().attempt(4).build());
        assertNotEquals(positional, positional.toBuilder().token(new byte[32]).build());
    }

    @Test
    void shouldFillTheDocumentedDefaultsTheWayTheOldDefaultsFactoryDid() {
        NetSettings s = good();
        assertEquals(new NetSettings(new NetSettings.Identity(1, 3, 9, 0),
                new NetSettings.Addressing(MASTER, "0.0.0.0", 0, null), TOKEN,
                new NetSettings.Deadlines(Duration.ofSeconds(120), Duration.ofSeconds(120), Duration.ofMinutes(10),
                        Duration.ofSeconds(1), Duration.ofSeconds(15)), s.names(), null, NetSettings.Plan.NONE), s);
    }

    @Test
    void shouldNameASettingThatHasNoDefaultWhenItIsNotGiven() {
        rejects("endpoint: expected a value (it has no default), found nothing",
                () -> NetSettings.builder().endpoints(3).job(9).token(TOKEN).build());
        rejects("endpoints: expected a value (it has no default), found nothing",
                () -> NetSettings.builder().endpoint(1).job(9).token(TOKEN).build());
        rejects("job: expected a value (it has no default), found nothing",
                () -> NetSettings.builder().endpoint(1).endpoints(3).token(TOKEN).build());
        rejects("token: expected at least 16 bytes, found null",
                () -> NetSettings.builder().endpoint(1).endpoints(3).job(9).build());
    }

    @Test
    void shouldLeaveTheSettingsItBuiltAloneWhenChangedAfterwards() {
        NetSettings.Builder builder = NetSettings.builder().endpoint(1).endpoints(3).job(9).token(TOKEN);
        NetSettings first = builder.build();
        builder.attempt(1).receiveTimeout(Duration.ofSeconds(7));
        assertEquals(0, first.identity().attempt());
        assertEquals(Duration.ofSeconds(120), first.deadlines().receiveTimeout());
        assertEquals(1, builder.build().identity().attempt());
        assertEquals(Integer.MIN_VALUE, NetSettings.builder().endpoint(1).endpoints(3).job(Integer.MIN_VALUE)
                .token(TOKEN).build().identity().job(), "every int is a job id");
    }
}
