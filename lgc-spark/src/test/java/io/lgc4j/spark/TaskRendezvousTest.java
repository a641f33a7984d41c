package io.lgc4j.spark;

import org.junit.jupiter.api.Test;

import io.lgc4j.net.NetSettings;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The allGathers' messages: every endpoint's address out, every task's CA certificate into a trust bundle, and every
 * disagreement named.
 */
class TaskRendezvousTest {

    private static void rejects(String message, String... messages) {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> TaskRendezvous.parse(messages, 7, 1, 3));
        assertEquals(message, e.getMessage());
    }

    @Test
    void shouldGiveEveryEndpointsAddressWhateverTaskOfferedIt() {
        List<InetSocketAddress> table = TaskRendezvous.parse(new String[] {
            "lgc-spark/1 job=7 attempt=1 resume=50 0@10.0.0.1:4000 3@10.0.0.1:4001",
            "lgc-spark/1 job=7 attempt=1 resume=50 1@host-b:5000",
            "lgc-spark/1 job=7 attempt=1 resume=50 2@host-c:6000"}, 7, 1, 4);
        assertEquals(List.of("10.0.0.1:4000", "host-b:5000", "host-c:6000", "10.0.0.1:4001"),
                table.stream().map(a -> a.getHostString() + ":" + a.getPort()).toList());
    }

    @Test
    void shouldNameEveryDisagreement() {
        rejects("the tasks of stage attempt 1 disagree on the checkpoint to resume from: task 0 resumes after step 50,"
                + " task 1 starts at step 0 (a task of the failed attempt may still have been writing one); the next"
                + " attempt will agree",
                "lgc-spark/1 job=7 attempt=1 resume=50 0@h:1", "lgc-spark/1 job=7 attempt=1 resume=-1 1@h:2",
                "lgc-spark/1 job=7 attempt=1 resume=50 2@h:3");
        rejects("task 1 runs stage attempt 0, this task attempt 1",
                "lgc-spark/1 job=7 attempt=1 resume=-1 0@h:1", "lgc-spark/1 job=7 attempt=0 resume=-1 1@h:2");
        rejects("task 0 runs job 8, this task job 7", "lgc-spark/1 job=8 attempt=1 resume=-1 0@h:1");
        rejects("endpoint 1 is offered twice (h:2 and 1@h:3)",
                "lgc-spark/1 job=7 attempt=1 resume=-1 0@h:1 1@h:2", "lgc-spark/1 job=7 attempt=1 resume=-1 1@h:3");
        rejects("no task offers endpoint 2 of 3",
                "lgc-spark/1 job=7 attempt=1 resume=-1 0@h:1", "lgc-spark/1 job=7 attempt=1 resume=-1 1@h:2");
        rejects("task 0 offers endpoint 5, expected 0..2", "lgc-spark/1 job=7 attempt=1 resume=-1 5@h:1");
        rejects("task 0 sent a bad address 'h:1', expected endpoint@host:port",
                "lgc-spark/1 job=7 attempt=1 resume=-1 h:1");
        rejects("task 0 sent 'lgc-spark/0 job=7 attempt=1 resume=-1 0@h:1', expected 'lgc-spark/1 job=… attempt=…"
                + " resume=… endpoint@host:port…': every executor must run the same lgc-spark jar",
                "lgc-spark/0 job=7 attempt=1 resume=-1 0@h:1");
    }

    @Test
    void everyTasksCaCertificateShouldTravelInOneTokenAndEndUpInTheTrustBundle() throws IOException {
        TaskCertificates b = TaskCertificates.create("fe80::1%eth0");
        try (TaskCertificates a = TaskCertificates.create("10.0.0.1")) {
            assertFalse(Files.exists(a.directory().resolve("ca.key")), "the task CA's key is gone once it signed");
            String tokenA = a.caToken();
            assertTrue(tokenA.matches("[A-Za-z0-9+/=]+"), "one token: " + tokenA);
            List<String> tokens = TaskRendezvous.parseCertificates(new String[] {
                "lgc-spark-tls/1 job=7 attempt=1 ca=" + tokenA,
                "lgc-spark-tls/1 job=7 attempt=1 ca=" + b.caToken()}, 7, 1);
            assertEquals(List.of(tokenA, b.caToken()), tokens);
            NetSettings.Tls tls = b.trust(tokens);
            assertEquals(b.directory().resolve("fe80::1_eth0.crt"), tls.certChain());
            assertEquals(b.directory().resolve("fe80::1_eth0.key"), tls.privateKey());
            String bundle = Files.readString(tls.trustedCa());
            assertEquals(Files.readString(a.directory().resolve("ca.crt")) + Files.readString(b.directory()
                    .resolve("ca.crt")), bundle);
        } finally {
            b.close();
        }
        assertFalse(Files.exists(b.directory()), "close deletes the task's directory");
    }

    @Test
    void badCertificateMessagesShouldBeRefusedNamingTheTask() {
        IllegalStateException plain = assertThrows(IllegalStateException.class, () -> TaskRendezvous.parseCertificates(
                new String[] {"lgc-spark-tls/1 job=7 attempt=1 ca=QUJD", "lgc-spark/1 job=7 attempt=1 resume=-1 0@h:1"},
                7, 1));
        assertEquals("task 1 sent 'lgc-spark/1 job=7 attempt=1 resume=-1 0@h:1', expected 'lgc-spark-tls/1 job=…"
                + " attempt=… ca=…': every task must run with TLS, from the same lgc-spark jar",
                plain.getMessage());
        IllegalStateException job = assertThrows(IllegalStateException.class, () -> TaskRendezvous.parseCertificates(
                new String[] {"lgc-spark-tls/1 job=8 attempt=1 ca=QUJD"}, 7, 1));
        assertEquals("task 0 runs job 8, this task job 7", job.getMessage());
        try (TaskCertificates c = TaskCertificates.create("localhost")) {
            IllegalStateException notPem = assertThrows(IllegalStateException.class,
                    () -> c.trust(List.of(c.caToken(), "QUJD")));
            assertEquals("task 1 sent a CA certificate that is not a PEM certificate, expected base64 of"
                    + " '-----BEGIN CERTIFICATE-----…'", notPem.getMessage());
        }
    }
}
