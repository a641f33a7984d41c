package io.lgc4j.net;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static io.lgc4j.net.NetFixtures.*;
import static org.junit.jupiter.api.Assertions.*;

/** What {@code lgc keys} writes is enough for a mutual-TLS job, and keeps its private keys private. */
class JobCertificatesTest {
    @TempDir
    Path dir;

    @Test
    @Timeout(90)
    void certificatesItMakesShouldCarryAMutualTlsJob() throws Exception {
        List<Path> written = JobCertificates.create(dir, List.of("localhost", "127.0.0.1"), Duration.ofDays(1));
        assertEquals(List.of("ca.crt", "ca.key", "localhost.crt", "localhost.key", "127.0.0.1.crt", "127.0.0.1.key"),
                written.stream().map(p -> p.getFileName().toString()).toList());
        for (String key : List.of("ca.key", "localhost.key", "127.0.0.1.key")) {
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve(key))));
        }
        InetSocketAddress master = freeMaster();
        List<NetSettings> all = new ArrayList<>();
        for (int e = 0; e < 2; e++) {
            all.add(builder(e, 2, master).tls(JobCertificates.tls(dir, e == 0 ? "localhost" : "127.0.0.1")).build());
        }
        List<TcpCluster> clusters = joinAll(all, new RecordingLog());
        try {
            clusters.get(1).transport().send(0, frame(1000, 5, 1));
            assertTrue(hasPattern(clusters.get(0).transport().receive(1).payload(), 1000, 5));
        } finally {
            closeAll(clusters);
        }
    }

    @Test
    void aSecondCallShouldKeepTheCaAndAddHosts() throws Exception {
        JobCertificates.create(dir, List.of("node1"), Duration.ofDays(1));
        String ca = Files.readString(dir.resolve("ca.crt"));
        List<Path> written = JobCertificates.create(dir, List.of("node2"), Duration.ofDays(1));
        assertEquals(ca, Files.readString(dir.resolve("ca.crt")));
        assertEquals(List.of(dir.resolve("node2.crt"), dir.resolve("node2.key")), written);
        assertTrue(Files.readString(dir.resolve("node2.crt")).endsWith(ca), "node2.crt ends with the CA");
    }

    @Test
    void shouldRejectBadHosts() {
        assertEquals("hosts: expected at least one host name or address, found none",
                assertThrows(IllegalArgumentException.class,
                        () -> JobCertificates.create(dir, List.of(), Duration.ofDays(1))).getMessage());
        assertEquals("host \"../x\": expected a host name or address (letters, digits, '.', ':', '_', '-')",
                assertThrows(IllegalArgumentException.class,
                        () -> JobCertificates.create(dir, List.of("../x"), Duration.ofDays(1))).getMessage());
    }
}
