package io.lgc4j.net;

import io.lgc4j.core.comm.Frame;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.math.BigInteger;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.spec.ECGenParameterSpec;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Date;
import java.util.List;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static io.lgc4j.net.NetFixtures.*;
import static org.junit.jupiter.api.Assertions.*;

/** Mutual TLS with certificates made here: a job CA signs every endpoint; another CA's endpoint is refused. */
class TlsTest {
    @TempDir
    Path dir;

    /** A CA: its key pair and self-signed certificate. */
    private record Ca(KeyPair keys, X509CertificateHolder cert, Path pem) {
    }

    private static KeyPair ecKeys() throws Exception {
        KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
        g.initialize(new ECGenParameterSpec("secp256r1"));
        return g.generateKeyPair();
    }

    private Ca ca(String name) throws Exception {
        KeyPair keys = ecKeys();
        X500Name subject = new X500Name("CN=" + name);
        Instant now = Instant.now();
        X509CertificateHolder cert = new JcaX509v3CertificateBuilder(subject, BigInteger.ONE,
                Date.from(now.minus(1, ChronoUnit.HOURS)), Date.from(now.plus(1, ChronoUnit.DAYS)), subject,
                keys.getPublic())
                .addExtension(Extension.basicConstraints, true, new BasicConstraints(true))
                .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign))
                .build(new JcaContentSignerBuilder("SHA256withECDSA").build(keys.getPrivate()));
        Path pem = dir.resolve(name + ".crt");
        Files.writeString(pem, pem("CERTIFICATE", cert.getEncoded()));
        return new Ca(keys, cert, pem);
    }

    /** An endpoint's certificate signed by {@code ca}, as PEM chain and PKCS#8 key files. */
    private NetSettings.Tls endpoint(Ca ca, String name) throws Exception {
        KeyPair keys = ecKeys();
        Instant now = Instant.now();
        X509CertificateHolder cert = new JcaX509v3CertificateBuilder(ca.cert().getSubject(),
                BigInteger.valueOf(System.nanoTime()), Date.from(now.minus(1, ChronoUnit.HOURS)),
                Date.from(now.plus(1, ChronoUnit.DAYS)), new X500Name("CN=" + name), keys.getPublic())
                .addExtension(Extension.basicConstraints, true, new BasicConstraints(false))
                .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature))
                .build(new JcaContentSignerBuilder("SHA256withECDSA").build(ca.keys().getPrivate()));
        Path chain = dir.resolve(name + ".crt");
        Files.writeString(chain, pem("CERTIFICATE", cert.getEncoded()) + pem("CERTIFICATE", ca.cert().getEncoded()));
        Path key = dir.resolve(name + ".key");
        PrivateKey privateKey = keys.getPrivate();
        Files.writeString(key, pem("PRIVATE KEY", privateKey.getEncoded()));
        return new NetSettings.Tls(chain, key, ca.pem());
    }

    private static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n"
                + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der)
                + "\n-----END " + type + "-----\n";
    }

    @Test
    @Timeout(90)
    void shouldJoinAndExchangeFramesOverMutualTls() throws Exception {
        Ca ca = ca("job-ca");
        InetSocketAddress master = freeMaster();
        List<NetSettings> all = new ArrayList<>();
        for (int e = 0; e < 3; e++) {
            all.add(builder(e, 3, master).tls(endpoint(ca, "endpoint-" + e)).build());
        }
        RecordingLog log = new RecordingLog();
        List<TcpCluster> clusters;
        try {
            clusters = joinAll(all, log);
        } catch (Exception e) {
            throw new AssertionError("join failed; log: " + log.all(), e);
        }
        try {
            for (int from = 0; from < 3; from++) {
                for (int to = 0; to < 3; to++) {
                    if (from != to) {
                        clusters.get(from).transport().send(to, frame(600_000, from * 3 + to, from));
                    }
                }
            }
            for (int to = 0; to < 3; to++) {
                for (int from = 0; from < 3; from++) {
                    if (from != to) {
                        Frame f = clusters.get(to).transport().receive(from);
                        assertEquals(from, f.sender());
                        assertTrue(hasPattern(f.payload(), 600_000, from * 3 + to));
                    }
                }
            }
        } finally {
            closeAll(clusters);
        }
    }

    @Test
    @Timeout(90)
    void shouldRefuseAPeerWhoseCertificateComesFromAnotherCa() throws Exception {
        Ca ca = ca("job-ca");
        Ca other = ca("other-ca");
        InetSocketAddress master = freeMaster();
        RecordingLog log = new RecordingLog();
        Future<TcpCluster> zero = async(() -> TcpCluster.join(builder(0, 2, master)
                .tls(endpoint(ca, "endpoint-0")).build(), log));
        List<TcpCluster> clusters = new ArrayList<>();
        try {
            NetSettings.Tls stranger = endpoint(other, "stranger");
            // it trusts the job's CA (so it would accept endpoint 0), but its own certificate is another CA's
            NetSettings bad = builder(1, 2, master).tls(new NetSettings.Tls(stranger.certChain(),
                    stranger.privateKey(), ca.pem())).build();
            RendezvousException refused = assertThrows(RendezvousException.class,
                    () -> TcpCluster.join(bad, new RecordingLog()));
            assertTrue(refused.getMessage().startsWith("endpoint 1 could not join job 9: TLS handshake with endpoint 0"
                    + " (127.0.0.1:" + master.getPort() + ") failed: "), refused.getMessage());
            String line = log.awaitWarning("refused a connection");
            assertTrue(line.matches("refused a connection from /127\\.0\\.0\\.1:\\d+: TLS handshake failed: .+"), line);

            TcpCluster one = TcpCluster.join(builder(1, 2, master).tls(endpoint(ca, "endpoint-1")).build(),
                    new RecordingLog());
            clusters.add(zero.get(60, TimeUnit.SECONDS));
            clusters.add(one);
            clusters.get(1).transport().send(0, frame(5, 5, 0));
            assertTrue(hasPattern(clusters.get(0).transport().receive(1).payload(), 5, 5));
            assertTrue(clusters.get(0).tls() && clusters.get(1).tls(), "both report their links as TLS");
        } finally {
            closeAll(clusters);
            HandshakeTest.cancel(zero);
        }
    }
}
